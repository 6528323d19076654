//! The Rust twins of the Go WGSL records, with `const` size checks;
//! tests/gpu_go.rs checks them against the WGSL with naga.

use bytemuck::{Pod, Zeroable};

use crate::go::{Color, Position};

/// Words of a packed bitmap: enough for 19×19 (380 bits) whatever the size.
pub const PACKED_WORDS: usize = 12;
/// `GO_NO_POINT` in the shaders: no ko point.
pub const NO_POINT: u32 = u32::MAX;

/// `PackedGoPosition` in shaders/go/board.wgsl: each colour's stones in the
/// bitmap layout of src/go/bitmap.rs as 32-bit words, the ko point's bit
/// (or [`NO_POINT`]), the side to move (1 = white) and the board size, which
/// the kernels check against the size they were built for.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PackedGoPosition {
    /// Black's stones, the CPU bitmap in 32-bit words.
    pub black: [u32; PACKED_WORDS],
    /// White's stones.
    pub white: [u32; PACKED_WORDS],
    /// The ko point, or `NO_POINT`.
    pub ko: u32,
    /// 0 black, 1 white.
    pub to_move: u32,
    /// The board size.
    pub size: u32,
    /// Padding; always 0.
    pub reserved: u32,
}

const _: () = assert!(size_of::<PackedGoPosition>() == 112);

/// The 64-bit words of the CPU's bitmaps as the shaders' 32-bit words.
pub fn split_words(words: &[u64]) -> [u32; PACKED_WORDS] {
    let mut split = [0; PACKED_WORDS];
    for (index, word) in words.iter().enumerate().take(PACKED_WORDS / 2) {
        split[2 * index] = *word as u32;
        split[2 * index + 1] = (word >> 32) as u32;
    }
    split
}

/// The shaders' 32-bit words as 64-bit words.
pub fn join_words(words: &[u32; PACKED_WORDS]) -> [u64; PACKED_WORDS / 2] {
    std::array::from_fn(|index| u64::from(words[2 * index]) | u64::from(words[2 * index + 1]) << 32)
}

impl PackedGoPosition {
    /// The record of `position`.
    pub fn pack(position: &Position) -> PackedGoPosition {
        PackedGoPosition {
            black: split_words(&position.stone_words(Color::Black)),
            white: split_words(&position.stone_words(Color::White)),
            ko: position.ko_bit().unwrap_or(NO_POINT),
            to_move: position.to_move().index() as u32,
            size: position.size(),
            reserved: 0,
        }
    }
}

/// `GoMovesRecord` in shaders/go/kernels/legal.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GoMovesRecord {
    /// The legal points of the side to move.
    pub legal: [u32; PACKED_WORDS],
    /// The points a playout may choose: legal, and not the mover's own eyes.
    pub playout: [u32; PACKED_WORDS],
}

/// `GoPlayoutState` in shaders/go/kernels/playouts.wgsl: a playout between
/// dispatches, and at its end its result.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GoPlayoutState {
    /// The position the playout has reached.
    pub position: PackedGoPosition,
    /// The playout's random generator state.
    pub random: u32,
    /// Passes in a row (two end the playout).
    pub passes: u32,
    /// Moves played, passes included.
    pub moves: u32,
    /// At the end, black's area minus white's, before komi.
    pub area_difference: i32,
}

const _: () = assert!(size_of::<GoPlayoutState>() == 128);
