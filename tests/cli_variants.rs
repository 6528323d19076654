//! The chess variants on the command line: `perft --variant` on the CPU and
//! the GPU against python-chess for each of the seven, divide, JSON and
//! statistics, suites, `verify --variant`, `uci` with `UCI_Variant`,
//! `bisect --variant` finding a planted bug, and bad input refused with exit
//! code 2.

mod common;

use std::process::{Command, Output};

use gpu_movegen::chess::variant::{self, Variant, VariantPosition};

fn run(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-movegen")).args(arguments).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A position of each variant a few random moves in, with the variant's
/// own material (pockets, checks given, promotions) where play reached it.
fn sample(variant: Variant) -> VariantPosition {
    variant::random_positions(variant, 1, 24, 0xc11 ^ variant as u64)[0]
}

#[test]
fn every_variant_counts_as_python_chess_on_the_cpu_and_the_gpu() {
    let positions: Vec<VariantPosition> = Variant::VARIANTS.iter().map(|&variant| sample(variant)).collect();
    let requests: Vec<String> = positions
        .iter()
        .map(|position| format!("perft\t{}\t3\t{}", position.variant().uci_name(), position.to_fen()))
        .collect();
    let python = common::python_chess(&requests);
    for (position, expected) in positions.iter().zip(python) {
        let fen = position.to_fen();
        for backend in ["cpu", "gpu"] {
            let arguments = [
                "perft",
                "--variant",
                position.variant().uci_name(),
                "--fen",
                &fen,
                "--depth",
                "3",
                "--backend",
                backend,
            ];
            let output = run(&arguments);
            assert!(output.status.success(), "{arguments:?}: {}", text(&output.stderr));
            assert_eq!(
                text(&output.stdout),
                format!("Nodes searched: {expected}\n"),
                "{} {fen} on the {backend}",
                position.variant()
            );
        }
    }
}

#[test]
fn divide_json_and_statistics_of_a_variant() {
    let fen = "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1";
    let position = VariantPosition::from_fen(Variant::Crazyhouse, fen).unwrap();
    let output = run(&["perft", "--variant", "crazyhouse", "--fen", fen, "--depth", "2", "--divide", "-q"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    for (mv, count) in variant::divide(&position, 2, false) {
        assert!(stdout.contains(&format!("{}: {count}\n", mv.uci(false))), "{mv}: {stdout}");
    }
    assert!(stdout.contains("Q@e4: "), "{stdout}");
    let output = run(&["perft", "--variant", "kingOfTheHill", "--depth", "3", "--json", "--backend", "cpu"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(report["variant"], "kingofthehill");
    assert_eq!(report["nodes"], 8_902);
    let output = run(&["perft", "--variant", "3check", "--depth", "3", "--stats", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    let stats = variant::perft_stats(&VariantPosition::start(Variant::ThreeCheck), 3);
    assert_eq!(report["nodes"], stats.nodes);
    assert_eq!(report["checks"], stats.checks);
    assert_eq!(report["captures"], 34);
}

#[test]
fn published_suites_pass_from_the_command_line() {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/variants");
    for (variant, file) in [("atomic", "atomic.perft"), ("crazyhouse", "crazyhouse.perft"), ("horde", "horde.perft")] {
        for backend in ["cpu", "gpu"] {
            let path = format!("{folder}/{file}");
            let output =
                run(&["perft", "--epd", &path, "--variant", variant, "--max-depth", "3", "--backend", backend, "-q"]);
            assert!(output.status.success(), "{file} {backend}: {}{}", text(&output.stdout), text(&output.stderr));
            assert!(text(&output.stdout).ends_with(" passed, 0 failed\n"), "{}", text(&output.stdout));
        }
    }
    // A suite that names its variants itself, one wrong count in it: exit 1.
    let path = std::env::temp_dir().join(format!("gpu-movegen-variant-suite-{}.perft", std::process::id()));
    std::fs::write(
        &path,
        "variant antichess\nepd 8/1p6/8/8/8/8/P7/8 w - -\nperft 3 4\nvariant racingkings\nepd 8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - -\nperft 2 421\nperft 3 11265\n",
    )
    .unwrap();
    let output = run(&["perft", "--epd", &path.to_string_lossy(), "-q", "--backend", "cpu"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("MISMATCH line 5 (racingkings) depth 3: expected 11265, counted 11264"));
    assert!(text(&output.stdout).ends_with("1 passed, 1 failed\n"), "{}", text(&output.stdout));
    let _ = std::fs::remove_file(path);
}

#[test]
fn verify_compares_the_gpu_with_the_cpu_on_random_play() {
    for variant in ["atomic", "crazyhouse"] {
        let output = run(&["verify", "--variant", variant, "--random", "40", "--seed", "7", "--depth", "2"]);
        assert!(output.status.success(), "{variant}: {}{}", text(&output.stdout), text(&output.stderr));
        assert_eq!(text(&output.stdout), "40 passed, 0 failed\n");
    }
}

#[test]
fn uci_counts_in_the_variant_it_is_told() {
    let input = "uci\nsetoption name UCI_Variant value atomic\nposition startpos moves e2e4 d7d5\ngo perft 2\n\
                 setoption name UCI_Variant value crazyhouse\nposition fen 2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1 moves Q@d7\n\
                 go perft 1\nsetoption name UCI_Variant value suicide\nquit\n";
    let output = common::run_binary(&["uci", "--backend", "cpu"], &[], input);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    assert!(stdout.contains("option name UCI_Variant type combo default chess var chess var antichess"), "{stdout}");
    let atomic = VariantPosition::start(Variant::Atomic);
    let atomic = atomic.make_move(atomic.parse_uci_move("e2e4").unwrap());
    let atomic = atomic.make_move(atomic.parse_uci_move("d7d5").unwrap());
    assert!(stdout.contains(&format!("Nodes searched: {}\n", variant::perft(&atomic, 2))), "{stdout}");
    // After the queen drop, black's king has its escape squares and nothing to drop but its knight.
    let zh = VariantPosition::from_fen(Variant::Crazyhouse, "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1").unwrap();
    let zh = zh.make_move(zh.parse_uci_move("Q@d7").unwrap());
    assert!(stdout.contains(&format!("Nodes searched: {}\n", variant::perft(&zh, 1))), "{stdout}");
    assert!(stdout.contains("info string error: unknown chess variant 'suicide'"), "{stdout}");
}

fn planted_bugs() -> String {
    let mut path = std::path::PathBuf::from(env!("CARGO_BIN_EXE_gpu-movegen"));
    path.pop();
    let path = path.join("examples").join("planted_bugs");
    assert!(path.exists(), "{} is missing: cargo test builds the examples", path.display());
    path.to_string_lossy().into_owned()
}

#[test]
fn bisect_finds_a_bug_in_a_variant_engine() {
    let engine = format!("{} --uci", planted_bugs());
    let bisect = |bug: &str, variant: &str, fen: &str, depth: &str| {
        Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
            .args([
                "bisect",
                "--engine",
                &engine,
                "--variant",
                variant,
                "--fen",
                fen,
                "--depth",
                depth,
                "--backend",
                "cpu",
            ])
            .env("PLANTED_BUG", bug)
            .output()
            .expect("bisect runs")
    };
    let zh = "r1bqk2r/pppp1ppp/2n5/4P3/1b1Pn3/2NB1N2/PP3PPP/R1BQK2R[Pp] b KQkq - 0 1";
    let output = bisect("zh-no-pawn-drops", "crazyhouse", zh, "2");
    assert_eq!(output.status.code(), Some(1), "{}{}", text(&output.stdout), text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("missing: P@"), "{stdout}");
    let atomic = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5K2/PPPP1PPP/RNBQ1BNR w kq - 0 1";
    let output = bisect("atomic-king-captures", "atomic", atomic, "3");
    assert_eq!(output.status.code(), Some(1), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).contains("extra: "), "{}", text(&output.stdout));
    // No bug: no difference.
    let output =
        bisect("none", "horde", "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1", "3");
    assert!(output.status.success(), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).starts_with("no difference: both engines count 1274"), "{}", text(&output.stdout));
}

#[test]
fn bad_variant_input_is_one_line_with_exit_code_two() {
    for arguments in [
        vec!["perft", "--variant", "suicide", "--depth", "2"],
        vec!["perft", "--variant", "atomic", "--fen", "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1", "--depth", "2"],
        vec!["perft", "--variant", "3check", "--fen", "4k3/8/8/8/8/8/8/4K3 w - - 9+9 0 1", "--depth", "2"],
        vec!["perft", "--variant", "horde", "--fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "--depth", "2"],
        vec!["perft", "--variant", "atomic", "--depth", "2", "--stats", "--backend", "gpu"],
        vec!["verify", "--variant", "atomic", "--random", "4", "--seed", "1", "--depth", "9"],
        vec!["bisect", "--engine", "true", "--protocol", "perftree", "--variant", "atomic", "--depth", "2"],
    ] {
        let output = run(&arguments);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}: {}", text(&output.stdout));
        assert!(!stderr.contains("panicked"), "{arguments:?}: {stderr}");
        assert!(stderr.lines().filter(|line| line.starts_with("error")).count() == 1, "{arguments:?}: {stderr}");
    }
}
