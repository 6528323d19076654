//! `perft`: nodes per second of GPU perft, the CPU backend on all threads,
//! this crate's CPU perft on one thread and cozy-chess on one thread.

use crate::OrGpuExit as _;
use crate::peers::{cozy_perft, shakmaty_position};
use crate::report::{Row, median, seconds};
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions, ShaderBuild};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::suite::{KIWIPETE_FEN as KIWIPETE, published_count};
use gpu_movegen::{Position, perft};
use std::time::Instant;

pub(crate) const POSITIONS: [(&str, &str); 2] = [("start position", gpu_movegen::START_FEN), ("kiwipete", KIWIPETE)];

/// The build the command line's defaults pick on this adapter.
pub(crate) fn adapter_build(context: &GpuContext) -> ShaderBuild {
    let default = gpu_movegen::chess::gpu::adapter_default(context.adapter_info.as_ref());
    default.build_for(gpu_movegen::chess::gpu::KernelFamily::Chess, context.device.features())
}

pub(crate) struct PerftSettings {
    pub(crate) cpu_max_nodes: u64,
    pub(crate) budget_seconds: Option<f64>,
    pub(crate) rounds: usize,
    pub(crate) leaf_shapes: bool,
}

pub(crate) fn perft_section(
    start_depths: &[u32],
    kiwipete_depths: &[u32],
    settings: &PerftSettings,
) -> (Option<String>, Vec<Row>) {
    let PerftSettings { cpu_max_nodes, budget_seconds, rounds, leaf_shapes } = *settings;
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("perft: {error}");
            std::process::exit(crate::GPU_FAILURE);
        }
    };
    let build = adapter_build(&context);
    // Without a transposition table: the rounds measure the kernels, not each other's stored counts
    // (the deep section measures the tables).
    let options = PerftOptions { build, table_bytes: Some(0), ..Default::default() };
    let mut gpu = GpuPerft::with_options(&context, options).or_gpu_exit("GPU perft");
    println!(
        "Perft, adapter: {}, shaders {}, arena {} positions, {rounds} alternating rounds, median time",
        context.adapter_description(),
        build.name(),
        gpu.capacity()
    );
    // Pipelines compile on first use; keep that out of the timings.
    gpu.perft(&[Position::start()], 3, &mut |_| {}).or_gpu_exit("warm-up");
    let mut pairs = leaf_shapes.then(|| {
        let options = PerftOptions { build, fused_leaves: false, table_bytes: Some(0), ..Default::default() };
        let mut engine = GpuPerft::with_options(&context, options).or_gpu_exit("GPU perft");
        engine.perft(&[Position::start()], 3, &mut |_| {}).or_gpu_exit("warm-up");
        engine
    });
    let threads = rayon::current_num_threads();
    println!(
        "{:<14} {:>5} {:>16} {:>10} {:>11} {:>10} {:>10} {:>13} {:>13} {:>10}",
        "position",
        "depth",
        "nodes",
        "gpu M/s",
        format!("cpu {threads}t M/s"),
        "cpu 1t",
        "cozy 1t",
        "shakmaty 1t",
        "gpu/shakm.",
        "checked"
    );
    let started_all = Instant::now();
    let mut rows = Vec::new();
    for ((name, fen), depths) in POSITIONS.iter().zip([start_depths, kiwipete_depths]) {
        let position = Position::from_fen(fen).expect("valid FEN");
        let board = cozy_chess::Board::from_fen(fen, false).expect("valid FEN");
        let chess = shakmaty_position(fen, shakmaty::CastlingMode::Standard);
        let mut previous_gpu_seconds: Option<f64> = None;
        for &depth in depths {
            if let (Some(budget), Some(previous)) = (budget_seconds, previous_gpu_seconds) {
                let shapes = if leaf_shapes { 2.0 } else { 1.0 };
                if started_all.elapsed().as_secs_f64() + previous * 40.0 * rounds as f64 * shapes > budget {
                    println!("{name:<14} {depth:>5} skipped: the forecast passes the {budget} s budget");
                    break;
                }
            }
            let published = published_count(&position, depth);
            let with_cpu = published.is_none_or(|nodes| nodes <= cpu_max_nodes);
            // Every engine once per round, in turn, so drift hits them alike.
            let engines: Vec<(String, Box<dyn Fn() -> u64>)> = {
                let mut engines: Vec<(String, Box<dyn Fn() -> u64>)> = Vec::new();
                if with_cpu {
                    engines.push((
                        format!("cpu {threads} threads"),
                        Box::new(move || perft::perft_parallel(&position, depth)),
                    ));
                    engines.push(("cpu 1 thread".to_owned(), Box::new(move || perft::perft(&position, depth))));
                    let board = board.clone();
                    engines.push(("cozy-chess 1 thread".to_owned(), Box::new(move || cozy_perft(&board, depth))));
                    let chess = chess.clone();
                    engines.push(("shakmaty 1 thread".to_owned(), Box::new(move || shakmaty::perft(&chess, depth))));
                }
                engines
            };
            let mut gpu_times = Vec::new();
            let mut pair_times = Vec::new();
            let mut cpu_times: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
            let mut nodes = 0;
            for _ in 0..rounds {
                let (gpu_nodes, gpu_seconds) =
                    seconds(|| gpu.perft(&[position], depth, &mut |_| {}).or_gpu_exit("GPU perft")[0]);
                // Every count is checked before it is printed: against the
                // published value, else against the CPU engines.
                if let Some(expected) = published {
                    if gpu_nodes != expected {
                        eprintln!("perft: the GPU counted {gpu_nodes} for {name} depth {depth}; published: {expected}");
                        std::process::exit(1);
                    }
                }
                nodes = gpu_nodes;
                gpu_times.push(gpu_seconds);
                if let Some(pairs) = pairs.as_mut() {
                    let (pair_nodes, pair_seconds) =
                        seconds(|| pairs.perft(&[position], depth, &mut |_| {}).or_gpu_exit("GPU perft")[0]);
                    if pair_nodes != gpu_nodes {
                        eprintln!(
                            "perft: the two leaf shapes disagree on {name} depth {depth}: {gpu_nodes}, {pair_nodes}"
                        );
                        std::process::exit(1);
                    }
                    pair_times.push(pair_seconds);
                }
                for ((engine, run), times) in engines.iter().zip(&mut cpu_times) {
                    let (engine_nodes, time) = seconds(run);
                    if engine_nodes != gpu_nodes {
                        eprintln!(
                            "perft: {engine} counted {engine_nodes} for {name} depth {depth}; the GPU {gpu_nodes}"
                        );
                        std::process::exit(1);
                    }
                    times.push(time);
                }
            }
            let checked = match (published, engines.is_empty()) {
                (Some(_), _) => "published",
                (None, false) => "cpu",
                (None, true) => "UNCHECKED",
            };
            let gpu_seconds = median(gpu_times);
            previous_gpu_seconds = Some(gpu_seconds);
            let mut row = |engine: String, seconds: f64| {
                rows.push(Row {
                    section: "perft",
                    engine,
                    workload: name.to_string(),
                    size: u64::from(depth),
                    rate: nodes as f64 / seconds,
                    amount: nodes as f64,
                    seconds,
                    upload_ms: None,
                    dispatch_ms: None,
                    gpu_ms: None,
                    readback_ms: None,
                    checked: Some(checked),
                });
                nodes as f64 / seconds / 1e6
            };
            let mut cells = vec![format!("{:>10.1}", row("gpu".to_owned(), gpu_seconds))];
            if !pair_times.is_empty() {
                let rate = row("gpu, last ply per (position, move)".to_owned(), median(pair_times));
                println!("{name:<14} {depth:>5} gpu with the last level stored: {rate:.1} M nodes/s");
            }
            let mut shakmaty_seconds = None;
            for ((engine, _), times) in engines.iter().zip(cpu_times) {
                let time = median(times);
                if engine.starts_with("shakmaty") {
                    shakmaty_seconds = Some(time);
                }
                cells.push(format!("{:>10.1}", row(engine.clone(), time)));
            }
            while cells.len() < 5 {
                cells.push(format!("{:>10}", "-"));
            }
            let ratio = shakmaty_seconds.map_or("-".to_owned(), |time| format!("{:.2}", time / gpu_seconds));
            println!("{name:<14} {depth:>5} {nodes:>16} {} {ratio:>13} {checked:>10}", cells.join(" "));
        }
    }
    (Some(context.adapter_description()), rows)
}
