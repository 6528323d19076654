//! Shogi on the GPU: the Rust twin of the packed position (`layout`), the
//! Shogi shaders and their tables (`shaders`), and Shogi as a game of the
//! generic perft engine (`perft`).

pub mod layout;
pub mod perft;
pub mod shaders;

pub use perft::{ShogiGame, ShogiGpuPerft, ShogiPerftOptions};
