//! Perft work units through the command line and real batch engines: GNU
//! parallel runs every unit, a run killed half way leaves no result and the
//! next one counts, merge refuses a set with a result missing, and a
//! one-node Slurm cluster (Debian's slurm-wlm and munge, started here)
//! runs scripts/slurm/perft.sbatch end to end. .ci/run installs parallel,
//! slurm-wlm and munge; without them these tests fail.

use sha2::Digest as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_gpu-movegen");
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn folder(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-units-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

fn run(arguments: &[&str]) -> Output {
    Command::new(BINARY).args(arguments).env("NODEVICE_SELECT", "1").output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn split(out: &Path, depth: &str, units: &str) {
    let output = run(&[
        "perft",
        "split",
        "--fen",
        KIWIPETE,
        "--depth",
        depth,
        "--split-depth",
        "2",
        "--units",
        units,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
}

fn merge(folder: &Path) -> Output {
    run(&["perft", "merge", folder.to_str().unwrap()])
}

#[test]
fn gnu_parallel_runs_every_unit_and_merge_sums_them() {
    let out = folder("parallel");
    split(&out, "5", "12");
    let units: Vec<String> = (0..12).map(|index| out.join(format!("unit-{index:04}")).display().to_string()).collect();
    let output = Command::new("parallel")
        .args([
            "--will-cite",
            "--halt",
            "now,fail=1",
            BINARY,
            "perft",
            "run-unit",
            "--backend",
            "cpu",
            "--quiet",
            "{}",
            ":::",
        ])
        .args(&units)
        .env("NODEVICE_SELECT", "1")
        .output()
        .expect("GNU parallel is installed (apt-get install parallel)");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let merged = merge(&out);
    assert!(merged.status.success(), "{}", text(&merged.stdout));
    assert_eq!(text(&merged.stdout).trim(), "Nodes searched: 193690690");
    // Merge refuses the set once a result is gone, and names the unit.
    std::fs::remove_file(out.join("unit-0004.result")).unwrap();
    let refused = merge(&out);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stdout).contains("unit-0004: no result"), "{}", text(&refused.stdout));
    assert!(!text(&refused.stdout).contains("Nodes searched"));
    // Running the unit again completes the set; running it once more does nothing.
    assert!(run(&["perft", "run-unit", &units[4], "--backend", "cpu", "--quiet"]).status.success());
    let again = run(&["perft", "run-unit", &units[4], "--backend", "cpu", "--quiet"]);
    assert!(text(&again.stdout).contains("already counted"), "{}", text(&again.stdout));
    assert_eq!(text(&merge(&out).stdout).trim(), "Nodes searched: 193690690");
}

#[test]
fn a_killed_run_leaves_no_result_and_the_next_run_counts() {
    let out = folder("kill");
    split(&out, "6", "1");
    let unit = out.join("unit-0000");
    let result = out.join("unit-0000.result");
    let mut child = Command::new(BINARY)
        .args([
            "perft",
            "run-unit",
            unit.to_str().unwrap(),
            "--backend",
            "cpu",
            "--threads",
            "1",
            "--hash",
            "0",
            "--quiet",
        ])
        .env("NODEVICE_SELECT", "1")
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the run was still counting when it was killed");
    assert!(!result.exists(), "a killed run left a result");
    let refused = merge(&out);
    assert_eq!(refused.status.code(), Some(1));
    // The rerun counts from scratch (Kiwipete perft(6) split at ply 2: four plies a position).
    let rerun = run(&["perft", "run-unit", unit.to_str().unwrap(), "--backend", "cpu", "--quiet"]);
    assert!(rerun.status.success(), "{}", text(&rerun.stderr));
    assert_eq!(text(&merge(&out).stdout).trim(), "Nodes searched: 8031647685");
}

#[test]
fn units_counted_with_statistics_merge_to_the_published_table() {
    let out = folder("stats");
    split(&out, "4", "5");
    let unit = |index: usize| out.join(format!("unit-{index:04}")).display().to_string();
    // One unit counted plainly first: merge then prints nodes alone, and
    // run-unit --stats counts that unit again rather than call it done.
    let plain = run(&["perft", "run-unit", "--backend", "cpu", "-q", &unit(0)]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    for (index, backend) in ["cpu", "gpu", "cpu", "gpu"].into_iter().enumerate() {
        let output = run(&["perft", "run-unit", "--backend", backend, "-q", &unit(index + 1)]);
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let merged = text(&merge(&out).stdout);
    assert_eq!(merged.trim(), "Nodes searched: 4085603", "{merged}");
    for (index, backend) in ["gpu", "cpu", "gpu", "cpu", "gpu"].into_iter().enumerate() {
        let output = run(&["perft", "run-unit", "--stats", "--backend", backend, "-q", &unit(index)]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert!(!text(&output.stdout).contains("already counted"), "{}", text(&output.stdout));
    }
    let again = run(&["perft", "run-unit", "--stats", "--backend", "cpu", "-q", &unit(2)]);
    assert!(text(&again.stdout).contains("already counted"), "{}", text(&again.stdout));
    let merged = merge(&out);
    assert!(merged.status.success(), "{}", text(&merged.stdout));
    // Kiwipete perft(4) in the chessprogramming wiki's table.
    let expected = "nodes: 4085603\ncaptures: 757163\nen_passant: 1929\ncastles: 128013\npromotions: 15172\n\
                    checks: 25523\ndiscovered_checks: 42\ndouble_checks: 6\ncheckmates: 43\nNodes searched: 4085603\n";
    assert_eq!(text(&merged.stdout), expected);
    // A forged result, checksum recomputed, whose columns no count could
    // give: merge refuses it.
    let result = out.join("unit-0002.result");
    let original = std::fs::read_to_string(&result).unwrap();
    let body = original.rsplit_once("checksum ").unwrap().0;
    let lines: Vec<&str> = body.lines().collect();
    let nodes: u128 = lines[2].strip_prefix("nodes ").unwrap().parse().unwrap();
    let columns: Vec<u128> = lines[3].split(' ').skip(1).map(|number| number.parse().unwrap()).collect();
    for (column, value, problem) in [
        (1, nodes + 1, "more captures than nodes"),
        (2, columns[1] + 1, "more en_passant than captures"),
        (8, columns[5] + 1, "more checkmates than checks"),
    ] {
        let mut forged = columns.clone();
        forged[column] = value;
        let row: Vec<String> = forged.iter().map(u128::to_string).collect();
        let forged_body = format!("{}\n{}\n{}\nstatistics {}\n", lines[0], lines[1], lines[2], row.join(" "));
        let checksum =
            sha2::Sha256::digest(forged_body.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect::<String>();
        std::fs::write(&result, format!("{forged_body}checksum {checksum}\n")).unwrap();
        // Merge lists each result it cannot take and exits 1, as for a missing one.
        let refused = merge(&out);
        assert_eq!(refused.status.code(), Some(1), "{problem}: {}", text(&refused.stdout));
        assert!(text(&refused.stdout).contains(problem), "{}", text(&refused.stdout));
    }
    std::fs::write(&result, original).unwrap();
    assert!(merge(&out).status.success());
    // A split at the full depth leaves no move to take statistics of.
    let full = folder("stats-full");
    split(&full, "2", "1");
    let refused = run(&["perft", "run-unit", "--stats", "-q", &full.join("unit-0000").display().to_string()]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("at least one ply below the split"), "{}", text(&refused.stderr));
}

#[test]
fn split_and_merge_refuse_bad_input_with_exit_code_two() {
    let out = folder("bad");
    for (arguments, words) in [
        (
            vec!["perft", "split", "--depth", "3", "--split-depth", "4", "--units", "2", "--out", "X"],
            "deeper than --depth",
        ),
        (
            vec!["perft", "split", "--depth", "3", "--split-depth", "1", "--units", "21", "--out", "X"],
            "at most that many units",
        ),
        (
            vec![
                "perft",
                "split",
                "--fen",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                "--depth",
                "3",
                "--split-depth",
                "1",
                "--units",
                "2",
                "--out",
                "X",
            ],
            "--fen",
        ),
        (vec!["perft", "run-unit", "/nonexistent/unit-0000"], "/nonexistent/unit-0000"),
        (vec!["unique", "--depth", "2", "--backend", "gpu"], "unique runs on the CPU"),
    ] {
        let arguments: Vec<String> =
            arguments.iter().map(|argument| argument.replace('X', out.to_str().unwrap())).collect();
        let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let output = run(&arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {}", text(&output.stderr));
        assert!(text(&output.stderr).contains(words), "{arguments:?}: {}", text(&output.stderr));
    }
    // A folder with no manifest is not a split: bad input, one error line.
    let missing = merge(&folder("no-split"));
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing.stderr));
    assert!(text(&missing.stderr).contains("manifest"), "{}", text(&missing.stderr));
}

#[test]
fn unique_prints_one_line_per_ply() {
    let output = run(&["unique", "--depth", "4"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "1 20\n2 400\n3 5362\n4 72078\n");
}

/// Stops the test's Slurm daemons however the test ends.
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm/local-cluster");
        let _ = Command::new(script).args(["stop", self.0.to_str().unwrap()]).status();
    }
}

#[test]
fn a_slurm_array_job_and_its_dependent_merge_count_kiwipete() {
    let state = folder("slurm-state");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm/local-cluster");
    let started = Command::new(script).args(["start", state.to_str().unwrap()]).output().unwrap();
    assert!(started.status.success(), "no Slurm cluster: {}", text(&started.stderr));
    let _cluster = Cluster(state.clone());
    let conf = text(&started.stdout).trim().to_owned();
    let out = folder("slurm");
    split(&out, "4", "6");
    let submit = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm/submit"))
        .arg(&out)
        .arg(format!("--chdir={}", out.display()))
        .env("SLURM_CONF", &conf)
        .env("GPU_MOVEGEN", BINARY)
        .env("PERFT_ARGS", "--backend cpu --threads 1")
        .env("NODEVICE_SELECT", "1")
        .output()
        .unwrap();
    assert!(submit.status.success(), "{}", text(&submit.stderr));
    // The merge job writes its output once the array has finished.
    let deadline = Instant::now() + Duration::from_secs(240);
    let merged = loop {
        let outputs: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.file_name().unwrap().to_string_lossy().contains("-merge-"))
            .collect();
        if let Some(path) = outputs.first() {
            let contents = std::fs::read_to_string(path).unwrap_or_default();
            if contents.contains("Nodes searched") || contents.contains("error") {
                break contents;
            }
        }
        assert!(Instant::now() < deadline, "the Slurm jobs did not finish; see {}", state.display());
        std::thread::sleep(Duration::from_millis(500));
    };
    // Slurm's output file holds stderr's line on what was merged, then the total.
    assert_eq!(merged.trim().lines().last(), Some("Nodes searched: 4085603"), "{merged}");
    assert!(merged.contains("perft(4) of r3k2r/"), "{merged}");
    for index in 0..6 {
        assert!(out.join(format!("unit-{index:04}.result")).exists());
    }
}
