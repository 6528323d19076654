//! GPU perft with transposition tables in GPU memory: tiny tables and
//! hashes cut to a few index bits (so that bucket collisions and
//! replacements happen all the time), split levels, restarted groups, many
//! roots that transpose into each other, tables kept between calls, the
//! 128-bit totals, and Shogi and Go, all against the CPU and published counts.

mod common;

use common::gpu::context;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::go::gpu::{BoardSize, GoGpuPerft, GoPerftOptions};
use gpu_movegen::gpu::{FusedShape, GpuContext};
use gpu_movegen::shogi::gpu::{ShogiGpuPerft, ShogiPerftOptions};
use gpu_movegen::suite::KIWIPETE_FEN;
use gpu_movegen::{Position, perft};

const MIB: u64 = 1 << 20;

fn engine(context: &GpuContext, options: PerftOptions) -> GpuPerft {
    GpuPerft::with_options(context, options).expect("a perft engine")
}

fn with_table(bytes: u64, index_bits: u32) -> PerftOptions {
    PerftOptions { table_bytes: Some(bytes), index_bits, ..Default::default() }
}

/// Positions one and two plies from `root`, many of them reached by more
/// than one move order.
fn transposing_roots(root: &Position) -> Vec<Position> {
    let mut roots = Vec::new();
    for first in root.legal_moves().iter() {
        let child = root.make_move(*first);
        for second in child.legal_moves().iter().take(6) {
            roots.push(child.make_move(*second));
        }
        roots.push(child);
    }
    roots
}

#[test]
fn a_1_mib_table_counts_the_suites_to_depth_5_exactly() {
    let context = context();
    let mut gpu = engine(&context, with_table(MIB, 32));
    assert_eq!(gpu.transposition_table_bytes(), MIB);
    let mut checked = 0;
    for text in [common::PERFT_SUITE, common::EDGE_CASES] {
        for entry in common::suite(text) {
            let position = entry.position().unwrap();
            for &(depth, expected) in entry.expected.iter().filter(|(depth, _)| *depth <= 5) {
                let counted = gpu.perft(&[position], depth, &mut |_| {}).unwrap();
                assert_eq!(counted, [expected], "{} depth {depth}", entry.fen);
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} counts checked");
    assert!(gpu.statistics().probed_levels > 0);
}

#[test]
fn hashes_cut_to_a_few_bits_collide_and_replace_and_stay_exact() {
    let context = context();
    let start = Position::start();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    for index_bits in [0, 1, 3, 8] {
        let mut gpu = engine(&context, with_table(MIB, index_bits));
        assert_eq!(gpu.perft(&[start, kiwipete], 4, &mut |_| {}).unwrap(), [197_281, 4_085_603], "{index_bits} bits");
        // The table outlives the call: the same counts again, every bucket contested.
        assert_eq!(gpu.perft(&[kiwipete, start], 4, &mut |_| {}).unwrap(), [4_085_603, 197_281], "{index_bits} bits");
    }
    let suite = common::suite_positions();
    let expected: Vec<u64> = suite.iter().map(|root| perft::perft(root, 3)).collect();
    let mut gpu = engine(&context, with_table(MIB, 2));
    assert_eq!(gpu.perft(&suite, 3, &mut |_| {}).unwrap(), expected);
}

#[test]
fn split_levels_restarted_groups_and_small_groups_stay_exact_with_tables() {
    let context = context();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    for (arena, index_bits) in [(1_000, 32), (2_000, 4)] {
        let options = PerftOptions { arena_positions: Some(arena), ..with_table(MIB, index_bits) };
        let mut gpu = engine(&context, options);
        assert_eq!(gpu.perft(&[kiwipete], 5, &mut |_| {}).unwrap(), [193_690_690], "arena {arena}");
        assert!(gpu.statistics().split_levels > 0, "arena {arena}");
    }
    let roots = common::random_positions(&[Position::start(), kiwipete], 20, 40, 34);
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 4)).collect();
    let options = PerftOptions {
        arena_positions: Some(400),
        reserve_moves: Some(1),
        root_group_size: Some(7),
        counted_at_once: 100,
        ..with_table(MIB, 5)
    };
    let mut gpu = engine(&context, options);
    // The start position's 20 root moves alone outgrow a reserve of 1.
    assert_eq!(gpu.perft(&[Position::start()], 5, &mut |_| {}).unwrap(), [4_865_609]);
    assert_eq!(gpu.perft(&roots, 4, &mut |_| {}).unwrap(), expected);
    let statistics = gpu.statistics();
    assert!(statistics.restarted_groups > 0 && statistics.level_parts > 0, "{statistics:?}");
}

