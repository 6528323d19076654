//! The chess commands: perft (one position, divide, suites), perftree and
//! verify, on the CPU or the GPU.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;

use gpu_movegen::chess::gpu::{GeneratorOptions, Kernel, MoveGenerator, PositionMoves};
use gpu_movegen::chess::variant::{Variant, VariantPosition};
use gpu_movegen::chess::{cross_check, units};
use gpu_movegen::suite::{SuiteEntry, parse_suite};
use gpu_movegen::{Position, random_play};

use super::common::{Backend, CliError, Progress, ShaderArgs, escape_controls};
pub use super::engine::{CountingArgs, Engine, HashArgs};

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
    /// double checks and checkmates (on the GPU's statistics kernel or the
    /// CPU; with --divide, per root move; with --epd, per position and depth).
    #[arg(long)]
    stats: bool,
    /// Print one JSON object on stdout instead of text (keys: fen, depth,
    /// backend, seconds, nodes, the statistics with --stats, divide with
    /// --divide; for --epd: passed, failed, nodes, seconds, mismatches).
    #[arg(long)]
    json: bool,
    /// With --epd: skip expected counts deeper than this.
    #[arg(long, value_name = "N", requires = "epd")]
    max_depth: Option<u32>,
    /// A lichess chess variant: antichess, atomic, kingofthehill, 3check,
    /// horde, racingkings, crazyhouse (UCI_Variant names; lichess's
    /// camelCase names too), or chess. --fen is then the variant's FEN; with
    /// --epd, the variant of entries that name none.
    #[arg(long, value_name = "NAME", value_parser = super::variant::parse_build)]
    variant: Option<Variant>,
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
        /// Count the leaves' statistics too (see `perft --stats`); `merge`
        /// prints them when every unit's result has them.
        #[arg(long)]
        stats: bool,
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
    #[arg(long, value_enum, conflicts_with = "variant")]
    kernel: Option<KernelArg>,
    /// A chess variant (see `perft --variant`): its positions (random play
    /// from its start, or the suite's FENs) are counted on the GPU's variant
    /// kernels and on the CPU to --depth, and must agree.
    #[arg(long, value_name = "NAME", value_parser = super::variant::parse_build)]
    variant: Option<Variant>,
    /// With --variant: the perft depth each position is counted to (1 to 4).
    #[arg(long, value_name = "D", requires = "variant", value_parser = clap::value_parser!(u32).range(1..=4))]
    depth: Option<u32>,
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
        Some(PerftAction::RunUnit { unit, stats, counting }) => super::units::run_unit(&unit, counting, stats),
        Some(PerftAction::Merge { folder }) => super::units::merge(&folder),
    }
}

pub(super) fn parse_fen_argument(fen: Option<&str>) -> Result<Position, CliError> {
    match fen {
        Some(fen) => Position::from_fen(fen).map_err(|error| CliError::Usage(format!("--fen: {error}"))),
        None => Ok(Position::start()),
    }
}

