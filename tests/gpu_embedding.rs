//! The WGSL library from user shaders: a shader written here, composed with
//! the library through the public embedding API, against the CPU; and the
//! search experiments of examples/gpu_search against their CPU twins.

mod common;

#[path = "../examples/gpu_search/experiment.rs"]
mod experiment;

use common::gpu::{context, gpu_child};
use experiment::{GpuSearch, Outcome, PlayoutSettings, cpu_negamax, cpu_playouts};
use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::chess::gpu::embed::{self, BindingKind, EmbedOptions};
use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::gpu::GpuError;
use gpu_movegen::{Move, Position};

/// A user shader: per position, the library's verdicts, every legal move in
/// the library's order, and every child position.
const USER_SHADER: &str = r#"
#import chess

@group(0) @binding(0) var<storage, read> positions: array<PackedPosition>;
@group(0) @binding(1) var<storage, read_write> summary: array<u32>;
@group(0) @binding(2) var<storage, read_write> children: array<PackedPosition>;

const SLOTS: u32 = 256u;

@compute @workgroup_size(64)
fn inspect(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= arrayLength(&positions) {
        return;
    }
    let board = chess_unpack(positions[index]);
    let base = index * (SLOTS + 8u);
    summary[base] = chess_count_legal(board);
    summary[base + 1u] = u32(chess_in_check(board));
    summary[base + 2u] = u32(chess_is_checkmate(board));
    summary[base + 3u] = u32(chess_is_stalemate(board));
    summary[base + 4u] = u32(chess_is_insufficient_material(board));
    summary[base + 5u] = chess_generate_legal(board).count;
    summary[base + 6u] = chess_nth_legal_move(board, 0u);
    var iterator = chess_moves_begin(board);
    var written = 0u;
    loop {
        let mv = chess_moves_next(board, &iterator);
        if mv == CHESS_NO_MOVE || written == SLOTS {
            break;
        }
        summary[base + 8u + written] = mv;
        children[index * SLOTS + written] = chess_pack(chess_make_move(board, mv));
        written += 1u;
    }
    summary[base + 7u] = written;
}
"#;

#[test]
fn a_user_shader_calling_the_library_agrees_with_the_cpu() {
    let context = context();
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    let mut positions = roots.clone();
    positions.extend(common::random_walks(&roots, 3, 100, 66, |position| {
        position.is_checkmate() || position.is_stalemate()
    }));
    positions.push(Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap());
    positions.push(Position::from_fen("8/8/8/4k3/8/8/2B1K3/8 w - - 0 1").unwrap());
    assert!(positions.iter().any(Position::is_checkmate) && positions.iter().any(Position::is_stalemate));
    // Chess960: castling as king takes rook through the enumerator and chess_make_move.
    let chess960 = common::chess960_suite_positions();
    positions.extend(common::random_positions(&chess960[..100], 2, 12, 960));
    positions.extend(&chess960[..100]);
    let castling_960 = |position: &Position| {
        position
            .legal_moves()
            .iter()
            .any(|mv| mv.kind() == gpu_movegen::MoveKind::Castling && !mv.is_standard_castling())
    };
    assert!(positions.iter().filter(|position| castling_960(position)).count() >= 50);

    let options = EmbedOptions { table_group: 1, table_binding: 3, build: ShaderBuild::default() };
    let composed = embed::compose(USER_SHADER, options).expect("composes");
    assert_eq!(composed.entry_points.len(), 1);
    assert_eq!(composed.entry_points[0].name, "inspect");
    assert_eq!(composed.entry_points[0].workgroup_size, [64, 1, 1]);
    let table = composed.bindings.iter().find(|binding| binding.name == "attack_tables").unwrap();
    assert_eq!((table.group, table.binding, table.kind), (1, 3, BindingKind::Storage { read_only: true }));
    assert_eq!(composed.layout_entries(0).len(), 3);

    let device = &context.device;
    use wgpu::util::DeviceExt as _;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &composed.layout_entries(0),
    });
    let tables_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[embed::table_layout_entry(&options)],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&layout), Some(&tables_layout)],
        immediate_size: 0,
    });
    let pipeline = composed.create_compute_pipeline(&context, &pipeline_layout, "inspect", &[]).expect("pipeline");
    let gpu_positions: Vec<PackedPosition> = positions.iter().map(PackedPosition::from).collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&gpu_positions),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let summary_words = positions.len() * (256 + 8);
    let summary = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: summary_words as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let children = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (positions.len() * 256 * size_of::<PackedPosition>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let tables = embed::create_table_buffer(device);
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: summary.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: children.as_entire_binding() },
        ],
    });
    let tables_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &tables_layout,
        entries: &[wgpu::BindGroupEntry { binding: 3, resource: tables.as_entire_binding() }],
    });
    let read = |buffer: &wgpu::Buffer| -> Vec<u8> {
        gpu_movegen::gpu::resources::read_buffer(&context, buffer, 0, buffer.size()).expect("readback")
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_bind_group(1, &tables_group, &[]);
        pass.dispatch_workgroups((positions.len() as u32).div_ceil(64), 1, 1);
    }
    context.queue.submit([encoder.finish()]);
    let summary_bytes = read(&summary);
    let words: &[u32] = bytemuck::cast_slice(&summary_bytes);
    let children_bytes = read(&children);
    let child_positions: &[PackedPosition] = bytemuck::cast_slice(&children_bytes);
    context.check_health().expect("no GPU errors");

    for (index, position) in positions.iter().enumerate() {
        let row = &words[index * 264..(index + 1) * 264];
        let fen = position.to_fen();
        let moves = position.legal_moves_in_order();
        assert_eq!(row[0] as usize, moves.len(), "count_legal {fen}");
        assert_eq!(row[1] != 0, position.in_check(), "in_check {fen}");
        assert_eq!(row[2] != 0, position.is_checkmate(), "is_checkmate {fen}");
        assert_eq!(row[3] != 0, position.is_stalemate(), "is_stalemate {fen}");
        assert_eq!(row[4] != 0, position.is_insufficient_material(), "insufficient material {fen}");
        assert_eq!(row[5] as usize, moves.len(), "generate_legal count {fen}");
        assert_eq!(row[6], moves.first().map_or(u32::MAX, |mv| u32::from(mv.bits())), "nth_legal_move(0) {fen}");
        assert_eq!(row[7] as usize, moves.len(), "iterated moves {fen}");
        for (slot, mv) in moves.iter().enumerate() {
            let gpu_move = Move::from_bits(row[8 + slot] as u16).expect("a valid move encoding");
            assert_eq!(gpu_move, *mv, "move {slot} of {fen}");
            assert_eq!(child_positions[index * 256 + slot], gpu_child(position, *mv), "{mv} in {fen}");
        }
    }
}

