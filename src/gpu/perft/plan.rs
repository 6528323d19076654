//! The engine's memory plan: how many arena slots, root totals and staging
//! bytes the device's limits and the options allow, and the positions to
//! keep free below a level so that its children always fit.

use super::*;

/// Positions to keep free below a level with `remaining` plies to count,
/// when no position has more than `bound` children and the last
/// `leaf_plies` plies are counted without being stored.
pub(super) fn reserve(remaining: u32, bound: u32, leaf_plies: u32) -> u64 {
    u64::from(remaining.saturating_sub(leaf_plies)) * u64::from(bound)
}

/// How the engine's memory is laid out, from the options and the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MemoryPlan {
    pub(super) capacity: u32,
    pub(super) totals_capacity: u32,
    pub(super) staging_bytes: u64,
    pub(super) table_bytes: u64,
    pub(super) record_bytes: u64,
    pub(super) merge: bool,
    /// Bytes of the transposition table; 0 without one.
    pub(super) transposition_bytes: u64,
}

impl MemoryPlan {
    /// Bytes per arena slot: the record, its root tag, its scan word, a
    /// share of the scan's block sums (rounded up), at most one root total,
    /// its multiplicity (or subtree count), its state with tables and (when
    /// merging) up to four bytes of merge table twice over.
    pub(super) fn bytes_per_slot(&self) -> u64 {
        self.record_bytes + 4 + 4 + 1 + 8 + 8 + if self.merge { 16 } else { 0 } + self.state_bytes_per_slot()
    }

    fn state_bytes_per_slot(&self) -> u64 {
        if self.transposition_bytes > 0 { 4 } else { 0 }
    }

    /// Whether equal positions of a level are merged: asked for, or implied by a table.
    pub(super) fn merges(&self) -> bool {
        self.merge || self.transposition_bytes > 0
    }

    /// Entries of the merge table: twice the arena, rounded up to a power of two.
    pub(super) fn merge_slots(&self) -> u64 {
        if self.merges() { u64::from(self.capacity).next_power_of_two() * 2 } else { 4 }
    }

    /// Words of the roots buffer: a root (or parent) a slot, and with tables a state a slot.
    pub(super) fn root_words(&self) -> u64 {
        u64::from(self.capacity) * if self.transposition_bytes > 0 { 2 } else { 1 }
    }

    /// Bytes of the merge buffer: the merge entries, then the transposition table.
    pub(super) fn merge_buffer_bytes(&self) -> u64 {
        self.merge_slots() * 4 + self.transposition_bytes
    }

    /// `transposition_bytes` is the table asked for, already a power of two buckets.
    pub(super) fn new<G: PerftGame>(
        limits: &wgpu::Limits,
        options: &PerftOptions<G::Variant>,
        table_bytes: u64,
        transposition_bytes: u64,
    ) -> Result<MemoryPlan, GpuError> {
        let record_bytes = size_of::<G::Record>() as u64;
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        if binding < table_bytes {
            return Err(GpuError::Limits(format!(
                "the device's largest storage binding (max_storage_buffer_binding_size) is {binding} bytes; the \
                 attack tables need {table_bytes}"
            )));
        }
        if binding < transposition_bytes {
            return Err(GpuError::Limits(format!(
                "a transposition table of {} MiB (--hash) is more than one storage binding of this device holds ({} MiB)",
                transposition_bytes >> 20,
                binding >> 20
            )));
        }
        let min_arena = 1 + u64::from(G::MAX_LEGAL_MOVES);
        let mut plan = MemoryPlan {
            capacity: 0,
            totals_capacity: 0,
            staging_bytes: STAGING_BYTES,
            table_bytes,
            record_bytes,
            merge: options.merge_transpositions,
            transposition_bytes,
        };
        let mut capacity = (binding / record_bytes).min(u64::from(u32::MAX) / 2);
        if let Some(limit) = options.memory_limit {
            plan.staging_bytes = (limit / 16).clamp(4096, STAGING_BYTES);
            let fixed = table_bytes + transposition_bytes + plan.staging_bytes + FIXED_BYTES;
            let needed = fixed + min_arena * plan.bytes_per_slot();
            if limit < needed {
                let table = if transposition_bytes > 0 {
                    format!(" with a {} KiB transposition table (--hash)", transposition_bytes >> 10)
                } else {
                    String::new()
                };
                return Err(GpuError::Limits(format!(
                    "a GPU memory limit (--gpu-memory) of {:.2} MiB is too small for {}{table}: perft needs at \
                     least {:.2} MiB",
                    limit as f64 / (1024.0 * 1024.0),
                    G::describe(options.variant),
                    needed as f64 / (1024.0 * 1024.0),
                )));
            }
            capacity = capacity.min((limit - fixed) / plan.bytes_per_slot());
        }
        capacity = match options.arena_positions {
            Some(positions) => capacity.min(positions as u64),
            None if options.memory_limit.is_some() => capacity,
            None => capacity.min(DEFAULT_ARENA_CEILING),
        };
        if capacity < min_arena {
            return Err(GpuError::Limits(format!(
                "a perft arena of {capacity} positions is too small; it needs at least {min_arena}"
            )));
        }
        plan.capacity = capacity as u32;
        plan.totals_capacity = capacity.min(MAX_ROOT_GROUP as u64) as u32;
        // The table shares the merge entries' binding.
        if plan.merge_buffer_bytes() > binding {
            return Err(GpuError::Limits(format!(
                "a transposition table of {} MiB (--hash) does not fit beside the merge entries of a {}-position \
                 arena in one storage binding of {} MiB; at most {} MiB fits",
                transposition_bytes >> 20,
                plan.capacity,
                binding >> 20,
                binding.saturating_sub(plan.merge_slots() * 4) >> 20
            )));
        }
        Ok(plan)
    }

    /// Bytes the plan allocates on the GPU.
    pub(super) fn bytes(&self) -> u64 {
        let capacity = u64::from(self.capacity);
        self.table_bytes
            + self.root_words() * 4
            + capacity * (self.record_bytes + 8)
            + self.merge_buffer_bytes()
            + scan_words(self.capacity) * 4
            + u64::from(self.totals_capacity) * 8
            + self.staging_bytes
            + 4
            + size_of::<PerftParameters>() as u64
    }
}

/// Scan words for an arena: one per slot, then the block sums of each scan level.
pub(super) fn scan_words(capacity: u32) -> u64 {
    let capacity = u64::from(capacity);
    capacity + capacity / u64::from(SCAN_BLOCK - 1) + 64
}
