//! Small helpers the GPU drivers share: binding layouts, pipelines, the
//! workgroup grid, and reading a buffer back.

use bytemuck::Pod;

use super::context::{GpuContext, GpuError};

pub(crate) fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
}

pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A two-dimensional grid of at least `workgroups` workgroups that respects
/// the per-dimension limit; the kernels skip the spare ones.
pub(crate) fn grid(workgroups: u32, max_per_dimension: u32) -> (u32, u32) {
    let workgroups = workgroups.max(1);
    let x = workgroups.min(max_per_dimension.max(1));
    (x, workgroups.div_ceil(x))
}

/// Maps the first `size` bytes of a MAP_READ buffer, copies them out and unmaps.
pub(crate) fn read_mapped<T: Pod>(context: &GpuContext, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<T>, GpuError> {
    let slice = buffer.slice(0..size);
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    context.wait()?;
    match pollster::block_on(receiver.receive()) {
        Some(Ok(())) => {}
        Some(Err(error)) => return Err(GpuError::Readback(error.to_string())),
        None => return Err(GpuError::Readback("the map callback never ran".to_owned())),
    }
    let values = {
        let view = slice.get_mapped_range().map_err(|error| GpuError::Readback(error.to_string()))?;
        bytemuck::pod_collect_to_vec(&view)
    };
    buffer.unmap();
    Ok(values)
}
