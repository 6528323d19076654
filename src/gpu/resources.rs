//! Buffers and what every driver does with them: make them, dispatch a
//! kernel over a batch on a grid that respects the device's limits, and read
//! results back. [`Staging`] and [`read_buffer`] are the one readback path
//! of the crate, its tests and its examples.

use bytemuck::Pod;

use super::context::GpuContext;
use super::error::GpuError;

/// A layout entry for a storage buffer seen by compute shaders.
pub fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::BufferBindingType::Storage { read_only })
}

/// A layout entry for a uniform buffer seen by compute shaders.
pub fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(binding, wgpu::BufferBindingType::Uniform)
}

fn buffer_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

/// An uninitialised buffer.
pub fn buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    super::faults::allocation(label);
    device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
}

/// A buffer holding `contents`. Written through a mapping made at creation,
/// as wgpu's `create_buffer_init` does, except that a device lost before the
/// mapping leaves the buffer unwritten instead of panicking: the loss is then
/// reported by the next wait or health check, before any result is read.
pub fn buffer_with<T: Pod>(
    device: &wgpu::Device,
    label: &str,
    contents: &[T],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    super::faults::allocation(label);
    let bytes: &[u8] = bytemuck::cast_slice(contents);
    if bytes.is_empty() {
        return device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 0,
            usage,
            mapped_at_creation: false,
        });
    }
    // Vulkan wants sizes that are multiples of 4, and above 0.
    let size = (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
    let buffer =
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: true });
    if let Ok(mut view) = buffer.get_mapped_range_mut(..) {
        view.slice(..bytes.len()).copy_from_slice(bytes);
    }
    buffer.unmap();
    buffer
}

/// A bind group of `(binding, buffer)` pairs, each buffer bound whole.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

/// A compute pipeline of `entry_point` in `module`, with wgpu's default
/// compilation options, built through the driver's pipeline `cache` if given.
pub fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    cache: Option<&wgpu::PipelineCache>,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache,
    })
}

/// A two-dimensional grid of at least `workgroups` workgroups that respects
/// the per-dimension limit; the kernels skip the spare ones.
pub fn grid(workgroups: u32, max_per_dimension: u32) -> (u32, u32) {
    let workgroups = workgroups.max(1);
    let x = workgroups.min(max_per_dimension.max(1));
    (x, workgroups.div_ceil(x))
}

/// Records one dispatch of `invocations` invocations, `workgroup_size` to a
/// workgroup, on a grid within the device's per-dimension limit. Kernels
/// find their index as `(workgroup.y * groups.x + workgroup.x) * size + local`.
/// `dynamic_offsets` are the bind group's dynamic offsets, if it has any.
pub fn record_dispatch(
    encoder: &mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    dynamic_offsets: &[u32],
    invocations: u32,
    workgroup_size: u32,
    max_per_dimension: u32,
) {
    let (x, y) = grid(invocations.div_ceil(workgroup_size), max_per_dimension);
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, dynamic_offsets);
    pass.dispatch_workgroups(x, y, 1);
}

/// [`record_dispatch`] with a second bind group (group 1) beside group 0,
/// and timestamps written at the pass's start and end where given.
#[allow(clippy::too_many_arguments)]
pub fn record_dispatch_with(
    encoder: &mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    dynamic_offsets: &[u32],
    second: Option<&wgpu::BindGroup>,
    timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    invocations: u32,
    workgroup_size: u32,
    max_per_dimension: u32,
) {
    let (x, y) = grid(invocations.div_ceil(workgroup_size), max_per_dimension);
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, dynamic_offsets);
    if let Some(second) = second {
        pass.set_bind_group(1, second, &[]);
    }
    pass.dispatch_workgroups(x, y, 1);
}

/// Maps the first `size` bytes of a MAP_READ buffer, copies them out and unmaps.
pub async fn read_mapped<T: Pod>(context: &GpuContext, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<T>, GpuError> {
    if super::faults::fires("gpu-map-read") {
        let error = GpuError::Readback("mapping the staging buffer failed (injected: gpu-map-read)".to_owned());
        return Err(context.note_failure(error));
    }
    let slice = buffer.slice(0..size);
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    context.wait_async().await?;
    match receiver.receive().await {
        Some(Ok(())) => {}
        Some(Err(error)) => return Err(context.note_failure(GpuError::Readback(error.to_string()))),
        None => return Err(context.note_failure(GpuError::Readback("the map callback never ran".to_owned()))),
    }
    let values = {
        let view =
            slice.get_mapped_range().map_err(|error| context.note_failure(GpuError::Readback(error.to_string())))?;
        bytemuck::pod_collect_to_vec(&view)
    };
    buffer.unmap();
    Ok(values)
}

/// A reusable staging buffer: reads any range of a COPY_SRC buffer back in
/// pieces of its own size, so readbacks never allocate more GPU memory.
pub struct Staging {
    buffer: wgpu::Buffer,
    bytes: u64,
}

impl Staging {
    /// A staging buffer of `bytes` bytes (a multiple of 4).
    pub fn new(device: &wgpu::Device, bytes: u64) -> Staging {
        let bytes = bytes.max(4).next_multiple_of(4);
        Staging {
            buffer: buffer(device, "staging", bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
            bytes,
        }
    }

    /// Bytes this staging buffer holds.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Reads `size` bytes of `source` from byte `offset` on (both multiples of 4).
    pub async fn read<T: Pod>(
        &self,
        context: &GpuContext,
        source: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Vec<T>, GpuError> {
        self.read_ranges(context, &[(source, offset, size)]).await
    }

    /// Reads several ranges, back to back, in as few round trips as the
    /// staging buffer allows; the values come out in the order given.
    pub async fn read_ranges<T: Pod>(
        &self,
        context: &GpuContext,
        ranges: &[(&wgpu::Buffer, u64, u64)],
    ) -> Result<Vec<T>, GpuError> {
        let mut bytes: Vec<u8> = Vec::with_capacity(ranges.iter().map(|range| range.2 as usize).sum());
        let mut pending = ranges.iter().map(|&(source, offset, size)| (source, offset, size)).collect::<Vec<_>>();
        pending.reverse();
        while !pending.is_empty() {
            let mut encoder = context.device.create_command_encoder(&Default::default());
            let mut filled = 0;
            while let Some((source, offset, size)) = pending.pop() {
                let piece = size.min(self.bytes - filled);
                encoder.copy_buffer_to_buffer(source, offset, &self.buffer, filled, piece);
                filled += piece;
                if piece < size {
                    pending.push((source, offset + piece, size - piece));
                }
                if filled == self.bytes {
                    break;
                }
            }
            context.submit([encoder.finish()]);
            bytes.extend(read_mapped::<u8>(context, &self.buffer, filled).await?);
        }
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

/// Reads `size` bytes of `source` from byte `offset` on through a staging
/// buffer of its own: for one-off reads (tests, examples).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_buffer<T: Pod>(
    context: &GpuContext,
    source: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<T>, GpuError> {
    super::runtime::block_on(read_buffer_async(context, source, offset, size))
}

/// [`read_buffer`], awaited.
pub async fn read_buffer_async<T: Pod>(
    context: &GpuContext,
    source: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<T>, GpuError> {
    Staging::new(&context.device, size).read(context, source, offset, size).await
}
