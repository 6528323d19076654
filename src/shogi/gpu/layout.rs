//! The Rust twin of the Shogi WGSL record, with a `const` size check;
//! `tests/gpu_shogi.rs` checks its layout against the WGSL with naga.

use bytemuck::{Pod, Zeroable};

use crate::shogi::board::{Bitboard, Color, Piece};
use crate::shogi::position::Position;

/// `PackedShogiPosition` in shaders/shogi/position.wgsl: planes 0..3 hold
/// the bits of each square's piece code (the `Piece` index plus one), plane
/// 4 marks White's pieces; each bitboard is four u32 words (squares 0..31,
/// 32..63, 64..80, unused). Each hand is one word: pawns in bits 0..4,
/// lances, knights, silvers and golds three bits each from bit 5, bishops
/// and rooks two bits each from bit 17. `state` is the side to move (1 = White).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PackedShogiPosition {
    /// Four planes of piece-code bits, then White's pieces.
    pub planes: [[u32; 4]; 5],
    /// Black's and White's hands, packed.
    pub hands: [u32; 2],
    /// The side to move (1 = White).
    pub state: u32,
    /// The SFEN's move number.
    pub move_number: u32,
}

const _: () = assert!(size_of::<PackedShogiPosition>() == 96);

/// Bit offsets of the hand slots (pawn, lance, knight, silver, gold, bishop, rook).
pub const HAND_SHIFTS: [u32; 7] = [0, 5, 8, 11, 14, 17, 19];

/// How the shaders lay an 81-square bitboard out in a `vec4<u32>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BoardWords {
    /// The u128's bits in order: squares 0..31, 32..63, 64..80, none.
    #[default]
    Full,
    /// Three ranks to a word: squares 0..26, 27..53, 54..80 in the low 27
    /// bits of the first three words, as the three-part bitboards of the
    /// Shogi bitboard article.
    ThreeRanks,
}

impl BoardWords {
    /// A bitboard as the shaders of this layout store it.
    pub const fn words(self, bitboard: u128) -> [u32; 4] {
        match self {
            BoardWords::Full => {
                [bitboard as u32, (bitboard >> 32) as u32, (bitboard >> 64) as u32, (bitboard >> 96) as u32]
            }
            BoardWords::ThreeRanks => {
                let mask = (1u128 << 27) - 1;
                [(bitboard & mask) as u32, (bitboard >> 27 & mask) as u32, (bitboard >> 54 & mask) as u32, 0]
            }
        }
    }

    /// Squares per word.
    pub const fn word_bits(self) -> u32 {
        match self {
            BoardWords::Full => 32,
            BoardWords::ThreeRanks => 27,
        }
    }

    /// The bitboard of four words of this layout.
    pub const fn bitboard(self, words: [u32; 4]) -> u128 {
        match self {
            BoardWords::Full => {
                words[0] as u128 | (words[1] as u128) << 32 | (words[2] as u128) << 64 | (words[3] as u128) << 96
            }
            BoardWords::ThreeRanks => words[0] as u128 | (words[1] as u128) << 27 | (words[2] as u128) << 54,
        }
    }
}

/// A bitboard in the default layout.
pub const fn words(bitboard: u128) -> [u32; 4] {
    BoardWords::Full.words(bitboard)
}

impl From<&Position> for PackedShogiPosition {
    fn from(position: &Position) -> Self {
        PackedShogiPosition::pack(BoardWords::Full, position)
    }
}

impl PackedShogiPosition {
    /// The record of `position` for shaders of the `layout` bitboards.
    pub fn pack(layout: BoardWords, position: &Position) -> Self {
        let mut planes = [0u128; 5];
        for piece in Piece::ALL {
            let code = piece.index() as u32 + 1;
            for (bit, plane) in planes.iter_mut().take(4).enumerate() {
                if code >> bit & 1 == 1 {
                    *plane |= position.pieces(piece).0;
                }
            }
        }
        planes[4] = position.colored(Color::White).0;
        let hand = |color: Color| {
            Piece::HAND
                .iter()
                .map(|piece| u32::from(position.in_hand(color, *piece)) << HAND_SHIFTS[piece.hand_index()])
                .sum()
        };
        PackedShogiPosition {
            planes: planes.map(|plane| layout.words(plane)),
            hands: [hand(Color::Black), hand(Color::White)],
            state: position.side_to_move() as u32,
            move_number: position.move_number,
        }
    }
}

impl PackedShogiPosition {
    /// The position this record of the default layout holds: `pack`'s
    /// inverse, for records the kernels wrote.
    pub fn unpack(&self) -> Position {
        let planes = self.planes.map(|words| BoardWords::Full.bitboard(words));
        let mut position = Position::default();
        let occupied = planes[0] | planes[1] | planes[2] | planes[3];
        for piece in Piece::ALL {
            let code = piece.index() as u32 + 1;
            let mut squares = occupied;
            for (bit, plane) in planes.iter().take(4).enumerate() {
                squares &= if code >> bit & 1 == 1 { *plane } else { !*plane };
            }
            position.pieces[piece.index()] = Bitboard(squares);
        }
        position.colors = [Bitboard(occupied & !planes[4]), Bitboard(occupied & planes[4])];
        for (color, hand) in self.hands.iter().enumerate() {
            for (slot, shift) in HAND_SHIFTS.iter().enumerate() {
                let width = match slot {
                    0 => 5,
                    5 | 6 => 2,
                    _ => 3,
                };
                position.hands[color][slot] = (hand >> shift & ((1 << width) - 1)) as u8;
            }
        }
        position.side_to_move = Color::ALL[(self.state & 1) as usize];
        position.move_number = self.move_number;
        position
    }
}

/// `ShogiPositionMovesRecord` in shaders/shogi/kernels/per_position.wgsl:
/// legal destinations per square, legal drop squares per hand slot, the
/// legal move count.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct ShogiPositionMovesRecord {
    /// Legal destinations per from-square.
    pub destinations: [[u32; 4]; 81],
    /// Legal drop squares per hand slot.
    pub drops: [[u32; 4]; 7],
    /// Legal moves, promotions and non-promotions apart.
    pub move_count: u32,
    /// Padding; always 0.
    pub reserved: [u32; 3],
}

const _: () = assert!(size_of::<ShogiPositionMovesRecord>() == 1424);
