//! Colours and piece kinds.

use std::fmt;
use std::ops::Not;

/// A side: white moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// White, index 0.
    White,
    /// Black, index 1.
    Black,
}

impl Color {
    /// Both sides, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for white, 1 for black: the index of per-side arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank (0-based) a pawn of this colour promotes on.
    #[inline]
    pub const fn promotion_rank(self) -> u8 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    /// The rank (0-based) this colour's pieces start on.
    #[inline]
    pub const fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// A kind of piece, without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Piece {
    /// A pawn, index 0.
    Pawn,
    /// A knight, index 1.
    Knight,
    /// A bishop, index 2.
    Bishop,
    /// A rook, index 3.
    Rook,
    /// A queen, index 4.
    Queen,
    /// A king, index 5.
    King,
}

impl Piece {
    /// Every kind, in index order.
    pub const ALL: [Piece; 6] = [Piece::Pawn, Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen, Piece::King];

    /// The pieces a pawn may promote to, in the order UCI and perft tools list them.
    pub const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

    /// 0 (pawn) to 5 (king): the index of per-piece arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece of an index from [`Piece::index`]; `None` past 5.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Piece> {
        if index < 6 { Some(Piece::ALL[index]) } else { None }
    }

    /// Lower-case letter: p, n, b, r, q, k.
    pub const fn letter(self) -> char {
        match self {
            Piece::Pawn => 'p',
            Piece::Knight => 'n',
            Piece::Bishop => 'b',
            Piece::Rook => 'r',
            Piece::Queen => 'q',
            Piece::King => 'k',
        }
    }

    /// The piece for a FEN letter, with its colour from the letter's case.
    pub const fn from_fen_letter(letter: char) -> Option<(Color, Piece)> {
        let color = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
        let piece = match letter.to_ascii_lowercase() {
            'p' => Piece::Pawn,
            'n' => Piece::Knight,
            'b' => Piece::Bishop,
            'r' => Piece::Rook,
            'q' => Piece::Queen,
            'k' => Piece::King,
            _ => return None,
        };
        Some((color, piece))
    }

    /// The FEN letter: upper case for white, lower case for black.
    pub const fn fen_letter(self, color: Color) -> char {
        match color {
            Color::White => self.letter().to_ascii_uppercase(),
            Color::Black => self.letter(),
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Piece::Pawn => "pawn",
            Piece::Knight => "knight",
            Piece::Bishop => "bishop",
            Piece::Rook => "rook",
            Piece::Queen => "queen",
            Piece::King => "king",
        })
    }
}
