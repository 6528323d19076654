//! The `gpu-movegen` command line: perft, perft suites and perftree.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Position, perft};

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

fn run_suite(path: &std::path::Path, max_depth: Option<u32>) -> Result<ExitCode, UsageError> {
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
