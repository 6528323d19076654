//! Shogi on the CPU: SFEN parsing and its errors, USI moves, and perft
//! against the published counts in tests/data/shogi.epd.

use gpu_movegen::shogi::perft::{divide, perft_parallel};
use gpu_movegen::shogi::{Position, START_SFEN, SfenError};

const SUITE: &str = include_str!("data/shogi.epd");

/// (SFEN, [(depth, nodes)]) for every line of the suite.
fn suite() -> Vec<(String, Vec<(u32, u64)>)> {
    SUITE
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split(';');
            let sfen = fields.next().unwrap().trim().to_owned();
            let counts = fields
                .map(|field| {
                    let (depth, nodes) = field.trim().split_once(' ').unwrap();
                    (depth.trim_start_matches('D').parse().unwrap(), nodes.parse().unwrap())
                })
                .collect();
            (sfen, counts)
        })
        .collect()
}

/// Published counts up to this size run in CI (about a second).
const CI_MAX_NODES: u64 = 20_000_000;

#[test]
fn published_counts_match_up_to_two_million_nodes() {
    let mut checked = 0;
    for (sfen, counts) in suite() {
        let position = Position::from_sfen(&sfen).unwrap_or_else(|error| panic!("{sfen}: {error}"));
        for (depth, nodes) in counts.into_iter().filter(|(_, nodes)| *nodes <= CI_MAX_NODES) {
            assert_eq!(perft_parallel(&position, depth), nodes, "{sfen} depth {depth}");
            checked += 1;
        }
    }
    assert!(checked >= 14, "{checked}");
}

#[test]
#[ignore = "about 20 s in release mode: every published count, 1.6 billion nodes"]
fn published_counts_match_at_every_depth() {
    for (sfen, counts) in suite() {
        let position = Position::from_sfen(&sfen).unwrap();
        for (depth, nodes) in counts {
            assert_eq!(perft_parallel(&position, depth), nodes, "{sfen} depth {depth}");
        }
    }
}

#[test]
fn sfen_round_trips_and_divide_sums_to_perft() {
    for (sfen, _) in suite() {
        let position = Position::from_sfen(&sfen).unwrap();
        // Hands are written in the canonical order (R B G S N L P), so compare positions.
        assert_eq!(Position::from_sfen(&position.to_sfen()), Ok(position), "{sfen}");
        let divided = divide(&position, 2);
        assert_eq!(divided.iter().map(|(_, nodes)| nodes).sum::<u64>(), perft_parallel(&position, 2));
        for (mv, _) in divided {
            assert_eq!(position.parse_usi_move(&mv.to_string()), Ok(mv), "{sfen}");
        }
    }
    assert_eq!(Position::start().to_sfen(), START_SFEN);
}

/// A bad SFEN, the error it must give, and words the message must hold.
type ErrorCase = (&'static str, fn(&SfenError) -> bool, &'static str);

#[test]
fn bad_sfen_names_the_field_and_the_problem() {
    let cases: &[ErrorCase] = &[
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
            |e| matches!(e, SfenError::FieldCount { .. }),
            "SFEN has 1 field;",
        ),
        (
            "lnsgkgsnl/1r5b1/ppppxpppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            |e| matches!(e, SfenError::BadPieceLetter { .. }),
            "'x'",
        ),
        (
            "lnsgkgsnl/1r5b1/pppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            |e| matches!(e, SfenError::RankWidth { .. }),
            "exactly 9",
        ),
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 3P 1",
            |e| matches!(e, SfenError::TooMany { .. }),
            "only 18",
        ),
        (
            "lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            |e| matches!(e, SfenError::KingCount { .. }),
            "kings",
        ),
        ("4k3P/9/9/9/9/9/9/9/4K4 b - 1", |e| matches!(e, SfenError::DeadPiece { .. }), "no move"),
        ("4k4/9/9/9/9/9/9/9/4K2n1 b - 1", |e| matches!(e, SfenError::DeadPiece { .. }), "no move"),
        (
            "lnsgkgsnl/1r5b1/pppppppp1/9/9/P8/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            |e| matches!(e, SfenError::TwoPawns { .. }),
            "nifu",
        ),
        ("4k4/9/4R4/9/9/9/9/9/4K4 b - 1", |e| matches!(e, SfenError::OpponentInCheck { .. }), "in check"),
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1",
            |e| matches!(e, SfenError::SideToMove { .. }),
            "'x'",
        ),
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2 1",
            |e| matches!(e, SfenError::HandSyntax { .. }),
            "hands",
        ),
        (
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGS+Gl b - 1",
            |e| matches!(e, SfenError::BadPromotion { .. }),
            "promotes",
        ),
    ];
    for (sfen, is_expected, words) in cases {
        let error = Position::from_sfen(sfen).expect_err(sfen);
        assert!(is_expected(&error), "{sfen}: {error:?}");
        assert!(error.to_string().contains(words), "{sfen}: {error}");
    }
}

