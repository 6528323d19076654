//! The engine's memory plan: how many arena slots, root totals and staging
//! bytes the device's limits and the options allow, how the arena and the
//! transposition table spread over storage bindings (see [`super::memory`]),
//! and the positions to keep free below a level so that its children always fit.

use super::memory::{DEEP_BUCKET_BYTES, SHALLOW_BUCKET_BYTES, shard_buckets};
use super::memory::{FIXED_STORAGE_BINDINGS, MemoryLayout};
use super::*;
use crate::gpu::DeviceMemory;
use crate::gpu::device_memory::MemorySource;

/// Positions to keep free below a level with `remaining` plies to count,
/// when no position has more than `bound` children and the last
/// `leaf_plies` plies are counted without being stored.
pub(super) fn reserve(remaining: u32, bound: u32, leaf_plies: u32) -> u64 {
    u64::from(remaining.saturating_sub(leaf_plies)) * u64::from(bound)
}

/// What a plan needs to know of the device.
#[derive(Debug, Clone)]
pub struct DeviceFacts {
    /// The device's limits.
    pub limits: wgpu::Limits,
    /// Its memory, where known.
    pub memory: Option<DeviceMemory>,
    /// Whether it is a software adapter (whose memory is the machine's).
    pub software: bool,
    /// Whether it indexes binding arrays of storage buffers per invocation
    /// ([`crate::gpu::context::BINDING_ARRAYS`]).
    pub binding_arrays: bool,
}

impl DeviceFacts {
    /// What `context` says of its device.
    pub fn of(context: &GpuContext) -> DeviceFacts {
        DeviceFacts {
            limits: context.device.limits(),
            memory: context.device_memory(),
            software: context.is_software(),
            binding_arrays: context.device.features().contains(crate::gpu::context::BINDING_ARRAYS)
                && context.device.limits().max_binding_array_elements_per_shader_stage >= 2,
        }
    }
}

/// How the engine's memory is laid out, from the options and the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MemoryPlan {
    pub(super) capacity: u32,
    pub(super) totals_capacity: u32,
    pub(super) staging_bytes: u64,
    /// Bytes of the game's read-only data (binding 0).
    pub(super) data_bytes: u64,
    pub(super) record_bytes: u64,
    pub(super) merge: bool,
    /// Where the arena and the table live.
    pub(super) layout: MemoryLayout,
    /// Buckets of compact entries in each table shard; 0 without a table.
    pub(super) shallow_buckets: u32,
    /// Buckets of wide entries in each table shard; 0 without a table.
    pub(super) deep_buckets: u32,
    /// The most bytes one binding holds.
    pub(super) binding: u64,
}

/// Largest power of two at most `value` (`value` at least 1).
fn power_of_two_below(value: u64) -> u64 {
    1 << (63 - value.max(1).leading_zeros())
}

impl MemoryPlan {
    /// Bytes per arena slot: the record, its root tag, its scan word, a
    /// share of the scan's block sums (rounded up), at most one root total,
    /// its multiplicity (or subtree count), its state with tables and (when
    /// merging) up to four bytes of merge table twice over.
    pub(super) fn bytes_per_slot(&self) -> u64 {
        self.record_bytes + 4 + 4 + 1 + 8 + 8 + if self.merges() { 16 } else { 0 } + self.state_bytes_per_slot()
    }

    fn state_bytes_per_slot(&self) -> u64 {
        if self.has_table() { 4 } else { 0 }
    }

    /// Bytes of one table shard.
    pub(super) fn shard_bytes(&self) -> u64 {
        u64::from(self.shallow_buckets) * SHALLOW_BUCKET_BYTES + u64::from(self.deep_buckets) * DEEP_BUCKET_BYTES
    }

    /// Shards of the table in use; 0 without a table.
    pub(super) fn table_shards(&self) -> u32 {
        if self.shard_bytes() == 0 { 0 } else { self.layout.table_shards() }
    }

    /// Bytes of the whole transposition table; 0 without one.
    pub(super) fn transposition_bytes(&self) -> u64 {
        u64::from(self.table_shards()) * self.shard_bytes()
    }

    fn has_table(&self) -> bool {
        self.transposition_bytes() > 0
    }

