//! `gpu-movegen shogi ...`: Shogi perft on the CPU (one position, divide,
//! suites) and checking moves. The Shogi GPU kernels and `verify` are still
//! to come and say so.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;
use gpu_movegen::shogi::perft::{divide, perft_parallel};
use gpu_movegen::shogi::{Position, START_SFEN};

use super::common::{Backend, UsageError, thread_pool};

#[derive(Subcommand)]
pub enum ShogiCommand {
    /// Count the leaf nodes of the legal move tree, or check a perft suite.
    Perft(ShogiPerftArgs),
    /// Compare the GPU kernels with the CPU reference (not built yet).
    Verify {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        arguments: Vec<String>,
    },
    /// List the checking moves of a position, generated directly: one USI move a line, then `Checks: N`.
    Checks {
        /// The position (default: the start position).
        #[arg(long)]
        sfen: Option<String>,
    },
}

#[derive(clap::Args)]
pub struct ShogiPerftArgs {
    /// Root position (default: the start position).
    #[arg(long, conflicts_with = "epd")]
    sfen: Option<String>,
    /// Depth in plies.
    #[arg(long, default_value_t = 4, conflicts_with = "epd")]
    depth: u32,
    /// Print the count below each root move first, as `<usi>: <count>`.
    #[arg(long, conflicts_with = "epd")]
    divide: bool,
    /// Check every position of a suite: SFEN lines followed by `;D1 n ;D2 n`.
    #[arg(long, value_name = "FILE")]
    epd: Option<std::path::PathBuf>,
    /// With --epd: skip expected counts deeper than this.
    #[arg(long, value_name = "N", requires = "epd")]
    max_depth: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Where to run; the Shogi GPU kernels are not built yet, so `auto` counts on the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// No summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(command: ShogiCommand) -> Result<ExitCode, UsageError> {
    match command {
        ShogiCommand::Perft(arguments) => run_perft(arguments),
        ShogiCommand::Verify { .. } => {
            Err(UsageError("'gpu-movegen shogi verify': the Shogi GPU kernels are not built yet".to_owned()))
        }
        ShogiCommand::Checks { sfen } => {
            let position = parse_sfen(sfen.as_deref().unwrap_or(START_SFEN), "--sfen")?;
            let mut checks: Vec<String> = position.generate_checks().iter().map(ToString::to_string).collect();
            checks.sort();
            let mut stdout = std::io::stdout().lock();
            for mv in &checks {
                writeln!(stdout, "{mv}")?;
            }
            writeln!(stdout, "Checks: {}", checks.len())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn parse_sfen(text: &str, what: &str) -> Result<Position, UsageError> {
    Position::from_sfen(text).map_err(|error| UsageError(format!("{what}: {error}")))
}

fn run_perft(arguments: ShogiPerftArgs) -> Result<ExitCode, UsageError> {
    if arguments.divide && arguments.depth == 0 {
        return Err(UsageError(
            "--divide needs --depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
        ));
    }
    let position = parse_sfen(arguments.sfen.as_deref().unwrap_or(START_SFEN), "--sfen")?;
    let suite = match &arguments.epd {
        Some(path) => Some(read_suite(path)?),
        None => None,
    };
    match arguments.backend {
        Backend::Gpu => {
            return Err(UsageError("the Shogi GPU kernels are not built yet; use --backend cpu (or auto)".to_owned()));
        }
        Backend::Auto if !arguments.quiet => {
            eprintln!("note: the Shogi GPU kernels are not built yet; counting on the CPU")
        }
        _ => {}
    }
    let pool = thread_pool(arguments.threads)?;
    let started = Instant::now();
    let mut stdout = std::io::stdout().lock();
    if let Some(entries) = suite {
        let max_depth = arguments.max_depth.unwrap_or(u32::MAX);
        let (mut passed, mut failed, mut nodes) = (0, 0, 0u64);
        for (line, sfen, position, expected) in entries {
            let mut ok = true;
            for (depth, count) in expected.into_iter().filter(|(depth, _)| *depth <= max_depth) {
                let actual = pool.install(|| perft_parallel(&position, depth));
                nodes += actual;
                if actual != count {
                    ok = false;
                    writeln!(stdout, "MISMATCH line {line}: {sfen} depth {depth}: expected {count}, got {actual}")?;
                }
            }
            if ok { passed += 1 } else { failed += 1 }
        }
        summary(arguments.quiet, nodes, started, pool.current_num_threads());
        writeln!(stdout, "{passed} passed, {failed} failed")?;
        return Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let nodes = if arguments.divide {
        let counts = pool.install(|| divide(&position, arguments.depth));
        for (mv, nodes) in &counts {
            writeln!(stdout, "{mv}: {nodes}")?;
        }
        writeln!(stdout)?;
        counts.iter().map(|(_, nodes)| nodes).sum()
    } else {
        pool.install(|| perft_parallel(&position, arguments.depth))
    };
    summary(arguments.quiet, nodes, started, pool.current_num_threads());
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

fn summary(quiet: bool, nodes: u64, started: Instant, threads: usize) {
    if !quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{nodes} nodes in {seconds:.3} s ({:.1} M nodes/s) on the CPU, {threads} threads",
            nodes as f64 / seconds.max(1e-9) / 1e6
        );
    }
}

/// (line, SFEN, position, [(depth, nodes)]) of every entry of a suite file.
type SuiteEntry = (usize, String, Position, Vec<(u32, u64)>);

fn read_suite(path: &std::path::Path) -> Result<Vec<SuiteEntry>, UsageError> {
    let text = std::fs::read_to_string(path).map_err(|error| UsageError(format!("{}: {error}", path.display())))?;
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let problem = |problem: String| UsageError(format!("{}: line {line}: {problem}", path.display()));
        let mut fields = content.split(';');
        let sfen = fields.next().unwrap_or("").trim().to_owned();
        let position = Position::from_sfen(&sfen).map_err(|error| problem(format!("invalid SFEN: {error}")))?;
        let mut expected = Vec::new();
        for field in fields {
            let field = field.trim();
            let parsed = field.strip_prefix('D').and_then(|rest| {
                let (depth, nodes) = rest.split_once(char::is_whitespace)?;
                Some((depth.parse::<u32>().ok().filter(|depth| *depth >= 1)?, nodes.trim().parse::<u64>().ok()?))
            });
            expected.push(parsed.ok_or_else(|| problem(format!("'{field}' is not a count such as 'D2 900'")))?);
        }
        entries.push((line, sfen, position, expected));
    }
    Ok(entries)
}
