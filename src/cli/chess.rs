//! The chess commands: perft (one position, divide, suites), perftree and
//! verify, on the CPU or the GPU.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;

use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::gpu::{GeneratorOptions, GpuPerft, Kernel, MoveGenerator, PerftOptions, PositionMoves};
use gpu_movegen::chess::transposition::physical_mebibytes;
use gpu_movegen::chess::{cross_check, units};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Move, Position, perft, random_play};

use super::common::{Backend, CliError, Progress, ShaderArgs, escape_controls, open_backend};

#[derive(clap::Args)]
pub struct PerftArgs {
    /// Root position (default: the start position).
    #[arg(long, conflicts_with = "epd")]
    fen: Option<String>,
    /// Depth in plies (at most 64).
    #[arg(long, default_value_t = 5, conflicts_with = "epd", value_parser = clap::value_parser!(u32).range(0..=gpu_movegen::perft::MAX_DEPTH as i64))]
    depth: u32,
    /// Print the count below each root move.
    #[arg(long, conflicts_with = "epd")]
    divide: bool,
    /// With --divide: write castling as king takes rook (`e1h1`, UCI_Chess960)
    /// instead of the king's move (`e1g1`). Positions whose castling needs
    /// Chess960 rules (a king off e or a rook off a and h) are always written so.
    #[arg(long, requires = "divide")]
    chess960: bool,
    /// Check every position of a perft suite (EPD `;D1 20` lines or the `.perft` format).
    #[arg(long, value_name = "FILE")]
    epd: Option<std::path::PathBuf>,
    /// Count the published perft table's eight columns at the leaves:
    /// captures, en passant, castles, promotions, checks, discovered checks,
    /// double checks and checkmates (on the CPU; with --divide, per root move).
    #[arg(long, conflicts_with = "epd")]
    stats: bool,
    /// Print one JSON object on stdout instead of text (keys: fen, depth,
    /// backend, seconds, nodes, the statistics with --stats, divide with
    /// --divide; for --epd: passed, failed, nodes, seconds, mismatches).
    #[arg(long)]
    json: bool,
    /// With --epd: skip expected counts deeper than this.
    #[arg(long, value_name = "N", requires = "epd")]
    max_depth: Option<u32>,
    /// After a GPU count, count K subtrees drawn at random a few plies below
    /// the root (at most 4 plies deep each) on the GPU and on the CPU, and
    /// fail with exit code 1 on any difference. Default: 8 at depth 5 or
    /// more on the GPU, otherwise 0 (off).
    #[arg(long, value_name = "K", conflicts_with = "epd", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    cross_check: Option<u32>,
    #[command(flatten)]
    counting: CountingArgs,
}

/// Subtrees a GPU perft to depth 5 or more recounts on both backends by
/// default: at most 8 perft(4) counts on the CPU, a few milliseconds each.
const DEFAULT_CROSS_CHECKS: u32 = 8;

/// Where and how perft counts: what `perft` and `perft run-unit` share.
#[derive(clap::Args, Clone, Copy)]
pub struct CountingArgs {
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Where to run: `auto` uses the GPU when an adapter exists, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    #[command(flatten)]
    hash: HashArgs,
    /// No progress bar and no summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    shaders: ShaderArgs,
}

/// The transposition table's size.
#[derive(clap::Args, Clone, Copy)]
pub struct HashArgs {
    /// Transposition table for the CPU backend, in MiB; 0 turns transpositions
    /// off on every backend (the GPU backend merges equal positions of each
    /// stored level otherwise). Default: what the depth needs (16 MiB up to
    /// depth 5, 64 MiB at depth 6, three times more a ply beyond), at most an
    /// eighth of physical memory and 4096 MiB.
    #[arg(long = "hash", value_name = "MIB", value_parser = clap::value_parser!(u64).range(0..=1 << 22))]
    mebibytes: Option<u64>,
}

/// `gpu-movegen perft`: count one position or a suite, or work with units.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PerftCommand {
    #[command(subcommand)]
    action: Option<PerftAction>,
    #[command(flatten)]
    arguments: PerftArgs,
}

