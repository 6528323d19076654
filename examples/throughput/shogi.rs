//! `shogi`: Shogi perft against shunsai's single thread, our CPU engine on
//! one thread and the GPU, on the start position and the published
//! "matsuri" and 593-move positions, in alternating rounds; the two slider
//! methods; GPU perft in both bitboard layouts and GPU move generation.

use crate::OrGpuExit as _;
use crate::peers::{shunsai_perft, shunsai_position};
use crate::report::{Row, median, seconds};
use gpu_movegen::gpu::GpuContext;
use std::time::Instant;

/// Shogi on the GPU, when an adapter opens: perft of the start position
/// (checked against the CPU) and the per-position kernel by batch size.
pub(crate) fn shogi_gpu_rows(depth: u32) {
    use gpu_movegen::shogi;
    let Ok(context) = GpuContext::new() else {
        println!("\nShogi on the GPU: no adapter");
        return;
    };
    let start = shogi::Position::start();
    let expected = shogi::perft::perft_parallel(&start, depth);
    println!(
        "\nShogi GPU perft({depth}) on {}, two bitboard layouts, 3 alternating rounds:",
        context.adapter_description()
    );
    use shogi::gpu::layout::BoardWords;
    let mut engines: Vec<(BoardWords, shogi::gpu::ShogiGpuPerft, Vec<f64>)> =
        [BoardWords::Full, BoardWords::ThreeRanks]
            .into_iter()
            .map(|build| {
                let options = shogi::gpu::ShogiPerftOptions { build, table_bytes: Some(0), ..Default::default() };
                let mut gpu = shogi::gpu::ShogiGpuPerft::with_options(&context, options).or_gpu_exit("Shogi GPU perft");
                gpu.perft(&[start], 2, &mut |_| {}).or_gpu_exit("warm-up");
                (build, gpu, Vec::new())
            })
            .collect();
    for _ in 0..3 {
        for (build, gpu, times) in &mut engines {
            let (nodes, time) = seconds(|| gpu.perft(&[start], depth, &mut |_| {}).or_gpu_exit("Shogi GPU perft")[0]);
            if nodes != expected {
                eprintln!("shogi: the GPU ({build:?}) counted {nodes} for perft({depth}), the CPU {expected}");
                std::process::exit(1);
            }
            times.push(time);
        }
    }
    for (build, _, times) in engines {
        println!("Shogi GPU perft({depth}), {build:?}: {:.2} M nodes/s", expected as f64 / median(times) / 1e6);
    }
    let mut generator = shogi::gpu::ShogiMoveGenerator::new(&context).or_gpu_exit("Shogi move generator");
    let positions = shogi::perft::random_positions(4_096, 2026);
    generator.generate(&positions[..64]).or_gpu_exit("warm-up");
    for batch in [64usize, 1_024, 4_096] {
        let started = Instant::now();
        let moves = generator.generate(&positions[..batch]).or_gpu_exit("Shogi move generation");
        let rate = batch as f64 / started.elapsed().as_secs_f64();
        assert_eq!(moves.len(), batch);
        println!("Shogi GPU move generation, batch {batch:>5}: {rate:>10.0} positions/s");
    }
}

/// The published positions the section counts besides the start: the
/// "matsuri" position (YaneuraOu's unit test) and the 593-move position.
const MATSURI: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1";
const MOST_MOVES: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";

/// One Shogi engine of the comparison: a name and a counter.
type Counter<'a> = (&'static str, Box<dyn FnMut(&str, u32) -> u64 + 'a>);

