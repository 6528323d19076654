//! Every command that a hostile user's fuzzing once crashed, hung or
//! exhausted: each now ends with its exit code and a one-line message,
//! within seconds and under 1 GiB. The commands run one at a time in this
//! test binary's only test, so the peak memory of its children
//! (`getrusage(RUSAGE_CHILDREN)`) is the peak of the command just run or
//! of one before it, each checked as it ends.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_gpu-movegen");
/// The most a refusal may take.
const SECONDS: u64 = 10;
/// The most memory any of these commands may reach.
const MAX_RESIDENT_BYTES: u64 = 1 << 30;

/// The largest resident set of any child waited for so far.
fn peak_child_bytes() -> u64 {
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as u64 * 1024
}

fn run(arguments: &[&str], input: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(BINARY)
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Runs `arguments` and checks its code, its one error line and its bounds.
fn check(arguments: &[&str], input: &[u8], code: i32, words: &str) -> Output {
    let started = Instant::now();
    let output = run(arguments, input);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(code), "{arguments:?}: {stderr}");
    assert!(
        stderr.contains(words) || String::from_utf8_lossy(&output.stdout).contains(words),
        "{arguments:?}: {stderr}"
    );
    if code != 0 {
        assert_eq!(stderr.lines().filter(|line| line.starts_with("error")).count(), 1, "{arguments:?}: {stderr}");
    }
    assert!(took < Duration::from_secs(SECONDS), "{arguments:?} took {took:?}");
    let peak = peak_child_bytes();
    assert!(peak < MAX_RESIDENT_BYTES, "{arguments:?}: a command so far reached {} MiB", peak >> 20);
    output
}

