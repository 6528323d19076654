//! The engine's board: eight bitboards, the castling rights and the en
//! passant square, copied per move; and the side to move as a type, so
//! that every pawn shift and table row is fixed when the code is compiled.

use crate::chess::board::{CastlingRights, CastlingSide, Color};
use crate::chess::position::Position;

pub(super) const PAWN: usize = 0;
pub(super) const KNIGHT: usize = 1;
pub(super) const BISHOP: usize = 2;
pub(super) const ROOK: usize = 3;
pub(super) const QUEEN: usize = 4;
pub(super) const KING: usize = 5;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;

/// A position without its side to move (the caller's type parameter) and
/// without move counters, which perft never reads.
#[derive(Clone, Copy)]
pub(super) struct Node {
    /// Both colours' pieces of each kind, in `Piece` order.
    pub(super) pieces: [u64; 6],
    pub(super) colors: [u64; 2],
    pub(super) castling: CastlingRights,
    /// The square a double push just skipped, as a bit; 0 when none.
    pub(super) en_passant: u64,
}

impl Node {
    pub(super) fn of(position: &Position) -> Node {
        let pieces = crate::chess::board::Piece::ALL.map(|piece| position.pieces(piece).0);
        Node {
            pieces,
            colors: [position.colored(Color::White).0, position.colored(Color::Black).0],
            castling: position.castling_rights(),
            en_passant: position.en_passant().map_or(0, |square| 1u64 << square as u8),
        }
    }

    /// `piece` of the side to move goes from one square to another, taking
    /// whatever stands there.
    #[inline(always)]
    pub(super) fn moved<C: Side>(&self, piece: usize, from: u64, to: u64) -> Node {
        let mut child = *self;
        let touched = from | to;
        for set in &mut child.pieces {
            *set &= !to;
        }
        child.pieces[piece] ^= touched;
        child.colors[C::US] ^= touched;
        child.colors[C::THEM] &= !to;
        // Moving from or capturing on a castling rook's square drops its right.
        child.castling = self.castling.without_squares(touched);
        child.en_passant = 0;
        child
    }

    /// [`Node::moved`] for a move that captures nothing.
    #[inline(always)]
    pub(super) fn moved_quietly<C: Side>(&self, piece: usize, from: u64, to: u64) -> Node {
        let mut child = *self;
        let touched = from | to;
        child.pieces[piece] ^= touched;
        child.colors[C::US] ^= touched;
        child.castling = self.castling.without_squares(from);
        child.en_passant = 0;
        child
    }

    #[inline(always)]
    pub(super) fn king_moved<C: Side>(&self, from: u64, to: u64) -> Node {
        let mut child = self.moved::<C>(KING, from, to);
        child.castling = child.castling.without_color(C::COLOR);
        child
    }

    /// Castling as king takes rook; in Chess960 the king's and the rook's
    /// squares may overlap their destinations, which the exclusive-ors allow.
    #[inline(always)]
    pub(super) fn castled<C: Side>(&self, king: usize, rook: usize) -> Node {
        let (king_file, rook_file) = CastlingSide::of((king & 7) as u8, (rook & 7) as u8).destination_files();
        let rank_base = king & !7;
        let king_to = 1u64 << (rank_base + usize::from(king_file));
        let rook_to = 1u64 << (rank_base + usize::from(rook_file));
        let (king_bit, rook_bit) = (1u64 << king, 1u64 << rook);
        let mut child = *self;
        child.pieces[KING] ^= king_bit ^ king_to;
        child.pieces[ROOK] ^= rook_bit ^ rook_to;
        child.colors[C::US] ^= king_bit ^ king_to ^ rook_bit ^ rook_to;
        child.castling = self.castling.without_color(C::COLOR);
        child.en_passant = 0;
        child
    }

    #[inline(always)]
    pub(super) fn double_pushed<C: Side>(&self, from: u64, to: u64) -> Node {
        let mut child = self.moved_quietly::<C>(PAWN, from, to);
        child.en_passant = C::behind(to, 8);
        child
    }

