//! The GPU perft engine is exact on every path it can take: levels split
//! because the arena is small, levels counted in parts because of the
//! counted-at-once cap, root groups restarted when a position has more
//! children than the room kept for it, leaf dispatches in small pieces, and
//! GPU memory limits. Each test forces its path with the engine's options
//! and compares with the CPU reference or the published counts.

mod common;

use common::gpu::context;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::gpu::{FusedShape, GpuContext, GpuError};
use gpu_movegen::suite::{KIWIPETE_FEN, KIWIPETE_PERFT, START_PERFT};
use gpu_movegen::{Position, perft};
use proptest::prelude::*;

fn kiwipete() -> Position {
    Position::from_fen(KIWIPETE_FEN).unwrap()
}

fn engine(context: &GpuContext, options: PerftOptions) -> GpuPerft {
    GpuPerft::with_options(context, options).unwrap()
}

fn arena(positions: usize) -> PerftOptions {
    PerftOptions { arena_positions: Some(positions), leaf_positions_per_dispatch: 4_096, ..Default::default() }
}

/// Perft of one root, with a check that progress never goes down and ends at the total.
fn counted(gpu: &mut GpuPerft, root: &Position, depth: u32) -> u64 {
    let mut reports = Vec::new();
    let total = gpu.perft(std::slice::from_ref(root), depth, &mut |nodes| reports.push(nodes)).unwrap()[0];
    assert_eq!(reports.last().copied().unwrap_or(total), total);
    total
}

#[test]
fn small_arenas_count_the_start_position_and_kiwipete_exactly() {
    let context = context();
    for positions in [1_000, 2_000, 5_000, 20_000] {
        let mut gpu = engine(&context, arena(positions));
        assert_eq!(gpu.capacity(), positions);
        assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4], "arena {positions}");
        assert_eq!(counted(&mut gpu, &kiwipete(), 4), KIWIPETE_PERFT[3], "arena {positions}");
        // The start position's third level (8,902 positions) fits only in the 20k arena.
        assert!(gpu.statistics().split_levels > 0 || positions == 20_000, "arena {positions}: {:?}", gpu.statistics());
    }
}

/// Without a table no level is merged, and the software adapters' looped
/// leaf counts the pairs of the level above it, playing each one itself:
/// the same small arenas, so that those levels are split into chunks.
#[test]
fn small_arenas_without_a_table_count_the_looped_leaf_s_pairs_exactly() {
    let context = context();
    for positions in [1_000, 2_000, 5_000] {
        let options = PerftOptions { merge_transpositions: false, table_bytes: Some(0), ..arena(positions) };
        let mut gpu = engine(&context, options);
        assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4], "arena {positions}");
        assert_eq!(counted(&mut gpu, &kiwipete(), 4), KIWIPETE_PERFT[3], "arena {positions}");
        let statistics = gpu.statistics();
        assert!(statistics.split_levels > 0 && statistics.merged_levels == 0, "arena {positions}: {statistics:?}");
    }
}

#[test]
fn a_1k_arena_counts_start_perft_6() {
    let context = context();
    let mut gpu = engine(&context, arena(1_000));
    assert_eq!(counted(&mut gpu, &Position::start(), 6), START_PERFT[5]);
}

#[test]
fn a_5k_arena_counts_kiwipete_perft_5() {
    let context = context();
    let mut gpu = engine(&context, arena(5_000));
    assert_eq!(counted(&mut gpu, &kiwipete(), 5), KIWIPETE_PERFT[4]);
}

/// The path that once overwrote the next part's parents: a level counted
/// in parts of 300 positions, its children stored after the whole level.
#[test]
fn levels_counted_in_parts_of_300_stay_exact() {
    let context = context();
    let options = PerftOptions { arena_positions: Some(100_000), counted_at_once: 300, ..Default::default() };
    let mut gpu = engine(&context, options);
    assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4]);
    assert_eq!(counted(&mut gpu, &Position::start(), 6), START_PERFT[5]);
    assert_eq!(counted(&mut gpu, &kiwipete(), 4), KIWIPETE_PERFT[3]);
    assert!(gpu.statistics().level_parts > 10, "{:?}", gpu.statistics());
    // Both at once: parts of 300 in a small arena that also splits.
    let options = PerftOptions { counted_at_once: 300, ..arena(2_000) };
    let mut gpu = engine(&context, options);
    assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4]);
}