    /// Whether the table follows the merge entries in their binding.
    pub(super) fn table_shares_merge_binding(&self) -> bool {
        self.has_table() && self.layout.table_bindings == 0
    }

    /// Whether equal positions of a level are merged: asked for, or implied by a table.
    pub(super) fn merges(&self) -> bool {
        self.merge || self.has_table()
    }

    /// Entries of the merge table: twice the arena, rounded up to a power of two.
    pub(super) fn merge_slots(&self) -> u64 {
        if self.merges() { u64::from(self.capacity).next_power_of_two() * 2 } else { 4 }
    }

    /// Words of the roots buffer: a root (or parent) a slot, and with tables a state a slot.
    pub(super) fn root_words(&self) -> u64 {
        u64::from(self.capacity) * if self.has_table() { 2 } else { 1 }
    }

    /// Bytes of the merge buffer: the merge entries, then the table where it shares their binding.
    pub(super) fn merge_buffer_bytes(&self) -> u64 {
        self.merge_slots() * 4 + if self.table_shares_merge_binding() { self.transposition_bytes() } else { 0 }
    }

    /// Positions of arena binding `index`.
    pub(super) fn arena_binding_positions(&self, index: u32) -> u64 {
        let per_binding = u64::from(self.layout.arena_binding_positions);
        let start = u64::from(index) * per_binding;
        (u64::from(self.capacity) - start).min(per_binding)
    }

