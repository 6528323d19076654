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
    unique_counts(&Position::start(), 5, 1 << 30, |ply, count| counts.push((ply, count))).unwrap();
    assert_eq!(counts, [(1, 20), (2, 400), (3, 5_362), (4, 72_078), (5, 822_518)]);
    // The last ply counted in several passes gives the same count.
    let mut passes = Vec::new();
    unique_counts(&Position::start(), 5, 16 << 20, |ply, count| passes.push((ply, count))).unwrap();
    assert_eq!(passes, counts);
    // A ply before the last that cannot be held whole is refused before it is built.
    let mut reported = Vec::new();
    let refused = unique_counts(&Position::start(), 64, 16 << 20, |ply, _| reported.push(ply)).unwrap_err();
    assert_eq!((refused.ply, reported), (5, vec![1, 2, 3, 4]), "{refused}");
    assert!(refused.bytes > 16 << 20);
    assert_eq!(Level::at_ply(&Position::start(), 5, 16 << 20).unwrap_err(), refused);
    assert_eq!(Level::at_ply(&Position::start(), 4, 16 << 20).unwrap().len(), 72_078);
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
    assert_eq!(units::merge(&folder).map(|merged| merged.nodes), Ok(4_085_603));
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
    assert_eq!(units::merge(&folder).map(|merged| merged.nodes), Ok(4_085_603));
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
    unique_counts(&root, 3, 1 << 30, |_, count| counts.push(count)).unwrap();
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
    assert_eq!(units::merge(&folder).map(|merged| merged.nodes), Ok(667_366));
}

