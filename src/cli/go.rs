//! `gpu-movegen go ...` and `gpu-movegen gtp`: Go perft and playouts on the
//! GPU or the CPU, verification of the GPU against the CPU, and the GTP
//! engine for GoGui, Sabaki and other front ends.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;
use gpu_movegen::go::GoGame;
use gpu_movegen::go::gpu::{BoardSize, GoGpuPerft, GoMoveGenerator, GoPerftOptions, GoPositionMoves, GpuPlayouts};
use gpu_movegen::go::gtp::{CpuPlayouts, GtpEngine, PlayoutBatch, PlayoutRunner, SearchSettings};
use gpu_movegen::go::perft::perft_parallel;
use gpu_movegen::go::playout::{playouts, random_positions};
use gpu_movegen::go::sgf::read_sgf;
use gpu_movegen::go::{Point, Position};
use gpu_movegen::gpu::perft::Counter;

use super::common::{Backend, CliError, Progress, escape_controls, open_backend, thread_pool};

#[derive(Subcommand)]
pub enum GoCommand {
    /// Count the sequences of board-point moves (passes are not counted) to a depth.
    Perft(GoPerftArgs),
    /// Random playouts from a position: win counts and the mean score.
    Playouts(GoPlayoutArgs),
    /// Compare the GPU's legal-point and playout bitmaps, perft and playouts with the CPU on random positions.
    Verify {
        /// Positions (1 to 100,000) from seeded random games.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
        random: u64,
        /// Seed of the random games.
        #[arg(long, value_name = "S")]
        seed: u64,
        /// Board size (2 to 19).
        #[arg(long, default_value_t = 9)]
        size: u32,
    },
}

/// Where the position comes from.
#[derive(clap::Args)]
pub struct PositionArgs {
    /// Board size, 2 to 19 (ignored with --sgf, which has its own).
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Moves from the empty board: colour and GTP vertex pairs such as "B E5 W D4 B pass".
    #[arg(long, conflicts_with = "sgf")]
    moves: Option<String>,
    /// An SGF file: its main line, with setup stones, PL, SZ and KM.
    #[arg(long, value_name = "FILE")]
    sgf: Option<std::path::PathBuf>,
}

impl PositionArgs {
    /// The position and the komi the SGF gives, if any.
    fn position(&self) -> Result<(Position, Option<f64>), CliError> {
        if let Some(path) = &self.sgf {
            let text = gpu_movegen::files::read_text(path, gpu_movegen::files::MAX_INPUT_BYTES)
                .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
            let game = read_sgf(&text).map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
            return Ok((game.position, Some(game.komi)));
        }
        Position::new(self.size).map_err(|error| CliError::Usage(format!("--size: {error}")))?;
        let position = Position::from_moves(self.size, self.moves.as_deref().unwrap_or(""))
            .map_err(|error| CliError::Usage(format!("--moves: {error}")))?;
        Ok((position, None))
    }
}

#[derive(clap::Args)]
pub struct GoPerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Depth in board-point moves (at most 24, past what any machine could count).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=gpu_movegen::go::perft::MAX_DEPTH as i64))]
    depth: u32,
    /// Print the count below each legal point first, as `<vertex>: <count>`.
    #[arg(long)]
    divide: bool,
    #[command(flatten)]
    counting: super::common::GameCountingArgs,
    /// No progress or summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
pub struct GoPlayoutArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Playouts to run (1 to 100,000,000), in batches of at most a million.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    playouts: u32,
    /// Seed of the playouts (32 bits); the same seed gives the same playouts on the GPU and the CPU.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Komi for the win counts (default: the SGF's, else 7.5).
    #[arg(long, allow_hyphen_values = true)]
    komi: Option<f64>,
    /// Worker threads for the CPU (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Where to run: `auto` uses a real GPU when there is one, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// No summary on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// `gpu-movegen gtp`: the engine's settings.
#[derive(clap::Args)]
pub struct GtpArgs {
    /// Playouts per genmove, shared among the candidate moves.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    playouts: u32,
    /// Think at least this many seconds per genmove, in rounds of --playouts.
    #[arg(long, value_name = "SECONDS")]
    time: Option<f64>,
    /// First seed of the playouts; each genmove takes the next.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Worker threads for the CPU playouts (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Where playouts run: `auto` uses a real GPU when there is one, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Play lost games out instead of resigning them.
    #[arg(long)]
    no_resign: bool,
}

pub fn run(command: GoCommand) -> Result<ExitCode, CliError> {
    match command {
        GoCommand::Perft(arguments) => run_perft(arguments),
        GoCommand::Playouts(arguments) => run_playouts(arguments),
        GoCommand::Verify { random, seed, size } => run_verify(random as usize, seed, size),
    }
}

