//! `gpu-movegen uci` and `gpu-movegen usi` as other tools drive them: the
//! positions and counts of Stockfish's own perft script through UCI's
//! `go perft N` (tests/data/uci_perft.txt), Shogi's published counts through
//! USI (tests/data/shogi.epd), both answering as Stockfish and YaneuraOu do
//! (`move: count` lines, a blank line, `Nodes searched: N`); `bisect` finds
//! no difference against our own UCI front end; and bad input, a plain `go`
//! and `d` get their replies while the engine keeps serving.

use proptest::strategy::Strategy as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_gpu-movegen");

/// A front end process, spoken to a line at a time.
struct FrontEnd {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl FrontEnd {
    fn start(protocol: &str, backend: &str) -> FrontEnd {
        let mut child = Command::new(BINARY)
            .args([protocol, "--backend", backend])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        FrontEnd { child, input, output }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `last`.
    fn read_until(&mut self, last: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "the engine ended before '{last}': {lines:?}");
            let line = line.trim_end().to_owned();
            let done = line.starts_with(last);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// `go perft depth`: the divide lines and the total.
    fn perft(&mut self, depth: u32) -> (Vec<(String, u64)>, u64) {
        self.send(&format!("go perft {depth}"));
        let lines = self.read_until("Nodes searched: ");
        let total = lines.last().unwrap().strip_prefix("Nodes searched: ").unwrap().parse().unwrap();
        let moves = lines
            .iter()
            .filter_map(|line| line.split_once(": "))
            .filter(|(mv, _)| !mv.starts_with("Nodes"))
            .map(|(mv, count)| (mv.to_owned(), count.parse().unwrap()))
            .collect();
        (moves, total)
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

#[test]
fn uci_counts_stockfish_perft_script_positions() {
    let mut engine = FrontEnd::start("uci", "cpu");
    engine.send("uci");
    let hello = engine.read_until("uciok");
    assert!(hello.iter().any(|line| line.starts_with("id name gpu-movegen")), "{hello:?}");
    assert!(hello.iter().any(|line| line.starts_with("option name UCI_Chess960")), "{hello:?}");
    engine.send("isready");
    assert_eq!(engine.read_until("readyok"), ["readyok"]);
    let cases = include_str!("data/uci_perft.txt");
    let mut counted = 0;
    for line in cases.lines().filter(|line| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split(" | ").collect();
        let (position, depth, nodes) = (fields[0], fields[1].parse().unwrap(), fields[2].parse::<u64>().unwrap());
        engine.send(&format!("position {position}"));
        let (moves, total) = engine.perft(depth);
        assert_eq!(total, nodes, "{position} perft({depth})");
        assert_eq!(moves.iter().map(|(_, count)| count).sum::<u64>(), total, "{position}: the divide adds up");
        counted += 1;
    }
    assert_eq!(counted, 6);
    engine.quit();
}

#[test]
fn usi_counts_the_published_shogi_positions() {
    let mut engine = FrontEnd::start("usi", "cpu");
    engine.send("usi");
    let hello = engine.read_until("usiok");
    assert!(hello.iter().any(|line| line.starts_with("id name gpu-movegen")), "{hello:?}");
    engine.send("isready");
    engine.read_until("readyok");
    let suite = include_str!("data/shogi.epd");
    let mut counted = 0;
    for line in suite.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
        let mut fields = line.split(';');
        let sfen = fields.next().unwrap().trim();
        for field in fields {
            let (depth, nodes) = field.trim().strip_prefix('D').unwrap().split_once(' ').unwrap();
            let (depth, nodes): (u32, u64) = (depth.parse().unwrap(), nodes.parse().unwrap());
            if nodes > 30_000_000 {
                continue;
            }
            engine.send(&format!("position sfen {sfen}"));
            let (moves, total) = engine.perft(depth);
            assert_eq!(total, nodes, "{sfen} perft({depth})");
            assert_eq!(moves.iter().map(|(_, count)| count).sum::<u64>(), total);
            counted += 1;
        }
    }
    assert!(counted >= 8, "{counted}");
    // startpos with moves, as GUIs send it.
    engine.send("position startpos moves 7g7f 3c3d");
    let mut position = gpu_movegen::shogi::Position::start();
    for text in ["7g7f", "3c3d"] {
        position = position.make_move(position.parse_usi_move(text).unwrap());
    }
    assert_eq!(engine.perft(2).1, gpu_movegen::shogi::perft::perft(&position, 2));
    engine.quit();
}

#[test]
fn both_front_ends_count_on_the_gpu_as_on_the_cpu() {
    for (protocol, position, depth) in [("uci", "position startpos moves e2e4", 4), ("usi", "position startpos", 3)] {
        let mut counts = Vec::new();
        for backend in ["gpu", "cpu"] {
            let mut engine = FrontEnd::start(protocol, backend);
            engine.send(position);
            counts.push(engine.perft(depth));
            engine.quit();
        }
        assert_eq!(counts[0], counts[1], "{protocol}");
    }
}

#[test]
fn bad_input_plain_go_and_d_are_answered_and_the_engine_serves_on() {
    let mut engine = FrontEnd::start("uci", "cpu");
    for (command, reply) in [
        ("position fen 8/8/8 w", "info string error: position fen: "),
        ("position startpos moves e2e5", "info string error: position moves: "),
        ("setoption name Threads value many", "info string error: Threads is a whole number"),
        ("setoption name Nothing value 1", "info string error: no option named 'Nothing'"),
        ("go perft 65", "info string error: go perft takes a depth from 0 to 64"),
        ("frobnicate", "info string error: unknown command 'frobnicate'"),
    ] {
        engine.send(command);
        let lines = engine.read_until("info string");
        assert!(lines.last().unwrap().starts_with(reply), "{command}: {lines:?}");
    }
    engine.send("go wtime 1000 btime 1000");
    let lines = engine.read_until("bestmove");
    assert_eq!(lines, ["info string gpu-movegen only counts: go perft N", "bestmove 0000"]);
    engine.send("position startpos moves e2e4");
    engine.send("d");
    let board = engine.read_until("Fen: ");
    assert_eq!(board.last().unwrap(), "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    // Chess960 castling notation, through the option.
    engine.send("setoption name UCI_Chess960 value true");
    engine.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let (moves, total) = engine.perft(1);
    assert_eq!(total, 26);
    assert!(moves.iter().any(|(mv, _)| mv == "e1h1"), "{moves:?}");
    engine.send("ucinewgame");
    engine.send("isready");
    engine.read_until("readyok");
    engine.quit();
    let mut shogi = FrontEnd::start("usi", "cpu");
    shogi.send("go byoyomi 1000");
    assert_eq!(shogi.read_until("bestmove").last().unwrap(), "bestmove resign");
    shogi.send("position sfen 9/9/9 b");
    assert!(shogi.read_until("info string").last().unwrap().starts_with("info string error: position sfen: "));
    shogi.send("d");
    assert_eq!(
        shogi.read_until("sfen").last().unwrap(),
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    shogi.quit();
}

#[test]
fn bisect_finds_no_difference_against_our_own_uci_front_end() {
    let output = Command::new(BINARY)
        .args(["bisect", "--engine", &format!("{BINARY} uci --backend cpu"), "--depth", "3", "--backend", "cpu", "-q"])
        .args(["--fen", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("no difference: both engines count 97862 at depth 3"), "{stdout}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Any bytes, and any mix of the protocols' words with random tokens:
    /// both front ends read it all, answer, never panic, and exit 0 at the
    /// end of their input.
    #[test]
    fn any_input_is_answered_without_a_panic(
        lines in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::collection::vec(proptest::num::u8::ANY, 0..60),
                proptest::collection::vec(
                    proptest::prop_oneof![
                        proptest::sample::select(vec![
                            "uci", "usi", "isready", "position", "startpos", "fen", "sfen", "moves", "go", "perft",
                            "1", "2", "d", "setoption", "name", "value", "Threads", "Backend", "Hash", "cpu",
                            "UCI_Chess960", "true", "e2e4", "7g7f", "8/8/8/8/8/8/8/k6K", "w", "b", "-", "0",
                            "ucinewgame", "usinewgame", "stop",
                        ]).prop_map(str::to_owned),
                        "[ -~]{0,12}",
                    ],
                    0..10,
                ).prop_map(|words| words.join(" ").into_bytes()),
            ],
            0..12,
        ),
        protocol in proptest::sample::select(vec!["uci", "usi"]),
    ) {
        let mut input = Vec::new();
        for line in &lines {
            // No deep counts: a random depth could take minutes.
            let text = String::from_utf8_lossy(line);
            if text.contains("perft") && text.split_whitespace().any(|word| word.parse::<u32>().is_ok_and(|depth| depth > 2)) {
                continue;
            }
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        let mut child = Command::new(BINARY)
            .args([protocol, "--backend", "cpu"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(&input);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        proptest::prop_assert!(!stderr.contains("panicked"), "{}", stderr);
        proptest::prop_assert_eq!(output.status.code(), Some(0), "{}", stderr);
    }
}

/// Waits up to `seconds` for the front end to exit; its status, or `None`.
fn exited_within(child: &mut Child, seconds: u64) -> Option<std::process::ExitStatus> {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(seconds) {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// A `go perft` deep enough to run for minutes on either backend, then
/// `isready` answered while it counts, `stop` ending it without a total,
/// the next count exact, and `quit` during a count ending the process at
/// once: on both protocols and both backends.
#[test]
fn go_perft_hears_isready_stop_and_quit_while_it_counts() {
    let cases = [("uci", 10, 4, 197_281u64), ("usi", 9, 3, 25_470)];
    for (protocol, deep, shallow, exact) in cases {
        for backend in ["cpu", "gpu"] {
            let what = format!("{protocol} --backend {backend}");
            let mut front_end = FrontEnd::start(protocol, backend);
            // A first count opens the engine (and builds the GPU's kernels), so the deep one starts counting at once.
            assert_eq!(front_end.perft(shallow).1, exact, "{what}");
            front_end.send(&format!("go perft {deep}"));
            std::thread::sleep(std::time::Duration::from_millis(500));
            let started = std::time::Instant::now();
            front_end.send("isready");
            // (After the blank line that ends the first count's reply.)
            let ready: Vec<String> =
                front_end.read_until("readyok").into_iter().filter(|line| !line.is_empty()).collect();
            assert_eq!(ready, ["readyok"], "{what}: isready waited for the count");
            front_end.send("stop");
            let stopped = front_end.read_until("info string");
            assert_eq!(stopped, ["info string go perft stopped before its end: no count"], "{what}");
            // Stopping took seconds at most (a generous bound: two busy cores).
            assert!(started.elapsed().as_secs() < 30, "{what}: stop took {:?}", started.elapsed());
            // The engine and its table are whole: the next count is exact.
            assert_eq!(front_end.perft(shallow).1, exact, "{what}: after stop");
            front_end.send(&format!("go perft {deep}"));
            std::thread::sleep(std::time::Duration::from_millis(500));
            front_end.send("quit");
            let status = exited_within(&mut front_end.child, 30);
            assert!(status.is_some_and(|status| status.success()), "{what}: quit during a count: {status:?}");
        }
    }
}

/// Commands sent with the go perft, in one write, are a script: they run
/// after the count in order, its `quit` included, as with Stockfish's
/// synchronous perft.
#[test]
fn commands_sent_during_a_count_run_after_it_in_order() {
    let mut child = Command::new(BINARY)
        .args(["uci", "--backend", "cpu"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"go perft 5\nposition startpos moves e2e4\ngo perft 1\nquit\n").unwrap();
    drop(input);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let totals: Vec<&str> = stdout.lines().filter(|line| line.starts_with("Nodes searched: ")).collect();
    assert_eq!(totals, ["Nodes searched: 4865609", "Nodes searched: 20"], "{stdout}");
}