    /// The plan for game `G` with `options` on `device`: `data_bytes` of
    /// the game's data and a transposition table of about `table_bytes` (0: none).
    pub(super) fn new<G: PerftGame>(
        device: &DeviceFacts,
        options: &PerftOptions<G::Build>,
        data_bytes: u64,
        table_bytes: u64,
    ) -> Result<MemoryPlan, GpuError> {
        let DeviceFacts { limits, memory: device_memory, software, binding_arrays } = device;
        let (device_memory, software, binding_arrays) = (*device_memory, *software, *binding_arrays);
        let record_bytes = size_of::<G::Record>() as u64;
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            .min(options.binding_bytes.unwrap_or(u64::MAX))
            & !3;
        if binding < data_bytes.max(record_bytes) {
            return Err(GpuError::Limits(format!(
                "the device's largest storage binding (max_storage_buffer_binding_size) is {binding} bytes; the \
                 game's data needs {data_bytes}"
            )));
        }
        let storage = limits.max_storage_buffers_per_shader_stage;
        if storage < FIXED_STORAGE_BINDINGS + 1 {
            return Err(GpuError::Limits(format!(
                "the perft engine needs {} storage bindings a shader stage; this device offers {storage}",
                FIXED_STORAGE_BINDINGS + 1
            )));
        }
        // Bindings for the arena and the table beyond the fixed ones.
        let spare = storage - FIXED_STORAGE_BINDINGS;
        let own_table_bindings = spare >= 2;
        let mut plan = MemoryPlan {
            capacity: 0,
            totals_capacity: 0,
            staging_bytes: STAGING_BYTES,
            data_bytes,
            record_bytes,
            merge: options.merge_transpositions,
            layout: MemoryLayout::SHARED,
            shallow_buckets: 0,
            deep_buckets: 0,
            binding,
        };
        if table_bytes > 0 {
            let shards = if own_table_bindings { table_bytes.div_ceil(binding) } else { 1 };
            if own_table_bindings && shards > u64::from(spare - 1) {
                return Err(GpuError::Limits(format!(
                    "a transposition table of {} MiB (--hash) needs {shards} storage bindings of {} MiB; this \
                     device offers {storage} a shader stage, {} of them for the table: at most {} MiB",
                    table_bytes >> 20,
                    binding >> 20,
                    spare - 1,
                    (u64::from(spare - 1) * binding) >> 20
                )));
            }
            let (shallow, deep) = shard_buckets(table_bytes / shards);
            if shallow > 0 {
                plan.shallow_buckets = u32::try_from(shallow).unwrap_or(u32::MAX);
                plan.deep_buckets = u32::try_from(deep).unwrap_or(u32::MAX);
                if own_table_bindings {
                    plan.layout.table_bindings = shards as u32;
                    plan.layout.table_array = binding_arrays
                        && options.table_binding_array
                        && shards > 1
                        && shards <= u64::from(limits.max_binding_array_elements_per_shader_stage);
                }
            }
        }
        // Without a table, the layout still declares one table binding of its
        // own (a placeholder the kernels never read: `tables` is 0), so that an
        // engine with a table of one binding and one without share a module:
        // a driver that compiles kernels on the CPU (lavapipe: seconds a
        // module) compiles it once for both, the self-test's pair included.
        if own_table_bindings && plan.layout.table_bindings == 0 {
            plan.layout.table_bindings = 1;
        }
        let table = plan.transposition_bytes();
        let per_binding = power_of_two_below(binding / record_bytes).min(1 << 31);
        let arena_bindings = if own_table_bindings { spare - plan.layout.table_bindings } else { 1 };
        // A software driver compiles every kernel on the CPU, and an arena
        // over several bindings puts a `switch` into every record access
        // (Shogi's cold start: 12 s with one binding, 35 s with several):
        // there, unless the caller sized the arena or its bindings, the arena
        // stays within one binding.
        let sized_by_caller =
            options.arena_positions.is_some() || options.memory_limit.is_some() || options.binding_bytes.is_some();
        let arena_bindings = if software && !sized_by_caller { arena_bindings.min(1) } else { arena_bindings };
        let mut capacity = per_binding * u64::from(arena_bindings);
        // The companions each live in one binding: the multiplicity (and the
        // roots with their states) take 8 bytes a slot, the scan a word and
        // its block sums, the merge entries twice the next power of two in words.
        capacity = capacity.min(binding / 8).min((binding / 4).saturating_sub(64) / 256 * 255);
        if plan.merges() {
            let merge_binding = if plan.table_shares_merge_binding() { binding.saturating_sub(table) } else { binding };
            if merge_binding < 16 {
                return Err(GpuError::Limits(format!(
                    "a transposition table of {} MiB (--hash) leaves no room for the merge entries in one storage \
                     binding of {} MiB on this device",
                    table >> 20,
                    binding >> 20
                )));
            }
            capacity = capacity.min(power_of_two_below(merge_binding / 8));
        }
        capacity = capacity.min(u64::from(u32::MAX) / 2);
        let min_arena = 1 + u64::from(G::MAX_LEGAL_MOVES);
        let limit = options.memory_limit.or(device_memory.map(|memory| memory.bytes / 10 * 9));
        if let Some(limit) = limit {
            plan.staging_bytes = (limit / 16).clamp(4096, STAGING_BYTES);
            let fixed = data_bytes + table + plan.staging_bytes + FIXED_BYTES;
            let needed = fixed + min_arena * plan.bytes_per_slot();
            if limit < needed {
                let table_text = match table {
                    0 => String::new(),
                    _ if table % (1 << 20) == 0 => format!(" with a {} MiB transposition table (--hash)", table >> 20),
                    _ => format!(" with a {} KiB transposition table (--hash)", table >> 10),
                };
                let mebibytes = limit as f64 / (1024.0 * 1024.0);
                let what = match device_memory {
                    _ if options.memory_limit.is_some() => {
                        format!("a GPU memory limit (--gpu-memory) of {mebibytes:.2} MiB")
                    }
                    Some(DeviceMemory { source: MemorySource::ProcessLimit, .. }) => format!(
                        "the {mebibytes:.2} MiB that this process's memory limit (ulimit -v, ulimit -d or its \
                         cgroup's) leaves the device, whose memory is the machine's,"
                    ),
                    _ => format!("this device's {mebibytes:.2} MiB of memory"),
                };
                return Err(GpuError::Limits(format!(
                    "{what} is too small for {}{table_text}: perft needs at least {:.2} MiB",
                    G::describe(options.build),
                    needed as f64 / (1024.0 * 1024.0),
                )));
            }
            capacity = capacity.min((limit - fixed) / plan.bytes_per_slot());
        }
        capacity = match options.arena_positions {
            Some(positions) => capacity.min(positions as u64),
            None if options.memory_limit.is_some() => capacity,
            None if software => capacity.min(DEFAULT_SOFTWARE_ARENA_CEILING),
            None => capacity.min(DEFAULT_ARENA_CEILING),
        };
        if capacity < min_arena {
            return Err(GpuError::Limits(format!(
                "a perft arena of {capacity} positions is too small; it needs at least {min_arena}"
            )));
        }
        plan.capacity = capacity as u32;
        plan.totals_capacity = capacity.min(MAX_ROOT_GROUP as u64) as u32;
        plan.layout.arena_bindings = capacity.div_ceil(per_binding) as u32;
        plan.layout.arena_binding_positions = per_binding as u32;
        if plan.layout.arena_bindings == 1 && plan.layout.table_bindings == 0 {
            plan.layout = MemoryLayout::SHARED;
        }
        Ok(plan)
    }

