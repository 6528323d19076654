//! The Shogi reference against shunsai, a fast, fully legal Rust Shogi move
//! generator: the same legal move set in every position of seeded random
//! games from the start position, captures and drops included; and the fast
//! perft engine's move count of each of those positions.

use gpu_movegen::shogi::Position;
use gpu_movegen::shogi::perft::legal_move_count;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shunsai::shogi_core::ToUsi;

fn ours(position: &Position) -> Vec<String> {
    let mut moves: Vec<String> = position.legal_moves().iter().map(ToString::to_string).collect();
    moves.sort();
    moves
}

fn theirs(position: &shunsai::Position) -> Vec<shunsai::shogi_core::Move> {
    position.legal_moves()
}

#[test]
fn legal_moves_equal_shunsai_in_thousands_of_random_game_positions() {
    let mut random = ChaCha8Rng::seed_from_u64(2026);
    let mut compared = 0;
    let mut with_drops = 0;
    for _ in 0..120 {
        let mut position = Position::start();
        let mut peer = shunsai::Position::startpos();
        for _ in 0..160 {
            let moves = ours(&position);
            let peer_moves = theirs(&peer);
            let mut peer_usi: Vec<String> = peer_moves.iter().map(ToUsi::to_usi_owned).collect();
            peer_usi.sort();
            assert_eq!(moves, peer_usi, "{}", position.to_sfen());
            // The fast engine's count of the same position, against the peer too.
            assert_eq!(legal_move_count(&position) as usize, peer_usi.len(), "{}", position.to_sfen());
            compared += 1;
            with_drops += usize::from(moves.iter().any(|mv| mv.contains('*')));
            if moves.is_empty() {
                break;
            }
            let chosen = &moves[random.random_range(0..moves.len())];
            position = position.make_move(position.parse_usi_move(chosen).unwrap());
            let peer_move = *peer_moves.iter().find(|mv| &mv.to_usi_owned() == chosen).unwrap();
            let _ = peer.do_move(peer_move);
        }
    }
    assert!(compared > 10_000, "{compared}");
    assert!(with_drops > 1_000, "{with_drops}");
}
