//! Where a chess count runs: the CPU's threads (with a transposition table)
//! or the GPU's perft engine, chosen once per command.

use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::chess::stats::PerftStats;
use gpu_movegen::chess::transposition::physical_mebibytes;
use gpu_movegen::gpu::perft::default_table_bytes;
use gpu_movegen::{Move, Position, perft};

use super::common::{Backend, CliError, Progress, ShaderArgs, open_backend};

/// Where and how perft counts: what `perft` and `perft run-unit` share.
#[derive(clap::Args, Clone, Copy)]
pub struct CountingArgs {
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Where to run: `auto` uses the GPU when an adapter exists, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    #[command(flatten)]
    pub hash: HashArgs,
    /// No progress bar and no summary line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub shaders: ShaderArgs,
}

/// The transposition table's size.
#[derive(clap::Args, Clone, Copy)]
pub struct HashArgs {
    /// Transposition table of whichever backend counts, in MiB (on the GPU
    /// in GPU memory, within --gpu-memory); 0 turns tables and merging off on
    /// every backend. Default: what the depth needs (16 MiB up to depth 5,
    /// 64 MiB at depth 6, three times more a ply beyond), at most an eighth
    /// of physical memory and 4096 MiB on the CPU, and on the GPU at most
    /// half a storage binding of the device, 2 GiB and a quarter of --gpu-memory.
    #[arg(long = "hash", value_name = "MIB", value_parser = clap::value_parser!(u64).range(0..=1 << 22))]
    pub mebibytes: Option<u64>,
}

/// From this depth the CPU adds a root's counts by root move in 128 bits.
const WIDE_CPU_DEPTH: u32 = 12;

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
        let CountingArgs { threads, backend, hash, shaders, quiet } = counting;
        super::common::set_quiet(quiet);
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
            let context = super::common::open_gpu()?;
            let variant = shaders.variant(&context)?;
            let description = format!("{}, {}", context.adapter_description(), variant.name());
            let memory_limit = shaders.memory_limit();
            let table_bytes = match hash.mebibytes {
                Some(mebibytes) => mebibytes << 20,
                None => default_table_bytes(&context, memory_limit, Some(depth)),
            };
            let options = PerftOptions {
                variant,
                memory_limit,
                merge_transpositions: hash.mebibytes != Some(0),
                leaf_statistics: statistics,
                table_bytes: Some(table_bytes),
                ..Default::default()
            };
            let engine = GpuPerft::with_options(&context, options)?;
            let description = match engine.transposition_table_bytes() {
                0 => description,
                bytes => format!("{description}, {} MiB transposition table", bytes >> 20),
            };
            Ok(Engine::Gpu(Box::new(engine), description))
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

    /// Perft of one root in 128 bits, exact past 2^64: the GPU counts a
    /// root whose count passes 2^64 again by child; the CPU adds its root
    /// moves' counts from depth 12 on, where the start position's passes 2^64
    /// at depth 14.
    pub fn perft_wide(&mut self, position: &Position, depth: u32, progress: &Progress) -> Result<u128, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.perft_wide(std::slice::from_ref(position), depth, &mut |nodes| progress.set(base + nodes))?[0])
            }
            Engine::Cpu(perft) if depth >= WIDE_CPU_DEPTH => {
                let children: Vec<Position> = position.legal_moves().iter().map(|&mv| position.make_move(mv)).collect();
                Ok(perft.perft(&children, depth - 1, progress).into_iter().map(u128::from).sum())
            }
            Engine::Cpu(perft) => Ok(u128::from(perft.perft(std::slice::from_ref(position), depth, progress)[0])),
        }
    }

    /// Empties the GPU's transposition table, so that later GPU counts are
    /// made anew (what `--cross-check` needs; it runs on the GPU only).
    pub fn clear_table(&mut self) -> Result<(), CliError> {
        if let Engine::Gpu(perft, _) = self {
            perft.clear_table()?;
        }
        Ok(())
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
