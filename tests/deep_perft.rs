//! Deep perft on the CPU: the transposition table against plain perft, the
//! identity that tells positions apart, distinct positions per ply (OEIS
//! A083276 from the start position), and work units split, counted and
//! merged through the library.

mod common;

use gpu_movegen::chess::transposition::{PositionKey, TranspositionTable, perft_hashed, perft_hashed_parallel};
use gpu_movegen::chess::unique::{Level, unique_counts};
use gpu_movegen::chess::units::{self, RunOutcome};
use gpu_movegen::suite::KIWIPETE_FEN;
use gpu_movegen::{Position, perft};

#[test]
fn identity_round_trips_and_keeps_en_passant_only_when_it_can_be_taken() {
    for position in common::random_positions(&common::suite_positions(), 3, 12, 7) {
        let identity = position.identity();
        let back = Position::from_identity(&identity);
        assert_eq!(back.identity(), identity, "{}", position.to_fen());
        assert_eq!(perft::perft(&back, 2), perft::perft(&position, 2), "{}", position.to_fen());
    }
    // After 1. e4 no black pawn can take on e3: the square does not count.
    let after_e4 = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    let without = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_eq!(after_e4.identity(), without.identity());
    // Here d4xe3 is legal: it counts.
    let takeable = Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    let untakeable = Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_ne!(takeable.identity(), untakeable.identity());
}

#[test]
fn keys_differ_with_every_part_of_the_position() {
    let start = Position::start();
    let moved = start.make_move(start.parse_uci_move("e2e4").unwrap());
    let black = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
    let no_castling = Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1").unwrap();
    let keys = [start, moved, black, no_castling].map(|position| PositionKey::of(&position));
    for (index, key) in keys.iter().enumerate() {
        for other in &keys[index + 1..] {
            assert_ne!(key, other);
        }
    }
}

#[test]
fn hashed_perft_equals_plain_perft_with_any_table() {
    let positions = common::suite_positions();
    for mebibytes in [1, 64] {
        let table = TranspositionTable::with_mebibytes(mebibytes).unwrap();
        for position in positions.iter().take(40) {
            let depth = if perft::perft(position, 3) > 100_000 { 3 } else { 4 };
            assert_eq!(
                perft_hashed(position, depth, &table),
                perft::perft(position, depth),
                "{} depth {depth}, {mebibytes} MiB",
                position.to_fen()
            );
        }
    }
    assert!(TranspositionTable::with_mebibytes(0).is_none());
    let table = TranspositionTable::with_mebibytes(16).unwrap();
    assert_eq!(perft_hashed_parallel(&Position::start(), 6, &table), 119_060_324);
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    assert_eq!(perft_hashed_parallel(&kiwipete, 5, &table), 193_690_690);
}

#[test]
fn distinct_positions_from_the_start_follow_oeis_a083276() {
    let mut counts = Vec::new();
    unique_counts(&Position::start(), 5, 1 << 30, |ply, count| counts.push((ply, count)));
    assert_eq!(counts, [(1, 20), (2, 400), (3, 5_362), (4, 72_078), (5, 822_518)]);
    // The last ply counted in several passes gives the same count.
    let mut passes = Vec::new();
    unique_counts(&Position::start(), 5, 4 << 20, |ply, count| passes.push((ply, count)));
    assert_eq!(passes, counts);
}

#[test]
fn multiplicities_add_up_to_perft() {
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    let mut level = Level::root(&kiwipete);
    for ply in 1..=3 {
        level = level.next();
        assert_eq!(level.sequences(), u128::from(perft::perft(&kiwipete, ply)), "ply {ply}");
    }
    // perft(5) = sum over ply 3 of multiplicity x perft(2).
    let total: u128 = level
        .positions
        .iter()
        .map(|(identity, count)| u128::from(*count) * u128::from(perft::perft(&Position::from_identity(identity), 2)))
        .sum();
    assert_eq!(total, 193_690_690);
}

fn count_unit(unit: &units::Unit) -> Result<Vec<u64>, String> {
    Ok(unit.positions.iter().map(|(position, _)| perft::perft(position, unit.remaining)).collect())
}

