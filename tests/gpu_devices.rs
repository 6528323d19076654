//! One count on several devices (`--devices`, `DevicePool`): two devices on
//! lavapipe's one adapter count start perft(7) and Kiwipete perft(5)
//! exactly, divide included, and the chess variants too; a device destroyed in the middle of a count
//! ends it with an error naming the device, never a number; and the option
//! refuses what it cannot do with exit code 2. (A device lost through the
//! fault points, under `--devices 2`: tests/gpu_faults.rs.)

mod common;

use std::time::Duration;

use gpu_movegen::Position;
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};
use gpu_movegen::gpu::perft::DevicePool;
use gpu_movegen::gpu::{GpuContext, GpuError};
use gpu_movegen::suite::KIWIPETE_FEN;

fn command(arguments: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gpu-movegen")).args(arguments).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn two_devices_count_start_perft_7_and_kiwipete_perft_5_exactly() {
    for (arguments, nodes) in [
        (vec!["perft", "--devices", "2", "--depth", "7", "--cross-check", "0"], "3195901860"),
        (vec!["perft", "--devices", "2", "--depth", "5", "--fen", KIWIPETE_FEN], "193690690"),
    ] {
        let output = command(&arguments);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{arguments:?}: {stderr}");
        assert!(text(&output.stdout).ends_with(&format!("Nodes searched: {nodes}\n")), "{}", text(&output.stdout));
        assert!(stderr.contains("on the 2 GPUs"), "{stderr}");
    }
    // Divide: every root move's count, each subtree on whichever device was free.
    let output = command(&["perft", "--devices", "2", "--depth", "4", "--fen", KIWIPETE_FEN, "--divide", "-q"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let position = Position::from_fen(KIWIPETE_FEN).unwrap();
    for (mv, count) in gpu_movegen::perft::divide(&position, 4, false) {
        assert!(stdout.contains(&format!("{}: {count}\n", mv.uci(false))), "{mv:?} {count}: {stdout}");
    }
    assert!(stdout.ends_with("Nodes searched: 4085603\n"), "{stdout}");
}

#[test]
fn two_devices_count_the_variants_exactly() {
    use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
    for (variant, depth) in [(Variant::Atomic, 4), (Variant::Crazyhouse, 3)] {
        let start = VariantPosition::start(variant);
        let name = variant.uci_name();
        let depth_text = depth.to_string();
        let output = command(&["perft", "--variant", name, "--devices", "2", "--depth", &depth_text]);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{name}: {stderr}");
        let nodes = variant::perft(&start, depth);
        assert!(text(&output.stdout).ends_with(&format!("Nodes searched: {nodes}\n")), "{}", text(&output.stdout));
        assert!(stderr.contains("on the 2 GPUs"), "{stderr}");
        // Divide: each root move's subtree counted on whichever device was free.
        let output = command(&["perft", "--variant", name, "--devices", "2", "--depth", &depth_text, "--divide", "-q"]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let stdout = text(&output.stdout);
        for (mv, count) in variant::divide(&start, depth, false) {
            assert!(stdout.contains(&format!("{}: {count}\n", mv.uci(false))), "{name} {mv:?} {count}: {stdout}");
        }
    }
}

#[test]
fn the_pool_spreads_subtrees_and_adds_them_exactly() {
    let contexts = GpuContext::open_devices(Some(2)).expect("two devices");
    assert_eq!(contexts.len(), 2);
    let engines: Vec<GpuPerft> = contexts
        .iter()
        .map(|context| GpuPerft::with_options(context, PerftOptions::default()).expect("an engine"))
        .collect();
    let mut pool = DevicePool::new(engines, vec!["first".to_owned(), "second".to_owned()]);
    let roots = [Position::start(), Position::from_fen(KIWIPETE_FEN).unwrap(), Position::start()];
    let reports = std::sync::Mutex::new(Vec::new());
    let counts = pool
        .perft_wide(&roots, 5, &|progress| reports.lock().unwrap().push(progress.clone()))
        .expect("a count on two devices");
    assert_eq!(counts, [4_865_609, 193_690_690, 4_865_609]);
    // Reports from the two devices' threads may arrive out of order; the
    // one made after the last subtree came back has every device's share.
    let reports = reports.into_inner().unwrap();
    let total = 4_865_609 * 2 + 193_690_690;
    let whole = reports
        .iter()
        .find(|report| report.subtrees_done == report.subtrees && report.nodes.iter().sum::<u64>() == total)
        .unwrap_or_else(|| panic!("no report of the whole count: {:?}", reports.last()));
    assert_eq!(whole.nodes.len(), 2);
    assert!(whole.nodes.iter().all(|&nodes| nodes > 0), "both devices counted: {whole:?}");
}

#[test]
fn a_device_destroyed_mid_count_ends_the_run_with_an_error_never_a_count() {
    let start = Position::start();
    let mut errors = 0;
    for delay in [Duration::from_millis(100), Duration::from_millis(500), Duration::from_millis(1500)] {
        let contexts = GpuContext::open_devices(Some(2)).expect("two devices");
        let engines: Vec<GpuPerft> = contexts
            .iter()
            .map(|context| GpuPerft::with_options(context, PerftOptions::default()).expect("an engine"))
            .collect();
        let mut pool = DevicePool::new(engines, vec!["first".to_owned(), "second".to_owned()]);
        // Built and self-tested first, so the loss falls in the count itself.
        assert_eq!(pool.perft_wide(std::slice::from_ref(&start), 3, &|_| {}).expect("a count"), [8_902]);
        let device = contexts[1].device.clone();
        let destroyer = std::thread::spawn(move || {
            std::thread::sleep(delay);
            device.destroy();
        });
        let outcome = pool.perft_wide(std::slice::from_ref(&start), 7, &|_| {});
        destroyer.join().unwrap();
        match outcome {
            Err(GpuError::OnDevice { device, source }) => {
                assert!(device.starts_with("GPU 2 of 2"), "{device}");
                assert!(source.is_device_failure(), "{source}");
                errors += 1;
            }
            Err(other) => panic!("the loss after {delay:?} was reported as another error: {other}"),
            Ok(counts) => assert_eq!(counts, [3_195_901_860], "after {delay:?}"),
        }
    }
    assert!(errors >= 1, "no destroy fell inside a count");
}

#[test]
fn devices_refuses_what_it_cannot_do_with_exit_code_2() {
    for arguments in [
        vec!["perft", "--devices", "0", "--depth", "3"],
        vec!["perft", "--devices", "many", "--depth", "3"],
        vec!["perft", "--devices", "65", "--depth", "3"],
        vec!["perft", "--devices", "2", "--backend", "cpu", "--depth", "3"],
        vec!["perft", "--devices", "2", "--stats", "--depth", "3"],
    ] {
        let output = command(&arguments);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(stderr.contains("--devices"), "{arguments:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{arguments:?}");
    }
}

/// The device's memory: lavapipe's Vulkan heap is reported through
/// wgpu-hal, and the allocation probe (what a driver that reports nothing
/// gets) finds what it was allowed to take and gives it back.
#[test]
fn device_memory_is_reported_and_probed() {
    use gpu_movegen::gpu::{MemorySource, device_memory};
    let context = common::gpu::context();
    let reported = context.device_memory().expect("lavapipe reports its heap");
    assert_eq!(reported.source, MemorySource::VulkanHeap);
    assert!(reported.bytes >= 1 << 30, "{reported}");
    let probed = gpu_movegen::gpu::block_on(device_memory::probe(&context.device, 512 << 20));
    assert_eq!((probed.bytes, probed.source), (512 << 20, MemorySource::Probed));
    // Everything the probe held was freed: a table of the same size fits after it.
    let mut engine =
        GpuPerft::with_options(&context, PerftOptions { table_bytes: Some(512 << 20), ..Default::default() })
            .expect("an engine after the probe");
    assert_eq!(engine.perft(&[Position::start()], 4, &mut |_| {}).unwrap(), [197_281]);
    context.check_health().expect("a healthy device");
}
