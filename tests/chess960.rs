//! Chess960: the published chess960.perft counts on the CPU and the GPU, the
//! start positions, castling written and read both ways, and the rules that
//! only Chess960 reaches (a king that stays put, a king step that lands where
//! castling would, the castling rook shielding its king).

mod common;

use common::gpu::context;
use common::{CHESS960, suite};
use gpu_movegen::chess::gpu::GpuPerft;
use gpu_movegen::chess::transposition::{TranspositionTable, perft_hashed_parallel};
use gpu_movegen::{CastlingSide, MoveKind, Position, perft};

/// Every count of chess960.perft up to `max_depth`, for the first `limit`
/// entries, on the CPU (depths past 4 with the transposition table); returns
/// how many were checked.
fn check_cpu(max_depth: u32, limit: usize) -> usize {
    let table = TranspositionTable::with_mebibytes(64).expect("a 64 MiB table");
    let mut checked = 0;
    for entry in suite(CHESS960).iter().take(limit) {
        let position = entry.position().unwrap_or_else(|error| panic!("{}: {error}", entry.fen));
        for (depth, expected) in entry.expected_up_to(max_depth) {
            // Plain perft where it is cheap; the transposition table (whose keys
            // carry the castling rook files) at every depth from 4.
            if depth <= 4 {
                let plain = perft::perft_parallel(&position, depth);
                assert_eq!(plain, expected, "line {}: {} depth {depth}", entry.line, entry.fen);
            }
            if depth >= 4 {
                let hashed = perft_hashed_parallel(&position, depth, &table);
                assert_eq!(hashed, expected, "hashed, line {}: {} depth {depth}", entry.line, entry.fen);
            }
            checked += 1;
        }
    }
    checked
}

/// Every count of chess960.perft up to `max_depth` on the GPU, one batch of
/// all 960 roots per depth.
fn check_gpu(max_depth: u32) -> usize {
    let context = context();
    let mut gpu = GpuPerft::new(&context).unwrap();
    let entries = suite(CHESS960);
    let roots: Vec<Position> = entries.iter().map(|entry| entry.position().unwrap()).collect();
    let mut checked = 0;
    for depth in 1..=max_depth {
        let counts = gpu.perft(&roots, depth, &mut |_| {}).unwrap();
        for (entry, actual) in entries.iter().zip(counts) {
            let expected = entry.expected.iter().find(|(at, _)| *at == depth).expect("every entry has depths 1 to 6").1;
            assert_eq!(actual, expected, "GPU, line {}: {} depth {depth}", entry.line, entry.fen);
            checked += 1;
        }
    }
    checked
}

#[test]
fn all_960_positions_match_published_counts_on_the_cpu_to_depth_4() {
    assert_eq!(check_cpu(4, usize::MAX), 960 * 4);
}

#[test]
fn all_960_positions_match_published_counts_on_the_gpu_to_depth_3() {
    assert_eq!(check_gpu(3), 960 * 3);
}

/// Every published count, to depth 6: about 220 G nodes, minutes on two cores
/// with the transposition table.
#[test]
#[ignore = "minutes on two cores; run with --ignored"]
fn all_960_positions_match_on_the_cpu_to_depth_6() {
    assert_eq!(check_cpu(6, usize::MAX), 960 * 6);
}

/// About 320 M nodes on the GPU: under half a minute on lavapipe.
#[test]
#[ignore = "half a minute on lavapipe; run with --ignored"]
fn all_960_positions_match_on_the_gpu_to_depth_4() {
    assert_eq!(check_gpu(4), 960 * 4);
}

#[test]
fn start_positions_follow_scharnagl_numbering() {
    let starts = common::chess960_starts();
    assert_eq!(starts[518], Position::start());
    assert!(starts[0].to_fen().starts_with("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - "));
    assert!(starts[959].to_fen().starts_with("rkrnnqbb/"));
    let distinct: std::collections::BTreeSet<String> = starts.iter().map(Position::to_fen).collect();
    assert_eq!(distinct.len(), 960);
    for start in &starts {
        // Bishops on opposite colours, the king between the rooks, both rights each.
        let back_rank = start.to_fen().split('/').next_back().unwrap().split(' ').next().unwrap().to_owned();
        let king = back_rank.find('K').unwrap();
        assert!(back_rank.find('R').unwrap() < king && back_rank.rfind('R').unwrap() > king, "{back_rank}");
        assert_ne!(back_rank.find('B').unwrap() % 2, back_rank.rfind('B').unwrap() % 2, "{back_rank}");
        assert_eq!(start.castling_rights().bits().count_ones(), 4);
    }
    assert_eq!(Position::chess960(960), None);
}

fn position(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|error| panic!("{fen}: {error}"))
}