/// A reserve smaller than the real branching makes root groups fail part
/// way and run again with a larger bound; the discarded part is never counted.
#[test]
fn groups_that_meet_more_children_than_reserved_run_again_exactly() {
    let context = context();
    let roots = common::random_positions(&[Position::start(), kiwipete()], 10, 30, 11);
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 4)).collect();
    for reserve_moves in [1, 8, 30] {
        let options = PerftOptions {
            reserve_moves: Some(reserve_moves),
            counted_at_once: 500,
            root_group_size: Some(20),
            ..arena(400)
        };
        let mut gpu = engine(&context, options);
        assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4], "reserve {reserve_moves}");
        assert_eq!(gpu.perft(&roots, 4, &mut |_| {}).unwrap(), expected, "reserve {reserve_moves}");
        let statistics = gpu.statistics();
        // The start position's 20 root moves alone outgrow a reserve of 1 or 8.
        assert!(statistics.restarted_groups > 0 || reserve_moves == 30, "reserve {reserve_moves}: {statistics:?}");
    }
}

#[test]
fn thousands_of_roots_in_small_groups_and_small_dispatches_match_the_cpu() {
    let context = context();
    let roots = common::random_positions(&[Position::start(), kiwipete()], 1_500, 60, 7);
    assert_eq!(roots.len(), 3_000);
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 3)).collect();
    for options in [
        PerftOptions::default(),
        PerftOptions { root_group_size: Some(37), leaf_positions_per_dispatch: 1_000, ..arena(20_000) },
        PerftOptions { counted_at_once: 300, ..arena(5_000) },
    ] {
        let mut gpu = engine(&context, options);
        assert_eq!(gpu.perft(&roots, 3, &mut |_| {}).unwrap(), expected, "{options:?}");
    }
}

#[test]
fn a_gpu_memory_limit_of_1_or_3_mib_counts_kiwipete_perft_5() {
    let context = context();
    for mebibytes in [1, 3] {
        let options = PerftOptions { memory_limit: Some(mebibytes << 20), ..Default::default() };
        let mut gpu = engine(&context, options);
        assert!(gpu.memory_bytes() <= mebibytes << 20, "{} bytes", gpu.memory_bytes());
        assert_eq!(counted(&mut gpu, &kiwipete(), 5), KIWIPETE_PERFT[4], "{mebibytes} MiB");
    }
}

#[test]
fn limits_the_engine_cannot_meet_are_errors_never_counts() {
    let context = context();
    // Smaller than one position and its children at the proven bound.
    let error = GpuPerft::with_options(&context, arena(100)).err().expect("too small");
    assert!(matches!(error, GpuError::Limits(_)), "{error}");
    let error = GpuPerft::with_options(&context, PerftOptions { memory_limit: Some(1_000), ..Default::default() })
        .err()
        .expect("too little memory");
    assert!(error.to_string().contains("GPU memory limit"), "{error}");
    // A depth whose levels cannot all keep room in a 1,000-position arena.
    let mut gpu = engine(&context, arena(1_000));
    let error = gpu.perft(&[Position::start()], 7, &mut |_| {}).unwrap_err();
    assert!(matches!(error, GpuError::Limits(_)), "{error}");
    assert!(error.to_string().contains("depth 7"), "{error}");
}

#[test]
#[ignore = "minutes on lavapipe: start perft(7) in a 5k arena and with the default arena"]
fn start_perft_7_is_exact_in_a_small_arena_and_the_default_one() {
    let context = context();
    assert_eq!(counted(&mut engine(&context, PerftOptions::default()), &Position::start(), 7), START_PERFT[6]);
    assert_eq!(counted(&mut engine(&context, arena(5_000)), &Position::start(), 7), START_PERFT[6]);
}

