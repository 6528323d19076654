//! Hyperbola Quintessence: along one line, `o - 2r` gives the attacks towards
//! higher squares; the same on the mirrored board gives those towards lower
//! squares. Files and diagonals mirror by a byte swap (a vertical flip);
//! ranks, which a vertical flip leaves in place, by reversing all 64 bits.
//! CPU twin of `shaders/chess/sliders/hyperbola.wgsl`.

use crate::chess::tables::LINE_MASKS;

const RANK: usize = 0;
const FILE: usize = 1;
const DIAGONAL: usize = 2;
const ANTI_DIAGONAL: usize = 3;

#[inline]
fn line_attacks(square: u8, occupied: u64, kind: usize, mirror: fn(u64) -> u64) -> u64 {
    let mask = LINE_MASKS[kind][square as usize];
    let slider = 1u64 << square;
    let line = occupied & mask;
    let forward = line.wrapping_sub(slider.wrapping_mul(2));
    let reverse = mirror(mirror(line).wrapping_sub(mirror(slider).wrapping_mul(2)));
    (forward ^ reverse) & mask
}

/// The rook's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    line_attacks(square, occupied, RANK, u64::reverse_bits) | line_attacks(square, occupied, FILE, u64::swap_bytes)
}

/// The bishop's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    line_attacks(square, occupied, DIAGONAL, u64::swap_bytes)
        | line_attacks(square, occupied, ANTI_DIAGONAL, u64::swap_bytes)
}
