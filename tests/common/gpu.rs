//! GPU test helpers. Every GPU test needs an adapter: without one the test
//! fails with the reason (CI installs Mesa's software Vulkan driver).
#![allow(dead_code)]

use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::chess::gpu::{ShaderBuild, shaders};
use gpu_movegen::chess::tables::pawn_attacks;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::reflect::reflect;
use gpu_movegen::gpu::resources::{bind_group, buffer, buffer_with, record_dispatch};
use gpu_movegen::{Move, Piece, Position};

pub fn context() -> GpuContext {
    match GpuContext::new() {
        Ok(context) => context,
        Err(error) => panic!("GPU tests need a GPU adapter and none could be opened: {error}"),
    }
}

/// The child the GPU's `position_make_move` writes for `mv`: the CPU's
/// child, its en passant square kept only where a pawn of the side to move
/// attacks it (the GPU leaves it out otherwise, so that transpositions are
/// equal records).
pub fn gpu_child(position: &Position, mv: Move) -> PackedPosition {
    let child = position.make_move(mv);
    let mut packed = PackedPosition::from(&child);
    if let Some(square) = child.en_passant() {
        let us = child.side_to_move();
        if (pawn_attacks(!us, square) & child.pieces_of(us, Piece::Pawn)).is_empty() {
            packed.state = packed.state & !(0xff << 8) | 64 << 8;
        }
    }
    packed
}

/// Runs `entry_point` of a test module (composed with the crate's modules)
/// over `invocations` invocations of a 64-wide workgroup grid. Bindings:
/// 0 the attack tables, 1 `input` (array<u32>, read), 2 `output` (array<u32>, read-write).
pub fn run_test_kernel(
    context: &GpuContext,
    module_source: &str,
    entry_point: &str,
    input: &[u32],
    output_words: usize,
    invocations: u32,
) -> Vec<u32> {
    run_test_kernel_build(context, ShaderBuild::default(), module_source, entry_point, input, output_words, invocations)
}

/// [`run_test_kernel`] with the crate's modules built in `build`.
pub fn run_test_kernel_build(
    context: &GpuContext,
    build: ShaderBuild,
    module_source: &str,
    entry_point: &str,
    input: &[u32],
    output_words: usize,
    invocations: u32,
) -> Vec<u32> {
    let source =
        shaders::compose_build("test_module", build, &[("test_module", module_source)]).expect("test module composes");
    let device = &context.device;
    let reflected = reflect(source).expect("test module parses");
    let kernels = reflected.kernels(device, "test kernel");
    let tables = buffer_with(device, "tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
    let input_buffer = buffer_with(device, "input", input, wgpu::BufferUsages::STORAGE);
    let size = (output_words * 4) as u64;
    let output = buffer(device, "output", size, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
    // Bind what the module declares: a kernel that imports no tables has no binding 0.
    let buffers: Vec<(u32, &wgpu::Buffer)> = [(0, &tables), (1, &input_buffer), (2, &output)]
        .into_iter()
        .filter(|(binding, _)| reflected.bindings.iter().any(|declared| declared.binding == *binding))
        .collect();
    let bind_group = bind_group(device, "test kernel", &kernels.layout, &buffers);
    let mut encoder = device.create_command_encoder(&Default::default());
    record_dispatch(&mut encoder, kernels.pipeline(entry_point), &bind_group, &[], invocations, 64, 65_535);
    context.queue.submit([encoder.finish()]);
    let words = gpu_movegen::gpu::resources::read_buffer(context, &output, 0, size).expect("readback");
    context.check_health().expect("no GPU errors");
    words
}

/// Every shader build this adapter can run: each slider algorithm on u32
/// pairs, and on native u64 where the adapter has SHADER_INT64 (in CI,
/// lavapipe has it, so every build runs).
pub fn builds(context: &GpuContext) -> Vec<ShaderBuild> {
    let native = context.device.features().contains(wgpu::Features::SHADER_INT64);
    let mut builds = Vec::new();
    for slider in gpu_movegen::sliders::SliderAlgorithm::ALL {
        builds.push(ShaderBuild { slider, native_u64: false });
        if native {
            builds.push(ShaderBuild { slider, native_u64: true });
        }
    }
    builds
}
