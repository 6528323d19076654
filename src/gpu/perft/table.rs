//! The size of the engine's transposition table in GPU memory (its layout
//! and rules are in the module documentation and perft_engine.wgsl).

use super::*;

/// Bytes of one bucket: two entries of eight 32-bit words.
pub const TABLE_BUCKET_BYTES: u64 = 64;

/// The table a run gets when none is asked for: a quarter of `memory_limit`
/// if one is set, at most half of what one storage binding of the device
/// holds (the rest is the merge entries') and 2 GiB; on a software adapter,
/// whose memory is the machine's, also at most an eighth of physical memory
/// (as the CPU's default). `depth` caps it at what the count needs, as the
/// CPU's default is capped: 16 MiB to depth 5, 64 MiB at depth 6, three
/// times more a ply beyond; without a depth, at 256 MiB, so that an engine
/// made with default options for a small count does not take half of a
/// small GPU.
pub fn default_table_bytes(context: &GpuContext, memory_limit: Option<u64>, depth: Option<u32>) -> u64 {
    let limits = context.device.limits();
    let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    let mut bytes = (binding / 2).min(2 << 30);
    if let Some(limit) = memory_limit {
        bytes = bytes.min(limit / 4);
    }
    if context.is_software()
        && let Some(physical) = crate::machine::physical_mebibytes()
    {
        bytes = bytes.min((physical << 20) / 8);
    }
    let needed: u64 = match depth {
        None => 256,
        Some(0..=5) => 16,
        Some(depth) => (64.0 * 3f64.powi(depth as i32 - 6)).min(1e12) as u64,
    };
    bytes = bytes.min(needed << 20);
    table_buckets(bytes) * TABLE_BUCKET_BYTES
}

/// Buckets of a table of at most `bytes` bytes.
pub(super) fn table_buckets(bytes: u64) -> u64 {
    bytes / TABLE_BUCKET_BYTES
}
