//! The `gpu-movegen` command line: perft, perft suites and perftree.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpu_movegen::gpu::{
    GeneratorOptions, GpuContext, GpuPerft, Int64Mode, Kernel, MoveGenerator, PerftOptions, PositionMoves,
    ShaderVariant,
};
use gpu_movegen::sliders::SliderAlgorithm;
use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Move, Position, perft, random_play, wgpu};
use rayon::prelude::*;

#[derive(Parser)]
#[command(
    name = "gpu-movegen",
    version,
    about = "Chess move generation and perft on the GPU, checked against a CPU reference"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree, or check a perft suite.
    Perft(PerftArgs),
    /// Run the GPU kernels and the CPU reference on the same positions and compare every move bitboard.
    Verify(VerifyArgs),
    /// List the GPU adapters, the one chosen, its limits and features.
    Info,
    /// The interface of the perftree debugging tool: DEPTH FEN [MOVES].
    Perftree {
        /// Depth below the position reached by MOVES (at least 1).
        depth: u32,
        /// The root position.
        fen: String,
        /// Space-separated UCI moves to play from FEN first.
        moves: Option<String>,
        /// Where to run (perftree itself passes no flags: `auto` by default).
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        #[command(flatten)]
        shaders: ShaderArgs,
    },
}

#[derive(clap::Args)]
struct PerftArgs {
    /// Root position (default: the start position).
    #[arg(long, conflicts_with = "epd")]
    fen: Option<String>,
    /// Depth in plies.
    #[arg(long, default_value_t = 5, conflicts_with = "epd")]
    depth: u32,
    /// Print the count below each root move.
    #[arg(long, conflicts_with = "epd")]
    divide: bool,
    /// Check every position of a perft suite (EPD `;D1 20` lines or the `.perft` format).
    #[arg(long, value_name = "FILE")]
    epd: Option<std::path::PathBuf>,
    /// With --epd: skip expected counts deeper than this.
    #[arg(long, value_name = "N", requires = "epd")]
    max_depth: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Where to run: `auto` uses the GPU when an adapter exists, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// No progress bar and no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    shaders: ShaderArgs,
}

/// How the GPU pipelines are built.
#[derive(clap::Args, Clone, Copy)]
struct ShaderArgs {
    /// Sliding-attack algorithm of the GPU kernels.
    #[arg(long, value_enum, default_value_t = SliderArg::KoggeStone)]
    slider: SliderArg,
    /// Native 64-bit bitboards in the shaders (needs SHADER_INT64); `auto` takes the measured default.
    #[arg(long, value_enum, default_value_t = Int64Arg::Auto)]
    int64: Int64Arg,
    /// The most GPU memory to allocate, in MiB (default: what the device allows,
    /// up to about 1.6 GiB for perft). Smaller is slower, never less exact.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    gpu_memory: Option<u64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum SliderArg {
    /// The seed's four-lane Kogge-Stone fill.
    KoggeStone,
    /// The same lanes, seven plain steps.
    Dumb7fill,
    /// Hyperbola Quintessence (bit reversal and byte swap).
    Hyperbola,
    /// Subtraction-based attack mask generation (seed 000).
    Sbamg,
    /// Fill by subtraction (seed 001), bit scans for the negative rays.
    Subtraction,
    /// Fancy magic bitboards, tables in a storage buffer.
    Magic,
}

#[derive(Clone, Copy, ValueEnum)]
enum Int64Arg {
    Auto,
    On,
    Off,
}

impl ShaderArgs {
    fn memory_limit(self) -> Option<u64> {
        self.gpu_memory.map(|mebibytes| mebibytes << 20)
    }