#[test]
fn every_command_the_fuzzing_broke_ends_within_seconds_and_a_gibibyte() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-bounded-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let path = |name: &str| folder.join(name).to_str().unwrap().to_owned();
    let kings = "8/8/8/8/8/8/8/k6K w - - 0 1";
    let split = path("split");
    let chess_suite = path("deep.epd");
    std::fs::write(&chess_suite, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1000 20\n").unwrap();
    let shogi_suite = path("deep-shogi.epd");
    std::fs::write(&shogi_suite, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 ;D1000 30\n")
        .unwrap();
    let shallow_suite = path("shallow.epd");
    std::fs::write(&shallow_suite, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20\n").unwrap();
    let fifo = path("fifo");
    let fifo_name = std::ffi::CString::new(fifo.as_str()).unwrap();
    // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
    assert_eq!(unsafe { libc::mkfifo(fifo_name.as_ptr(), 0o600) }, 0);
    let folder_name = folder.to_str().unwrap().to_owned();
    let huge = path("huge.epd");
    std::fs::File::create(&huge).unwrap().set_len(65 << 20).unwrap();
    let refusals: Vec<(Vec<&str>, &str)> = vec![
        // Depths past each game's maximum: refused, never started.
        (vec!["perft", "--depth", "1000", "--backend", "cpu"], "0..=64"),
        (vec!["perft", "--depth", "100"], "0..=64"),
        (vec!["perftree", "1000", kings], "1..=64"),
        (vec!["unique", "--depth", "1000"], "0..=64"),
        (vec!["unique", "--depth", "64", "--memory", "16"], "ply 5 would take about"),
        (vec!["perft", "split", "--depth", "1000", "--split-depth", "2", "--units", "2", "--out", &split], "0..=64"),
        (vec!["shogi", "perft", "--depth", "100000"], "0..=16"),
        (vec!["shogi", "perft", "--depth", "1000"], "0..=16"),
        (vec!["go", "perft", "--size", "19", "--depth", "100000"], "0..=24"),
        (vec!["go", "perft", "--depth", "1000"], "0..=24"),
        (vec!["perft", "--epd", &chess_suite], "from 1 to 64"),
        (vec!["shogi", "perft", "--epd", &shogi_suite], "depth 1 to 16"),
        // Counts and sizes past what the machine can hold.
        (vec!["verify", "--random", "18446744073709551615", "--seed", "1"], "1..=1000000"),
        (vec!["shogi", "verify", "--random", "18446744073709551615", "--seed", "1"], "1..=100000"),
        (vec!["shogi", "verify", "--random", "100000000", "--seed", "1"], "1..=100000"),
        (vec!["go", "playouts", "--playouts", "4294967295", "--seed", "1"], "1..=100000000"),
        (vec!["go", "verify", "--random", "10000000", "--seed", "1"], "1..=100000"),
        (vec!["perft", "--hash", "4000000", "--depth", "1", "--backend", "cpu"], "of this machine's"),
        (vec!["unique", "--depth", "2", "--memory", "4000000"], "of this machine's"),
        (vec!["gtp", "--time", "1e20"], "from 0 to 86400"),
        (vec!["gtp", "--time", "1e19"], "from 0 to 86400"),
        // Endless files, FIFOs that no one writes to, folders: refused before opening.
        (vec!["perft", "--epd", "/dev/zero"], "not a regular file"),
        (vec!["verify", "--epd", "/dev/zero"], "not a regular file"),
        (vec!["shogi", "perft", "--epd", "/dev/zero"], "not a regular file"),
        (vec!["shogi", "verify", "--epd", "/dev/zero"], "not a regular file"),
        (vec!["go", "perft", "--sgf", "/dev/zero"], "not a regular file"),
        (vec!["perft", "run-unit", "/dev/zero"], "not a regular file"),
        (vec!["perft", "--epd", &fifo], "not a regular file"),
        (vec!["shogi", "perft", "--epd", &fifo], "not a regular file"),
        (vec!["go", "perft", "--sgf", &fifo], "not a regular file"),
        (vec!["go", "playouts", "--sgf", &fifo, "--seed", "1", "--playouts", "8"], "not a regular file"),
        (vec!["perft", "run-unit", &fifo], "not a regular file"),
        (vec!["perft", "--epd", &folder_name], "a folder"),
        // A file past the limit.
        (vec!["perft", "--epd", &huge], "MiB, the most read from such a file"),
        // A check that would count nothing.
        (vec!["perft", "--epd", &shallow_suite, "--max-depth", "0", "--backend", "cpu"], "nothing would be counted"),
        // Control bytes are escaped, not echoed.
        (vec!["go", "perft", "--moves=B \u{1b}[2J"], "'\\u{1b}[2J' is not a vertex"),
    ];
    for (arguments, words) in &refusals {
        let output = check(arguments, b"", 2, words);
        assert!(!output.stderr.contains(&0x1b), "{arguments:?} echoed a control byte");
    }
    assert!(!std::path::Path::new(&split).exists(), "a refused split left files");
    // SGF files that overflowed the stack or took 110 times their size: a
    // sequence and a nesting of 140,000 nodes, 60 MiB of empty properties.
    let deep = path("deep.sgf");
    std::fs::write(&deep, format!("(;SZ[19]{})", ";B[]".repeat(140_000))).unwrap();
    let nested = path("nested.sgf");
    std::fs::write(&nested, format!("(;SZ[9]{}{}", "(;".repeat(140_000), ")".repeat(140_001))).unwrap();
    let large = path("large.sgf");
    std::fs::write(&large, format!("(;SZ[19]C{})", "[]".repeat(30 << 20))).unwrap();
    for sgf in [&deep, &nested, &large] {
        check(&["go", "perft", "--sgf", sgf, "--depth", "1", "--backend", "cpu"], b"", 0, "Nodes searched");
        let stream = format!("loadsgf {sgf}\nloadsgf {fifo}\nname\n");
        let output = check(&["gtp", "--backend", "cpu"], stream.as_bytes(), 0, "");
        let replies = String::from_utf8(output.stdout).unwrap();
        assert!(replies.starts_with("=\n\n? cannot load file: not a regular file"), "{replies}");
        assert!(replies.ends_with("= gpu-movegen\n\n"), "{replies}");
    }
    // GTP answers every command of a stream with bad bytes and an overlong line.
    let mut stream = b"name\nplay b \xe9\n".to_vec();
    stream.extend(std::iter::repeat_n(b'x', 100 << 10));
    stream.extend_from_slice(b"\nname\n");
    let output = check(&["gtp", "--backend", "cpu"], &stream, 0, "");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "= gpu-movegen\n\n? invalid UTF-8\n\n? line too long\n\n= gpu-movegen\n\n"
    );
    std::fs::remove_dir_all(folder).unwrap();
}
