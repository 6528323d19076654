//! Shogi perft on the CPU: leaf nodes of the legal move tree, the last ply
//! counted without playing it, subtrees spread over the rayon pool.

use super::movegen::Move;
use super::position::Position;

/// The deepest Shogi perft the crate counts: start perft(16) is beyond 10^23
/// nodes, more than any machine could count; deeper requests are refused.
pub const MAX_DEPTH: u32 = 16;

/// Leaf nodes at `depth` plies below `position`, on the calling thread, by
/// the fast engine (`fast_perft`).
pub fn perft(position: &Position, depth: u32) -> u64 {
    super::fast_perft::perft(position, depth)
}

/// Leaf nodes at `depth`, spreading subtrees over the current rayon pool.
pub fn perft_parallel(position: &Position, depth: u32) -> u64 {
    super::fast_perft::perft_parallel(position, depth)
}

/// [`perft_parallel`] that gives up, returning `None`, once `stop` is set:
/// within the time of one perft(4) on a thread
/// ([`crate::threads::perft_until`]).
pub fn perft_parallel_until(position: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
    let children = |position: &Position| -> Vec<Position> {
        position.legal_moves().iter().map(|mv| position.make_move(*mv)).collect()
    };
    crate::threads::perft_until(position, depth, 4, &children, &|position, depth| perft_parallel(position, depth), stop)
}

/// Leaf nodes at `depth` by the full-rules reference generator
/// ([`Position::legal_moves`], [`Position::legal_move_count`]): what the
/// fast engine is tested against.
pub fn reference_perft(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(position.legal_move_count()),
        _ => position.legal_moves().into_iter().map(|mv| reference_perft(&position.make_move(mv), depth - 1)).sum(),
    }
}

/// The number of legal moves by the fast engine (what `perft(position, 1)` counts).
pub fn legal_move_count(position: &Position) -> u32 {
    super::fast_perft::legal_move_count(position)
}

/// Each legal move with perft(depth - 1) of its child, in USI order. Depth 0 gives no moves.
pub fn divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    crate::game::divide::<ShogiGame>(position, depth)
}

/// Shogi as a [`Game`](crate::game::Game): USI moves, the fast engine's perft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShogiGame;

impl crate::game::Game for ShogiGame {
    type Position = Position;
    type Move = Move;
    const NAME: &'static str = "Shogi";

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves()
    }

    fn play(position: &Position, mv: Move) -> Position {
        position.make_move(mv)
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        perft_parallel(position, depth)
    }

    fn perft_until(position: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
        perft_parallel_until(position, depth, stop)
    }
}

/// `count` positions from seeded random games from the start position, for
/// verification and tests; the same seed gives the same positions everywhere.
pub fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        // An i32 draw, as before the games shared random_game: the same seeds give the same positions.
        let plies: i32 = random.random_range(4..160);
        positions.push(crate::game::random_game::<ShogiGame>(Position::start(), plies as usize, &mut random, |_| {}));
    }
    positions
}
