//! The fast Shogi perft engine against the full-rules reference generator:
//! every move count of thousands of positions from seeded random play, and
//! perft(2) and (3) of fewer, so that every rule the engine shortcuts
//! (pins, checks, promotions by masks, drops by popcount, nifu, uchifuzume,
//! dead ranks) is compared with the generator that plays each move.

mod common;

use gpu_movegen::shogi::Position;
use gpu_movegen::shogi::perft::{legal_move_count, perft, perft_parallel, random_positions, reference_perft};

#[test]
fn move_counts_match_the_reference_on_random_positions() {
    let positions = random_positions(6_000, 25);
    let mut in_check = 0;
    for position in &positions {
        let expected = position.legal_move_count();
        assert_eq!(legal_move_count(position), expected, "{}", position.to_sfen());
        assert_eq!(legal_move_count(position), position.legal_moves().len() as u32, "{}", position.to_sfen());
        in_check += usize::from(is_in_check(position));
    }
    // The random games must reach enough checks to test evasions.
    assert!(in_check > 100, "only {in_check} positions in check");
}

fn is_in_check(position: &Position) -> bool {
    gpu_movegen::shogi::movegen::in_check(position, position.side_to_move())
}

#[test]
fn perft_matches_the_reference_on_random_positions() {
    for (index, position) in random_positions(400, 7).iter().enumerate() {
        let depth = if index % 8 == 0 { 3 } else { 2 };
        assert_eq!(perft(position, depth), reference_perft(position, depth), "{} depth {depth}", position.to_sfen());
    }
}

#[test]
fn parallel_and_single_thread_agree() {
    for position in random_positions(20, 11) {
        assert_eq!(perft_parallel(&position, 3), perft(&position, 3), "{}", position.to_sfen());
    }
}

/// Positions where Black may drop a pawn straight in front of White's
/// king, the one move whose legality the engine decides from the reply
/// (uchifuzume): both outcomes must occur many times, every count must match.
#[test]
fn pawn_drops_in_front_of_the_king_match_the_reference() {
    let (mut mates, mut escapes) = (0, 0);
    for position in common::shogi::pawn_drop_positions(8_000, 4) {
        assert_eq!(legal_move_count(&position), position.legal_move_count(), "{}", position.to_sfen());
        if common::shogi::pawn_drop_mates(&position) { mates += 1 } else { escapes += 1 }
    }
    assert!(mates > 200 && escapes > 200, "{mates} mating and {escapes} legal pawn drops");
}
