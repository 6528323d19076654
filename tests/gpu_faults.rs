//! Every GPU fault point (src/gpu/faults.rs) in every GPU command: each
//! ends with exit code 3, at most three lines on stderr, nothing on stdout
//! (no count, no verdict), no panic and, for `perft run-unit`, no result
//! file; the GTP engine keeps serving, on the CPU after saying so; and the
//! library returns a `GpuError`. Built only with `--features failpoints`
//! (scripts/test runs it after the main suite).

mod common;

use std::process::{Command, Output};

use gpu_movegen::Position;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::gpu::{GpuContext, GpuError};

/// The points. Each fires at once, and (all but the device request, made
/// once a command) the second time it is reached, so that the failure also
/// falls inside a command after some work has gone well.
const POINTS: [&str; 5] =
    ["gpu-device-request", "gpu-device-lost", "gpu-buffer-allocate", "gpu-map-read", "gpu-readback-stall"];

fn run(arguments: &[&str], failpoints: &str, stdin: &str) -> Output {
    let arguments = [arguments, &["--gpu-timeout", "1"]].concat();
    common::run_binary(&arguments, &[("FAILPOINTS", failpoints.as_ref())], stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn folder(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

#[test]
fn every_point_ends_every_gpu_command_with_exit_code_three_and_no_count() {
    let units = folder("units");
    let split = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(["perft", "split", "--depth", "5", "--split-depth", "1", "--units", "2", "--out"])
        .arg(&units)
        .output()
        .expect("split runs");
    assert!(split.status.success(), "{}", text(&split.stderr));
    let unit = units.join("unit-0000").to_string_lossy().into_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["perft", "--depth", "4", "--backend", "gpu"],
        vec!["perft", "run-unit", &unit, "--backend", "gpu"],
        vec!["shogi", "perft", "--depth", "3", "--backend", "gpu"],
        vec!["go", "perft", "--size", "9", "--depth", "3", "--backend", "gpu"],
        vec!["go", "playouts", "--size", "9", "--playouts", "64", "--seed", "1", "--backend", "gpu"],
        vec!["verify", "--random", "8", "--seed", "1"],
        vec!["shogi", "verify", "--random", "4", "--seed", "1"],
        vec!["go", "verify", "--random", "4", "--seed", "1", "--size", "9"],
    ];
    for point in POINTS {
        // A device is requested once a command; the other points fire again.
        let settings: &[&str] = if point == "gpu-device-request" { &["return"] } else { &["return", "1*off->return"] };
        for setting in settings {
            let failpoints = format!("{point}={setting}");
            for arguments in &commands {
                // 64 playouts are one submission and one wait: nothing comes after.
                if *setting != "return" && arguments[1] == "playouts" {
                    continue;
                }
                let output = run(arguments, &failpoints, "");
                let stderr = text(&output.stderr);
                let what = format!("{failpoints} {arguments:?}");
                assert_eq!(output.status.code(), Some(3), "{what}: {}{stderr}", text(&output.stdout));
                assert!(output.stdout.is_empty(), "{what} printed: {}", text(&output.stdout));
                assert!(stderr.lines().count() <= 3, "{what}: {stderr}");
                assert!(stderr.lines().any(|line| line.starts_with("error: ")), "{what}: {stderr}");
                assert!(!stderr.contains("panicked"), "{what}: {stderr}");
                assert!(!units.join("unit-0000.result").exists(), "{what} left a result file");
            }
        }
    }
    let _ = std::fs::remove_dir_all(units);
}

#[test]
fn the_gtp_engine_keeps_serving_on_the_cpu_and_says_so() {
    let stream = "boardsize 9\ngenmove b\ngenmove w\ngenmove b\nfinal_score\nname\n";
    let plain = run(&["gtp", "--backend", "cpu", "--playouts", "64"], "", stream);
    let expected = text(&plain.stdout);
    assert_eq!(expected.matches("\n\n").count(), 6, "{expected}");
    for point in POINTS {
        // After the engine has started: the game goes on, move for move the
        // same as on the CPU (the GPU's playouts and the CPU twin's agree).
        let failpoints = format!("{point}=3*off->return");
        let output = run(&["gtp", "--backend", "auto", "--playouts", "64"], &failpoints, stream);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{failpoints}: {stderr}");
        assert_eq!(text(&output.stdout), expected, "{failpoints}: {stderr}");
        assert!(!stderr.contains("panicked"), "{failpoints}: {stderr}");
        assert!(stderr.contains("CPU"), "{failpoints}: the switch is not said: {stderr}");
    }
}

#[test]
fn the_library_returns_gpu_errors() {
    let scenario = fail::FailScenario::setup();
    let start = Position::start();
    let count = |context: &GpuContext| -> Result<Vec<u64>, GpuError> {
        let mut engine = GpuPerft::with_options(context, PerftOptions { table_bytes: Some(0), ..Default::default() })?;
        engine.perft(std::slice::from_ref(&start), 4, &mut |_| {})
    };
    // A working device first, so that the self-test's verdicts are known.
    let context = common::gpu::context();
    assert_eq!(count(&context).expect("a count"), [197_281]);
    fail::cfg("gpu-device-request", "return").unwrap();
    assert!(matches!(GpuContext::new(), Err(GpuError::RequestDevice { .. })));
    fail::remove("gpu-device-request");
    for (point, matches) in [
        (
            "gpu-buffer-allocate",
            (|error: &GpuError| matches!(error, GpuError::OutOfMemory(_))) as fn(&GpuError) -> bool,
        ),
        ("gpu-map-read", |error| matches!(error, GpuError::Readback(_))),
        ("gpu-readback-stall", |error| matches!(error, GpuError::Stall { .. })),
        ("gpu-device-lost", |error| matches!(error, GpuError::DeviceLost { .. })),
    ] {
        let context = common::gpu::context();
        context.set_wait_timeout(std::time::Duration::from_secs(1));
        fail::cfg(point, "return").unwrap();
        let outcome = count(&context);
        fail::remove(point);
        match outcome {
            Err(error) => assert!(matches(&error), "{point}: {error}"),
            Ok(counts) => panic!("{point}: a count came back: {counts:?}"),
        }
    }
    scenario.teardown();
}

/// A device lost in the middle of a count on two devices (the fault point
/// fires at some submit after work has gone well, on whichever device
/// submits then): exit code 3, the device named, no count. Opening both
/// devices and their self-tests take under 300 submits here and the count
/// about 250 more, so these fall inside the count; a device destroyed from
/// another thread mid-count is tests/gpu_devices.rs's.
#[test]
fn a_device_lost_under_two_devices_ends_the_run_with_exit_code_three() {
    for setting in ["380*off->return", "480*off->return"] {
        let failpoints = format!("gpu-device-lost={setting}");
        let output = run(&["perft", "--devices", "2", "--depth", "6", "--cross-check", "0"], &failpoints, "");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{failpoints}: {}{stderr}", text(&output.stdout));
        assert!(output.stdout.is_empty(), "{failpoints} printed: {}", text(&output.stdout));
        assert!(stderr.contains("GPU 1 of 2") || stderr.contains("GPU 2 of 2"), "{failpoints}: {stderr}");
        assert!(stderr.contains("lost"), "{failpoints}: {stderr}");
        assert!(!stderr.contains("panicked"), "{failpoints}: {stderr}");
    }
}
