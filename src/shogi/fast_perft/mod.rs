//! The Shogi CPU perft engine, what [`shogi::perft`](crate::shogi::perft)
//! runs: chess's engine carried to the nine-by-nine board.
//!
//! - A node of bit sets plus a board of kinds, copied per move.
//! - Legal moves from a check mask and pins; only king moves are tried
//!   square by square, and only the pawn drop in front of the enemy king
//!   needs its reply examined (uchifuzume).
//! - The last ply counted from destination sets: pawns, knights, silvers
//!   and golds shifted as whole sets, promotions counted by zone masks,
//!   drops by a popcount of the empty squares each kind may use.
//! - Slider attacks by the ray tables and a bit scan, the rank (whose
//!   squares are contiguous bits) by one lookup.
//!
//! It is written apart from the reference generator
//! ([`Position::legal_moves`]), and the tests hold the two equal on every
//! published count and on random positions.

mod generate;
mod node;
mod tables;

use rayon::prelude::*;

use crate::shogi::position::Position;
use generate::{MoveList, count, generate};
use node::Node;
use tables::{TABLES, Tables};

/// Leaf nodes `depth` plies below `position`, on the calling thread.
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    recurse(&Node::of(position), depth, &TABLES)
}

/// The number of legal moves of `position`.
pub fn legal_move_count(position: &Position) -> u32 {
    count(&Node::of(position), &TABLES)
}

fn recurse(node: &Node, depth: u32, tables: &Tables) -> u64 {
    if depth == 1 {
        return u64::from(count(node, tables));
    }
    let mut moves = MoveList::new();
    generate(node, tables, &mut moves);
    if depth == 2 {
        return moves.iter().map(|mv| u64::from(count(&node.play(*mv), tables))).sum();
    }
    moves.iter().map(|mv| recurse(&node.play(*mv), depth - 1, tables)).sum()
}

/// Below this depth a subtree is too small to hand to another thread.
const PARALLEL_MIN_DEPTH: u32 = 3;

/// Leaf nodes at `depth`, spreading subtrees over the current rayon pool.
pub fn perft_parallel(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    recurse_parallel(&Node::of(position), depth, &TABLES)
}

fn recurse_parallel(node: &Node, depth: u32, tables: &Tables) -> u64 {
    if depth < PARALLEL_MIN_DEPTH {
        return recurse(node, depth, tables);
    }
    let mut moves = MoveList::new();
    generate(node, tables, &mut moves);
    moves.par_iter().map(|mv| recurse_parallel(&node.play(*mv), depth - 1, tables)).sum()
}