pub fn run_perft(arguments: PerftArgs) -> Result<ExitCode, CliError> {
    if let Some(path) = &arguments.epd {
        let entries = read_suite_entries(path)?;
        let default = arguments.variant.unwrap_or_default();
        let named = entries.iter().any(|entry| entry.variant.is_some());
        if default != Variant::Chess || named {
            if arguments.stats {
                return Err(CliError::Usage("--stats with --epd counts standard chess suites only".to_owned()));
            }
            let suite = variant_suite(path, &entries, default)?;
            let max_depth = arguments.max_depth;
            if !suite
                .iter()
                .any(|entry| entry.expected.iter().any(|(depth, _)| *depth <= max_depth.unwrap_or(u32::MAX)))
            {
                return Err(CliError::Usage(format!(
                    "{}: {}; nothing would be counted",
                    path.display(),
                    super::common::no_counts_problem(max_depth)
                )));
            }
            return super::variant::run_variant_suite(&suite, arguments.counting, max_depth, arguments.json);
        }
    } else if let Some(variant) = arguments.variant.filter(|variant| *variant != Variant::Chess) {
        if arguments.cross_check.is_some_and(|checks| checks > 0) {
            return Err(CliError::Usage(format!(
                "--cross-check recounts standard chess subtrees; {variant} positions are checked by the GPU self-test \
                 and by `verify --variant`"
            )));
        }
        return super::variant::run_variant_perft(super::variant::VariantRequest {
            variant,
            fen: arguments.fen.clone(),
            depth: arguments.depth,
            divide: arguments.divide,
            chess960: arguments.chess960,
            stats: arguments.stats,
            json: arguments.json,
            counting: arguments.counting,
        });
    }
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
                "{}: {}; nothing would be counted",
                path.display(),
                super::common::no_counts_problem(arguments.max_depth)
            )));
        }
    }
    if arguments.stats && suite.is_none() {
        return super::stats::run_stats(super::stats::StatsRequest {
            position: &position.unwrap_or_default(),
            depth: arguments.depth,
            divide: arguments.divide,
            chess960: arguments.chess960,
            json: arguments.json,
            cross_check: arguments.cross_check,
            counting: arguments.counting,
        });
    }
    let mut engine = Engine::open_for(arguments.counting, deepest, arguments.stats)?;
    if let Some((entries, positions)) = suite {
        let output = SuiteOutput { quiet: arguments.counting.quiet, json: arguments.json, stats: arguments.stats };
        return run_suite(&mut engine, &entries, &positions, arguments.max_depth, output);
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
    let nodes: u128 = match &divided {
        Some(counts) => {
            if !arguments.json {
                for (mv, nodes) in counts {
                    writeln!(stdout, "{}: {nodes}", mv.uci(chess960))?;
                }
                writeln!(stdout)?;
            }
            counts.iter().map(|(_, nodes)| u128::from(*nodes)).sum()
        }
        None => engine.perft_wide(&position, arguments.depth, &progress)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(u64::try_from(nodes).unwrap_or(u64::MAX), &engine.describe());
    let checks = arguments.cross_check.unwrap_or(if arguments.depth >= 5 { DEFAULT_CROSS_CHECKS } else { 0 });
    if engine.on_gpu() && checks > 0 {
        let seed: u64 = rand::random();
        let subtrees = cross_check::draw_subtrees(&position, arguments.depth, checks as usize, seed);
        let quiet = Progress::new(true);
        // A second pass that read the first pass's stored counts would check nothing.
        engine.clear_table()?;
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
    } else if !engine.on_gpu() && arguments.cross_check.is_some_and(|checks| checks > 0) && !arguments.counting.quiet {
        super::common::note("--cross-check compares the GPU with the CPU; this count ran on the CPU, so there is none");
    }
    if arguments.json {
        let report = super::stats::Report {
            position: &position,
            depth: arguments.depth,
            backend: engine.backend_name(),
            seconds,
            total: super::stats::Counts::Nodes(nodes),
            divided: divided.map(|counts| {
                counts.into_iter().map(|(mv, nodes)| (mv, super::stats::Counts::Nodes(u128::from(nodes)))).collect()
            }),
            chess960,
        };
        writeln!(stdout, "{}", report.to_json())?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

fn read_suite_entries(path: &std::path::Path) -> Result<Vec<SuiteEntry>, CliError> {
    let text = gpu_movegen::files::read_text(path, gpu_movegen::files::MAX_INPUT_BYTES)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    parse_suite(&text).map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))
}

/// A suite's entries as variant positions: each in the variant it names, or `default`.
fn variant_suite(
    path: &std::path::Path,
    entries: &[SuiteEntry],
    default: Variant,
) -> Result<Vec<super::variant::VariantSuiteEntry>, CliError> {
    entries
        .iter()
        .map(|entry| {
            let at = |problem: String| CliError::Usage(format!("{}: line {}: {problem}", path.display(), entry.line));
            let variant = match &entry.variant {
                Some(name) => name.parse::<Variant>().map_err(|error| at(error.to_string()))?,
                None => default,
            };
            let position = VariantPosition::from_fen(variant, &entry.fen)
                .map_err(|error| at(format!("invalid {variant} FEN: {error}")))?;
            Ok(super::variant::VariantSuiteEntry {
                line: entry.line,
                variant,
                position,
                expected: entry.expected.clone(),
            })
        })
        .collect()
}

fn read_suite_positions(path: &std::path::Path) -> Result<(Vec<SuiteEntry>, Vec<Position>), CliError> {
    let entries = read_suite_entries(path)?;
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

/// How a suite's outcome is shown.
struct SuiteOutput {
    quiet: bool,
    json: bool,
    /// Count and print every checked count's statistics.
    stats: bool,
}

/// Checks a suite, depth by depth: all positions with an expectation at a
/// depth are counted in one batch (on the GPU they share the arena).
fn run_suite(
    engine: &mut Engine,
    entries: &[SuiteEntry],
    positions: &[Position],
    max_depth: Option<u32>,
    output: SuiteOutput,
) -> Result<ExitCode, CliError> {
    let SuiteOutput { quiet, json, stats } = output;
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
    // (line, depth, expected, statistics) of every count, with --stats.
    let mut counted_stats = Vec::new();
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
        let counts = if stats {
            let counted = engine.perft_stats(&roots, depth, &progress)?;
            let nodes = counted.iter().map(|stats| stats.nodes).collect();
            for ((index, expected), stats) in batch.iter().zip(counted) {
                counted_stats.push((entries[*index].line, depth, *expected, stats));
            }
            nodes
        } else {
            engine.perft(&roots, depth, &progress)?
        };
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
        let mut report = serde_json::json!({
            "backend": engine.backend_name(),
            "seconds": progress_seconds,
            "nodes": total_nodes,
            "passed": entries.len() - failed,
            "failed": failed,
            "mismatches": listed,
        });
        if stats {
            let results: Vec<serde_json::Value> = counted_stats
                .iter()
                .map(|(line, depth, expected, stats)| {
                    let mut result =
                        serde_json::json!({ "line": line, "fen": fen_of(*line), "depth": depth, "expected": expected });
                    for (name, value) in gpu_movegen::chess::stats::PerftStats::NAMES.iter().zip(stats.columns()) {
                        result[*name] = serde_json::json!(value);
                    }
                    result
                })
                .collect();
            report["results"] = serde_json::Value::Array(results);
        }
        writeln!(stdout, "{report}")?;
        return Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    if stats {
        counted_stats.sort_by_key(|(line, depth, _, _)| (*line, *depth));
        writeln!(stdout, "line depth {}", gpu_movegen::chess::stats::PerftStats::NAMES.join(" "))?;
        for (line, depth, _, stats) in &counted_stats {
            writeln!(stdout, "{line} {depth} {}", super::stats::columns_text(stats))?;
        }
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
    let counting = CountingArgs {
        threads: None,
        backend,
        hash: HashArgs { mebibytes: None },
        quiet: true,
        shaders,
        devices: None,
    };
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
    if let Some(variant) = arguments.variant {
        if arguments.chess960 {
            return Err(CliError::Usage(
                "--chess960 draws standard Chess960 starts; leave it out with --variant".to_owned(),
            ));
        }
        let positions = match (&arguments.epd, arguments.random, arguments.seed) {
            (Some(path), _, _) => variant_suite(path, &read_suite_entries(path)?, variant)?
                .into_iter()
                .map(|entry| entry.position)
                .collect(),
            (None, Some(count), Some(seed)) => gpu_movegen::chess::variant::random_positions(variant, count, 120, seed),
            _ => return Err(CliError::Usage("give --epd FILE or --random N --seed S".to_owned())),
        };
        return super::variant::run_variant_verify(
            variant,
            &positions,
            arguments.depth.unwrap_or(2),
            arguments.shaders,
        );
    }
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
    let context = super::common::open_gpu()?;
    let build = arguments.shaders.build(&context, gpu_movegen::chess::gpu::KernelFamily::Chess)?;
    eprintln!("adapter: {}, shaders: {}", context.adapter_description(), build.name());
    let options = GeneratorOptions { build, memory_limit: arguments.shaders.memory_limit(), ..Default::default() };
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
