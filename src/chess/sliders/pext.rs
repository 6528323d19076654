//! PEXT slider tables: BMI2's `pext` packs the occupied squares under a
//! square's mask into a dense index, so no multiplier is needed. The tables
//! come from build.rs (`magic_search::pext_tables`). Only the CPU perft
//! engine's BMI2 path looks them up, and only where the processor has the
//! instruction; [`software_pext`] lets tests check the tables anywhere.

use super::magic_search::PextEntry;

include!(concat!(env!("OUT_DIR"), "/pext_tables.rs"));

/// # Safety
/// The processor must have BMI2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn lookup(entry: &PextEntry, occupied: u64) -> u64 {
    // SAFETY: the caller vouches for BMI2; `pext` under a mask of n bits is
    // below 2^n, and build.rs gives each square 2^n entries from its offset.
    unsafe {
        let index = std::arch::x86_64::_pext_u64(occupied, entry.mask) as usize;
        *PEXT_TABLE.get_unchecked(entry.offset as usize + index)
    }
}

/// Rook attacks from `square` (0..64).
///
/// # Safety
/// The processor must have BMI2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn rook_attacks(square: u8, occupied: u64) -> u64 {
    // SAFETY: the caller vouches for BMI2.
    unsafe { lookup(&ROOK_PEXT[square as usize & 63], occupied) }
}

/// Bishop attacks from `square` (0..64).
///
/// # Safety
/// The processor must have BMI2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    // SAFETY: the caller vouches for BMI2.
    unsafe { lookup(&BISHOP_PEXT[square as usize & 63], occupied) }
}

/// What `pext` computes, bit by bit: the bits of `value` under `mask`,
/// packed towards bit 0.
pub fn software_pext(value: u64, mut mask: u64) -> u64 {
    let mut packed = 0;
    let mut bit = 0;
    while mask != 0 {
        let lowest = mask & mask.wrapping_neg();
        if value & lowest != 0 {
            packed |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    packed
}

/// Rook attacks through the PEXT tables on any processor (slow; for tests).
pub fn rook_attacks_portable(square: u8, occupied: u64) -> u64 {
    portable_lookup(&ROOK_PEXT[square as usize & 63], occupied)
}

/// Bishop attacks through the PEXT tables on any processor (slow; for tests).
pub fn bishop_attacks_portable(square: u8, occupied: u64) -> u64 {
    portable_lookup(&BISHOP_PEXT[square as usize & 63], occupied)
}

fn portable_lookup(entry: &PextEntry, occupied: u64) -> u64 {
    PEXT_TABLE[entry.offset as usize + software_pext(occupied, entry.mask) as usize]
}
