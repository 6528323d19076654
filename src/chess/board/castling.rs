//! Castling rights and how FEN writes them: the rooks that may still
//! castle, by file, so that standard chess and Chess960 are one type.

use std::fmt;

use super::{Bitboard, Color, Square};

/// Castling rights: the rooks that may still castle, as their files on each
/// side's back rank (bit `f` of the low byte: a white rook on file `f`; the
/// high byte: black's). The side a right castles to follows from the king's
/// file: a rook on a higher file castles king side (king to g, rook to f), one
/// on a lower file queen side (king to c, rook to d). Standard chess has the
/// files a and h; Chess960 any two files with the king between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CastlingRights(u16);

/// The two ways to castle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file: the king ends on g, the rook on f.
    King,
    /// Towards the a-file: the king ends on c, the rook on d.
    Queen,
}

impl CastlingSide {
    /// The side a rook on `rook_file` castles to with the king on `king_file`.
    #[inline]
    pub const fn of(king_file: u8, rook_file: u8) -> CastlingSide {
        if rook_file > king_file { CastlingSide::King } else { CastlingSide::Queen }
    }

    /// The files the king and the rook end on.
    #[inline]
    pub const fn destination_files(self) -> (u8, u8) {
        match self {
            CastlingSide::King => (6, 5),
            CastlingSide::Queen => (2, 3),
        }
    }
}

impl fmt::Display for CastlingSide {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            CastlingSide::King => "king side",
            CastlingSide::Queen => "queen side",
        })
    }
}

/// How [`Position::to_fen_with`](crate::Position::to_fen_with) writes the castling field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CastlingNotation {
    /// X-FEN: `K`/`Q` (`k`/`q`) for the outermost rook on that side, the rook's
    /// file letter only for an inner rook. Standard positions read `KQkq`.
    #[default]
    XFen,
    /// Shredder-FEN: always the rook's file letter (`HAha`).
    Shredder,
}

impl CastlingRights {
    /// No side may castle.
    pub const NONE: CastlingRights = CastlingRights(0);

    /// The rights as 16 bits: white's rook files in the low byte, black's in the high one.
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The rights from [`CastlingRights::bits`].
    #[inline]
    pub const fn from_bits(bits: u16) -> CastlingRights {
        CastlingRights(bits)
    }

    /// Whether neither side may castle.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The files of `color`'s rooks that may castle (bit 0 = file a).
    #[inline]
    pub const fn files(self, color: Color) -> u8 {
        (self.0 >> (8 * color as u32)) as u8
    }

    /// The squares of `color`'s rooks that may castle.
    #[inline]
    pub const fn rook_squares(self, color: Color) -> Bitboard {
        Bitboard((self.files(color) as u64) << (8 * color.back_rank() as u32))
    }

    /// The rights left once the squares in `touched` have been moved from or to.
    #[inline(always)]
    pub(crate) const fn without_squares(self, touched: u64) -> CastlingRights {
        let files = (touched & 0xff) as u16 | ((touched >> 48) & 0xff00) as u16;
        CastlingRights(self.0 & !files)
    }

    #[inline(always)]
    pub(crate) const fn without_color(self, color: Color) -> CastlingRights {
        CastlingRights(self.0 & !(0xff << (8 * color as u32)))
    }

    #[inline]
    pub(crate) const fn with_square(self, square: Square) -> CastlingRights {
        let bit = 1u16 << square.file();
        CastlingRights(self.0 | if square.rank() == 0 { bit } else { bit << 8 })
    }
}

/// The back-rank files one castling touches, for a king and a rook file.
#[derive(Clone, Copy)]
pub(crate) struct CastlingPaths {
    /// Files the king and rook cross or land on, their own two aside: these must be empty.
    pub(crate) crossed: u8,
    /// Files the king crosses or lands on that must not be attacked: its own
    /// file only when it stays there (the caller knows it is not in check
    /// now, but the rook may have been shielding it).
    pub(crate) tested: u8,
}

/// [`CastlingPaths`] for every king file and rook file (rook on the king's
/// file: unused).
pub(crate) const CASTLING_PATHS: [[CastlingPaths; 8]; 8] = {
    const fn span(first: u8, second: u8) -> u8 {
        let (low, high) = if first < second { (first, second) } else { (second, first) };
        ((2u16 << high) - (1u16 << low)) as u8
    }
    let mut table = [[CastlingPaths { crossed: 0, tested: 0 }; 8]; 8];
    let mut king = 0u8;
    while king < 8 {
        let mut rook = 0u8;
        while rook < 8 {
            let (king_to, rook_to) = CastlingSide::of(king, rook).destination_files();
            let own = (1u8 << king) | (1u8 << rook);
            let king_path = span(king, king_to);
            let tested = if king == king_to { king_path } else { king_path & !(1u8 << king) };
            table[king as usize][rook as usize] =
                CastlingPaths { crossed: (king_path | span(rook, rook_to)) & !own, tested };
            rook += 1;
        }
        king += 1;
    }
    table
};
