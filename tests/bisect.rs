//! `gpu-movegen bisect` against real engines: Stockfish (Debian's
//! `stockfish` package; scripts/test installs it) must show no difference,
//! and the planted_bugs example, each of its bugs switched on, must be
//! found at the position where its move list goes wrong, over both
//! protocols. Engines that fail are errors with exit code 2.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use gpu_movegen::{MoveKind, Position};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const ROOKS: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

fn planted_bugs() -> String {
    let mut folder = std::env::current_exe().expect("the test binary");
    folder.pop();
    if folder.ends_with("deps") {
        folder.pop();
    }
    let path = folder.join("examples").join("planted_bugs");
    assert!(path.exists(), "{} is missing: cargo test builds the examples", path.display());
    path.to_string_lossy().into_owned()
}

fn stockfish() -> PathBuf {
    ["/usr/games/stockfish", "/usr/bin/stockfish", "/usr/local/bin/stockfish"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("Stockfish is installed (Debian: apt-get install stockfish; scripts/test does it)")
}

fn bisect(arguments: &[&str], bug: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .arg("bisect")
        .args(arguments)
        .args(["--backend", "cpu", "--quiet"])
        .env("PLANTED_BUG", bug)
        .output()
        .expect("the binary runs")
}

/// The four closing lines: position, moves, missing, extra.
struct Found {
    position: Position,
    moves: Vec<String>,
    missing: Vec<String>,
    extra: Vec<String>,
}

fn found(output: &Output, root: &str) -> Found {
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "a difference is exit code 1:\n{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    let [position, moves, missing, extra] = lines[lines.len() - 4..] else { unreachable!() };
    let field = |line: &str, name: &str| -> Vec<String> {
        line.strip_prefix(name)
            .unwrap_or_else(|| panic!("{name} line: {line}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    let fen = position.strip_prefix("position: ").expect("a position line");
    let found = Found {
        position: Position::from_fen(fen).expect("the reported FEN is valid"),
        moves: field(moves, "moves:"),
        missing: field(missing, "missing:"),
        extra: field(extra, "extra:"),
    };
    // The moves lead from the root to the reported position.
    let mut replayed = Position::from_fen(root).unwrap();
    for text in &found.moves {
        replayed = replayed.make_move(replayed.parse_uci_move(text).expect("the reported moves are legal"));
    }
    assert_eq!(replayed.to_fen(), found.position.to_fen());
    found
}

#[test]
fn stockfish_agrees_with_us_on_standard_and_chess960_positions() {
    let engine = stockfish().to_string_lossy().into_owned();
    for (fen, depth, chess960) in [
        (gpu_movegen::START_FEN, "4", false),
        (KIWIPETE, "3", false),
        (POSITION_4, "3", false),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "3", true),
    ] {
        let mut arguments = vec!["--engine", &engine, "--fen", fen, "--depth", depth];
        if chess960 {
            arguments.push("--chess960");
        }
        let output = bisect(&arguments, "none");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{fen}: {text}{}", String::from_utf8_lossy(&output.stderr));
        assert!(text.starts_with("no difference: both engines count "), "{text}");
    }
}

#[test]
fn a_king_castling_out_of_check_is_found_over_both_protocols() {
    let engine = planted_bugs();
    for (command, protocol) in [(format!("{engine} --uci"), "uci"), (engine.clone(), "perftree")] {
        let output = bisect(
            &["--engine", &command, "--protocol", protocol, "--fen", ROOKS, "--depth", "3"],
            "castle-out-of-check",
        );
        let found = found(&output, ROOKS);
        assert!(found.position.in_check(), "{protocol}: {}", found.position.to_fen());
        assert!(found.missing.is_empty());
        assert!(!found.extra.is_empty());
        let king = found.position.king(found.position.side_to_move());
        for text in &found.extra {
            assert!(text.starts_with(&king.to_string()), "{protocol}: {text} is not a king move");
        }
    }
}

#[test]
fn a_missing_en_passant_capture_is_found() {
    let output = bisect(
        &["--engine", &planted_bugs(), "--protocol", "perftree", "--fen", KIWIPETE, "--depth", "3"],
        "no-en-passant",
    );
    let found = found(&output, KIWIPETE);
    assert!(found.extra.is_empty());
    assert!(!found.missing.is_empty());
    for text in &found.missing {
        let mv = found.position.parse_uci_move(text).unwrap();
        assert_eq!(mv.kind(), MoveKind::EnPassant, "{text} in {}", found.position.to_fen());
    }
    assert_eq!(found.moves.len(), 2, "the first en passant is two plies down: {:?}", found.moves);
}

#[test]
fn missing_knight_promotions_are_found() {
    let output = bisect(
        &["--engine", &format!("{} --uci", planted_bugs()), "--fen", POSITION_4, "--depth", "3"],
        "no-knight-promotion",
    );
    let found = found(&output, POSITION_4);
    assert!(found.extra.is_empty());
    assert!(!found.missing.is_empty());
    assert!(found.missing.iter().all(|text| text.ends_with('n')), "{:?}", found.missing);
}

#[test]
fn an_engine_without_the_bug_shows_no_difference() {
    let output =
        bisect(&["--engine", &planted_bugs(), "--protocol", "perftree", "--fen", KIWIPETE, "--depth", "2"], "none");
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("no difference: both engines count 2039 at depth 2"));
}

/// Exit code 2 and one error line naming the problem.
fn assert_refused(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stdout));
    let message = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = message.lines().filter(|line| line.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{message}");
    assert!(errors[0].contains(needle), "{needle} missing from {message}");
}

#[test]
fn engines_that_fail_are_clear_errors() {
    let engine = planted_bugs();
    let uci = format!("{engine} --uci");
    assert_refused(&bisect(&["--engine", "/no/such/engine", "--depth", "2"], "none"), "cannot start the engine");
    assert_refused(&bisect(&["--engine", &uci, "--depth", "2"], "die"), "the engine exited before it answered");
    assert_refused(
        &bisect(&["--engine", &engine, "--protocol", "perftree", "--depth", "2"], "die"),
        "the engine failed",
    );
    assert_refused(&bisect(&["--engine", &uci, "--depth", "2"], "garbage-count"), "cannot read the engine's line");
    assert_refused(&bisect(&["--engine", &uci, "--depth", "2"], "nonsense-move"), "'e2e5'");
    let started = Instant::now();
    assert_refused(&bisect(&["--engine", &uci, "--depth", "2", "--timeout", "1"], "hang"), "within 1 s");
    assert_refused(
        &bisect(&["--engine", &engine, "--protocol", "perftree", "--depth", "2", "--timeout", "1"], "hang"),
        "within 1 s",
    );
    assert!(started.elapsed() < Duration::from_secs(20), "the timeouts took {:?}", started.elapsed());
    assert_refused(&bisect(&["--engine", &engine, "--protocol", "perftree", "--depth", "2"], "binary"), "not UTF-8");
    assert_refused(&bisect(&["--engine", &uci, "--depth", "2", "--moves", "e2e5"], "none"), "--moves");
}

/// Runs a bisection and returns it with how long it took.
fn timed(arguments: &[&str], bug: &str) -> (Output, Duration) {
    let started = Instant::now();
    let output = bisect(arguments, bug);
    (output, started.elapsed())
}

#[test]
fn an_engine_whose_total_contradicts_its_moves_is_wrong_never_agreed_with() {
    let engine = planted_bugs();
    for (command, protocol) in [(format!("{engine} --uci"), "uci"), (engine.clone(), "perftree")] {
        let output = bisect(&["--engine", &command, "--protocol", protocol, "--depth", "2"], "wrong-total");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{protocol}: {stderr}");
        assert!(stderr.contains("the engine's total 401 is not the sum of its moves' counts (400)"), "{stderr}");
        assert!(String::from_utf8_lossy(&output.stdout).starts_with("position: rnbqkbnr/"), "{protocol}");
    }
}

#[test]
fn engines_that_flood_or_linger_end_within_the_timeout_in_bounded_memory() {
    let engine = planted_bugs();
    let uci = format!("{engine} --uci");
    let perftree = ["--protocol", "perftree"];
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        // `yes` floods before it ever answers `uci`; over perftree, instead of a divide.
        (vec!["--engine", "yes"], "none", "passed 10000 lines"),
        ([&["--engine", "yes"][..], &perftree].concat(), "none", "passed 10000 lines"),
        (vec!["--engine", &uci], "flood", "passed 10000 lines"),
        ([&["--engine", &engine][..], &perftree].concat(), "flood", "passed 10000 lines"),
        (vec!["--engine", &uci], "huge-count", "longer than 4 KiB"),
        ([&["--engine", &engine][..], &perftree].concat(), "huge-count", "longer than 4 KiB"),
        (vec!["--engine", &uci], "binary", "not UTF-8"),
        ([&["--engine", &engine][..], &perftree].concat(), "truncated", "cut short"),
        // A child that keeps the engine's output open is ended with it.
        ([&["--engine", &engine][..], &perftree].concat(), "orphan-silent", "within 2 s"),
    ];
    for (engine_arguments, bug, needle) in &cases {
        let arguments = [&engine_arguments[..], &["--depth", "2", "--timeout", "2"]].concat();
        let (output, took) = timed(&arguments, bug);
        assert_refused(&output, needle);
        assert!(output.stderr.len() < 400, "{bug}: {} bytes of error", output.stderr.len());
        assert!(took < Duration::from_secs(6), "{arguments:?} with {bug} took {took:?}");
    }
    // An engine that answers, then leaves a child holding its output: the
    // answer counts, and the bisection goes on.
    let (output, took) = timed(&["--engine", &engine, "--protocol", "perftree", "--depth", "2"], "orphan");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(took < Duration::from_secs(6), "took {took:?}");
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let peak_kib = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage.ru_maxrss
    };
    assert!(peak_kib < 1 << 20, "a bisection reached {} MiB", peak_kib >> 10);
}

