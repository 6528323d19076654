//! The `gpu-movegen` command line: chess perft, perft suites, perftree,
//! verification and adapter information; Shogi perft and checks; Go perft,
//! playouts and verification, and the GTP engine.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cli::chess::{PerftCommand, VerifyArgs};
use cli::common::{Backend, ShaderArgs};
use cli::unique::UniqueArgs;

#[derive(Parser)]
#[command(
    name = "gpu-movegen",
    version,
    about = "Move generation and perft on the GPU for chess, Shogi and Go, checked against a CPU reference"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The longest one wait on the GPU may take, in seconds, before the
    /// command fails with exit code 3 (a hung driver). Default: 60 on a
    /// real GPU, 600 on a software adapter; each wait covers one
    /// submission, sized to well under a second on a real GPU.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    gpu_timeout: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree, check a perft suite, or split a perft into work units.
    Perft(PerftCommand),
    /// Count the distinct positions after each ply: one `ply count` line per ply.
    Unique(UniqueArgs),
    /// Run the GPU kernels and the CPU reference on the same positions and compare every move bitboard.
    Verify(VerifyArgs),
    /// List the GPU adapters, the one chosen, its limits and features.
    Info {
        /// Also say which kernels each game's perft runs on this GPU, in which build and leaf shape, and why.
        #[arg(long)]
        kernels: bool,
        /// Run the self-test again, whatever verdicts are cached (after a driver update, say), and keep the new ones.
        #[arg(long)]
        retest: bool,
    },
    /// The interface of the perftree debugging tool: DEPTH FEN [MOVES].
    Perftree {
        /// Depth below the position reached by MOVES (1 to 64).
        #[arg(value_parser = clap::value_parser!(u32).range(1..=gpu_movegen::perft::MAX_DEPTH as i64))]
        depth: u32,
        /// The root position.
        fen: String,
        /// Space-separated UCI moves to play from FEN first.
        moves: Option<String>,
        /// Where to run (perftree itself passes no flags: `auto` by default).
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        /// Write castling as king takes rook (UCI_Chess960). Positions whose
        /// castling needs Chess960 rules are always written so.
        #[arg(long)]
        chess960: bool,
        #[command(flatten)]
        shaders: ShaderArgs,
    },
    /// Find where another engine's perft goes wrong: divide beside it, level by level, to the position whose move list differs.
    Bisect(cli::bisect::BisectArgs),
    /// Shogi perft on the GPU or the CPU, verification and checking moves.
    #[command(subcommand)]
    Shogi(cli::shogi::ShogiCommand),
    /// Go perft, playouts and verification of the GPU against the CPU.
    #[command(subcommand)]
    Go(cli::go::GoCommand),
    /// A Go engine speaking GTP version 2 on stdin and stdout (for GoGui, Sabaki, GNU Go's twogtp).
    Gtp(cli::go::GtpArgs),
    /// Chess perft behind UCI on stdin and stdout: `go perft N` as Stockfish answers it.
    Uci(cli::protocol::FrontEndArgs),
    /// Shogi perft behind USI on stdin and stdout: `go perft N` as YaneuraOu answers it.
    Usi(cli::protocol::FrontEndArgs),
    /// Print a completion script for SHELL (bash, zsh, fish, elvish or powershell) on stdout.
    Completions {
        /// The shell, e.g. `gpu-movegen completions bash > /etc/bash_completion.d/gpu-movegen`.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout, e.g. `gpu-movegen man > /usr/local/share/man/man1/gpu-movegen.1`.
    Man,
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
            // clap's first paragraph names the problem (a missing argument on
            // the lines below the first); the usage lines after it are noise here.
            let rendered = error.to_string();
            let problem: Vec<&str> =
                rendered.lines().take_while(|line| !line.trim().is_empty()).map(str::trim).collect();
            let problem = if problem.is_empty() { "invalid arguments".to_owned() } else { problem.join(" ") };
            eprintln!("{} (see 'gpu-movegen --help')", cli::common::escape_controls(&problem));
            return ExitCode::from(2);
        }
    };
    // Fault points for the tests (FAILPOINTS); only in a failpoints build.
    #[cfg(feature = "failpoints")]
    let _faults = fail::FailScenario::setup();
    cli::common::set_gpu_timeout(cli.gpu_timeout);
    // A hostile or damaged cache file costs a rebuild, never a hang; say so.
    gpu_movegen::gpu::cache::set_ignored_file_handler(|message| eprintln!("warning: {message}"));
    let outcome = match cli.command {
        Command::Perft(command) => cli::chess::run_perft_command(command),
        Command::Unique(arguments) => cli::unique::run_unique(arguments),
        Command::Verify(arguments) => cli::chess::run_verify(arguments),
        Command::Info { kernels, retest } => cli::info::run_info(kernels, retest),
        Command::Perftree { depth, fen, moves, backend, chess960, shaders } => {
            cli::chess::run_perftree(depth, &fen, moves.as_deref(), backend, chess960, shaders)
        }
        Command::Bisect(arguments) => cli::bisect::run_bisect(arguments),
        Command::Shogi(command) => cli::shogi::run(command),
        Command::Go(command) => cli::go::run(command),
        Command::Gtp(arguments) => cli::go::run_gtp(arguments),
        Command::Uci(arguments) => cli::protocol::run_uci(arguments),
        Command::Usi(arguments) => cli::protocol::run_usi(arguments),
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            // Into memory first: clap_complete panics when a write fails (a
            // closed pipe); a closed pipe here is the reader's choice.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "gpu-movegen", &mut script);
            let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            use clap::CommandFactory as _;
            let mut page = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut page) {
                Ok(()) => {
                    // A closed pipe here is the reader's choice, as for completions.
                    let _ = std::io::Write::write_all(&mut std::io::stdout(), &page);
                    Ok(ExitCode::SUCCESS)
                }
                // Writing into memory cannot fail; should it, it is reported, never a panic.
                Err(error) => Err(cli::common::CliError::Usage(format!("cannot render the man page: {error}"))),
            }
        }
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {}", cli::common::escape_controls(error.message()));
            ExitCode::from(error.exit_code())
        }
    }
}
