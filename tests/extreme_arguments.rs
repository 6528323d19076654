//! Every option of every command, given the values a hostile user would
//! give: zero, negative, past 2^32, past 2^64, 1e20, NaN, empty, and
//! terminal control bytes. The options are read from each command's
//! `--help`, so an option added later is covered without a change here.
//!
//! Each run must end with exit 0, 1, 2 or 3; a refusal (2) comes within
//! seconds with exactly one error line and no raw control byte; and the
//! values past 2^64, 1e20 and NaN are refused by every option but a
//! folder's name.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_gpu-movegen");

/// The values tried in every option in turn.
const EXTREMES: [&str; 8] = ["0", "-1", "4294967296", "18446744073709551616", "1e20", "NaN", "", "\u{1b}[2J"];

/// The longest a refusal may take.
const REFUSAL_SECONDS: u64 = 10;
/// The longest any run may take (a valid value starts real, small work).
const RUN_SECONDS: u64 = 600;

/// A command and the arguments that make it a small valid run.
struct Case {
    command: &'static [&'static str],
    base: Vec<(&'static str, String)>,
    positional: Vec<String>,
}

fn help_options(command: &[&str]) -> Vec<String> {
    let output = Command::new(BINARY).args(command).arg("--help").output().expect("the binary runs");
    assert!(output.status.success(), "{command:?} --help");
    let text = String::from_utf8(output.stdout).unwrap();
    let options: Vec<String> = text
        .lines()
        .map(str::trim_start)
        .map(|line| line.strip_prefix("-q, ").or_else(|| line.strip_prefix("-h, ")).unwrap_or(line))
        .filter_map(|line| {
            let (option, rest) = line.split_once(' ')?;
            (option.starts_with("--") && rest.starts_with('<')).then(|| option.to_owned())
        })
        .collect();
    options
}

/// Runs and waits at most `limit`, killing the run past it.
fn run_bounded(arguments: &[String], folder: &Path, limit: Duration) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let mut child = Command::new(BINARY)
        .args(arguments)
        .current_dir(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{arguments:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap(), started.elapsed())
}

