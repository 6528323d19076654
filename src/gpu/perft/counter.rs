//! One counter the front ends share: a game's perft and divide on the CPU's
//! threads or on a GPU engine, with progress and a stop flag, so that the
//! command line, Python and the browser do not each write the choice again.
//! Native only, as the device pool is: a browser page counts through the
//! engine's async calls.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{DevicePool, PerftEngine, PerftGame, PerftOptions, PoolProgress};
use crate::game;
use crate::gpu::{GpuContext, GpuError};

/// Where a game's counts run.
pub enum Counter<G: PerftGame> {
    /// The game's CPU engine on a pool of threads.
    Cpu(rayon::ThreadPool),
    /// A GPU engine, with its description (adapter, then the table's size).
    Gpu(Box<PerftEngine<G>>, String),
    /// Engines on several GPUs counting together, with their description.
    Devices(Box<DevicePool<G>>, String),
}

/// How a counter reports progress: the nodes counted so far in the call,
/// now and then (from any thread, on several devices).
pub type CountProgress<'a> = &'a (dyn Fn(u64) + Sync);

impl<G: PerftGame> Counter<G>
where
    PerftEngine<G>: Send,
{
    /// The CPU on `threads` threads (default: one a core).
    pub fn cpu(threads: Option<usize>) -> Result<Self, rayon::ThreadPoolBuildError> {
        Ok(Counter::Cpu(crate::threads::pool(threads)?))
    }

    /// A GPU engine on `context` with `options`, once the device passed the
    /// self-test of its kernels.
    pub fn gpu(context: &GpuContext, options: PerftOptions<G::Build>) -> Result<Self, GpuError> {
        Ok(Self::on(context, PerftEngine::with_options(context, options)?))
    }

    /// `engine`, built on `context`, as a counter.
    pub fn on(context: &GpuContext, engine: PerftEngine<G>) -> Self {
        let description = match engine.transposition_table_bytes() >> 20 {
            0 => context.adapter_description(),
            mebibytes => format!("{}, {mebibytes} MiB transposition table", context.adapter_description()),
        };
        Counter::Gpu(Box::new(engine), description)
    }

    /// "CPU, 2 threads" or "GPU, " and the adapter (and ", N MiB transposition table"):
    /// how summaries name where a count ran.
    pub fn describe(&self) -> String {
        match self {
            Counter::Cpu(pool) => format!("CPU, {}", crate::threads::describe(pool.current_num_threads())),
            Counter::Gpu(_, description) => format!("GPU, {description}"),
            Counter::Devices(_, description) => description.clone(),
        }
    }

    /// Device time per kernel so far, when the GPU engine was made with
    /// [`PerftOptions::profile_kernels`] (empty on the CPU and on several devices).
    pub fn kernel_times(&self) -> Vec<super::KernelTime> {
        match self {
            Counter::Gpu(engine, _) => engine.kernel_times(),
            Counter::Cpu(_) | Counter::Devices(..) => Vec::new(),
        }
    }

    /// Perft of every root to `depth` (the CPU reports after each root).
    pub fn perft(&mut self, roots: &[G::Position], depth: u32, progress: CountProgress) -> Result<Vec<u64>, GpuError> {
        match self {
            Counter::Gpu(engine, _) => engine.perft(roots, depth, &mut |nodes| progress(nodes)),
            Counter::Devices(..) => self
                .perft_wide(roots, depth, progress)?
                .into_iter()
                .map(|count| u64::try_from(count).map_err(|_| super::engine::past_u64(depth)))
                .collect(),
            Counter::Cpu(pool) => {
                let mut done = 0;
                Ok(roots
                    .iter()
                    .map(|root| {
                        let nodes = pool.install(|| G::perft(root, depth));
                        done += nodes;
                        progress(done);
                        nodes
                    })
                    .collect())
            }
        }
    }

    /// Perft of every root in 128 bits, exact past 2^64 (the CPU adds each
    /// root's moves' counts).
    pub fn perft_wide(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: CountProgress,
    ) -> Result<Vec<u128>, GpuError> {
        match self {
            Counter::Gpu(engine, _) => engine.perft_wide(roots, depth, &mut |nodes| progress(nodes)),
            Counter::Devices(pool, _) => {
                pool.perft_wide(roots, depth, &|state: &PoolProgress| progress(state.nodes.iter().sum()))
            }
            Counter::Cpu(pool) => {
                let mut done = 0u64;
                Ok(roots
                    .iter()
                    .map(|root| {
                        let rows = pool.install(|| game::divide::<G>(root, depth));
                        let nodes =
                            rows.iter().map(|(_, nodes)| u128::from(*nodes)).sum::<u128>() + u128::from(depth == 0);
                        done = done.saturating_add(u64::try_from(nodes).unwrap_or(u64::MAX));
                        progress(done);
                        nodes
                    })
                    .collect())
            }
        }
    }

    /// Perft split by root move, in the game's divide order.
    pub fn divide(
        &mut self,
        position: &G::Position,
        depth: u32,
        progress: CountProgress,
    ) -> Result<Vec<(G::Move, u64)>, GpuError> {
        match self {
            Counter::Gpu(engine, _) => engine.divide(position, depth, &mut |nodes| progress(nodes)),
            Counter::Devices(..) => {
                game::divide_with::<G, _, _>(position, depth, |children, below| self.perft(children, below, progress))
            }
            Counter::Cpu(pool) => {
                let rows = pool.install(|| game::divide::<G>(position, depth));
                progress(rows.iter().map(|(_, nodes)| nodes).sum());
                Ok(rows)
            }
        }
    }

    /// [`Self::divide`] that setting `stop` ends early with `Ok(None)`: the
    /// CPU's threads within milliseconds, a GPU at its next round trip. The
    /// counter stays usable; a GPU table keeps whole counts only.
    pub fn divide_until(
        &mut self,
        position: &G::Position,
        depth: u32,
        progress: CountProgress,
        stop: &Arc<AtomicBool>,
    ) -> Result<Option<game::Rows<G>>, GpuError> {
        let counted = match self {
            Counter::Cpu(pool) => return Ok(game::divide_until::<G>(pool, position, depth, stop)),
            Counter::Gpu(engine, _) => {
                engine.with_cancel(stop, |engine| engine.divide(position, depth, &mut |nodes| progress(nodes)))
            }
            // Several devices stop at the end of the divide.
            Counter::Devices(..) => self.divide(position, depth, progress),
        };
        match counted {
            Ok(rows) => Ok(Some(rows)),
            // Whatever ended a count that was asked to stop, it stopped.
            Err(_) if stop.load(std::sync::atomic::Ordering::Relaxed) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Whether the counts run on the CPU.
    pub fn on_cpu(&self) -> bool {
        matches!(self, Counter::Cpu(_))
    }

    /// Empties a GPU engine's transposition table (nothing on the CPU).
    pub fn clear_table(&mut self) -> Result<(), GpuError> {
        match self {
            Counter::Gpu(engine, _) => engine.clear_table(),
            Counter::Devices(pool, _) => pool.engines_mut().iter_mut().try_for_each(|engine| engine.clear_table()),
            Counter::Cpu(_) => Ok(()),
        }
    }
}
