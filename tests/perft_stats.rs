//! Perft statistics against the published tables (the chessprogramming
//! wiki's "Perft Results" page: nodes, captures, en passant, castles,
//! promotions, checks, discovered checks, double checks, checkmates), and
//! the nodes column against perft itself on random positions.

mod common;

use common::{KIWIPETE, POSITION_3, POSITION_4, PUBLISHED_STATISTICS, random_positions, suite_positions};
use gpu_movegen::chess::stats::{PerftStats, divide_stats, perft_stats, perft_stats_parallel};
use gpu_movegen::{Position, perft};

#[test]
fn statistics_match_the_published_tables() {
    for (fen, depth, expected) in PUBLISHED_STATISTICS {
        let position = Position::from_fen(fen).unwrap();
        let stats = perft_stats_parallel(&position, depth);
        assert_eq!(stats.columns(), expected, "{fen} depth {depth}: {stats:?}");
    }
}

/// Start perft(6): 119 million leaves, every column but castles and
/// promotions non-zero (46 double checks); about 4 s on two cores.
#[test]
fn start_position_depth_six_matches_the_published_table() {
    let stats = perft_stats_parallel(&Position::start(), 6);
    assert_eq!(stats.columns(), [119_060_324, 2_812_008, 5_248, 0, 0, 809_099, 329, 46, 10_828]);
}

#[test]
fn divided_statistics_sum_to_the_whole_and_single_thread_agrees() {
    let position = Position::from_fen(KIWIPETE).unwrap();
    let divided = divide_stats(&position, 3);
    assert_eq!(divided.len(), 48);
    let total: PerftStats = divided.iter().map(|(_, stats)| *stats).sum();
    assert_eq!(total, perft_stats(&position, 3));
    assert_eq!(total.columns(), PUBLISHED_STATISTICS[5].2);
}

#[test]
fn the_nodes_column_is_perft_on_random_positions() {
    let positions = random_positions(&suite_positions(), 2, 60, 0x57a7);
    for position in positions.iter().step_by(3) {
        let stats = perft_stats(position, 2);
        assert_eq!(stats.nodes, perft::perft(position, 2), "{}", position.to_fen());
        assert!(stats.captures >= stats.en_passant && stats.checks >= stats.checkmates, "{}", position.to_fen());
        assert!(stats.checks >= stats.discovered_checks && stats.checks >= stats.double_checks);
    }
}