fn scratch(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-extremes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn cases(folder: &Path) -> Vec<Case> {
    let owned =
        |pairs: &[(&'static str, &str)]| pairs.iter().map(|(option, value)| (*option, value.to_string())).collect();
    // A unit to count: Kiwipete perft(3) split at ply 1.
    let split = folder.join("split");
    let made = Command::new(BINARY)
        .args(["perft", "split", "--depth", "2", "--split-depth", "1", "--units", "2", "--out"])
        .arg(&split)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let unit = split.join("unit-0000").to_string_lossy().into_owned();
    vec![
        Case { command: &["perft"], base: owned(&[("--depth", "1"), ("--backend", "cpu")]), positional: vec![] },
        Case {
            command: &["perft", "split"],
            base: owned(&[("--depth", "2"), ("--split-depth", "1"), ("--units", "2"), ("--out", "new-split")]),
            positional: vec![],
        },
        Case { command: &["perft", "run-unit"], base: owned(&[("--backend", "cpu")]), positional: vec![unit] },
        Case {
            command: &["perftree"],
            base: owned(&[("--backend", "cpu")]),
            positional: vec!["1".into(), gpu_movegen::START_FEN.into()],
        },
        Case { command: &["unique"], base: owned(&[("--depth", "2"), ("--backend", "cpu")]), positional: vec![] },
        Case { command: &["verify"], base: owned(&[("--random", "2"), ("--seed", "1")]), positional: vec![] },
        Case {
            command: &["shogi", "perft"],
            base: owned(&[("--depth", "1"), ("--backend", "cpu")]),
            positional: vec![],
        },
        Case { command: &["shogi", "verify"], base: owned(&[("--random", "1"), ("--seed", "1")]), positional: vec![] },
        Case { command: &["shogi", "checks"], base: vec![], positional: vec![] },
        Case {
            command: &["go", "perft"],
            base: owned(&[("--size", "5"), ("--depth", "1"), ("--backend", "cpu")]),
            positional: vec![],
        },
        Case {
            command: &["go", "playouts"],
            base: owned(&[("--size", "5"), ("--playouts", "10"), ("--seed", "1"), ("--backend", "cpu")]),
            positional: vec![],
        },
        Case {
            command: &["go", "verify"],
            base: owned(&[("--random", "2"), ("--seed", "1"), ("--size", "5")]),
            positional: vec![],
        },
        Case { command: &["gtp"], base: owned(&[("--playouts", "10"), ("--backend", "cpu")]), positional: vec![] },
    ]
}

#[test]
fn every_option_of_every_command_survives_extreme_values() {
    let folder = scratch("options");
    let mut runs = 0;
    for case in cases(&folder) {
        let options = help_options(case.command);
        assert!(!options.is_empty() || case.command == ["perft", "merge"], "{:?} has no options?", case.command);
        for option in &options {
            for value in EXTREMES {
                let mut arguments: Vec<String> = case.command.iter().map(|word| word.to_string()).collect();
                arguments.extend(case.positional.iter().cloned());
                for (base_option, base_value) in &case.base {
                    if base_option != option {
                        arguments.push(format!("{base_option}={base_value}"));
                    }
                }
                // `--option=value`, so that "-1" is a value and not an option.
                arguments.push(format!("{option}={value}"));
                let (code, stderr, took) = run_bounded(&arguments, &folder, Duration::from_secs(RUN_SECONDS));
                runs += 1;
                assert!(matches!(code, Some(0..=3)), "{arguments:?} exited {code:?}: {stderr}");
                assert!(!stderr.contains('\u{1b}'), "{arguments:?} echoed a control byte: {stderr:?}");
                // No number a machine can honour is this large, and none is NaN.
                if ["18446744073709551616", "1e20", "NaN"].contains(&value) && option != "--out" {
                    assert_eq!(code, Some(2), "{arguments:?} was accepted: {stderr}");
                }
                if code == Some(2) {
                    assert!(took < Duration::from_secs(REFUSAL_SECONDS), "{arguments:?} took {took:?} to refuse");
                    let errors = stderr.lines().filter(|line| line.starts_with("error")).count();
                    assert_eq!(errors, 1, "{arguments:?}: {stderr}");
                }
            }
        }
    }
    assert!(runs > 300, "only {runs} runs: were the options read from --help?");
    std::fs::remove_dir_all(folder).unwrap();
}

#[test]
fn positional_arguments_survive_extreme_values() {
    let folder = scratch("positional");
    let fen = gpu_movegen::START_FEN.to_owned();
    for value in EXTREMES {
        for arguments in [
            vec!["perftree".to_owned(), value.to_owned(), fen.clone(), "--backend=cpu".to_owned()],
            vec!["perftree".to_owned(), "1".to_owned(), value.to_owned(), "--backend=cpu".to_owned()],
            vec!["perftree".to_owned(), "1".to_owned(), fen.clone(), value.to_owned(), "--backend=cpu".to_owned()],
            vec!["perft".to_owned(), "run-unit".to_owned(), value.to_owned()],
            vec!["perft".to_owned(), "merge".to_owned(), value.to_owned()],
        ] {
            let (code, stderr, took) = run_bounded(&arguments, &folder, Duration::from_secs(RUN_SECONDS));
            assert!(matches!(code, Some(0..=2)), "{arguments:?} exited {code:?}: {stderr}");
            assert!(!stderr.contains('\u{1b}'), "{arguments:?} echoed a control byte: {stderr:?}");
            assert!(took < Duration::from_secs(REFUSAL_SECONDS), "{arguments:?} took {took:?}");
        }
    }
    std::fs::remove_dir_all(folder).unwrap();
}
