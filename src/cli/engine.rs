//! Where a chess count runs: the CPU's threads (with a transposition table)
//! or the GPU's perft engine, chosen once per command.

use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::chess::stats::PerftStats;
use gpu_movegen::chess::transposition::physical_mebibytes;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::{Move, Position, perft};

use super::chess::CountingArgs;
use super::common::{CliError, Progress, open_backend};

/// Where perft runs.
pub enum Engine {
    Cpu(CpuPerft),
    Gpu(Box<GpuPerft>, String),
}

impl Engine {
    /// `depth`: the deepest perft this engine will count (sizes the transposition table).
    pub fn open(counting: CountingArgs, depth: u32) -> Result<Engine, CliError> {
        Engine::open_for(counting, depth, false)
    }

    /// [`Engine::open`], with the statistics kernel (GPU) or a statistics
    /// table instead of the count table (CPU) when `statistics` is set.
    pub fn open_for(counting: CountingArgs, depth: u32, statistics: bool) -> Result<Engine, CliError> {
        let CountingArgs { threads, backend, hash, shaders, .. } = counting;
        // A table larger than half the machine could only end in an allocation abort.
        if let (Some(wanted), Some(physical)) = (hash.mebibytes, physical_mebibytes())
            && wanted > physical / 2
        {
            return Err(CliError::Usage(format!(
                "--hash {wanted} MiB is more than half of this machine's {physical} MiB of memory (0 to {})",
                physical / 2
            )));
        }
        let gpu = || -> Result<Engine, gpu_movegen::gpu::GpuError> {
            let context = GpuContext::new()?;
            let variant = shaders.variant(&context)?;
            let description = format!("{}, {}", context.adapter_description(), variant.name());
            let options = PerftOptions {
                variant,
                memory_limit: shaders.memory_limit(),
                merge_transpositions: hash.mebibytes != Some(0),
                leaf_statistics: statistics,
                ..Default::default()
            };
            Ok(Engine::Gpu(Box::new(GpuPerft::with_options(&context, options)?), description))
        };
        let cpu = || -> Result<Engine, CliError> {
            let mut builder = CpuPerft::builder().statistics(statistics);
            if let Some(threads) = threads {
                builder = builder.threads(threads as usize);
            }
            if let Some(mebibytes) = hash.mebibytes {
                builder = builder.hash_mebibytes(mebibytes);
            }
            builder.build(depth).map(Engine::Cpu).map_err(|error| CliError::Usage(error.to_string()))
        };
        open_backend(backend, gpu, cpu)
    }

    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu(perft) => perft.describe(),
            Engine::Gpu(_, adapter) => format!("GPU, {adapter}"),
        }
    }

    /// Perft of every root to `depth`; `progress` hears of nodes counted.
    pub fn perft(&mut self, roots: &[Position], depth: u32, progress: &Progress) -> Result<Vec<u64>, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.perft(roots, depth, &mut |nodes| progress.set(base + nodes))?)
            }
            Engine::Cpu(perft) => Ok(perft.perft(roots, depth, progress)),
        }
    }

    /// `"gpu"` or `"cpu"`, as JSON reports name the backend.
    pub fn backend_name(&self) -> &'static str {
        if let Engine::Gpu(..) = self { "gpu" } else { "cpu" }
    }

    /// The statistics of every root's leaves `depth` plies below it (the
    /// engine must be opened with `statistics`).
    pub fn perft_stats(
        &mut self,
        roots: &[Position],
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<PerftStats>, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.perft_stats(roots, depth, &mut |nodes| progress.set(base + nodes))?)
            }
            Engine::Cpu(perft) => Ok(perft.perft_stats(roots, depth, progress)),
        }
    }

    /// The statistics below each root move, in UCI order.
    pub fn divide_stats(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, PerftStats)>, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.divide_stats(position, depth, &mut |nodes| progress.set(base + nodes))?)
            }
            Engine::Cpu(perft) => Ok(perft.divide_stats(position, depth, progress)),
        }
    }

    pub fn divide(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, u64)>, CliError> {
        perft::divide_with(position, depth, |children, below| self.perft(children, below, progress))
    }
}
