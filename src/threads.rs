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

/// Perft of `position` to `depth` that gives up, returning `None`, once
/// `stop` is set: the tree is split over the current rayon pool (one thread
/// in a browser), each position's children (`children_of`) shared out, down
/// to subtrees of `leaf_depth` plies, which `count` counts whole. A stop is
/// seen before each subtree starts, so `leaf_depth` bounds how long the
/// last one takes: the games' `perft_parallel_until` choose it. This lets a
/// front end stop a count within milliseconds rather than at the next root move.
pub fn perft_until<P: Send + Sync>(
    position: &P,
    depth: u32,
    leaf_depth: u32,
    children_of: &(impl Fn(&P) -> Vec<P> + Sync),
    count: &(impl Fn(&P, u32) -> u64 + Sync),
    stop: &std::sync::atomic::AtomicBool,
) -> Option<u64> {
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    if depth <= leaf_depth {
        return Some(count(position, depth));
    }
    let children = children_of(position);
    sum_over(&children, |child| perft_until(child, depth - 1, leaf_depth, children_of, count, stop))
}

/// The sum of `count` over `items`, `None` if any is: over rayon's pool.
#[cfg(not(target_arch = "wasm32"))]
fn sum_over<P: Sync>(items: &[P], count: impl Fn(&P) -> Option<u64> + Sync + Send) -> Option<u64> {
    use rayon::prelude::*;
    items.par_iter().map(count).sum()
}

/// The sum of `count` over `items`, `None` if any is: a browser page's one thread.
#[cfg(target_arch = "wasm32")]
fn sum_over<P: Sync>(items: &[P], count: impl Fn(&P) -> Option<u64> + Sync + Send) -> Option<u64> {
    items.iter().map(count).sum()
}
