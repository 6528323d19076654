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

pub(crate) fn shunsai_perft(position: &mut shunsai::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return position.legal_moves().len() as u64;
    }
    let mut nodes = 0;
    for mv in position.legal_moves() {
        let undo = position.do_move(mv);
        nodes += shunsai_perft(position, depth - 1);
        position.undo_move(mv, undo);
    }
    nodes
}

pub(crate) fn shakmaty_position(fen: &str, mode: shakmaty::CastlingMode) -> shakmaty::Chess {
    let fen: shakmaty::fen::Fen = fen.parse().expect("valid FEN");
    fen.into_position(mode).expect("legal position")
}
