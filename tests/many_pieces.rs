//! Random FENs with many pieces, up to and past what a game can reach, on
//! every path that takes user input: FEN validation, legal move generation,
//! UCI parsing, perft(2), divide and perftree, on the CPU and the GPU. None
//! may panic; each accepted position must count the same on both backends
//! and stay within the proven move bound.

mod common;

use std::process::Command;

use common::gpu::context;
use gpu_movegen::chess::gpu::{GpuPerft, Kernel, MoveGenerator, PositionMoves};
use gpu_movegen::{FenError, MAX_LEGAL_MOVES, Position, perft};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random placement: each side a king, then up to `extra` more men drawn
/// from queens, rooks, bishops, knights and pawns (queens most often, for
/// the largest move counts), or with `extra` 0 a full set whose pawns are
/// partly promoted to queens for white against a few black men; either side
/// to move.
fn random_fen(random: &mut ChaCha8Rng, extra: usize) -> String {
    let mut board = [None::<char>; 64];
    let mut squares: Vec<usize> = (0..64).collect();
    squares.shuffle(random);
    let mut next = squares.into_iter();
    for king in ['K', 'k'] {
        board[next.next().unwrap()] = Some(king);
    }
    for white in [true, false] {
        // extra == 0: the most material validation allows, with k pawns promoted to queens.
        let letters: Vec<char> = if extra == 0 && white {
            let promoted = random.random_range(0..=8);
            let mut set = vec!['q'; 1 + promoted];
            set.extend(['r', 'r', 'b', 'b', 'n', 'n']);
            set.extend(std::iter::repeat_n('p', 8 - promoted));
            set
        } else {
            let count = random.random_range(0..=if extra == 0 { 3 } else { extra });
            (0..count).map(|_| *['q', 'q', 'q', 'r', 'b', 'n', 'p'].choose(random).unwrap()).collect()
        };
        for letter in letters {
            let Some(square) = next.next() else { break };
            // Pawns stay off the first and last ranks, as validation requires.
            if letter == 'p' && !(8..56).contains(&square) {
                continue;
            }
            board[square] = Some(if white { letter.to_ascii_uppercase() } else { letter });
        }
    }
    let mut placement = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(letter) => {
                    if empty > 0 {
                        placement.push_str(&empty.to_string());
                        empty = 0;
                    }
                    placement.push(letter);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            placement.push_str(&empty.to_string());
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    format!("{placement} {} - - 0 1", if random.random_bool(0.5) { 'w' } else { 'b' })
}

#[test]
fn random_many_piece_fens_never_panic_and_agree_on_both_backends() {
    let mut random = ChaCha8Rng::seed_from_u64(2026);
    let mut accepted = Vec::new();
    let mut refused_for_material = 0;
    for index in 0..6_000 {
        let fen = random_fen(&mut random, [0, 15, 30][index % 3]);
        match Position::from_fen(&fen) {
            Ok(position) => accepted.push(position),
            Err(FenError::TooManyPieces { .. } | FenError::TooManyPawns { .. } | FenError::TooManyPromoted { .. }) => {
                refused_for_material += 1
            }
            Err(FenError::OpponentInCheck { .. }) => {}
            Err(error) => panic!("{fen}: unexpected refusal: {error}"),
        }
    }
    assert!(accepted.len() > 1_000, "{}", accepted.len());
    // The position with the most legal moves a game can reach (218; Nenad Petrović, 1964).
    accepted.push(Position::from_fen("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1").unwrap());
    assert!(refused_for_material > 1_000, "{refused_for_material}");

    let mut most_moves = 0;
    for position in &accepted {
        let moves = position.legal_moves();
        most_moves = most_moves.max(moves.len());
        assert!(moves.len() <= MAX_LEGAL_MOVES);
        assert_eq!(moves.len(), position.legal_move_count() as usize);
        for mv in &moves {
            assert_eq!(position.parse_uci_move(&mv.to_string()), Ok(*mv), "{}", position.to_fen());
        }
        for text in ["a1a1", "h8h1q", "e7e8k", "zz", "e2e4e5", ""] {
            let _ = position.parse_uci_move(text);
        }
    }
    assert_eq!(most_moves, 218);

    let context = context();
    let mut gpu = GpuPerft::new(&context).unwrap();
    let expected: Vec<u64> = accepted.iter().map(|position| perft::perft(position, 2)).collect();
    assert_eq!(gpu.perft(&accepted, 2, &mut |_| {}).unwrap(), expected);
    for position in accepted.iter().step_by(97) {
        assert_eq!(gpu.divide(position, 2, &mut |_| {}).unwrap(), perft::divide(position, 2, false));
    }
    let mut generator = MoveGenerator::new(&context).unwrap();
    let reference: Vec<PositionMoves> = accepted.iter().map(PositionMoves::from_cpu).collect();
    for kernel in [Kernel::PerPiece, Kernel::PerPosition] {
        assert_eq!(generator.generate(&accepted, kernel).unwrap(), reference, "{kernel:?}");
    }
}

#[test]
fn perftree_takes_many_piece_positions_on_both_backends() {
    let mut random = ChaCha8Rng::seed_from_u64(7);
    let mut checked = 0;
    while checked < 6 {
        let fen = random_fen(&mut random, 15);
        let Ok(position) = Position::from_fen(&fen) else { continue };
        let mut outputs = Vec::new();
        for backend in ["cpu", "gpu"] {
            let output = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
                .args(["perftree", "2", &fen, "--backend", backend])
                .output()
                .unwrap();
            assert!(output.status.success(), "{fen}: {}", String::from_utf8_lossy(&output.stderr));
            outputs.push(String::from_utf8(output.stdout).unwrap());
        }
        assert_eq!(outputs[0], outputs[1], "{fen}");
        let total = outputs[0].lines().last().unwrap();
        assert_eq!(total, perft::perft(&position, 2).to_string(), "{fen}");
        checked += 1;
    }
}
