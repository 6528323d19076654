//! Perft on the CPU: count the leaf nodes of the legal move tree to a fixed
//! depth. The last ply is bulk-counted (legal moves counted, not played).

use rayon::prelude::*;

use crate::chess::board::Move;
use crate::chess::fast_perft::{self, SliderLookup};
use crate::chess::position::Position;

/// The deepest perft the crate counts: deep enough for published suites
/// (perft(32) of a locked position is 1) and every depth a work unit splits,
/// far past what any machine finishes from an open position; deeper requests
/// are refused, never started. Recursion to this depth needs well under
/// 1 MiB of stack.
pub const MAX_DEPTH: u32 = 64;

/// Leaf nodes at `depth` plies below `position`, on the calling thread, by
/// the fast engine ([`crate::chess::fast_perft`]).
///
/// ```
/// use gpu_movegen::{perft, Position};
/// assert_eq!(perft::perft(&Position::start(), 3), 8_902);
/// ```
#[inline]
pub fn perft(position: &Position, depth: u32) -> u64 {
    fast_perft::perft(position, depth)
}

/// [`perft`] by the reference generator ([`Position::generate_piece_moves`]),
/// which every GPU kernel is checked against: slower, and written apart
/// from the fast engine, so that tests can hold the two equal.
pub fn perft_reference(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(position.legal_move_count()),
        _ => position.sum_over_children(|child| perft_reference(child, depth - 1)),
    }
}

/// Below this depth a subtree is too small to be worth handing to another thread.
const PARALLEL_MIN_DEPTH: u32 = 5;

/// Leaf nodes at `depth`, spreading subtrees over the current rayon pool.
pub fn perft_parallel(position: &Position, depth: u32) -> u64 {
    perft_parallel_with(position, depth, SliderLookup::selected())
}

/// [`perft_parallel`] with a given slider lookup ([`fast_perft::perft_with`]).
pub fn perft_parallel_with(position: &Position, depth: u32, lookup: SliderLookup) -> u64 {
    let never = std::sync::atomic::AtomicBool::new(false);
    perft_parallel_until(position, depth, lookup, &never).unwrap_or_else(|| unreachable!("nothing sets the flag"))
}

/// [`perft_parallel_with`] that gives up, returning `None`, once `stop` is
/// set: each subtree handed to a thread looks at it first, so a count
/// stops within a few milliseconds of work.
pub fn perft_parallel_until(
    position: &Position,
    depth: u32,
    lookup: SliderLookup,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<u64> {
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    if depth < PARALLEL_MIN_DEPTH {
        return Some(fast_perft::perft_with(position, depth, lookup));
    }
    position
        .legal_moves()
        .par_iter()
        .map(|mv| perft_parallel_until(&position.make_move(*mv), depth - 1, lookup, stop))
        .sum()
}

/// Perft split by root move: each legal move with the leaf count below it,
/// in UCI order. `depth` counts the root move, so the counts are perft(depth - 1)
/// of the children and their sum is perft(depth). Depth 0 gives no moves.
/// `parallel` shares the children among rayon's threads ([`crate::game::divide`]).
pub fn divide(position: &Position, depth: u32, parallel: bool) -> Vec<(Move, u64)> {
    if parallel {
        return crate::game::divide::<Chess>(position, depth);
    }
    crate::game::divide_by::<Chess>(position, depth, false, perft)
}

/// [`divide`] with any counter ([`crate::game::divide_with`] for chess):
/// `count(children, depth)` returns perft of each child (the GPU backend
/// counts them all in one batch), or any other count of their subtrees (statistics).
pub fn divide_with<T, E>(
    position: &Position,
    depth: u32,
    count: impl FnOnce(&[Position], u32) -> Result<Vec<T>, E>,
) -> Result<Vec<(Move, T)>, E> {
    crate::game::divide_with::<Chess, T, E>(position, depth, count)
}

/// Chess as a [`Game`](crate::game::Game): UCI moves, the fast engine's perft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Chess;

impl crate::game::Game for Chess {
    type Position = Position;
    type Move = Move;
    const NAME: &'static str = "chess";

    fn legal_moves(position: &Position) -> Vec<Move> {
        position.legal_moves().into_iter().collect()
    }

    fn play(position: &Position, mv: Move) -> Position {
        position.make_move(mv)
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        perft_parallel(position, depth)
    }

    fn perft_until(position: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
        perft_parallel_until(position, depth, SliderLookup::selected(), stop)
    }
}
