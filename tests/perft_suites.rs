//! Perft against published counts: perftsuite.epd, edge_cases.epd and the
//! standard-chess entries of tricky.perft.

mod common;

use common::{EDGE_CASES, PERFT_SUITE, TRICKY, check_suite, suite};
use gpu_movegen::FenError;

/// Counts up to this size run in CI; deeper ones are `#[ignore]`d.
const CI_MAX_NODES: u64 = 5_000_000;

#[test]
fn perftsuite_to_five_million_nodes() {
    let entries = suite(PERFT_SUITE);
    assert_eq!(entries.len(), 127, "126 classic positions plus one en passant position");
    let (checked, failures) = check_suite(&entries, CI_MAX_NODES);
    assert!(checked > 600, "only {checked} counts checked");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn edge_cases_to_five_million_nodes() {
    let entries = suite(EDGE_CASES);
    assert_eq!(entries.len(), 20);
    let (checked, failures) = check_suite(&entries, CI_MAX_NODES);
    assert!(checked > 80, "only {checked} counts checked");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// The tricky suite mixes standard positions with X-FEN castling, Chess960
/// castling rights and impossible material. Every position with legal
/// castling rights must match, X-FEN included; only the impossible material
/// must be rejected, with a material error rather than a miscount.
#[test]
fn tricky_positions_match_and_impossible_material_is_rejected() {
    let entries = suite(TRICKY);
    let mut standard = Vec::new();
    let mut rejected = Vec::new();
    for entry in entries {
        match entry.position() {
            Ok(_) => standard.push(entry),
            Err(error) => {
                assert!(
                    matches!(
                        error,
                        FenError::TooManyPieces { .. }
                            | FenError::TooManyPawns { .. }
                            | FenError::TooManyPromoted { .. }
                    ),
                    "{:?} rejected for a reason other than material: {error}",
                    entry.id
                );
                rejected.push(entry.id.clone().unwrap_or_default());
            }
        }
    }
    rejected.sort();
    assert_eq!(rejected, ["max-legals-too-much-material"]);
    assert!(standard.iter().filter(|entry| entry.id.as_deref().is_some_and(|id| id.starts_with("xfen-"))).count() == 5);
    let (checked, failures) = check_suite(&standard, CI_MAX_NODES);
    assert!(checked > 50, "only {checked} counts checked");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "deep: about 6.7 billion nodes; run with --ignored in release mode"]
fn all_suites_at_every_depth() {
    for text in [PERFT_SUITE, EDGE_CASES] {
        let (_, failures) = check_suite(&suite(text), u64::MAX);
        assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    }
}
