//! Shogi's sliding attacks two ways, measured against each other in the
//! throughput example: the ray tables with a bit scan for the nearest
//! blocker (what move generation uses, `movegen::attacks`), and the
//! vectorised Kogge-Stone fill carried to the nine-by-nine board. Square
//! indices grow eastwards along a rank (from file 9 to file 1) and
//! southwards from rank a, so a step east is +1, south +9, south-east +10
//! and south-west +8; the fill's wrap masks keep a step from leaving one
//! side of the board and entering the other.

use super::board::Bitboard;

/// Every square but those of column 0 (file 9): where an eastward step may land.
const NOT_FIRST_COLUMN: u128 = Bitboard::ALL.0 & !Bitboard::column(0).0;
/// Every square but those of column 8 (file 1): where a westward step may land.
const NOT_LAST_COLUMN: u128 = Bitboard::ALL.0 & !Bitboard::column(8).0;

/// The eight directions as (shift, towards higher squares, wrap mask), in the
/// order of the ray tables: north, south, west, east, north-west, north-east,
/// south-west, south-east.
pub const DIRECTIONS: [(u32, bool, u128); 8] = [
    (9, false, Bitboard::ALL.0),
    (9, true, Bitboard::ALL.0),
    (1, false, NOT_LAST_COLUMN),
    (1, true, NOT_FIRST_COLUMN),
    (10, false, NOT_LAST_COLUMN),
    (8, false, NOT_FIRST_COLUMN),
    (8, true, NOT_LAST_COLUMN),
    (10, true, NOT_FIRST_COLUMN),
];

#[inline(always)]
fn shift(bits: u128, amount: u32, up: bool) -> u128 {
    if up { bits << amount } else { bits >> amount }
}

/// Kogge-Stone occluded fill of `generators` through `empty` in one
/// direction, doubling steps 1, 2, 4 (a ray is at most eight squares), then
/// one more step for the squares the rays hit.
#[inline(always)]
pub fn fill(generators: u128, empty: u128, direction: usize) -> u128 {
    let (step, up, wrap) = DIRECTIONS[direction];
    let mut generator = generators;
    let mut propagator = empty & wrap;
    generator |= propagator & shift(generator, step, up);
    propagator &= shift(propagator, step, up);
    generator |= propagator & shift(generator, 2 * step, up);
    propagator &= shift(propagator, 2 * step, up);
    generator |= propagator & shift(generator, 4 * step, up);
    shift(generator, step, up) & wrap & Bitboard::ALL.0
}

/// Rook attacks from `square` by the fill.
pub fn rook_attacks(square: u8, occupied: Bitboard) -> Bitboard {
    let (generator, empty) = (1u128 << square, !occupied.0 & Bitboard::ALL.0);
    Bitboard((0..4).fold(0, |attacks, direction| attacks | fill(generator, empty, direction)))
}

/// Bishop attacks from `square` by the fill.
pub fn bishop_attacks(square: u8, occupied: Bitboard) -> Bitboard {
    let (generator, empty) = (1u128 << square, !occupied.0 & Bitboard::ALL.0);
    Bitboard((4..8).fold(0, |attacks, direction| attacks | fill(generator, empty, direction)))
}