pub(crate) fn shogi_section(rounds: usize, depth: u32) -> Vec<Row> {
    use gpu_movegen::shogi;
    let workloads = [
        ("start", shogi::START_SFEN, depth.saturating_sub(1).max(1)),
        ("start", shogi::START_SFEN, depth.max(1)),
        ("matsuri", MATSURI, depth.saturating_sub(3).max(1)),
        ("593 moves", MOST_MOVES, depth.saturating_sub(3).max(1)),
    ];
    // The GPU engine in the leaf shape the command line picks for the adapter.
    let context = GpuContext::new().ok();
    let mut gpu = context.as_ref().map(|context| {
        // Without a table, as shunsai and our CPU engine count: rounds must
        // not answer each other. Each level's equal positions still merge.
        let options = shogi::gpu::ShogiPerftOptions {
            fused_leaves: shogi::gpu::fused_leaves_suit(context, true),
            table_bytes: Some(0),
            ..Default::default()
        };
        shogi::gpu::ShogiGpuPerft::with_options(context, options).or_gpu_exit("Shogi GPU perft")
    });
    let mut engines: Vec<Counter> = vec![
        ("ours", Box::new(|sfen, depth| shogi::perft::perft(&shogi::Position::from_sfen(sfen).expect("SFEN"), depth))),
        ("shunsai", Box::new(|sfen, depth| shunsai_perft(&mut shunsai_position(sfen), depth))),
    ];
    if let Some(gpu) = gpu.as_mut() {
        let position = shogi::Position::start();
        gpu.perft(&[position], 2, &mut |_| {}).or_gpu_exit("warm-up");
        engines.push((
            "gpu",
            Box::new(move |sfen, depth| {
                let position = shogi::Position::from_sfen(sfen).expect("SFEN");
                gpu.perft(&[position], depth, &mut |_| {}).or_gpu_exit("Shogi GPU perft")[0]
            }),
        ));
    }
    match &context {
        Some(context) => println!("Shogi perft, GPU on {}", context.adapter_description()),
        None => println!("Shogi perft, no GPU adapter"),
    }
    println!("CPUs one thread each; {rounds} alternating rounds, median time");
    println!(
        "{:<10} {:>5} {:>12} {:>10} {:>11} {:>10} {:>13} {:>12}",
        "position", "depth", "nodes", "ours M/s", "shunsai M/s", "GPU M/s", "ours/shunsai", "GPU/shunsai"
    );
    let mut rows = Vec::new();
    for (name, sfen, depth) in workloads {
        let mut times = vec![Vec::new(); engines.len()];
        let mut nodes = 0;
        for _ in 0..rounds {
            for (index, (engine, count)) in engines.iter_mut().enumerate() {
                let (counted, time) = seconds(|| count(sfen, depth));
                if index == 0 {
                    nodes = counted;
                } else if counted != nodes {
                    eprintln!("shogi: perft({depth}) of {name} is {nodes} here and {counted} for {engine}");
                    std::process::exit(1);
                }
                times[index].push(time);
            }
        }
        let medians: Vec<f64> = times.into_iter().map(median).collect();
        let rate = |index: usize| medians.get(index).map(|time| nodes as f64 / time / 1e6);
        let gpu_rate = rate(2).map_or("-".to_owned(), |rate| format!("{rate:.2}"));
        let gpu_ratio = medians.get(2).map_or("-".to_owned(), |time| format!("{:.3}", medians[1] / time));
        println!(
            "{name:<10} {depth:>5} {nodes:>12} {:>10.2} {:>11.2} {gpu_rate:>10} {:>13.3} {gpu_ratio:>12}",
            rate(0).unwrap_or(0.0),
            rate(1).unwrap_or(0.0),
            medians[1] / medians[0],
        );
        for ((engine, _), time) in engines.iter().zip(&medians) {
            let label = match *engine {
                "ours" => "gpu-movegen cpu 1 thread",
                "shunsai" => "shunsai 1 thread",
                _ => "gpu-movegen gpu",
            };
            rows.push(Row::counted(
                "shogi",
                label.to_owned(),
                name,
                u64::from(depth),
                nodes as f64,
                *time,
                Some("shunsai"),
            ));
        }
    }
    drop(engines);
    // The two ways to compute sliding attacks, on the same occupancies.
    use gpu_movegen::shogi::movegen::{DIAGONAL_DIRECTIONS, ORTHOGONAL_DIRECTIONS, slide};
    use gpu_movegen::shogi::{Bitboard, sliders};
    let occupancies: Vec<Bitboard> = (0..1024u128)
        .map(|index| {
            let bits = index.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ (index << 17);
            Bitboard(bits & bits.rotate_left(23) & Bitboard::ALL.0)
        })
        .collect();
    let evaluations = occupancies.len() as f64 * 81.0 * 2.0;
    let time_method = |rook: &dyn Fn(u8, Bitboard) -> Bitboard, bishop: &dyn Fn(u8, Bitboard) -> Bitboard| {
        let started = Instant::now();
        let mut folded = 0u128;
        for _ in 0..10 {
            for occupied in &occupancies {
                for square in 0..81 {
                    folded ^= rook(square, *occupied).0 ^ bishop(square, *occupied).0;
                }
            }
        }
        std::hint::black_box(folded);
        evaluations * 10.0 / started.elapsed().as_secs_f64() / 1e6
    };
    let rays = time_method(&|square, occupied| slide(square, &ORTHOGONAL_DIRECTIONS, occupied), &|square, occupied| {
        slide(square, &DIAGONAL_DIRECTIONS, occupied)
    });
    let fill = time_method(&sliders::rook_attacks, &sliders::bishop_attacks);
    println!(
        "\nShogi sliders, rook and bishop attacks, one thread: ray tables with a bit scan {rays:.1} M/s, \
              nine-by-nine Kogge-Stone fill {fill:.1} M/s"
    );
    shogi_gpu_rows(depth);
    rows
}