    fn variant(self, context: &GpuContext) -> Result<ShaderVariant, gpu_movegen::gpu::GpuError> {
        let slider = match self.slider {
            SliderArg::KoggeStone => SliderAlgorithm::KoggeStone,
            SliderArg::Dumb7fill => SliderAlgorithm::Dumb7Fill,
            SliderArg::Hyperbola => SliderAlgorithm::Hyperbola,
            SliderArg::Sbamg => SliderAlgorithm::Sbamg,
            SliderArg::Subtraction => SliderAlgorithm::Subtraction,
            SliderArg::Magic => SliderAlgorithm::Magic,
        };
        let mode = match self.int64 {
            Int64Arg::Auto => Int64Mode::Auto,
            Int64Arg::On => Int64Mode::On,
            Int64Arg::Off => Int64Mode::Off,
        };
        Ok(ShaderVariant { slider, native_u64: mode.resolve(context.device.features())? })
    }
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["epd", "random"])))]
struct VerifyArgs {
    /// Verify every position of a perft suite (EPD or `.perft` format).
    #[arg(long, value_name = "FILE")]
    epd: Option<std::path::PathBuf>,
    /// Verify N positions reached by seeded random play from the start position.
    #[arg(long, value_name = "N", requires = "seed")]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Kernel to verify (default: both).
    #[arg(long, value_enum)]
    kernel: Option<KernelArg>,
    #[command(flatten)]
    shaders: ShaderArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum KernelArg {
    /// One invocation per (position, square).
    PerPiece,
    /// One invocation per position.
    PerPosition,
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// The GPU if an adapter can be opened, otherwise the CPU (said on stderr).
    Auto,
    /// The GPU; fails if no adapter can be opened.
    Gpu,
    /// The multi-threaded CPU reference.
    Cpu,
}

/// A failure that is the user's input or environment: one line, exit code 2.
struct UsageError(String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(error: E) -> Self {
        UsageError(error.to_string())
    }
}

fn main() -> ExitCode {
    // Mesa's device-select layer prints "error: XDG_RUNTIME_DIR is invalid"
    // on headless machines when it loads; this turns the layer off. It runs
    // before any other thread exists, as set_var requires.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: the process is still single-threaded here.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            // clap's first line names the problem; the usage lines after it are noise here.
            let rendered = error.to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            eprintln!("{first} (see 'gpu-movegen --help')");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Perft(arguments) => run_perft(arguments),
        Command::Verify(arguments) => run_verify(arguments),
        Command::Info => run_info(),
        Command::Perftree { depth, fen, moves, backend, shaders } => {
            run_perftree(depth, &fen, moves.as_deref(), backend, shaders)
        }
    };
    match outcome {
        Ok(code) => code,
        Err(UsageError(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn thread_pool(threads: Option<u32>) -> Result<rayon::ThreadPool, UsageError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        builder = builder.num_threads(threads as usize);
    }
    Ok(builder.build()?)
}

/// Whether `--backend auto` counts on the CPU although this adapter exists:
/// a software rasteriser runs the kernels on these same cores, several times
/// slower than the CPU backend, unless the user named it in WGPU_ADAPTER_NAME.
fn auto_prefers_cpu(info: &wgpu::AdapterInfo) -> bool {
    info.device_type == wgpu::DeviceType::Cpu && std::env::var_os("WGPU_ADAPTER_NAME").is_none()
}

/// Where perft runs.
enum Engine {
    Cpu(rayon::ThreadPool),
    Gpu(Box<GpuPerft>, String),
}

impl Engine {
    fn open(backend: Backend, threads: Option<u32>, shaders: ShaderArgs) -> Result<Engine, UsageError> {
        let gpu = || -> Result<Engine, gpu_movegen::gpu::GpuError> {
            let context = GpuContext::new()?;
            let variant = shaders.variant(&context)?;
            let description = format!("{}, {}", context.adapter_description(), variant.name());
            let options = PerftOptions { variant, memory_limit: shaders.memory_limit(), ..Default::default() };
            Ok(Engine::Gpu(Box::new(GpuPerft::with_options(&context, options)?), description))
        };
        match backend {
            Backend::Cpu => Ok(Engine::Cpu(thread_pool(threads)?)),
            Backend::Gpu => Ok(gpu()?),
            Backend::Auto => match gpu_movegen::gpu::context::preferred_adapter() {
                Ok(info)
                    if info.device_type == wgpu::DeviceType::Cpu && std::env::var_os("WGPU_ADAPTER_NAME").is_none() =>
                {
                    eprintln!(
                        "note: the only GPU adapter, {}, is a software one; counting on the CPU, which is faster \
                         here (--backend gpu runs on it anyway)",
                        gpu_movegen::gpu::context::describe_adapter(&info)
                    );
                    Ok(Engine::Cpu(thread_pool(threads)?))
                }
                _ => match gpu() {
                    Ok(engine) => Ok(engine),
                    Err(error) => {
                        eprintln!("note: {error}");
                        eprintln!("note: running on the CPU instead");
                        Ok(Engine::Cpu(thread_pool(threads)?))
                    }
                },
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            Engine::Cpu(pool) => format!("CPU, {} threads", pool.current_num_threads()),
            Engine::Gpu(_, adapter) => format!("GPU, {adapter}"),
        }
    }

    /// Perft of every root to `depth`; `progress` hears of nodes counted.
    fn perft(&mut self, roots: &[Position], depth: u32, progress: &Progress) -> Result<Vec<u64>, UsageError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.perft(roots, depth, &mut |nodes| progress.set(base + nodes))?)
            }
            Engine::Cpu(pool) => Ok(pool.install(|| {
                roots
                    .iter()
                    .map(|root| {
                        if depth < 2 {
                            let nodes = perft::perft(root, depth);
                            progress.add(nodes);
                            return nodes;
                        }
                        // Root moves in parallel, progress as each finishes.
                        root.legal_moves()
                            .par_iter()
                            .map(|mv| {
                                let nodes = perft::perft_parallel(&root.make_move(*mv), depth - 1);
                                progress.add(nodes);
                                nodes
                            })
                            .sum()
                    })
                    .collect()
            })),
        }
    }

    fn divide(&mut self, position: &Position, depth: u32, progress: &Progress) -> Result<Vec<(Move, u64)>, UsageError> {
        perft::divide_with(position, depth, |children, below| self.perft(children, below, progress))
    }
}