#[test]
fn depth_zero_is_the_root_alone() {
    assert_eq!(perft_stats(&Position::start(), 0).columns(), [1, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(divide_stats(&Position::start(), 0).is_empty());
}

fn run(arguments: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gpu-movegen")).args(arguments).output().expect("the binary runs")
}

fn json_of(output: &std::process::Output) -> serde_json::Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

#[test]
fn perft_stats_json_prints_the_published_columns() {
    let output = run(&["perft", "--stats", "--json", "--backend", "cpu", "--depth", "4", "--fen", KIWIPETE]);
    let report = json_of(&output);
    for (name, expected) in PerftStats::NAMES.iter().zip(PUBLISHED_STATISTICS[6].2) {
        assert_eq!(report[name], expected, "{name} in {report}");
    }
    assert_eq!(report["depth"], 4);
    assert_eq!(report["fen"], KIWIPETE);
    assert_eq!(report["backend"], "cpu");
    assert!(report["seconds"].as_f64().is_some_and(|seconds| seconds >= 0.0));
    assert!(report.get("divide").is_none());
}

#[test]
fn divided_stats_json_has_one_entry_per_root_move_summing_to_the_total() {
    let output = run(&["perft", "--stats", "--json", "--divide", "--depth", "3", "--fen", POSITION_4, "-q"]);
    let report = json_of(&output);
    let moves = report["divide"].as_array().expect("a divide array");
    assert_eq!(moves.len(), 6);
    for name in PerftStats::NAMES {
        let sum: u64 = moves.iter().map(|entry| entry[name].as_u64().unwrap()).sum();
        assert_eq!(report[name].as_u64(), Some(sum), "{name}");
    }
    assert!(moves.iter().all(|entry| entry["move"].as_str().is_some_and(|text| text.len() >= 4)));
    assert_eq!(report["checkmates"], 22);
}

#[test]
fn plain_perft_json_carries_the_count_and_the_divide() {
    let report = json_of(&run(&["perft", "--json", "--backend", "cpu", "--depth", "3"]));
    assert_eq!(report["nodes"], 8_902);
    assert!(report.get("captures").is_none(), "plain counts carry no statistics: {report}");
    let report = json_of(&run(&["perft", "--json", "--divide", "--backend", "cpu", "--depth", "2", "--fen", KIWIPETE]));
    assert_eq!(report["nodes"], 2_039);
    assert_eq!(report["divide"].as_array().map(Vec::len), Some(48));
}

#[test]
fn gpu_stats_json_equals_the_cpu_column_for_column_and_move_for_move() {
    for fen in [POSITION_4, KIWIPETE] {
        let arguments = ["perft", "--stats", "--json", "--divide", "--depth", "3", "--fen", fen, "-q", "--backend"];
        let [mut gpu, mut cpu] = ["gpu", "cpu"].map(|backend| json_of(&run(&[&arguments[..], &[backend]].concat())));
        assert_eq!((gpu["backend"].as_str(), cpu["backend"].as_str()), (Some("gpu"), Some("cpu")));
        for report in [&mut gpu, &mut cpu] {
            let object = report.as_object_mut().unwrap();
            object.remove("backend");
            object.remove("seconds");
        }
        assert_eq!(gpu, cpu, "{fen}");
    }
}

#[test]
fn the_statistics_table_counts_what_the_plain_recursion_counts() {
    use gpu_movegen::chess::cpu_perft::CpuPerft;
    let mut hashed = CpuPerft::builder().threads(2).hash_mebibytes(4).statistics(true).build(5).unwrap();
    let mut plain = CpuPerft::builder().threads(2).hash_mebibytes(0).statistics(true).build(5).unwrap();
    assert!(hashed.describe().contains("statistics table"), "{}", hashed.describe());
    for (fen, depth, expected) in PUBLISHED_STATISTICS {
        let position = Position::from_fen(fen).unwrap();
        assert_eq!(hashed.perft_stats(&[position], depth, &())[0].columns(), expected, "{fen} depth {depth}");
    }
    let positions = random_positions(&[Position::start(), Position::from_fen(KIWIPETE).unwrap()], 20, 40, 77);
    assert_eq!(hashed.perft_stats(&positions, 4, &()), plain.perft_stats(&positions, 4, &()));
    let position = Position::from_fen(POSITION_3).unwrap();
    assert_eq!(hashed.divide_stats(&position, 5, &()), divide_stats(&position, 5));
}

#[test]
fn suite_stats_list_every_count_by_kind_and_still_fail_on_a_mismatch() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-suite-stats-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("suite.epd");
    std::fs::write(&path, format!("{POSITION_4} ;D1 6 ;D2 264 ;D3 9467\n{KIWIPETE} ;D1 48 ;D2 2040\n")).unwrap();
    let path = path.to_string_lossy().into_owned();
    for backend in ["cpu", "gpu"] {
        let output = run(&["perft", "--epd", &path, "--stats", "--json", "--backend", backend, "-q"]);
        assert_eq!(output.status.code(), Some(1), "{backend}: a mismatch is exit code 1");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
        let results = report["results"].as_array().expect("a results array");
        assert_eq!(results.len(), 5, "{report}");
        let position_4 = results.iter().find(|result| result["line"] == 1 && result["depth"] == 3).unwrap();
        for (name, expected) in PerftStats::NAMES.iter().zip(PUBLISHED_STATISTICS[12].2) {
            assert_eq!(position_4[name], expected, "{backend}: {name} in {position_4}");
        }
        assert_eq!(report["mismatches"][0]["actual"], 2039, "{backend}: {report}");
    }
    let text = run(&["perft", "--epd", &path, "--stats", "--backend", "cpu", "-q"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("\n1 3 9467 1021 4 0 120 38 2 0 22\n"), "{text}");
    assert!(text.ends_with("1 passed, 1 failed\n"), "{text}");
}

#[test]
fn text_stats_name_every_column_then_the_total() {
    let output = run(&["perft", "--stats", "--depth", "3", "--fen", POSITION_3, "-q"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for (name, value) in PerftStats::NAMES.iter().zip(PUBLISHED_STATISTICS[7].2) {
        assert!(text.contains(&format!("{name}: {value}\n")), "{name} in {text}");
    }
    assert!(text.ends_with("Nodes searched: 2812\n"), "{text}");
}

#[test]
fn suite_json_counts_passes_and_lists_each_mismatch() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-suite-json-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("suite.epd");
    std::fs::write(&path, format!("{} ;D1 20 ;D2 400\n{KIWIPETE} ;D1 48 ;D2 2040\n", gpu_movegen::START_FEN)).unwrap();
    let path = path.to_string_lossy().into_owned();
    let output = run(&["perft", "--epd", &path, "--json", "--backend", "cpu", "-q"]);
    assert_eq!(output.status.code(), Some(1), "a mismatch is exit code 1");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(1), Some(1)), "{report}");
    assert_eq!(report["nodes"], 20 + 400 + 48 + 2039);
    let mismatches = report["mismatches"].as_array().unwrap();
    assert_eq!(mismatches.len(), 1);
    assert_eq!(mismatches[0]["line"], 2);
    assert_eq!(mismatches[0]["fen"], KIWIPETE);
    assert_eq!((mismatches[0]["depth"].as_u64(), mismatches[0]["expected"].as_u64()), (Some(2), Some(2040)));
    assert_eq!(mismatches[0]["actual"], 2039);
    std::fs::remove_dir_all(folder).unwrap();
}

#[test]
fn unique_json_has_one_entry_a_ply() {
    let report = json_of(&run(&["unique", "--depth", "3", "--json"]));
    let plies = report["plies"].as_array().expect("a plies array");
    let distinct: Vec<u64> = plies.iter().map(|ply| ply["distinct"].as_u64().unwrap()).collect();
    assert_eq!(distinct, [20, 400, 5_362]);
    assert_eq!(plies[2]["ply"], 3);
    assert_eq!(report["depth"], 3);
}

#[test]
fn a_cpu_count_stops_when_asked_and_is_whole_otherwise() {
    use gpu_movegen::chess::cpu_perft::CpuPerft;
    use std::sync::atomic::{AtomicBool, Ordering};
    let kiwipete = Position::from_fen(KIWIPETE).unwrap();
    for mebibytes in [0, 16] {
        let mut engine = CpuPerft::builder().threads(2).hash_mebibytes(mebibytes).build(5).unwrap();
        let stop = AtomicBool::new(false);
        assert_eq!(engine.perft_until(&[kiwipete], 5, &(), &stop), Some(vec![193_690_690]));
        // Set before the count: every subtree gives up, and nothing partial is stored.
        stop.store(true, Ordering::Relaxed);
        assert_eq!(engine.perft_until(&[kiwipete], 5, &(), &stop), None);
        assert_eq!(engine.perft(&[kiwipete], 5, &()), vec![193_690_690], "{mebibytes} MiB");
        // Set from another thread during a long count: it ends early, with None.
        let deep = AtomicBool::new(false);
        let started = std::time::Instant::now();
        let outcome = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(200));
                deep.store(true, Ordering::Relaxed);
            });
            engine.perft_until(&[Position::start()], 9, &(), &deep)
        });
        assert_eq!(outcome, None);
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    }
}

