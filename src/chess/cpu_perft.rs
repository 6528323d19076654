//! CPU perft as a user of the library wants it: rayon's threads over the
//! root moves, the transposition table when there is one, and progress as
//! each root move's subtree finishes.
//!
//! ```
//! use gpu_movegen::chess::cpu_perft::CpuPerft;
//! use gpu_movegen::Position;
//!
//! let mut perft = CpuPerft::builder().threads(2).hash_mebibytes(16).build(5).unwrap();
//! assert_eq!(perft.perft(&[Position::start()], 5, &()), vec![4_865_609]);
//! let divided = perft.divide(&Position::start(), 2, &());
//! assert_eq!(divided.len(), 20);
//! ```

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

use crate::chess::board::Move;
use crate::chess::perft;
use crate::chess::position::Position;
use crate::chess::stats::{self, PerftStats, StatsTable};
use crate::chess::transposition::{TranspositionTable, default_mebibytes, perft_hashed_parallel_until};

/// What a long count reports as it goes; every method has a no-op default,
/// and `()` reports nothing.
pub trait PerftProgress: Sync {
    /// `parts` more pieces of work were found (root moves to count).
    fn add_parts(&self, _parts: u64) {}
    /// A piece of work finished with `nodes`.
    fn part_done(&self, _nodes: u64) {}
    /// `nodes` were counted outside any part (a perft shallower than two plies).
    fn add(&self, _nodes: u64) {}
}

impl PerftProgress for () {}

/// Why the engine could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CpuPerftError {
    /// The worker threads could not be started.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// The table of this many MiB could not be allocated.
    #[error("a {0} MiB transposition table cannot be allocated")]
    Table(u64),
}

/// How a [`CpuPerft`] is built.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuPerftBuilder {
    threads: Option<usize>,
    hash_mebibytes: Option<u64>,
    statistics: bool,
}

impl CpuPerftBuilder {
    /// Worker threads (default: one a core).
    pub fn threads(mut self, threads: usize) -> CpuPerftBuilder {
        self.threads = Some(threads);
        self
    }

    /// The transposition table's size; 0 counts without one. Default: what
    /// the deepest perft needs (16 MiB to depth 5, 64 MiB at depth 6, three
    /// times more a ply beyond), at most an eighth of physical memory and 4096 MiB.
    pub fn hash_mebibytes(mut self, mebibytes: u64) -> CpuPerftBuilder {
        self.hash_mebibytes = Some(mebibytes);
        self
    }

    /// Make the table one of statistics, for [`CpuPerft::perft_stats`]
    /// (plain counts then run without a table).
    pub fn statistics(mut self, statistics: bool) -> CpuPerftBuilder {
        self.statistics = statistics;
        self
    }

    /// The engine, for counts up to `deepest` plies (which sizes the default table).
    pub fn build(self, deepest: u32) -> Result<CpuPerft, CpuPerftError> {
        let pool = crate::threads::pool(self.threads)?;
        let mebibytes = self.hash_mebibytes.unwrap_or_else(|| {
            // A table a count fills once pays; a larger one costs more to
            // zero than it saves (1 GiB took seconds under a hypervisor).
            // Two threads scale 1.9x or better from 64 MiB at depth 6 up.
            let needed = match deepest {
                0..=5 => 16,
                _ => (64.0 * 3f64.powi(deepest as i32 - 6)).min(1e9) as u64,
            };
            needed.min(default_mebibytes())
        });
        let (mut table, mut stats_table) = (None, None);
        match (mebibytes, self.statistics) {
            (0, _) => {}
            (_, false) => {
                table = Some(Arc::new(
                    TranspositionTable::with_mebibytes(mebibytes).ok_or(CpuPerftError::Table(mebibytes))?,
                ))
            }
            (_, true) => {
                stats_table =
                    Some(Arc::new(StatsTable::with_mebibytes(mebibytes).ok_or(CpuPerftError::Table(mebibytes))?))
            }
        }
        Ok(CpuPerft { pool, table, stats_table })
    }
}

/// Perft on the CPU's threads, with or without a transposition table.
pub struct CpuPerft {
    pool: rayon::ThreadPool,
    table: Option<Arc<TranspositionTable>>,
    stats_table: Option<Arc<StatsTable>>,
}

impl CpuPerft {
    /// A builder with the defaults: a thread a core, a table sized for the depth.
    pub fn builder() -> CpuPerftBuilder {
        CpuPerftBuilder::default()
    }

    /// Worker threads the engine counts on.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The transposition table's size in bytes, when there is one.
    pub fn table_bytes(&self) -> Option<u64> {
        let stats = self.stats_table.as_ref().map(|table| table.bytes());
        self.table.as_ref().map(|table| table.bytes()).or(stats)
    }

