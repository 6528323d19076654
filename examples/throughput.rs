//! Throughput measurements, each comparison made in one run on one machine.
//!
//! `cpu`: single-threaded CPU perft of this crate against cozy-chess on the
//! start position (depth 6) and Kiwipete (depth 5), alternating the two in
//! rounds so that drift in machine speed hits both; then multi-threaded
//! scaling of this crate's perft.
//!
//! ```text
//! cargo run --release --example throughput -- cpu --rounds 5
//! ```

use std::time::Instant;

use clap::{Parser, Subcommand};
use gpu_movegen::{Position, perft};

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

fn main() {
    match Arguments::parse().section {
        Section::Cpu { rounds } => cpu_section(rounds.max(1)),
    }
}
