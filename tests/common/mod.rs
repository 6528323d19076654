//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gpu;
pub mod shogi;

use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Position, perft};

pub const PERFT_SUITE: &str = include_str!("../data/perftsuite.epd");
pub const EDGE_CASES: &str = include_str!("../data/edge_cases.epd");
pub const TRICKY: &str = include_str!("../data/tricky.perft");
pub const CHESS960: &str = include_str!("../data/chess960.perft");

pub fn suite(text: &str) -> Vec<SuiteEntry> {
    parse_suite(text).expect("test suites parse")
}

/// Every position of the standard-chess suites in tests/data.
pub fn suite_positions() -> Vec<Position> {
    suite(PERFT_SUITE)
        .iter()
        .chain(&suite(EDGE_CASES))
        .map(|entry| entry.position().expect("suite FENs are valid"))
        .collect()
}

/// The 960 positions of chess960.perft (each a few moves into a Chess960 game).
pub fn chess960_suite_positions() -> Vec<Position> {
    suite(CHESS960).iter().map(|entry| entry.position().expect("chess960.perft FENs are valid")).collect()
}

/// Every Chess960 start position (Scharnagl numbers 0..960).
pub fn chess960_starts() -> Vec<Position> {
    (0..960).map(|number| Position::chess960(number).expect("numbers below 960 are start positions")).collect()
}

pub use gpu_movegen::random_play::random_walks;

pub const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
pub const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// (FEN, depth, the nine columns), from the wiki's tables.
pub const PUBLISHED_STATISTICS: [(&str, u32, [u64; 9]); 14] = [
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

/// The end positions of `walks` random games from each root.
pub fn random_positions(roots: &[Position], walks: usize, max_plies: usize, seed: u64) -> Vec<Position> {
    random_walks(roots, walks, max_plies, seed, |_| false)
}

/// Checks every expected count up to `max_nodes`; returns the mismatches as text.
pub fn check_suite(entries: &[SuiteEntry], max_nodes: u64) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in entries {
        let position = match entry.position() {
            Ok(position) => position,
            Err(error) => {
                failures.push(format!("line {}: {}: {error}", entry.line, entry.fen));
                continue;
            }
        };
        for &(depth, expected) in entry.expected.iter().filter(|(_, nodes)| *nodes <= max_nodes) {
            let actual = perft::perft_parallel(&position, depth);
            checked += 1;
            if actual != expected {
                failures.push(format!(
                    "line {} {} depth {depth}: expected {expected}, got {actual}",
                    entry.line, entry.fen
                ));
            }
        }
    }
    (checked, failures)
}

/// Runs the crate's binary with `arguments`, `environment` added to its
/// own, and `stdin` written to it; its whole output.
pub fn run_binary(arguments: &[&str], environment: &[(&str, &std::ffi::OsStr)], stdin: &str) -> std::process::Output {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(arguments)
        .envs(environment.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("stdin written");
    child.wait_with_output().expect("the binary ends")
}

/// The Python that has python-chess (PyPI `chess`): GPU_MOVEGEN_PYTHON_CHESS,
/// or the virtual environment scripts/test makes in target/python-peers.
pub fn python_chess_interpreter() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("GPU_MOVEGEN_PYTHON_CHESS") {
        return path.into();
    }
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-peers/bin/python");
    if !venv.exists() {
        panic!(
            "python-chess is not installed: run the tests through scripts/test, which installs it into \
             target/python-peers (or set GPU_MOVEGEN_PYTHON_CHESS to a Python that has `chess`)"
        );
    }
    venv
}

/// Answers of tests/peers/python_chess_perft.py to `requests` (one line each, in order).
pub fn python_chess(requests: &[String]) -> Vec<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/python_chess_perft.py");
    let mut child = Command::new(python_chess_interpreter())
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the python-chess peer starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = requests.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("the python-chess peer ends");
    writer.join().expect("the writer thread").expect("requests written");
    assert!(output.status.success(), "the python-chess peer failed: {}", String::from_utf8_lossy(&output.stderr));
    let answers: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect();
    assert_eq!(answers.len(), requests.len(), "one answer per request");
    answers
}
