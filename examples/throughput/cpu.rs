//! `cpu`: this crate's CPU perft against cozy-chess and shakmaty, one
//! thread each and then all threads each, in alternating rounds; then our
//! scaling over threads, without and with the transposition table.

use crate::peers::{cozy_perft, shakmaty_position};
use crate::report::{Row, median, seconds};
use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::fast_perft::{SliderLookup, perft_with};
use gpu_movegen::suite::KIWIPETE_FEN as KIWIPETE;
use gpu_movegen::{Position, perft};
use rayon::prelude::*;

/// The first position of chess960.perft, in Shredder-FEN (what all three libraries read).
pub(crate) const CHESS960_FEN: &str = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
/// Position 3 of the chessprogramming wiki's perft results: few pieces,
/// many checks and en passant captures.
pub(crate) const POSITION_3_FEN: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";

/// The positions and depths measured (`depth_offset` is added to each).
fn workloads(depth_offset: i32) -> Vec<(&'static str, &'static str, u32, shakmaty::CastlingMode)> {
    let standard = shakmaty::CastlingMode::Standard;
    let at = |depth: i32| (depth + depth_offset).max(1) as u32;
    vec![
        ("start position", gpu_movegen::START_FEN, at(6), standard),
        ("kiwipete", KIWIPETE, at(5), standard),
        ("position 3", POSITION_3_FEN, at(7), standard),
        ("chess960 #0", CHESS960_FEN, at(6), shakmaty::CastlingMode::Chess960),
    ]
}

/// Root moves spread over rayon's threads, each subtree on one thread: how
/// the peers, which have no parallel perft of their own, use every core.
fn cozy_parallel(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut children = Vec::new();
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            children.push(child);
        }
        false
    });
    children.par_iter().map(|child| cozy_perft(child, depth - 1)).sum()
}

fn shakmaty_parallel(position: &shakmaty::Chess, depth: u32) -> u64 {
    use shakmaty::Position as _;
    let moves = position.legal_moves();
    moves
        .par_iter()
        .map(|mv| {
            let mut child = position.clone();
            child.play_unchecked(*mv);
            shakmaty::perft(&child, depth - 1)
        })
        .sum()
}

pub(crate) fn cpu_section(rounds: usize, depth_offset: i32, scaling_depth: u32) -> Vec<Row> {
    let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
    let selected = SliderLookup::selected();
    println!(
        "CPU sliders: {selected} (set {} to magic or pext to choose)",
        gpu_movegen::chess::fast_perft::SLIDER_LOOKUP_VARIABLE
    );
    let mut rows = Vec::new();
    for threads in [1, cores] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        println!("\nCPU perft, {threads} thread(s), no transposition table, {rounds} alternating rounds, median time");
        println!(
            "{:<16} {:>5} {:>13} {:>10} {:>10} {:>10} {:>13} {:>11} {:>11}",
            "position",
            "depth",
            "nodes",
            "ours M/s",
            "magic M/s",
            "cozy M/s",
            "shakmaty M/s",
            "ours/shakm.",
            "ours/cozy"
        );
        for (name, fen, depth, mode) in workloads(depth_offset) {
            let position = Position::from_fen(fen).expect("valid FEN");
            let chess960 = mode == shakmaty::CastlingMode::Chess960;
            let board = cozy_chess::Board::from_fen(fen, chess960).expect("valid FEN");
            let chess = shakmaty_position(fen, mode);
            let mut times = [(); 4].map(|_| Vec::new());
            let mut node_count = 0;
            for _ in 0..rounds {
                let counts = pool.install(|| {
                    let mut counts = [0u64; 4];
                    let runs: [&dyn Fn() -> u64; 4] = if threads == 1 {
                        [
                            &|| perft::perft(&position, depth),
                            &|| perft_with(&position, depth, SliderLookup::Magic),
                            &|| cozy_perft(&board, depth),
                            &|| shakmaty::perft(&chess, depth),
                        ]
                    } else {
                        [
                            &|| perft::perft_parallel(&position, depth),
                            &|| perft::perft_parallel_with(&position, depth, SliderLookup::Magic),
                            &|| cozy_parallel(&board, depth),
                            &|| shakmaty_parallel(&chess, depth),
                        ]
                    };
                    for (index, run) in runs.iter().enumerate() {
                        let (nodes, time) = seconds(run);
                        counts[index] = nodes;
                        times[index].push(time);
                    }
                    counts
                });
                if counts != [counts[0]; 4] {
                    eprintln!("cpu: the counts disagree on {name}: ours, ours (magic), cozy, shakmaty = {counts:?}");
                    std::process::exit(1);
                }
                node_count = counts[0];
            }
            let [ours, magic, cozy, shakmaty_time] = times.map(median);
            let rate = |time: f64| node_count as f64 / time / 1e6;
            for (engine, time) in [
                ("gpu-movegen", ours),
                ("gpu-movegen (magic)", magic),
                ("cozy-chess", cozy),
                ("shakmaty", shakmaty_time),
            ] {
                let engine = format!("{engine} {threads} thread(s)");
                let checked = Some("cozy-chess, shakmaty");
                rows.push(Row::counted("cpu", engine, name, u64::from(depth), node_count as f64, time, checked));
            }
            println!(
                "{name:<16} {depth:>5} {node_count:>13} {:>10.1} {:>10.1} {:>10.1} {:>13.1} {:>11.2} {:>11.2}",
                rate(ours),
                rate(magic),
                rate(cozy),
                rate(shakmaty_time),
                shakmaty_time / ours,
                cozy / ours
            );
        }
    }

    println!("\nCPU perft scaling, start position depth {scaling_depth}, median of {rounds}");
    println!("{:>7} {:>16} {:>10} {:>16} {:>10}", "threads", "no table M/s", "speed-up", "table M/s", "speed-up");
    let position = Position::start();
    let mut single = [0.0; 2];
    let mut threads = 1;
    loop {
        let mut rates = [0.0; 2];
        let mut speed_ups = [0.0; 2];
        for (index, hash) in [0u64, 64].into_iter().enumerate() {
            let mut node_count = 0;
            let times: Vec<f64> = (0..rounds)
                .map(|_| {
                    // A fresh table each round, so no round starts with the last one's counts.
                    let mut engine =
                        CpuPerft::builder().threads(threads).hash_mebibytes(hash).build(scaling_depth).expect("engine");
                    let (counts, time) = seconds(|| engine.perft(&[position], scaling_depth, &()));
                    node_count = counts[0];
                    time
                })
                .collect();
            let time = median(times);
            if threads == 1 {
                single[index] = time;
            }
            rates[index] = node_count as f64 / time / 1e6;
            speed_ups[index] = single[index] / time;
            let engine = format!("gpu-movegen {threads} thread(s){}", if hash == 0 { "" } else { ", 64 MiB table" });
            let depth = u64::from(scaling_depth);
            rows.push(Row::counted("cpu scaling", engine, "start position", depth, node_count as f64, time, None));
        }
        println!("{threads:>7} {:>16.1} {:>10.2} {:>16.1} {:>10.2}", rates[0], speed_ups[0], rates[1], speed_ups[1]);
        if threads == cores {
            break;
        }
        threads = (threads * 2).min(cores);
    }
    rows
}
