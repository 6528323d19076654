//! The seven lichess variants on the CPU: every entry of lichess's published
//! variant perft suites (scalachess's, copied into tests/data/variants with
//! their source line), FEN read and written back, moves parsed, the end of
//! a game by each variant's rule, and bad input refused by name, never a
//! panic. (Against python-chess on random play: tests/differential_python_chess.rs.)

use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
use gpu_movegen::suite::parse_suite;
use gpu_movegen::{FenError, Piece};
use proptest::prelude::*;

/// Each published suite with its variant.
pub const SUITES: [(Variant, &str); 6] = [
    (Variant::Antichess, include_str!("data/variants/antichess.perft")),
    (Variant::Atomic, include_str!("data/variants/atomic.perft")),
    (Variant::ThreeCheck, include_str!("data/variants/3check.perft")),
    (Variant::Horde, include_str!("data/variants/horde.perft")),
    (Variant::RacingKings, include_str!("data/variants/racingkings.perft")),
    (Variant::Crazyhouse, include_str!("data/variants/crazyhouse.perft")),
];

#[test]
fn every_published_variant_suite_entry_is_exact() {
    let mut checked = 0;
    for (variant, text) in SUITES {
        for entry in parse_suite(text).expect("the suite parses") {
            let position = VariantPosition::from_fen(variant, &entry.fen)
                .unwrap_or_else(|error| panic!("{variant} {}: {error}", entry.fen));
            for &(depth, expected) in &entry.expected {
                // The deepest antichess pawn race is counted to depth 13 in
                // under a second; everything else is small.
                assert_eq!(variant::perft(&position, depth), expected, "{variant} {} depth {depth}", entry.fen);
                checked += 1;
            }
        }
    }
    assert!(checked >= 80, "{checked} counts");
}

/// The fast engine (king of the hill, three-check, racing kings, atomic, horde,
/// antichess) equals the general rules, which python-chess holds exact, on
/// seeded random play of every variant and on each suite's positions.
#[test]
fn the_fast_engine_equals_the_general_rules() {
    for variant in Variant::VARIANTS {
        let mut positions = variant::random_positions(variant, 300, 100, 0xfa57 ^ variant as u64);
        positions.push(VariantPosition::start(variant));
        for position in &positions {
            for depth in 1..=3 {
                assert_eq!(
                    variant::perft(position, depth),
                    variant::perft_by_rules(position, depth),
                    "{variant} {} depth {depth}",
                    position.to_fen()
                );
            }
        }
    }
}

#[test]
fn start_positions_count_as_published() {
    // King of the hill and standard chess share the start position's first
    // plies (no king reaches the hill within four).
    let start = VariantPosition::start(Variant::KingOfTheHill);
    assert_eq!(variant::perft(&start, 4), 197_281);
    let chess = VariantPosition::start(Variant::Chess);
    assert_eq!(variant::perft(&chess, 5), 4_865_609);
    let zh = VariantPosition::start(Variant::Crazyhouse);
    assert_eq!(variant::perft(&zh, 4), 197_281);
    let three = VariantPosition::start(Variant::ThreeCheck);
    assert_eq!(variant::perft(&three, 4), 197_281);
    assert_eq!(variant::perft_parallel(&three, 4), 197_281);
}

