//! The GPU perft engine's memory plan on devices this machine does not
//! have: an H200's limits and memory (the plan must take most of it), WebGPU's
//! eight storage bindings (the table beside the merge entries), bindings of
//! 1 MiB (the table and the arena over many), and refusals by name. No GPU
//! is needed: the plan is arithmetic on the device's limits.

use gpu_movegen::chess::gpu::{Chess, PerftOptions};
use gpu_movegen::gpu::perft::{DeviceFacts, default_table_bytes_for, plan_for};
use gpu_movegen::gpu::{DeviceMemory, MemorySource};

/// An H200 as wgpu describes it on Vulkan: 141 GB in its device-local
/// heap, bindings of i32::MAX bytes (wgpu's cap), buffers as large as
/// memory, and NVIDIA's unbounded storage bindings per stage.
fn h200() -> DeviceFacts {
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: i32::MAX as u64,
        max_buffer_size: 1 << 52,
        max_storage_buffers_per_shader_stage: 1 << 20,
        max_binding_array_elements_per_shader_stage: 1 << 20,
        ..wgpu::Limits::default()
    };
    DeviceFacts {
        limits,
        memory: Some(DeviceMemory { bytes: 141_000_000_000, source: MemorySource::VulkanHeap }),
        software: false,
        binding_arrays: true,
    }
}

#[test]
fn a_deep_count_on_an_h200_plans_most_of_its_memory() {
    let device = h200();
    let table = default_table_bytes_for(&device, None, Some(13));
    let options = PerftOptions { table_bytes: Some(table), ..Default::default() };
    let report = plan_for::<Chess>(&device, &options).expect("a plan");
    let planned = report.table_bytes + report.arena_positions * 40;
    assert!(planned >= 100_000_000_000, "{report}");
    assert!(report.total_bytes <= 141_000_000_000, "{report}");
    // Every table binding within one binding's limit, and many of them, as one binding array.
    assert!(report.table_bindings >= 50 && report.table_array, "{report}");
    assert!(report.table_bytes / u64::from(report.table_bindings) <= i32::MAX as u64);
}

#[test]
fn a_shallow_count_takes_what_its_depth_wants() {
    let device = h200();
    assert_eq!(default_table_bytes_for(&device, None, Some(5)), 16 << 20);
    assert_eq!(default_table_bytes_for(&device, None, Some(8)), 1 << 30);
    // --gpu-memory caps it, with room kept for the arena.
    assert_eq!(default_table_bytes_for(&device, Some(2 << 30), Some(13)), 1 << 30);
}

#[test]
fn webgpus_eight_bindings_keep_the_table_beside_the_merge_entries() {
    let mut device = h200();
    device.binding_arrays = false;
    device.limits.max_storage_buffers_per_shader_stage = 8;
    device.limits.max_storage_buffer_binding_size = 128 << 20;
    let options = PerftOptions { table_bytes: Some(64 << 20), ..Default::default() };
    let report = plan_for::<Chess>(&device, &options).expect("a plan");
    assert_eq!((report.table_bindings, report.arena_bindings), (0, 1), "{report}");
    let too_large = PerftOptions { table_bytes: Some(256 << 20), ..Default::default() };
    let error = plan_for::<Chess>(&device, &too_large).expect_err("no room");
    assert!(error.to_string().contains("--hash"), "{error}");
}

#[test]
fn tiny_bindings_spread_the_table_and_the_arena_over_many() {
    let mut device = h200();
    device.binding_arrays = false;
    device.limits.max_storage_buffers_per_shader_stage = 48;
    let options = PerftOptions { table_bytes: Some(8 << 20), binding_bytes: Some(1 << 20), ..Default::default() };
    let report = plan_for::<Chess>(&device, &options).expect("a plan");
    assert_eq!(report.table_bindings, 8, "{report}");
    assert!(report.arena_bindings >= 2, "{report}");
    let too_many = PerftOptions { table_bytes: Some(64 << 20), ..options };
    let error = plan_for::<Chess>(&device, &too_many).expect_err("more bindings than the device offers");
    assert!(error.to_string().contains("storage bindings"), "{error}");
}
