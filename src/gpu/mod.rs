//! The game-independent GPU runtime: adapter and device (`context`), errors,
//! what is kept between processes and where (`cache`),
//! how much memory a device has (`device_memory`), the WGSL composer, buffers with the one readback helper and the batched
//! dispatch helper (`resources`), naga reflection of composed modules
//! (`reflect`), compiled pipelines kept between processes (`pipeline_cache`),
//! the shaders' random generator's CPU twin (`random`), and the
//! breadth-first perft engine every game plugs its kernels into (`perft`).
//! Each game's kernels and their Rust twins live in that game's `gpu` module
//! (for chess, `crate::chess::gpu`).

pub mod batch;
pub mod cache;
pub mod composer;
pub mod context;
pub mod device_memory;
pub mod env;
pub mod error;
pub mod faults;
pub mod perft;
pub mod pipeline_cache;
pub mod random;
pub mod reflect;
pub mod resources;
pub mod runtime;
pub mod self_test;

#[cfg(not(target_arch = "wasm32"))]
pub use context::list_adapters;
pub use context::{GpuContext, list_adapters_async};
pub use device_memory::{DeviceMemory, MemorySource};
pub use error::GpuError;
pub use perft::{FusedShape, KernelTime, PerftEngine, PerftGame, PerftOptions, PerftStatistics};
pub use pipeline_cache::PipelineCacheInfo;
pub use runtime::LocalFuture;
#[cfg(not(target_arch = "wasm32"))]
pub use runtime::block_on;
pub use self_test::{Check, Verdict};
