//! `gpu-movegen shogi ...`: Shogi perft on the GPU or the CPU (one
//! position, divide, suites), verification of the GPU against the CPU, and
//! checking moves.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;
use gpu_movegen::gpu::perft::Counter;
use gpu_movegen::shogi::gpu::{ShogiMoveGenerator, ShogiPerftOptions, ShogiPositionMoves};

use gpu_movegen::shogi::{Position, START_SFEN, ShogiGame};

use super::common::{Backend, CliError, GpuTableArgs, open_backend, thread_pool};

#[derive(Subcommand)]
pub enum ShogiCommand {
    /// Count the leaf nodes of the legal move tree, or check a perft suite.
    Perft(ShogiPerftArgs),
    /// Compare every position's move sets (per-position kernel) and perft(1), perft(2) with the CPU.
    #[command(group(clap::ArgGroup::new("source").required(true).args(["epd", "random"])))]
    Verify {
        /// Positions of a suite (SFEN lines, counts after ';' ignored).
        #[arg(long, value_name = "FILE")]
        epd: Option<std::path::PathBuf>,
        /// N positions (1 to 100,000) from seeded random games from the start position.
        #[arg(long, value_name = "N", requires = "seed", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
        random: Option<usize>,
        /// Seed for --random.
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// The most GPU memory to allocate, in MiB.
        #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
        gpu_memory: Option<u64>,
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
    /// Depth in plies (at most 16, past what any machine could count).
    #[arg(long, default_value_t = 4, conflicts_with = "epd",
          value_parser = clap::value_parser!(u32).range(0..=gpu_movegen::shogi::perft::MAX_DEPTH as i64))]
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
    #[command(flatten)]
    counting: super::common::GameCountingArgs,
    /// No summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(command: ShogiCommand) -> Result<ExitCode, CliError> {
    match command {
        ShogiCommand::Perft(arguments) => run_perft(arguments),
        ShogiCommand::Verify { epd, random, seed, gpu_memory } => run_verify(epd, random, seed, gpu_memory),
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

/// Where Shogi perft runs: the library's shared counter.
pub(super) type Engine = Counter<ShogiGame>;

/// A Shogi counter as `backend` asks. `depth`: the deepest count, which
/// sizes the default table.
pub(super) fn open_engine(
    backend: Backend,
    threads: Option<u32>,
    gpu_memory: Option<u64>,
    hash: GpuTableArgs,
    depth: u32,
    quiet: bool,
    profile_kernels: bool,
) -> Result<Engine, CliError> {
    let gpu = || -> Result<Engine, gpu_movegen::gpu::GpuError> {
        let context = super::common::open_gpu()?;
        let memory_limit = gpu_memory.map(|mebibytes| mebibytes << 20);
        let (table_bytes, merge_transpositions) = hash.resolve(&context, memory_limit, depth)?;
        let options = ShogiPerftOptions {
            memory_limit,
            fused_leaves: gpu_movegen::shogi::gpu::fused_leaves_suit(&context, table_bytes > 0 || merge_transpositions),
            table_bytes: Some(table_bytes),
            merge_transpositions,
            profile_kernels,
            ..Default::default()
        };
        super::common::announce_if_slow(
            quiet,
            "building and self-testing the Shogi GPU kernels (the first run on a driver compiles them)",
            || Engine::gpu(&context, options),
        )
    };
    super::common::set_quiet(quiet);
    open_backend(backend, gpu, || Ok(Engine::Cpu(thread_pool(threads)?)))
}

fn parse_sfen(text: &str, what: &str) -> Result<Position, CliError> {
    Position::from_sfen(text).map_err(|error| CliError::Usage(format!("{what}: {error}")))
}

fn run_perft(arguments: ShogiPerftArgs) -> Result<ExitCode, CliError> {
    if arguments.divide && arguments.depth == 0 {
        return Err(CliError::Usage(
            "--divide needs --depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
        ));
    }
    let position = parse_sfen(arguments.sfen.as_deref().unwrap_or(START_SFEN), "--sfen")?;
    let suite = match &arguments.epd {
        Some(path) => Some(read_suite(path)?),
        None => None,
    };
    let max_depth = arguments.max_depth.unwrap_or(u32::MAX);
    if let (Some(entries), Some(path)) = (&suite, &arguments.epd)
        && !entries.iter().any(|(_, _, _, expected)| expected.iter().any(|(depth, _)| *depth <= max_depth))
    {
        // A run that counts nothing must not report passes.
        return Err(CliError::Usage(format!(
            "{}: {}; nothing would be counted",
            path.display(),
            super::common::no_counts_problem(arguments.max_depth)
        )));
    }
    let deepest = match &suite {
        Some(entries) => entries
            .iter()
            .flat_map(|(_, _, _, expected)| expected.iter().map(|(depth, _)| *depth))
            .filter(|depth| *depth <= max_depth)
            .max()
            .unwrap_or(0),
        None => arguments.depth,
    };
    let mut engine = open_engine(
        arguments.counting.backend,
        arguments.counting.threads,
        arguments.counting.gpu_memory,
        arguments.counting.hash,
        deepest,
        arguments.quiet,
        arguments.counting.profile_kernels,
    )?;
    let started = Instant::now();
    let mut stdout = std::io::stdout().lock();
    if let Some(entries) = suite {
        let (mut passed, mut failed, mut nodes) = (0, 0, 0u64);
        for (line, sfen, position, expected) in entries {
            let mut ok = true;
            for (depth, count) in expected.into_iter().filter(|(depth, _)| *depth <= max_depth) {
                let actual = engine.perft(&[position], depth, &|_| {})?[0];
                nodes += actual;
                if actual != count {
                    ok = false;
                    writeln!(stdout, "MISMATCH line {line}: {sfen} depth {depth}: expected {count}, got {actual}")?;
                }
            }
            if ok { passed += 1 } else { failed += 1 }
        }
        summary(arguments.quiet, nodes, started, &engine.describe());
        super::common::print_kernel_times(&engine.kernel_times());
        writeln!(stdout, "{passed} passed, {failed} failed")?;
        return Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    super::common::note_if_endless(
        arguments.depth,
        gpu_movegen::shogi::perft::perft(&position, 1),
        gpu_movegen::shogi::perft::perft(&position, 2),
    );
    let nodes = if arguments.divide {
        let counts = engine.divide(&position, arguments.depth, &|_| {})?;
        for (mv, nodes) in &counts {
            writeln!(stdout, "{mv}: {nodes}")?;
        }
        writeln!(stdout)?;
        counts.iter().map(|(_, nodes)| nodes).sum()
    } else {
        engine.perft(&[position], arguments.depth, &|_| {})?[0]
    };
    summary(arguments.quiet, nodes, started, &engine.describe());
    super::common::print_kernel_times(&engine.kernel_times());
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

fn run_verify(
    epd: Option<std::path::PathBuf>,
    random: Option<usize>,
    seed: Option<u64>,
    gpu_memory: Option<u64>,
) -> Result<ExitCode, CliError> {
    let positions: Vec<Position> = match (epd, random, seed) {
        (Some(path), _, _) => read_suite(&path)?.into_iter().map(|(_, _, position, _)| position).collect(),
        (None, Some(count), Some(seed)) => gpu_movegen::shogi::perft::random_positions(count, seed),
        _ => return Err(CliError::Usage("give --epd FILE or --random N --seed S".to_owned())),
    };
    // Verify counts shallow subtrees: the smallest default table.
    let mut engine = open_engine(Backend::Gpu, None, gpu_memory, GpuTableArgs { mebibytes: None }, 3, false, false)?;
    eprintln!("adapter: {}", engine.describe());
    let (mut passed, mut failed) = (0u64, 0u64);
    let mut stdout = std::io::stdout().lock();
    let mut mismatched = vec![false; positions.len()];
    // The move sets of the per-position kernel, square by square and drop by drop.
    let mut generator = ShogiMoveGenerator::new(&super::common::open_gpu()?)?;
    let generated = generator.generate(&positions)?;
    for (index, (position, gpu)) in positions.iter().zip(&generated).enumerate() {
        let cpu = ShogiPositionMoves::from_cpu(position);
        if *gpu != cpu {
            mismatched[index] = true;
            writeln!(stdout, "MISMATCH {} move sets: gpu {gpu:?}, cpu {cpu:?}", position.to_sfen())?;
        }
    }
    for depth in 1..=2 {
        let counts = engine.perft(&positions, depth, &|_| {})?;
        for (index, (position, gpu)) in positions.iter().zip(counts).enumerate() {
            let cpu = gpu_movegen::shogi::perft::perft_parallel(position, depth);
            if gpu != cpu {
                mismatched[index] = true;
                writeln!(stdout, "MISMATCH {} perft({depth}): gpu {gpu}, cpu {cpu}", position.to_sfen())?;
            }
        }
    }
    for bad in mismatched {
        if bad { failed += 1 } else { passed += 1 }
    }
    writeln!(stdout, "{passed} passed, {failed} failed")?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn summary(quiet: bool, nodes: u64, started: Instant, engine: &str) {
    if !quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{nodes} nodes in {seconds:.3} s ({:.1} M nodes/s) on the {engine}",
            nodes as f64 / seconds.max(1e-9) / 1e6
        );
    }
}

/// (line, SFEN, position, [(depth, nodes)]) of every entry of a suite file.
type SuiteEntry = (usize, String, Position, Vec<(u32, u64)>);

fn read_suite(path: &std::path::Path) -> Result<Vec<SuiteEntry>, CliError> {
    let text = gpu_movegen::files::read_text(path, gpu_movegen::files::MAX_INPUT_BYTES)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let problem = |problem: String| CliError::Usage(format!("{}: line {line}: {problem}", path.display()));
        if let Some(overlong) = gpu_movegen::files::overlong(raw) {
            return Err(problem(overlong));
        }
        let mut fields = content.split(';');
        let sfen = fields.next().unwrap_or("").trim().to_owned();
        let position = Position::from_sfen(&sfen).map_err(|error| problem(format!("invalid SFEN: {error}")))?;
        let mut expected = Vec::new();
        for field in fields {
            let field = field.trim();
            let parsed = field.strip_prefix('D').and_then(|rest| {
                let (depth, nodes) = rest.split_once(char::is_whitespace)?;
                let depth = depth
                    .parse::<u32>()
                    .ok()
                    .filter(|depth| (1..=gpu_movegen::shogi::perft::MAX_DEPTH).contains(depth))?;
                Some((depth, nodes.trim().parse::<u64>().ok()?))
            });
            let deepest = gpu_movegen::shogi::perft::MAX_DEPTH;
            let refused = || problem(format!("'{field}' is not a count such as 'D2 900' (depth 1 to {deepest})"));
            expected.push(parsed.ok_or_else(refused)?);
        }
        // A position with nothing to check must not read as passed.
        if expected.is_empty() {
            return Err(problem("no ';D<depth> <nodes>' counts after the SFEN".to_owned()));
        }
        entries.push((line, sfen, position, expected));
    }
    Ok(entries)
}