/// Progress on stderr: hidden at first, shown once a run passes a second,
/// never when stderr is not a terminal or with --quiet.
struct Progress {
    bar: indicatif::ProgressBar,
    nodes: AtomicU64,
    started: Instant,
    quiet: bool,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        Progress { bar, nodes: AtomicU64::new(0), started: Instant::now(), quiet }
    }

    fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    fn add(&self, nodes: u64) {
        let total = self.nodes.fetch_add(nodes, Ordering::Relaxed) + nodes;
        self.show(total);
    }

    fn set(&self, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
        self.show(nodes);
    }

    fn show(&self, nodes: u64) {
        let seconds = self.started.elapsed().as_secs_f64();
        if self.quiet || seconds < 1.0 {
            return;
        }
        if self.bar.is_hidden() && std::io::stderr().is_terminal() {
            self.bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(std::time::Duration::from_millis(200));
        }
        self.bar.set_message(format!("{nodes} nodes, {:.1} M nodes/s", nodes as f64 / seconds / 1e6));
    }

    /// Clears the bar and prints the summary line.
    fn finish(&self, nodes: u64, engine: &Engine) {
        self.bar.finish_and_clear();
        if !self.quiet {
            let seconds = self.started.elapsed().as_secs_f64();
            eprintln!(
                "{nodes} nodes in {seconds:.3} s ({:.1} M nodes/s) on the {}",
                nodes as f64 / seconds.max(1e-9) / 1e6,
                engine.describe()
            );
        }
    }
}

