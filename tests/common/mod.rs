//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gpu;

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
