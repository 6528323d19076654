//! Perft of a variant position: leaves `depth` plies below it, the last ply
//! counted without playing its moves, standard chess handed to the chess
//! engine (`crate::chess::fast_perft`).

use rayon::prelude::*;

use super::{Variant, VariantPosition};
use crate::chess::board::Move;

/// Leaf nodes `depth` plies below `position`. A position whose game ended
/// by its variant's rule has no moves, so nothing below it is counted.
pub fn perft(position: &VariantPosition, depth: u32) -> u64 {
    if position.variant == Variant::Chess {
        return crate::chess::perft::perft(&position.board, depth);
    }
    count(position, depth)
}

fn count(position: &VariantPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.legal_move_count(),
        _ => position.legal_moves().iter().map(|&mv| count(&position.make_move(mv), depth - 1)).sum(),
    }
}

/// [`perft`] with the root moves spread over rayon's threads.
pub fn perft_parallel(position: &VariantPosition, depth: u32) -> u64 {
    if depth < 3 {
        return perft(position, depth);
    }
    let moves = position.legal_moves();
    moves.par_iter().map(|&mv| perft(&position.make_move(mv), depth - 1)).sum()
}

/// Perft split by root move: each legal move with perft(depth - 1) of its
/// child, in the order of their UCI text (`parallel` spreads the moves over
/// rayon's threads).
pub fn divide(position: &VariantPosition, depth: u32, parallel: bool) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = position.legal_moves();
    let below = |mv: &Move| (*mv, perft(&position.make_move(*mv), depth - 1));
    let mut counted: Vec<(Move, u64)> =
        if parallel { moves.par_iter().map(below).collect() } else { moves.iter().map(below).collect() };
    counted.sort_by_cached_key(|(mv, _)| mv.to_string());
    counted
}

/// `count` positions of `variant`, each the end of one seeded random game
/// of up to `max_plies` plies from the variant's start (shorter where the
/// game ends): for differential tests and `verify --variant`.
pub fn random_positions(variant: Variant, count: usize, max_plies: usize, seed: u64) -> Vec<VariantPosition> {
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let start = VariantPosition::start(variant);
    (0..count)
        .map(|_| {
            let mut position = start;
            for _ in 0..random.random_range(0..=max_plies) {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.make_move(moves[random.random_range(0..moves.len())]);
            }
            position
        })
        .collect()
}
