//! Sliding-piece attacks, several ways. `classical` is the independent
//! reference; `magic` is what the CPU generator uses for speed; the others
//! are CPU twins of the WGSL slider modules the GPU pipelines choose from
//! (see [`SliderAlgorithm`]). Tests hold them all equal.

pub mod classical;
pub mod dumb7fill;
pub mod hyperbola;
pub mod kogge_stone;
pub mod magic;
pub mod magic_search;
pub mod pext;
pub mod sbamg;
pub mod subtraction;

/// The ways of computing sliding attacks that the GPU pipelines offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SliderAlgorithm {
    /// The vectorised four-lane Kogge-Stone fill (three doubling steps).
    #[default]
    KoggeStone,
    /// The same lanes filled by seven plain steps.
    Dumb7Fill,
    /// Hyperbola Quintessence: `o - 2r` forwards and on the mirrored board.
    Hyperbola,
    /// Subtraction-based attack mask generation, all four lines.
    Sbamg,
    /// Fill by subtraction towards higher squares, bit scan towards lower.
    Subtraction,
    /// Fancy magic bitboards, tables in a storage buffer.
    Magic,
}

impl SliderAlgorithm {
    /// Every algorithm.
    pub const ALL: [SliderAlgorithm; 6] = [
        SliderAlgorithm::KoggeStone,
        SliderAlgorithm::Dumb7Fill,
        SliderAlgorithm::Hyperbola,
        SliderAlgorithm::Sbamg,
        SliderAlgorithm::Subtraction,
        SliderAlgorithm::Magic,
    ];

    /// The name the command line uses.
    pub const fn name(self) -> &'static str {
        match self {
            SliderAlgorithm::KoggeStone => "kogge-stone",
            SliderAlgorithm::Dumb7Fill => "dumb7fill",
            SliderAlgorithm::Hyperbola => "hyperbola",
            SliderAlgorithm::Sbamg => "sbamg",
            SliderAlgorithm::Subtraction => "subtraction",
            SliderAlgorithm::Magic => "magic",
        }
    }

    /// Rook attacks by this algorithm's CPU twin.
    pub fn rook_attacks(self, square: u8, occupied: u64) -> u64 {
        match self {
            SliderAlgorithm::KoggeStone => kogge_stone::rook_attacks(square, occupied),
            SliderAlgorithm::Dumb7Fill => dumb7fill::rook_attacks(square, occupied),
            SliderAlgorithm::Hyperbola => hyperbola::rook_attacks(square, occupied),
            SliderAlgorithm::Sbamg => sbamg::rook_attacks(square, occupied),
            SliderAlgorithm::Subtraction => subtraction::rook_attacks(square, occupied),
            SliderAlgorithm::Magic => magic::rook_attacks(square, occupied),
        }
    }

    /// Bishop attacks by this algorithm's CPU twin.
    pub fn bishop_attacks(self, square: u8, occupied: u64) -> u64 {
        match self {
            SliderAlgorithm::KoggeStone => kogge_stone::bishop_attacks(square, occupied),
            SliderAlgorithm::Dumb7Fill => dumb7fill::bishop_attacks(square, occupied),
            SliderAlgorithm::Hyperbola => hyperbola::bishop_attacks(square, occupied),
            SliderAlgorithm::Sbamg => sbamg::bishop_attacks(square, occupied),
            SliderAlgorithm::Subtraction => subtraction::bishop_attacks(square, occupied),
            SliderAlgorithm::Magic => magic::bishop_attacks(square, occupied),
        }
    }
}

impl std::str::FromStr for SliderAlgorithm {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        SliderAlgorithm::ALL.into_iter().find(|algorithm| algorithm.name() == text).ok_or_else(|| {
            let names: Vec<&str> = SliderAlgorithm::ALL.iter().map(|algorithm| algorithm.name()).collect();
            format!("unknown slider algorithm '{text}'; expected one of {}", names.join(", "))
        })
    }
}

use crate::chess::board::{Bitboard, Square};

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
