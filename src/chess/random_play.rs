//! Positions reached by seeded random play, for differential testing and
//! verification. ChaCha8 makes a seed give the same positions everywhere.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::chess::position::Position;

/// Plays `walks` random games from each root, each of a random length up to
/// `max_plies` (stopping early at mate or stalemate), and returns where each
/// ended, plus every position on the way for which `keep_passing` holds.
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
            let end = random_game(*root, max_plies, &mut random, |position| {
                if keep_passing(position) {
                    positions.push(*position);
                }
            });
            positions.push(end);
        }
    }
    positions
}

/// `count` positions, each the end of one random game of up to `max_plies`
/// plies from `root`.
pub fn random_positions(root: &Position, count: usize, max_plies: usize, seed: u64) -> Vec<Position> {
    random_walks(std::slice::from_ref(root), count, max_plies, seed, |_| false)
}

/// `count` positions, each the end of one random game of up to `max_plies`
/// plies from a Chess960 start position drawn at random.
pub fn random_chess960_positions(count: usize, max_plies: usize, seed: u64) -> Vec<Position> {
    let mut random = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let start = Position::chess960(random.random_range(0..960)).expect("numbers below 960 are starts");
            random_game(start, max_plies, &mut random, |_| {})
        })
        .collect()
}

/// One random game of a random length up to `max_plies` from `position`
/// (shorter at mate or stalemate): `passing` sees every position after a
/// move, and the last is returned.
fn random_game(
    position: Position,
    max_plies: usize,
    random: &mut ChaCha8Rng,
    passing: impl FnMut(&Position),
) -> Position {
    let plies = random.random_range(0..=max_plies);
    crate::game::random_game::<crate::chess::Chess>(position, plies, random, passing)
}