#[test]
fn units_split_count_and_merge_with_every_failure_named() {
    let folder = tempfile_folder("units");
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    let manifest = units::split(&kiwipete, 4, 2, 12, &folder).unwrap();
    assert_eq!(manifest.units.len(), 12);
    assert_eq!(manifest.sequences, 2_039);
    assert!(units::split(&kiwipete, 4, 2, 12, &folder).is_err(), "a second split into the same folder");
    assert!(units::split(&kiwipete, 3, 4, 2, &tempfile_folder("deeper")).is_err());
    assert!(units::split(&kiwipete, 4, 1, 100, &tempfile_folder("too-many")).is_err(), "48 positions, 100 units");
    let names: Vec<std::path::PathBuf> = (0..12).map(|index| folder.join(units::unit_name(index))).collect();
    let problems = units::merge(&folder).unwrap_err();
    assert_eq!(problems.len(), 12, "{problems:?}");
    for name in &names {
        assert!(matches!(units::run_unit(name, count_unit), Ok(RunOutcome::Counted(_))));
    }
    assert_eq!(units::merge(&folder), Ok(4_085_603));
    // A second run does nothing.
    assert!(matches!(
        units::run_unit(&names[3], |_| Err::<Vec<u64>, _>("must not count")),
        Ok(RunOutcome::AlreadyCounted(_))
    ));
    // A missing result and a corrupt one are both named.
    std::fs::remove_file(units::result_path(&names[2])).unwrap();
    let corrupt = units::result_path(&names[7]);
    let text = std::fs::read_to_string(&corrupt).unwrap().replace("nodes ", "nodes 1");
    std::fs::write(&corrupt, text).unwrap();
    let problems = units::merge(&folder).unwrap_err();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("unit-0002: no result"), "{problems:?}");
    assert!(problems[1].starts_with("unit-0007: invalid result") && problems[1].contains("checksum"), "{problems:?}");
    // A corrupt result is counted again; a result from another split is refused.
    assert!(matches!(units::run_unit(&names[7], count_unit), Ok(RunOutcome::Counted(_))));
    assert!(matches!(units::run_unit(&names[2], count_unit), Ok(RunOutcome::Counted(_))));
    assert_eq!(units::merge(&folder), Ok(4_085_603));
    let other = tempfile_folder("other");
    units::split(&Position::start(), 4, 2, 12, &other).unwrap();
    std::fs::copy(units::result_path(&names[5]), units::result_path(&other.join(units::unit_name(5)))).unwrap();
    let problems = units::merge(&other).unwrap_err();
    assert!(
        problems.iter().any(|problem| problem.starts_with("unit-0005: invalid result") && problem.contains("another"))
    );
    // A corrupt unit file is refused before anything is counted.
    let unit = names[0].clone();
    let text = std::fs::read_to_string(&unit).unwrap();
    std::fs::write(&unit, text.replacen(" 1\n", " 2\n", 1)).unwrap();
    assert!(units::run_unit(&unit, count_unit).is_err());
}

/// A fresh folder under the system's temporary folder.
fn tempfile_folder(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-deep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

#[test]
fn merge_refuses_a_total_past_2_to_the_128_rather_than_wrapping() {
    let folder = tempfile_folder("overflow");
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    let manifest = units::split(&kiwipete, 3, 1, 2, &folder).unwrap();
    // Two forged results with valid checksums, each near 2^128.
    for (name, checksum) in &manifest.units {
        let body = format!("gpu-movegen perft result 1\nunit {name} {checksum}\nnodes {}\n", u128::MAX - 1);
        let digest: String =
            <sha2::Sha256 as sha2::Digest>::digest(body.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
        std::fs::write(folder.join(format!("{name}.result")), format!("{body}checksum {digest}\n")).unwrap();
    }
    let problems = units::merge(&folder).unwrap_err();
    assert!(problems.iter().any(|problem| problem.contains("passes 2^128")), "{problems:?}");
}

/// Chess960 through deep perft: identities keep the castling rook files,
/// distinct positions equal a count made from FEN text, and work units carry
/// X-FEN castling fields to the published total.
#[test]
fn chess960_identities_unique_counts_and_units() {
    let roots = common::chess960_suite_positions();
    for position in common::random_positions(&roots[..200], 2, 10, 15) {
        let back = Position::from_identity(&position.identity());
        assert_eq!(back.castling_rights(), position.castling_rights(), "{}", position.to_fen());
        assert_eq!(perft::perft(&back, 2), perft::perft(&position, 2), "{}", position.to_fen());
    }
    // Distinct positions per ply, counted again by their FEN text: pieces,
    // side, castling field, and the en passant square only when it can be taken.
    let root = roots[1];
    let mut counts = Vec::new();
    unique_counts(&root, 3, 1 << 30, |_, count| counts.push(count));
    let mut level = vec![root];
    for (ply, count) in counts.iter().enumerate() {
        level = level
            .iter()
            .flat_map(|position| position.legal_moves().into_iter().map(|mv| position.make_move(mv)))
            .collect();
        let distinct: std::collections::BTreeSet<String> = level
            .iter()
            .map(|position| {
                let fen = position.to_fen();
                let fields: Vec<&str> = fen.split(' ').collect();
                let takeable = position.legal_moves().iter().any(|mv| mv.kind() == gpu_movegen::MoveKind::EnPassant);
                format!("{} {} {} {}", fields[0], fields[1], fields[2], if takeable { fields[3] } else { "-" })
            })
            .collect();
        assert_eq!(*count, distinct.len() as u64, "ply {}", ply + 1);
    }
    // Units: split at ply 2, counted, merged to the published perft(4).
    let folder = tempfile_folder("chess960");
    let manifest = units::split(&root, 4, 2, 3, &folder).unwrap();
    for index in 0..manifest.units.len() {
        let name = folder.join(units::unit_name(index));
        assert!(matches!(units::run_unit(&name, count_unit), Ok(RunOutcome::Counted(_))));
    }
    assert_eq!(units::merge(&folder), Ok(667_366));
}
