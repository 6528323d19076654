//! The chess kernels' known-answer checks for the GPU self-test
//! (`crate::gpu::self_test`): perft in both leaf shapes, with and without
//! merging, against the CPU reference; and seeded random playouts written on
//! the embedding library, as a user's search would be, against their CPU twin.

use super::embed::{self, EmbedOptions, ShaderRandom};
use super::layout::PackedPosition;
use super::perft::{GpuPerft, PerftOptions};
use super::shaders::ShaderBuild;
use crate::chess::board::Color;
use crate::chess::position::Position;
use crate::gpu::resources::{buffer, buffer_with, read_buffer_async};
use crate::gpu::{Check, FusedShape, GpuContext, GpuError};

/// Positions with castling, en passant, promotions, pins and checks, and
/// the depth each is counted to (small enough for a software adapter).
const PERFT_POSITIONS: [(&str, u32); 6] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3),
];

/// Perft of the check positions (`PERFT_POSITIONS`) with stored leaves and
/// with fused ones in both shapes (per position and per move, whichever
/// the device would run by default), with a transposition table (and
/// merging) and without either.
pub fn perft_check(build: ShaderBuild) -> Check {
    Check::new(
        format!("chess perft ({}; fused leaves in both shapes and stored, tables and not)", build.name()),
        move |context| async move {
            let roots: Vec<Position> =
                PERFT_POSITIONS.iter().map(|(fen, _)| Position::from_fen(fen).expect("a valid check FEN")).collect();
            let shapes = [(true, FusedShape::PerMove), (true, FusedShape::PerPosition), (false, FusedShape::Auto)];
            for (fused_leaves, fused_shape) in shapes {
                for merge_transpositions in [true, false] {
                    let options = PerftOptions::for_check(build, fused_leaves, fused_shape, merge_transpositions);
                    let mut engine =
                        GpuPerft::with_options_async(&context, options).await.map_err(|error| error.to_string())?;
                    for (root, &(fen, depth)) in roots.iter().zip(&PERFT_POSITIONS) {
                        let gpu = engine
                            .perft_async(std::slice::from_ref(root), depth, &mut |_| {})
                            .await
                            .map_err(|error| error.to_string())?;
                        let cpu = crate::chess::perft::perft(root, depth);
                        if gpu != [cpu] {
                            return Err(format!(
                                "perft({depth}) of {fen} is {gpu:?} on the GPU, {cpu} on the CPU (fused leaves \
                             {fused_leaves} {fused_shape:?}, tables and merging {merge_transpositions})"
                            ));
                        }
                    }
                }
            }
            Ok(())
        },
    )
}

/// The statistics kernel on the check positions (`PERFT_POSITIONS`) a ply shallower, merging on
/// and off, against the CPU reference's statistics: every column must agree.
pub fn statistics_check(build: ShaderBuild) -> Check {
    Check::new(format!("chess perft statistics ({}; merged and not)", build.name()), move |context| async move {
        for merge_transpositions in [true, false] {
            let options = PerftOptions { build, merge_transpositions, leaf_statistics: true, ..Default::default() };
            let mut engine =
                GpuPerft::with_options_async(&context, options).await.map_err(|error| error.to_string())?;
            for &(fen, depth) in &PERFT_POSITIONS {
                let root = Position::from_fen(fen).expect("a valid check FEN");
                let depth = depth - 1;
                let gpu = engine
                    .perft_stats_async(std::slice::from_ref(&root), depth, &mut |_| {})
                    .await
                    .map_err(|error| error.to_string())?;
                let cpu = crate::chess::stats::perft_stats(&root, depth);
                if gpu != [cpu] {
                    return Err(format!(
                        "perft({depth}) statistics of {fen} are {gpu:?} on the GPU, {cpu:?} on the CPU (merging \
                         {merge_transpositions})"
                    ));
                }
            }
        }
        Ok(())
    })
}

/// Random playouts written on `#import chess`: one invocation a playout, a
/// whole game in one loop of move counting, selection and making.
const PLAYOUT_SHADER: &str = r#"
// Reads: `roots` (binding 0), `parameters` (binding 1: root count,
// playouts per root, seed, ply cap), the library's tables (group 1).
// Writes: `results` (binding 2): plies << 8 | how the playout ended.
// One invocation per (root, playout) plays seeded random legal moves until
// no move is left or the ply cap.
#import chess

@group(0) @binding(0) var<storage, read> roots: array<PackedPosition>;
@group(0) @binding(1) var<storage, read> parameters: array<u32, 4>;
@group(0) @binding(2) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn playouts(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index >= parameters[0] * parameters[1] {
        return;
    }
    var random = random_seed(parameters[2], index);
    var board = chess_unpack(roots[index / parameters[1]]);
    var plies = 0u;
    var ending = 3u;
    loop {
        let count = chess_count_legal(board);
        if count == 0u {
            ending = select(2u, select(0u, 1u, board.side_to_move == WHITE), chess_in_check(board));
            break;
        }
        if plies >= parameters[3] {
            break;
        }
        board = chess_make_move(board, chess_nth_legal_move(board, random_below(&random, count)));
        plies += 1u;
    }
    results[index] = plies << 8u | ending;
}
"#;