/// Both suites to depth 5 (about 800 million nodes) in 2 MiB, batched by depth.
#[test]
fn suites_to_depth_5_are_exact_under_2_mib() {
    let context = context();
    let mut gpu = engine(&context, PerftOptions { memory_limit: Some(2 << 20), ..Default::default() });
    let entries: Vec<_> =
        common::suite(common::PERFT_SUITE).into_iter().chain(common::suite(common::EDGE_CASES)).collect();
    let mut checked = 0;
    for depth in 1..=5 {
        let batch: Vec<(Position, u64, &str)> = entries
            .iter()
            .filter_map(|entry| {
                let (_, nodes) = entry.expected.iter().find(|(at, _)| *at == depth)?;
                Some((entry.position().unwrap(), *nodes, entry.fen.as_str()))
            })
            .collect();
        let roots: Vec<Position> = batch.iter().map(|(root, _, _)| *root).collect();
        let counts = gpu.perft(&roots, depth, &mut |_| {}).unwrap();
        for ((_, expected, fen), actual) in batch.iter().zip(counts) {
            assert_eq!(actual, *expected, "{fen} depth {depth}");
            checked += 1;
        }
    }
    assert!(checked > 700, "{checked}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random small arenas, caps, group sizes, reserves and dispatch sizes
    /// against the CPU, on random roots at depths 3 and 4.
    #[test]
    fn random_engine_shapes_match_the_cpu(
        arena_positions in 324usize..4_000,
        counted_at_once in 1u32..600,
        root_group_size in 1usize..20,
        reserve_moves in 1u32..=218,
        leaf_positions_per_dispatch in 1usize..3_000,
        fused_leaves in proptest::bool::ANY,
        per_move in proptest::bool::ANY,
        seed in 0u64..1_000,
        depth in 3u32..=4,
    ) {
        let context = context();
        let options = PerftOptions {
            arena_positions: Some(arena_positions),
            counted_at_once,
            root_group_size: Some(root_group_size),
            reserve_moves: Some(reserve_moves),
            leaf_positions_per_dispatch,
            fused_leaves,
            fused_shape: if per_move { FusedShape::PerMove } else { FusedShape::PerPosition },
            ..Default::default()
        };
        let mut gpu = engine(&context, options);
        let roots = common::random_positions(&[Position::start(), kiwipete()], 3, 40, seed);
        let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, depth)).collect();
        match gpu.perft(&roots, depth, &mut |_| {}) {
            Ok(counts) => prop_assert_eq!(counts, expected),
            // Only a refusal for room, never another failure or a wrong count.
            Err(error) => prop_assert!(matches!(error, GpuError::Limits(_)), "{}", error),
        }
    }
}

/// The kernels run without bounds checks by default; with them on, every
/// count is the same (and an out-of-range index would have been caught).
#[test]
fn kernels_with_and_without_runtime_checks_agree() {
    use gpu_movegen::gpu::reflect::RuntimeChecks;
    let context = context();
    let roots = common::random_positions(&[Position::start(), kiwipete()], 200, 80, 31);
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 3)).collect();
    for runtime_checks in [RuntimeChecks::On, RuntimeChecks::Off] {
        let mut gpu = engine(&context, PerftOptions { runtime_checks, ..arena(5_000) });
        assert_eq!(gpu.perft(&roots, 3, &mut |_| {}).unwrap(), expected, "{runtime_checks:?}");
    }
}

/// The other shapes of the last two plies: the last level stored and
/// counted one ply per child, and the fused plies spread one invocation per
/// position (what software adapters run) or per move (what GPUs run; the
/// move list split over chunks in a small arena), each against the
/// published counts.
#[test]
fn every_shape_of_the_last_plies_counts_the_same() {
    let context = context();
    for (fused_leaves, fused_shape) in
        [(false, FusedShape::Auto), (true, FusedShape::PerPosition), (true, FusedShape::PerMove)]
    {
        let mut gpu = engine(&context, PerftOptions { fused_leaves, fused_shape, ..arena(5_000) });
        assert_eq!(counted(&mut gpu, &Position::start(), 5), START_PERFT[4], "{fused_leaves} {fused_shape:?}");
        assert_eq!(counted(&mut gpu, &kiwipete(), 4), KIWIPETE_PERFT[3], "{fused_leaves} {fused_shape:?}");
        assert!(gpu.statistics().split_levels > 0, "{:?}", gpu.statistics());
    }
}

