//! The `gpu-movegen` command line: perft, perft suites and perftree.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpu_movegen::gpu::{GpuContext, Kernel, MoveGenerator, PositionMoves};
use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Position, perft, random_play, wgpu};

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
    /// Where to run.
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
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
        Command::Perftree { depth, fen, moves } => run_perftree(depth, &fen, moves.as_deref()),
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

fn run_perft(arguments: PerftArgs) -> Result<ExitCode, UsageError> {
    let Backend::Cpu = arguments.backend;
    let pool = thread_pool(arguments.threads)?;
    if let Some(path) = &arguments.epd {
        return pool.install(|| run_suite(path, arguments.max_depth));
    }
    let position = match &arguments.fen {
        Some(fen) => Position::from_fen(fen).map_err(|error| UsageError(format!("--fen: {error}")))?,
        None => Position::start(),
    };
    let started = Instant::now();
    let mut stdout = std::io::stdout().lock();
    let nodes = if arguments.divide {
        let counts = pool.install(|| perft::divide(&position, arguments.depth, true));
        for (mv, nodes) in &counts {
            writeln!(stdout, "{mv}: {nodes}")?;
        }
        writeln!(stdout)?;
        counts.iter().map(|(_, nodes)| nodes).sum()
    } else {
        pool.install(|| perft::perft_parallel(&position, arguments.depth))
    };
    writeln!(stdout, "Nodes searched: {nodes}")?;
    report_speed(nodes, started);
    Ok(ExitCode::SUCCESS)
}

fn report_speed(nodes: u64, started: Instant) {
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("{nodes} nodes in {seconds:.3} s ({:.1} M nodes/s)", nodes as f64 / seconds.max(1e-9) / 1e6);
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

fn run_suite(path: &std::path::Path, max_depth: Option<u32>) -> Result<ExitCode, UsageError> {
    let (entries, positions) = read_suite_positions(path)?;
    let max_depth = max_depth.unwrap_or(u32::MAX);
    let started = Instant::now();
    let (mut passed, mut failed, mut total_nodes) = (0u64, 0u64, 0u64);
    let mut stdout = std::io::stdout().lock();
    for (entry, position) in entries.iter().zip(&positions) {
        let mismatches = check_entry(entry, position, max_depth, &mut total_nodes);
        if mismatches.is_empty() {
            passed += 1;
        } else {
            failed += 1;
            for (depth, expected, actual) in mismatches {
                writeln!(
                    stdout,
                    "MISMATCH line {}: {} depth {depth}: expected {expected}, got {actual}",
                    entry.line, entry.fen
                )?;
            }
        }
    }
    report_speed(total_nodes, started);
    writeln!(stdout, "{passed} passed, {failed} failed")?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn check_entry(entry: &SuiteEntry, position: &Position, max_depth: u32, total_nodes: &mut u64) -> Vec<(u32, u64, u64)> {
    let mut mismatches = Vec::new();
    for (depth, expected) in entry.expected_up_to(max_depth) {
        let actual = perft::perft_parallel(position, depth);
        *total_nodes += actual;
        if actual != expected {
            mismatches.push((depth, expected, actual));
        }
    }
    mismatches
}

fn run_perftree(depth: u32, fen: &str, moves: Option<&str>) -> Result<ExitCode, UsageError> {
    let mut position = Position::from_fen(fen).map_err(|error| UsageError(format!("FEN: {error}")))?;
    for text in moves.unwrap_or("").split_whitespace() {
        let mv = position.parse_uci_move(text)?;
        position.play(mv);
    }
    if depth == 0 {
        return Err(UsageError("DEPTH must be at least 1".to_owned()));
    }
    let counts = perft::divide(&position, depth, true);
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
    eprintln!("adapter: {}", context.adapter_description());
    let mut generator = MoveGenerator::new(&context)?;
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
