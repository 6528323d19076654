//! A Shogi position: the pieces, both hands, the side to move and the move
//! number, with what can be read off them. SFEN in and out is in `sfen`.

use super::board::{Bitboard, Color, Piece};

/// A Shogi position: the pieces, both hands, the side to move, the move number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) pieces: [Bitboard; 14],
    pub(crate) colors: [Bitboard; 2],
    /// Pieces in hand per side, by [`Piece::hand_index`] (P, L, N, S, G, B, R).
    pub(crate) hands: [[u8; 7]; 2],
    pub(crate) side_to_move: Color,
    pub(crate) move_number: u32,
}

impl Position {
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The squares of both sides' pieces of kind `piece`.
    pub fn pieces(&self, piece: Piece) -> Bitboard {
        self.pieces[piece.index()]
    }

    /// The squares of `color`'s pieces.
    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    /// The squares of `color`'s pieces of kind `piece`.
    pub fn pieces_of(&self, color: Color, piece: Piece) -> Bitboard {
        self.pieces[piece.index()] & self.colors[color.index()]
    }

    /// Every square with a piece.
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// How many of `piece` (unpromoted kind) `color` holds in hand.
    pub fn in_hand(&self, color: Color, piece: Piece) -> u8 {
        self.hands[color.index()][piece.hand_index()]
    }

    /// The piece on `square`, if any.
    pub fn piece_on(&self, square: u8) -> Option<(Color, Piece)> {
        let color = Color::ALL.into_iter().find(|color| self.colors[color.index()].contains(square))?;
        let piece = Piece::ALL.into_iter().find(|piece| self.pieces[piece.index()].contains(square))?;
        Some((color, piece))
    }

    pub(crate) fn put(&mut self, color: Color, piece: Piece, square: u8) {
        let bit = Bitboard::from_square(square);
        self.pieces[piece.index()] |= bit;
        self.colors[color.index()] |= bit;
    }

    /// The king of `color`'s square, if it has one.
    pub fn king(&self, color: Color) -> Option<u8> {
        self.pieces_of(color, Piece::King).next()
    }
}