#[test]
fn roots_that_transpose_are_merged_and_each_keeps_its_own_count() {
    let context = context();
    let start = Position::start();
    let mut roots = transposing_roots(&start);
    roots.extend([start, start]);
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 3)).collect();
    for (fused_leaves, fused_shape) in
        [(true, FusedShape::PerPosition), (true, FusedShape::PerMove), (false, FusedShape::Auto)]
    {
        let options = PerftOptions { fused_leaves, fused_shape, ..with_table(4 * MIB, 32) };
        let mut gpu = engine(&context, options);
        assert_eq!(gpu.perft(&roots, 3, &mut |_| {}).unwrap(), expected, "fused leaves {fused_leaves} {fused_shape:?}");
    }
    // 1.e4 e5 2.Nf3 and 1.Nf3 e5 2.e4 are one position: its second root is
    // an alias, and the leaves below the pair are counted once.
    let play = |moves: &str| {
        let mut position = start;
        for text in moves.split_whitespace() {
            position.play(position.parse_uci_move(text).unwrap());
        }
        position
    };
    let pair = [play("e2e4 e7e5 g1f3"), play("g1f3 e7e5 e2e4")];
    let mut gpu = engine(&context, with_table(4 * MIB, 32));
    let single = perft::perft(&pair[0], 4);
    assert_eq!(gpu.perft(&pair, 4, &mut |_| {}).unwrap(), [single, single]);
    let counted = gpu.statistics().leaves_counted;
    assert!(counted <= single, "{counted} leaves counted for two roots of {single}");
}

#[test]
fn a_table_kept_between_calls_answers_the_second_call() {
    let context = context();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    let mut gpu = engine(&context, with_table(16 * MIB, 32));
    assert_eq!(gpu.perft(&[kiwipete], 4, &mut |_| {}).unwrap(), [4_085_603]);
    let first = gpu.statistics().leaves_counted;
    assert!(first > 0);
    assert_eq!(gpu.perft(&[kiwipete], 4, &mut |_| {}).unwrap(), [4_085_603]);
    assert_eq!(gpu.statistics().leaves_counted, first, "the second call is one probe");
    // Divide: every root move's subtree is in the table already.
    let divided = gpu.divide(&kiwipete, 4, &mut |_| {}).unwrap();
    assert_eq!(divided.iter().map(|(_, nodes)| nodes).sum::<u64>(), 4_085_603);
    assert_eq!(gpu.statistics().leaves_counted, first);
    gpu.clear_table().unwrap();
    assert_eq!(gpu.perft(&[kiwipete], 4, &mut |_| {}).unwrap(), [4_085_603]);
    assert_eq!(gpu.statistics().leaves_counted, 2 * first, "a cleared table counts everything again");
}

#[test]
fn tables_off_merging_off_and_statistics_count_the_same() {
    let context = context();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    for options in [
        PerftOptions { table_bytes: Some(0), ..Default::default() },
        PerftOptions { table_bytes: Some(0), merge_transpositions: false, ..Default::default() },
        PerftOptions { merge_transpositions: false, ..with_table(MIB, 32) },
    ] {
        let mut gpu = engine(&context, options);
        assert_eq!(gpu.perft(&[kiwipete], 4, &mut |_| {}).unwrap(), [4_085_603], "{options:?}");
    }
    let mut plain = engine(&context, PerftOptions { table_bytes: Some(0), ..Default::default() });
    assert_eq!(plain.transposition_table_bytes(), 0);
    plain.perft(&[kiwipete], 3, &mut |_| {}).unwrap();
    assert_eq!(plain.statistics().probed_levels, 0);
    // An engine with a table and the statistics kernel: statistics run
    // without the table, plain counts with it.
    let options = PerftOptions { leaf_statistics: true, ..with_table(MIB, 32) };
    let mut both = engine(&context, options);
    let statistics = both.perft_stats(&[kiwipete], 3, &mut |_| {}).unwrap();
    assert_eq!(statistics[0].nodes, 97_862);
    assert_eq!(both.perft(&[kiwipete], 4, &mut |_| {}).unwrap(), [4_085_603]);
}

#[test]
fn perft_wide_adds_in_128_bits() {
    let context = context();
    let roots = common::random_positions(&[Position::start()], 20, 30, 9);
    let expected: Vec<u128> = roots.iter().map(|root| u128::from(perft::perft(root, 3))).collect();
    let mut gpu = engine(&context, with_table(MIB, 32));
    assert_eq!(gpu.perft_wide(&roots, 3, &mut |_| {}).unwrap(), expected);
    assert_eq!(gpu.statistics().widened_groups, 0);
}

