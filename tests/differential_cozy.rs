//! The CPU reference against cozy-chess on positions reached by seeded
//! random play, standard chess and Chess960: the same legal moves at depth 1
//! and the same perft(3), and the same perft statistics.

mod common;

use std::collections::BTreeSet;

use gpu_movegen::{CastlingNotation, Move, MoveKind, Position, perft};

/// Chess960 positions go over in Shredder-FEN, which cozy-chess reads
/// without X-FEN's outermost-rook rule.
fn cozy_board(position: &Position, chess960: bool) -> cozy_chess::Board {
    let fen = if chess960 { position.to_fen_with(CastlingNotation::Shredder) } else { position.to_fen() };
    cozy_chess::Board::from_fen(&fen, chess960).unwrap_or_else(|error| panic!("cozy-chess rejects {fen}: {error:?}"))
}

/// cozy-chess writes castling as the king taking its own rook, as
/// `Move::uci(true)` does.
fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut moves = BTreeSet::new();
    board.generate_moves(|piece_moves| {
        for mv in piece_moves {
            moves.insert(mv.to_string());
        }
        false
    });
    moves
}

/// Legal moves and perft(3) equal cozy-chess's in every position.
fn assert_agrees_with_cozy(position: &Position, chess960: bool) {
    let board = cozy_board(position, chess960);
    let ours: BTreeSet<String> = position.legal_moves().iter().map(|mv| mv.uci(true).to_string()).collect();
    assert_eq!(ours, cozy_moves(&board), "legal moves differ in {}", position.to_fen());
    assert_eq!(perft::perft(position, 3), cozy_perft(&board, 3), "perft(3) differs in {}", position.to_fen());
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
        assert_agrees_with_cozy(position, false);

        special[0] += usize::from(position.in_check());
        special[1] += usize::from(position.checkers().has_several());
        special[2] += usize::from(position.en_passant().is_some());
        special[3] += usize::from(!position.castling_rights().is_empty());
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

#[test]
fn chess960_move_sets_and_perft3_match_cozy_chess_on_random_positions() {
    // Every start position and the suite's, each walked at random four times,
    // plus every position in check or with an en passant square passed on the way.
    let mut roots = common::chess960_starts();
    roots.extend(common::chess960_suite_positions());
    let mut positions = common::random_walks(&roots, 4, 40, 0x960_2026, |position| {
        position.in_check() || position.en_passant().is_some()
    });
    positions.extend(&roots);
    assert!(positions.len() >= 5_000, "{}", positions.len());

    // Castling available, castling only by king takes rook's notation, in check, en passant.
    let mut special = [0usize; 4];
    for position in &positions {
        assert_agrees_with_cozy(position, true);
        let castles: Vec<Move> =
            position.legal_moves().into_iter().filter(|mv| mv.kind() == MoveKind::Castling).collect();
        special[0] += usize::from(!castles.is_empty());
        special[1] += usize::from(castles.iter().any(|mv| !mv.is_standard_castling()));
        special[2] += usize::from(position.in_check());
        special[3] += usize::from(position.en_passant().is_some());
    }
    eprintln!("positions: {}, special: {special:?}", positions.len());
    let minimum = [3_000, 3_000, 2_000, 10_000];
    assert!(
        special.iter().zip(minimum).all(|(&count, minimum)| count >= minimum),
        "too few special positions: {special:?}"
    );
}

/// The nine statistics columns below `board`, counted with cozy-chess alone:
/// the peer's moves, captures, checkers and game status.
fn cozy_stats(board: &cozy_chess::Board, depth: u32) -> [u64; 9] {
    use cozy_chess::{GameStatus, Piece};
    let mut columns = [0u64; 9];
    board.generate_moves(|piece_moves| {
        for mv in piece_moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            if depth > 1 {
                let below = cozy_stats(&child, depth - 1);
                columns.iter_mut().zip(below).for_each(|(column, value)| *column += value);
                continue;
            }
            let us = board.side_to_move();
            // cozy-chess writes castling as the king taking its own rook.
            let castling = piece_moves.piece == Piece::King && board.colors(us).has(mv.to);
            let en_passant =
                piece_moves.piece == Piece::Pawn && mv.from.file() != mv.to.file() && !board.occupied().has(mv.to);
            let capture = en_passant || (!castling && board.colors(!us).has(mv.to));
            // The square the piece that moved stands on now: for castling, the rook's.
            let arrived = if castling {
                let file = if mv.to.file() > mv.from.file() { cozy_chess::File::F } else { cozy_chess::File::D };
                cozy_chess::Square::new(file, mv.from.rank())
            } else {
                mv.to
            };
            let checkers = child.checkers();
            let row = [
                1,
                u64::from(capture),
                u64::from(en_passant),
                u64::from(castling),
                u64::from(mv.promotion.is_some()),
                u64::from(!checkers.is_empty()),
                u64::from(!checkers.is_empty() && !checkers.has(arrived)),
                u64::from(checkers.len() > 1),
                u64::from(child.status() == GameStatus::Won),
            ];
            columns.iter_mut().zip(row).for_each(|(column, value)| *column += value);
        }
        false
    });
    columns
}

#[test]
fn perft_statistics_match_cozy_chess_on_random_positions() {
    // Standard and Chess960 roots, walked at random; positions in check or
    // with an en passant square on the way are kept too.
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    roots.extend(common::chess960_starts().into_iter().step_by(8));
    let mut positions = common::random_walks(&roots, 6, 60, 0x57a7_2026, |position| {
        position.in_check() || position.en_passant().is_some()
    });
    positions.extend(&roots);
    assert!(positions.len() >= 2_000, "{}", positions.len());
    let mut totals = [0u64; 9];
    for position in &positions {
        let chess960 = position.is_chess960();
        let peer = cozy_stats(&cozy_board(position, chess960), 2);
        let ours = gpu_movegen::chess::stats::perft_stats(position, 2).columns();
        assert_eq!(ours, peer, "perft(2) statistics differ in {}", position.to_fen());
        totals.iter_mut().zip(peer).for_each(|(total, value)| *total += value);
    }
    // Every column must be exercised, or agreeing proves little.
    assert!(totals.iter().all(|&total| total > 0), "a column is never counted: {totals:?}");
}