const PLAYOUT_ROOTS: u32 = 2;
const PLAYOUTS_PER_ROOT: u32 = 32;
const PLAYOUT_SEED: u32 = 2026;
/// Long enough that a playout runs far past 65,536 loop iterations in all.
const PLAYOUT_PLY_CAP: u32 = 400;

/// The CPU twin of one playout: the same moves in the same order, the same draws.
fn playout_twin(root: &Position, stream: u32) -> u32 {
    let mut random = ShaderRandom::new(PLAYOUT_SEED, stream);
    let mut position = *root;
    let mut plies = 0;
    let ending = loop {
        let moves = position.legal_moves_in_order();
        if moves.is_empty() {
            break match (position.in_check(), position.side_to_move()) {
                (true, Color::White) => 1,
                (true, Color::Black) => 0,
                (false, _) => 2,
            };
        }
        if plies >= PLAYOUT_PLY_CAP {
            break 3;
        }
        position = position.make_move(moves[random.below(moves.len() as u32) as usize]);
        plies += 1;
    };
    plies << 8 | ending
}

/// Playouts of the embedding library built in `build`, result for result.
pub fn library_check(build: ShaderBuild) -> Check {
    Check::new(
        format!("the embedding library's long loops (chess playouts, {})", build.name()),
        move |context| async move {
            let roots = [
                Position::start(),
                Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                    .expect("a valid check FEN"),
            ];
            let gpu = library_playouts(&context, build, &roots).await.map_err(|error| error.to_string())?;
            let count = PLAYOUT_ROOTS * PLAYOUTS_PER_ROOT;
            let differing: Vec<u32> = (0..count)
                .filter(|&stream| {
                    gpu[stream as usize] != playout_twin(&roots[(stream / PLAYOUTS_PER_ROOT) as usize], stream)
                })
                .collect();
            match differing.first() {
                None => Ok(()),
                Some(&first) => Err(format!(
                    "{} of {count} playouts differ from the CPU (playout {first}: {} plies on the GPU, {} on the CPU)",
                    differing.len(),
                    gpu[first as usize] >> 8,
                    playout_twin(&roots[(first / PLAYOUTS_PER_ROOT) as usize], first) >> 8
                )),
            }
        },
    )
}

async fn library_playouts(context: &GpuContext, build: ShaderBuild, roots: &[Position]) -> Result<Vec<u32>, GpuError> {
    let options = EmbedOptions { table_group: 1, table_binding: 0, build };
    let composed = embed::compose(PLAYOUT_SHADER, options)?;
    let device = &context.device;
    let count = PLAYOUT_ROOTS * PLAYOUTS_PER_ROOT;
    let bytes = u64::from(count) * 4;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("self-test playouts"),
        entries: &composed.layout_entries(0),
    });
    let tables_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("self-test tables"),
        entries: &[embed::table_layout_entry(&options)],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("self-test playouts"),
        bind_group_layouts: &[Some(&layout), Some(&tables_layout)],
        immediate_size: 0,
    });
    let pipeline = composed.create_compute_pipeline_async(context, &pipeline_layout, "playouts", &[]).await?;
    let output = context
        .scoped_async(|| {
            use wgpu::BufferUsages as Usage;
            let packed: Vec<PackedPosition> = roots.iter().map(PackedPosition::from).collect();
            let roots = buffer_with(device, "self-test roots", &packed, Usage::STORAGE);
            let parameters = [PLAYOUT_ROOTS, PLAYOUTS_PER_ROOT, PLAYOUT_SEED, PLAYOUT_PLY_CAP];
            let parameters = buffer_with(device, "self-test parameters", &parameters, Usage::STORAGE);
            let output = buffer(device, "self-test results", bytes, Usage::STORAGE | Usage::COPY_SRC);
            let tables = embed::create_table_buffer(device);
            let group = crate::gpu::resources::bind_group(
                device,
                "self-test playouts",
                &layout,
                &[(0, &roots), (1, &parameters), (2, &output)],
            );
            let tables_group =
                crate::gpu::resources::bind_group(device, "self-test tables", &tables_layout, &[(0, &tables)]);
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &group, &[]);
                pass.set_bind_group(1, &tables_group, &[]);
                pass.dispatch_workgroups(count.div_ceil(64), 1, 1);
            }
            context.submit([encoder.finish()]);
            output
        })
        .await?;
    read_buffer_async(context, &output, 0, bytes).await
}
