//! The peers the sections measure against: cozy-chess and shakmaty for
//! chess, shunsai for Shogi, each counting perft its own way.

pub(crate) fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 1 {
        let mut nodes = 0;
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += cozy_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

/// shunsai's perft on its fastest public path: the last ply counted from
/// its move sets without building a move, inner plies played from one
/// buffer per node with `do_move` and `undo_move`.
pub(crate) fn shunsai_perft(position: &mut shunsai::Position, depth: u32) -> u64 {
    use std::ops::ControlFlow;
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        let mut count = 0;
        let _ = position.generate_moves(|set| {
            count += set.len() as u64;
            ControlFlow::Continue(())
        });
        return count;
    }
    let mut moves = Vec::with_capacity(600);
    let _ = position.generate_moves(|set| {
        set.write_into(&mut moves);
        ControlFlow::Continue(())
    });
    let mut nodes = 0;
    for mv in moves {
        let undo = position.do_move(mv);
        nodes += shunsai_perft(position, depth - 1);
        position.undo_move(mv, undo);
    }
    nodes
}

/// shunsai's position of an SFEN, built square by square from ours (shunsai
/// reads no SFEN itself).
pub(crate) fn shunsai_position(sfen: &str) -> shunsai::Position {
    use shunsai::shogi_core::{Color, PartialPosition, Piece, PieceKind, Square};
    let ours = gpu_movegen::shogi::Position::from_sfen(sfen).expect("a valid SFEN");
    let mut partial = PartialPosition::empty();
    let color = |color: gpu_movegen::shogi::Color| match color {
        gpu_movegen::shogi::Color::Black => Color::Black,
        gpu_movegen::shogi::Color::White => Color::White,
    };
    // Both crates order the fourteen kinds alike; shogi_core counts from 1.
    let kind = |piece: gpu_movegen::shogi::Piece| PieceKind::from_u8(piece.index() as u8 + 1).expect("a kind");
    for square in 0..81u8 {
        if let Some((owner, piece)) = ours.piece_on(square) {
            let at = Square::new(9 - square % 9, square / 9 + 1).expect("a square");
            partial.piece_set(at, Some(Piece::new(kind(piece), color(owner))));
        }
    }
    for owner in gpu_movegen::shogi::Color::ALL {
        for piece in gpu_movegen::shogi::Piece::HAND {
            for _ in 0..ours.in_hand(owner, piece) {
                let hand = partial.hand_of_a_player_mut(color(owner));
                *hand = hand.added(kind(piece)).expect("room in the hand");
            }
        }
    }
    partial.side_to_move_set(color(ours.side_to_move()));
    shunsai::Position::new(partial)
}

pub(crate) fn shakmaty_position(fen: &str, mode: shakmaty::CastlingMode) -> shakmaty::Chess {
    let fen: shakmaty::fen::Fen = fen.parse().expect("valid FEN");
    fen.into_position(mode).expect("legal position")
}
