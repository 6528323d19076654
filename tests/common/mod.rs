//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gpu;

use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Position, perft};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub const PERFT_SUITE: &str = include_str!("../data/perftsuite.epd");
pub const EDGE_CASES: &str = include_str!("../data/edge_cases.epd");
pub const TRICKY: &str = include_str!("../data/tricky.perft");

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

/// Positions reached by seeded random play: `walks` walks from each root, each
/// of a random length up to `max_plies`, keeping the position it ends on.
/// Walks stop early at mate or stalemate.
pub fn random_positions(roots: &[Position], walks: usize, max_plies: usize, seed: u64) -> Vec<Position> {
    random_walks(roots, walks, max_plies, seed, |_| false)
}

/// Like [`random_positions`], and also keeps every position along the walks
/// for which `keep_passing` holds.
pub fn random_walks(
    roots: &[Position],
    walks: usize,
    max_plies: usize,
    seed: u64,
    keep_passing: impl Fn(&Position) -> bool,
) -> Vec<Position> {
    let mut random = ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(roots.len() * walks);
    for root in roots {
        for _ in 0..walks {
            let plies = random.random_range(0..=max_plies);
            let mut position = *root;
            for _ in 0..plies {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.make_move(moves[random.random_range(0..moves.len())]);
                if keep_passing(&position) {
                    positions.push(position);
                }
            }
            positions.push(position);
        }
    }
    positions
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