    /// Bytes the plan allocates on the GPU.
    pub(super) fn bytes(&self) -> u64 {
        let capacity = u64::from(self.capacity);
        let own_table = if self.table_shares_merge_binding() { 0 } else { self.transposition_bytes() };
        self.data_bytes
            + self.root_words() * 4
            + capacity * (self.record_bytes + 8)
            + self.merge_buffer_bytes()
            + own_table
            + scan_words(self.capacity) * 4
            + u64::from(self.totals_capacity) * 8
            + self.staging_bytes
            + 4
            + size_of::<PerftParameters>() as u64
    }

    /// What the plan holds, for people.
    pub(super) fn report(&self, device_memory: Option<DeviceMemory>) -> MemoryReport {
        let shards = u64::from(self.table_shards());
        MemoryReport {
            binding_bytes: self.binding,
            table_bytes: self.transposition_bytes(),
            table_bindings: self.layout.table_bindings,
            table_array: self.layout.table_array,
            compact_entries: shards * u64::from(self.shallow_buckets) * 2,
            wide_entries: shards * u64::from(self.deep_buckets) * 2,
            arena_positions: u64::from(self.capacity),
            arena_bindings: self.layout.arena_bindings,
            total_bytes: self.bytes(),
            device_memory,
        }
    }
}

/// Scan words for an arena: one per slot, then the block sums of each scan level.
pub(super) fn scan_words(capacity: u32) -> u64 {
    let capacity = u64::from(capacity);
    capacity + capacity / u64::from(SCAN_BLOCK - 1) + 64
}

/// An engine's memory plan, as `gpu-movegen info` and a count's notes print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryReport {
    /// The most bytes one storage binding holds.
    pub binding_bytes: u64,
    /// Bytes of the transposition table; 0 without one.
    pub table_bytes: u64,
    /// Storage bindings of the table's own; 0: it shares the merge entries' binding.
    pub table_bindings: u32,
    /// Whether those bindings are one binding array (indexed per probe).
    pub table_array: bool,
    /// Compact entries (subtrees of 1 to 3 plies).
    pub compact_entries: u64,
    /// Wide entries (deeper subtrees).
    pub wide_entries: u64,
    /// Positions the arena holds.
    pub arena_positions: u64,
    /// Storage bindings the arena spans.
    pub arena_bindings: u32,
    /// Bytes the engine allocates in all.
    pub total_bytes: u64,
    /// The device's memory, where known.
    pub device_memory: Option<DeviceMemory>,
}

impl std::fmt::Display for MemoryReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        if self.table_bytes == 0 {
            write!(formatter, "no transposition table")?;
        } else {
            let bindings = match self.table_bindings {
                0 => "beside the merge entries in one binding".to_owned(),
                1 => "in 1 binding".to_owned(),
                count if self.table_array => format!("in {count} bindings (a binding array)"),
                count => format!("in {count} bindings"),
            };
            write!(
                formatter,
                "transposition table {:.0} MiB {bindings} ({} compact entries, {} wide)",
                mib(self.table_bytes),
                self.compact_entries,
                self.wide_entries
            )?;
        }
        write!(
            formatter,
            "; arena {} positions in {} binding{}; bindings of at most {:.0} MiB; {:.0} MiB in all",
            self.arena_positions,
            self.arena_bindings,
            if self.arena_bindings == 1 { "" } else { "s" },
            mib(self.binding_bytes),
            mib(self.total_bytes)
        )?;
        if let Some(memory) = self.device_memory {
            write!(formatter, " of the device's {memory}")?;
        }
        Ok(())
    }
}