/// The looped leaf (one invocation per position, what software adapters
/// run) counts most children from their parent's view and recounts the
/// king's, pawns' and knights' moves only where the parent's move could
/// change them. Those regions are tightest around castling and exposed
/// kings, so its roots come from random play out of every Chess960 start
/// (castling with rooks on every file), Kiwipete and the wiki's position 4,
/// against the CPU.
#[test]
fn the_looped_leaf_matches_the_cpu_where_castling_and_kings_are_exposed() {
    let context = context();
    let mut starts: Vec<Position> = common::chess960_starts().into_iter().step_by(4).collect();
    starts.push(kiwipete());
    starts.push(Position::from_fen(common::POSITION_4).expect("position 4 parses"));
    let roots = common::random_positions(&starts, 6, 24, 52);
    assert_eq!(roots.len(), starts.len() * 6);
    assert_the_looped_leaf_matches_the_cpu(&context, &roots, 3);
}

/// The looped leaf adds up by popcount the children whose moves touch
/// none of its view's regions, and must leave out every move that is not
/// plain: promotions, castling, en passant and a double push beside a pawn
/// of the other side. The suites hold all of them at their roots, so the
/// roots themselves (depth 2) and their children (depth 3) are the
/// parents here, with a few plies of random play from each for more.
#[test]
fn the_looped_leaf_leaves_out_promotions_castling_and_en_passant() {
    let context = context();
    let suites = common::suite_positions();
    let mut roots = suites.clone();
    roots.extend(common::random_positions(&suites, 4, 6, 61));
    assert_eq!(roots.len(), suites.len() * 5);
    for depth in [2, 3] {
        assert_the_looped_leaf_matches_the_cpu(&context, &roots, depth);
    }
}

/// The looped leaf takes the unpinned pawns set-wise, a direction at a
/// time, and adds up what a landing changes in the other side's pawns'
/// moves: pawns on the seventh rank (promotions by push and by capture
/// either way), pawns head to head, double pushes beside the other side's
/// pawns, pinned pawns and pawns that answer a check, both sides to move,
/// with random play from each; with merged levels and without a table.
#[test]
fn the_looped_leaf_takes_pawns_by_direction_exactly() {
    let context = context();
    let fens = [
        "n1n1k3/1P4P1/8/8/8/8/6p1/4K2R b K - 0 1",
        "r3k2r/1P2P1P1/8/2n5/5N2/8/1p2p1p1/R3K2R w KQkq - 0 1",
        "4k3/pppppppp/8/2N2B2/2n2b2/8/PPPPPPPP/4K3 w - - 0 1",
        "rnbqkbnr/1p1p1p1p/8/p1p1p1p1/P1P1P1P1/8/1P1P1P1P/RNBQKBNR b KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 1",
        "4k3/2p1p3/8/8/1B6/8/3PPP2/q3K3 w - - 0 1",
    ];
    let starts: Vec<Position> = fens.iter().map(|fen| Position::from_fen(fen).expect("a valid FEN")).collect();
    let mut roots = starts.clone();
    roots.extend(common::random_positions(&starts, 6, 10, 70));
    assert_eq!(roots.len(), starts.len() * 7);
    assert_the_looped_leaf_matches_the_cpu(&context, &roots, 3);
    let options = PerftOptions { merge_transpositions: false, table_bytes: Some(0), ..Default::default() };
    let mut gpu = engine(&context, options);
    for root in &starts {
        assert_eq!(counted(&mut gpu, root, 4), perft::perft(root, 4), "{}", root.to_fen());
    }
}

/// Counts `roots` to `depth` through the looped leaf, and names the first
/// roots whose counts differ from the CPU's.
fn assert_the_looped_leaf_matches_the_cpu(context: &GpuContext, roots: &[Position], depth: u32) {
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, depth)).collect();
    let options = PerftOptions { fused_leaves: true, fused_shape: FusedShape::PerPosition, ..Default::default() };
    let mut gpu = engine(context, options);
    let counts = gpu.perft(roots, depth, &mut |_| {}).unwrap();
    assert_eq!(counts.len(), roots.len());
    let wrong: Vec<String> = (0..roots.len())
        .filter(|&index| counts[index] != expected[index])
        .map(|index| format!("{}: {} on the GPU, {} on the CPU", roots[index].to_fen(), counts[index], expected[index]))
        .collect();
    assert!(
        wrong.is_empty(),
        "perft({depth}): {} of {} roots differ, first {:?}",
        wrong.len(),
        roots.len(),
        &wrong[..wrong.len().min(3)]
    );
}
