//! The vectorised Kogge-Stone fill of the OpenCL generator this crate ports, written lane by lane
//! exactly as `shaders/chess/kogge_stone.wgsl` runs it: four lanes for the shifts
//! 9, 1, 7 and 8, filled once towards higher squares (left shifts) and once
//! towards lower squares (right shifts), with wrap masks that stop a shift
//! from crossing the board edge. This is the CPU twin of the shader, kept in
//! the shader's shape rather than the fastest Rust.

const NOT_FILE_A: u64 = !0x0101_0101_0101_0101;
const NOT_FILE_H: u64 = !0x8080_8080_8080_8080;
const NOT_RANK_1: u64 = !0xff;
const NOT_RANK_8: u64 = !0xff00_0000_0000_0000;

/// Shift per lane: north-east, east, north-west, north (seed: `shift4`).
pub const SHIFTS: [u32; 4] = [9, 1, 7, 8];

/// Squares a left shift may land on, per lane (seed: `wraps4[0]`).
pub const LEFT_WRAPS: [u64; 4] = [
    NOT_FILE_A & NOT_RANK_1, // << 9 must not land on the a-file
    NOT_FILE_A,              // << 1
    NOT_FILE_H & NOT_RANK_1, // << 7 must not land on the h-file
    NOT_RANK_1,              // << 8
];

/// Squares a right shift may land on, per lane (seed: `wraps4[1]`).
pub const RIGHT_WRAPS: [u64; 4] = [
    NOT_FILE_H & NOT_RANK_8, // >> 9 must not land on the h-file
    NOT_FILE_H,              // >> 1
    NOT_FILE_A & NOT_RANK_8, // >> 7 must not land on the a-file
    NOT_RANK_8,              // >> 8
];

pub(crate) type Lanes = [u64; 4];

#[inline]
pub(crate) fn shift_left(lanes: Lanes, factor: u32) -> Lanes {
    [
        lanes[0] << (SHIFTS[0] * factor),
        lanes[1] << (SHIFTS[1] * factor),
        lanes[2] << (SHIFTS[2] * factor),
        lanes[3] << (SHIFTS[3] * factor),
    ]
}

#[inline]
pub(crate) fn shift_right(lanes: Lanes, factor: u32) -> Lanes {
    [
        lanes[0] >> (SHIFTS[0] * factor),
        lanes[1] >> (SHIFTS[1] * factor),
        lanes[2] >> (SHIFTS[2] * factor),
        lanes[3] >> (SHIFTS[3] * factor),
    ]
}

#[inline]
pub(crate) fn and(left: Lanes, right: Lanes) -> Lanes {
    [left[0] & right[0], left[1] & right[1], left[2] & right[2], left[3] & right[3]]
}

#[inline]
pub(crate) fn or(left: Lanes, right: Lanes) -> Lanes {
    [left[0] | right[0], left[1] | right[1], left[2] | right[2], left[3] | right[3]]
}

#[inline]
pub(crate) fn lanes_union(lanes: Lanes) -> u64 {
    lanes[0] | lanes[1] | lanes[2] | lanes[3]
}

/// Kogge-Stone: the generator spreads through the propagator in doubling
/// steps of 1, 2 and 4 shifts, then one more shift adds the squares the
/// rays hit (the first blocker, which may be a capture).
#[inline]
fn fill(sliders: u64, empty: u64, wraps: Lanes, shift: fn(Lanes, u32) -> Lanes) -> u64 {
    let mut generator: Lanes = [sliders; 4];
    let mut propagator: Lanes = and([empty; 4], wraps);
    generator = or(generator, and(propagator, shift(generator, 1)));
    propagator = and(propagator, shift(propagator, 1));
    generator = or(generator, and(propagator, shift(generator, 2)));
    propagator = and(propagator, shift(propagator, 2));
    generator = or(generator, and(propagator, shift(generator, 4)));
    generator = and(wraps, shift(generator, 1));
    lanes_union(generator)
}

/// Attacks in all eight directions of every square in `sliders`, with the
/// squares in `empty` letting rays through (set-wise, as the vectorised generator uses it).
#[inline]
pub fn queen_attacks_setwise(sliders: u64, empty: u64) -> u64 {
    both_halves(fill, sliders, empty)
}

/// A fill of one half's four lanes: the sliders spread through `empty`,
/// the wrap masks and the shift saying which half.
pub(crate) type LaneFill = fn(u64, u64, Lanes, fn(Lanes, u32) -> Lanes) -> u64;

/// The eight directions' attacks of `sliders` by `fill`: the left shifts'
/// four lanes, then the right shifts'.
#[inline(always)]
pub(crate) fn both_halves(fill: LaneFill, sliders: u64, empty: u64) -> u64 {
    fill(sliders, empty, LEFT_WRAPS, shift_left) | fill(sliders, empty, RIGHT_WRAPS, shift_right)
}

/// The attacks of one slider on `square` from a set-wise fill, masked to
/// its piece's `rays`.
#[inline(always)]
pub(crate) fn one_slider(queen_setwise: fn(u64, u64) -> u64, square: u8, occupied: u64, rays: &[u64; 64]) -> u64 {
    queen_setwise(1 << square, !occupied) & rays[square as usize]
}

/// Rook attacks from `square` given the occupied squares.
#[inline]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    one_slider(queen_attacks_setwise, square, occupied, &crate::chess::tables::ROOK_RAYS)
}

/// Bishop attacks from `square` given the occupied squares.
#[inline]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    one_slider(queen_attacks_setwise, square, occupied, &crate::chess::tables::BISHOP_RAYS)
}

/// Queen attacks from `square` given the occupied squares.
#[inline]
pub fn queen_attacks(square: u8, occupied: u64) -> u64 {
    queen_attacks_setwise(1 << square, !occupied)
}
