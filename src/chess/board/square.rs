//! Squares, files and ranks. Square 0 is a1, 7 is h1, 63 is h8; bit `i` of a
//! [`Bitboard`](super::Bitboard) is square `i`.

use std::fmt;
use std::str::FromStr;

macro_rules! squares {
    ($($name:ident),* $(,)?) => {
        /// One of the 64 squares, numbered a1 = 0, b1 = 1, …, h8 = 63.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u8)]
        pub enum Square {
            $(
                #[doc = concat!("The square ", stringify!($name), ".")]
                $name
            ),*
        }

        impl Square {
            /// Every square in index order.
            pub const ALL: [Square; 64] = [$(Square::$name),*];
        }
    };
}

squares! {
    A1, B1, C1, D1, E1, F1, G1, H1,
    A2, B2, C2, D2, E2, F2, G2, H2,
    A3, B3, C3, D3, E3, F3, G3, H3,
    A4, B4, C4, D4, E4, F4, G4, H4,
    A5, B5, C5, D5, E5, F5, G5, H5,
    A6, B6, C6, D6, E6, F6, G6, H6,
    A7, B7, C7, D7, E7, F7, G7, H7,
    A8, B8, C8, D8, E8, F8, G8, H8,
}

impl Square {
    /// The square with this index; the index is taken modulo 64.
    #[inline]
    pub const fn from_index(index: u8) -> Square {
        Square::ALL[(index & 63) as usize]
    }

    /// The square with this index, or `None` when the index is 64 or more.
    #[inline]
    pub const fn try_from_index(index: u8) -> Option<Square> {
        if index < 64 { Some(Square::ALL[index as usize]) } else { None }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), both 0..8.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Square {
        Square::from_index(rank * 8 + file)
    }

    /// 0 (a1) to 63 (h8).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// 0 for the a-file … 7 for the h-file.
    #[inline]
    pub const fn file(self) -> u8 {
        self as u8 & 7
    }

    /// 0 for rank 1 … 7 for rank 8.
    #[inline]
    pub const fn rank(self) -> u8 {
        self as u8 >> 3
    }

    /// The same square seen from black's side (a1 <-> a8).
    #[inline]
    pub const fn flip_rank(self) -> Square {
        Square::from_index(self as u8 ^ 56)
    }

    /// The square `delta` indices away, if it stays on the board; file
    /// wrapping is the caller's concern.
    #[inline]
    pub const fn offset(self, delta: i8) -> Option<Square> {
        let target = self as i16 + delta as i16;
        if target >= 0 && target < 64 { Some(Square::from_index(target as u8)) } else { None }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = (b'a' + self.file()) as char;
        let rank = (b'1' + self.rank()) as char;
        write!(formatter, "{file}{rank}")
    }
}

/// A square name that is not a file letter a-h followed by a rank digit 1-8.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a square name (expected a file a-h and a rank 1-8, such as e4)")]
pub struct SquareParseError(pub String);

impl FromStr for Square {
    type Err = SquareParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.as_bytes() {
            [file @ b'a'..=b'h', rank @ b'1'..=b'8'] => Ok(Square::new(file - b'a', rank - b'1')),
            _ => Err(SquareParseError(text.to_owned())),
        }
    }
}
