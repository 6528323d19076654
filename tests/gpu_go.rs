//! Go on the GPU against the CPU reference and the published counts: the
//! record's layout, legal-point and playout bitmaps on thousands of random
//! positions of every size, perft (with small arenas that force the engine
//! to split levels), and playouts identical to the CPU twin's.

mod common;

use common::gpu::context;
use gpu_movegen::go::gpu::layout::PackedGoPosition;
use gpu_movegen::go::gpu::{
    BoardSize, GoGpuPerft, GoMoveGenerator, GoPerftOptions, GoPositionMoves, GpuPlayouts, shaders,
};
use gpu_movegen::go::perft::perft;
use gpu_movegen::go::playout::{playouts, random_positions};
use gpu_movegen::go::{PlayoutResult, Position};
use gpu_movegen::gpu::{FusedShape, GpuError};

#[test]
fn every_size_composes_and_the_record_matches_its_rust_twin() {
    for size in 2..=19 {
        for root in ["go_perft", "go_legal", "go_playouts"] {
            let source = shaders::compose(root, size, &[]).unwrap();
            let module = naga::front::wgsl::parse_str(&source)
                .unwrap_or_else(|error| panic!("{size} {root}: {}", error.emit_to_string(&source)));
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
                .validate(&module)
                .unwrap_or_else(|error| panic!("{size} {root}: {error:?}"));
            let (_, ty) = module.types.iter().find(|(_, ty)| ty.name.as_deref() == Some("PackedGoPosition")).unwrap();
            let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("not a struct") };
            assert_eq!(*span as usize, size_of::<PackedGoPosition>());
            let offsets: Vec<u32> = members.iter().map(|member| member.offset).collect();
            use std::mem::offset_of;
            let expected = [
                offset_of!(PackedGoPosition, black),
                offset_of!(PackedGoPosition, white),
                offset_of!(PackedGoPosition, ko),
                offset_of!(PackedGoPosition, to_move),
                offset_of!(PackedGoPosition, size),
                offset_of!(PackedGoPosition, reserved),
            ];
            assert_eq!(offsets, expected.map(|offset| offset as u32));
        }
    }
}

#[test]
fn every_go_module_opens_with_what_it_reads_and_writes() {
    for module in shaders::GO_MODULES {
        let file = module.path.split_once('/').expect("folder/file").1;
        let header = module.source.lines().take_while(|line| line.starts_with("//")).collect::<Vec<_>>().join("\n");
        assert!(header.starts_with(&format!("// {file} ")), "{} must open with its name", module.path);
        assert!(header.contains("Reads:") && header.contains("Writes:"), "{}", module.path);
    }
}

#[test]
fn gpu_bitmaps_equal_the_cpu_on_random_positions() {
    let mut generator = GoMoveGenerator::new(&context());
    for (size, count) in [(5, 500), (9, 2_000), (13, 1_000), (19, 1_000)] {
        let positions = random_positions(size, count, u64::from(size)).unwrap();
        let gpu = generator.generate(&positions).unwrap();
        assert_eq!(gpu.len(), positions.len());
        let mut with_eyes = 0;
        for (position, moves) in positions.iter().zip(&gpu) {
            let cpu = GoPositionMoves::from_cpu(position);
            assert_eq!(*moves, cpu, "{size}x{size}:\n{}", position.diagram());
            with_eyes += usize::from(cpu.legal != cpu.playout);
        }
        assert!(with_eyes > 0, "{size}x{size}: no position had an eye to leave out");
    }
    let mixed = [Position::new(9).unwrap(), Position::new(13).unwrap()];
    assert!(matches!(generator.generate(&mixed), Err(GpuError::Limits(_))));
}

#[test]
fn gpu_perft_matches_the_published_counts() {
    let context = context();
    for (size, depth, expected) in
        [(5, 4, 303_424), (7, 3, 110_544), (9, 3, 511_920), (13, 2, 28_392), (19, 2, 129_960)]
    {
        let options = GoPerftOptions { build: BoardSize(size), ..Default::default() };
        let mut gpu = GoGpuPerft::with_options(&context, options).unwrap();
        let empty = Position::new(size).unwrap();
        assert_eq!(gpu.perft(&[empty], depth, &mut |_| {}).unwrap(), [expected], "{size}x{size} perft({depth})");
    }
}

