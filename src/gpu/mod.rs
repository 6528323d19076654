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
pub mod error;
pub mod faults;
pub mod perft;
pub mod pipeline_cache;
pub mod random;
pub mod reflect;
pub mod resources;
pub mod self_test;

#[cfg(not(target_arch = "wasm32"))]
pub use context::list_adapters;
pub use context::{GpuContext, list_adapters_async};
pub use device_memory::{DeviceMemory, MemorySource};
pub use error::GpuError;
pub use perft::{FusedShape, KernelTime, PerftEngine, PerftGame, PerftOptions, PerftStatistics};
pub use pipeline_cache::PipelineCacheInfo;
pub use self_test::{Check, Verdict};

/// Runs a future of this crate's GPU work to its end on this thread: how
/// the native blocking calls share the one async code path the browser
/// awaits.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// The message a caught panic carried, for errors that report it.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)")
}

/// A boxed future of this crate's GPU work. Not `Send`: in a browser,
/// WebGPU's objects belong to one thread.
pub type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;
