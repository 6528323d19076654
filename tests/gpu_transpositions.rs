//! GPU perft without a transposition table, with equal positions merged in
//! each stored level, against the same engine without merging and against
//! the published counts: plain runs, small arenas that split levels, many
//! roots in one group (equal positions of different roots stay apart), and
//! Shogi and Go. tests/gpu_tables.rs runs the engine with its tables.

mod common;

use common::gpu::context;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::go::gpu::{BoardSize, GoGpuPerft, GoPerftOptions};
use gpu_movegen::gpu::FusedShape;
use gpu_movegen::shogi::gpu::{ShogiGpuPerft, ShogiPerftOptions};
use gpu_movegen::suite::KIWIPETE_FEN;
use gpu_movegen::{Position, perft};

#[test]
fn merged_levels_count_exactly() {
    let context = context();
    let start = Position::start();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    for (arena, fused_leaves, fused_shape) in [
        (None, true, FusedShape::PerPosition),
        (None, true, FusedShape::PerMove),
        (None, false, FusedShape::Auto),
        (Some(2_000), true, FusedShape::PerPosition),
        (Some(2_000), true, FusedShape::PerMove),
        (Some(1_000), false, FusedShape::Auto),
    ] {
        let options = PerftOptions {
            arena_positions: arena,
            fused_leaves,
            fused_shape,
            table_bytes: Some(0),
            ..Default::default()
        };
        let mut merged = GpuPerft::with_options(&context, options).unwrap();
        assert_eq!(
            merged.perft(&[start, kiwipete], 5, &mut |_| {}).unwrap(),
            [4_865_609, 193_690_690],
            "{arena:?} {fused_leaves} {fused_shape:?}"
        );
        assert!(merged.statistics().merged_levels > 0);
    }
    let options = PerftOptions { merge_transpositions: false, table_bytes: Some(0), ..Default::default() };
    let mut plain = GpuPerft::with_options(&context, options).unwrap();
    assert_eq!(plain.perft(&[start], 5, &mut |_| {}).unwrap(), [4_865_609]);
    assert_eq!(plain.statistics().merged_levels, 0);
}

#[test]
fn equal_positions_of_different_roots_stay_apart() {
    // The same root many times over, and roots that transpose into each other.
    let start = Position::start();
    let after = |moves: &str| {
        let mut position = start;
        for text in moves.split_whitespace() {
            position.play(position.parse_uci_move(text).unwrap());
        }
        position
    };
    let roots =
        vec![start, start, after("g1f3 g8f6"), after("b1c3 b8c6"), after("g1f3 b8c6"), after("b1c3 g8f6"), start];
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 4)).collect();
    let mut gpu =
        GpuPerft::with_options(&context(), PerftOptions { table_bytes: Some(0), ..Default::default() }).unwrap();
    assert_eq!(gpu.perft(&roots, 4, &mut |_| {}).unwrap(), expected);
    let suite = common::suite_positions();
    let expected: Vec<u64> = suite.iter().map(|root| perft::perft(root, 3)).collect();
    assert_eq!(gpu.perft(&suite, 3, &mut |_| {}).unwrap(), expected);
}

#[test]
fn shogi_and_go_merge_exactly_too() {
    let context = context();
    let options = ShogiPerftOptions { table_bytes: Some(0), ..Default::default() };
    let mut shogi = ShogiGpuPerft::with_options(&context, options).unwrap();
    assert_eq!(shogi.perft(&[gpu_movegen::shogi::Position::start()], 4, &mut |_| {}).unwrap(), [719_731]);
    assert!(shogi.statistics().merged_levels > 0);
    let options = GoPerftOptions {
        build: BoardSize(5),
        arena_positions: Some(800),
        reserve_moves: Some(25),
        table_bytes: Some(0),
        ..Default::default()
    };
    let mut go = GoGpuPerft::with_options(&context, options).unwrap();
    assert_eq!(go.perft(&[gpu_movegen::go::Position::new(5).unwrap()], 5, &mut |_| {}).unwrap(), [6_368_416]);
    assert!(go.statistics().merged_levels > 0);
}
