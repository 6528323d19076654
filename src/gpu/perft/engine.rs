//! The engine itself: the arena and its companion buffers, the kernels,
//! and the level-by-level loop that expands, merges, counts and reads back.

use super::plan::{DeviceFacts, MemoryPlan, MemoryReport, reserve, scan_words};
use super::*;

/// Why a root group stopped before its end.
enum Interrupt {
    /// A failure that ends the whole run.
    Gpu(GpuError),
    /// A position had more children than the room the group kept for it.
    TooManyChildren { children: u32 },
    /// A count passed 2^64 (FAULT_COUNT_OVERFLOW alone).
    CountOverflow,
}

impl From<GpuError> for Interrupt {
    fn from(error: GpuError) -> Self {
        Interrupt::Gpu(error)
    }
}

/// The GPU perft driver of game `G`: kernels, the arena and its companions.
pub struct PerftEngine<G: PerftGame> {
    context: GpuContext,
    kernels: std::sync::Arc<Kernels>,
    /// The arena's bindings, in slot order.
    arena: Vec<wgpu::Buffer>,
    /// The transposition table's own bindings (none where it shares the merge entries').
    table: Vec<wgpu::Buffer>,
    roots: wgpu::Buffer,
    scan: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    totals: wgpu::Buffer,
    multiplicity: wgpu::Buffer,
    merge_table: wgpu::Buffer,
    staging: Staging,
    bind_group: wgpu::BindGroup,
    /// Group 1: the table's shards as a binding array, where the layout has one.
    table_group: Option<wgpu::BindGroup>,
    plan: MemoryPlan,
    options: PerftOptions<G::Variant>,
    max_workgroups: u32,
    statistics: PerftStatistics,
    batch: Batch,
    /// Set by another thread to stop the count under way (see [`Self::set_cancel`]).
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Totals per root in the run under way: 1 for plain counts,
    /// `G::STATISTICS_COLUMNS` for [`Self::perft_statistics`].
    columns: u32,
    /// Whether the run under way keeps subtree counts and the table
    /// (plain counts on an engine with a table).
    tables: bool,
    /// Timestamps around each dispatch (`PerftOptions::profile_kernels`).
    profiler: Option<super::profile::Profiler>,
    /// The fused leaves' shape on this device (never `Auto`).
    fused_shape: FusedShape,
}

/// Dispatches recorded but not yet submitted, with their parameters: each
/// dispatch reads its own slot of the parameter buffer through a dynamic
/// offset, so a whole level's dispatches go in one submission.
struct Batch {
    encoder: Option<wgpu::CommandEncoder>,
    parameters: Vec<u8>,
    used: u32,
    /// Bytes between slots: the device's uniform offset alignment.
    stride: u32,
}

/// The room below which a level's chunk may take all of it: halving pays
/// only where the half still keeps a device busy.
const MIN_HALVED_ROOM: u64 = 1 << 16;

/// Parameter slots per submission.
const PARAMETER_SLOTS: u32 = 64;

