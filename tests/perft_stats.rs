//! Perft statistics against the published tables (the chessprogramming
//! wiki's "Perft Results" page: nodes, captures, en passant, castles,
//! promotions, checks, discovered checks, double checks, checkmates), and
//! the nodes column against perft itself on random positions.

mod common;

use common::{random_positions, suite_positions};
use gpu_movegen::chess::stats::{PerftStats, divide_stats, perft_stats, perft_stats_parallel};
use gpu_movegen::{Position, perft};

const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// (FEN, depth, the nine columns), from the wiki's tables.
const PUBLISHED: [(&str, u32, [u64; 9]); 14] = [
    (gpu_movegen::START_FEN, 3, [8_902, 34, 0, 0, 0, 12, 0, 0, 0]),
    (gpu_movegen::START_FEN, 4, [197_281, 1_576, 0, 0, 0, 469, 0, 0, 8]),
    (gpu_movegen::START_FEN, 5, [4_865_609, 82_719, 258, 0, 0, 27_351, 6, 0, 347]),
    (KIWIPETE, 1, [48, 8, 0, 2, 0, 0, 0, 0, 0]),
    (KIWIPETE, 2, [2_039, 351, 1, 91, 0, 3, 0, 0, 0]),
    (KIWIPETE, 3, [97_862, 17_102, 45, 3_162, 0, 993, 0, 0, 1]),
    (KIWIPETE, 4, [4_085_603, 757_163, 1_929, 128_013, 15_172, 25_523, 42, 6, 43]),
    (POSITION_3, 3, [2_812, 209, 2, 0, 0, 267, 3, 0, 0]),
    (POSITION_3, 4, [43_238, 3_348, 123, 0, 0, 1_680, 106, 0, 17]),
    (POSITION_3, 5, [674_624, 52_051, 1_165, 0, 0, 52_950, 1_292, 3, 0]),
    (POSITION_4, 1, [6, 0, 0, 0, 0, 0, 0, 0, 0]),
    (POSITION_4, 2, [264, 87, 0, 6, 48, 10, 0, 0, 0]),
    (POSITION_4, 3, [9_467, 1_021, 4, 0, 120, 38, 2, 0, 22]),
    (POSITION_4, 4, [422_333, 131_393, 0, 7_795, 60_032, 15_492, 19, 0, 5]),
];

#[test]
fn statistics_match_the_published_tables() {
    for (fen, depth, expected) in PUBLISHED {
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
    assert_eq!(total.columns(), PUBLISHED[5].2);
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
    for (name, expected) in PerftStats::NAMES.iter().zip(PUBLISHED[6].2) {
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
fn stats_on_the_gpu_backend_is_refused_with_exit_code_two() {
    let output = run(&["perft", "--stats", "--backend", "gpu", "--depth", "2"]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert_eq!(message.lines().filter(|line| line.starts_with("error")).count(), 1, "{message}");
    assert!(message.contains("--stats counts on the CPU"), "{message}");
}

#[test]
fn text_stats_name_every_column_then_the_total() {
    let output = run(&["perft", "--stats", "--depth", "3", "--fen", POSITION_3, "-q"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for (name, value) in PerftStats::NAMES.iter().zip(PUBLISHED[7].2) {
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