fn run_perft(arguments: PerftArgs) -> Result<ExitCode, UsageError> {
    let position = match &arguments.fen {
        Some(fen) => Some(Position::from_fen(fen).map_err(|error| UsageError(format!("--fen: {error}")))?),
        None => None,
    };
    if arguments.divide && arguments.depth == 0 {
        return Err(UsageError(
            "--divide needs --depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
        ));
    }
    let suite = match &arguments.epd {
        Some(path) => Some(read_suite_positions(path)?),
        None => None,
    };
    let mut engine = Engine::open(arguments.backend, arguments.threads, arguments.shaders)?;
    if let Some((entries, positions)) = suite {
        return run_suite(&mut engine, &entries, &positions, arguments.max_depth, arguments.quiet);
    }
    let position = position.unwrap_or_default();
    let progress = Progress::new(arguments.quiet);
    let mut stdout = std::io::stdout().lock();
    let nodes = if arguments.divide {
        let counts = engine.divide(&position, arguments.depth, &progress)?;
        for (mv, nodes) in &counts {
            writeln!(stdout, "{mv}: {nodes}")?;
        }
        writeln!(stdout)?;
        counts.iter().map(|(_, nodes)| nodes).sum()
    } else {
        engine.perft(&[position], arguments.depth, &progress)?[0]
    };
    progress.finish(nodes, &engine);
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

fn read_suite_positions(path: &std::path::Path) -> Result<(Vec<SuiteEntry>, Vec<Position>), UsageError> {
    let text = std::fs::read_to_string(path).map_err(|error| UsageError(format!("{}: {error}", path.display())))?;
    let entries = parse_suite(&text).map_err(|error| UsageError(format!("{}: {error}", path.display())))?;
    let positions = entries
        .iter()
        .map(|entry| {
            entry
                .position()
                .map_err(|error| UsageError(format!("{}: line {}: invalid FEN: {error}", path.display(), entry.line)))
        })
        .collect::<Result<Vec<Position>, UsageError>>()?;
    Ok((entries, positions))
}

/// Checks a suite, depth by depth: all positions with an expectation at a
/// depth are counted in one batch (on the GPU they share the arena).
fn run_suite(
    engine: &mut Engine,
    entries: &[SuiteEntry],
    positions: &[Position],
    max_depth: Option<u32>,
    quiet: bool,
) -> Result<ExitCode, UsageError> {
    let max_depth = max_depth.unwrap_or(u32::MAX);
    let progress = Progress::new(quiet);
    let mut depths: Vec<u32> =
        entries.iter().flat_map(|entry| entry.expected_up_to(max_depth)).map(|(depth, _)| depth).collect();
    depths.sort_unstable();
    depths.dedup();
    let mut failed_entries = vec![false; entries.len()];
    let mut mismatches = Vec::new();
    let mut total_nodes = 0u64;
    for depth in depths {
        let batch: Vec<(usize, u64)> = entries
            .iter()
            .enumerate()
            .flat_map(|(index, entry)| {
                entry
                    .expected_up_to(max_depth)
                    .filter(move |(at, _)| *at == depth)
                    .map(move |(_, nodes)| (index, nodes))
            })
            .collect();
        let roots: Vec<Position> = batch.iter().map(|(index, _)| positions[*index]).collect();
        let counts = engine.perft(&roots, depth, &progress)?;
        for ((index, expected), actual) in batch.into_iter().zip(counts) {
            total_nodes += actual;
            if actual != expected {
                failed_entries[index] = true;
                mismatches.push((entries[index].line, depth, expected, actual));
            }
        }
    }
    progress.finish(total_nodes, engine);
    let mut stdout = std::io::stdout().lock();
    mismatches.sort_unstable();
    for (line, depth, expected, actual) in mismatches {
        let fen = &entries.iter().find(|entry| entry.line == line).expect("entry of a mismatch").fen;
        writeln!(stdout, "MISMATCH line {line}: {fen} depth {depth}: expected {expected}, got {actual}")?;
    }
    let failed = failed_entries.iter().filter(|failed| **failed).count();
    writeln!(stdout, "{} passed, {failed} failed", entries.len() - failed)?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_perftree(
    depth: u32,
    fen: &str,
    moves: Option<&str>,
    backend: Backend,
    shaders: ShaderArgs,
) -> Result<ExitCode, UsageError> {
    let mut position = Position::from_fen(fen).map_err(|error| UsageError(format!("FEN: {error}")))?;
    for text in moves.unwrap_or("").split_whitespace() {
        let mv = position.parse_uci_move(text)?;
        position.play(mv);
    }
    if depth == 0 {
        return Err(UsageError("DEPTH must be at least 1".to_owned()));
    }
    let mut engine = Engine::open(backend, None, shaders)?;
    let counts = engine.divide(&position, depth, &Progress::new(true))?;
    let mut stdout = std::io::stdout().lock();
    for (mv, nodes) in &counts {
        writeln!(stdout, "{mv} {nodes}")?;
    }
    writeln!(stdout)?;
    writeln!(stdout, "{}", counts.iter().map(|(_, nodes)| nodes).sum::<u64>())?;
    Ok(ExitCode::SUCCESS)
}

fn run_verify(arguments: VerifyArgs) -> Result<ExitCode, UsageError> {
    let positions = match (&arguments.epd, arguments.random, arguments.seed) {
        (Some(path), _, _) => read_suite_positions(path)?.1,
        (None, Some(count), Some(seed)) => random_play::random_positions(&Position::start(), count, 120, seed),
        _ => return Err(UsageError("give --epd FILE or --random N --seed S".to_owned())),
    };
    let kernels = match arguments.kernel {
        Some(KernelArg::PerPiece) => vec![Kernel::PerPiece],
        Some(KernelArg::PerPosition) => vec![Kernel::PerPosition],
        None => vec![Kernel::PerPiece, Kernel::PerPosition],
    };
    let context = GpuContext::new()?;
    let variant = arguments.shaders.variant(&context)?;
    eprintln!("adapter: {}, shaders: {}", context.adapter_description(), variant.name());
    let options = GeneratorOptions { variant, memory_limit: arguments.shaders.memory_limit(), ..Default::default() };
    let mut generator = MoveGenerator::with_options(&context, options)?;
    let expected: Vec<PositionMoves> = positions.iter().map(PositionMoves::from_cpu).collect();
    let (mut passed, mut failed) = (0u64, 0u64);
    let mut stdout = std::io::stdout().lock();
    for kernel in kernels {
        let started = Instant::now();
        let answers = generator.generate(&positions, kernel)?;
        eprintln!("{kernel:?}: {} positions in {:.3} s", positions.len(), started.elapsed().as_secs_f64());
        for ((position, gpu), cpu) in positions.iter().zip(&answers).zip(&expected) {
            if gpu == cpu {
                passed += 1;
                continue;
            }
            failed += 1;
            let fen = position.to_fen();
            for (square, gpu_destinations, cpu_destinations) in gpu.differences(cpu) {
                let piece = position.piece_kind_on(square).map_or("empty square".to_owned(), |piece| piece.to_string());
                writeln!(
                    stdout,
                    "MISMATCH {kernel:?} {fen}: {piece} on {square}: gpu {:#018x}, cpu {:#018x}",
                    gpu_destinations.0, cpu_destinations.0
                )?;
            }
            if gpu.move_count != cpu.move_count {
                writeln!(
                    stdout,
                    "MISMATCH {kernel:?} {fen}: move count gpu {}, cpu {}",
                    gpu.move_count, cpu.move_count
                )?;
            }
        }
    }
    writeln!(stdout, "{passed} passed, {failed} failed")?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_info() -> Result<ExitCode, UsageError> {
    let mut stdout = std::io::stdout().lock();
    let adapters = gpu_movegen::gpu::list_adapters();
    writeln!(stdout, "adapters ({}):", adapters.len())?;
    for info in &adapters {
        writeln!(stdout, "  {}", gpu_movegen::gpu::context::describe_adapter(info))?;
    }
    let context = GpuContext::new()?;
    let limits = context.device.limits();
    let features = context.device.features();
    let adapter_features = context.adapter_info.as_ref().map(|info| info.backend);
    writeln!(stdout, "chosen: {}", context.adapter_description())?;
    let software = context.adapter_info.as_ref().is_some_and(auto_prefers_cpu);
    writeln!(
        stdout,
        "perft --backend auto: {}",
        if software { "the CPU (this adapter is a software one; --backend gpu uses it)" } else { "this GPU" }
    )?;
    if let Some(backend) = adapter_features {
        writeln!(stdout, "backend: {backend:?}")?;
    }
    writeln!(stdout, "limits:")?;
    writeln!(stdout, "  max_storage_buffer_binding_size: {}", limits.max_storage_buffer_binding_size)?;
    writeln!(stdout, "  max_buffer_size: {}", limits.max_buffer_size)?;
    writeln!(stdout, "  max_compute_workgroups_per_dimension: {}", limits.max_compute_workgroups_per_dimension)?;
    writeln!(stdout, "  max_compute_invocations_per_workgroup: {}", limits.max_compute_invocations_per_workgroup)?;
    writeln!(stdout, "  max_compute_workgroup_storage_size: {}", limits.max_compute_workgroup_storage_size)?;
    writeln!(stdout, "features:")?;
    writeln!(stdout, "  SHADER_INT64: {}", features.contains(wgpu::Features::SHADER_INT64))?;
    writeln!(stdout, "  TIMESTAMP_QUERY: {}", features.contains(wgpu::Features::TIMESTAMP_QUERY))?;
    Ok(ExitCode::SUCCESS)
}
