//! Chess input errors: FEN, UCI moves and perft suites. Every message names
//! what was wrong and, where it helps, what to do about it.

use super::board::{CastlingSide, Color, Square};

/// Why a FEN string was rejected. Each message names the FEN field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    #[error(
        "FEN has {found} field{}; expected 6 (placement, side to move, castling, en passant, \
         halfmove clock, fullmove number) or the first 4",
        if *found == 1 { "" } else { "s" }
    )]
    FieldCount { found: usize },
    #[error("piece placement has {found} ranks separated by '/'; expected 8")]
    RankCount { found: usize },
    #[error("piece placement, rank {rank}: '{character}' is not a piece letter (PNBRQK, pnbrqk) or a digit 1-8")]
    BadPieceLetter { rank: u8, character: char },
    #[error("piece placement, rank {rank}: describes {squares} squares; a rank must describe exactly 8")]
    RankLength { rank: u8, squares: usize },
    #[error("piece placement, rank {rank}: two digits in a row; write their sum as one digit")]
    AdjacentDigits { rank: u8 },
    #[error("piece placement: {color} has {found} kings; each side needs exactly one")]
    KingCount { color: Color, found: u32 },
    #[error("piece placement: pawn on {square}; pawns cannot stand on rank 1 or rank 8")]
    PawnOnBackRank { square: Square },
    #[error("side to move is '{found}'; expected 'w' or 'b'")]
    SideToMove { found: String },
    #[error(
        "castling field is '{found}'; expected '-' or up to four letters: KQkq (X-FEN: the outermost rook on \
         that side), or rook files A-H and a-h (Shredder-FEN, or X-FEN for an inner rook)"
    )]
    CastlingSyntax { found: String },
    #[error("castling right '{right}' needs the {color} king on its back rank; it is on {king}")]
    CastlingKingOffBackRank { right: char, color: Color, king: Square },
    #[error("castling right '{right}' needs a {color} rook on {square}")]
    CastlingWithoutRook { right: char, color: Color, square: Square },
    #[error("castling right '{right}' needs a {color} rook on the back rank on the {side} of the king on {king}")]
    CastlingNoRookOnSide { right: char, color: Color, side: CastlingSide, king: Square },
    #[error("castling field names the {color} rook on {square} twice ('{right}' repeats it)")]
    CastlingRepeated { right: char, color: Color, square: Square },
    #[error(
        "castling rights '{first}' and '{second}' both name {color} rooks on the {side} of the king on {king}; \
         the king must stand between its two castling rooks"
    )]
    CastlingSameSide { first: char, second: char, color: Color, side: CastlingSide, king: Square },
    #[error("en passant field is '{found}'; expected '-' or a square such as e3")]
    EnPassantSyntax { found: String },
    #[error("en passant square {square} must be on rank {expected_rank} when {side_to_move} is to move")]
    EnPassantRank { square: Square, expected_rank: u8, side_to_move: Color },
    #[error("en passant square {square} needs a {color} pawn on {pawn_square} that just moved two squares")]
    EnPassantNoPawn { square: Square, color: Color, pawn_square: Square },
    #[error("en passant square {square}: it and {origin} must be empty after a two-square pawn move")]
    EnPassantBlocked { square: Square, origin: Square },
    #[error("halfmove clock is '{found}'; expected a whole number from 0 to 65535")]
    HalfmoveClock { found: String },
    #[error("fullmove number is '{found}'; expected a whole number from 1 to 65535")]
    FullmoveNumber { found: String },
    #[error("piece placement: {color} has {found} pawns; a side starts with 8 and never gains any")]
    TooManyPawns { color: Color, found: u32 },
    #[error("piece placement: {color} has {found} pieces; a side starts with 16 and never gains any")]
    TooManyPieces { color: Color, found: u32 },
    #[error(
        "piece placement: {color} has {promoted} pieces beyond its starting set (queens past 1; rooks, bishops or \
         knights past 2) but only {missing_pawns} missing pawns to have promoted from"
    )]
    TooManyPromoted { color: Color, promoted: u32, missing_pawns: u32 },
    #[error("{color} is in check but it is {side_to_move} to move; the side not to move cannot be in check")]
    OpponentInCheck { color: Color, side_to_move: Color },
}

/// Why a UCI move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoveError {
    #[error(
        "'{found}' is not a UCI move (expected from and to squares and an optional promotion letter, such as e2e4 or e7e8q)"
    )]
    Syntax { found: String },
    #[error("'{uci}' is not a legal move in {fen}")]
    Illegal { uci: String, fen: String },
}

/// Why a perft suite file (EPD or `.perft` format) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct SuiteError {
    pub line: usize,
    pub problem: String,
}