/// Each game's stoppable CPU count: equal to the plain count when left
/// alone, `None` when stopped before it starts, and over soon when stopped
/// during a count of hours.
#[test]
fn every_game_cpu_count_stops_when_asked_and_is_whole_otherwise() {
    use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
    use gpu_movegen::{go, shogi};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    type Counter<'a> = Box<dyn Fn(u32, &AtomicBool) -> Option<u64> + 'a>;
    let shogi_start = shogi::Position::start();
    let go_board = go::Position::new(19).unwrap();
    let atomic = VariantPosition::start(Variant::Atomic);
    // Each game: its counter, a depth counted whole and its plain count there, a depth of hours.
    let games: Vec<(&str, Counter, u32, u64, u32)> = vec![
        (
            "Shogi",
            Box::new(|depth, stop| shogi::perft::perft_parallel_until(&shogi_start, depth, stop)),
            5,
            shogi::perft::perft_parallel(&shogi_start, 5),
            12,
        ),
        (
            "Go 19x19",
            Box::new(|depth, stop| go::perft::perft_parallel_until(&go_board, depth, stop)),
            3,
            go::perft::perft_parallel(&go_board, 3),
            8,
        ),
        (
            "atomic",
            Box::new(|depth, stop| variant::perft_parallel_until(&atomic, depth, stop)),
            5,
            variant::perft_parallel(&atomic, 5),
            11,
        ),
    ];
    // The published Shogi start perft(5) (tests/data/shogi.epd), so the plain count is checked too.
    assert_eq!(games[0].3, 19_861_490);
    for (name, count, depth, expected, deep) in &games {
        let never = AtomicBool::new(false);
        assert_eq!(count(*depth, &never), Some(*expected), "{name} perft({depth})");
        assert_eq!(count(0, &never), Some(1), "{name} perft(0)");
        let stopped = AtomicBool::new(true);
        assert_eq!(count(*depth, &stopped), None, "{name}: stopped before it started");
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        let outcome = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                stop.store(true, Ordering::Relaxed);
            });
            count(*deep, &stop)
        });
        assert_eq!(outcome, None, "{name} perft({deep})");
        // Before, a stop waited for the root move's subtree: minutes at these depths.
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: {:?}", started.elapsed());
    }
}
