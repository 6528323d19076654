//! Shogi: 81-square bitboards (u128), SFEN and USI, full-rules legal move
//! generation with drops and promotions (nifu, uchifuzume and pieces left
//! without a move are illegal), direct check generation, and CPU perft.
//! Sliding attacks come from the nine-by-nine Kogge-Stone fill (`sliders`)
//! or the ray tables with a bit scan; the GPU kernels (`gpu`) run perft
//! through the shared engine.

pub mod board;
pub mod env;
mod fast_perft;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod sfen;
pub mod sliders;

pub use board::{Bitboard, Color, Piece};
pub use movegen::{Move, UsiMoveError};
pub use perft::ShogiGame;
pub use position::Position;
pub use sfen::{START_SFEN, SfenError};
