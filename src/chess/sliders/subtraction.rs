//! Fill by subtraction: towards higher squares a ray's attacks are
//! `ray & (o ^ (o - 2r))` with `o` the ray's occupancy, since the borrow runs
//! from the slider up to the first blocker. Towards lower squares no
//! subtraction works, so the negative rays are completed the classical way:
//! the nearest blocker is the highest occupied ray square (one bit scan), and
//! the attacks are the ray minus the blocker's own ray beyond it.
//! `east_attacks_setwise` is the SWAR form of fill by subtraction for many rooks at once.
//! CPU twin of `shaders/chess/sliders/subtraction.wgsl`.

use crate::chess::tables::RAYS;

/// Rays towards higher squares: north, east, north-east, north-west.
const POSITIVE: [usize; 4] = [0, 1, 2, 3];
/// Rays towards lower squares: south, west, south-west, south-east.
const NEGATIVE: [usize; 4] = [4, 5, 6, 7];

#[inline]
fn positive_ray(square: u8, occupied: u64, direction: usize) -> u64 {
    let ray = RAYS[direction][square as usize];
    let blockers = occupied & ray;
    let twice_slider = (1u64 << square).wrapping_mul(2);
    ray & (blockers ^ blockers.wrapping_sub(twice_slider))
}

#[inline]
fn negative_ray(square: u8, occupied: u64, direction: usize) -> u64 {
    let ray = RAYS[direction][square as usize];
    let blockers = occupied & ray;
    if blockers == 0 {
        return ray;
    }
    let nearest = 63 - blockers.leading_zeros();
    ray ^ RAYS[direction][nearest as usize]
}

/// The attacks along two lines through `square`: positive and negative
/// rays `first` and `first + 1` (0: the rook's lines, 2: the bishop's).
#[inline]
fn two_lines(square: u8, occupied: u64, first: usize) -> u64 {
    positive_ray(square, occupied, POSITIVE[first])
        | positive_ray(square, occupied, POSITIVE[first + 1])
        | negative_ray(square, occupied, NEGATIVE[first])
        | negative_ray(square, occupied, NEGATIVE[first + 1])
}

/// The rook's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    two_lines(square, occupied, 0)
}

/// The bishop's attacks from `square` over `occupied`, blockers included.
#[inline]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    two_lines(square, occupied, 2)
}

/// East attacks of every rook in `rooks` at once: the h-file
/// squares stop each rank's borrow, so one subtraction serves all eight ranks.
#[inline]
pub fn east_attacks_setwise(rooks: u64, empty: u64) -> u64 {
    const FILE_H: u64 = 0x8080_8080_8080_8080;
    let occupied_with_rooks = rooks | !empty | FILE_H;
    let movable = rooks & !FILE_H;
    let occupied_without_rooks = movable ^ occupied_with_rooks;
    occupied_without_rooks.wrapping_sub(movable) ^ occupied_with_rooks
}