mod properties {
    use gpu_movegen::shogi::Position;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    proptest! {
        /// Any text at all: an error or a position, never a panic.
        #[test]
        fn random_text_never_panics(text in "\\PC{0,120}") {
            let _ = Position::from_sfen(&text);
        }

        /// SFEN-shaped text from the SFEN alphabet: the same, and what
        /// parses writes back to an SFEN that parses to the same position.
        #[test]
        fn sfen_shaped_text_round_trips_when_it_parses(
            board in "[1-9plnsgbrkPLNSGBRK+/]{9,60}",
            side in "[bwx]",
            hands in "[-0-9plnsgbrPLNSGBR]{1,8}",
        ) {
            if let Ok(position) = Position::from_sfen(&format!("{board} {side} {hands} 1")) {
                prop_assert_eq!(Position::from_sfen(&position.to_sfen()), Ok(position));
            }
        }
    }

    /// Positions from seeded random games write back to themselves.
    #[test]
    fn positions_of_random_games_round_trip() {
        let mut random = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..50 {
            let mut position = Position::start();
            for _ in 0..120 {
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.make_move(moves[random.random_range(0..moves.len())]);
                assert_eq!(Position::from_sfen(&position.to_sfen()), Ok(position));
            }
        }
    }
}

/// Checking moves generated directly equal the legal moves that give check,
/// in thousands of positions of seeded random games (with drops, promotions
/// and discovered checks among them).
#[test]
fn generated_checks_equal_the_legal_moves_that_give_check() {
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(404);
    let (mut positions, mut checks, mut discovered) = (0, 0, 0);
    for _ in 0..60 {
        let mut position = Position::start();
        for _ in 0..150 {
            let legal = position.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mut expected: Vec<String> =
                legal.iter().filter(|mv| position.gives_check(**mv)).map(ToString::to_string).collect();
            let mut generated: Vec<String> = position.generate_checks().iter().map(ToString::to_string).collect();
            expected.sort();
            generated.sort();
            assert_eq!(generated, expected, "{}", position.to_sfen());
            positions += 1;
            checks += expected.len();
            // A check by a piece that does not itself attack the king is a discovered one.
            discovered += legal
                .iter()
                .filter(|mv| {
                    let child = position.make_move(**mv);
                    let their_king = child.king(child.side_to_move()).unwrap();
                    position.gives_check(**mv)
                        && !gpu_movegen::shogi::movegen::attackers_to(
                            &child,
                            their_king,
                            position.side_to_move(),
                            child.occupied(),
                        )
                        .contains(mv.to)
                })
                .count();
            position = position.make_move(legal[random.random_range(0..legal.len())]);
        }
    }
    assert!(positions > 5_000, "{positions}");
    assert!(checks > 10_000, "{checks}");
    assert!(discovered > 20, "{discovered}");
}

/// The nine-by-nine Kogge-Stone fill equals the ray tables on every square
/// for thousands of random occupancies.
#[test]
fn the_kogge_stone_fill_equals_the_ray_tables() {
    use gpu_movegen::shogi::movegen::{DIAGONAL_DIRECTIONS, ORTHOGONAL_DIRECTIONS, slide};
    use gpu_movegen::shogi::{Bitboard, sliders};
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(81);
    for _ in 0..3_000 {
        // Sparse and dense boards both.
        let density = random.random_range(1..6);
        let mut occupied = Bitboard::ALL;
        for _ in 0..density {
            occupied = occupied & Bitboard(random.random::<u128>());
        }
        for square in 0..81 {
            assert_eq!(sliders::rook_attacks(square, occupied), slide(square, &ORTHOGONAL_DIRECTIONS, occupied));
            assert_eq!(sliders::bishop_attacks(square, occupied), slide(square, &DIAGONAL_DIRECTIONS, occupied));
        }
    }
}

/// The largest move number an SFEN can hold still plays on (it stops counting).
#[test]
fn the_largest_move_number_plays_on() {
    let position =
        Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 4294967295").unwrap();
    assert_eq!(gpu_movegen::shogi::perft::perft(&position, 2), 900);
    let child = position.make_move(position.legal_moves()[0]);
    assert!(child.to_sfen().ends_with(" 4294967295"), "{}", child.to_sfen());
}
