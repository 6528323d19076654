//! The Shogi board: squares, pieces, hands, the position and its SFEN.
//!
//! Square numbering follows SFEN's reading order: square 0 is 9a (the top
//! left as SFEN writes the board), square 8 is 1a, square 80 is 1i. Bit `i`
//! of a [`Bitboard`] is square `i`. Black (sente) moves towards rank a.

/// 81 squares in the low bits of a u128.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const ALL: Bitboard = Bitboard((1u128 << 81) - 1);

    /// The one square `square` (0 to 80).
    #[inline]
    pub const fn from_square(square: u8) -> Bitboard {
        Bitboard(1u128 << square)
    }

    /// Whether `square` is in the set.
    #[inline]
    pub const fn contains(self, square: u8) -> bool {
        self.0 >> square & 1 != 0
    }

    /// Whether the set holds no square.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many squares the set holds.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The squares of one rank (0 = rank a).
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0x1ff << (rank as u32 * 9))
    }

    /// The squares of one file, by column index (0 = file 9, 8 = file 1).
    pub const fn column(column: u8) -> Bitboard {
        let mut bits = 0u128;
        let mut rank = 0;
        while rank < 9 {
            bits |= 1u128 << (rank * 9 + column as u32);
            rank += 1;
        }
        Bitboard(bits)
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & other.0)
    }
}

impl std::ops::BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ other.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::ALL.0)
    }
}

impl std::ops::BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, other: Bitboard) {
        self.0 |= other.0;
    }
}

impl std::ops::BitXorAssign for Bitboard {
    fn bitxor_assign(&mut self, other: Bitboard) {
        self.0 ^= other.0;
    }
}

impl Iterator for Bitboard {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(square)
    }
}

/// The USI name of a square, such as `7g`.
pub fn square_name(square: u8) -> String {
    let file = 9 - square % 9;
    let rank = (b'a' + square / 9) as char;
    format!("{file}{rank}")
}

/// The square of a USI name such as `7g`.
pub fn parse_square(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 || !(b'1'..=b'9').contains(&bytes[0]) || !(b'a'..=b'i').contains(&bytes[1]) {
        return None;
    }
    Some((bytes[1] - b'a') * 9 + (9 - (bytes[0] - b'0')))
}

/// The side: Black (sente, moves first, towards rank a) or White (gote).
pub use crate::game::BlackWhite as Color;

/// The fourteen kinds of piece: eight unpromoted, six promoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    /// Fuhyo (P).
    Pawn = 0,
    /// Kyosha (L).
    Lance,
    /// Keima (N).
    Knight,
    /// Ginsho (S).
    Silver,
    /// Kinsho (G); it does not promote.
    Gold,
    /// Kakugyo (B).
    Bishop,
    /// Hisha (R).
    Rook,
    /// Gyokusho or osho (K); it does not promote.
    King,
    /// Tokin, the promoted pawn (+P).
    ProPawn,
    /// The promoted lance (+L).
    ProLance,
    /// The promoted knight (+N).
    ProKnight,
    /// The promoted silver (+S).
    ProSilver,
    /// Ryuma, the promoted bishop (+B).
    Horse,
    /// Ryuo, the promoted rook (+R).
    Dragon,
}

impl Piece {
    /// Every kind, in index order.
    pub const ALL: [Piece; 14] = [
        Piece::Pawn,
        Piece::Lance,
        Piece::Knight,
        Piece::Silver,
        Piece::Gold,
        Piece::Bishop,
        Piece::Rook,
        Piece::King,
        Piece::ProPawn,
        Piece::ProLance,
        Piece::ProKnight,
        Piece::ProSilver,
        Piece::Horse,
        Piece::Dragon,
    ];
    /// The kinds a hand holds, in SFEN's order of writing them.
    pub const HAND: [Piece; 7] =
        [Piece::Rook, Piece::Bishop, Piece::Gold, Piece::Silver, Piece::Knight, Piece::Lance, Piece::Pawn];

    /// The kind's index, 0 to 13, as in [`Piece::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The promoted kind, for the six that promote.
    pub const fn promoted(self) -> Option<Piece> {
        match self {
            Piece::Pawn => Some(Piece::ProPawn),
            Piece::Lance => Some(Piece::ProLance),
            Piece::Knight => Some(Piece::ProKnight),
            Piece::Silver => Some(Piece::ProSilver),
            Piece::Bishop => Some(Piece::Horse),
            Piece::Rook => Some(Piece::Dragon),
            _ => None,
        }
    }

    /// The kind before promotion (what a capture puts in the hand).
    pub const fn unpromoted(self) -> Piece {
        match self {
            Piece::ProPawn => Piece::Pawn,
            Piece::ProLance => Piece::Lance,
            Piece::ProKnight => Piece::Knight,
            Piece::ProSilver => Piece::Silver,
            Piece::Horse => Piece::Bishop,
            Piece::Dragon => Piece::Rook,
            other => other,
        }
    }

    /// How many of this (unpromoted) kind a set holds, both sides together.
    pub const fn in_set(self) -> u32 {
        match self.unpromoted() {
            Piece::Pawn => 18,
            Piece::Bishop | Piece::Rook | Piece::King => 2,
            _ => 4,
        }
    }

    /// The SFEN letter of the unpromoted kind (uppercase).
    pub const fn letter(self) -> char {
        match self.unpromoted() {
            Piece::Pawn => 'P',
            Piece::Lance => 'L',
            Piece::Knight => 'N',
            Piece::Silver => 'S',
            Piece::Gold => 'G',
            Piece::Bishop => 'B',
            Piece::Rook => 'R',
            _ => 'K',
        }
    }

    /// The unpromoted kind of an SFEN letter (either case).
    pub fn from_letter(letter: char) -> Option<Piece> {
        Some(match letter.to_ascii_uppercase() {
            'P' => Piece::Pawn,
            'L' => Piece::Lance,
            'N' => Piece::Knight,
            'S' => Piece::Silver,
            'G' => Piece::Gold,
            'B' => Piece::Bishop,
            'R' => Piece::Rook,
            'K' => Piece::King,
            _ => return None,
        })
    }

    /// The hand slot of an unpromoted, droppable kind.
    pub const fn hand_index(self) -> usize {
        match self.unpromoted() {
            Piece::Pawn => 0,
            Piece::Lance => 1,
            Piece::Knight => 2,
            Piece::Silver => 3,
            Piece::Gold => 4,
            Piece::Bishop => 5,
            _ => 6,
        }
    }
}

/// The last `ranks` ranks seen from `color` (where its pieces promote when `ranks` is 3).
pub fn dead_zone(color: Color, ranks: u8) -> Bitboard {
    let mut zone = Bitboard::EMPTY;
    for index in 0..ranks {
        zone |= Bitboard::rank(if color == Color::Black { index } else { 8 - index });
    }
    zone
}