    /// "CPU, N threads, pext sliders[, M MiB transposition table]".
    pub fn describe(&self) -> String {
        let sliders = crate::chess::fast_perft::SliderLookup::selected();
        match self.table_bytes() {
            None => format!("CPU, {}, {sliders} sliders", crate::threads::describe(self.threads())),
            Some(bytes) => {
                let kind = if self.stats_table.is_some() { "statistics" } else { "transposition" };
                format!(
                    "CPU, {}, {sliders} sliders, {} MiB {kind} table",
                    crate::threads::describe(self.threads()),
                    bytes >> 20
                )
            }
        }
    }

    /// Perft of every root to `depth`, the root moves of each spread over the
    /// threads; `progress` hears of each root move as it finishes.
    pub fn perft(&mut self, roots: &[Position], depth: u32, progress: &dyn PerftProgress) -> Vec<u64> {
        let never = AtomicBool::new(false);
        self.perft_until(roots, depth, progress, &never).unwrap_or_else(|| unreachable!("nothing sets the flag"))
    }

    /// [`CpuPerft::perft`] that another thread may stop by setting `stop`:
    /// every thread then gives up within a few milliseconds of work and the
    /// call returns `None` (the table keeps only whole counts).
    pub fn perft_until(
        &mut self,
        roots: &[Position],
        depth: u32,
        progress: &dyn PerftProgress,
        stop: &AtomicBool,
    ) -> Option<Vec<u64>> {
        let table = self.table.as_deref();
        let lookup = crate::chess::fast_perft::SliderLookup::selected();
        let counts = self.over_roots(
            roots,
            depth,
            progress,
            |root, depth| match (depth, table) {
                (0 | 1, _) => Some(perft::perft(root, depth)),
                (_, Some(table)) => perft_hashed_parallel_until(root, depth, table, stop),
                (_, None) => perft::perft_parallel_until(root, depth, lookup, stop),
            },
            |nodes| *nodes,
        );
        counts.into_iter().collect()
    }

    /// Counts every root on the pool: one under two plies at once, a deeper
    /// one with its root moves spread over the threads, each move a part of
    /// `progress`. `count` counts a position to a depth (with depth under
    /// 2, a root itself); `nodes` reads a count's nodes (None: stopped).
    fn over_roots<T: Send + std::iter::Sum<T>>(
        &self,
        roots: &[Position],
        depth: u32,
        progress: &dyn PerftProgress,
        count: impl Fn(&Position, u32) -> T + Sync,
        nodes: impl Fn(&T) -> Option<u64> + Sync,
    ) -> Vec<T> {
        self.pool.install(|| {
            roots
                .iter()
                .map(|root| {
                    if depth < 2 {
                        let counted = count(root, depth);
                        progress.add(nodes(&counted).unwrap_or(0));
                        return counted;
                    }
                    let moves = root.legal_moves();
                    progress.add_parts(moves.len() as u64);
                    moves
                        .par_iter()
                        .map(|mv| {
                            let counted = count(&root.make_move(*mv), depth - 1);
                            if let Some(nodes) = nodes(&counted) {
                                progress.part_done(nodes);
                            }
                            counted
                        })
                        .sum()
                })
                .collect()
        })
    }

    /// The count below each root move, sorted by the move's UCI text.
    pub fn divide(&mut self, position: &Position, depth: u32, progress: &dyn PerftProgress) -> Vec<(Move, u64)> {
        perft::divide_with(position, depth, |children, below| {
            Ok::<_, std::convert::Infallible>(self.perft(children, below, progress))
        })
        .unwrap_or_else(|never| match never {})
    }

    /// The statistics of every root's leaves `depth` plies below it, the
    /// root moves of each spread over the threads (with the statistics table
    /// when the engine was built with one).
    pub fn perft_stats(&mut self, roots: &[Position], depth: u32, progress: &dyn PerftProgress) -> Vec<PerftStats> {
        let table = self.stats_table.as_deref();
        self.over_roots(
            roots,
            depth,
            progress,
            |root, depth| match (depth, table) {
                (0 | 1, _) => stats::perft_stats(root, depth),
                (_, Some(table)) => stats::perft_stats_hashed_parallel(root, depth, table),
                (_, None) => stats::perft_stats_parallel(root, depth),
            },
            |stats| Some(stats.nodes),
        )
    }

    /// The statistics below each root move, sorted by the move's UCI text.
    pub fn divide_stats(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &dyn PerftProgress,
    ) -> Vec<(Move, PerftStats)> {
        // At depth 1 the leaves are the root moves themselves.
        if depth <= 1 {
            return stats::divide_stats(position, depth);
        }
        perft::divide_with(position, depth, |children, below| {
            Ok::<_, std::convert::Infallible>(self.perft_stats(children, below, progress))
        })
        .unwrap_or_else(|never| match never {})
    }

    /// Runs `work` on this engine's threads (for callers that count their own way).
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        self.pool.install(work)
    }
}
