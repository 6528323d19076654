//! SBAMG, subtraction-based attack mask generation, for ranks and
//! files as the SBAMG description gives it and extended to both diagonals: with the line's
//! ends added to the occupancy, the nearest blocker at or below the slider
//! is `b = msb(occupied & squares up to the slider)`, and subtracting
//! `3 << b` from the line's occupancy flips every square from `b` to the
//! nearest blocker above: exactly the attacks, once masked by the line.
//! No branches, one bit scan per line. CPU twin of `shaders/chess/sliders/sbamg.wgsl`.

use crate::chess::tables::{LINE_MASKS, SBAMG_OUTER_SQUARES};

#[inline]
fn line_attacks(square: u8, occupied: u64, kind: usize) -> u64 {
    let mask = LINE_MASKS[kind][square as usize];
    let line = (occupied & mask) | SBAMG_OUTER_SQUARES[kind][square as usize];
    // Squares up to and including the slider: the outer squares guarantee one is set.
    let at_or_below = (2u64 << square).wrapping_sub(1);
    let lower_blocker = 63 - (line & at_or_below).leading_zeros();
    (line.wrapping_sub(3u64 << lower_blocker) ^ line) & mask
}

/// The rook's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    line_attacks(square, occupied, 0) | line_attacks(square, occupied, 1)
}

/// The bishop's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    line_attacks(square, occupied, 2) | line_attacks(square, occupied, 3)
}
