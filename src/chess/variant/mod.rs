//! The seven lichess chess variants, with lichess's rules (python-chess's
//! `chess.variant` and shakmaty agree with them): antichess, atomic, king of
//! the hill, three-check, horde, racing kings and crazyhouse, and standard
//! chess in the same clothes.
//!
//! A [`VariantPosition`] is a chess board ([`Position`], whose invariants a
//! variant may break: a horde has no white king, antichess any number of
//! kings, crazyhouse more material than a side starts with) and what the
//! variant adds: the checks each side still needs in three-check, the
//! pockets and the promoted pieces in crazyhouse. Its FEN is read and written
//! in `fen`, its rules are in `rules` (legal moves, playing one, the end of
//! a game by a variant's rule), and perft is in `perft`.
//!
//! A position whose game has ended by its variant's rule (a king on the
//! hill, a third check, an exploded king, no pieces left) has no legal
//! moves, so perft below it is 0, as in shakmaty and python-chess.

pub mod env;
mod fen;
mod perft;
mod rules;

use std::fmt;
use std::str::FromStr;

use crate::chess::board::{Bitboard, Color, Piece};
use crate::chess::position::Position;

pub use perft::{
    ChessVariants, divide, divide_stats, perft, perft_by_rules, perft_parallel, perft_parallel_until, perft_stats,
    random_positions,
};
pub use rules::{MAX_VARIANT_MOVES, VariantMoveList};

/// A chess variant, by its UCI_Variant name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Variant {
    /// Standard chess (and Chess960).
    #[default]
    Chess,
    /// Antichess (giveaway): captures are compulsory, the king is an ordinary
    /// piece, a side with no pieces or no moves has won.
    Antichess,
    /// Atomic: a capture explodes the capturer and every piece but pawns
    /// next to the capture square.
    Atomic,
    /// King of the hill: a king on d4, e4, d5 or e5 wins.
    KingOfTheHill,
    /// Three-check: the third check wins.
    ThreeCheck,
    /// Horde: White's 36 pawns and no king against Black's army.
    Horde,
    /// Racing kings: no check may be given; the first king on the eighth rank wins.
    RacingKings,
    /// Crazyhouse: captured pieces go to the captor's pocket and may be dropped.
    Crazyhouse,
}

impl Variant {
    /// Every variant, standard chess first.
    pub const ALL: [Variant; 8] = [
        Variant::Chess,
        Variant::Antichess,
        Variant::Atomic,
        Variant::KingOfTheHill,
        Variant::ThreeCheck,
        Variant::Horde,
        Variant::RacingKings,
        Variant::Crazyhouse,
    ];

    /// The seven variants besides standard chess.
    pub const VARIANTS: [Variant; 7] = {
        let mut variants = [Variant::Chess; 7];
        let mut index = 0;
        while index < variants.len() {
            variants[index] = Variant::ALL[index + 1];
            index += 1;
        }
        variants
    };

    /// The UCI_Variant name (Fairy-Stockfish, python-chess): `chess`,
    /// `antichess`, `atomic`, `kingofthehill`, `3check`, `horde`,
    /// `racingkings`, `crazyhouse`.
    pub const fn uci_name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Antichess => "antichess",
            Variant::Atomic => "atomic",
            Variant::KingOfTheHill => "kingofthehill",
            Variant::ThreeCheck => "3check",
            Variant::Horde => "horde",
            Variant::RacingKings => "racingkings",
            Variant::Crazyhouse => "crazyhouse",
        }
    }

    /// lichess's name: `standard`, `antichess`, `atomic`, `kingOfTheHill`,
    /// `threeCheck`, `horde`, `racingKings`, `crazyhouse`.
    pub const fn lichess_name(self) -> &'static str {
        match self {
            Variant::Chess => "standard",
            Variant::Antichess => "antichess",
            Variant::Atomic => "atomic",
            Variant::KingOfTheHill => "kingOfTheHill",
            Variant::ThreeCheck => "threeCheck",
            Variant::Horde => "horde",
            Variant::RacingKings => "racingKings",
            Variant::Crazyhouse => "crazyhouse",
        }
    }

    /// The variant of a UCI_Variant name or lichess name, in any case.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|variant| {
            name.eq_ignore_ascii_case(variant.uci_name()) || name.eq_ignore_ascii_case(variant.lichess_name())
        })
    }

    /// The FEN of the variant's start position.
    pub const fn start_fen(self) -> &'static str {
        match self {
            Variant::Antichess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            Variant::ThreeCheck => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1",
            Variant::Horde => "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
            Variant::RacingKings => "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1",
            Variant::Crazyhouse => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
            Variant::Chess | Variant::Atomic | Variant::KingOfTheHill => {
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
            }
        }
    }

    /// Whether each side has exactly one king that must not be left in
    /// check: every variant but antichess (no royal king), atomic (its own
    /// check rules) and horde (no white king).
    pub const fn has_royal_kings(self) -> bool {
        !matches!(self, Variant::Antichess | Variant::Atomic | Variant::Horde)
    }

    /// The names every variant answers to, for messages.
    pub fn names() -> String {
        Variant::ALL.iter().map(|variant| variant.uci_name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.uci_name())
    }
}

