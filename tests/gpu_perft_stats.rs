//! The GPU statistics leaf kernel against the published tables and the CPU
//! reference's statistics: every column, on published positions, on random
//! positions with Chess960 castling, in batches, through split levels and
//! restarted root groups, merged and not, and by root move.

mod common;

use common::gpu::context;
use common::{EDGE_CASES, PUBLISHED_STATISTICS, chess960_starts, random_positions, suite};
use gpu_movegen::Position;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::chess::stats::{PerftStats, divide_stats, perft_stats};
use gpu_movegen::gpu::GpuContext;

fn statistics_engine(context: &GpuContext, options: PerftOptions) -> GpuPerft {
    GpuPerft::with_options(context, PerftOptions { leaf_statistics: true, ..options }).unwrap()
}

#[test]
fn gpu_statistics_match_the_published_tables() {
    let context = context();
    let mut engine = statistics_engine(&context, PerftOptions::default());
    for (fen, depth, expected) in PUBLISHED_STATISTICS {
        let position = Position::from_fen(fen).unwrap();
        let mut reports = Vec::new();
        let stats = engine.perft_stats(&[position], depth, &mut |nodes| reports.push(nodes)).unwrap();
        assert_eq!(stats[0].columns(), expected, "{fen} depth {depth}");
        // Progress is in nodes, the first column, and ends at the total.
        assert_eq!(reports.last().copied(), Some(expected[0]), "{fen} depth {depth}");
    }
}

#[test]
fn gpu_statistics_equal_the_cpu_on_random_positions_in_one_batch() {
    let context = context();
    let mut roots: Vec<Position> = suite(EDGE_CASES).iter().map(|entry| entry.position().unwrap()).collect();
    roots.extend(chess960_starts().into_iter().step_by(40));
    let mut positions = random_positions(&roots, 3, 60, 2024);
    positions.extend(roots);
    let cpu: Vec<PerftStats> = positions.iter().map(|position| perft_stats(position, 2)).collect();
    for merge_transpositions in [true, false] {
        let mut engine = statistics_engine(&context, PerftOptions { merge_transpositions, ..Default::default() });
        let gpu = engine.perft_stats(&positions, 2, &mut |_| {}).unwrap();
        for ((position, gpu), cpu) in positions.iter().zip(&gpu).zip(&cpu) {
            assert_eq!(gpu, cpu, "{} (merging {merge_transpositions})", position.to_fen());
        }
    }
    assert!(cpu.iter().map(|stats| stats.checkmates).sum::<u64>() > 0, "the positions include mates");
    assert!(cpu.iter().map(|stats| stats.double_checks).sum::<u64>() > 0, "the positions include double checks");
}

#[test]
fn gpu_statistics_stay_exact_through_split_levels_and_restarted_groups() {
    let context = context();
    let kiwipete = Position::from_fen(common::KIWIPETE).unwrap();
    let roots = random_positions(&[Position::start(), kiwipete], 10, 30, 11);
    let expected: Vec<PerftStats> = roots.iter().map(|root| perft_stats(root, 3)).collect();
    type Path = fn(&gpu_movegen::gpu::perft::PerftStatistics) -> bool;
    let cases: [(PerftOptions, Path); 4] = [
        (
            PerftOptions { arena_positions: Some(1_000), leaf_positions_per_dispatch: 500, ..Default::default() },
            |done| done.split_levels > 0 && done.leaf_dispatches > 2,
        ),
        // Twenty roots fill the arena with their children and keep one slot a
        // level: the grandchildren never fit, so the group runs again.
        (
            PerftOptions {
                arena_positions: Some(400),
                reserve_moves: Some(1),
                root_group_size: Some(20),
                ..Default::default()
            },
            |done| done.restarted_groups > 0,
        ),
        (PerftOptions { counted_at_once: 300, ..Default::default() }, |done| done.level_parts > 0),
        (PerftOptions { root_group_size: Some(7), ..Default::default() }, |done| done.root_groups == 3),
    ];
    for (options, path_taken) in cases {
        let mut engine = statistics_engine(&context, options);
        assert_eq!(engine.perft_stats(&roots, 3, &mut |_| {}).unwrap(), expected, "{options:?}");
        assert!(path_taken(&engine.statistics()), "{options:?}: {:?}", engine.statistics());
    }
}

#[test]
fn gpu_divided_statistics_equal_the_cpu_and_plain_counts_are_unchanged() {
    let context = context();
    let mut engine = statistics_engine(&context, PerftOptions::default());
    let position = Position::from_fen(common::POSITION_4).unwrap();
    for depth in 1..=3 {
        assert_eq!(engine.divide_stats(&position, depth, &mut |_| {}).unwrap(), divide_stats(&position, depth));
    }
    assert_eq!(engine.perft(&[position], 3, &mut |_| {}).unwrap(), [gpu_movegen::perft::perft(&position, 3)]);
    let root_alone = engine.perft_stats(&[position], 0, &mut |_| {}).unwrap();
    assert_eq!(root_alone, [PerftStats { nodes: 1, ..PerftStats::default() }]);
}

#[test]
fn an_engine_without_the_statistics_kernel_refuses_statistics() {
    let context = context();
    let mut engine = GpuPerft::with_options(&context, PerftOptions::default()).unwrap();
    let error = engine.perft_stats(&[Position::start()], 2, &mut |_| {}).unwrap_err();
    assert!(error.to_string().contains("without its statistics kernel"), "{error}");
}