#[test]
fn gpu_perft_equals_the_cpu_on_random_positions() {
    let context = context();
    // Every shape of the last two plies: stored, fused per position, fused per move.
    let positions: Vec<Position> = random_positions(7, 400, 11).unwrap().into_iter().step_by(4).collect();
    let cpu: Vec<u64> = positions.iter().map(|position| perft(position, 3)).collect();
    for (fused_leaves, fused_shape) in
        [(true, FusedShape::PerPosition), (true, FusedShape::PerMove), (false, FusedShape::Auto)]
    {
        let options = GoPerftOptions { build: BoardSize(7), fused_leaves, fused_shape, ..Default::default() };
        let mut gpu = GoGpuPerft::with_options(&context, options).unwrap();
        assert_eq!(gpu.perft(&positions, 3, &mut |_| {}).unwrap(), cpu, "fused leaves {fused_leaves} {fused_shape:?}");
    }
}

#[test]
fn a_batch_of_large_positions_counts_as_on_the_cpu() {
    // 300 19x19 positions at depth 2 in one batch: one invocation per child,
    // never one playing all 361 points (see GoGame::FUSED_LEAVES).
    let positions = random_positions(19, 300, 1).unwrap();
    let cpu: Vec<u64> = positions.iter().map(|position| perft(position, 2)).collect();
    let mut gpu = GoGpuPerft::with_options(&context(), GoPerftOptions::default()).unwrap();
    assert_eq!(gpu.perft(&positions, 2, &mut |_| {}).unwrap(), cpu);
}

#[test]
fn small_arenas_stay_exact() {
    let context = context();
    let empty = Position::new(5).unwrap();
    // No 5x5 position has more than 25 moves, so the engine may keep room for 25 per level.
    for arena in [400, 500] {
        let options = GoPerftOptions {
            build: BoardSize(5),
            arena_positions: Some(arena),
            reserve_moves: Some(25),
            ..Default::default()
        };
        let mut gpu = GoGpuPerft::with_options(&context, options).unwrap();
        assert_eq!(gpu.perft(&[empty], 4, &mut |_| {}).unwrap(), [303_424], "arena {arena}");
        assert!(gpu.statistics().split_levels > 0, "{arena}: {:?}", gpu.statistics());
    }
}

#[test]
fn a_position_of_another_size_is_a_fault_not_a_count() {
    let options = GoPerftOptions { build: BoardSize(9), ..Default::default() };
    let mut gpu = GoGpuPerft::with_options(&context(), options).unwrap();
    let error = gpu.perft(&[Position::new(13).unwrap()], 2, &mut |_| {}).unwrap_err();
    assert!(matches!(error, GpuError::ShaderFault(_)), "{error}");
}

/// The CPU twin's playouts of a batch: `per_position` from each position,
/// streams numbered on from `first_stream` across the batch.
fn cpu_twin(positions: &[Position], per_position: u32, seed: u32, first_stream: u32) -> Vec<PlayoutResult> {
    positions
        .iter()
        .enumerate()
        .flat_map(|(index, position)| {
            playouts(position, per_position, seed, first_stream + per_position * index as u32)
        })
        .collect()
}

#[test]
fn gpu_playouts_equal_the_cpu_twin() {
    let mut runner = GpuPlayouts::new(&context());
    for (size, count) in [(5, 256), (9, 512), (13, 64), (19, 32)] {
        let empty = Position::new(size).unwrap();
        let gpu = runner.playouts(&[empty], count, 42, 7).unwrap();
        let cpu = playouts(&empty, count, 42, 7);
        assert_eq!(gpu, cpu, "{size}x{size} from the empty board");
    }
    // From game positions with kos, captures and chains already in atari,
    // several positions in one batch: the kernel's atari set starts from each.
    for (size, moves, step, per_position) in [(9, 300, 10, 16), (13, 500, 25, 4), (19, 1_000, 50, 2)] {
        let positions: Vec<Position> = random_positions(size, moves, 5).unwrap().into_iter().step_by(step).collect();
        let gpu = runner.playouts(&positions, per_position, 3, 1_000).unwrap();
        assert_eq!(gpu, cpu_twin(&positions, per_position, 3, 1_000), "{size}x{size} from game positions");
    }
}

#[test]
fn playouts_split_across_dispatches_equal_one_batch() {
    // 40 playouts a dispatch: 3 positions of 30 go one position a dispatch,
    // and 100 playouts of one position go in pieces of 40, 40 and 20.
    let mut runner = GpuPlayouts::new(&context()).with_dispatch_limit(40);
    let positions: Vec<Position> = random_positions(9, 90, 11).unwrap().into_iter().step_by(30).collect();
    assert_eq!(positions.len(), 3);
    for per_position in [30, 100] {
        let gpu = runner.playouts(&positions, per_position, 9, 500).unwrap();
        assert_eq!(gpu, cpu_twin(&positions, per_position, 9, 500), "{per_position} playouts a position");
    }
}
