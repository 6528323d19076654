//! `cpu`: this crate's CPU perft against cozy-chess and shakmaty, one
//! thread each in alternating rounds, and the scaling over threads.

use crate::peers::{cozy_perft, shakmaty_position};
use crate::report::{Row, median, seconds};
use gpu_movegen::suite::KIWIPETE_FEN as KIWIPETE;
use gpu_movegen::{Position, perft};

/// The first position of chess960.perft, in Shredder-FEN (what all three libraries read).
pub(crate) const CHESS960_FEN: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";

pub(crate) fn cpu_section(rounds: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    println!("CPU perft, single thread, {rounds} alternating rounds, median time");
    println!(
        "{:<16} {:>5} {:>13} {:>10} {:>10} {:>13} {:>13} {:>11}",
        "position", "depth", "nodes", "ours M/s", "cozy M/s", "shakmaty M/s", "ours/shakm.", "ours/cozy"
    );
    let standard = shakmaty::CastlingMode::Standard;
    for (name, fen, depth, mode) in [
        ("start position", gpu_movegen::START_FEN, 6, standard),
        ("kiwipete", KIWIPETE, 5, standard),
        ("chess960 #0", CHESS960_FEN, 6, shakmaty::CastlingMode::Chess960),
    ] {
        let position = Position::from_fen(fen).expect("valid FEN");
        let chess960 = mode == shakmaty::CastlingMode::Chess960;
        let board = cozy_chess::Board::from_fen(fen, chess960).expect("valid FEN");
        let chess = shakmaty_position(fen, mode);
        let (mut ours, mut cozy, mut shakmaty_times) = (Vec::new(), Vec::new(), Vec::new());
        let mut node_count = 0;
        for _ in 0..rounds {
            let (nodes, time) = seconds(|| perft::perft(&position, depth));
            let (cozy_nodes, cozy_time) = seconds(|| cozy_perft(&board, depth));
            let (shakmaty_nodes, shakmaty_time) = seconds(|| shakmaty::perft(&chess, depth));
            if [cozy_nodes, shakmaty_nodes] != [nodes; 2] {
                eprintln!(
                    "cpu: the libraries disagree on {name}: {nodes}, cozy {cozy_nodes}, shakmaty {shakmaty_nodes}"
                );
                std::process::exit(1);
            }
            node_count = nodes;
            ours.push(time);
            cozy.push(cozy_time);
            shakmaty_times.push(shakmaty_time);
        }
        let (ours, cozy, shakmaty_time) = (median(ours), median(cozy), median(shakmaty_times));
        let rate = |time: f64| node_count as f64 / time / 1e6;
        for (engine, time) in
            [("gpu-movegen 1 thread", ours), ("cozy-chess 1 thread", cozy), ("shakmaty 1 thread", shakmaty_time)]
        {
            let checked = Some("cozy-chess, shakmaty");
            rows.push(Row::counted("cpu", engine.to_owned(), name, u64::from(depth), node_count as f64, time, checked));
        }
        println!(
            "{name:<16} {depth:>5} {node_count:>13} {:>10.1} {:>10.1} {:>13.1} {:>13.2} {:>11.2}",
            rate(ours),
            rate(cozy),
            rate(shakmaty_time),
            shakmaty_time / ours,
            cozy / ours
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
    rows
}
