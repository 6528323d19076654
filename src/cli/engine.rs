//! Where a chess count runs: the CPU's threads (with a transposition table)
//! or the GPU's perft engine, chosen once per command.

use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::gpu::{Chess, GpuPerft, PerftOptions};
use gpu_movegen::chess::stats::PerftStats;
use gpu_movegen::chess::transposition::physical_mebibytes;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::perft::DevicePool;
use gpu_movegen::{Move, Position, perft};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::common::{Backend, CliError, DeviceCount, Progress, ShaderArgs, open_backend};

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
    /// Count on N GPUs at once (`all`: every GPU), each with its own
    /// transposition table of --hash MiB, the root's subtrees handed out as
    /// they ask for work; where the machine has one adapter, N devices are
    /// opened on it. Implies --backend gpu. Default: 1.
    #[arg(long, value_name = "N|all", value_parser = super::common::parse_device_count)]
    pub devices: Option<DeviceCount>,
}

/// The transposition table's size.
#[derive(clap::Args, Clone, Copy)]
pub struct HashArgs {
    /// Transposition table of whichever backend counts, in MiB (on the GPU
    /// in GPU memory, within --gpu-memory); 0 turns tables and merging off on
    /// every backend. Default: what the depth needs (16 MiB up to depth 5,
    /// 64 MiB at depth 6, then three times more a ply), at most an eighth
    /// of physical memory and 4096 MiB on the CPU; on the GPU four times more
    /// a ply (three on a software adapter), within nine tenths of the
    /// device's memory less the arena's share, or within --gpu-memory.
    #[arg(long = "hash", value_name = "MIB", value_parser = clap::value_parser!(u64).range(0..=1 << 22))]
    pub mebibytes: Option<u64>,
}

/// From this depth the CPU adds a root's counts by root move in 128 bits.
const WIDE_CPU_DEPTH: u32 = 12;

/// Where perft runs.
pub enum Engine {
    Cpu(CpuPerft),
    Gpu(Box<GpuPerft>, String),
    /// Several GPUs (`--devices`), each with its own engine.
    Devices(Box<DevicePool<Chess>>, String),
}

impl Drop for Engine {
    /// A profiled GPU engine says where its device time went.
    fn drop(&mut self) {
        if let Engine::Gpu(engine, _) = self {
            super::common::print_kernel_times(&engine.kernel_times());
        }
    }
}

impl Engine {
    /// `depth`: the deepest perft this engine will count (sizes the transposition table).
    pub fn open(counting: CountingArgs, depth: u32) -> Result<Engine, CliError> {
        Engine::open_for(counting, depth, false)
    }

