//! Throughput measurements, each comparison made in one run on one machine.
//! One file a section, each opening with what it measures:
//!
//! - `cpu` (cpu.rs): CPU perft against cozy-chess and shakmaty, one thread
//!   each in alternating rounds, then the scaling over threads;
//! - `deep` (deep.rs): CPU perft with the transposition table against
//!   without it;
//! - `env` (env.rs): chess environment steps (play the actions, make the
//!   legal-action masks, judge the ends), the GPU's device games against
//!   the CPU;
//! - `go` (go.rs): Go legal-point bitmaps and playouts, GPU against CPU;
//! - `movegen` (movegen.rs): the GPU move-generation kernels against the CPU
//!   over batch sizes from 1 to 1,000,000, upload, dispatch and readback apart;
//! - `perft` (perft.rs): GPU perft, the CPU backend, one CPU thread and
//!   cozy-chess; with `--budget-seconds` the start position goes as deep as
//!   the budget allows;
//! - `compile` (compile.rs): the cold compile time of every game's perft
//!   kernels, Mesa's shader cache off;
//! - `shogi` (shogi.rs): Shogi perft, our CPU engine and the GPU against
//!   shunsai, on the start, "matsuri" and 593-move positions;
//! - `sliders` (sliders.rs): every slider algorithm in both bitboard layouts.
//!
//! peers.rs counts perft the peers' way; report.rs holds the rows, the JSON
//! and the plot.
//!
//! Every section prints a table; `--json FILE` writes the same figures and
//! `--plot FILE` draws them (SVG).
//!
//! ```text
//! cargo run --release --example throughput -- cpu --rounds 5
//! cargo run --release --example throughput -- go
//! cargo run --release --example throughput -- movegen --max-batch 1000000 --json movegen.json --plot movegen.svg
//! cargo run --release --example throughput -- perft --start-depths 4,5,6 --kiwipete-depths 3,4,5
//! ```

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use compile::compile_section;
use cpu::cpu_section;
use deep::deep_section;
use env::env_section;
use go::go_section;
use movegen::movegen_section;
use perft::PerftSettings;
use perft::perft_section;
use report::{Row, draw_plot, write_json};
use shogi::shogi_section;
use sliders::sliders_section;

mod compile;
mod cpu;
mod deep;
mod env;
mod go;
mod movegen;
mod peers;
mod perft;
mod report;
mod shogi;
mod sliders;

/// Exit codes as the command line's: 1 a mismatch, 3 a GPU or driver failure.
pub(crate) const GPU_FAILURE: i32 = 3;

/// A GPU result, or the error on stderr and exit code 3, as the command
/// line ends on a GPU failure (never a panic, never a figure).
pub(crate) trait OrGpuExit<T> {
    fn or_gpu_exit(self, what: &str) -> T;
}

impl<T, E: std::fmt::Display> OrGpuExit<T> for Result<T, E> {
    fn or_gpu_exit(self, what: &str) -> T {
        self.unwrap_or_else(|error| {
            eprintln!("throughput: {what}: {error}");
            std::process::exit(GPU_FAILURE)
        })
    }
}