    #[inline(always)]
    pub(super) fn promoted<C: Side>(&self, from: u64, to: u64, piece: usize) -> Node {
        let mut child = self.moved::<C>(PAWN, from, to);
        child.pieces[PAWN] ^= to;
        child.pieces[piece] |= to;
        child
    }

    #[inline(always)]
    pub(super) fn captured_en_passant<C: Side>(&self, from: u64, to: u64) -> Node {
        let victim = C::behind(to, 8);
        let mut child = self.moved_quietly::<C>(PAWN, from, to);
        child.pieces[PAWN] &= !victim;
        child.colors[C::THEM] &= !victim;
        child
    }
}

/// The side to move, with its pawns' geometry.
pub(super) trait Side {
    const COLOR: Color;
    const US: usize;
    const THEM: usize;
    /// The side's first rank (a horde's pawns may stand there).
    const FIRST_RANK: u64;
    /// The rank a single push from the pawns' first rank lands on.
    const THIRD_RANK: u64;
    const LAST_RANK: u64;
    /// Square-index distances of a capture towards file a and towards file h.
    const WEST: u32;
    const EAST: u32;
    type Other: Side;

    /// Every bit one rank forward.
    fn forward(bits: u64) -> u64;
    /// Every bit `distance` squares backward (towards this side's first rank).
    fn behind(bits: u64, distance: u32) -> u64;
    /// Pawn captures towards file a and towards file h.
    fn west(bits: u64) -> u64;
    fn east(bits: u64) -> u64;
}

pub(super) struct White;
pub(super) struct Black;

impl Side for White {
    const COLOR: Color = Color::White;
    const US: usize = 0;
    const THEM: usize = 1;
    const FIRST_RANK: u64 = 0xff;
    const THIRD_RANK: u64 = 0xff_0000;
    const LAST_RANK: u64 = 0xff00_0000_0000_0000;
    const WEST: u32 = 7;
    const EAST: u32 = 9;
    type Other = Black;

    #[inline(always)]
    fn forward(bits: u64) -> u64 {
        bits << 8
    }
    #[inline(always)]
    fn behind(bits: u64, distance: u32) -> u64 {
        bits >> distance
    }
    #[inline(always)]
    fn west(bits: u64) -> u64 {
        (bits & !FILE_A) << 7
    }
    #[inline(always)]
    fn east(bits: u64) -> u64 {
        (bits & !FILE_H) << 9
    }
}

impl Side for Black {
    const COLOR: Color = Color::Black;
    const US: usize = 1;
    const THEM: usize = 0;
    const FIRST_RANK: u64 = 0xff00_0000_0000_0000;
    const THIRD_RANK: u64 = 0xff00_0000_0000;
    const LAST_RANK: u64 = 0xff;
    const WEST: u32 = 9;
    const EAST: u32 = 7;
    type Other = White;

    #[inline(always)]
    fn forward(bits: u64) -> u64 {
        bits >> 8
    }
    #[inline(always)]
    fn behind(bits: u64, distance: u32) -> u64 {
        bits << distance
    }
    #[inline(always)]
    fn west(bits: u64) -> u64 {
        (bits & !FILE_A) >> 9
    }
    #[inline(always)]
    fn east(bits: u64) -> u64 {
        (bits & !FILE_H) >> 7
    }
}

/// The square of a one-bit set. The mask tells the compiler the square is
/// below 64, which lifts the bounds checks off every table look-up.
#[inline(always)]
pub(super) fn square_of(bit: u64) -> usize {
    bit.trailing_zeros() as usize & 63
}

/// Bits of a set, lowest first, as one-bit sets.
#[inline(always)]
pub(super) fn bits(mut set: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let lowest = set & set.wrapping_neg();
        set ^= lowest;
        Some(lowest)
    })
}
