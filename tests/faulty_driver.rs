//! On a driver that miscomputes without any error, lavapipe from Mesa
//! 22.3.6 (it cuts every loop off after 65,535 iterations in an invocation),
//! the GPU self-test fails, every GPU command exits with code 3 and one
//! line, `--backend auto` counts on the CPU and says why, and the library
//! returns errors instead of results. scripts/setup-vulkan unpacks that
//! driver beside the good one and names its ICD file in
//! GPU_MOVEGEN_FAULTY_ICD; without it these tests fail.

mod common;

use std::process::{Command, Output};

use gpu_movegen::gpu::{GpuContext, GpuError};

/// The faulty driver's ICD file.
fn faulty_icd() -> String {
    std::env::var("GPU_MOVEGEN_FAULTY_ICD").unwrap_or_else(|_| {
        panic!(
            "GPU_MOVEGEN_FAULTY_ICD is not set: run the tests through scripts/test, which unpacks lavapipe from \
             Mesa 22.3.6 on Debian 12 (scripts/setup-vulkan)"
        )
    })
}

/// A cache folder of this test run's own, so that every verdict is found anew.
fn fresh_cache(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-faulty-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

fn run_on_faulty_driver(arguments: &[&str], stdin: &str, cache: &std::path::Path) -> Output {
    let icd = faulty_icd();
    let environment = [
        ("VK_ICD_FILENAMES", icd.as_ref()),
        ("GPU_MOVEGEN_CACHE_DIR", cache.as_os_str()),
        ("WGPU_BACKEND", "vulkan".as_ref()),
    ];
    common::run_binary(arguments, &environment, stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn info_shows_the_failed_self_test_and_exits_with_three() {
    let output = run_on_faulty_driver(&["info"], "", &fresh_cache("info"));
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("Mesa 22.3.6"), "not the faulty driver:\n{stdout}");
    assert!(stdout.contains("\nself-test: failed (long loops"), "{stdout}");
}

#[test]
fn every_gpu_command_refuses_with_exit_code_three_and_one_line() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/edge_cases.epd");
    let shogi_suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shogi.epd");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let units = fresh_cache("units");
    let split = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(["perft", "split", "--depth", "4", "--split-depth", "2", "--units", "2", "--out"])
        .arg(&units)
        .output()
        .expect("split runs");
    assert!(split.status.success(), "{}", text(&split.stderr));
    let unit = units.join("unit-0000").to_string_lossy().into_owned();
    let commands: Vec<(Vec<&str>, &str)> = vec![
        (vec!["perft", "--depth", "3"], ""),
        (vec!["perft", "--fen", kiwipete, "--depth", "2", "--divide"], ""),
        (vec!["perft", "--epd", suite, "--max-depth", "2"], ""),
        (vec!["perft", "run-unit", &unit], ""),
        (vec!["perft", "--stats", "--depth", "3", "--divide"], ""),
        (vec!["perft", "--stats", "--epd", suite, "--max-depth", "2", "--json"], ""),
        (vec!["perft", "run-unit", "--stats", &unit], ""),
        (vec!["perftree", "2", kiwipete], ""),
        (vec!["verify", "--random", "4", "--seed", "1"], ""),
        (vec!["shogi", "perft", "--depth", "2"], ""),
        (vec!["shogi", "perft", "--epd", shogi_suite, "--max-depth", "1"], ""),
        (vec!["shogi", "verify", "--random", "2", "--seed", "1"], ""),
        (vec!["go", "perft", "--size", "5", "--depth", "2"], ""),
        (vec!["go", "playouts", "--size", "9", "--playouts", "8", "--seed", "1"], ""),
        (vec!["go", "verify", "--random", "2", "--seed", "1", "--size", "9"], ""),
        (vec!["gtp", "--playouts", "8"], "boardsize 9\ngenmove b\nquit\n"),
    ];
    let cache = fresh_cache("commands");
    for (arguments, stdin) in commands {
        let needs_backend = !matches!(arguments[..], ["verify", ..] | ["shogi", "verify", ..] | ["go", "verify", ..]);
        let arguments = if needs_backend { [&arguments[..], &["--backend", "gpu"]].concat() } else { arguments };
        let output = run_on_faulty_driver(&arguments, stdin, &cache);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{arguments:?}: {}{stderr}", text(&output.stdout));
        let errors: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error: ")).collect();
        assert_eq!(errors.len(), 1, "{arguments:?}: {stderr}");
        assert!(errors[0].contains("self-test failed") && errors[0].contains("Mesa 22.3.6"), "{arguments:?}: {stderr}");
        // No count and no verdict reached stdout (GTP may have answered before the engine opened).
        let stdout = text(&output.stdout);
        assert!(
            !stdout.contains("Nodes searched") && !stdout.contains("passed") && !stdout.contains("nodes"),
            "{arguments:?}: {stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(units);
}

#[test]
fn auto_counts_on_the_cpu_and_says_why() {
    // Named in WGPU_ADAPTER_NAME, the software adapter is what `auto` would use.
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"));
    let output = command
        .args(["perft", "--depth", "4"])
        .env("VK_ICD_FILENAMES", faulty_icd())
        .env("GPU_MOVEGEN_CACHE_DIR", fresh_cache("auto"))
        .env("WGPU_ADAPTER_NAME", "llvmpipe")
        .output()
        .expect("the binary runs");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout).lines().last(), Some("Nodes searched: 197281"));
    assert!(stderr.contains("self-test failed") && stderr.contains("running on the CPU instead"), "{stderr}");
}

/// The library half runs in a child process of this test binary, which
/// opens its devices on the faulty driver from the start.
const CHILD: &str = "GPU_MOVEGEN_FAULTY_CHILD";

#[test]
fn the_library_returns_errors_instead_of_results() {
    if std::env::var_os(CHILD).is_none() {
        let output = Command::new(std::env::current_exe().expect("the test binary"))
            .args(["the_library_returns_errors_instead_of_results", "--exact", "--nocapture"])
            .env(CHILD, "1")
            .env("VK_ICD_FILENAMES", faulty_icd())
            .env("GPU_MOVEGEN_CACHE_DIR", fresh_cache("library"))
            .env("WGPU_BACKEND", "vulkan")
            .output()
            .expect("the test binary runs");
        assert!(output.status.success(), "{}{}", text(&output.stdout), text(&output.stderr));
        assert!(text(&output.stdout).contains("1 passed"), "{}", text(&output.stdout));
        return;
    }
    let context = GpuContext::new().expect("the faulty driver still opens a device");
    assert!(context.adapter_description().contains("Mesa 22.3.6"), "{}", context.adapter_description());
    let refused = |what: &str, result: Result<(), GpuError>| match result {
        Err(GpuError::SelfTestFailed { check, .. }) => assert!(check.starts_with("long loops"), "{what}: {check}"),
        other => panic!("{what}: expected a failed self-test, got {other:?}"),
    };
    use gpu_movegen::chess::gpu::embed::{self, EmbedOptions};
    refused("chess perft", gpu_movegen::chess::gpu::GpuPerft::new(&context).map(drop));
    refused("chess move generation", gpu_movegen::chess::gpu::MoveGenerator::new(&context).map(drop));
    refused("Shogi perft", gpu_movegen::shogi::gpu::ShogiGpuPerft::new(&context).map(drop));
    refused("Shogi move generation", gpu_movegen::shogi::gpu::ShogiMoveGenerator::new(&context).map(drop));
    refused("Go perft", gpu_movegen::go::gpu::GoGpuPerft::new(&context).map(drop));
    let go = gpu_movegen::go::Position::new(9).unwrap();
    let mut playouts = gpu_movegen::go::gpu::GpuPlayouts::new(&context);
    refused("Go playouts", playouts.playouts(&[go], 4, 1, 0).map(drop));
    refused("Go move bitmaps", gpu_movegen::go::gpu::GoMoveGenerator::new(&context).generate(&[go]).map(drop));
    let options = EmbedOptions::default();
    let composed =
        embed::compose("#import chess\n@compute @workgroup_size(1) fn main() {}\n", options).expect("composes");
    let layout = context.device.create_pipeline_layout(&Default::default());
    refused("the embedding API", composed.create_compute_pipeline(&context, &layout, "main", &[]).map(drop));
    // The verdict says so too.
    let verdicts = context.self_test(&[]);
    assert!(verdicts[0].outcome.is_err(), "{verdicts:?}");
}

/// The examples end as the command line does: exit code 3 on a refused
/// driver, the error on stderr, no figures.
#[test]
fn the_examples_exit_with_three_on_the_faulty_driver() {
    let mut folder = std::env::current_exe().expect("the test binary");
    folder.pop();
    if folder.ends_with("deps") {
        folder.pop();
    }
    let cache = fresh_cache("examples");
    for (name, arguments) in [
        ("gpu_search", &["--positions", "2", "--playouts", "4", "--depth", "1"][..]),
        ("throughput", &["perft", "--start-depths", "2", "--kiwipete-depths", "2", "--rounds", "1"][..]),
    ] {
        let path = folder.join("examples").join(name);
        assert!(path.exists(), "{} is missing: cargo test builds the examples", path.display());
        let output = Command::new(&path)
            .args(arguments)
            .env("VK_ICD_FILENAMES", faulty_icd())
            .env("GPU_MOVEGEN_CACHE_DIR", &cache)
            .env("WGPU_BACKEND", "vulkan")
            .output()
            .expect("the example runs");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{name}: {}{stderr}", text(&output.stdout));
        assert!(stderr.contains("self-test failed") && stderr.contains("Mesa 22.3.6"), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}
