//! Criterion benches of single-threaded CPU perft, this crate beside
//! cozy-chess in the same run. `cargo run --release --example throughput -- cpu` prints the ratio.

use criterion::{Criterion, criterion_group, criterion_main};
use gpu_movegen::{Position, perft};
use std::hint::black_box;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    board.generate_moves(|moves| {
        if depth == 1 {
            nodes += moves.len() as u64;
        } else {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

fn perft_benches(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("cpu-perft");
    group.sample_size(10);
    for (name, fen, depth) in [("start-d5", gpu_movegen::START_FEN, 5), ("kiwipete-d4", KIWIPETE, 4)] {
        let position = Position::from_fen(fen).unwrap();
        let board = cozy_chess::Board::from_fen(fen, false).unwrap();
        group.bench_function(format!("gpu-movegen/{name}"), |bencher| {
            bencher.iter(|| perft::perft(black_box(&position), depth))
        });
        group.bench_function(format!("cozy-chess/{name}"), |bencher| {
            bencher.iter(|| cozy_perft(black_box(&board), depth))
        });
    }
    group.finish();
}

criterion_group!(benches, perft_benches);
criterion_main!(benches);
