//! Go on the GPU: the Rust twins of the Go WGSL records (`layout`), the
//! shaders composed per board size (`shaders`), legal-point and playout
//! bitmaps for batches of positions (`moves`), batched playouts that end
//! exactly as the CPU's (`playouts`), Go as a game of the generic perft
//! engine (`perft`), and the Go environments' GPU backend (`env`).

pub(crate) mod batch;
pub mod env;
pub mod layout;
pub mod moves;
pub mod perft;
pub mod playouts;
pub mod self_test;
pub mod shaders;

pub use moves::{GoMoveGenerator, GoPositionMoves};
pub use perft::{BoardSize, GoGame, GoGpuPerft, GoPerftOptions};
pub use playouts::GpuPlayouts;
