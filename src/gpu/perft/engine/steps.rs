//! One engine step each: a kernel's dispatch with its parameters, the
//! batch that submits them together, and the reads that end a level.

use super::*;

impl<G: PerftGame> PerftEngine<G> {
    /// Writes the live slots of the leaf level `start..start + count` to
    /// the live list (`gather_live`); returns the merge word that holds its length.
    pub(super) fn gather_live(&mut self, start: u32, count: u32) -> u32 {
        // The list's length is the merge entries' last word, which the
        // list (at most half of them) never reaches.
        let length_word = self.plan.merge_slots() as u32 - 1;
        let device = &self.context.device;
        let encoder = self.batch.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("perft") })
        });
        encoder.clear_buffer(&self.merge_table, u64::from(length_word) * 4, Some(4));
        let parameters = PerftParameters { start, count, list_total: length_word, ..Default::default() };
        self.dispatch("gather_live", parameters, count);
        self.statistics.gathered_levels += 1;
        length_word
    }

    /// Writes the `children` children of parents `start..start + count` from
    /// `output_start` on: their moves as a move list, then one invocation a
    /// move makes each child in its slot.
    pub(super) fn expand(&mut self, start: u32, count: u32, output_start: u32, base_offset: u32, children: u32) {
        let parameters = PerftParameters { start, count, output_start, base_offset, ..Default::default() };
        self.dispatch("expand_moves", parameters, count);
        let children_parameters = PerftParameters { start: output_start, count: children, ..Default::default() };
        self.dispatch("write_children", children_parameters, children);
    }

    /// Settles a level just written at arena slots `start..start + count`,
    /// with `remaining` plies below it: with tables, [`Self::dedupe`];
    /// otherwise [`Self::merge`].
    pub(super) fn settle(&mut self, start: u32, count: u32, remaining: u32) {
        if self.tables {
            self.dedupe(start, count, remaining);
        } else {
            self.merge(start, count);
        }
    }

    /// A cleared merge table of at least twice `count` entries (a power of
    /// two), recorded in the batch; its size.
    fn clear_merge_table(&mut self, count: u32) -> u32 {
        let slots = (u64::from(count).next_power_of_two() * 2).min(self.plan.merge_slots());
        let device = &self.context.device;
        let encoder = self.batch.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("perft") })
        });
        encoder.clear_buffer(&self.merge_table, 0, Some(slots * 4));
        slots as u32
    }

    /// Merges the equal positions among arena slots `start..start + count`
    /// (a level just written) under the same root: a cleared hash table,
    /// then one invocation a slot.
    fn merge(&mut self, start: u32, count: u32) {
        if !self.options.merge_transpositions || count < 2 {
            return;
        }
        let merge_slots = self.clear_merge_table(count);
        let parameters = PerftParameters { start, count, merge_slots, ..Default::default() };
        self.dispatch("merge_duplicates", parameters, count);
        self.statistics.merged_levels += 1;
    }

    /// With tables: probes every slot of a level in the table and merges
    /// the rest with equal positions of the level under any root
    /// (`dedupe_level`).
    pub(super) fn dedupe(&mut self, start: u32, count: u32, remaining: u32) {
        if count == 0 {
            return;
        }
        let merge_slots = if self.options.merge_transpositions { self.clear_merge_table(count) } else { 0 };
        let parameters = PerftParameters { start, count, merge_slots, remaining, ..Default::default() };
        self.dispatch("dedupe_level", parameters, count);
        self.statistics.probed_levels += 1;
        if remaining <= SHALLOW_MAX_REMAINING {
            self.statistics.shallow_probes += u64::from(count);
        } else {
            self.statistics.deep_probes += u64::from(count);
        }
    }

    /// With tables: adds the counted subtrees of a level to their parents'
    /// and stores them in the table (`reduce_level`).
    pub(super) fn reduce(&mut self, start: u32, count: u32, remaining: u32) {
        if !self.tables || count == 0 {
            return;
        }
        let parameters = PerftParameters { start, count, remaining, ..Default::default() };
        self.dispatch("reduce_level", parameters, count);
    }

    /// Exclusive prefix sum of scan words `data_start..data_start + count` in
    /// place; block sums go from `sums_start` on. Returns where the total is.
    pub(super) fn scan(&mut self, data_start: u32, count: u32, sums_start: u32) -> u32 {
        let blocks = count.div_ceil(SCAN_BLOCK);
        let parameters = PerftParameters { count, scan_start: data_start, scan_sums: sums_start, ..Default::default() };
        self.dispatch("scan_blocks", parameters, blocks * SCAN_BLOCK);
        if blocks == 1 {
            return sums_start;
        }
        let total = self.scan(sums_start, blocks, sums_start + blocks);
        self.dispatch("add_block_sums", parameters, blocks * SCAN_BLOCK);
        total
    }

    /// Records one dispatch of `invocations` invocations with its own
    /// parameters; it is submitted with the rest of its batch by [`Self::flush`].
    pub(super) fn dispatch(&mut self, entry_point: &str, mut parameters: PerftParameters, invocations: u32) {
        parameters.tables = u32::from(self.tables);
        parameters.table_shards = self.plan.table_shards().max(1);
        parameters.shallow_buckets = self.plan.shallow_buckets.max(1);
        parameters.deep_buckets = self.plan.deep_buckets.max(1);
        parameters.state_base = self.plan.capacity;
        parameters.arena_capacity = self.plan.capacity;
        parameters.table_base = self.plan.merge_slots() as u32;
        parameters.index_mask =
            if self.options.index_bits >= 32 { u32::MAX } else { (1 << self.options.index_bits) - 1 };
        parameters.count_bits = self.options.count_bits.min(64);
        if self.batch.used == PARAMETER_SLOTS {
            self.flush();
        }
        let offset = self.batch.used * self.batch.stride;
        self.batch.parameters[offset as usize..offset as usize + size_of::<PerftParameters>()]
            .copy_from_slice(bytemuck::bytes_of(&parameters));
        self.batch.used += 1;
        let device = &self.context.device;
        let encoder = self.batch.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("perft") })
        });
        let timestamps = self.profiler.as_mut().map(|profiler| profiler.next(entry_point, invocations));
        record_dispatch_with(
            encoder,
            self.kernels.pipeline(entry_point),
            &self.bind_group,
            &[offset],
            self.table_group.as_ref(),
            timestamps,
            invocations,
            self.kernels.workgroup_size(entry_point),
            self.max_workgroups,
        );
    }

    /// Submits the recorded dispatches, their parameters written first
    /// (a buffer write lands before the submission that follows it).
    pub(super) fn flush(&mut self) {
        if let Some(mut encoder) = self.batch.encoder.take() {
            let bytes = (self.batch.used * self.batch.stride) as usize;
            self.context.queue.write_buffer(&self.parameters, 0, &self.batch.parameters[..bytes]);
            if let Some(profiler) = &self.profiler {
                profiler.resolve(&mut encoder);
            }
            self.context.submit([encoder.finish()]);
            #[cfg(not(target_arch = "wasm32"))]
            if let Some(profiler) = &mut self.profiler {
                // A failure here is the device's, and the next read reports it.
                let _ = crate::gpu::runtime::block_on(profiler.collect(&self.context));
            }
        }
        self.batch.used = 0;
    }

    /// Reads a level's child total and the fault flags in one round trip;
    /// a fault is an error at once, before its counts are used.
    pub(super) async fn read_total_and_status(&mut self, total_slot: u32) -> Result<u32, Interrupt> {
        self.check_cancelled()?;
        self.flush();
        let words: Vec<u32> = self
            .staging
            .read_ranges(&self.context, &[(&self.scan, u64::from(total_slot) * 4, 4), (&self.status, 0, 4)])
            .await?;
        self.fault_error(words[1])?;
        Ok(words[0])
    }

    pub(super) async fn read_totals(&mut self, counters: usize) -> Result<Vec<u64>, GpuError> {
        self.flush();
        let words: Vec<u32> = self.staging.read(&self.context, &self.totals, 0, counters as u64 * 8).await?;
        Ok(words.chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    /// A group's totals and the fault flags in one round trip; a fault is
    /// an error before any total is used.
    pub(super) async fn read_totals_and_status(&mut self, counters: usize) -> Result<Vec<u64>, Interrupt> {
        self.check_cancelled()?;
        self.flush();
        let size = counters as u64 * 8;
        let words: Vec<u32> =
            self.staging.read_ranges(&self.context, &[(&self.totals, 0, size), (&self.status, 0, 4)]).await?;
        self.fault_error(words[counters * 2])?;
        Ok(words[..counters * 2].chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    /// The error for a nonzero fault word of the kernels.
    pub(super) fn fault_error(&self, flags: u32) -> Result<(), Interrupt> {
        if flags == 0 {
            return Ok(());
        }
        if flags == FAULT_COUNT_OVERFLOW {
            return Err(Interrupt::CountOverflow);
        }
        let mut reasons = Vec::new();
        if flags & FAULT_INVALID_POSITION != 0 {
            reasons.push(G::INVALID_POSITION);
        }
        if flags & FAULT_ARENA_OVERFLOW != 0 {
            reasons.push("children overflowed the arena");
        }
        if flags & FAULT_COUNT_OVERFLOW != 0 {
            reasons.push("a count passed 2^64");
        }
        if flags & !(FAULT_INVALID_POSITION | FAULT_ARENA_OVERFLOW | FAULT_COUNT_OVERFLOW) != 0 {
            reasons.push("unknown fault bits");
        }
        Err(Interrupt::Gpu(GpuError::ShaderFault(format!("{} (flags {flags:#x})", reasons.join(", ")))))
    }
}
