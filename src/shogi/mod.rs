//! Shogi: 81-square bitboards (u128), SFEN and USI, full-rules legal move
//! generation with drops and promotions (nifu, uchifuzume and pieces left
//! without a move are illegal), direct check generation, and CPU perft.
//! The GPU kernels and the nine-by-nine Kogge-Stone and table sliders are
//! still to come; the command line's `gpu-movegen shogi perft` counts on the
//! CPU meanwhile.

pub mod board;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod movegen;
pub mod perft;
pub mod position;

pub use board::{Bitboard, Color, Piece};
pub use movegen::{Move, UsiMoveError};
pub use position::{Position, START_SFEN, SfenError};
