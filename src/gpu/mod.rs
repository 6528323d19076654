//! The game-independent GPU runtime: adapter and device (`context`), errors,
//! the WGSL composer, buffers with the one readback helper and the batched
//! dispatch helper (`resources`), naga reflection of composed modules
//! (`reflect`), the shaders' random generator's CPU twin (`random`), and the
//! breadth-first perft engine every game plugs its kernels into (`perft`).
//! Each game's kernels and their Rust twins live in that game's `gpu` module
//! (for chess, `crate::chess::gpu`).

pub mod batch;
pub mod composer;
pub mod context;
pub mod error;
pub mod faults;
pub mod perft;
pub mod random;
pub mod reflect;
pub mod resources;
pub mod self_test;

pub use context::{GpuContext, list_adapters};
pub use error::GpuError;
pub use perft::{PerftEngine, PerftGame, PerftOptions, PerftStatistics};
pub use self_test::{Check, Verdict};
