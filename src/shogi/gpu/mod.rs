//! Shogi on the GPU: the Rust twins of the Shogi WGSL structs (`layout`),
//! the Shogi shaders and their tables (`shaders`), batched move generation
//! (`movegen`), and Shogi as a game of the generic perft engine (`perft`).

pub mod env;
pub mod layout;
pub mod movegen;
pub mod perft;
pub mod self_test;
pub mod shaders;

pub use movegen::{ShogiMoveGenerator, ShogiPositionMoves};
pub use perft::{ShogiGame, ShogiGpuPerft, ShogiPerftOptions, fused_leaves_suit};
