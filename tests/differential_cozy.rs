//! The CPU reference against cozy-chess on positions reached by seeded
//! random play: the same legal moves at depth 1 and the same perft(3).

mod common;

use std::collections::BTreeSet;

use gpu_movegen::{Position, perft};

fn cozy_board(position: &Position) -> cozy_chess::Board {
    cozy_chess::Board::from_fen(&position.to_fen(), false)
        .unwrap_or_else(|error| panic!("cozy-chess rejects {}: {error:?}", position.to_fen()))
}

/// cozy-chess writes castling as the king taking its own rook; UCI (and
/// this crate) write the king's two-square move.
fn cozy_uci(board: &cozy_chess::Board, mv: cozy_chess::Move) -> String {
    let is_castle =
        board.piece_on(mv.from) == Some(cozy_chess::Piece::King) && board.color_on(mv.to) == Some(board.side_to_move());
    if is_castle {
        let file = if mv.to.file() > mv.from.file() { cozy_chess::File::G } else { cozy_chess::File::C };
        let to = cozy_chess::Square::new(file, mv.to.rank());
        format!("{}{}", mv.from, to)
    } else {
        mv.to_string()
    }
}

fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut moves = BTreeSet::new();
    board.generate_moves(|piece_moves| {
        for mv in piece_moves {
            moves.insert(cozy_uci(board, mv));
        }
        false
    });
    moves
}

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    board.generate_moves(|piece_moves| {
        if depth == 1 {
            nodes += piece_moves.len() as u64;
        } else {
            for mv in piece_moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

#[test]
fn move_sets_and_perft3_match_cozy_chess_on_random_positions() {
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    // 148 roots x 40 walks = 5,920 end positions, plus every position passed
    // on the way that has an en passant square or a double check, plus the roots.
    let mut positions = common::random_walks(&roots, 40, 80, 0x5eed_2026, |position| {
        position.en_passant().is_some() || position.checkers().has_several()
    });
    positions.extend(&roots);
    assert!(positions.len() >= 5_000);

    // checks, double checks, en passant squares, castling rights, promotions available
    let mut special = [0usize; 5];
    for position in &positions {
        let board = cozy_board(position);
        let ours: BTreeSet<String> = position.legal_moves().iter().map(|mv| mv.to_string()).collect();
        let theirs = cozy_moves(&board);
        assert_eq!(ours, theirs, "legal moves differ in {}", position.to_fen());
        assert_eq!(perft::perft(position, 3), cozy_perft(&board, 3), "perft(3) differs in {}", position.to_fen());

        special[0] += usize::from(position.in_check());
        special[1] += usize::from(position.checkers().has_several());
        special[2] += usize::from(position.en_passant().is_some());
        special[3] += usize::from(position.castling_rights().bits() != 0);
        special[4] += usize::from(position.legal_moves().iter().any(|mv| mv.promotion().is_some()));
    }
    // The sample must exercise the special rules, or agreeing proves little.
    // Double checks are rare in random play; a handful is enough to catch a rule slip.
    let minimum = [100, 5, 100, 100, 50];
    assert!(
        special.iter().zip(minimum).all(|(&count, minimum)| count >= minimum),
        "too few special positions: {special:?}"
    );
}