/// Counts past a limit of 2^20 (a stand-in for 2^64 that finishes in a
/// second) fault; `perft` refuses, `perft_wide` counts by child and by
/// grandchild, clearing the table each time, and the sum is exact.
#[test]
fn counts_past_the_limit_are_counted_again_by_child() {
    let context = context();
    let start = Position::start();
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    let options = PerftOptions { count_bits: 20, ..with_table(MIB, 32) };
    let mut gpu = engine(&context, options);
    // 197,281 is below 2^20: counted at once.
    assert_eq!(gpu.perft(&[start], 4, &mut |_| {}).unwrap(), [197_281]);
    let error = gpu.perft(&[start], 5, &mut |_| {}).unwrap_err();
    assert!(error.to_string().contains("2^64"), "{error}");
    // Start perft(5) is 4.9 million: its root moves' counts fit. Kiwipete
    // perft(5) is 194 million: some of its root moves' counts do not either.
    assert_eq!(gpu.perft_wide(&[start, kiwipete], 5, &mut |_| {}).unwrap(), [4_865_609, 193_690_690]);
    assert!(gpu.statistics().widened_groups >= 2, "{:?}", gpu.statistics());
    // The table was cleared on the way, and what it keeps is exact.
    assert_eq!(gpu.perft(&[start], 4, &mut |_| {}).unwrap(), [197_281]);
}

#[test]
fn a_table_that_does_not_fit_is_refused_by_name() {
    let context = context();
    let error =
        GpuPerft::with_options(&context, PerftOptions { memory_limit: Some(3 * MIB), ..with_table(4 * MIB, 32) })
            .err()
            .expect("a 4 MiB table in 3 MiB");
    assert!(error.to_string().contains("--hash"), "{error}");
    // More bindings than the device offers a stage.
    let limits = context.device.limits();
    let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    let too_large = binding * u64::from(limits.max_storage_buffers_per_shader_stage);
    let error = GpuPerft::with_options(&context, with_table(too_large, 32)).err().expect("a table past the bindings");
    assert!(error.to_string().contains("--hash"), "{error}");
    assert!(error.to_string().contains("storage bindings"), "{error}");
}

