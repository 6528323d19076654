//! The engine's position: the bit sets of the reference's [`Position`]
//! plus a square-by-square board for captures, with the hands as counts.
//! Copied per move; nothing is taken back.

use crate::shogi::board::Piece;
use crate::shogi::position::Position;

/// The `from` of a drop.
pub(super) const DROP: u8 = 81;
/// An empty square of [`Node::board`].
pub(super) const EMPTY: u8 = 0xff;

/// A move: `from` a square or [`DROP`], `to`, the piece as it stands
/// before the move (the dropped kind for a drop) and whether it promotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FastMove {
    pub from: u8,
    pub to: u8,
    pub piece: u8,
    pub promote: bool,
}

#[derive(Clone, Copy)]
pub(super) struct Node {
    /// Both sides' pieces of each kind, by [`Piece::index`].
    pub kinds: [u128; 14],
    pub colors: [u128; 2],
    /// The kind on each square, or [`EMPTY`].
    pub board: [u8; 81],
    /// Pieces in hand by [`Piece::hand_index`].
    pub hands: [[u8; 7]; 2],
    /// 0 for Black, 1 for White.
    pub side: usize,
}

/// The promoted kind of each kind (itself where it does not promote).
const PROMOTED: [u8; 14] = [8, 9, 10, 11, 4, 12, 13, 7, 8, 9, 10, 11, 12, 13];
/// The hand slot a captured piece of each kind goes to.
const HAND_SLOT: [u8; 14] = [0, 1, 2, 3, 4, 5, 6, 0, 0, 1, 2, 3, 5, 6];

impl Node {
    pub fn of(position: &Position) -> Node {
        let mut board = [EMPTY; 81];
        for (square, entry) in board.iter_mut().enumerate() {
            if let Some((_, piece)) = position.piece_on(square as u8) {
                *entry = piece.index() as u8;
            }
        }
        Node {
            kinds: position.pieces.map(|set| set.0),
            colors: position.colors.map(|set| set.0),
            board,
            hands: position.hands,
            side: position.side_to_move.index(),
        }
    }

    #[inline(always)]
    pub fn occupied(&self) -> u128 {
        self.colors[0] | self.colors[1]
    }

    #[inline(always)]
    pub fn pieces(&self, piece: Piece, color: usize) -> u128 {
        self.kinds[piece.index()] & self.colors[color]
    }

    #[inline(always)]
    pub fn king(&self, color: usize) -> usize {
        self.pieces(Piece::King, color).trailing_zeros() as usize
    }

    /// The position after `mv`, which must be legal here.
    #[inline(always)]
    pub fn play(&self, mv: FastMove) -> Node {
        let mut next = *self;
        let us = self.side;
        let to_bit = 1u128 << mv.to;
        if mv.from == DROP {
            next.hands[us][HAND_SLOT[mv.piece as usize] as usize] -= 1;
            next.kinds[mv.piece as usize] |= to_bit;
        } else {
            let from_bit = 1u128 << mv.from;
            next.kinds[mv.piece as usize] ^= from_bit;
            next.colors[us] ^= from_bit;
            next.board[mv.from as usize] = EMPTY;
            let captured = self.board[mv.to as usize];
            if captured != EMPTY {
                next.kinds[captured as usize] ^= to_bit;
                next.colors[us ^ 1] ^= to_bit;
                next.hands[us][HAND_SLOT[captured as usize] as usize] += 1;
            }
            let placed = if mv.promote { PROMOTED[mv.piece as usize] } else { mv.piece };
            next.kinds[placed as usize] |= to_bit;
            next.board[mv.to as usize] = placed;
        }
        if mv.from == DROP {
            next.board[mv.to as usize] = mv.piece;
        }
        next.colors[us] |= to_bit;
        next.side = us ^ 1;
        next
    }
}
