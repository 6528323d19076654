//! Every slider algorithm in both bitboard representations through the whole
//! pipeline: move generation against the CPU reference and GPU perft against
//! the published counts.

mod common;

use common::gpu::{builds, context};
use common::{CHESS960, EDGE_CASES, PERFT_SUITE, suite};
use gpu_movegen::Position;
use gpu_movegen::chess::gpu::{GeneratorOptions, GpuPerft, Kernel, MoveGenerator, PerftOptions, PositionMoves};

/// Published counts up to this size, per build (twelve builds on lavapipe).
const MAX_NODES: u64 = 100_000;

#[test]
fn every_shader_build_generates_the_reference_moves_and_counts_the_suites() {
    let context = context();
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    let mut positions = roots.clone();
    positions.extend(common::random_walks(&roots, 12, 80, 1_212, |position| position.en_passant().is_some()));
    // Chess960 castling runs through the slider functions too (the rook-shield test).
    positions.extend(common::random_positions(&common::chess960_starts()[..240], 1, 20, 960));
    let expected: Vec<PositionMoves> = positions.iter().map(PositionMoves::from_cpu).collect();

    let mut batches = Vec::new();
    // Every 12th Chess960 entry keeps the batches small.
    let chess960 = suite(CHESS960).into_iter().step_by(12);
    for entry in suite(PERFT_SUITE).into_iter().chain(suite(EDGE_CASES)).chain(chess960) {
        for &(depth, nodes) in entry.expected.iter().filter(|(_, nodes)| *nodes <= MAX_NODES) {
            batches.push((depth, entry.position().unwrap(), nodes));
        }
    }
    let builds = builds(&context);
    for build in &builds {
        let mut generator =
            MoveGenerator::with_options(&context, GeneratorOptions { build: *build, ..Default::default() }).unwrap();
        for kernel in [Kernel::PerPosition, Kernel::PerPiece] {
            let moves = generator.generate(&positions, kernel).unwrap();
            for ((position, gpu), cpu) in positions.iter().zip(&moves).zip(&expected) {
                assert_eq!(gpu, cpu, "{} {kernel:?} in {}", build.name(), position.to_fen());
            }
        }
        let mut gpu = GpuPerft::with_options(&context, PerftOptions { build: *build, ..Default::default() }).unwrap();
        for depth in 1..=6 {
            let batch: Vec<&(u32, Position, u64)> = batches.iter().filter(|(at, _, _)| *at == depth).collect();
            let roots: Vec<Position> = batch.iter().map(|(_, position, _)| *position).collect();
            let counts = gpu.perft(&roots, depth, &mut |_| {}).unwrap();
            for ((_, position, nodes), count) in batch.iter().zip(counts) {
                assert_eq!(count, *nodes, "{} perft({depth}) of {}", build.name(), position.to_fen());
            }
        }
    }
    assert!(positions.len() > 1_500 && batches.len() > 400, "{} {}", positions.len(), batches.len());
}