fn run_perft(arguments: GoPerftArgs) -> Result<ExitCode, CliError> {
    if arguments.divide && arguments.depth == 0 {
        return Err(CliError::Usage("--divide needs --depth 1 or more".to_owned()));
    }
    let (position, _) = arguments.position.position()?;
    let size = position.size();
    let super::common::GameCountingArgs { threads, backend, gpu_memory, hash, profile_kernels } = arguments.counting;
    let depth = arguments.depth;
    super::common::set_quiet(arguments.quiet);
    let mut engine = open_backend(
        backend,
        || {
            let context = super::common::open_gpu()?;
            let memory_limit = gpu_memory.map(|mebibytes| mebibytes << 20);
            let (table_bytes, merge_transpositions) = hash.resolve(&context, memory_limit, depth)?;
            let options = GoPerftOptions {
                build: BoardSize(size),
                memory_limit,
                table_bytes: Some(table_bytes),
                merge_transpositions,
                profile_kernels,
                ..Default::default()
            };
            Counter::<GoGame>::gpu(&context, options)
        },
        || Ok(Counter::Cpu(thread_pool(threads)?)),
    )?;
    super::common::note_if_endless(
        arguments.depth,
        gpu_movegen::go::perft::perft(&position, 1),
        gpu_movegen::go::perft::perft(&position, 2),
    );
    let progress = Progress::new(arguments.quiet);
    let mut stdout = std::io::stdout().lock();
    let depth = arguments.depth;
    let counts: Vec<(Option<Point>, u64)> = if arguments.divide {
        let rows = engine.divide(&position, depth, &|nodes| progress.set(nodes))?;
        rows.into_iter().map(|(point, count)| (Some(point), count)).collect()
    } else {
        vec![(None, engine.perft(&[position], depth, &|nodes| progress.set(nodes))?[0])]
    };
    let nodes: u64 = counts.iter().map(|(_, count)| count).sum();
    if arguments.divide {
        for (point, count) in &counts {
            writeln!(stdout, "{}: {count}", point.expect("divided by point"))?;
        }
        writeln!(stdout)?;
    }
    progress.finish(nodes, &engine.describe());
    super::common::print_kernel_times(&engine.kernel_times());
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

/// Where playouts run: the GPU's runner or the CPU's threads.
enum Playouts {
    Cpu(rayon::ThreadPool),
    Gpu(Box<GpuPlayouts>),
}

impl Playouts {
    /// The runner for boards of `size` (on the GPU its kernels are built and
    /// self-tested now, so that `auto` can still choose the CPU).
    fn open(backend: Backend, threads: Option<u32>, size: u32) -> Result<Playouts, CliError> {
        let gpu = || {
            let mut runner = GpuPlayouts::new(&super::common::open_gpu()?);
            runner.prepare(size)?;
            Ok(Playouts::Gpu(Box::new(runner)))
        };
        open_backend(backend, gpu, || Ok(Playouts::Cpu(thread_pool(threads)?)))
    }

    fn describe(&self) -> String {
        match self {
            Playouts::Cpu(pool) => format!("CPU, {}", gpu_movegen::threads::describe(pool.current_num_threads())),
            Playouts::Gpu(gpu) => format!("GPU, {}", gpu.adapter()),
        }
    }
}

impl PlayoutRunner for Playouts {
    fn run(
        &mut self,
        positions: &[Position],
        batch: PlayoutBatch,
    ) -> Result<Vec<gpu_movegen::go::PlayoutResult>, String> {
        match self {
            Playouts::Cpu(pool) => pool.install(|| CpuPlayouts.run(positions, batch)),
            Playouts::Gpu(gpu) => gpu.run(positions, batch),
        }
    }
}

/// The GTP engine's playouts: a game in progress must not end because the
/// GPU failed (device lost, out of memory, stalled), so the engine says so on
/// stderr and plays on with the CPU twin, whose playouts are the GPU's
/// playout for playout: the batch that failed is run again there.
struct ServingPlayouts {
    playouts: Playouts,
    threads: Option<u32>,
}

impl PlayoutRunner for ServingPlayouts {
    fn run(
        &mut self,
        positions: &[Position],
        batch: PlayoutBatch,
    ) -> Result<Vec<gpu_movegen::go::PlayoutResult>, String> {
        match self.playouts.run(positions, batch) {
            Err(error) if matches!(self.playouts, Playouts::Gpu(_)) => {
                let pool = thread_pool(self.threads).map_err(|failure| failure.message().to_owned())?;
                eprintln!(
                    "note: the GPU failed ({}); playouts continue on the CPU, {}",
                    escape_controls(&error),
                    gpu_movegen::threads::describe(pool.current_num_threads())
                );
                self.playouts = Playouts::Cpu(pool);
                self.playouts.run(positions, batch)
            }
            outcome => outcome,
        }
    }
}

fn run_playouts(arguments: GoPlayoutArgs) -> Result<ExitCode, CliError> {
    let (position, sgf_komi) = arguments.position.position()?;
    // Adding 0 turns -0 into 0, which would otherwise print as "-0".
    let komi = arguments.komi.or(sgf_komi).unwrap_or(7.5) + 0.0;
    if !komi.is_finite() || komi.abs() > gpu_movegen::go::playout::MAX_KOMI {
        let most = gpu_movegen::go::playout::MAX_KOMI;
        return Err(CliError::Usage(format!("komi {komi} is not a number from -{most} to {most}")));
    }
    super::common::set_quiet(arguments.quiet);
    let mut runner = Playouts::open(arguments.backend, arguments.threads, position.size())?;
    let started = Instant::now();
    let (mut black, mut white, mut draws, mut score) = (0u64, 0u64, 0u64, 0.0f64);
    // Batches of at most a million playouts, streams numbered on across them,
    // so memory stays bounded and the result equals one batch's.
    const BATCH: u32 = 1 << 20;
    let mut done = 0u32;
    while done < arguments.playouts {
        let part = (arguments.playouts - done).min(BATCH);
        // Only the GPU's runner fails, and only for the device's reasons.
        let batch = PlayoutBatch { per_position: part, seed: arguments.seed, first_stream: done };
        let results = runner.run(&[position], batch).map_err(CliError::Gpu)?;
        for result in &results {
            match result.winner_sign(komi) {
                1 => black += 1,
                -1 => white += 1,
                _ => draws += 1,
            }
            score += f64::from(result.area_difference) - komi;
        }
        done += part;
    }
    let total = u64::from(arguments.playouts);
    if !arguments.quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "{} playouts in {seconds:.3} s ({:.0} playouts/s) on the {}",
            total,
            total as f64 / seconds.max(1e-9),
            runner.describe()
        );
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "Black wins: {black}")?;
    writeln!(stdout, "White wins: {white}")?;
    writeln!(stdout, "Draws: {draws}")?;
    writeln!(stdout, "Mean score: {:+.4} (black minus white, komi {komi})", score / total as f64)?;
    Ok(ExitCode::SUCCESS)
}

