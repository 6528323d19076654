//! The chess types at the bottom of every layer: squares, bitboards,
//! pieces, moves and castling rights. Nothing here generates moves or reads
//! a table; the position, above the tables and sliders, is `chess::position`.

mod bitboard;
pub(crate) mod castling;
mod moves;
mod piece;
mod square;

pub use bitboard::{Bitboard, Squares};
pub use castling::{CastlingNotation, CastlingRights, CastlingSide};
pub use moves::{Move, MoveKind, UciMove};
pub use piece::{Color, Piece};
pub use square::{Square, SquareParseError};
