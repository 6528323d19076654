//! One batch of a per-position kernel, the shape every game's batch kernels
//! share: the bindings 0 (the game's read-only tables, if any), 1 (the
//! positions), 2 (one output record per invocation), 3 (fault flags, if the
//! kernel has them) and 4 (the batch's uniform parameters); the entry points
//! dispatched in order in one submission; the records and the flags read
//! back in one round trip, a nonzero flag an error before any record is used.
//!
//! Go's legal bitmaps and playouts and Shogi's move sets run on it. Chess's
//! move generator keeps its own driver: it reuses buffers sized to a memory
//! limit across batches and times each stage with GPU timestamps, which the
//! throughput example reports.

use bytemuck::Pod;

use super::reflect::Kernels;
use super::resources::{Staging, bind_group, buffer, buffer_with, record_dispatch};
use super::{GpuContext, GpuError};

/// What one batch dispatches.
pub struct Batch<'a, Position: Pod, Parameters: Pod> {
    /// Names the buffers and bind group, for wgpu's messages.
    pub label: &'a str,
    /// The kernels dispatched.
    pub kernels: &'a Kernels,
    /// Dispatched in this order, each over `invocations` invocations.
    pub entry_points: &'a [&'a str],
    /// Invocations of each dispatch: one a position.
    pub invocations: u32,
    /// Binding 0, when the kernels read tables.
    pub tables: Option<&'a wgpu::Buffer>,
    /// Binding 1.
    pub positions: &'a [Position],
    /// Binding 4.
    pub parameters: Parameters,
    /// Whether the kernels write fault flags to binding 3.
    pub status: bool,
}

/// Runs `batch` and returns its `invocations` records, or the fault flags
/// as an error (`describe` turns them into the message).
pub async fn run<Record: Pod, Position: Pod, Parameters: Pod>(
    context: &GpuContext,
    batch: &Batch<'_, Position, Parameters>,
    describe: impl Fn(u32) -> String,
) -> Result<Vec<Record>, GpuError> {
    context
        .scoped_future(async {
            use wgpu::BufferUsages as Usage;
            let device = &context.device;
            let output_size = (batch.invocations as usize * size_of::<Record>()).max(4) as u64;
            let positions = buffer_with(device, batch.label, batch.positions, Usage::STORAGE);
            let output = buffer(device, batch.label, output_size, Usage::STORAGE | Usage::COPY_SRC);
            let status = buffer_with(device, batch.label, &[0u32], Usage::STORAGE | Usage::COPY_SRC);
            let uniform = buffer_with(device, batch.label, &[batch.parameters], Usage::UNIFORM);
            let mut bindings = vec![(1, &positions), (2, &output), (4, &uniform)];
            if let Some(tables) = batch.tables {
                bindings.push((0, tables));
            }
            if batch.status {
                bindings.push((3, &status));
            }
            let group = bind_group(device, batch.label, &batch.kernels.layout, &bindings);
            let mut encoder = device.create_command_encoder(&Default::default());
            for entry_point in batch.entry_points {
                record_dispatch(
                    &mut encoder,
                    batch.kernels.pipeline(entry_point),
                    &group,
                    &[],
                    batch.invocations,
                    batch.kernels.workgroup_size(entry_point),
                    device.limits().max_compute_workgroups_per_dimension,
                );
            }
            context.submit([encoder.finish()]);
            let words: Vec<u32> = Staging::new(device, output_size + 4)
                .read_ranges(context, &[(&output, 0, output_size), (&status, 0, 4)])
                .await?;
            let flags = words[words.len() - 1];
            if flags != 0 {
                return Err(GpuError::ShaderFault(describe(flags)));
            }
            let record_words = batch.invocations as usize * size_of::<Record>() / 4;
            Ok(bytemuck::pod_collect_to_vec(&words[..record_words]))
        })
        .await?
}