/// The start position's true divide at depth 2, as perftree writes it.
fn true_answer() -> Vec<(String, u64)> {
    let start = Position::start();
    gpu_movegen::perft::divide(&start, 2, false)
        .into_iter()
        .map(|(mv, count)| (mv.uci(false).to_string(), count))
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Any perftree answer, the true one changed in one of many ways: the
    /// bisection ends within its timeout with 0, 1 or 2, and exits 0 only
    /// when every move and count, and the total, are the true ones.
    #[test]
    fn bisect_exits_zero_only_for_the_true_answer(
        change in 0usize..10,
        which in 0usize..20,
        amount in 1u64..3,
        noise in "[ -~]{0,12}",
    ) {
        let mut moves = true_answer();
        let mut total: u64 = moves.iter().map(|(_, count)| count).sum();
        let mut tail = String::new();
        match change {
            0 => {}
            1 => moves[which].1 += amount,
            2 => total += amount,
            3 => { moves[which].1 += amount; total += amount; }
            4 => { let (_, count) = moves.remove(which); total -= count; }
            5 => moves.push(moves[which].clone()),
            6 => {}
            7 => tail = noise.clone(),
            8 => moves[which].0 = format!("{}{}", &moves[which].0[..2], "e9"),
            _ => moves.truncate(which),
        }
        let mut lines: Vec<String> = moves.iter().map(|(mv, count)| format!("{mv} {count}")).collect();
        if change == 6 {
            // Chatter among the moves, which a reader may pass over.
            lines.insert(which.min(lines.len()), format!("info {noise}"));
        }
        let answer = if change == 9 { lines.join("\n") } else { format!("{}\n\n{total}\n{tail}", lines.join("\n")) };
        let folder = std::env::temp_dir().join(format!("gpu-movegen-bisect-prop-{}-{change}-{which}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let answer_path = folder.join("answer");
        std::fs::write(&answer_path, &answer).unwrap();
        let engine = folder.join("engine");
        std::fs::write(&engine, format!("#!/bin/sh\nexec cat '{}'\n", answer_path.display())).unwrap();
        std::fs::set_permissions(&engine, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let engine = engine.to_string_lossy().into_owned();
        let (output, took) = timed(&["--engine", &engine, "--protocol", "perftree", "--depth", "2", "--timeout", "3"], "none");
        std::fs::remove_dir_all(&folder).unwrap();
        let code = output.status.code();
        proptest::prop_assert!(matches!(code, Some(0..=2)), "{:?}: {}", code, String::from_utf8_lossy(&output.stderr));
        proptest::prop_assert!(took < Duration::from_secs(8), "took {:?}", took);
        let true_moves = true_answer();
        let faithful = {
            let mut given = moves.clone();
            given.sort();
            let mut expected = true_moves.clone();
            expected.sort();
            given == expected && total == expected.iter().map(|(_, count)| count).sum::<u64>() && change != 9
        };
        if code == Some(0) {
            proptest::prop_assert!(faithful, "exit 0 for a wrong answer:\n{}", answer);
        }
        if faithful && tail.trim().is_empty() {
            proptest::prop_assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        }
    }
}