/// SHA-256 of `body` as the unit files write it.
fn sha256_hex(body: &str) -> String {
    <sha2::Sha256 as sha2::Digest>::digest(body.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A file's body without its checksum line.
fn body_of(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let end = text.trim_end().rfind('\n').unwrap() + 1;
    text[..end].to_owned()
}

/// Rewrites unit `index` of the split in `folder` with `forge` applied to
/// its body, recomputes every checksum (the unit's, the manifest's entry
/// and the manifest's own) and counts the forged unit again, as a forger
/// with the tools would.
fn forge_unit(folder: &std::path::Path, index: usize, forge: impl FnOnce(&str) -> String) {
    let unit = folder.join(units::unit_name(index));
    let old = sha256_hex(&std::fs::read_to_string(&unit).unwrap());
    let body = forge(&body_of(&unit));
    let text = format!("{body}checksum {}\n", sha256_hex(&body));
    std::fs::write(&unit, &text).unwrap();
    forge_manifest(folder, |manifest| manifest.replace(&old, &sha256_hex(&text)));
    // A forged unit that asks for deep counting is not counted; its result stays stale.
    let _ = units::run_unit(&unit, |unit| if unit.remaining <= 2 { count_unit(unit) } else { Err("too deep".into()) });
}

fn forge_manifest(folder: &std::path::Path, forge: impl FnOnce(&str) -> String) {
    let path = folder.join(units::MANIFEST);
    let body = forge(&body_of(&path));
    std::fs::write(&path, format!("{body}checksum {}\n", sha256_hex(&body))).unwrap();
}

/// Kiwipete perft(4) split at ply 2 into six units, every unit counted.
fn counted_split(name: &str) -> std::path::PathBuf {
    let folder = tempfile_folder(name);
    let kiwipete = Position::from_fen(KIWIPETE_FEN).unwrap();
    units::split(&kiwipete, 4, 2, 6, &folder).unwrap();
    for index in 0..6 {
        units::run_unit(&folder.join(units::unit_name(index)), count_unit).unwrap();
    }
    assert_eq!(units::merge(&folder).map(|merged| merged.nodes), Ok(4_085_603));
    folder
}

/// The `n`-th position line of a unit body (after its five header lines).
fn position_line(body: &str, n: usize) -> String {
    body.lines().nth(6 + n).unwrap().to_owned()
}

#[test]
fn forged_units_with_valid_checksums_never_merge() {
    let replace_line = |body: &str, line: usize, with: &str| -> String {
        body.lines()
            .enumerate()
            .map(|(at, text)| if at == line { with } else { text })
            .map(|text| format!("{text}\n"))
            .collect()
    };
    type Forgery = Box<dyn Fn(&std::path::Path)>;
    let forgeries: Vec<(&str, Forgery, &str)> = vec![
        (
            "another depth",
            Box::new(|folder| forge_unit(folder, 1, |body| body.replace("\ndepth 4\n", "\ndepth 5\n"))),
            "unit-0001: depth 5",
        ),
        (
            "another split depth",
            Box::new(|folder| forge_unit(folder, 1, |body| body.replace("split-depth 2", "split-depth 3"))),
            "unit-0001: split depth 3",
        ),
        (
            "another root",
            Box::new(|folder| forge_unit(folder, 2, |body| body.replacen(KIWIPETE_FEN, gpu_movegen::START_FEN, 1))),
            "unit-0002: root",
        ),
        (
            "another place",
            Box::new(|folder| forge_unit(folder, 1, |body| body.replace("unit 1 of 6", "unit 2 of 6"))),
            "unit-0001: says unit 2 of 6",
        ),
        (
            "a position dropped",
            Box::new(move |folder| {
                forge_unit(folder, 3, |body| {
                    let count: usize =
                        body.lines().nth(5).unwrap().strip_prefix("positions ").unwrap().parse().unwrap();
                    let kept: String = body.lines().take(6 + count - 1).map(|line| format!("{line}\n")).collect();
                    kept.replace(&format!("positions {count}"), &format!("positions {}", count - 1))
                })
            }),
            "unit-0003: holds",
        ),
        (
            "a multiplicity raised",
            Box::new(move |folder| {
                forge_unit(folder, 4, |body| {
                    let line = position_line(body, 0);
                    let (fen, multiplicity) = line.rsplit_once(' ').unwrap();
                    replace_line(body, 6, &format!("{fen} {}", multiplicity.parse::<u64>().unwrap() + 1))
                })
            }),
            "unit-0004: position 1 or its multiplicity",
        ),
        (
            "a position counted twice",
            Box::new(move |folder| {
                let other = position_line(&body_of(&folder.join(units::unit_name(0))), 0);
                forge_unit(folder, 1, |body| replace_line(body, 6, &other));
            }),
            "unit-0001: position 1 or its multiplicity",
        ),
        (
            "two positions swapped between units",
            Box::new(move |folder| {
                let first = position_line(&body_of(&folder.join(units::unit_name(0))), 0);
                let second = position_line(&body_of(&folder.join(units::unit_name(1))), 0);
                forge_unit(folder, 0, |body| replace_line(body, 6, &second));
                forge_unit(folder, 1, |body| replace_line(body, 6, &first));
            }),
            "unit-0000: position 1 or its multiplicity",
        ),
        (
            "a manifest naming a file outside the folder",
            Box::new(|folder| forge_manifest(folder, |body| body.replacen("unit unit-0003 ", "unit ../unit-0003 ", 1))),
            "named '../unit-0003'",
        ),
        (
            "a manifest listing another checksum",
            Box::new(|folder| {
                let unit = folder.join(units::unit_name(5));
                let real = sha256_hex(&std::fs::read_to_string(&unit).unwrap());
                forge_manifest(folder, |body| body.replace(&real, &"0".repeat(64)));
            }),
            "unit-0005: its SHA-256",
        ),
    ];
    for (what, forge, words) in forgeries {
        let folder = counted_split("forged");
        forge(&folder);
        let problems = units::merge(&folder).expect_err(what);
        assert!(problems.iter().any(|problem| problem.contains(words)), "{what}: {problems:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any one character of any unit changed, every checksum recomputed and
    /// the unit counted again: merge refuses, or the change did not change
    /// the count (a FEN's move clocks) and merge gives the true total.
    #[test]
    fn a_unit_changed_anywhere_merges_to_the_true_total_or_not_at_all(
        unit in 0usize..6, at in proptest::prelude::any::<proptest::sample::Index>(), with in "[0-9a-zA-Z /-]",
    ) {
        let folder = counted_split("mutated");
        forge_unit(&folder, unit, |body| {
            let mut characters: Vec<char> = body.chars().collect();
            // Never the header's first line, whose change is only "not a unit".
            let first = body.find('\n').unwrap() + 1;
            let place = first + at.index(characters.len() - first - 1);
            characters[place] = with.chars().next().unwrap();
            characters.into_iter().collect()
        });
        if let Ok(merged) = units::merge(&folder) {
            proptest::prop_assert_eq!(merged.nodes, 4_085_603);
        }
    }
}

/// tricky.perft's "prison": one legal move every ply, so perft(n) recurses
/// n plies deep and counts 1.
const PRISON: &str = "2b5/kpPp4/1p1P4/1P6/6p1/4p1P1/4PpPK/5B2 w - - 0 1";

#[test]
fn the_deepest_perft_allowed_recurses_within_one_mebibyte_of_stack() {
    let deepest = perft::MAX_DEPTH;
    let counted = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let prison = Position::from_fen(PRISON).unwrap();
            let table = TranspositionTable::with_mebibytes(16).unwrap();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).stack_size(1 << 20).build().unwrap();
            let parallel = pool
                .install(|| (perft::perft_parallel(&prison, deepest), perft_hashed_parallel(&prison, deepest, &table)));
            (perft::perft(&prison, deepest), perft_hashed(&prison, deepest, &table), parallel)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(counted, (1, 1, (1, 1)));
}
