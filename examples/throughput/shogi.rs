//! `shogi`: Shogi CPU perft against shunsai, one thread each, alternating
//! rounds, and the GPU's Shogi perft.

use crate::peers::shunsai_perft;
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
            .map(|variant| {
                let options = shogi::gpu::ShogiPerftOptions { variant, ..Default::default() };
                let mut gpu = shogi::gpu::ShogiGpuPerft::with_options(&context, options).expect("Shogi GPU perft");
                gpu.perft(&[start], 2, &mut |_| {}).expect("warm-up");
                (variant, gpu, Vec::new())
            })
            .collect();
    for _ in 0..3 {
        for (variant, gpu, times) in &mut engines {
            let (nodes, time) = seconds(|| gpu.perft(&[start], depth, &mut |_| {}).expect("Shogi GPU perft")[0]);
            if nodes != expected {
                eprintln!("shogi: the GPU ({variant:?}) counted {nodes} for perft({depth}), the CPU {expected}");
                std::process::exit(1);
            }
            times.push(time);
        }
    }
    for (variant, _, times) in engines {
        println!("Shogi GPU perft({depth}), {variant:?}: {:.2} M nodes/s", expected as f64 / median(times) / 1e6);
    }
    let mut generator = shogi::gpu::ShogiMoveGenerator::new(&context).expect("Shogi move generator");
    let positions = shogi::perft::random_positions(4_096, 2026);
    generator.generate(&positions[..64]).expect("warm-up");
    for batch in [64usize, 1_024, 4_096] {
        let started = Instant::now();
        let moves = generator.generate(&positions[..batch]).expect("Shogi move generation");
        let rate = batch as f64 / started.elapsed().as_secs_f64();
        assert_eq!(moves.len(), batch);
        println!("Shogi GPU move generation, batch {batch:>5}: {rate:>10.0} positions/s");
    }
}

pub(crate) fn shogi_section(rounds: usize, depth: u32) -> Vec<Row> {
    use gpu_movegen::shogi;
    println!("Shogi CPU perft from the start position, one thread each, {rounds} alternating rounds, median time");
    println!("{:<8} {:>12} {:>12} {:>14} {:>14}", "depth", "nodes", "ours M/s", "shunsai M/s", "ours/shunsai");
    let position = shogi::Position::start();
    let (mut ours, mut theirs, mut nodes) = (Vec::new(), Vec::new(), 0);
    for _ in 0..rounds {
        let (our_nodes, time) = seconds(|| shogi::perft::perft(&position, depth));
        let mut peer = shunsai::Position::startpos();
        let (peer_nodes, peer_time) = seconds(|| shunsai_perft(&mut peer, depth));
        if our_nodes != peer_nodes {
            eprintln!("shogi: perft({depth}) is {our_nodes} here and {peer_nodes} for shunsai");
            std::process::exit(1);
        }
        nodes = our_nodes;
        ours.push(time);
        theirs.push(peer_time);
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "{depth:<8} {nodes:>12} {:>12.2} {:>14.2} {:>14.3}",
        nodes as f64 / ours / 1e6,
        nodes as f64 / theirs / 1e6,
        theirs / ours
    );
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
    [("gpu-movegen 1 thread", ours), ("shunsai 1 thread", theirs)]
        .into_iter()
        .map(|(engine, time)| {
            Row::counted(
                "shogi",
                engine.to_owned(),
                "start position",
                u64::from(depth),
                nodes as f64,
                time,
                Some("shunsai"),
            )
        })
        .collect()
}