#[test]
fn fens_of_every_variant_round_trip() {
    for (variant, fen) in [
        (Variant::ThreeCheck, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 1+2 0 1"),
        (Variant::Crazyhouse, "4k3/1Q~6/8/8/4b3/8/Kpp5/8[NPrp] b - - 0 1"),
        (Variant::Horde, "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"),
        (Variant::RacingKings, "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1"),
        (Variant::Antichess, "8/1p6/8/8/8/8/P7/8 w - - 0 1"),
        (Variant::Atomic, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ] {
        let position = VariantPosition::from_fen(variant, fen).unwrap_or_else(|error| panic!("{fen}: {error}"));
        assert_eq!(position.to_fen(), fen);
    }
    // lichess's three-check counters (checks given, after the clocks) and
    // its crazyhouse pocket as a ninth rank read as the others.
    let lichess =
        VariantPosition::from_fen(Variant::ThreeCheck, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +1+2")
            .unwrap();
    assert_eq!(
        (lichess.remaining_checks(gpu_movegen::Color::White), lichess.remaining_checks(gpu_movegen::Color::Black)),
        (2, 1)
    );
    let ninth = VariantPosition::from_fen(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/4K3/Qn w - - 0 1").unwrap();
    assert_eq!(ninth.to_fen(), "4k3/8/8/8/8/8/8/4K3[Qn] w - - 0 1");
    assert_eq!(ninth.pocket(gpu_movegen::Color::Black).count(Piece::Knight), 1);
}

#[test]
fn moves_of_every_kind_parse_and_play() {
    let zh = VariantPosition::from_fen(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/4K3[Qn] w - - 0 1").unwrap();
    let drop = zh.parse_uci_move("Q@e7").unwrap();
    assert_eq!(drop.to_string(), "Q@e7");
    let after = zh.make_move(drop);
    // A drop that is no pawn's raises the halfmove clock, as python-chess counts it.
    assert_eq!(after.to_fen(), "4k3/4Q3/8/8/8/8/8/4K3[n] b - - 1 1");
    assert!(after.is_check());
    // Black's knight may block nowhere (the queen touches the king); black has no drops then.
    assert!(after.legal_moves().iter().all(|mv| mv.dropped().is_none()));
    let anti = VariantPosition::from_fen(Variant::Antichess, "8/P7/8/8/8/8/8/7k w - - 0 1").unwrap();
    let king = anti.parse_uci_move("a7a8k").unwrap();
    assert_eq!(anti.make_move(king).to_fen(), "K7/8/8/8/8/8/8/7k b - - 0 1");
    assert!(zh.parse_uci_move("K@e4").is_err());
    assert!(zh.parse_uci_move("N@e4").is_err(), "white has no knight in its pocket");
}

#[test]
fn games_end_by_each_variants_rule_with_no_moves_below() {
    for (variant, fen) in [
        (Variant::KingOfTheHill, "8/8/8/3K4/8/8/8/7k b - - 0 1"),
        (Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4R1K1 b - - 0+1 0 1"),
        (Variant::Atomic, "8/8/8/8/8/8/8/4K3 b - - 0 1"),
        (Variant::Antichess, "8/8/8/8/8/8/8/4K3 b - - 0 1"),
        (Variant::Horde, "4k3/8/8/8/8/8/8/8 w - - 0 1"),
        (Variant::RacingKings, "K7/8/8/8/8/8/8/7k w - - 0 1"),
    ] {
        let position =
            VariantPosition::from_fen(variant, fen).unwrap_or_else(|error| panic!("{variant} {fen}: {error}"));
        assert!(position.is_variant_end(), "{variant} {fen}");
        assert!(position.legal_moves().is_empty(), "{variant} {fen}");
        assert_eq!(variant::perft(&position, 3), 0, "{variant} {fen}");
    }
    // Racing kings: white's king on the eighth rank, black to move and able to follow: not over.
    let race = VariantPosition::from_fen(Variant::RacingKings, "K7/6k1/8/8/8/8/8/8 b - - 0 1").unwrap();
    assert!(!race.is_variant_end());
    assert!(race.legal_moves().len() > 1);
}

#[test]
fn fields_that_do_not_fit_the_variant_are_refused_by_name() {
    for (variant, fen, field) in [
        (Variant::Atomic, "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1", "pocket"),
        (Variant::Chess, "4k3/8/8/8/8/8/8/4K3/Qn w - - 0 1", "pocket"),
        (Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4K3 w - - 4+3 0 1", "check counters"),
        (Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4K3 w - - 0+3 0 1", "check counters"),
        (Variant::Atomic, "4k3/8/8/8/8/8/8/4K3 w - - 3+3 0 1", "check counters"),
        (Variant::Horde, "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "piece placement"),
        (Variant::Horde, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w KQkq - 0 1", "castling"),
        (Variant::Antichess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "castling"),
        (Variant::RacingKings, "8/8/8/8/8/8/krbnNBRK/qrbnNBRP w - - 0 1", "piece placement"),
        (Variant::Crazyhouse, "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1", "pocket"),
        (Variant::Crazyhouse, "4k3/8/8/8/8/8/8/4K~3[] w - - 0 1", "piece placement"),
        (Variant::KingOfTheHill, "8/8/8/3K4/8/8/8/7k w - - 0 1", "piece placement"),
    ] {
        match VariantPosition::from_fen(variant, fen) {
            Err(FenError::Variant { field: named, problem }) => {
                assert_eq!(named, field, "{variant} {fen}: {problem}")
            }
            other => panic!("{variant} {fen}: expected a {field} error, got {other:?}"),
        }
    }
    assert!(matches!(
        VariantPosition::from_fen(Variant::Crazyhouse, "4k3/8/8/8/8/8/8/4Q1K1 w - - 0 1"),
        Err(FenError::OpponentInCheck { .. })
    ));
}

#[test]
fn variant_names_read_in_uci_and_lichess_spelling() {
    for variant in Variant::ALL {
        assert_eq!(variant.uci_name().parse::<Variant>().unwrap(), variant);
        assert_eq!(variant.lichess_name().parse::<Variant>().unwrap(), variant);
    }
    assert_eq!("KingOfTheHill".parse::<Variant>().unwrap(), Variant::KingOfTheHill);
    let error = "suicide".parse::<Variant>().unwrap_err();
    assert!(error.to_string().contains("suicide") && error.to_string().contains("racingkings"));
}

fn any_variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    /// Random bytes as a FEN of any variant: an error or a position, never a panic.
    #[test]
    fn random_bytes_never_panic(variant in any_variant(), bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(position) = VariantPosition::from_fen(variant, &text) {
            let _ = variant::perft(&position, 2);
        }
    }

    /// A valid FEN with one character changed, inserted or removed: an
    /// error naming a field, or a position whose moves all play.
    #[test]
    fn mutated_fens_never_panic(
        variant in any_variant(),
        place in 0usize..80,
        character in prop::sample::select(b"pnbrqkPNBRQK12345678/ -~[]+0123wbKQkqe3".to_vec()),
        action in 0u8..3,
    ) {
        let mut text = variant.start_fen().to_owned().into_bytes();
        let place = place % (text.len() + 1);
        match action {
            0 if place < text.len() => text[place] = character,
            1 => text.insert(place, character),
            _ if place < text.len() => { text.remove(place); }
            _ => {}
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        if let Ok(position) = VariantPosition::from_fen(variant, &text) {
            for mv in position.legal_moves() {
                let child = position.make_move(mv);
                let _ = child.legal_moves();
                let again = VariantPosition::from_fen(variant, &child.to_fen());
                prop_assert!(again.is_ok(), "{} after {mv}: {:?}", child.to_fen(), again);
            }
        }
    }
}
