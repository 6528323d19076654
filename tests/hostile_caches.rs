//! The files the crate keeps between processes (the self-test's verdicts and
//! the driver's pipeline cache) and the memory a process may take, made
//! hostile as a busy cluster or a hostile user would: each cache file
//! replaced by a FIFO, by `/dev/zero` or by a huge file, a failed verdict
//! forged, a GPU table past `ulimit -v`. Every GPU command still counts
//! right within seconds and bounded memory and says what it ignored, or
//! fails with exit code 3 and a message naming the problem; never a hang, a
//! crash or a wrong count.

mod common;

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const START_PERFT_4: &str = "Nodes searched: 197281";

/// A cache folder of this test's own.
fn fresh_cache(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

/// Runs the binary with `cache` as its cache folder and, with
/// `address_space`, that limit on its address space (`ulimit -v`, set in
/// the child before it starts); fails the test when it runs past two
/// minutes, which only a hang would take.
fn run(arguments: &[&str], cache: &Path, address_space: Option<u64>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"));
    command
        .args(arguments)
        .env("GPU_MOVEGEN_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(bytes) = address_space {
        // SAFETY: setrlimit is async-signal-safe, and only the child calls it.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let mut child = command.spawn().expect("the binary runs");
    let started = Instant::now();
    while child.try_wait().expect("the child can be waited for").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let output = child.wait_with_output().expect("the killed child ends");
            panic!("{arguments:?} hung for two minutes: {}", text(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("the binary ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file a GPU perft(3) leaves in `cache`: its verdicts and its pipelines.
fn cache_files(cache: &Path) -> Vec<PathBuf> {
    let output = run(&["perft", "--backend", "gpu", "--depth", "3"], cache, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let mut files = Vec::new();
    for folder in ["self-test", "pipelines"] {
        for entry in std::fs::read_dir(cache.join(folder)).expect("the cache folder was written") {
            files.push(entry.unwrap().path());
        }
    }
    assert!(files.iter().any(|file| file.extension().is_some_and(|extension| extension == "verdict")), "{files:?}");
    assert!(
        files.iter().any(|file| file.extension().is_some_and(|extension| extension == "pipelines")),
        "lavapipe offers a pipeline cache: {files:?}"
    );
    files
}

/// A GPU perft(4) with every cache file replaced by `replace`: right, and
/// each replaced file named on stderr; the files are regular files again after.
fn counts_right_past(name: &str, replace: impl Fn(&Path), address_space: Option<u64>) {
    let cache = fresh_cache(name);
    let files = cache_files(&cache);
    for file in &files {
        std::fs::remove_file(file).unwrap();
        replace(file);
    }
    let output = run(&["perft", "--backend", "gpu", "--depth", "4"], &cache, address_space);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{name}: {stderr}");
    assert_eq!(text(&output.stdout).lines().last(), Some(START_PERFT_4), "{name}: {stderr}");
    for file in &files {
        let warning = format!("warning: ignored the cache file {}", file.display());
        assert!(stderr.contains(&warning), "{name}: no '{warning}' in:\n{stderr}");
        assert!(std::fs::symlink_metadata(file).unwrap().is_file(), "{name}: {} was not replaced", file.display());
    }
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn a_fifo_in_place_of_a_cache_file_is_ignored_at_once() {
    counts_right_past(
        "fifo",
        |file| {
            let name = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
            // SAFETY: mkfifo reads a NUL-terminated path and nothing else.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        },
        None,
    );
}

#[test]
fn dev_zero_in_place_of_a_cache_file_is_read_no_further_than_its_bound() {
    // Four GiB of address space: reading /dev/zero until it ends would pass it
    // within seconds, and the read's failure would end the process.
    counts_right_past("zero", |file| std::os::unix::fs::symlink("/dev/zero", file).unwrap(), Some(4 << 30));
}

#[test]
fn a_cache_file_larger_than_any_the_crate_writes_is_refused_unread() {
    // Sparse: a terabyte that takes no disk.
    counts_right_past("huge", |file| std::fs::File::create(file).unwrap().set_len(1 << 40).unwrap(), Some(4 << 30));
}

#[test]
fn a_damaged_verdict_file_is_ignored_and_replaced() {
    counts_right_past("damaged", |file| std::fs::write(file, b"\xff\xfe not a verdict").unwrap(), None);
}

/// Three million KiB, as the fuzzing's `ulimit -v 3000000` set.
const THREE_MILLION_KIB: u64 = 3_000_000 * 1024;

#[test]
fn a_table_past_the_memory_limit_is_refused_with_exit_three_and_its_size() {
    let cache = fresh_cache("limit");
    let cases: [(&[&str], &str); 3] = [
        (&["perft", "--backend", "gpu", "--depth", "4", "--hash", "2000"], "2000 MiB"),
        (&["perft", "--backend", "gpu", "--depth", "4", "--hash", "5000"], "5000 MiB"),
        (&["shogi", "perft", "--backend", "gpu", "--depth", "2", "--hash", "5000"], "5000 MiB"),
    ];
    for (arguments, size) in cases {
        let output = run(arguments, &cache, Some(THREE_MILLION_KIB));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{arguments:?}: {stderr}");
        let error = stderr.lines().find(|line| line.starts_with("error: ")).expect("one error line");
        for needle in [size, "--hash", "memory limit"] {
            assert!(error.contains(needle), "{arguments:?}: no '{needle}' in {error}");
        }
        assert!(output.stdout.is_empty(), "{arguments:?}: {}", text(&output.stdout));
    }
    // A table the limit leaves room for, asked for or sized by default, counts.
    for arguments in [
        &["perft", "--backend", "gpu", "--depth", "4", "--hash", "256"][..],
        &["perft", "--backend", "gpu", "--depth", "4"],
    ] {
        let output = run(arguments, &cache, Some(THREE_MILLION_KIB));
        assert!(output.status.success(), "{arguments:?}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout).lines().last(), Some(START_PERFT_4));
    }
    let _ = std::fs::remove_dir_all(cache);
}

/// Rewrites every verdict file in `cache` as a failure written at `written`
/// (seconds since the Unix epoch), keeping its key.
fn forge_failures(cache: &Path, written: u64) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(cache.join("self-test")).unwrap() {
        let file = entry.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap();
        let key = text.lines().next().unwrap();
        std::fs::write(&file, format!("{key}\nfailed: forged\nwritten {written}\n")).unwrap();
        files.push(file);
    }
    files
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

#[test]
fn a_failed_verdict_names_its_file_and_info_retest_tests_again() {
    let cache = fresh_cache("forged");
    cache_files(&cache);
    let files = forge_failures(&cache, now());
    let perft = ["perft", "--backend", "gpu", "--depth", "4"];
    let output = run(&perft, &cache, None);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("self-test failed") && stderr.contains("forged"), "{stderr}");
    assert!(files.iter().any(|file| stderr.contains(&file.display().to_string())), "no verdict file named: {stderr}");
    assert!(stderr.contains("gpu-movegen info --retest"), "{stderr}");
    // info shows the cached failure and where it is kept, and --retest runs every check again.
    let info = run(&["info"], &cache, None);
    assert_eq!(info.status.code(), Some(3), "{}", text(&info.stderr));
    assert!(text(&info.stdout).contains("the failed verdict is kept in"), "{}", text(&info.stdout));
    let retest = run(&["info", "--retest"], &cache, None);
    let stdout = text(&retest.stdout);
    assert!(retest.status.success(), "{stdout}{}", text(&retest.stderr));
    assert!(stdout.contains("\nself-test: passed\n") && !stdout.contains("(cached)"), "{stdout}");
    let output = run(&perft, &cache, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).lines().last(), Some(START_PERFT_4));
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn a_failed_verdict_older_than_a_day_is_tested_again() {
    let cache = fresh_cache("expired");
    cache_files(&cache);
    forge_failures(&cache, now() - 2 * 24 * 60 * 60);
    let output = run(&["perft", "--backend", "gpu", "--depth", "4"], &cache, None);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).lines().last(), Some(START_PERFT_4));
    // The checks ran again and were kept as passed.
    for entry in std::fs::read_dir(cache.join("self-test")).unwrap() {
        let verdict = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert_eq!(verdict.lines().nth(1), Some("passed"), "{verdict}");
    }
    let _ = std::fs::remove_dir_all(cache);
}