/// A name that is no variant's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown chess variant '{0}'; expected one of chess, antichess, atomic, kingofthehill, 3check, horde, \
     racingkings, crazyhouse (or lichess's names: standard, kingOfTheHill, threeCheck, racingKings)"
)]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Variant::from_name(name).ok_or_else(|| UnknownVariant(name.to_owned()))
    }
}

/// A crazyhouse pocket: how many pawns, knights, bishops, rooks and queens
/// one side may drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pocket(pub [u8; 5]);

impl Pocket {
    /// The pieces a pocket may hold, in index order.
    pub const PIECES: [Piece; 5] = [Piece::Pawn, Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen];

    /// How many of `piece` the pocket holds (0 for a king).
    #[inline]
    pub fn count(&self, piece: Piece) -> u8 {
        self.0.get(piece.index()).copied().unwrap_or(0)
    }

    /// The pieces in the pocket, all kinds together.
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&count| u32::from(count)).sum()
    }

    /// Whether the pocket is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 5]
    }
}

/// A position of a chess variant (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariantPosition {
    variant: Variant,
    board: Position,
    /// Three-check: the checks each side still needs to give to win.
    remaining_checks: [u8; 2],
    /// Crazyhouse: each side's pocket.
    pockets: [Pocket; 2],
    /// Crazyhouse: the pieces that were pawns (they go back to a pocket as pawns).
    promoted: Bitboard,
}

impl VariantPosition {
    /// The start position of `variant`.
    pub fn start(variant: Variant) -> VariantPosition {
        VariantPosition::from_fen(variant, variant.start_fen()).expect("every variant's start FEN is valid")
    }

    /// The variant.
    #[inline]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The board: pieces, side to move, castling rights, en passant square
    /// and move counters. For a variant it may break standard chess's
    /// invariants (a horde has no white king; antichess may have none or
    /// several): call only what reads pieces and squares.
    #[inline]
    pub fn board(&self) -> &Position {
        &self.board
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    /// Three-check: the checks `color` still needs to give (3 at the start).
    #[inline]
    pub fn remaining_checks(&self, color: Color) -> u8 {
        self.remaining_checks[color.index()]
    }

    /// Crazyhouse: the pieces `color` may drop.
    #[inline]
    pub fn pocket(&self, color: Color) -> Pocket {
        self.pockets[color.index()]
    }

    /// Crazyhouse: the pieces that were pawns.
    #[inline]
    pub fn promoted(&self) -> Bitboard {
        self.promoted
    }

    /// A standard chess position as a variant position.
    pub fn from_chess(position: Position) -> VariantPosition {
        VariantPosition {
            variant: Variant::Chess,
            board: position,
            remaining_checks: [3, 3],
            pockets: [Pocket::default(); 2],
            promoted: Bitboard::EMPTY,
        }
    }

    /// What a position's identity is made of beyond its board, as words: the
    /// variant and three-check's counters, crazyhouse's pockets (5 bits a
    /// count, white's five then black's) and promoted pieces. Two positions
    /// with equal boards and equal extras are the same position.
    pub fn extra_words(&self) -> [u64; 3] {
        let mut pockets = 0u64;
        for (side, pocket) in self.pockets.iter().enumerate() {
            for (index, &count) in pocket.0.iter().enumerate() {
                pockets |= u64::from(count & 0x1f) << (5 * (5 * side + index));
            }
        }
        let head =
            self.variant as u64 | u64::from(self.remaining_checks[0]) << 8 | u64::from(self.remaining_checks[1]) << 12;
        [head, pockets, self.promoted.0]
    }
}

impl fmt::Display for VariantPosition {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.to_fen())
    }
}
