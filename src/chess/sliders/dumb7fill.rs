//! Dumb7Fill: the Kogge-Stone lanes (shifts 9, 1, 7, 8, left and right, the
//! same wrap masks) filled by seven plain steps instead of three doubling
//! ones. Fewer operations per step, more steps. CPU twin of
//! `shaders/chess/sliders/dumb7fill.wgsl`.

use super::kogge_stone::{Lanes, and, both_halves, lanes_union, one_slider, or};
use crate::chess::tables::{BISHOP_RAYS, ROOK_RAYS};

#[inline]
fn fill(sliders: u64, empty: u64, wraps: Lanes, shift: fn(Lanes, u32) -> Lanes) -> u64 {
    let mut flood: Lanes = [sliders; 4];
    let propagator = and([empty; 4], wraps);
    // Six steps through empty squares, the seventh onto the square each ray hits.
    for _ in 0..6 {
        flood = or(flood, and(propagator, shift(flood, 1)));
    }
    lanes_union(and(wraps, shift(flood, 1)))
}

/// Attacks in all eight directions of every square in `sliders`, `empty`
/// letting rays through (set-wise).
#[inline]
pub fn queen_attacks_setwise(sliders: u64, empty: u64) -> u64 {
    both_halves(fill, sliders, empty)
}

/// The rook's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    one_slider(queen_attacks_setwise, square, occupied, &ROOK_RAYS)
}

/// The bishop's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    one_slider(queen_attacks_setwise, square, occupied, &BISHOP_RAYS)
}
