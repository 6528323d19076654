//! The size of the engine's transposition table in GPU memory (its layout
//! and rules are in the module documentation and perft_engine.wgsl).

use super::plan::{DeviceFacts, MemoryPlan};
use super::*;

/// What a count to `depth` would like for its table, in MiB: 16 MiB to
/// depth 5 and 64 MiB at depth 6, as the CPU's default; beyond, three times
/// more a ply on a software adapter (as the CPU) and four times on a GPU,
/// whose memory holds nothing else; 256 MiB for no particular depth.
fn wanted_mebibytes(depth: Option<u32>, software: bool) -> u64 {
    let growth: f64 = if software { 3.0 } else { 4.0 };
    match depth {
        None => 256,
        Some(0..=5) => 16,
        Some(depth) => (64.0 * growth.powi(depth as i32 - 6)).min(1e12) as u64,
    }
}

/// The most of `usable` bytes the table takes when the rest must hold the
/// arena: all but the arena's share, which is half of a small budget and at
/// most 4 GiB (2^25 positions of any game fit in 4 GiB with their companions).
fn table_share(usable: u64) -> u64 {
    usable - (usable / 2).min(4 << 30)
}

/// The table a run gets when none is asked for: what `depth` wants (see
/// `wanted_mebibytes`), within the device. Where the device's memory is
/// known ([`GpuContext::device_memory`]) that is most of it: nine tenths, or
/// `memory_limit`, less the arena's share; where it is not, half a storage
/// binding and 2 GiB, and a quarter of `memory_limit`. On a software
/// adapter, whose memory is the machine's, also at most an eighth of it, as
/// the CPU's default.
pub fn default_table_bytes(context: &GpuContext, memory_limit: Option<u64>, depth: Option<u32>) -> u64 {
    default_table_bytes_for(&DeviceFacts::of(context), memory_limit, depth)
}

/// The table of a count to `depth` and whether equal positions merge, as
/// every front end sizes it: `mebibytes` when the user gave a size (`--hash`,
/// `hash_mib`), 0 turning both off; else [`default_table_bytes`] for the
/// depth within `memory_limit` and the device's memory, which allocation
/// probes find first on a hardware device whose driver reports none.
#[cfg(not(target_arch = "wasm32"))]
pub fn requested_table(
    context: &GpuContext,
    mebibytes: Option<u64>,
    memory_limit: Option<u64>,
    depth: u32,
) -> Result<(u64, bool), GpuError> {
    match mebibytes {
        Some(mebibytes) => Ok((mebibytes << 20, mebibytes != 0)),
        None => {
            if !context.is_software() {
                context.find_device_memory()?;
            }
            Ok((default_table_bytes(context, memory_limit, Some(depth)), true))
        }
    }
}

/// [`default_table_bytes`] for a device described by `device`.
pub fn default_table_bytes_for(device: &DeviceFacts, memory_limit: Option<u64>, depth: Option<u32>) -> u64 {
    let mut bytes = wanted_mebibytes(depth, device.software) << 20;
    match device.memory {
        Some(memory) => {
            let usable = memory_limit.unwrap_or(memory.bytes / 10 * 9).min(memory.bytes);
            bytes = bytes.min(table_share(usable));
        }
        None => {
            let binding = device.limits.max_storage_buffer_binding_size.min(device.limits.max_buffer_size);
            bytes = bytes.min(binding / 2).min(2 << 30);
            if let Some(limit) = memory_limit {
                bytes = bytes.min(limit / 4);
            }
        }
    }
    if device.software
        && let Some(physical) = crate::machine::physical_mebibytes()
    {
        bytes = bytes.min((physical << 20) / 8);
    }
    bytes
}

/// What an engine of game `G` with `options` would allocate on a device
/// described by `device`, without a device: how a plan for a GPU this
/// machine does not have is checked.
pub fn plan_for<G: PerftGame>(
    device: &DeviceFacts,
    options: &PerftOptions<G::Build>,
) -> Result<MemoryReport, GpuError> {
    let data_bytes = G::table_words(options.build).len() as u64 * 4;
    let asked = options.table_bytes.unwrap_or_else(|| default_table_bytes_for(device, options.memory_limit, None));
    Ok(MemoryPlan::new::<G>(device, options, data_bytes, asked)?.report(device.memory))
}

/// What an engine of game `G` with `options` would allocate on `context`,
/// without allocating it: for `gpu-movegen info` and the notes a count
/// prints before it starts.
pub fn plan_report<G: PerftGame>(
    context: &GpuContext,
    options: &PerftOptions<G::Build>,
) -> Result<MemoryReport, GpuError> {
    plan_for::<G>(&DeviceFacts::of(context), options)
}
