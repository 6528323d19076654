//! GPU test helpers. Every GPU test needs an adapter: without one the test
//! fails with the reason (CI installs Mesa's software Vulkan driver).
#![allow(dead_code)]

use gpu_movegen::gpu::{GpuContext, ShaderVariant, shaders};
use wgpu::util::DeviceExt as _;

pub fn context() -> GpuContext {
    match GpuContext::new() {
        Ok(context) => context,
        Err(error) => panic!("GPU tests need a GPU adapter and none could be opened: {error}"),
    }
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
    run_test_kernel_variant(
        context,
        ShaderVariant::default(),
        module_source,
        entry_point,
        input,
        output_words,
        invocations,
    )
}

/// [`run_test_kernel`] with the crate's modules built in `variant`.
pub fn run_test_kernel_variant(
    context: &GpuContext,
    variant: ShaderVariant,
    module_source: &str,
    entry_point: &str,
    input: &[u32],
    output_words: usize,
    invocations: u32,
) -> Vec<u32> {
    let source = shaders::compose_variant("test_module", variant, &[("test_module", module_source)])
        .expect("test module composes");
    let device = &context.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("test module"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    // An explicit layout, so bindings the kernel does not touch are still accepted.
    let entry = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("test kernel"),
        entries: &[entry(0, true), entry(1, true), entry(2, false)],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("test kernel"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    });
    let tables = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("tables"),
        contents: bytemuck::cast_slice(&shaders::attack_table_data()),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let input_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("input"),
        contents: bytemuck::cast_slice(input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = (output_words * 4) as u64;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("output"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("staging"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: tables.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: input_buffer.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: output.as_entire_binding() },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(invocations.div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &staging, 0, size);
    context.queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |result| result.expect("map"));
    context.wait().expect("GPU work finishes");
    let words = bytemuck::cast_slice(&slice.get_mapped_range().expect("mapped")).to_vec();
    staging.unmap();
    context.check_health().expect("no GPU errors");
    words
}

/// Every shader variant this adapter can run: each slider algorithm on u32
/// pairs, and on native u64 where the adapter has SHADER_INT64 (in CI,
/// lavapipe has it, so every variant runs).
pub fn variants(context: &GpuContext) -> Vec<ShaderVariant> {
    let native = context.device.features().contains(wgpu::Features::SHADER_INT64);
    let mut variants = Vec::new();
    for slider in gpu_movegen::sliders::SliderAlgorithm::ALL {
        variants.push(ShaderVariant { slider, native_u64: false });
        if native {
            variants.push(ShaderVariant { slider, native_u64: true });
        }
    }
    variants
}
