//! The chess model: squares, bitboards, pieces, moves and positions.

mod bitboard;
mod moves;
mod piece;
mod position;
mod square;

pub use bitboard::{Bitboard, Squares};
pub use moves::{Move, MoveKind, UciMove};
pub use piece::{Color, Piece};
pub use position::{CastlingNotation, CastlingRights, CastlingSide, Position, PositionIdentity, START_FEN};
pub use square::{Square, SquareParseError};
