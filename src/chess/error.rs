//! Chess input errors: FEN, UCI moves and perft suites. Every message names
//! what was wrong and, where it helps, what to do about it.

use super::board::{CastlingSide, Color, Square};

/// Why a FEN string was rejected. Each message names the FEN field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// Too many or too few fields.
    #[error(
        "FEN has {found} field{}; expected 6 (placement, side to move, castling, en passant, \
         halfmove clock, fullmove number) or the first 4",
        if *found == 1 { "" } else { "s" }
    )]
    FieldCount {
        /// How many there are.
        found: usize,
    },
    /// The placement does not have eight ranks.
    #[error("piece placement has {found} ranks separated by '/'; expected 8")]
    RankCount {
        /// How many there are.
        found: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    #[error("piece placement, rank {rank}: '{character}' is not a piece letter (PNBRQK, pnbrqk) or a digit 1-8")]
    BadPieceLetter {
        /// The rank, 8 to 1 as written from the top.
        rank: u8,
        /// The character found.
        character: char,
    },
    /// A rank that describes more or fewer than eight squares.
    #[error("piece placement, rank {rank}: describes {squares} squares; a rank must describe exactly 8")]
    RankLength {
        /// The rank, 8 to 1 as written from the top.
        rank: u8,
        /// How many squares the rank describes.
        squares: usize,
    },
    /// Two digits in a row within a rank.
    #[error("piece placement, rank {rank}: two digits in a row; write their sum as one digit")]
    AdjacentDigits {
        /// The rank, 8 to 1 as written from the top.
        rank: u8,
    },
    /// A side without exactly one king.
    #[error("piece placement: {color} has {found} kings; each side needs exactly one")]
    KingCount {
        /// The side.
        color: Color,
        /// How many there are.
        found: u32,
    },
    /// A pawn on the first or last rank.
    #[error("piece placement: pawn on {square}; pawns cannot stand on rank 1 or rank 8")]
    PawnOnBackRank {
        /// The square named.
        square: Square,
    },
    /// A side to move other than `w` or `b`.
    #[error("side to move is '{found}'; expected 'w' or 'b'")]
    SideToMove {
        /// What the text holds there.
        found: String,
    },
    /// A castling field that does not read.
    #[error(
        "castling field is '{found}'; expected '-' or up to four letters: KQkq (X-FEN: the outermost rook on \
         that side), or rook files A-H and a-h (Shredder-FEN, or X-FEN for an inner rook)"
    )]
    CastlingSyntax {
        /// What the text holds there.
        found: String,
    },
    /// A castling right whose king is not on its back rank.
    #[error("castling right '{right}' needs the {color} king on its back rank; it is on {king}")]
    CastlingKingOffBackRank {
        /// The castling letter.
        right: char,
        /// The side.
        color: Color,
        /// The king's square.
        king: Square,
    },
    /// A castling right with no rook where it names one.
    #[error("castling right '{right}' needs a {color} rook on {square}")]
    CastlingWithoutRook {
        /// The castling letter.
        right: char,
        /// The side.
        color: Color,
        /// The square named.
        square: Square,
    },
    /// A castling right with no rook on that side of the king.
    #[error("castling right '{right}' needs a {color} rook on the back rank on the {side} of the king on {king}")]
    CastlingNoRookOnSide {
        /// The castling letter.
        right: char,
        /// The side.
        color: Color,
        /// Which side of the king.
        side: CastlingSide,
        /// The king's square.
        king: Square,
    },
    /// A castling field that names the same rook twice.
    #[error("castling field names the {color} rook on {square} twice ('{right}' repeats it)")]
    CastlingRepeated {
        /// The castling letter.
        right: char,
        /// The side.
        color: Color,
        /// The square named.
        square: Square,
    },
    /// Two castling rights on the same side of the king.
    #[error(
        "castling rights '{first}' and '{second}' both name {color} rooks on the {side} of the king on {king}; \
         the king must stand between its two castling rooks"
    )]
    CastlingSameSide {
        /// The first of the two letters.
        first: char,
        /// The second of the two letters.
        second: char,
        /// The side.
        color: Color,
        /// Which side of the king.
        side: CastlingSide,
        /// The king's square.
        king: Square,
    },
    /// An en passant field that does not read.
    #[error("en passant field is '{found}'; expected '-' or a square such as e3")]
    EnPassantSyntax {
        /// What the text holds there.
        found: String,
    },
    /// An en passant square on the wrong rank for the side to move.
    #[error("en passant square {square} must be on rank {expected_rank} when {side_to_move} is to move")]
    EnPassantRank {
        /// The square named.
        square: Square,
        /// The rank the square must be on.
        expected_rank: u8,
        /// The side to move.
        side_to_move: Color,
    },
    /// An en passant square with no pawn that could have just moved past it.
    #[error("en passant square {square} needs a {color} pawn on {pawn_square} that just moved two squares")]
    EnPassantNoPawn {
        /// The square named.
        square: Square,
        /// The side.
        color: Color,
        /// Where the pawn must stand.
        pawn_square: Square,
    },
    /// An en passant square, or the square the pawn came from, that is not empty.
    #[error("en passant square {square}: it and {origin} must be empty after a two-square pawn move")]
    EnPassantBlocked {
        /// The square named.
        square: Square,
        /// The square the pawn came from.
        origin: Square,
    },
    /// A halfmove clock that is not a number from 0 to 65535.
    #[error("halfmove clock is '{found}'; expected a whole number from 0 to 65535")]
    HalfmoveClock {
        /// What the text holds there.
        found: String,
    },
    /// A fullmove number that is not a number from 1 to 65535.
    #[error("fullmove number is '{found}'; expected a whole number from 1 to 65535")]
    FullmoveNumber {
        /// What the text holds there.
        found: String,
    },
    /// More than eight pawns on a side.
    #[error("piece placement: {color} has {found} pawns; a side starts with 8 and never gains any")]
    TooManyPawns {
        /// The side.
        color: Color,
        /// How many there are.
        found: u32,
    },
    /// More than sixteen pieces on a side.
    #[error("piece placement: {color} has {found} pieces; a side starts with 16 and never gains any")]
    TooManyPieces {
        /// The side.
        color: Color,
        /// How many there are.
        found: u32,
    },
    /// More promoted pieces than missing pawns could have become.
    #[error(
        "piece placement: {color} has {promoted} pieces beyond its starting set (queens past 1; rooks, bishops or \
         knights past 2) but only {missing_pawns} missing pawns to have promoted from"
    )]
    TooManyPromoted {
        /// The side.
        color: Color,
        /// Pieces beyond the starting set.
        promoted: u32,
        /// Pawns missing from the starting eight.
        missing_pawns: u32,
    },
    /// The side not to move is in check.
    #[error("{color} is in check but it is {side_to_move} to move; the side not to move cannot be in check")]
    OpponentInCheck {
        /// The side.
        color: Color,
        /// The side to move.
        side_to_move: Color,
    },
    /// A field that does not fit the chess variant (pockets outside
    /// crazyhouse, a horde without its pawns, impossible check counters).
    #[error("{field}: {problem}")]
    Variant {
        /// The FEN field, as a person would name it ("pocket", "check counters", "piece placement").
        field: &'static str,
        /// What is wrong there, and what the variant expects.
        problem: String,
    },
}

/// Why a UCI move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveError {
    /// Text that is not a move in UCI notation.
    #[error(
        "'{found}' is not a UCI move (expected from and to squares and an optional promotion letter, such as e2e4 or \
         e7e8q, or in crazyhouse a drop such as N@f3)"
    )]
    Syntax {
        /// What the text holds there.
        found: String,
    },
    /// A move that is not legal in the position.
    #[error("'{uci}' is not a legal move in {fen}")]
    Illegal {
        /// The move as given.
        uci: String,
        /// The position, as FEN.
        fen: String,
    },
}

/// Why a perft suite file (EPD or `.perft` format) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct SuiteError {
    /// The line, from 1 (0 for the file as a whole).
    pub line: usize,
    /// What is wrong there.
    pub problem: String,
}