    /// [`Engine::open`], with the statistics kernel (GPU) or a statistics
    /// table instead of the count table (CPU) when `statistics` is set.
    pub fn open_for(counting: CountingArgs, depth: u32, statistics: bool) -> Result<Engine, CliError> {
        let CountingArgs { threads, backend, hash, shaders, quiet, devices } = counting;
        super::common::set_quiet(quiet);
        if let Some(devices) = devices
            && devices != DeviceCount::Count(1)
        {
            if backend == Backend::Cpu {
                return Err(CliError::Usage("--devices counts on GPUs; it cannot go with --backend cpu".to_owned()));
            }
            if statistics {
                return Err(CliError::Usage("--stats counts on one device; leave out --devices".to_owned()));
            }
            return Engine::open_devices(devices, hash, shaders, depth);
        }
        let gpu = || -> Result<Engine, gpu_movegen::gpu::GpuError> {
            let context = super::common::open_gpu()?;
            let (engine, description) = open_gpu_engine(&context, hash, shaders, depth, statistics)?;
            Ok(Engine::Gpu(Box::new(engine), description))
        };
        let cpu = || -> Result<Engine, CliError> {
            // A table larger than half the machine could only end in an allocation abort.
            if let (Some(wanted), Some(physical)) = (hash.mebibytes, physical_mebibytes())
                && wanted > physical / 2
            {
                return Err(CliError::Usage(format!(
                    "--hash {wanted} MiB is more than half of this machine's {physical} MiB of memory (0 to {})",
                    physical / 2
                )));
            }
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

    /// One engine on each of `devices` GPUs.
    fn open_devices(devices: DeviceCount, hash: HashArgs, shaders: ShaderArgs, depth: u32) -> Result<Engine, CliError> {
        let (pool, description) =
            super::common::open_device_pool(devices, |context| open_gpu_engine(context, hash, shaders, depth, false))?;
        Ok(Engine::Devices(Box::new(pool), description))
    }

    pub fn describe(&self) -> String {
        match self {
            Engine::Cpu(perft) => perft.describe(),
            Engine::Gpu(_, adapter) => format!("GPU, {adapter}"),
            Engine::Devices(_, devices) => devices.clone(),
        }
    }

    /// Whether the count runs on the GPU (one or several).
    pub fn on_gpu(&self) -> bool {
        !matches!(self, Engine::Cpu(_))
    }

    /// Perft of every root to `depth`; `progress` hears of nodes counted.
    pub fn perft(&mut self, roots: &[Position], depth: u32, progress: &Progress) -> Result<Vec<u64>, CliError> {
        match self {
            Engine::Gpu(perft, _) => Ok(perft.perft(roots, depth, &mut progress.continuing())?),
            Engine::Cpu(perft) => Ok(perft.perft(roots, depth, progress)),
            Engine::Devices(pool, _) => {
                let counts = pool_perft(pool, roots, depth, progress)?;
                counts
                    .into_iter()
                    .map(|count| {
                        u64::try_from(count).map_err(|_| {
                            CliError::Gpu(format!("a perft({depth}) count passes 2^64, more than this call returns"))
                        })
                    })
                    .collect()
            }
        }
    }

    /// Perft of one root in 128 bits, exact past 2^64: the GPU counts a
    /// root whose count passes 2^64 again by child; the CPU adds its root
    /// moves' counts from depth 12 on, where the start position's passes 2^64
    /// at depth 14.
    pub fn perft_wide(&mut self, position: &Position, depth: u32, progress: &Progress) -> Result<u128, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                Ok(perft.perft_wide(std::slice::from_ref(position), depth, &mut progress.continuing())?[0])
            }
            Engine::Cpu(perft) if depth >= WIDE_CPU_DEPTH => {
                let children: Vec<Position> = position.legal_moves().iter().map(|&mv| position.make_move(mv)).collect();
                Ok(perft.perft(&children, depth - 1, progress).into_iter().map(u128::from).sum())
            }
            Engine::Cpu(perft) => Ok(u128::from(perft.perft(std::slice::from_ref(position), depth, progress)[0])),
            Engine::Devices(pool, _) => Ok(pool_perft(pool, std::slice::from_ref(position), depth, progress)?[0]),
        }
    }

    /// Empties the GPU's transposition table, so that later GPU counts are
    /// made anew (what `--cross-check` needs; it runs on the GPU only).
    pub fn clear_table(&mut self) -> Result<(), CliError> {
        match self {
            Engine::Gpu(perft, _) => perft.clear_table()?,
            Engine::Devices(pool, _) => {
                for engine in pool.engines_mut() {
                    engine.clear_table()?;
                }
            }
            Engine::Cpu(_) => {}
        }
        Ok(())
    }

    /// `"gpu"` or `"cpu"`, as JSON reports name the backend.
    pub fn backend_name(&self) -> &'static str {
        if self.on_gpu() { "gpu" } else { "cpu" }
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
            Engine::Gpu(perft, _) => Ok(perft.perft_stats(roots, depth, &mut progress.continuing())?),
            Engine::Cpu(perft) => Ok(perft.perft_stats(roots, depth, progress)),
            Engine::Devices(..) => Err(CliError::Usage("--stats counts on one device; leave out --devices".to_owned())),
        }
    }

    /// The statistics below each root move, in UCI order.
    pub fn divide_stats(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, PerftStats)>, CliError> {
        if let Engine::Devices(..) = self {
            return Err(CliError::Usage("--stats counts on one device; leave out --devices".to_owned()));
        }
        // At depth 1 the leaves are the root moves themselves: nothing for an engine to count.
        if depth <= 1 {
            return Ok(gpu_movegen::chess::stats::divide_stats(position, depth));
        }
        perft::divide_with(position, depth, |children, below| self.perft_stats(children, below, progress))
    }

    pub fn divide(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, u64)>, CliError> {
        perft::divide_with(position, depth, |children, below| self.perft(children, below, progress))
    }

    /// [`Engine::divide`] that setting `stop` ends early with `Ok(None)`: the
    /// CPU's threads within milliseconds, a GPU at its next round trip to the
    /// device. The engine stays usable; its tables keep whole counts only.
    /// (Several devices are not stopped early: their pool keeps its own flag.)
    pub fn divide_until(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
        stop: &Arc<AtomicBool>,
    ) -> Result<Option<Vec<(Move, u64)>>, CliError> {
        if let Engine::Cpu(cpu) = self {
            let divided = perft::divide_with(position, depth, |children, below| {
                cpu.perft_until(children, below, progress, stop).ok_or(())
            });
            return Ok(divided.ok());
        }
        if let Engine::Gpu(gpu, _) = self {
            let divided = gpu.with_cancel(stop, |gpu| gpu.divide(position, depth, &mut progress.continuing()));
            return until(divided.map_err(CliError::from), stop);
        }
        until(self.divide(position, depth, progress), stop)
    }
}

