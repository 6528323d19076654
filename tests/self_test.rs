//! The GPU self-test on a correct driver: every check of every game passes,
//! a check that finds a difference (or panics) refuses the device with its
//! name, and each verdict is found once and then kept.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::gpu::context;
use gpu_movegen::gpu::{Check, GpuError};

/// A check name no earlier run has cached.
fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name} (test run {} {nanos})", std::process::id())
}

#[test]
fn every_game_passes_on_this_driver() {
    let context = context();
    let variant = gpu_movegen::chess::gpu::ShaderBuild::default();
    let checks = [
        gpu_movegen::chess::gpu::self_test::perft_check(variant),
        gpu_movegen::chess::gpu::self_test::library_check(variant),
        gpu_movegen::shogi::gpu::self_test::perft_check(Default::default(), true),
        gpu_movegen::shogi::gpu::self_test::perft_check(Default::default(), false),
        gpu_movegen::go::gpu::self_test::perft_check(gpu_movegen::go::gpu::BoardSize(5)),
        gpu_movegen::go::gpu::self_test::playout_check(5),
    ];
    let verdicts = context.self_test(&checks);
    assert_eq!(verdicts.len(), checks.len() + 1, "the device checks come first: {verdicts:?}");
    assert!(verdicts.iter().all(|verdict| verdict.outcome.is_ok()), "{verdicts:?}");
    context.require(&checks).expect("a correct driver passes");
}

#[test]
fn a_failing_check_refuses_the_device_by_name_and_runs_once() {
    let context = context();
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let name = unique("always differs");
    let check = Check::new(name.clone(), move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async { Err("lane 3 gave 7 for 8".to_owned()) }
    });
    for _ in 0..3 {
        match context.require(std::slice::from_ref(&check)) {
            Err(error @ GpuError::SelfTestFailed { .. }) => {
                let message = error.to_string();
                assert!(message.contains(&name) && message.contains("lane 3 gave 7 for 8"), "{message}");
                assert!(message.contains(&context.adapter_description()), "{message}");
                assert!(!message.contains('\n'), "one line: {message}");
            }
            other => panic!("expected a failed self-test, got {other:?}"),
        }
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the verdict is kept after the first run");
    // Another context of the same adapter knows the verdict too.
    assert!(common::gpu::context().require(&[check]).is_err());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_check_that_panics_fails_instead_of_ending_the_process() {
    let context = context();
    let check =
        Check::new(unique("panics"), |_| -> std::future::Ready<Result<(), String>> { panic!("a bug in a check") });
    let verdicts = context.self_test(&[check]);
    let last = verdicts.last().expect("verdicts");
    assert!(last.outcome.as_ref().is_err_and(|detail| detail.contains("a bug in a check")), "{verdicts:?}");
}

#[test]
fn verdicts_are_written_to_the_cache_directory() {
    let context = context();
    let name = unique("passes");
    context.require(&[Check::new(name.clone(), |_| async { Ok(()) })]).expect("passes");
    let folder = gpu_movegen::gpu::self_test::cache_directory().expect("a cache directory").join("self-test");
    let found = std::fs::read_dir(&folder)
        .expect("the verdict folder exists")
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .any(|text| {
            let mut lines = text.lines();
            lines.next().is_some_and(|key| key.ends_with(&name))
                && lines.next() == Some("passed")
                && lines.next().is_some_and(|written| written.starts_with("written "))
        });
    assert!(found, "no verdict for {name} in {}", folder.display());
}
