//! Throughput measurements, each comparison made in one run on one machine.
//!
//! `cpu`: single-threaded CPU perft of this crate against cozy-chess on the
//! start position (depth 6) and Kiwipete (depth 5), alternating the two in
//! rounds so that drift in machine speed hits both; then multi-threaded
//! scaling of this crate's perft.
//!
//! `movegen`: positions and moves per second of the two GPU kernels and the
//! CPU reference over batch sizes from 1 to 1,000,000, with the GPU time
//! split into upload, dispatch (host clock and GPU timestamps) and readback.
//!
//! ```text
//! cargo run --release --example throughput -- cpu --rounds 5
//! cargo run --release --example throughput -- movegen --max-batch 1000000
//! ```

use std::time::Instant;

use clap::{Parser, Subcommand};
use gpu_movegen::gpu::{GpuContext, Kernel, MoveGenerator, PositionMoves, Timings};
use gpu_movegen::{Position, perft, random_play};
use rayon::prelude::*;

#[derive(Parser)]
struct Arguments {
    #[command(subcommand)]
    section: Section,
}

#[derive(Subcommand)]
enum Section {
    /// CPU perft against cozy-chess, single-threaded, and thread scaling.
    Cpu {
        /// Timed rounds per measurement (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// Move generation: GPU kernels against the CPU reference over batch sizes.
    Movegen {
        /// Largest batch (batches are 1, 10, 100, … up to this).
        #[arg(long, default_value_t = 1_000_000)]
        max_batch: usize,
    },
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 1 {
        let mut nodes = 0;
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += cozy_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

fn seconds(run: impl FnOnce() -> u64) -> (u64, f64) {
    let started = Instant::now();
    let nodes = run();
    (nodes, started.elapsed().as_secs_f64())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn cpu_section(rounds: usize) {
    println!("CPU perft, single thread, {rounds} alternating rounds, median time");
    println!(
        "{:<22} {:>5} {:>13} {:>12} {:>12} {:>14}",
        "position", "depth", "nodes", "ours M/s", "cozy M/s", "ours / cozy"
    );
    for (name, fen, depth) in [("start position", gpu_movegen::START_FEN, 6), ("kiwipete", KIWIPETE, 5)] {
        let position = Position::from_fen(fen).expect("valid FEN");
        let board = cozy_chess::Board::from_fen(fen, false).expect("valid FEN");
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let mut node_count = 0;
        for _ in 0..rounds {
            let (nodes, time) = seconds(|| perft::perft(&position, depth));
            let (cozy_nodes, cozy_time) = seconds(|| cozy_perft(&board, depth));
            assert_eq!(nodes, cozy_nodes, "the two libraries disagree on {name}");
            node_count = nodes;
            ours.push(time);
            theirs.push(cozy_time);
        }
        let (ours, theirs) = (median(ours), median(theirs));
        let rate = |time: f64| node_count as f64 / time / 1e6;
        println!(
            "{name:<22} {depth:>5} {node_count:>13} {:>12.1} {:>12.1} {:>14.2}",
            rate(ours),
            rate(theirs),
            theirs / ours
        );
    }

    let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
    println!("\nCPU perft scaling, start position depth 6, median of {rounds}");
    println!("{:>7} {:>12} {:>10}", "threads", "M nodes/s", "speed-up");
    let position = Position::start();
    let mut single = 0.0;
    let mut threads = 1;
    while threads <= cores {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        let times: Vec<f64> =
            (0..rounds).map(|_| seconds(|| pool.install(|| perft::perft_parallel(&position, 6))).1).collect();
        let time = median(times);
        if threads == 1 {
            single = time;
        }
        println!("{threads:>7} {:>12.1} {:>10.2}", 119_060_324.0 / time / 1e6, single / time);
        threads *= 2;
    }
}

/// Distinct positions from random play, repeated to `count`.
fn batch_of(distinct: &[Position], count: usize) -> Vec<Position> {
    distinct.iter().cycle().take(count).copied().collect()
}

fn millis(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn movegen_section(max_batch: usize) {
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("movegen: {error}");
            std::process::exit(2);
        }
    };
    let mut generator = MoveGenerator::new(&context).expect("move generator");
    println!("Move generation, adapter: {}", context.adapter_description());
    let distinct = random_play::random_positions(&Position::start(), 20_000, 120, 2026);
    let average_moves =
        distinct.iter().map(|position| position.legal_move_count() as f64).sum::<f64>() / distinct.len() as f64;
    println!("positions: random play from the start position, {average_moves:.1} legal moves on average");
    println!(
        "{:<14} {:>9} {:>13} {:>13} {:>10} {:>10} {:>10} {:>10}",
        "generator", "batch", "positions/s", "moves/s", "upload ms", "dispatch", "gpu ms", "readback"
    );
    let mut batch = 1;
    while batch <= max_batch {
        let positions = batch_of(&distinct, batch);
        // Warm-up so pipeline creation and buffer growth are not timed.
        for kernel in [Kernel::PerPiece, Kernel::PerPosition] {
            generator.generate(&positions, kernel).expect("GPU generation");
            let started = Instant::now();
            let (moves, timings): (Vec<PositionMoves>, Timings) =
                generator.generate_timed(&positions, kernel, true).expect("GPU generation");
            let seconds = started.elapsed().as_secs_f64();
            let move_total: u64 = moves.iter().map(|moves| u64::from(moves.move_count)).sum();
            println!(
                "{:<14} {batch:>9} {:>13.0} {:>13.0} {:>10.2} {:>10.2} {:>10} {:>10.2}",
                format!("gpu {kernel:?}"),
                batch as f64 / seconds,
                move_total as f64 / seconds,
                millis(timings.upload),
                millis(timings.dispatch),
                timings.gpu_dispatch.map_or("-".to_owned(), |time| format!("{:.2}", millis(time))),
                millis(timings.readback),
            );
        }
        let started = Instant::now();
        let single: Vec<PositionMoves> = positions.iter().map(PositionMoves::from_cpu).collect();
        let seconds = started.elapsed().as_secs_f64();
        let move_total: u64 = single.iter().map(|moves| u64::from(moves.move_count)).sum();
        println!(
            "{:<14} {batch:>9} {:>13.0} {:>13.0}",
            "cpu 1 thread",
            batch as f64 / seconds,
            move_total as f64 / seconds
        );
        let started = Instant::now();
        let parallel: Vec<PositionMoves> = positions.par_iter().map(PositionMoves::from_cpu).collect();
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(parallel.len(), batch);
        println!(
            "{:<14} {batch:>9} {:>13.0} {:>13.0}",
            format!("cpu {} threads", rayon::current_num_threads()),
            batch as f64 / seconds,
            move_total as f64 / seconds
        );
        batch *= 10;
    }
}

fn main() {
    match Arguments::parse().section {
        Section::Cpu { rounds } => cpu_section(rounds.max(1)),
        Section::Movegen { max_batch } => movegen_section(max_batch.max(1)),
    }
}