#[derive(clap::Subcommand)]
pub enum PerftAction {
    /// Write the distinct positions at a ply, with multiplicities, into work-unit files and a manifest.
    Split {
        /// Root position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Total depth from the root (at most 64).
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=gpu_movegen::perft::MAX_DEPTH as i64))]
        depth: u32,
        /// The ply whose distinct positions are split.
        #[arg(long)]
        split_depth: u32,
        /// Number of unit files.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        units: u32,
        /// Folder for the units and the manifest (created; must not hold a split already).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
    },
    /// Count one unit and write DIR/unit-XXXX.result atomically (nothing to do if a valid result exists).
    RunUnit {
        /// The unit file.
        unit: std::path::PathBuf,
        #[command(flatten)]
        counting: CountingArgs,
    },
    /// Check that every unit of a split has a valid result and print the total.
    Merge {
        /// The split's folder.
        folder: std::path::PathBuf,
    },
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["epd", "random"])))]
pub struct VerifyArgs {
    /// Verify every position of a perft suite (EPD or `.perft` format).
    #[arg(long, value_name = "FILE")]
    epd: Option<std::path::PathBuf>,
    /// Verify N positions (1 to 1,000,000) reached by seeded random play from the start position.
    #[arg(long, value_name = "N", requires = "seed", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// With --random: start each game from a Chess960 start position drawn by the seed.
    #[arg(long, requires = "random")]
    chess960: bool,
    /// Kernel to verify (default: both).
    #[arg(long, value_enum)]
    kernel: Option<KernelArg>,
    #[command(flatten)]
    shaders: ShaderArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum KernelArg {
    /// One invocation per (position, square).
    PerPiece,
    /// One invocation per position.
    PerPosition,
}

/// Where perft runs.
pub(super) enum Engine {
    Cpu(CpuPerft),
    Gpu(Box<GpuPerft>, String),
}

impl Engine {
    /// `depth`: the deepest perft this engine will count (sizes the transposition table).
    pub(super) fn open(counting: CountingArgs, depth: u32) -> Result<Engine, CliError> {
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
                ..Default::default()
            };
            Ok(Engine::Gpu(Box::new(GpuPerft::with_options(&context, options)?), description))
        };
        let cpu = || -> Result<Engine, CliError> {
            let mut builder = CpuPerft::builder();
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

    pub(super) fn describe(&self) -> String {
        match self {
            Engine::Cpu(perft) => perft.describe(),
            Engine::Gpu(_, adapter) => format!("GPU, {adapter}"),
        }
    }

    /// Perft of every root to `depth`; `progress` hears of nodes counted.
    fn perft(&mut self, roots: &[Position], depth: u32, progress: &Progress) -> Result<Vec<u64>, CliError> {
        match self {
            Engine::Gpu(perft, _) => {
                let base = progress.nodes();
                Ok(perft.perft(roots, depth, &mut |nodes| progress.set(base + nodes))?)
            }
            Engine::Cpu(perft) => Ok(perft.perft(roots, depth, progress)),
        }
    }

    pub(super) fn divide(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, u64)>, CliError> {
        perft::divide_with(position, depth, |children, below| self.perft(children, below, progress))
    }
}

pub fn run_perft_command(command: PerftCommand) -> Result<ExitCode, CliError> {
    match command.action {
        None => run_perft(command.arguments),
        Some(PerftAction::Split { fen, depth, split_depth, units: count, out }) => {
            let root = parse_fen_argument(fen.as_deref())?;
            let manifest = units::split(&root, depth, split_depth, count as usize, &out)?;
            println!(
                "{} units of {} distinct positions at ply {split_depth} ({} move sequences) in {}",
                manifest.units.len(),
                manifest.positions,
                manifest.sequences,
                escape_controls(&out.display().to_string())
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(PerftAction::RunUnit { unit, counting }) => run_unit(&unit, counting),
        Some(PerftAction::Merge { folder }) => {
            // A folder that holds no readable manifest is not a split: bad input.
            units::read_manifest(&folder)?;
            merge(&folder)
        }
    }
}

/// `perft merge`: the total, or every unit that cannot be merged (exit 1).
fn merge(folder: &std::path::Path) -> Result<ExitCode, CliError> {
    match units::merge(folder) {
        Ok(merged) => {
            let manifest = &merged.manifest;
            eprintln!(
                "perft({}) of {}, merged from {} units split at ply {}",
                manifest.depth,
                manifest.root,
                manifest.units.len(),
                manifest.split_depth
            );
            println!("Nodes searched: {}", merged.nodes);
            Ok(ExitCode::SUCCESS)
        }
        Err(problems) => {
            for problem in &problems {
                println!("{}", escape_controls(problem));
            }
            let folder = escape_controls(&folder.display().to_string());
            eprintln!("error: {} of the split in {folder} cannot be merged", problems.len());
            Ok(ExitCode::from(1))
        }
    }
}

pub(super) fn parse_fen_argument(fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(fen) => Position::from_fen(fen).map_err(|error| CliError::Usage(format!("--fen: {error}"))),
        None => Ok(Position::start()),
    }
}

fn run_unit(path: &std::path::Path, counting: CountingArgs) -> Result<ExitCode, CliError> {
    // Check the unit (and an existing result) before opening a device.
    let unit = units::read_unit(path)?;
    if let Ok(nodes) = units::read_result(&units::result_path(path), &unit.checksum) {
        println!("{}: already counted, {nodes} nodes", escape_controls(&path.display().to_string()));
        return Ok(ExitCode::SUCCESS);
    }
    let mut engine = Engine::open(counting, unit.remaining)?;
    let bar = unit_progress(unit.positions.len() as u64, counting.quiet);
    // A GPU failure keeps its own exit code through the unit runner.
    let mut failure = None;
    let outcome = units::run_unit(path, |unit| -> Result<Vec<u64>, String> {
        let progress = Progress::new(true);
        let mut counts = Vec::with_capacity(unit.positions.len());
        // Batches of positions: the GPU shares its arena, the bar moves between batches.
        for chunk in unit.positions.chunks(64) {
            let roots: Vec<Position> = chunk.iter().map(|(position, _)| *position).collect();
            match engine.perft(&roots, unit.remaining, &progress) {
                Ok(chunk_counts) => counts.extend(chunk_counts),
                Err(error) => {
                    let message = error.message().to_owned();
                    failure = Some(error);
                    return Err(message);
                }
            }
            bar.inc(chunk.len() as u64);
        }
        Ok(counts)
    });
    let outcome = match (outcome, failure) {
        (Err(_), Some(error)) => return Err(error),
        (outcome, _) => outcome?,
    };
    bar.finish_and_clear();
    match outcome {
        units::RunOutcome::Counted(nodes) => {
            println!("{}: {nodes} nodes", escape_controls(&path.display().to_string()))
        }
        units::RunOutcome::AlreadyCounted(nodes) => {
            println!("{}: already counted, {nodes} nodes", escape_controls(&path.display().to_string()))
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A bar over a unit's positions with the time left, on a terminal and without --quiet.
fn unit_progress(positions: u64, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal as _;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(positions);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} positions, {elapsed_precise} elapsed, {eta} left",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

pub fn run_perft(arguments: PerftArgs) -> Result<ExitCode, CliError> {
    let position = match &arguments.fen {
        Some(fen) => Some(Position::from_fen(fen).map_err(|error| CliError::Usage(format!("--fen: {error}")))?),
        None => None,
    };
    if arguments.divide && arguments.depth == 0 {
        return Err(CliError::Usage(
            "--divide needs --depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
        ));
    }
    let suite = match &arguments.epd {
        Some(path) => Some(read_suite_positions(path)?),
        None => None,
    };
    let deepest = match &suite {
        Some((entries, _)) => entries
            .iter()
            .flat_map(|entry| entry.expected_up_to(arguments.max_depth.unwrap_or(u32::MAX)))
            .map(|(depth, _)| depth)
            .max()
            .unwrap_or(0),
        None => arguments.depth,
    };
    if let (Some((entries, _)), Some(path)) = (&suite, &arguments.epd) {
        let max_depth = arguments.max_depth.unwrap_or(u32::MAX);
        if entries.iter().all(|entry| entry.expected_up_to(max_depth).next().is_none()) {
            // A run that counts nothing must not report passes.
            return Err(CliError::Usage(format!(
                "{}: no expected count at depth {max_depth} or below; nothing would be counted",
                path.display()
            )));
        }
    }
    if arguments.stats {
        return super::stats::run_stats(super::stats::StatsRequest {
            position: &position.unwrap_or_default(),
            depth: arguments.depth,
            divide: arguments.divide,
            chess960: arguments.chess960,
            json: arguments.json,
            threads: arguments.counting.threads,
            backend: arguments.counting.backend,
            quiet: arguments.counting.quiet,
        });
    }
    let mut engine = Engine::open(arguments.counting, deepest)?;
    if let Some((entries, positions)) = suite {
        let json = arguments.json;
        return run_suite(&mut engine, &entries, &positions, arguments.max_depth, arguments.counting.quiet, json);
    }
    let position = position.unwrap_or_default();
    super::common::note_if_endless(
        arguments.depth,
        gpu_movegen::perft::perft(&position, 1),
        gpu_movegen::perft::perft(&position, 2),
    );
    let progress = Progress::new(arguments.counting.quiet || arguments.json);
    let mut stdout = std::io::stdout().lock();
    let chess960 = arguments.chess960 || position.is_chess960();
    let started = std::time::Instant::now();
    let divided = if arguments.divide { Some(engine.divide(&position, arguments.depth, &progress)?) } else { None };
    let nodes = match &divided {
        Some(counts) => {
            if !arguments.json {
                for (mv, nodes) in counts {
                    writeln!(stdout, "{}: {nodes}", mv.uci(chess960))?;
                }
                writeln!(stdout)?;
            }
            counts.iter().map(|(_, nodes)| nodes).sum()
        }
        None => engine.perft(&[position], arguments.depth, &progress)?[0],
    };
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(nodes, &engine.describe());
    let checks = arguments.cross_check.unwrap_or(if arguments.depth >= 5 { DEFAULT_CROSS_CHECKS } else { 0 });
    if let Engine::Gpu(..) = engine
        && checks > 0
    {
        let seed: u64 = rand::random();
        let subtrees = cross_check::draw_subtrees(&position, arguments.depth, checks as usize, seed);
        let quiet = Progress::new(true);
        let mismatches = cross_check::cross_check(&subtrees, |roots, depth| engine.perft(roots, depth, &quiet))?;
        if !mismatches.is_empty() {
            for mismatch in &mismatches {
                let moves: Vec<String> = mismatch.subtree.moves.iter().map(|mv| mv.uci(true).to_string()).collect();
                writeln!(
                    stdout,
                    "CROSS-CHECK MISMATCH perft({}) of {} (after {}): GPU {}, CPU {}",
                    mismatch.subtree.depth,
                    mismatch.subtree.position.to_fen(),
                    if moves.is_empty() { "no moves".to_owned() } else { moves.join(" ") },
                    mismatch.other,
                    mismatch.reference
                )?;
            }
            eprintln!(
                "error: {} of {checks} subtrees counted differently on the GPU and the CPU (seed {seed}); the GPU's \
                 total is not printed",
                mismatches.len()
            );
            return Ok(ExitCode::from(1));
        }
        if !arguments.counting.quiet {
            eprintln!("cross-check: {checks} random subtrees counted equal on the GPU and the CPU");
        }
    } else if let Engine::Cpu(..) = engine
        && arguments.cross_check.is_some_and(|checks| checks > 0)
        && !arguments.counting.quiet
    {
        eprintln!("note: --cross-check compares the GPU with the CPU; this count ran on the CPU, so there is none");
    }
    if arguments.json {
        let report = super::stats::Report {
            position: &position,
            depth: arguments.depth,
            backend: if let Engine::Gpu(..) = engine { "gpu" } else { "cpu" },
            seconds,
            total: super::stats::Counts::Nodes(nodes),
            divided: divided
                .map(|counts| counts.into_iter().map(|(mv, nodes)| (mv, super::stats::Counts::Nodes(nodes))).collect()),
            chess960,
        };
        writeln!(stdout, "{}", report.to_json())?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

fn read_suite_positions(path: &std::path::Path) -> Result<(Vec<SuiteEntry>, Vec<Position>), CliError> {
    let text = gpu_movegen::files::read_text(path, gpu_movegen::files::MAX_INPUT_BYTES)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    let entries = parse_suite(&text).map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    let positions = entries
        .iter()
        .map(|entry| {
            entry.position().map_err(|error| {
                CliError::Usage(format!("{}: line {}: invalid FEN: {error}", path.display(), entry.line))
            })
        })
        .collect::<Result<Vec<Position>, CliError>>()?;
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
    json: bool,
) -> Result<ExitCode, CliError> {
    let max_depth = max_depth.unwrap_or(u32::MAX);
    let progress = Progress::new(quiet);
    let started = Instant::now();
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
    let progress_seconds = started.elapsed().as_secs_f64();
    progress.finish(total_nodes, &engine.describe());
    let mut stdout = std::io::stdout().lock();
    mismatches.sort_unstable();
    let failed = failed_entries.iter().filter(|failed| **failed).count();
    if json {
        let fen_of = |line: usize| entries.iter().find(|entry| entry.line == line).map(|entry| entry.fen.clone());
        let listed: Vec<serde_json::Value> = mismatches
            .iter()
            .map(|(line, depth, expected, actual)| {
                serde_json::json!({ "line": line, "fen": fen_of(*line), "depth": depth, "expected": expected, "actual": actual })
            })
            .collect();
        let backend = if let Engine::Gpu(..) = engine { "gpu" } else { "cpu" };
        let report = serde_json::json!({
            "backend": backend,
            "seconds": progress_seconds,
            "nodes": total_nodes,
            "passed": entries.len() - failed,
            "failed": failed,
            "mismatches": listed,
        });
        writeln!(stdout, "{report}")?;
        return Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    for (line, depth, expected, actual) in mismatches {
        let fen = &entries.iter().find(|entry| entry.line == line).expect("entry of a mismatch").fen;
        writeln!(stdout, "MISMATCH line {line}: {fen} depth {depth}: expected {expected}, got {actual}")?;
    }
    writeln!(stdout, "{} passed, {failed} failed", entries.len() - failed)?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub fn run_perftree(
    depth: u32,
    fen: &str,
    moves: Option<&str>,
    backend: Backend,
    chess960: bool,
    shaders: ShaderArgs,
) -> Result<ExitCode, CliError> {
    let mut position = Position::from_fen(fen).map_err(|error| CliError::Usage(format!("FEN: {error}")))?;
    // Decided at the root: castling rights only shrink, so the moves below keep its notation.
    let chess960 = chess960 || position.is_chess960();
    for text in moves.unwrap_or("").split_whitespace() {
        let mv = position.parse_uci_move(text)?;
        position.play(mv);
    }
    if depth == 0 {
        return Err(CliError::Usage("DEPTH must be at least 1".to_owned()));
    }
    let counting = CountingArgs { threads: None, backend, hash: HashArgs { mebibytes: None }, quiet: true, shaders };
    let mut engine = Engine::open(counting, depth)?;
    let counts = engine.divide(&position, depth, &Progress::new(true))?;
    let mut stdout = std::io::stdout().lock();
    for (mv, nodes) in &counts {
        writeln!(stdout, "{} {nodes}", mv.uci(chess960))?;
    }
    writeln!(stdout)?;
    writeln!(stdout, "{}", counts.iter().map(|(_, nodes)| nodes).sum::<u64>())?;
    Ok(ExitCode::SUCCESS)
}

pub fn run_verify(arguments: VerifyArgs) -> Result<ExitCode, CliError> {
    let positions = match (&arguments.epd, arguments.random, arguments.seed) {
        (Some(path), _, _) => read_suite_positions(path)?.1,
        (None, Some(count), Some(seed)) if arguments.chess960 => {
            random_play::random_chess960_positions(count, 120, seed)
        }
        (None, Some(count), Some(seed)) => random_play::random_positions(&Position::start(), count, 120, seed),
        _ => return Err(CliError::Usage("give --epd FILE or --random N --seed S".to_owned())),
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