/// Bindings of 1 MiB: the table spreads over eight bindings and the arena
/// over several, so that probes, stores and levels cross from one binding to
/// the next all the time; the suites stay exact, in both leaf shapes and
/// both ways of reaching the table's bindings.
#[test]
fn tiny_bindings_spread_the_table_and_the_arena_and_the_suites_stay_exact() {
    let context = context();
    // Fused leaves (per position and per move) with the table as a binding
    // array (lavapipe indexes one), stored leaves with the switch over
    // bindings devices without them use.
    for (fused_leaves, fused_shape, table_binding_array) in
        [(true, FusedShape::PerPosition, true), (true, FusedShape::PerMove, true), (false, FusedShape::Auto, false)]
    {
        let options = PerftOptions {
            table_bytes: Some(8 * MIB),
            binding_bytes: Some(MIB),
            fused_leaves,
            fused_shape,
            table_binding_array,
            ..Default::default()
        };
        let mut gpu = engine(&context, options);
        let report = gpu.memory_report();
        assert!(report.table_bindings >= 8, "{report}");
        assert_eq!(report.table_array, table_binding_array, "{report}");
        assert!(report.arena_bindings >= 4, "{report}");
        let mut checked = 0;
        for text in [common::PERFT_SUITE, common::EDGE_CASES] {
            let entries = common::suite(text);
            let max_depth = if fused_leaves { 5 } else { 4 };
            for depth in 1..=max_depth {
                let batch: Vec<(Position, u64)> = entries
                    .iter()
                    .filter_map(|entry| {
                        let expected = entry.expected.iter().find(|(at, _)| *at == depth)?.1;
                        Some((entry.position().unwrap(), expected))
                    })
                    .collect();
                let roots: Vec<Position> = batch.iter().map(|(root, _)| *root).collect();
                let counted = gpu.perft(&roots, depth, &mut |_| {}).unwrap();
                for ((root, expected), counted) in batch.iter().zip(counted) {
                    assert_eq!(counted, *expected, "{} depth {depth}", root.to_fen());
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked} counts checked");
        let statistics = gpu.statistics();
        assert!(statistics.shallow_probes > 0 && statistics.deep_probes > 0, "{statistics:?}");
    }
}

#[test]
fn tiny_bindings_keep_shogi_and_go_exact() {
    let context = context();
    let options = ShogiPerftOptions { table_bytes: Some(4 * MIB), binding_bytes: Some(MIB), ..Default::default() };
    let mut shogi = ShogiGpuPerft::with_options(&context, options).unwrap();
    assert!(shogi.memory_report().table_bindings >= 4, "{}", shogi.memory_report());
    let start = gpu_movegen::shogi::Position::start();
    assert_eq!(shogi.perft(&[start], 4, &mut |_| {}).unwrap(), [719_731]);
    let options = GoPerftOptions {
        build: BoardSize(7),
        table_bytes: Some(4 * MIB),
        binding_bytes: Some(MIB),
        ..Default::default()
    };
    let mut go = GoGpuPerft::with_options(&context, options).unwrap();
    assert!(go.memory_report().arena_bindings >= 2, "{}", go.memory_report());
    let empty = gpu_movegen::go::Position::new(7).unwrap();
    let expected = gpu_movegen::go::perft::perft(&empty, 4);
    assert_eq!(go.perft(&[empty], 4, &mut |_| {}).unwrap(), [expected]);
}

#[test]
fn shogi_and_go_count_exactly_with_tiny_tables() {
    let context = context();
    let start = gpu_movegen::shogi::Position::start();
    for index_bits in [32, 3] {
        let options = ShogiPerftOptions { table_bytes: Some(MIB), index_bits, ..Default::default() };
        let mut shogi = ShogiGpuPerft::with_options(&context, options).unwrap();
        assert_eq!(shogi.perft(&[start], 4, &mut |_| {}).unwrap(), [719_731], "{index_bits} bits");
        assert!(shogi.statistics().probed_levels > 0);
        let options = GoPerftOptions {
            build: BoardSize(5),
            arena_positions: Some(800),
            reserve_moves: Some(25),
            table_bytes: Some(MIB),
            index_bits,
            ..Default::default()
        };
        let mut go = GoGpuPerft::with_options(&context, options).unwrap();
        let empty = gpu_movegen::go::Position::new(5).unwrap();
        assert_eq!(go.perft(&[empty], 5, &mut |_| {}).unwrap(), [6_368_416], "{index_bits} bits");
        assert!(go.statistics().split_levels > 0);
    }
}

fn command(arguments: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gpu-movegen")).args(arguments).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `--hash` on every perft command of the GPU: the table's size on stderr,
/// 0 for none, a table past the device refused by name with exit code 3,
/// and `info` telling the default.
#[test]
fn the_command_line_sizes_the_gpu_table_with_hash() {
    for (arguments, nodes) in [
        (vec!["perft", "--backend", "gpu", "--depth", "5", "--hash", "1"], "4865609"),
        (vec!["perft", "--backend", "gpu", "--depth", "5"], "4865609"),
        (vec!["shogi", "perft", "--backend", "gpu", "--depth", "3", "--hash", "1"], "25470"),
        (vec!["go", "perft", "--size", "5", "--backend", "gpu", "--depth", "4", "--hash", "1"], "303424"),
    ] {
        let output = command(&arguments);
        assert!(output.status.success(), "{arguments:?}: {}", text(&output.stderr));
        assert!(text(&output.stdout).ends_with(&format!("Nodes searched: {nodes}\n")), "{}", text(&output.stdout));
        assert!(text(&output.stderr).contains("MiB transposition table"), "{arguments:?}: {}", text(&output.stderr));
    }
    let output = command(&["perft", "--backend", "gpu", "--depth", "4", "--hash", "0"]);
    assert!(output.status.success());
    assert!(!text(&output.stderr).contains("transposition table"), "{}", text(&output.stderr));
    // More storage bindings than the device offers (lavapipe: 48 of 128 MiB).
    let output = command(&["perft", "--backend", "gpu", "--depth", "4", "--hash", "8000"]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("--hash"), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty());
    let info = command(&["info"]);
    assert!(text(&info.stdout).contains("gpu perft transposition table: at most"), "{}", text(&info.stdout));
    assert!(text(&info.stdout).contains("gpu perft memory plan"), "{}", text(&info.stdout));
}

#[test]
fn start_perft_7_is_exact_with_the_default_table_and_a_tiny_one() {
    let context = context();
    for table_bytes in [None, Some(MIB)] {
        let mut gpu = engine(&context, PerftOptions { table_bytes, ..Default::default() });
        assert_eq!(gpu.perft(&[Position::start()], 7, &mut |_| {}).unwrap(), [3_195_901_860], "{table_bytes:?}");
    }
}

#[test]
#[ignore = "tens of minutes on lavapipe: start perft(8) and (9), Kiwipete perft(6) and position 3 perft(8) with tables"]
fn deep_counts_are_exact_with_tables() {
    let context = context();
    let mut gpu = engine(&context, PerftOptions::default());
    let start = Position::start();
    assert_eq!(gpu.perft(&[start], 8, &mut |_| {}).unwrap(), [84_998_978_956]);
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    assert_eq!(gpu.perft(&[kiwipete], 6, &mut |_| {}).unwrap(), [8_031_647_685]);
    let position_3 = Position::from_fen(common::POSITION_3).unwrap();
    assert_eq!(gpu.perft(&[position_3], 8, &mut |_| {}).unwrap(), [3_009_794_393]);
    assert_eq!(gpu.perft_wide(&[start], 9, &mut |_| {}).unwrap(), [2_439_530_234_167]);
}