/// A chess engine on `context` with the command line's table and shader
/// settings, and its description for the summary line; says on stderr where
/// a large table went.
fn open_gpu_engine(
    context: &GpuContext,
    hash: HashArgs,
    shaders: ShaderArgs,
    depth: u32,
    statistics: bool,
) -> Result<(GpuPerft, String), gpu_movegen::gpu::GpuError> {
    let build = shaders.build(context, gpu_movegen::chess::gpu::KernelFamily::Chess)?;
    let description = format!("{}, {}", context.adapter_description(), build.name());
    let memory_limit = shaders.memory_limit();
    let (table_bytes, merge_transpositions) =
        gpu_movegen::gpu::perft::requested_table(context, hash.mebibytes, memory_limit, depth)?;
    let options = PerftOptions {
        build,
        memory_limit,
        merge_transpositions,
        leaf_statistics: statistics,
        table_bytes: Some(table_bytes),
        profile_kernels: shaders.profile_kernels,
        ..Default::default()
    };
    let engine = GpuPerft::with_options(context, options)?;
    let report = engine.memory_report();
    super::common::note_memory_plan(&report, hash.mebibytes.is_none());
    let description = match engine.transposition_table_bytes() {
        0 => description,
        bytes => format!("{description}, {} MiB transposition table", bytes >> 20),
    };
    Ok((engine, description))
}

/// A count on several devices, progress showing each.
fn pool_perft(
    pool: &mut DevicePool<Chess>,
    roots: &[Position],
    depth: u32,
    progress: &Progress,
) -> Result<Vec<u128>, CliError> {
    let base = progress.nodes();
    let show = |state: &gpu_movegen::gpu::perft::PoolProgress| {
        let total: u64 = state.nodes.iter().sum();
        let each: Vec<String> =
            state.nodes.iter().enumerate().map(|(index, nodes)| format!("GPU {}: {nodes}", index + 1)).collect();
        progress.set_detail(format!("{} ({}/{} subtrees)", each.join(", "), state.subtrees_done, state.subtrees));
        progress.set(base + total);
    };
    Ok(pool.perft_wide(roots, depth, &show)?)
}

/// A count's result, or `None` when it failed because `stop` was set.
pub fn until<T>(result: Result<T, CliError>, stop: &AtomicBool) -> Result<Option<T>, CliError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(_) if stop.load(Ordering::Relaxed) => Ok(None),
        Err(error) => Err(error),
    }
}
