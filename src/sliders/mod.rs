//! Sliding-piece attacks, several ways. `classical` is the independent
//! reference; `kogge_stone` is the CPU twin of the WGSL fill; `magic` is
//! what the CPU generator uses for speed. Tests hold them equal.

pub mod classical;
pub mod kogge_stone;
pub mod magic;
pub mod magic_search;

use crate::board::{Bitboard, Square};

/// Rook attacks, the fast CPU way.
#[inline(always)]
pub fn rook_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(magic::rook_attacks(square as u8, occupied.0))
}

/// Bishop attacks, the fast CPU way.
#[inline(always)]
pub fn bishop_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(magic::bishop_attacks(square as u8, occupied.0))
}

/// Queen attacks, the fast CPU way.
#[inline(always)]
pub fn queen_attacks(square: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(square, occupied) | bishop_attacks(square, occupied)
}
