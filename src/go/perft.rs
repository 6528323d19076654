//! Go perft on the CPU: the number of sequences of N point moves (passes
//! are not counted), each legal under simple ko with suicide forbidden. The
//! last ply is counted from the legal-point bitmap without being played.

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
    use crate::game::Game;
    crate::threads::perft_until(position, depth, 2, &GoGame::children, &|position, depth| perft(position, depth), stop)
}

/// The count below each legal point of the root, lowest bit first, the
/// moves shared among rayon's threads. Empty at depth 0.
pub fn divide(position: &Position, depth: u32) -> Vec<(Point, u64)> {
    // Each child counted on one thread: perft_parallel is this divide.
    crate::game::divide_by::<GoGame>(position, depth, true, perft)
}

/// Go as a [`Game`](crate::game::Game): a move is a point of the side to
/// move (perft counts no passes), printed as a GTP vertex; a divide keeps
/// the points' order, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GoGame;

impl crate::game::Game for GoGame {
    type Position = Position;
    type Move = Point;
    const NAME: &'static str = "Go";
    const DIVIDE_BY_TEXT: bool = false;

    fn legal_moves(position: &Position) -> Vec<Point> {
        position.legal_points(position.to_move())
    }

    fn play(position: &Position, point: Point) -> Position {
        let mut child = *position;
        child.play_move(super::Move { color: position.to_move(), point: Some(point) }).expect("a legal point");
        child
    }

    fn perft(position: &Position, depth: u32) -> u64 {
        perft_parallel(position, depth)
    }

    fn perft_until(position: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
        perft_parallel_until(position, depth, stop)
    }
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
