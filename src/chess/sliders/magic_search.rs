//! Finds "fancy" magic multipliers for rook and bishop attacks and fills
//! their lookup table. build.rs runs this code (the same file) and writes the
//! result into the crate, so the tables are computed, never pasted in.
//!
//! Plain `u64` code with no dependencies, so that build.rs can include it.

use super::classical;

/// One square's entry: `table[offset + ((occupied & mask) * magic) >> shift]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MagicEntry {
    /// The relevant occupancy: the rays without their last square.
    pub mask: u64,
    /// The multiplier.
    pub magic: u64,
    /// The right shift after the multiplication.
    pub shift: u32,
    /// Where this square's attack sets start in the shared table.
    pub offset: u32,
}

/// The occupancy bits that can change the attacks of a slider on `square`:
/// its empty-board rays without the last square of each ray.
pub fn relevant_mask(square: u8, rook: bool) -> u64 {
    let directions = if rook { classical::ROOK_DIRECTIONS } else { classical::BISHOP_DIRECTIONS };
    let mut mask = 0;
    for (file_step, rank_step) in directions {
        let ray = classical::ray_attacks(square, 0, file_step, rank_step);
        if ray == 0 {
            continue;
        }
        // The farthest square: the highest bit for rays that walk up the
        // index order, the lowest for rays that walk down.
        let last =
            if rank_step * 8 + file_step > 0 { 1u64 << (63 - ray.leading_zeros()) } else { ray & ray.wrapping_neg() };
        mask |= ray & !last;
    }
    mask
}

fn slider_attacks(square: u8, occupied: u64, rook: bool) -> u64 {
    if rook { classical::rook_attacks(square, occupied) } else { classical::bishop_attacks(square, occupied) }
}

/// xorshift64*: a small fixed-seed generator, so every build finds the same magics.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Magics with few set bits are found far sooner.
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Finds a magic for every square and returns the entries with the shared
/// attack table they index into.
pub fn find_magics(rook: bool) -> ([MagicEntry; 64], Vec<u64>) {
    let mut entries = [MagicEntry { mask: 0, magic: 0, shift: 0, offset: 0 }; 64];
    let mut table = Vec::new();
    let mut random = Xorshift(if rook { 0x005e_ed0f_2007_c0de } else { 0x00b1_54a0_2007_c0de });
    for square in 0..64u8 {
        let mask = relevant_mask(square, rook);
        let bits = mask.count_ones();
        let size = 1usize << bits;
        // Every subset of the mask (carry-rippler enumeration) and its attacks.
        let mut occupancies = Vec::with_capacity(size);
        let mut attacks = Vec::with_capacity(size);
        let mut subset = 0u64;
        loop {
            occupancies.push(subset);
            attacks.push(slider_attacks(square, subset, rook));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let shift = 64 - bits;
        let mut slots = vec![0u64; size];
        let mut stamped = vec![0u32; size];
        let mut attempt = 0u32;
        let magic = loop {
            attempt += 1;
            let candidate = random.sparse();
            // Cheap filter: the top byte of mask * magic should be dense.
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            let mut works = true;
            for (occupancy, attack) in occupancies.iter().zip(&attacks) {
                let index = (occupancy.wrapping_mul(candidate) >> shift) as usize;
                if stamped[index] != attempt {
                    stamped[index] = attempt;
                    slots[index] = *attack;
                } else if slots[index] != *attack {
                    works = false;
                    break;
                }
            }
            if works {
                break candidate;
            }
        };
        let offset = table.len();
        table.resize(offset + size, 0);
        for (occupancy, attack) in occupancies.iter().zip(&attacks) {
            let index = (occupancy.wrapping_mul(magic) >> shift) as usize;
            table[offset + index] = *attack;
        }
        entries[square as usize] = MagicEntry { mask, magic, shift, offset: offset as u32 };
    }
    (entries, table)
}

/// One square's entry in the PEXT tables: `table[offset + pext(occupied, mask)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PextEntry {
    /// The relevant occupancy, whose bits PEXT gathers.
    pub mask: u64,
    /// Where this square's attack sets start in the shared table.
    pub offset: u32,
}

/// The PEXT layout: every subset of a square's mask at the index that
/// `pext(subset, mask)` gives. The carry-rippler walk visits the subsets in
/// exactly that order (it counts in binary over the mask's bits), so the
/// table is filled without the instruction.
pub fn pext_tables(rook: bool) -> ([PextEntry; 64], Vec<u64>) {
    let mut entries = [PextEntry { mask: 0, offset: 0 }; 64];
    let mut table = Vec::new();
    for square in 0..64u8 {
        let mask = relevant_mask(square, rook);
        entries[square as usize] = PextEntry { mask, offset: table.len() as u32 };
        let mut subset = 0u64;
        loop {
            table.push(slider_attacks(square, subset, rook));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
    }
    (entries, table)
}
