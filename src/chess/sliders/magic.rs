//! Fancy magic bitboards: the CPU generator's fast sliders. The multipliers
//! and the table come from build.rs, which runs `magic_search`.

use super::magic_search::MagicEntry;

include!(concat!(env!("OUT_DIR"), "/magic_tables.rs"));

#[inline(always)]
fn lookup(entry: &MagicEntry, occupied: u64) -> u64 {
    let index = ((occupied & entry.mask).wrapping_mul(entry.magic) >> entry.shift) as usize;
    SLIDER_TABLE[entry.offset as usize + index]
}

/// Rook attacks from `square` (0..64) given the occupied squares.
#[inline(always)]
pub fn rook_attacks(square: u8, occupied: u64) -> u64 {
    lookup(&ROOK_MAGICS[square as usize & 63], occupied)
}

/// Bishop attacks from `square` (0..64) given the occupied squares.
#[inline(always)]
pub fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    lookup(&BISHOP_MAGICS[square as usize & 63], occupied)
}

/// The number of entries in the shared rook and bishop table.
pub const TABLE_LEN: usize = SLIDER_TABLE.len();
