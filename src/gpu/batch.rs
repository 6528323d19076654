//! One batch of a per-position kernel, the shape every game's batch kernels
//! share (shaders/common/batch_io.wgsl): the bindings 0 (the game's
//! read-only tables, if any), 1 (the positions), 2 (one output record per
//! invocation), 3 (fault flags) and 4 ([`BatchParameters`]); the entry points
//! dispatched in order in one submission; the records and the flags read
//! back in one round trip, a nonzero flag an error before any record is used.
//!
//! Go's legal bitmaps and playouts and Shogi's move sets run on it. Chess's
//! move generator keeps its own driver: it reuses buffers sized to a memory
//! limit across batches and times each stage with GPU timestamps, which the
//! throughput example reports.

use bytemuck::{Pod, Zeroable};

use super::reflect::Kernels;
use super::resources::{Staging, bind_group, buffer, buffer_with, record_dispatch};
use super::{GpuContext, GpuError};

/// `BatchParameters` in shaders/common/batch_io.wgsl, the uniform of every
/// game's batch kernels: the batch size, and the random streams of Go's
/// playouts.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct BatchParameters {
    /// Invocations that do work: positions, or playouts in a playout batch.
    pub count: u32,
    /// Playouts per position (Go's playouts; 1 elsewhere).
    pub per_position: u32,
    /// The seed of every random stream (Go's playouts; 0 elsewhere).
    pub seed: u32,
    /// The stream of the batch's first playout; the next ones follow.
    pub first_stream: u32,
}

const _: () = assert!(size_of::<BatchParameters>() == 16);

impl BatchParameters {
    /// A batch of `count` positions, one invocation each.
    pub fn positions(count: u32) -> BatchParameters {
        BatchParameters { count, per_position: 1, seed: 0, first_stream: 0 }
    }
}

/// What one batch dispatches.
pub struct Batch<'a, Position: Pod> {
    /// Names the buffers and bind group, for wgpu's messages.
    pub label: &'a str,
    /// The kernels dispatched.
    pub kernels: &'a Kernels,
    /// Dispatched in this order, each over `parameters.count` invocations.
    pub entry_points: &'a [&'a str],
    /// Binding 0, when the kernels read tables.
    pub tables: Option<&'a wgpu::Buffer>,
    /// Binding 1.
    pub positions: &'a [Position],
    /// Binding 4; its `count` is the invocations of each dispatch and the
    /// records read back.
    pub parameters: BatchParameters,
}

/// Runs `batch` and returns its `parameters.count` records, or the fault flags
/// as an error (`describe` turns them into the message).
pub async fn run<Record: Pod, Position: Pod>(
    context: &GpuContext,
    batch: &Batch<'_, Position>,
    describe: impl Fn(u32) -> String,
) -> Result<Vec<Record>, GpuError> {
    context
        .scoped_future(async {
            use wgpu::BufferUsages as Usage;
            let device = &context.device;
            let output_size = (batch.parameters.count as usize * size_of::<Record>()).max(4) as u64;
            let positions = buffer_with(device, batch.label, batch.positions, Usage::STORAGE);
            let output = buffer(device, batch.label, output_size, Usage::STORAGE | Usage::COPY_SRC);
            let status = buffer_with(device, batch.label, &[0u32], Usage::STORAGE | Usage::COPY_SRC);
            let uniform = buffer_with(device, batch.label, &[batch.parameters], Usage::UNIFORM);
            let mut bindings = vec![(1, &positions), (2, &output), (3, &status), (4, &uniform)];
            if let Some(tables) = batch.tables {
                bindings.push((0, tables));
            }
            let group = bind_group(device, batch.label, &batch.kernels.layout, &bindings);
            let mut encoder = device.create_command_encoder(&Default::default());
            for entry_point in batch.entry_points {
                record_dispatch(
                    &mut encoder,
                    batch.kernels.pipeline(entry_point),
                    &group,
                    &[],
                    batch.parameters.count,
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
            let record_words = batch.parameters.count as usize * size_of::<Record>() / 4;
            Ok(bytemuck::pod_collect_to_vec(&words[..record_words]))
        })
        .await?
}
