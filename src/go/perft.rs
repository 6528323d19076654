//! Go perft on the CPU: the number of sequences of N point moves (passes
//! are not counted), each legal under simple ko with suicide forbidden. The
//! last ply is counted from the legal-point bitmap without being played.

use rayon::prelude::*;

use super::bitmap::Geometry;
use super::board::Board;
use super::position::{Point, Position, with_board};

/// The deepest Go perft the crate counts: empty 9×9 perft(24) is beyond
/// 10^40 sequences, more than any machine could count; deeper requests are
/// refused.
pub const MAX_DEPTH: u32 = 24;

/// perft(`depth`) of `position` on one thread.
pub fn perft(position: &Position, depth: u32) -> u64 {
    with_board!(position, |board, geometry| perft_board(&geometry, &board, depth))
}

/// perft(`depth`) with the root's moves shared among rayon's threads.
pub fn perft_parallel(position: &Position, depth: u32) -> u64 {
    // perft(0) is the root alone, which divide, having no moves to divide by, leaves out.
    if depth == 0 {
        return 1;
    }
    divide(position, depth).iter().map(|(_, count)| count).sum()
}

/// [`perft_parallel`] that gives up, returning `None`, once `stop` is set:
/// within the time of one perft(2) on a thread (a 19x19 perft(3) is tens of
/// millions of nodes; see [`crate::threads::perft_until`]).
pub fn perft_parallel_until(position: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
    let children = |position: &Position| -> Vec<Position> {
        let color = position.to_move();
        position
            .legal_points(color)
            .iter()
            .map(|&point| {
                let mut child = *position;
                child.play_move(super::Move { color, point: Some(point) }).expect("a legal point");
                child
            })
            .collect()
    };
    crate::threads::perft_until(position, depth, 2, &children, &|position, depth| perft(position, depth), stop)
}

/// The count below each legal point of the root, lowest bit first, the
/// moves shared among rayon's threads. Empty at depth 0.
pub fn divide(position: &Position, depth: u32) -> Vec<(Point, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let points = position.legal_points(position.to_move());
    points
        .par_iter()
        .map(|&point| {
            let mut child = *position;
            child.play_move(super::Move { color: position.to_move(), point: Some(point) }).expect("a legal point");
            (point, perft(&child, depth - 1))
        })
        .collect()
}

pub(crate) fn perft_board<const W: usize>(geometry: &Geometry<W>, board: &Board<W>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let color = board.to_move;
    let legal = board.legal(geometry, color);
    if depth == 1 {
        return u64::from(legal.count());
    }
    legal
        .bits()
        .map(|bit| {
            let mut child = *board;
            child.play(geometry, color, bit);
            perft_board(geometry, &child, depth - 1)
        })
        .sum()
}
