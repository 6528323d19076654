//! The fast CPU engine (chess::fast_perft) against the reference generator
//! and published counts, on both slider paths: PEXT where this processor
//! has BMI2, magic everywhere. The PEXT tables are checked against the
//! classical ray walk on any processor.

mod common;

use common::{CHESS960, EDGE_CASES, PERFT_SUITE, TRICKY, chess960_starts, random_positions, suite, suite_positions};
use gpu_movegen::chess::fast_perft::{SliderLookup, perft_with};
use gpu_movegen::chess::sliders::{classical, magic_search, pext};
use gpu_movegen::{Position, perft};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The lookups this processor runs. On x86-64 CI (every runner has BMI2)
/// that is both; a machine without BMI2 tests magic only, and says so.
fn lookups() -> Vec<SliderLookup> {
    let available: Vec<SliderLookup> = SliderLookup::ALL.into_iter().filter(|lookup| lookup.is_available()).collect();
    if cfg!(target_arch = "x86_64") && !available.contains(&SliderLookup::Pext) {
        eprintln!("note: this processor has no BMI2; only the magic path is tested");
    }
    assert!(available.contains(&SliderLookup::Magic));
    available
}

#[test]
fn every_suite_count_to_a_million_nodes_on_every_slider_path() {
    let mut checked = 0;
    for lookup in lookups() {
        for text in [PERFT_SUITE, EDGE_CASES, TRICKY, CHESS960] {
            for entry in suite(text) {
                // tricky.perft's impossible material is refused; perft_suites.rs checks that.
                let Ok(position) = entry.position() else { continue };
                for &(depth, expected) in entry.expected.iter().filter(|(_, nodes)| *nodes <= 1_000_000) {
                    assert_eq!(
                        perft_with(&position, depth, lookup),
                        expected,
                        "{lookup} line {} {} depth {depth}",
                        entry.line,
                        entry.fen
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 4_000, "only {checked} counts checked");
}

/// Positions reached by seeded random play from the suites and from every
/// Chess960 start: en passant, promotions, checks, pins and odd castling
/// arise far more often than in the suites alone.
#[test]
fn random_positions_count_as_the_reference_does() {
    let mut roots = suite_positions();
    roots.extend(chess960_starts().into_iter().step_by(8));
    let positions = random_positions(&roots, 12, 80, 0x5eed_fa57);
    assert!(positions.len() > 3_000);
    let lookups = lookups();
    for position in &positions {
        let expected = perft::perft_reference(position, 3);
        for &lookup in &lookups {
            assert_eq!(perft_with(position, 3, lookup), expected, "{lookup} perft(3) of {}", position.to_fen());
        }
    }
}

/// Deeper, on fewer positions: the recursion's middle plies (quiet moves,
/// captures, castlings and double pushes made, not only counted).
#[test]
fn random_positions_to_depth_four() {
    let positions = random_positions(&suite_positions(), 2, 60, 0x0dee_9e57);
    for position in positions.iter().step_by(2) {
        let expected = perft::perft_reference(position, 4);
        for lookup in lookups() {
            assert_eq!(perft_with(position, 4, lookup), expected, "{lookup} perft(4) of {}", position.to_fen());
        }
    }
}

/// Perft(2) of many positions: each root is then the node two plies above
/// the leaves, whose children are counted from its view of itself from the
/// other side (fast_perft's siblings), so every kind of move a child can
/// come from (quiet, capturing, near the king or far, checking, castling,
/// promoting) is held to the reference from thousands of different parents.
#[test]
fn leaf_parents_counted_from_their_parent_match_the_reference() {
    let mut roots = suite_positions();
    roots.extend(chess960_starts().into_iter().step_by(4));
    let positions = random_positions(&roots, 40, 120, 0x5161_1095);
    assert!(positions.len() > 10_000, "only {} positions", positions.len());
    let lookups = lookups();
    for position in &positions {
        let expected = perft::perft_reference(position, 2);
        for &lookup in &lookups {
            assert_eq!(perft_with(position, 2, lookup), expected, "{lookup} perft(2) of {}", position.to_fen());
        }
    }
}

#[test]
fn the_selected_lookup_is_available_and_perft_uses_it() {
    let selected = SliderLookup::selected();
    assert!(selected.is_available());
    let position = Position::start();
    assert_eq!(perft::perft(&position, 4), perft_with(&position, 4, selected));
    assert_eq!(perft::perft(&position, 4), 197_281);
}

#[test]
fn depth_zero_is_one_node_on_every_path() {
    for lookup in SliderLookup::ALL {
        assert_eq!(perft_with(&Position::start(), 0, lookup), 1);
    }
}

/// Every square's PEXT entries, through software `pext`, against the ray
/// walk, for the empty board, the full board and random occupancies; and
/// the offsets leave each square exactly 2^bits entries (which the
/// unchecked look-up relies on).
#[test]
fn pext_tables_match_the_ray_walk() {
    let mut random = ChaCha8Rng::seed_from_u64(7);
    for square in 0..64u8 {
        for occupancy in
            [0, u64::MAX].into_iter().chain((0..200).map(|_| random.random::<u64>() & random.random::<u64>()))
        {
            assert_eq!(pext::rook_attacks_portable(square, occupancy), classical::rook_attacks(square, occupancy));
            assert_eq!(pext::bishop_attacks_portable(square, occupancy), classical::bishop_attacks(square, occupancy));
        }
    }
    for rook in [true, false] {
        let (entries, table) = magic_search::pext_tables(rook);
        for square in 0..64 {
            let end = entries.get(square + 1).map_or(table.len(), |entry| entry.offset as usize);
            assert_eq!(end - entries[square].offset as usize, 1 << entries[square].mask.count_ones());
        }
    }
}

#[test]
fn software_pext_packs_the_masked_bits() {
    assert_eq!(pext::software_pext(0b1011_0110, 0b1111_0000), 0b1011);
    assert_eq!(pext::software_pext(u64::MAX, 0x8000_0000_0000_0001), 0b11);
    assert_eq!(pext::software_pext(0x8000_0000_0000_0000, 0x8000_0000_0000_0001), 0b10);
    assert_eq!(pext::software_pext(12345, 0), 0);
}