#[test]
fn composing_reports_wgsl_errors_with_their_lines() {
    let broken = "#import chess\n@compute @workgroup_size(64)\nfn main() { let x: u32 = chess_no_such_function(); }\n";
    let error = embed::compose(broken, EmbedOptions::default()).unwrap_err();
    assert!(matches!(error, GpuError::Shader(_)), "{error}");
    assert!(error.to_string().contains("chess_no_such_function"), "{error}");
    let missing = embed::compose("#import no_such_module\n", EmbedOptions::default()).unwrap_err();
    assert!(missing.to_string().contains("no_such_module"), "{missing}");
}

/// Roots whose playouts end every way: mate, stalemate, the fifty-move
/// rule, insufficient material, and the ply cap.
fn search_roots() -> Vec<Position> {
    [
        gpu_movegen::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // White mates in one (Qg7#) among few moves; random play finds it often.
        "7k/8/5KQ1/8/8/8/8/8 w - - 0 1",
        // Black to move is stalemated.
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        // Two quiet plies from the fifty-move rule.
        "8/8/8/4k3/8/8/4K3/R6r w - - 98 80",
        // Bishop against bare king: insufficient material at once.
        "8/8/8/4k3/8/8/2B1K3/8 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ]
    .iter()
    .map(|fen| Position::from_fen(fen).unwrap())
    .collect()
}

#[test]
fn playouts_on_the_gpu_equal_the_cpu_with_the_same_seeds() {
    let context = context();
    let search = GpuSearch::new(&context, ShaderBuild::default()).expect("search pipelines");
    let roots = search_roots();
    for seed in [1, 2026] {
        let settings = PlayoutSettings { playouts_per_root: 64, seed, ply_cap: 120 };
        let gpu = search.playouts(&roots, &settings).expect("GPU playouts");
        let cpu = cpu_playouts(&roots, &settings);
        assert_eq!(gpu, cpu, "seed {seed}");
        let seen = |outcome: Outcome| gpu.iter().any(|playout| playout.outcome == outcome);
        for outcome in [
            Outcome::WhiteWins,
            Outcome::Stalemate,
            Outcome::FiftyMoves,
            Outcome::InsufficientMaterial,
            Outcome::PlyCap,
        ] {
            assert!(seen(outcome), "no playout ended {outcome:?} with seed {seed}");
        }
        // Different seeds, different games.
        let other = cpu_playouts(&roots, &PlayoutSettings { seed: seed + 1, ..settings });
        assert_ne!(cpu, other);
    }
}

#[test]
fn negamax_on_the_gpu_equals_the_cpu() {
    let context = context();
    let search = GpuSearch::new(&context, ShaderBuild::default()).expect("search pipelines");
    let names: Vec<&str> = search.composed().entry_points.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["playouts", "count_children", "expand_children", "evaluate_leaves", "reduce_level"]);
    let mut roots = search_roots();
    roots.extend(gpu_movegen::random_play::random_positions(&Position::start(), 40, 60, 7));
    for depth in [1, 2, 3] {
        let gpu = search.negamax(&roots, depth).expect("GPU negamax");
        let cpu: Vec<_> = roots.iter().map(|root| cpu_negamax(root, depth)).collect();
        assert_eq!(gpu, cpu, "depth {depth}");
    }
    // The mate in one is found and scored as a mate.
    let (score, best) = search.negamax(&roots[2..3], 1).unwrap()[0];
    assert_eq!(best.map(|mv| mv.to_string()), Some("g6g7".to_owned()));
    assert!(score > 90_000);
    // The stalemated side has no move and scores 0.
    assert_eq!(search.negamax(&roots[3..4], 2).unwrap()[0], (0, None));
}
