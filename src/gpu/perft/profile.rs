//! GPU time per kernel: timestamps written around every dispatch of an
//! engine made with [`super::PerftOptions::profile_kernels`], on devices
//! with `TIMESTAMP_QUERY`. Each batch of dispatches resolves its timestamps
//! when it is submitted and waits for them, so a profiled count runs
//! slower than a plain one; what it measures is each kernel's own time on
//! the device, without the host's gaps between submissions.

use std::collections::BTreeMap;

use super::super::context::GpuContext;
use super::super::error::GpuError;
use super::super::resources::buffer;

/// The device time one kernel took over a count.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTime {
    /// The entry point.
    pub entry_point: String,
    /// Seconds on the device, summed over its dispatches.
    pub seconds: f64,
    /// Its dispatches.
    pub dispatches: u64,
    /// Its invocations, summed over its dispatches.
    pub invocations: u64,
}

/// Timestamps around each dispatch of a batch, and the totals so far.
pub(super) struct Profiler {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // read by `collect`, which a browser never calls
    period: f64,
    /// The batch's dispatches, in order: entry point and invocations.
    pending: Vec<(String, u32)>,
    totals: BTreeMap<String, (f64, u64, u64)>,
}

impl Profiler {
    /// A profiler for batches of at most `dispatches`, or `None` where the
    /// device has no timestamp queries.
    pub(super) fn new(context: &GpuContext, dispatches: u32) -> Option<Profiler> {
        let device = &context.device;
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let count = dispatches * 2;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("perft kernel timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        use wgpu::BufferUsages as Usage;
        let bytes = u64::from(count) * 8;
        let resolved = buffer(device, "perft kernel timestamps", bytes, Usage::QUERY_RESOLVE | Usage::COPY_SRC);
        let readback = buffer(device, "perft kernel timestamps read", bytes, Usage::MAP_READ | Usage::COPY_DST);
        let period = f64::from(context.queue.get_timestamp_period());
        Some(Profiler { queries, resolved, readback, period, pending: Vec::new(), totals: BTreeMap::new() })
    }

    /// The timestamp writes of the next dispatch, `entry_point` of `invocations`.
    pub(super) fn next(&mut self, entry_point: &str, invocations: u32) -> wgpu::ComputePassTimestampWrites<'_> {
        let index = self.pending.len() as u32 * 2;
        self.pending.push((entry_point.to_owned(), invocations));
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(index),
            end_of_pass_write_index: Some(index + 1),
        }
    }

    /// Resolves the batch's timestamps at the end of `encoder`.
    pub(super) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.pending.is_empty() {
            return;
        }
        let count = self.pending.len() as u32 * 2;
        encoder.resolve_query_set(&self.queries, 0..count, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, &self.readback, 0, u64::from(count) * 8);
    }

    /// Reads the submitted batch's timestamps and adds them to the totals.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // profiling is native only
    pub(super) async fn collect(&mut self, context: &GpuContext) -> Result<(), GpuError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let count = self.pending.len() as u64 * 2;
        let ticks: Vec<u64> = super::super::resources::read_mapped(context, &self.readback, count * 8).await?;
        for ((entry_point, invocations), pair) in self.pending.drain(..).zip(ticks.chunks_exact(2)) {
            let seconds = pair[1].saturating_sub(pair[0]) as f64 * self.period * 1e-9;
            let total = self.totals.entry(entry_point).or_default();
            total.0 += seconds;
            total.1 += 1;
            total.2 += u64::from(invocations);
        }
        Ok(())
    }

    /// The totals so far, the slowest kernel first.
    pub(super) fn times(&self) -> Vec<KernelTime> {
        let mut times: Vec<KernelTime> = self
            .totals
            .iter()
            .map(|(entry_point, &(seconds, dispatches, invocations))| KernelTime {
                entry_point: entry_point.clone(),
                seconds,
                dispatches,
                invocations,
            })
            .collect();
        times.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        times
    }
}
