//! The engine itself: the arena and its companion buffers, the kernels,
//! and the level-by-level loop that expands, merges, counts and reads back.
//! This file builds the engine and holds its public calls; `walk` is the
//! loop over root groups and levels, `steps` the kernels' dispatches and
//! the reads that end each level.

use super::plan::{DeviceFacts, MemoryPlan, MemoryReport, reserve, scan_words};
use super::*;

mod steps;
mod walk;

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
    options: PerftOptions<G::Build>,
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
    pub fn with_options(context: &GpuContext, options: PerftOptions<G::Build>) -> Result<Self, GpuError> {
        crate::gpu::runtime::block_on(Self::with_options_async(context, options))
    }

    /// [`Self::with_options`], awaited.
    pub async fn with_options_async(context: &GpuContext, options: PerftOptions<G::Build>) -> Result<Self, GpuError> {
        let device = &context.device;
        let limits = device.limits();
        // The game's data is built once: its length sizes the plan, its words fill the buffer.
        let table_words = G::table_words(options.build);
        let asked = options.table_bytes.unwrap_or_else(|| default_table_bytes(context, options.memory_limit, None));
        let plan = MemoryPlan::new::<G>(&DeviceFacts::of(context), &options, table_words.len() as u64 * 4, asked)?;
        G::check_device(device, options.build)?;
        if options.leaf_statistics && G::STATISTICS_COLUMNS == 0 {
            return Err(GpuError::Internal(format!("{} has no statistics kernel", std::any::type_name::<G>())));
        }
        // Refusals the request alone decides come first; then the device's trust.
        let mut checks = G::known_answer_checks(options.build, options.fused_leaves);
        if options.leaf_statistics {
            checks.extend(G::statistics_checks(options.build));
        }
        context.require_async(&checks).await?;
        let memory = memory_module(&plan.layout);
        let shader = match G::statistics_shader(options.build, &memory) {
            Some(shader) if options.leaf_statistics => shader?,
            _ => G::perft_shader(options.build, &memory)?,
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

    /// `work` on this engine with `stop` as its cancel flag
    /// ([`Self::set_cancel`]), the flag removed after: a count that a front
    /// end can stop.
    pub fn with_cancel<T>(
        &mut self,
        stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
        work: impl FnOnce(&mut Self) -> T,
    ) -> T {
        self.cancel = Some(std::sync::Arc::clone(stop));
        let result = work(self);
        self.cancel = None;
        result
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
    /// the move list the leaf kernel counts, rather than as positions. The
    /// looped leaf counts the children of a move list's pairs where no level
    /// is merged (a merged level would count equal positions once): that
    /// spares writing the last stored level and reading it back.
    fn pairs_below(&self, remaining: u32) -> bool {
        if self.columns > 1 {
            remaining == 1
        } else if !self.options.fused_leaves {
            false
        } else {
            match self.fused_shape {
                FusedShape::PerMove => remaining == 2,
                _ => remaining == 3 && !self.plan.merges(),
            }
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
        self.count(roots, depth, 1, progress).await?.ok_or_else(|| past_u64(depth))
    }

    /// Perft split by root move ([`crate::game::divide_with`]): each legal
    /// move of `position` with the count `depth - 1` plies below its child,
    /// in the game's divide order, all the children counted as one batch.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn divide(
        &mut self,
        position: &G::Position,
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<(G::Move, u64)>, GpuError> {
        crate::game::divide_with::<G, _, _>(position, depth, |children, below| self.perft(children, below, progress))
    }

    /// [`Self::divide`], awaited.
    pub async fn divide_async(
        &mut self,
        position: &G::Position,
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<(G::Move, u64)>, GpuError> {
        if depth == 0 {
            return Ok(Vec::new());
        }
        let (moves, children) = crate::game::root_children::<G>(position);
        let counts = self.perft_async(&children, depth - 1, progress).await?;
        Ok(crate::game::by_move::<G, u64>(moves, counts))
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
}

/// The error of a 64-bit count whose root's perft(`depth`) passes 2^64.
pub(in crate::gpu::perft) fn past_u64(depth: u32) -> GpuError {
    GpuError::ShaderFault(format!(
        "a root's perft({depth}) passes 2^64, more than this call returns (perft_wide counts it)"
    ))
}
