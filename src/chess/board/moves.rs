//! 16-bit moves: bits 0-5 from, bits 6-11 to, bits 12-15 the kind.
//!
//! The kinds past standard chess's serve the variants (`crate::chess::variant`):
//! a pawn promoting to a king (antichess) and a piece dropped from the
//! pocket (crazyhouse).

use std::fmt;

use super::{CastlingSide, Piece, Square};

/// What a move does beyond taking a piece from one square to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A quiet move or a plain capture (including a pawn's double push).
    Normal,
    /// A pawn reaching the last rank and becoming this piece.
    Promotion(Piece),
    /// A pawn capturing the pawn that just passed it.
    EnPassant,
    /// The king and a rook castling. Encoded as the king taking its own rook
    /// (the move's `to` is the rook's square), which stays unambiguous in
    /// Chess960, where the king may step onto g1 or stay where it is.
    Castling,
    /// A piece (pawn to queen) put from the mover's pocket onto the empty
    /// square `to` (crazyhouse); `from` is `to` too.
    Drop(Piece),
}

/// A move in 16 bits. Castling is stored as the king taking its own rook;
/// `Display` writes standard castling (king on e, rook on a or h) as the
/// king's move (`e1g1`), as UCI does, and any other castling as king takes
/// rook (`b1a1`), as UCI_Chess960 does. [`Move::uci`] chooses the form.
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
/// Promotion to a king (antichess).
const KIND_KING_PROMOTION: u16 = 7;
/// 8..=12: a drop of a pawn, knight, bishop, rook or queen (8 + the piece index).
const KIND_DROP: u16 = 8;
const KIND_LAST: u16 = KIND_DROP + 4;

impl Move {
    /// A move from `from` to `to` of `kind` (castling: `to` is the rook's square).
    #[inline]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        let kind_bits = match kind {
            MoveKind::Normal => KIND_NORMAL,
            MoveKind::Promotion(Piece::King) => KIND_KING_PROMOTION,
            MoveKind::Promotion(piece) => piece as u16,
            MoveKind::EnPassant => KIND_EN_PASSANT,
            MoveKind::Castling => KIND_CASTLING,
            MoveKind::Drop(piece) => KIND_DROP + piece as u16,
        };
        Move(from as u16 | (to as u16) << 6 | kind_bits << 12)
    }

    /// The square the piece leaves.
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 63) as u8)
    }

    /// The square it goes to (castling: its own rook's square).
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 >> 6 & 63) as u8)
    }

    /// A drop of `piece` (pawn to queen) onto `to`, as crazyhouse plays it.
    #[inline]
    pub const fn drop(piece: Piece, to: Square) -> Move {
        Move::new(to, to, MoveKind::Drop(piece))
    }

    /// Normal, promotion, en passant, castling or a drop.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            KIND_EN_PASSANT => MoveKind::EnPassant,
            KIND_CASTLING => MoveKind::Castling,
            KIND_KING_PROMOTION => MoveKind::Promotion(Piece::King),
            kind @ 1..=4 => match Piece::from_index(kind as usize) {
                Some(piece) => MoveKind::Promotion(piece),
                None => MoveKind::Normal,
            },
            kind @ KIND_DROP..=KIND_LAST => match Piece::from_index((kind - KIND_DROP) as usize) {
                Some(piece) => MoveKind::Drop(piece),
                None => MoveKind::Normal,
            },
            _ => MoveKind::Normal,
        }
    }

    /// The piece dropped, if this is a drop.
    #[inline]
    pub const fn dropped(self) -> Option<Piece> {
        match self.kind() {
            MoveKind::Drop(piece) => Some(piece),
            _ => None,
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
        if bits >> 12 <= KIND_LAST { Some(Move(bits)) } else { None }
    }

    /// The raw 16 bits, as the GPU kernels store moves.
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// For castling, the side it castles to (the rook's side of the king).
    #[inline]
    pub const fn castling_side(self) -> CastlingSide {
        CastlingSide::of(self.from().file(), self.to().file())
    }

    /// Where the moving piece ends: `to`, except for castling, where the king
    /// ends on the g- or c-file of its rank.
    #[inline]
    pub const fn king_destination(self) -> Square {
        match self.kind() {
            MoveKind::Castling => Square::new(self.castling_side().destination_files().0, self.from().rank()),
            _ => self.to(),
        }
    }

    /// Whether this is castling from the standard squares (king on e, rook on
    /// a or h), which UCI writes as the king's two-square move.
    #[inline]
    pub const fn is_standard_castling(self) -> bool {
        matches!(self.kind(), MoveKind::Castling) && self.from().file() == 4 && matches!(self.to().file(), 0 | 7)
    }

    /// The move in UCI: with `chess960`, every castling as king takes rook
    /// (UCI_Chess960); without, as [`Display`](fmt::Display) writes it.
    ///
    /// ```
    /// use gpu_movegen::Position;
    /// let position = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    /// let castle = position.parse_uci_move("e1g1").unwrap();
    /// assert_eq!(castle.to_string(), "e1g1");
    /// assert_eq!(castle.uci(true).to_string(), "e1h1");
    /// ```
    #[inline]
    pub const fn uci(self, chess960: bool) -> UciMove {
        UciMove { mv: self, chess960 }
    }
}

/// A move written in UCI notation, from [`Move::uci`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UciMove {
    mv: Move,
    chess960: bool,
}

impl fmt::Display for UciMove {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = self.mv;
        if let Some(piece) = mv.dropped() {
            // UCI's drop: the piece's capital letter, `@`, the square.
            return write!(formatter, "{}@{}", piece.letter().to_ascii_uppercase(), mv.to());
        }
        let to = if mv.is_standard_castling() && !self.chess960 { mv.king_destination() } else { mv.to() };
        write!(formatter, "{}{}", mv.from(), to)?;
        if let Some(piece) = mv.promotion() {
            write!(formatter, "{}", piece.letter())?;
        }
        Ok(())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.uci(false), formatter)
    }
}
