//! The worker threads every CPU engine counts on (chess, Shogi and Go perft,
//! Go playouts): a rayon pool whose stacks hold the deepest recursion any
//! game allows.

/// Each worker's stack. Perft recurses once a ply, to each game's
/// `MAX_DEPTH` at most: chess's 64 plies take under 1 MiB
/// (tests/deep_perft.rs counts perft(64) on a 1 MiB stack), so 16 MiB leaves
/// every game a wide margin. It is address space, touched only as deep as
/// the recursion goes.
pub const STACK_BYTES: usize = 16 << 20;

/// A pool of `threads` workers (default: one a core).
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    // A browser page has no threads to spawn: its one thread is the pool.
    #[cfg(target_arch = "wasm32")]
    let builder = {
        let _ = threads;
        rayon::ThreadPoolBuilder::new().num_threads(1).use_current_thread()
    };
    #[cfg(not(target_arch = "wasm32"))]
    let builder = {
        let mut builder = rayon::ThreadPoolBuilder::new().stack_size(STACK_BYTES);
        if let Some(threads) = threads {
            builder = builder.num_threads(threads);
        }
        builder
    };
    builder.build()
}

/// "1 thread", "2 threads": how descriptions name a pool's size.
pub fn describe(threads: usize) -> String {
    if threads == 1 { "1 thread".to_owned() } else { format!("{threads} threads") }
}

/// The smallest batch [`map_batch`] spreads over the cores: below it,
/// handing out the work costs more than it saves.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
const PARALLEL_BATCH: usize = 1024;

/// `work` of each index below `count`, in order: on every core of rayon's
/// global pool for a batch of 1,024 or more, on this thread
/// otherwise and in a browser page. For the host's work around a GPU
/// batch, packing positions and reading back their moves, which one thread
/// made slower than the kernels on a software adapter.
pub fn map_batch<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    if count >= PARALLEL_BATCH {
        use rayon::prelude::*;
        return (0..count).into_par_iter().map(work).collect();
    }
    (0..count).map(work).collect()
}
