//! How this crate's GPU work is driven: one async code path, awaited in the
//! browser and run to its end on the calling thread natively; and the
//! helpers the GPU modules share for it. A module of its own, so that the
//! modules of `gpu` import it rather than their parent.

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