fn run_verify(count: usize, seed: u64, size: u32) -> Result<ExitCode, CliError> {
    let positions = random_positions(size, count, seed).map_err(|error| CliError::Usage(format!("--size: {error}")))?;
    let context = super::common::open_gpu()?;
    eprintln!("adapter: {}", context.adapter_description());
    let mut mismatched = vec![false; positions.len()];
    let mut stdout = std::io::stdout().lock();
    let generated = GoMoveGenerator::new(&context).generate(&positions)?;
    for (index, (position, gpu)) in positions.iter().zip(&generated).enumerate() {
        if *gpu != GoPositionMoves::from_cpu(position) {
            mismatched[index] = true;
            writeln!(stdout, "MISMATCH bitmaps of random position {index}:\n{}", position.diagram())?;
        }
    }
    let options = GoPerftOptions { build: BoardSize(size), ..Default::default() };
    let mut engine = GoGpuPerft::with_options(&context, options)?;
    let counts = engine.perft(&positions, 2, &mut |_| {})?;
    for (index, (position, gpu)) in positions.iter().zip(counts).enumerate() {
        let cpu = perft_parallel(position, 2);
        if gpu != cpu {
            mismatched[index] = true;
            writeln!(stdout, "MISMATCH perft(2) of random position {index}: gpu {gpu}, cpu {cpu}")?;
        }
    }
    // Two playouts from each position, streams numbered across the batch.
    let gpu = GpuPlayouts::new(&context).playouts(&positions, 2, seed as u32, 0)?;
    for (index, position) in positions.iter().enumerate() {
        let cpu = playouts(position, 2, seed as u32, 2 * index as u32);
        if gpu[2 * index..2 * index + 2] != cpu[..] {
            mismatched[index] = true;
            writeln!(stdout, "MISMATCH playouts of random position {index}")?;
        }
    }
    let failed = mismatched.iter().filter(|bad| **bad).count();
    writeln!(stdout, "{} passed, {failed} failed", positions.len() - failed)?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The longest time `--time` gives one move.
const MAX_MOVE_SECONDS: f64 = 86_400.0;

pub fn run_gtp(arguments: GtpArgs) -> Result<ExitCode, CliError> {
    let time = match arguments.time {
        Some(seconds) if (0.0..=MAX_MOVE_SECONDS).contains(&seconds) => {
            Some(std::time::Duration::from_secs_f64(seconds))
        }
        Some(seconds) => {
            return Err(CliError::Usage(format!(
                "--time {seconds} is not a number of seconds from 0 to {MAX_MOVE_SECONDS} (a day a move)"
            )));
        }
        None => None,
    };
    // The engine starts on 19x19; other sizes are self-tested when first played.
    let runner = Playouts::open(arguments.backend, arguments.threads, gpu_movegen::go::MAX_SIZE)?;
    eprintln!("gpu-movegen GTP engine: playouts on the {}", runner.describe());
    let runner = ServingPlayouts { playouts: runner, threads: arguments.threads };
    let settings =
        SearchSettings { playouts: arguments.playouts, time, seed: arguments.seed, resign: !arguments.no_resign };
    let mut engine = GtpEngine::new(runner, settings);
    engine.serve(std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}