impl<G: PerftGame> PerftEngine<G> {
    /// An engine with the default options (see [`Self::with_options`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext) -> Result<Self, GpuError> {
        Self::with_options(context, PerftOptions::default())
    }

    /// An engine on `context`, once its device has passed the self-test of
    /// these kernels (a device that failed it gets [`GpuError::SelfTestFailed`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_options(context: &GpuContext, options: PerftOptions<G::Variant>) -> Result<Self, GpuError> {
        crate::gpu::runtime::block_on(Self::with_options_async(context, options))
    }

    /// [`Self::with_options`], awaited.
    pub async fn with_options_async(context: &GpuContext, options: PerftOptions<G::Variant>) -> Result<Self, GpuError> {
        let device = &context.device;
        let limits = device.limits();
        // The game's data is built once: its length sizes the plan, its words fill the buffer.
        let table_words = G::table_words(options.variant);
        let asked = options.table_bytes.unwrap_or_else(|| default_table_bytes(context, options.memory_limit, None));
        let plan = MemoryPlan::new::<G>(&DeviceFacts::of(context), &options, table_words.len() as u64 * 4, asked)?;
        G::check_device(device, options.variant)?;
        if options.leaf_statistics && G::STATISTICS_COLUMNS == 0 {
            return Err(GpuError::Internal(format!("{} has no statistics kernel", std::any::type_name::<G>())));
        }
        // Refusals the request alone decides come first; then the device's trust.
        let mut checks = G::known_answer_checks(options.variant, options.fused_leaves);
        if options.leaf_statistics {
            checks.extend(G::statistics_checks(options.variant));
        }
        context.require_async(&checks).await?;
        let memory = memory_module(&plan.layout);
        let shader = match G::statistics_shader(options.variant, &memory) {
            Some(shader) if options.leaf_statistics => shader?,
            _ => G::perft_shader(options.variant, &memory)?,
        };
        let capacity = u64::from(plan.capacity);

        // The same module and settings always build the same pipelines.
        let key = format!("perft {:?} {}", options.runtime_checks, shader.source);
        let cached = context.cached_kernels::<Kernels>(&key);
        let engine = context
            .scoped_async(|| {
                use wgpu::BufferUsages as Usage;
                let kernels = match &cached {
                    Some(kernels) => std::sync::Arc::clone(kernels),
                    None => std::sync::Arc::new(context.build_kernels(&shader, "perft", options.runtime_checks, true)),
                };
                let stride =
                    (size_of::<PerftParameters>() as u32).next_multiple_of(limits.min_uniform_buffer_offset_alignment);
                let tables = buffer_with(device, "perft tables", &table_words, Usage::STORAGE);
                let arena: Vec<wgpu::Buffer> = (0..plan.layout.arena_bindings)
                    .map(|index| {
                        let bytes = plan.arena_binding_positions(index) * plan.record_bytes;
                        buffer(device, "perft arena", bytes, Usage::STORAGE | Usage::COPY_DST)
                    })
                    .collect();
                let table: Vec<wgpu::Buffer> = (0..plan.layout.table_bindings)
                    .map(|_| {
                        // Without a table, the layout's one binding is a
                        // placeholder the kernels never read (see MemoryPlan::new).
                        buffer(
                            device,
                            "perft transposition table",
                            plan.shard_bytes().max(16),
                            Usage::STORAGE | Usage::COPY_DST,
                        )
                    })
                    .collect();
                // With tables, each slot's state follows the parents.
                let roots = buffer(
                    device,
                    "perft roots",
                    plan.root_words() * 4,
                    Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC,
                );
                let scan =
                    buffer(device, "perft scan", scan_words(plan.capacity) * 4, Usage::STORAGE | Usage::COPY_SRC);
                let status = buffer(device, "perft status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
                let parameters = buffer(
                    device,
                    "perft parameters",
                    u64::from(PARAMETER_SLOTS * stride),
                    Usage::UNIFORM | Usage::COPY_DST,
                );
                let totals = buffer(
                    device,
                    "perft totals",
                    u64::from(plan.totals_capacity) * 8,
                    Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC,
                );
                let staging = Staging::new(device, plan.staging_bytes);
                let multiplicity = buffer(
                    device,
                    "perft multiplicity",
                    capacity * 8,
                    Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC,
                );
                // The merge entries, and the transposition table where it shares
                // their binding (buffers start zeroed: an empty table).
                let merge_table =
                    buffer(device, "perft merge table", plan.merge_buffer_bytes(), Usage::STORAGE | Usage::COPY_DST);
                let mut storage = vec![
                    (0, &tables),
                    (2, &roots),
                    (3, &scan),
                    (5, &totals),
                    (6, &status),
                    (8, &multiplicity),
                    (9, &merge_table),
                ];
                storage.extend(
                    arena.iter().enumerate().map(|(index, buffer)| (plan.layout.arena_binding(index as u32), buffer)),
                );
                if !plan.layout.table_array {
                    storage.extend(
                        table
                            .iter()
                            .enumerate()
                            .map(|(index, buffer)| (plan.layout.table_binding(index as u32), buffer)),
                    );
                }
                let mut entries: Vec<wgpu::BindGroupEntry> = storage
                    .iter()
                    .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
                    .collect();
                // One slot of the parameter buffer, chosen per dispatch by a dynamic offset.
                entries.push(wgpu::BindGroupEntry {
                    binding: 7,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &parameters,
                        offset: 0,
                        size: std::num::NonZeroU64::new(size_of::<PerftParameters>() as u64),
                    }),
                });
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("perft"),
                    layout: &kernels.layout,
                    entries: &entries,
                });
                // The table's shards as one binding array in group 1, where the
                // device indexes one per invocation.
                let shard_bindings: Vec<wgpu::BufferBinding> =
                    table.iter().map(|buffer| wgpu::BufferBinding { buffer, offset: 0, size: None }).collect();
                let table_group = match (&kernels.second_layout, plan.layout.table_array) {
                    (Some(layout), true) => Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("perft transposition table"),
                        layout,
                        entries: &[wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::BufferArray(&shard_bindings),
                        }],
                    })),
                    _ => None,
                };
                PerftEngine {
                    context: context.clone(),
                    kernels,
                    arena,
                    table,
                    roots,
                    scan,
                    status,
                    parameters,
                    totals,
                    multiplicity,
                    merge_table,
                    staging,
                    bind_group,
                    table_group,
                    plan,
                    options,
                    max_workgroups: limits.max_compute_workgroups_per_dimension,
                    statistics: PerftStatistics::default(),
                    batch: Batch {
                        encoder: None,
                        parameters: vec![0; (PARAMETER_SLOTS * stride) as usize],
                        used: 0,
                        stride,
                    },
                    columns: 1,
                    tables: false,
                    cancel: None,
                    profiler: None,
                    fused_shape: options.fused_shape.resolve(context.is_software()),
                }
            })
            .await?;
        if cached.is_none() {
            context.keep_kernels(key, std::sync::Arc::clone(&engine.kernels));
        }
        let mut engine = engine;
        // Reading timestamps back waits on the device, which a browser's page cannot.
        if options.profile_kernels && cfg!(not(target_arch = "wasm32")) {
            engine.profiler = super::profile::Profiler::new(context, PARAMETER_SLOTS);
        }
        Ok(engine)
    }

    /// Positions the arena holds.
    pub fn capacity(&self) -> usize {
        self.plan.capacity as usize
    }

    /// Bytes of GPU memory this engine allocated.
    pub fn memory_bytes(&self) -> u64 {
        self.plan.bytes()
    }

    /// What the engine has done so far.
    pub fn statistics(&self) -> PerftStatistics {
        self.statistics
    }

    /// The device time of each kernel so far, the slowest first: empty
    /// unless the engine was made with `profile_kernels` on a device with
    /// timestamp queries.
    pub fn kernel_times(&self) -> Vec<super::KernelTime> {
        self.profiler.as_ref().map(super::profile::Profiler::times).unwrap_or_default()
    }

    /// Bytes of the transposition table in GPU memory; 0 without one.
    pub fn transposition_table_bytes(&self) -> u64 {
        self.plan.transposition_bytes()
    }

    /// A flag another thread may set to stop this engine's count under way:
    /// the count then fails with [`GpuError::Cancelled`] at its next round
    /// trip to the device (a fraction of a second on a GPU), the device left
    /// usable. `None` removes it.
    pub fn set_cancel(&mut self, flag: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>) {
        self.cancel = flag;
    }

    /// [`GpuError::Cancelled`] once the cancel flag is set.
    fn check_cancelled(&self) -> Result<(), Interrupt> {
        match &self.cancel {
            Some(flag) if flag.load(std::sync::atomic::Ordering::Relaxed) => Err(Interrupt::Gpu(GpuError::Cancelled)),
            _ => Ok(()),
        }
    }

    /// Where this engine's memory went: the table's bindings and entries,
    /// the arena's positions and bindings, the total.
    pub fn memory_report(&self) -> MemoryReport {
        self.plan.report(self.context.device_memory())
    }

    /// Empties the transposition table: later counts start from nothing.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn clear_table(&mut self) -> Result<(), GpuError> {
        crate::gpu::runtime::block_on(self.clear_table_async())
    }

    /// [`Self::clear_table`], awaited.
    pub async fn clear_table_async(&mut self) -> Result<(), GpuError> {
        self.flush();
        let context = self.context.clone();
        context
            .scoped_async(|| {
                let mut encoder = context.device.create_command_encoder(&Default::default());
                if self.plan.table_shares_merge_binding() {
                    let start = self.plan.merge_slots() * 4;
                    encoder.clear_buffer(&self.merge_table, start, Some(self.plan.transposition_bytes()));
                }
                for shard in &self.table {
                    encoder.clear_buffer(shard, 0, None);
                }
                context.submit([encoder.finish()]);
            })
            .await
    }

    /// Writes `records` into the arena from slot `start` on, across its bindings.
    fn write_records(&self, start: u32, records: &[G::Record]) {
        let per_binding = self.plan.layout.arena_binding_positions as usize;
        let mut slot = start as usize;
        let mut rest = records;
        while !rest.is_empty() {
            let (binding, offset) =
                if self.arena.len() == 1 { (0, slot) } else { (slot / per_binding, slot % per_binding) };
            let take = if self.arena.len() == 1 { rest.len() } else { rest.len().min(per_binding - offset) };
            let bytes = bytemuck::cast_slice(&rest[..take]);
            self.context.queue.write_buffer(&self.arena[binding], (offset as u64) * self.plan.record_bytes, bytes);
            rest = &rest[take..];
            slot += take;
        }
    }

    /// The last plies counted without arena slots of their own: two when
    /// each position of the last stored level plays its moves in a loop.
    /// Otherwise the last stored level's moves take slots, as a move list:
    /// fused plain counts then count one ply below them (the moves'
    /// children's moves), statistics none (the moves are the leaves); or, the
    /// last two plies not fused, the last level is stored whole and counted
    /// one ply below.
    fn leaf_plies(&self) -> u32 {
        if self.columns > 1 {
            0
        } else if self.options.fused_leaves && self.fused_shape == FusedShape::PerPosition {
            2
        } else {
            1
        }
    }

    /// Whether a level with `remaining` plies below writes its children as
    /// the move list the leaf kernel counts, rather than as positions.
    fn pairs_below(&self, remaining: u32) -> bool {
        if self.columns > 1 {
            remaining == 1
        } else {
            self.options.fused_leaves && self.fused_shape == FusedShape::PerMove && remaining == 2
        }
    }

    fn first_bound(&self) -> u32 {
        self.options.reserve_moves.unwrap_or(G::REACHABLE_MAX_MOVES).clamp(1, G::MAX_LEGAL_MOVES)
    }

    /// Whether this arena can keep room for every level at `depth` when no
    /// position has more than `bound` children (see the module documentation).
    fn fits(&self, depth: u32, bound: u32) -> bool {
        u64::from(self.plan.capacity) > reserve(depth, bound, self.leaf_plies())
    }

    /// Perft of each root to `depth`, all roots sharing the GPU. `progress`
    /// receives the nodes counted so far, now and then.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn perft(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, GpuError> {
        crate::gpu::runtime::block_on(self.perft_async(roots, depth, progress))
    }

    /// [`Self::perft`], awaited.
    pub async fn perft_async(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, GpuError> {
        self.count(roots, depth, 1, progress).await?.ok_or_else(|| {
            GpuError::ShaderFault(format!(
                "a root's perft({depth}) passes 2^64, more than this call returns (perft_wide counts it)"
            ))
        })
    }

    /// Perft of each root to `depth` in 128 bits: a group whose count
    /// passes 2^64 is counted again one ply down, by each root's children
    /// (`G::children`), and added up on the host.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn perft_wide(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u128>, GpuError> {
        crate::gpu::runtime::block_on(self.perft_wide_async(roots, depth, progress))
    }

    /// [`Self::perft_wide`], awaited.
    pub fn perft_wide_async<'a>(
        &'a mut self,
        roots: &'a [G::Position],
        depth: u32,
        progress: &'a mut dyn FnMut(u64),
    ) -> LocalFuture<'a, Result<Vec<u128>, GpuError>> {
        // Boxed: it recurses, one ply down, for a group past 2^64.
        Box::pin(self.perft_wide_inner(roots, depth, progress))
    }

    async fn perft_wide_inner(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u128>, GpuError> {
        if let Some(totals) = self.count(roots, depth, 1, progress).await? {
            return Ok(totals.into_iter().map(u128::from).collect());
        }
        self.statistics.widened_groups += 1;
        let mut totals = Vec::with_capacity(roots.len());
        let mut done = 0u128;
        for root in roots {
            let children = G::children(root);
            let mut report = |nodes: u64| progress(u64::try_from(done + u128::from(nodes)).unwrap_or(u64::MAX));
            let counts = self.perft_wide_async(&children, depth - 1, &mut report).await?;
            let total: u128 = counts.iter().sum();
            done += total;
            totals.push(total);
        }
        Ok(totals)
    }

    /// The statistics columns of each root's leaves `depth` plies below it,
    /// `G::STATISTICS_COLUMNS` numbers a root, nodes first (chess: in the order
    /// of `PerftStats::NAMES`). Depth 0 is the root alone. The engine must
    /// have been made with [`PerftOptions::leaf_statistics`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn perft_statistics(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<Vec<u64>>, GpuError> {
        crate::gpu::runtime::block_on(self.perft_statistics_async(roots, depth, progress))
    }

    /// [`Self::perft_statistics`], awaited.
    pub async fn perft_statistics_async(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<Vec<u64>>, GpuError> {
        let columns = G::STATISTICS_COLUMNS as usize;
        if !self.options.leaf_statistics {
            return Err(GpuError::Internal("this perft engine was made without its statistics kernel".to_owned()));
        }
        if depth == 0 {
            let root_alone: Vec<u64> = (0..columns).map(|column| u64::from(column == 0)).collect();
            return Ok(vec![root_alone; roots.len()]);
        }
        let flat = self
            .count(roots, depth, G::STATISTICS_COLUMNS, progress)
            .await?
            .ok_or_else(|| GpuError::ShaderFault(format!("a statistics column of perft({depth}) passes 2^64")))?;
        Ok(flat.chunks_exact(columns).map(<[u64]>::to_vec).collect())
    }

    /// Counts with `columns` totals a root (see [`Self::columns`]); `None`
    /// when a count passed 2^64 (the table is then cleared, since counts
    /// stored on the way may have wrapped).
    async fn count(
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
        let variant = self.options.variant;
        let records: Vec<G::Record> = group.iter().map(|position| G::pack(variant, position)).collect();
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
            return self.count_leaves(entry, start, count, list_total, counted).await;
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
            let entry = if self.columns > 1 { "count_leaf_statistics" } else { "count_leaves_fused" };
            return self.count_leaves(entry, output_start, children, None, counted).await;
        }
        self.expand(start, count, output_start, base_offset, children);
        self.settle(output_start, children, remaining - 1);
        self.process(output_start, children, remaining - 1, bound, counted).await?;
        self.reduce(output_start, children, remaining - 1);
        Ok(())
    }

    /// Runs the leaf kernel `entry` over `start..start + count` (slots, the
    /// live list's places with `list_total`, or a move list's pairs), in
    /// dispatches of at most `leaf_positions_per_dispatch`, reading the
    /// totals for progress now and then.
    async fn count_leaves(
        &mut self,
        entry: &str,
        start: u32,
        count: u32,
        list_total: Option<u32>,
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
                    leaves: 1,
                    leaf_list: 1,
                    list_total,
                    ..Default::default()
                },
                None => PerftParameters { start: start + offset, count: part, leaves: 1, ..Default::default() },
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

    /// Writes the live slots of the leaf level `start..start + count` to
    /// the live list (`gather_live`); returns the merge word that holds its length.
    fn gather_live(&mut self, start: u32, count: u32) -> u32 {
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
    fn expand(&mut self, start: u32, count: u32, output_start: u32, base_offset: u32, children: u32) {
        let parameters = PerftParameters { start, count, output_start, base_offset, ..Default::default() };
        self.dispatch("expand_moves", parameters, count);
        let children_parameters = PerftParameters { start: output_start, count: children, ..Default::default() };
        self.dispatch("write_children", children_parameters, children);
    }

    /// Settles a level just written at arena slots `start..start + count`,
    /// with `remaining` plies below it: with tables, [`Self::dedupe`];
    /// otherwise [`Self::merge`].
    fn settle(&mut self, start: u32, count: u32, remaining: u32) {
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
    fn dedupe(&mut self, start: u32, count: u32, remaining: u32) {
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
    fn reduce(&mut self, start: u32, count: u32, remaining: u32) {
        if !self.tables || count == 0 {
            return;
        }
        let parameters = PerftParameters { start, count, remaining, ..Default::default() };
        self.dispatch("reduce_level", parameters, count);
    }

    /// Exclusive prefix sum of scan words `data_start..data_start + count` in
    /// place; block sums go from `sums_start` on. Returns where the total is.
    fn scan(&mut self, data_start: u32, count: u32, sums_start: u32) -> u32 {
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
    fn dispatch(&mut self, entry_point: &str, mut parameters: PerftParameters, invocations: u32) {
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
    fn flush(&mut self) {
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
    async fn read_total_and_status(&mut self, total_slot: u32) -> Result<u32, Interrupt> {
        self.check_cancelled()?;
        self.flush();
        let words: Vec<u32> = self
            .staging
            .read_ranges(&self.context, &[(&self.scan, u64::from(total_slot) * 4, 4), (&self.status, 0, 4)])
            .await?;
        self.fault_error(words[1])?;
        Ok(words[0])
    }

    async fn read_totals(&mut self, counters: usize) -> Result<Vec<u64>, GpuError> {
        self.flush();
        let words: Vec<u32> = self.staging.read(&self.context, &self.totals, 0, counters as u64 * 8).await?;
        Ok(words.chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    /// A group's totals and the fault flags in one round trip; a fault is
    /// an error before any total is used.
    async fn read_totals_and_status(&mut self, counters: usize) -> Result<Vec<u64>, Interrupt> {
        self.check_cancelled()?;
        self.flush();
        let size = counters as u64 * 8;
        let words: Vec<u32> =
            self.staging.read_ranges(&self.context, &[(&self.totals, 0, size), (&self.status, 0, 4)]).await?;
        self.fault_error(words[counters * 2])?;
        Ok(words[..counters * 2].chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    /// The error for a nonzero fault word of the kernels.
    fn fault_error(&self, flags: u32) -> Result<(), Interrupt> {
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

/// The totals of the group being counted, and where progress goes.
struct Counted<'a> {
    counters: usize,
    progress: &'a mut dyn FnMut(u64),
    last_report: web_time::Instant,
}

/// How often the leaf kernels' running totals are read for progress.
const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);
