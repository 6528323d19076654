//! The walk of a count: root groups, then level by level down to the
//! leaves, restarting a group whose children outgrew the room kept for them.

use super::super::plan::reserve;
use super::*;

impl<G: PerftGame> PerftEngine<G> {
    /// Counts with `columns` totals a root (see [`Self::columns`]); `None`
    /// when a count passed 2^64 (the table is then cleared, since counts
    /// stored on the way may have wrapped).
    pub(super) async fn count(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        columns: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Option<Vec<u64>>, GpuError> {
        if depth == 0 {
            return Ok(Some(vec![1; roots.len() * columns as usize]));
        }
        self.columns = columns;
        self.tables = self.plan.transposition_bytes() > 0 && columns == 1;
        let bound = self.first_bound();
        if !self.fits(depth, bound) {
            return Err(GpuError::Limits(format!(
                "perft to depth {depth} needs an arena of at least {} positions; this one holds {} \
                 (allow more GPU memory)",
                reserve(depth, bound, self.leaf_plies()) + 1,
                self.plan.capacity
            )));
        }
        let context = self.context.clone();
        match context.scoped_future(self.run(roots, depth, progress)).await? {
            Ok(totals) => Ok(Some(totals)),
            Err(Interrupt::CountOverflow) => {
                self.clear_table_async().await?;
                Ok(None)
            }
            Err(Interrupt::Gpu(error)) => Err(error),
            Err(Interrupt::TooManyChildren { .. }) => unreachable!("run restarts such groups"),
        }
    }

    /// How many roots to count together at `depth` with `bound`.
    fn group_size(&self, depth: u32, bound: u32) -> usize {
        let room = u64::from(self.plan.capacity) - reserve(depth, bound, self.leaf_plies());
        let automatic = if depth <= self.leaf_plies() { room } else { (room / 4).max(1) };
        let size = match self.options.root_group_size {
            Some(size) => (size.max(1) as u64).min(room),
            None => automatic,
        };
        (size as usize).min((self.plan.totals_capacity / self.columns).max(1) as usize)
    }

    async fn run(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, Interrupt> {
        self.context.queue.write_buffer(&self.status, 0, bytemuck::bytes_of(&0u32));
        let columns = self.columns as usize;
        let mut totals = Vec::with_capacity(roots.len() * columns);
        let mut counted_before = 0u64;
        while totals.len() < roots.len() * columns {
            let remaining = &roots[totals.len() / columns..];
            let mut bound = self.first_bound();
            let group_totals = loop {
                let group = &remaining[..self.group_size(depth, bound).min(remaining.len())];
                let mut report = |nodes: u64| progress(counted_before + nodes);
                match self.count_group(group, depth, bound, &mut report).await {
                    Ok(group_totals) => break group_totals,
                    Err(Interrupt::TooManyChildren { children }) => {
                        // The game's proven bound always fits; more is a broken promise.
                        if bound >= G::MAX_LEGAL_MOVES {
                            return Err(Interrupt::Gpu(GpuError::ShaderFault(format!(
                                "a position has {children} legal moves, more than the proven bound {}",
                                G::MAX_LEGAL_MOVES
                            ))));
                        }
                        self.statistics.restarted_groups += 1;
                        bound = children.max(bound.saturating_mul(2)).min(G::MAX_LEGAL_MOVES);
                        if !self.fits(depth, bound) {
                            return Err(Interrupt::Gpu(GpuError::Limits(format!(
                                "a position with {children} legal moves needs an arena of at least {} positions \
                                 for perft to depth {depth}; this one holds {} (allow more GPU memory)",
                                reserve(depth, bound, self.leaf_plies()) + 1,
                                self.plan.capacity
                            ))));
                        }
                    }
                    Err(interrupt) => return Err(interrupt),
                }
            };
            self.statistics.root_groups += 1;
            counted_before += self.nodes_of(&group_totals);
            totals.extend(group_totals);
        }
        Ok(totals)
    }

    /// The nodes among totals: every root's first column.
    fn nodes_of(&self, totals: &[u64]) -> u64 {
        totals.iter().step_by(self.columns as usize).sum()
    }

    /// Counts one group of roots; their totals, or why not.
    async fn count_group(
        &mut self,
        group: &[G::Position],
        depth: u32,
        bound: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, Interrupt> {
        // Work recorded for a group that stopped is never submitted.
        self.batch.encoder = None;
        self.batch.used = 0;
        self.check_cancelled()?;
        let queue = &self.context.queue;
        let build = self.options.build;
        let records: Vec<G::Record> = group.iter().map(|position| G::pack(build, position)).collect();
        self.write_records(0, &records);
        if self.tables {
            return self.count_group_with_tables(group.len() as u32, depth, bound, progress).await;
        }
        let root_indices: Vec<u32> = (0..group.len() as u32).collect();
        let counters = group.len() * self.columns as usize;
        queue.write_buffer(&self.totals, 0, &vec![0u8; counters * 8]);
        queue.write_buffer(&self.roots, 0, bytemuck::cast_slice(&root_indices));
        // Each root is reached once.
        let ones: Vec<u32> = (0..group.len()).flat_map(|_| [1, 0]).collect();
        queue.write_buffer(&self.multiplicity, 0, bytemuck::cast_slice(&ones));
        let mut counted = Counted { counters, progress, last_report: web_time::Instant::now() };
        self.process(0, group.len() as u32, depth, bound, &mut counted).await?;
        let totals = self.read_totals_and_status(counters).await?;
        (counted.progress)(self.nodes_of(&totals));
        Ok(totals)
    }

    /// [`Self::count_group`] with tables: the roots (in arena slots
    /// `0..roots`) are probed and merged like any level, counted, reduced
    /// into the table, and each root's count read from its slot (or its
    /// alias's). Progress counts leaves on the GPU in `totals[0]`.
    async fn count_group_with_tables(
        &mut self,
        roots: u32,
        depth: u32,
        bound: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, Interrupt> {
        let queue = &self.context.queue;
        queue.write_buffer(&self.totals, 0, &[0u8; 8]);
        queue.write_buffer(&self.roots, 0, bytemuck::cast_slice(&vec![u32::MAX; roots as usize]));
        self.dedupe(0, roots, depth);
        let mut counted = Counted { counters: 1, progress, last_report: web_time::Instant::now() };
        self.process(0, roots, depth, bound, &mut counted).await?;
        self.reduce(0, roots, depth);
        self.flush();
        let size = u64::from(roots);
        let words: Vec<u32> = self
            .staging
            .read_ranges(
                &self.context,
                &[
                    (&self.multiplicity, 0, size * 8),
                    (&self.roots, u64::from(self.plan.capacity) * 4, size * 4),
                    (&self.totals, 0, 8),
                    (&self.status, 0, 4),
                ],
            )
            .await?;
        let (counts, rest) = words.split_at(roots as usize * 2);
        let (states, rest) = rest.split_at(roots as usize);
        self.fault_error(rest[2])?;
        let count_of = |slot: usize| u64::from(counts[2 * slot]) | u64::from(counts[2 * slot + 1]) << 32;
        let totals: Vec<u64> = (0..roots as usize)
            .map(|slot| {
                let state = states[slot];
                // An alias points at an equal root of the group.
                if (state as usize) < roots as usize { count_of(state as usize) } else { count_of(slot) }
            })
            .collect();
        self.statistics.leaves_counted += u64::from(rest[0]) | u64::from(rest[1]) << 32;
        (counted.progress)(totals.iter().sum());
        Ok(totals)
    }

    /// Counts the subtrees of arena slots `start..start + count` to
    /// `remaining` plies. The caller guarantees `reserve(remaining, bound, _)`
    /// free slots after the level.
    fn process<'a>(
        &'a mut self,
        start: u32,
        count: u32,
        remaining: u32,
        bound: u32,
        counted: &'a mut Counted<'_>,
    ) -> LocalFuture<'a, Result<(), Interrupt>> {
        // Boxed: it recurses once a stored level.
        Box::pin(self.process_inner(start, count, remaining, bound, counted))
    }

    async fn process_inner(
        &mut self,
        start: u32,
        count: u32,
        remaining: u32,
        bound: u32,
        counted: &mut Counted<'_>,
    ) -> Result<(), Interrupt> {
        if count == 0 {
            return Ok(());
        }
        if remaining <= self.leaf_plies() {
            // Statistics count their leaves as a move list (leaf_plies 0).
            let entry = if remaining == 1 { "count_moves" } else { "count_leaves_looped" };
            // Where equal positions were merged (or taken from the table),
            // the leaf kernels run on a list of the live slots only.
            let list_total = if self.plan.merges() && count > 1 { Some(self.gather_live(start, count)) } else { None };
            return self.count_leaves(entry, start, count, list_total, 1, counted).await;
        }
        let level_end = start + count;
        let free = u64::from(self.plan.capacity - level_end);
        // Room for the children of one chunk, keeping what the levels below need.
        let room = free.saturating_sub(reserve(remaining - 1, bound, self.leaf_plies()));
        // Children that will be expanded in turn take at most half the free
        // room (but always one parent's worth, and MIN_HALVED_ROOM): a level
        // split near the top that took it all would leave the deepest levels,
        // where the work is, chunks of a few positions, each a round of
        // dispatches. (Start perft(9) on lavapipe: 1,443 s before, 397 s after.)
        let room = if remaining - 1 > self.leaf_plies() {
            room.min((free / 2).max(u64::from(bound)).max(MIN_HALVED_ROOM))
        } else {
            room
        };
        let budget = room.min(u64::from(u32::MAX)) as u32;
        // Each part's children must sum within u32 even at the game's proven bound.
        let per_part = self.options.counted_at_once.clamp(1, MAX_COUNTED_AT_ONCE).min(u32::MAX / G::MAX_LEGAL_MOVES);
        let mut part_start = start;
        while part_start < level_end {
            let part = per_part.min(level_end - part_start);
            if part < count {
                self.statistics.level_parts += 1;
            }
            self.dispatch(
                "count_moves",
                PerftParameters { start: part_start, count: part, ..Default::default() },
                part,
            );
            let total_slot = self.scan(part_start, part, self.plan.capacity);
            let total = self.read_total_and_status(total_slot).await?;
            if total <= budget {
                self.descend(part_start, part, level_end, 0, total, remaining, bound, counted).await?;
            } else {
                // The children do not fit at once: split the parents where they do.
                self.statistics.split_levels += 1;
                self.flush();
                let offsets: Vec<u32> = self
                    .staging
                    .read(&self.context, &self.scan, u64::from(part_start) * 4, u64::from(part) * 4)
                    .await?;
                let end_of = |index: usize| if index < offsets.len() { offsets[index] } else { total };
                let mut first = 0usize;
                while first < offsets.len() {
                    let base = offsets[first];
                    let children = end_of(first + 1) - base;
                    if children > budget {
                        return Err(Interrupt::TooManyChildren { children });
                    }
                    let mut last = first + 1;
                    while last < offsets.len() && end_of(last + 1) - base <= budget {
                        last += 1;
                    }
                    let children = end_of(last) - base;
                    let parents = (last - first) as u32;
                    self.descend(
                        part_start + first as u32,
                        parents,
                        level_end,
                        base,
                        children,
                        remaining,
                        bound,
                        counted,
                    )
                    .await?;
                    first = last;
                }
            }
            part_start += part;
        }
        Ok(())
    }

    /// Counts the subtrees of parents `start..start + count` (a level with
    /// `remaining` plies below, or a chunk of it), whose `children` children
    /// go from `output_start` on (`base_offset` is the first one's scanned
    /// offset): the children written and counted in turn, or, one level
    /// above the leaves with move lists, their moves counted as pairs.
    #[allow(clippy::too_many_arguments)]
    async fn descend(
        &mut self,
        start: u32,
        count: u32,
        output_start: u32,
        base_offset: u32,
        children: u32,
        remaining: u32,
        bound: u32,
        counted: &mut Counted<'_>,
    ) -> Result<(), Interrupt> {
        if self.pairs_below(remaining) {
            let parameters = PerftParameters { start, count, output_start, base_offset, ..Default::default() };
            self.dispatch("expand_moves", parameters, count);
            let (entry, leaves) = if self.columns > 1 {
                ("count_leaf_statistics", 1)
            } else if self.fused_shape == FusedShape::PerMove {
                ("count_leaves_fused", 1)
            } else {
                ("count_leaves_looped", LEAVES_OF_PAIRS)
            };
            return self.count_leaves(entry, output_start, children, None, leaves, counted).await;
        }
        self.expand(start, count, output_start, base_offset, children);
        self.settle(output_start, children, remaining - 1);
        self.process(output_start, children, remaining - 1, bound, counted).await?;
        self.reduce(output_start, children, remaining - 1);
        Ok(())
    }

    /// Runs the leaf kernel `entry` over `start..start + count` (slots, the
    /// live list's places with `list_total`, or a move list's pairs, with
    /// `leaves` LEAVES_OF_PAIRS for the looped leaf), in
    /// dispatches of at most `leaf_positions_per_dispatch`, reading the
    /// totals for progress now and then.
    async fn count_leaves(
        &mut self,
        entry: &str,
        start: u32,
        count: u32,
        list_total: Option<u32>,
        leaves: u32,
        counted: &mut Counted<'_>,
    ) -> Result<(), Interrupt> {
        let chunk = self.options.leaf_positions_per_dispatch.clamp(1, u32::MAX as usize) as u32;
        let mut offset = 0;
        while offset < count {
            let part = chunk.min(count - offset);
            let parameters = match list_total {
                Some(list_total) => PerftParameters {
                    start: offset,
                    count: part,
                    leaves,
                    leaf_list: 1,
                    list_total,
                    ..Default::default()
                },
                None => PerftParameters { start: start + offset, count: part, leaves, ..Default::default() },
            };
            self.dispatch(entry, parameters, part);
            self.statistics.leaf_dispatches += 1;
            self.check_cancelled()?;
            offset += part;
            // Progress costs a round trip; take one at most every so often.
            if counted.last_report.elapsed() >= PROGRESS_INTERVAL {
                let totals = self.read_totals(counted.counters).await?;
                (counted.progress)(self.nodes_of(&totals));
                counted.last_report = web_time::Instant::now();
            }
        }
        Ok(())
    }
}

/// The totals of the group being counted, and where progress goes.
struct Counted<'a> {
    counters: usize,
    progress: &'a mut dyn FnMut(u64),
    last_report: web_time::Instant,
}

/// How often the leaf kernels' running totals are read for progress.
const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);