fn castles(position: &Position) -> Vec<String> {
    let mut moves: Vec<String> = position
        .legal_moves()
        .iter()
        .filter(|mv| mv.kind() == MoveKind::Castling)
        .map(|mv| mv.uci(true).to_string())
        .collect();
    moves.sort();
    moves
}

#[test]
fn standard_castling_is_written_as_the_king_move_unless_asked_for_chess960() {
    let kiwipete = position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let short = kiwipete.parse_uci_move("e1g1").unwrap();
    assert_eq!(short.kind(), MoveKind::Castling);
    assert_eq!(short.castling_side(), CastlingSide::King);
    assert_eq!((short.to_string(), short.uci(true).to_string()), ("e1g1".into(), "e1h1".into()));
    assert_eq!(kiwipete.parse_uci_move("e1h1").unwrap(), short);
    let long = kiwipete.parse_uci_move("e1a1").unwrap();
    assert_eq!(long.to_string(), "e1c1");
    assert_eq!(kiwipete.parse_uci_move("e1c1").unwrap(), long);
    assert!(!kiwipete.is_chess960());
    assert_eq!(
        kiwipete.make_move(short).to_fen(),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1"
    );
}

#[test]
fn a_king_already_on_g1_castles_by_moving_only_the_rook() {
    let before = position("4k3/8/8/8/8/8/8/R5KR w KQ - 0 1");
    assert!(before.is_chess960());
    assert_eq!(castles(&before), ["g1a1", "g1h1"]);
    let short = before.parse_uci_move("g1h1").unwrap();
    assert_eq!(short.to_string(), "g1h1", "non-standard castling is always king takes rook");
    assert_eq!(before.parse_uci_move("g1g1").unwrap(), short, "the king's-move form reads too");
    assert_eq!(before.make_move(short).to_fen(), "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1");
    let long = before.parse_uci_move("g1a1").unwrap();
    assert_eq!(before.make_move(long).to_fen(), "4k3/8/8/8/8/8/8/2KR3R b - - 1 1");
}

#[test]
fn a_king_step_onto_g1_is_not_read_as_castling() {
    let before = position("4k3/8/8/8/8/8/8/5K1R w K - 0 1");
    let step = before.parse_uci_move("f1g1").unwrap();
    assert_eq!(step.kind(), MoveKind::Normal);
    let castle = before.parse_uci_move("f1h1").unwrap();
    assert_eq!(castle.kind(), MoveKind::Castling);
    assert_eq!(before.make_move(step).to_fen(), "4k3/8/8/8/8/8/8/6KR b - - 1 1");
    assert_eq!(before.make_move(castle).to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
}

#[test]
fn the_castling_rook_may_not_be_what_shields_the_king() {
    // The queen on a1 sees c1 once the rook has left b1.
    assert_eq!(castles(&position("4k3/8/8/8/8/8/8/qR1K4 w Q - 0 1")), Vec::<String>::new());
    assert_eq!(castles(&position("4k3/8/8/8/8/8/8/1R1K4 w Q - 0 1")), ["d1b1"]);
    // The same when the king does not move at all, and for black.
    assert_eq!(castles(&position("4k3/8/8/8/8/8/8/rRK5 w Q - 0 1")), Vec::<String>::new());
    assert_eq!(castles(&position("Qrk5/8/8/8/8/8/8/4K3 b q - 0 1")), Vec::<String>::new());
    assert_eq!(castles(&position("1rk5/8/8/8/8/8/8/4K3 b q - 0 1")), ["c8b8"]);
    // Squares the king crosses must be empty but for its rook, and unattacked.
    assert_eq!(castles(&position("4k3/8/8/8/8/8/8/1RN1K3 w Q - 0 1")), Vec::<String>::new());
    assert_eq!(castles(&position("4k3/8/8/8/8/8/8/RK1b4 w Q - 0 1")), Vec::<String>::new());
    assert_eq!(castles(&position("3rk3/8/8/8/8/8/8/1K4R1 w K - 0 1")), Vec::<String>::new());
}

#[test]
fn castling_rights_follow_the_rooks_that_move_or_are_taken() {
    let start = Position::chess960(0).unwrap(); // BBQNNRKR
    let mut position = start;
    for uci in ["g2g3", "g7g6", "h2h4", "g6g5", "h1h3", "g5h4"] {
        position.play(position.parse_uci_move(uci).unwrap());
    }
    // White's h-file rook has moved: only the f-file right is left.
    assert!(position.to_fen().contains(" w Qkq "), "{}", position.to_fen());
    assert_eq!(position.to_fen_with(gpu_movegen::CastlingNotation::Shredder).split(' ').nth(2), Some("Fhf"));
    position.play(position.parse_uci_move("g1g2").unwrap());
    assert!(position.to_fen().contains(" b kq "), "{}", position.to_fen());
}
