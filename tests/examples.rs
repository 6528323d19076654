//! Every example runs, at a small size, so that one that stops working
//! fails the build. `cargo test` builds the examples beside the test binaries.

use std::path::PathBuf;
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    let mut folder = std::env::current_exe().expect("the test binary");
    folder.pop();
    if folder.ends_with("deps") {
        folder.pop();
    }
    let path = folder.join("examples").join(name);
    assert!(path.exists(), "{} is missing: cargo test builds the examples; run it with --examples", path.display());
    path
}

fn run(name: &str, arguments: &[&str]) -> String {
    let output: Output = Command::new(example(name)).args(arguments).output().expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} {arguments:?} failed ({:?}):\n{stdout}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn gpu_search_finds_identical_results_on_gpu_and_cpu() {
    let text = run("gpu_search", &["--positions", "4", "--playouts", "16", "--depth", "1"]);
    assert!(text.contains("identical on GPU and CPU; GPU"), "{text}");
    assert!(text.contains("negamax depth 1: 4 positions, identical on GPU and CPU"), "{text}");
}

/// Without a bug the planted_bugs engine counts as the crate does, in
/// perftree's form: `move count` lines, a blank line, the total.
#[test]
fn planted_bugs_without_a_bug_counts_like_the_crate() {
    let output =
        Command::new(example("planted_bugs")).args(["2", gpu_movegen::START_FEN]).output().expect("the example runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 22, "{text}");
    assert!(lines[..20].iter().all(|line| line.ends_with(" 20")), "{text}");
    assert_eq!(lines[20..], ["", "400"]);
}

#[test]
fn throughput_runs_every_section() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let json = folder.join("perft.json").to_string_lossy().into_owned();
    let plot = folder.join("perft.svg").to_string_lossy().into_owned();
    let sections: [&[&str]; 9] = [
        &[
            "perft",
            "--start-depths",
            "3",
            "--kiwipete-depths",
            "2",
            "--rounds",
            "1",
            "--leaf-shapes",
            "--json",
            &json,
            "--plot",
            &plot,
        ],
        &["movegen", "--max-batch", "100"],
        &["env", "--batch", "64", "--steps", "8"],
        &["sliders", "--batch", "100", "--perft-depth", "3", "--invocations", "64"],
        &["go", "--positions", "100", "--playouts", "200", "--gpu-playouts", "64"],
        &["shogi", "--rounds", "1", "--depth", "2"],
        &["compile"],
        &["deep", "--depth", "4", "--rounds", "1"],
        &["cpu", "--rounds", "1", "--depth-offset", "-2", "--scaling-depth", "5"],
    ];
    for arguments in sections {
        let text = run("throughput", arguments);
        assert!(text.lines().count() > 1, "{arguments:?} printed no figures:\n{text}");
    }
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(figures.as_array().is_some_and(|rows| !rows.is_empty()) || figures.is_object(), "{figures}");
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
    std::fs::remove_dir_all(folder).unwrap();
}

/// The WGSL export the browser build ships: one module per slider
/// algorithm, each valid WGSL on its own (naga parses it whole), and the
/// tables' bytes.
#[test]
fn export_wgsl_writes_every_module_and_the_tables() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-export-{}", std::process::id()));
    let text = run("export_wgsl", &[folder.to_str().expect("a UTF-8 temporary folder")]);
    assert!(text.contains("wrote 6 WGSL modules"), "{text}");
    let tables = std::fs::metadata(folder.join("chess-tables.bin")).expect("chess-tables.bin").len();
    assert_eq!(tables % 8, 0, "whole bitboards");
    for name in ["kogge-stone", "dumb7fill", "hyperbola", "sbamg", "subtraction", "magic"] {
        let source = std::fs::read_to_string(folder.join(format!("chess-{name}-u32x2.wgsl"))).expect(name);
        assert!(source.contains("fn chess_count_legal"), "{name}: the library's functions");
        let code: Vec<&str> = source.lines().filter(|line| !line.trim_start().starts_with("//")).collect();
        assert!(!code.iter().any(|line| line.contains("u64")), "{name}: WebGPU has no 64-bit integers");
        naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|error| panic!("{name}: {}", error.emit_to_string(&source)));
    }
    std::fs::remove_dir_all(folder).expect("the folder is removed");
}

/// The rows of mcts_selfplay's table, by game: games, finished, moves,
/// search steps.
fn mcts_rows(arguments: &[&str]) -> Vec<(String, [u64; 4])> {
    let text = run("mcts_selfplay", arguments);
    let mut lines = text.lines();
    assert!(lines.next().is_some_and(|header| header.starts_with("env")), "{text}");
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let number = |index: usize| fields[index].parse::<u64>().unwrap_or_else(|_| panic!("{line}"));
            (fields[0].to_owned(), [number(1), number(2), number(3), number(4)])
        })
        .collect()
}

/// The Rust tree search example searches every game: each of its four
/// games moves three times, each move after eight simulations (a step
/// each) and two rollout steps from each new node.
#[test]
fn mcts_selfplay_searches_every_game() {
    let rows = mcts_rows(&["--batch", "4", "--simulations", "8", "--moves", "3", "--rollout-steps", "2"]);
    let games: Vec<&str> = rows.iter().map(|(game, _)| game.as_str()).collect();
    assert_eq!(games, ["chess", "shogi", "go_9x9", "go_19x19"]);
    for (game, [games, _, moves, search_steps]) in &rows {
        assert_eq!((*games, *moves), (4, 12), "{game}");
        assert!((8 * moves..=3 * 8 * moves).contains(search_steps), "{game}: {search_steps} search steps");
    }
}

/// 9×9 games end within 2·81 steps, so 200 moves play every game to its end.
#[test]
fn mcts_selfplay_plays_9x9_games_to_their_end() {
    let rows = mcts_rows(&["--env", "go_9x9", "--batch", "4", "--simulations", "4", "--moves", "200"]);
    assert_eq!(rows.len(), 1);
    let [games, finished, moves, _] = rows[0].1;
    assert_eq!((games, finished), (4, 4));
    assert!(moves <= 4 * 162, "{moves} moves");
}

/// On the GPU backend the search is the CPU's, step for step: the same
/// rows for every game, and 9×9 games played to their end the same way.
#[test]
fn mcts_selfplay_searches_the_same_on_the_gpu_backend() {
    let arguments = ["--batch", "4", "--simulations", "8", "--moves", "3", "--rollout-steps", "2"];
    let on_gpu = [&arguments[..], &["--backend", "gpu"]].concat();
    assert_eq!(mcts_rows(&on_gpu), mcts_rows(&arguments));
    let to_the_end = ["--env", "go_9x9", "--batch", "4", "--simulations", "4", "--moves", "200"];
    let on_gpu = [&to_the_end[..], &["--backend", "gpu"]].concat();
    let rows = mcts_rows(&on_gpu);
    assert_eq!(rows, mcts_rows(&to_the_end));
    assert_eq!(rows[0].1[1], 4, "every game finished");
}

/// A search too large for memory is refused by name, with exit code 2,
/// before anything is allocated.
#[test]
fn mcts_selfplay_refuses_a_search_too_large() {
    let output = Command::new(example("mcts_selfplay"))
        .args(["--batch", "65536", "--simulations", "100"])
        .output()
        .expect("the example runs");
    assert_eq!(output.status.code(), Some(2));
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("6619136 nodes; at most 262144"), "{errors}");
}
