//! FEN parsing: one test per class of bad input, exact round trips, and
//! property tests that feed random and mutated text to the parser.

mod common;

use gpu_movegen::{CastlingNotation, CastlingSide, Color, FenError, Position, Square};
use proptest::prelude::*;

fn error_of(fen: &str) -> FenError {
    match Position::from_fen(fen) {
        Ok(position) => panic!("accepted invalid FEN {fen:?} as {position}"),
        Err(error) => error,
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn wrong_field_count() {
    assert_eq!(error_of(""), FenError::FieldCount { found: 0 });
    assert_eq!(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq"), FenError::FieldCount { found: 3 });
    assert_eq!(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0"), FenError::FieldCount { found: 5 });
    assert_eq!(error_of(&format!("{START} extra")), FenError::FieldCount { found: 7 });
    assert!(error_of("").to_string().contains("expected 6"));
}

#[test]
fn bad_piece_letter() {
    let error = error_of("rnbqkbnr/pppppppp/8/8/4X3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(error, FenError::BadPieceLetter { rank: 4, character: 'X' });
    assert!(error.to_string().contains("rank 4") && error.to_string().contains("'X'"));
    assert_eq!(
        error_of("rnbqkbnr/pppppppp/8/8/0p6/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenError::BadPieceLetter { rank: 4, character: '0' }
    );
    assert_eq!(
        error_of("rnbqkbnr/pppppppp/8/8/é7/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenError::BadPieceLetter { rank: 4, character: 'é' }
    );
}

#[test]
fn rank_not_summing_to_eight() {
    assert_eq!(
        error_of("rnbqkbnr/pppppppp/8/8/8/p8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenError::RankLength { rank: 3, squares: 9 }
    );
    assert_eq!(
        error_of("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenError::RankLength { rank: 7, squares: 7 }
    );
    assert_eq!(error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"), FenError::RankCount { found: 7 });
    assert_eq!(
        error_of("rnbqkbnr/pppppppp/8/8/44/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenError::AdjacentDigits { rank: 4 }
    );
}

#[test]
fn bad_side_to_move() {
    let error = error_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1");
    assert_eq!(error, FenError::SideToMove { found: "W".into() });
    assert!(error.to_string().contains("side to move"));
}

#[test]
fn bad_castling_field() {
    for field in ["x", "KQkqK", "", "K-", "1"] {
        let fen = format!("r3k2r/8/8/8/8/8/8/R3K2R w {field} - 0 1");
        if field.is_empty() {
            // An empty field leaves five fields.
            assert_eq!(error_of(&fen), FenError::FieldCount { found: 5 });
            continue;
        }
        let error = error_of(&fen);
        assert_eq!(error, FenError::CastlingSyntax { found: field.into() }, "{fen}");
        assert!(error.to_string().contains("Shredder-FEN"));
    }
}

#[test]
fn castling_rights_name_their_problem() {
    assert_eq!(
        error_of("r3k2r/8/8/8/8/8/4K3/R6R w K - 0 1"),
        FenError::CastlingKingOffBackRank { right: 'K', color: Color::White, king: Square::E2 }
    );
    assert_eq!(
        error_of("r3k2r/8/8/8/8/8/8/4K2R w Q - 0 1"),
        FenError::CastlingNoRookOnSide { right: 'Q', color: Color::White, side: CastlingSide::Queen, king: Square::E1 }
    );
    let error = error_of("r3k3/8/8/8/8/8/8/R3K2R w k - 0 1");
    assert_eq!(
        error,
        FenError::CastlingNoRookOnSide { right: 'k', color: Color::Black, side: CastlingSide::King, king: Square::E8 }
    );
    assert!(error.to_string().contains("black rook on the back rank on the king side of the king on e8"), "{error}");
    let error = error_of("r3k2r/8/8/8/8/8/8/R3K2R w G - 0 1");
    assert_eq!(error, FenError::CastlingWithoutRook { right: 'G', color: Color::White, square: Square::G1 });
    assert!(error.to_string().contains("white rook on g1"));
    // Named twice: as X-FEN's outermost rook and by its file, or the same letter again.
    assert_eq!(
        error_of("r3k2r/8/8/8/8/8/8/R3K2R w KH - 0 1"),
        FenError::CastlingRepeated { right: 'H', color: Color::White, square: Square::H1 }
    );
    assert_eq!(
        error_of("r3k2r/8/8/8/8/8/8/R3K2R w kk - 0 1"),
        FenError::CastlingRepeated { right: 'k', color: Color::Black, square: Square::H8 }
    );
    // Two rooks on one side of the king: the king is not between them.
    let error = error_of("4k3/8/8/8/8/8/8/4KRR1 w GF - 0 1");
    assert_eq!(
        error,
        FenError::CastlingSameSide {
            first: 'G',
            second: 'F',
            color: Color::White,
            side: CastlingSide::King,
            king: Square::E1
        }
    );
    assert!(error.to_string().contains("must stand between"));
    // A king on a corner has no rook beyond it.
    assert_eq!(
        error_of("4k3/8/8/8/8/8/8/K6R w Q - 0 1"),
        FenError::CastlingNoRookOnSide { right: 'Q', color: Color::White, side: CastlingSide::Queen, king: Square::A1 }
    );
}

#[test]
fn castling_fields_in_all_three_notations_read_the_same() {
    // Standard, X-FEN and Shredder-FEN spellings of the same rights.
    let spellings = [
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1"),
        ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w Ha - 0 1"),
        // X-FEN's K and Q are the outermost rooks; an inner rook takes its file letter.
        ("4k3/8/8/8/8/8/8/RR2K3 w Q - 0 1", "4k3/8/8/8/8/8/8/RR2K3 w A - 0 1"),
        ("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1", "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1"),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ),
    ];
    for (x_fen, shredder) in spellings {
        let position = Position::from_fen(x_fen).unwrap();
        assert_eq!(Position::from_fen(shredder).unwrap(), position, "{x_fen} and {shredder}");
        assert_eq!(position.to_fen_with(CastlingNotation::Shredder), shredder);
    }
    let inner = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1").unwrap();
    assert_eq!(inner.to_fen(), "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1");
    assert_eq!(
        Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1").unwrap().to_fen(),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    );
}

#[test]
fn chess960_positions_round_trip_in_x_fen_and_shredder_fen() {
    let mut roots = common::chess960_starts();
    roots.extend(common::chess960_suite_positions());
    let positions = common::random_positions(&roots, 2, 40, 960);
    let mut with_rights = 0;
    for position in roots.iter().chain(&positions) {
        with_rights += usize::from(!position.castling_rights().is_empty());
        for notation in [CastlingNotation::XFen, CastlingNotation::Shredder] {
            let fen = position.to_fen_with(notation);
            let reread = Position::from_fen(&fen).unwrap_or_else(|error| panic!("{fen}: {error}"));
            assert_eq!(&reread, position, "{fen}");
            assert_eq!(reread.to_fen_with(notation), fen);
        }
    }
    assert!(with_rights >= 3_000, "{with_rights}");
}

#[test]
fn en_passant_square_problems() {
    assert_eq!(error_of("4k3/8/8/8/4P3/8/8/4K3 b - e9 0 1"), FenError::EnPassantSyntax { found: "e9".into() });
    // Not on rank 3 or 6 at all.
    assert_eq!(
        error_of("4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1"),
        FenError::EnPassantRank { square: Square::E4, expected_rank: 3, side_to_move: Color::Black }
    );
    // Rank 3 while white is to move: black could not have made it.
    assert_eq!(
        error_of("4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1"),
        FenError::EnPassantRank { square: Square::E3, expected_rank: 6, side_to_move: Color::White }
    );
    // No pawn that just moved there.
    assert_eq!(
        error_of("4k3/8/8/8/3P4/8/8/4K3 b - e3 0 1"),
        FenError::EnPassantNoPawn { square: Square::E3, color: Color::White, pawn_square: Square::E4 }
    );
    // The square the pawn came from is occupied.
    assert_eq!(
        error_of("4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1"),
        FenError::EnPassantBlocked { square: Square::E3, origin: Square::E2 }
    );
}

#[test]
fn pawn_on_first_or_last_rank() {
    assert_eq!(error_of("4k2P/8/8/8/8/8/8/4K3 w - - 0 1"), FenError::PawnOnBackRank { square: Square::H8 });
    assert_eq!(error_of("4k3/8/8/8/8/8/8/p3K3 w - - 0 1"), FenError::PawnOnBackRank { square: Square::A1 });
}

#[test]
fn missing_or_extra_kings() {
    assert_eq!(error_of("8/8/8/8/8/8/8/4K3 w - - 0 1"), FenError::KingCount { color: Color::Black, found: 0 });
    assert_eq!(error_of("4k3/8/8/8/8/8/8/8 w - - 0 1"), FenError::KingCount { color: Color::White, found: 0 });
    assert_eq!(error_of("4k3/8/8/8/8/8/8/K3K3 w - - 0 1"), FenError::KingCount { color: Color::White, found: 2 });
}

#[test]
fn side_not_to_move_in_check() {
    let error = error_of("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1");
    assert_eq!(error, FenError::OpponentInCheck { color: Color::Black, side_to_move: Color::White });
    assert!(error.to_string().contains("black is in check"));
    // The same position with black to move is fine.
    assert!(Position::from_fen("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1").is_ok());
}

#[test]
fn move_counters_out_of_range() {
    for clock in ["-1", "65536", "x", "+3"] {
        let fen = format!("4k3/8/8/8/8/8/8/4K3 w - - {clock} 1");
        assert_eq!(error_of(&fen), FenError::HalfmoveClock { found: clock.into() }, "{fen}");
    }
    for number in ["0", "-4", "70000", "1.5"] {
        let fen = format!("4k3/8/8/8/8/8/8/4K3 w - - 0 {number}");
        assert_eq!(error_of(&fen), FenError::FullmoveNumber { found: number.into() }, "{fen}");
    }
}

#[test]
fn four_field_fen_gets_default_counters() {
    let position = Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - -").unwrap();
    assert_eq!(position.to_fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn round_trip_is_exact_on_suites_and_random_play() {
    let roots = common::suite_positions();
    let mut fens: Vec<String> = common::suite(common::PERFT_SUITE).into_iter().map(|entry| entry.fen).collect();
    fens.extend(common::random_positions(&roots, 8, 60, 11).iter().map(Position::to_fen));
    assert!(fens.len() > 1_000);
    for fen in fens {
        let position = Position::from_fen(&fen).unwrap_or_else(|error| panic!("{fen}: {error}"));
        assert_eq!(position.to_fen(), fen);
        assert_eq!(fen.parse::<Position>().unwrap(), position);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Position::from_fen(&text);
    }

    #[test]
    fn mutated_fens_never_panic_and_accepted_ones_round_trip(
        index in 0usize..127,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), prop::sample::select(
            b"pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh09".to_vec())), 1..4),
    ) {
        let entries = common::suite(common::PERFT_SUITE);
        let mut bytes = entries[index % entries.len()].fen.clone().into_bytes();
        for (position, replacement) in edits {
            let at = position.index(bytes.len());
            bytes[at] = replacement;
        }
        let fen = String::from_utf8(bytes).expect("ASCII edits keep the text UTF-8");
        if let Ok(position) = Position::from_fen(&fen) {
            // Whatever is accepted must be a position the generator can handle.
            let reparsed = Position::from_fen(&position.to_fen()).expect("own FEN parses");
            prop_assert_eq!(reparsed, position);
            let _ = gpu_movegen::perft::perft(&position, 2);
        }
    }
}