#[derive(Parser)]
struct Arguments {
    #[command(subcommand)]
    section: Section,
    /// Write the figures as JSON to this file.
    #[arg(long, global = true)]
    json: Option<PathBuf>,
    /// Draw the figures as an SVG plot in this file.
    #[arg(long, global = true)]
    plot: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Section {
    /// Perft with transposition tables against without, alternating rounds: the CPU and the GPU.
    Deep {
        /// Depth of the start-position perft.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// The CPU's transposition table in MiB.
        #[arg(long, default_value_t = 16)]
        hash: u64,
        /// The GPU's table in MiB (default: as the command line sizes it for the depth).
        #[arg(long)]
        gpu_hash: Option<u64>,
        /// Timed rounds (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// Chess environment steps: the device's games against the CPU on all threads.
    Env {
        /// Games stepped together.
        #[arg(long, default_value_t = 1_024)]
        batch: usize,
        /// Steps taken.
        #[arg(long, default_value_t = 64)]
        steps: usize,
    },
    /// Go: legal-point bitmaps and playouts per second, GPU against the CPU.
    Go {
        /// Random game positions per bitmap measurement.
        #[arg(long, default_value_t = 20_000)]
        positions: usize,
        /// CPU playouts per board size (13x13 a third of it, 19x19 a tenth).
        #[arg(long, default_value_t = 100_000)]
        playouts: u32,
        /// GPU playouts per board size (13x13 a third of it, 19x19 a tenth).
        #[arg(long, default_value_t = 4_096)]
        gpu_playouts: u32,
    },
    /// Shogi perft, our CPU engine on one thread and the GPU, against shunsai's
    /// single thread, alternating rounds.
    Shogi {
        /// Timed rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Depth of the start-position perft (also counted a ply shallower;
        /// the matsuri and 593-move positions three plies shallower).
        #[arg(long, default_value_t = 6)]
        depth: u32,
    },
    /// The cold compile time of every game's perft kernels (Mesa's shader cache off).
    Compile,
    /// CPU perft against cozy-chess, single-threaded, and thread scaling.
    Cpu {
        /// Timed rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Plies added to every depth of the comparison (negative for a quick run).
        #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
        depth_offset: i32,
        /// Depth of the start position for the thread scaling.
        #[arg(long, default_value_t = 7)]
        scaling_depth: u32,
    },
    /// Move generation: GPU kernels against the CPU reference over batch sizes.
    Movegen {
        /// Largest batch (batches are 1, 10, 100, … up to this).
        #[arg(long, default_value_t = 1_000_000)]
        max_batch: usize,
    },
    /// Slider algorithms x bitboard representations: slider evaluations,
    /// move generation and perft on the GPU, and the CPU twins' evaluations.
    Sliders {
        /// Positions per move-generation batch.
        #[arg(long, default_value_t = 100_000)]
        batch: usize,
        /// Depth of the start-position perft.
        #[arg(long, default_value_t = 5)]
        perft_depth: u32,
        /// Invocations of the slider benchmark kernel (each evaluates 64 queens).
        #[arg(long, default_value_t = 1 << 16)]
        invocations: u32,
    },
    /// Perft: GPU, CPU (all threads), CPU (one thread) and cozy-chess (one thread).
    Perft {
        /// Depths for the start position, in order.
        #[arg(long, value_delimiter = ',', default_value = "4,5,6")]
        start_depths: Vec<u32>,
        /// Depths for Kiwipete, in order.
        #[arg(long, value_delimiter = ',', default_value = "3,4,5")]
        kiwipete_depths: Vec<u32>,
        /// Run the CPU backends only up to this many nodes.
        #[arg(long, default_value_t = 200_000_000)]
        cpu_max_nodes: u64,
        /// Skip a depth when the time spent plus a forecast for it (the previous
        /// depth's GPU time times 40, per round) would pass this many seconds.
        #[arg(long)]
        budget_seconds: Option<f64>,
        /// Rounds per depth; every engine runs once per round, in turn.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Also time the other shape of the last two plies on the GPU: the
        /// last level stored and counted one ply per (position, move) pair.
        #[arg(long)]
        leaf_shapes: bool,
    },
}

fn main() {
    // Mesa's device-select layer prints a harmless XDG_RUNTIME_DIR error on
    // headless machines; this turns it off (see src/main.rs).
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    let arguments = Arguments::parse();
    if matches!(arguments.section, Section::Compile) {
        // SAFETY: still no other thread; Mesa reads this when the driver loads.
        unsafe { std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true") };
    }
    let (name, adapter, rows) = match &arguments.section {
        Section::Cpu { rounds, depth_offset, scaling_depth } => {
            ("cpu", None, cpu_section(*rounds.max(&1), (*depth_offset).clamp(-5, 2), (*scaling_depth).clamp(1, 9)))
        }
        Section::Shogi { rounds, depth } => ("shogi", None, shogi_section(*rounds.max(&1), (*depth).clamp(1, 8))),
        Section::Compile => {
            let (adapter, rows) = compile_section();
            ("compile", adapter, rows)
        }
        Section::Deep { depth, hash, gpu_hash, rounds } => {
            ("deep", None, deep_section(*depth, *hash, *gpu_hash, (*rounds).max(1)))
        }
        Section::Env { batch, steps } => {
            let (adapter, rows) = env_section((*batch).clamp(1, 1 << 16), *steps);
            ("env", adapter, rows)
        }
        Section::Go { positions, playouts, gpu_playouts } => {
            let (adapter, rows) = go_section(*positions.max(&1), *playouts.max(&10), *gpu_playouts.max(&10));
            ("go", adapter, rows)
        }
        Section::Movegen { max_batch } => {
            let (adapter, rows) = movegen_section(*max_batch.max(&1));
            ("movegen", adapter, rows)
        }
        Section::Sliders { batch, perft_depth, invocations } => {
            let (adapter, rows) = sliders_section(*batch.max(&1), *perft_depth, *invocations.max(&64));
            ("sliders", adapter, rows)
        }
        Section::Perft { start_depths, kiwipete_depths, cpu_max_nodes, budget_seconds, rounds, leaf_shapes } => {
            let settings = PerftSettings {
                cpu_max_nodes: *cpu_max_nodes,
                budget_seconds: *budget_seconds,
                rounds: (*rounds).max(1),
                leaf_shapes: *leaf_shapes,
            };
            let (adapter, rows) = perft_section(start_depths, kiwipete_depths, &settings);
            ("perft", adapter, rows)
        }
    };
    if let Some(path) = &arguments.json {
        write_json(path, name, adapter, &rows);
    }
    if let Some(path) = &arguments.plot {
        match name {
            "movegen" => draw_plot(
                path,
                "Move generation throughput",
                "batch size (positions)",
                "positions per second",
                &rows,
                true,
            ),
            "perft" => draw_plot(path, "Perft throughput", "depth", "nodes per second", &rows, false),
            "sliders" => {
                let perft_rows: Vec<Row> = rows.iter().filter(|row| row.engine.ends_with(" perft")).cloned().collect();
                draw_plot(path, "GPU perft by slider algorithm", "depth", "nodes per second", &perft_rows, false)
            }
            _ => draw_plot(path, "CPU perft, one thread", "depth", "nodes per second", &rows, false),
        }
    }
}
