//! 16-bit moves: bits 0-5 from, bits 6-11 to, bits 12-15 the kind.

use std::fmt;

use super::{Piece, Square};

/// What a move does beyond taking a piece from one square to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A quiet move or a plain capture (including a pawn's double push).
    Normal,
    /// A pawn reaching the last rank and becoming this piece.
    Promotion(Piece),
    /// A pawn capturing the pawn that just passed it.
    EnPassant,
    /// The king moving two squares towards a rook; the rook jumps over it.
    Castling,
}

/// A move in 16 bits. Castling is the king's move (`e1g1`), as UCI writes it.
///
/// ```
/// use gpu_movegen::{Move, MoveKind, Piece, Square};
/// let promotion = Move::new(Square::E7, Square::E8, MoveKind::Promotion(Piece::Queen));
/// assert_eq!(promotion.to_string(), "e7e8q");
/// assert_eq!(std::mem::size_of::<Move>(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u16);

const KIND_NORMAL: u16 = 0;
// 1..=4: promotion to knight, bishop, rook, queen (the piece index).
const KIND_EN_PASSANT: u16 = 5;
const KIND_CASTLING: u16 = 6;

impl Move {
    #[inline]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        let kind_bits = match kind {
            MoveKind::Normal => KIND_NORMAL,
            MoveKind::Promotion(piece) => piece as u16,
            MoveKind::EnPassant => KIND_EN_PASSANT,
            MoveKind::Castling => KIND_CASTLING,
        };
        Move(from as u16 | (to as u16) << 6 | kind_bits << 12)
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 63) as u8)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 >> 6 & 63) as u8)
    }

    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            KIND_EN_PASSANT => MoveKind::EnPassant,
            KIND_CASTLING => MoveKind::Castling,
            kind @ 1..=4 => match Piece::from_index(kind as usize) {
                Some(piece) => MoveKind::Promotion(piece),
                None => MoveKind::Normal,
            },
            _ => MoveKind::Normal,
        }
    }

    /// The promotion piece, if this is a promotion.
    #[inline]
    pub const fn promotion(self) -> Option<Piece> {
        match self.kind() {
            MoveKind::Promotion(piece) => Some(piece),
            _ => None,
        }
    }

    /// The move with these 16 bits (as the GPU kernels write moves), if the
    /// kind field is a valid kind.
    #[inline]
    pub const fn from_bits(bits: u16) -> Option<Move> {
        if bits >> 12 <= KIND_CASTLING { Some(Move(bits)) } else { None }
    }

    /// The raw 16 bits, as the GPU kernels store moves.
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }
}

impl fmt::Display for Move {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}{}", self.from(), self.to())?;
        if let Some(piece) = self.promotion() {
            write!(formatter, "{}", piece.letter())?;
        }
        Ok(())
    }
}
