//! The Rust twin of the Shogi WGSL record, with a `const` size check;
//! `tests/gpu_shogi.rs` checks its layout against the WGSL with naga.

use bytemuck::{Pod, Zeroable};

use crate::shogi::board::{Color, Piece};
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
    pub planes: [[u32; 4]; 5],
    pub hands: [u32; 2],
    pub state: u32,
    pub move_number: u32,
}

const _: () = assert!(size_of::<PackedShogiPosition>() == 96);

/// Bit offsets of the hand slots (pawn, lance, knight, silver, gold, bishop, rook).
pub const HAND_SHIFTS: [u32; 7] = [0, 5, 8, 11, 14, 17, 19];

/// A 128-bit bitboard as the shaders store it.
pub const fn words(bitboard: u128) -> [u32; 4] {
    [bitboard as u32, (bitboard >> 32) as u32, (bitboard >> 64) as u32, (bitboard >> 96) as u32]
}

impl From<&Position> for PackedShogiPosition {
    fn from(position: &Position) -> Self {
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
            planes: planes.map(words),
            hands: [hand(Color::Black), hand(Color::White)],
            state: position.side_to_move() as u32,
            move_number: position.move_number,
        }
    }
}

/// `ShogiBatchParameters` in shaders/shogi/kernels/per_position.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct ShogiBatchParameters {
    pub position_count: u32,
    pub reserved_0: u32,
    pub reserved_1: u32,
    pub reserved_2: u32,
}

/// `ShogiPositionMovesRecord` in shaders/shogi/kernels/per_position.wgsl:
/// legal destinations per square, legal drop squares per hand slot, the
/// legal move count.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct ShogiPositionMovesRecord {
    pub destinations: [[u32; 4]; 81],
    pub drops: [[u32; 4]; 7],
    pub move_count: u32,
    pub reserved: [u32; 3],
}

const _: () = assert!(size_of::<ShogiBatchParameters>() == 16);
const _: () = assert!(size_of::<ShogiPositionMovesRecord>() == 1424);
