//! Perft on the GPU, the shape the fastest GPU perft uses: the positions of
//! one level sit in a preallocated arena; per level the GPU counts each
//! position's moves, prefix-sums the counts and writes every child after the
//! level (each child tagged with its root), until the last two plies, which
//! one kernel counts without storing them.
//!
//! # Exact in fixed memory
//!
//! The arena is a stack of levels. A level at `[start, end)` writes its
//! children from `end` on, so no position is overwritten before its subtree
//! is counted. A level whose children do not fit is split into chunks of
//! parents whose children do, and each chunk goes on depth first. Each chunk
//! keeps room for the levels below it: `reserve(r) = B * (r - 2)` positions
//! for a level with `r` plies still to count (the last two plies store
//! nothing), where `B` bounds any one position's children. By induction
//! every level then has room for at least one parent's children, so the
//! engine never runs out of arena at any depth.
//!
//! `B` is first taken as [`PerftOptions::reserve_moves`] (218, the most moves
//! of any position a game can reach). A position with more (validation lets
//! through unreachable ones with up to [`MAX_LEGAL_MOVES`]) stops its root
//! group: the group's totals are discarded and it runs again with
//! `B = MAX_LEGAL_MOVES`, a proven bound. Totals are per root group and are
//! kept only after the whole group succeeded, so a count is returned only
//! when every part of it was counted once.
//!
//! Totals are 64-bit: the kernels add into pairs of 32-bit atomics with a
//! carry, and the host adds the pairs as `u64`.

use super::context::{GpuContext, GpuError};
use super::layout::{GpuPerftParameters, GpuPosition};
use super::resources::{buffer, compute_pipeline, grid, read_mapped, storage_entry, uniform_entry};
use super::shaders;
use crate::board::{Move, Position};
use crate::movegen::MAX_LEGAL_MOVES;

/// Settings of a [`GpuPerft`]. The defaults suit real use; tests shrink them
/// to force every path of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerftOptions {
    /// Positions the arena holds; `None` sizes it from the device's limits
    /// and [`PerftOptions::memory_limit`]. Small values force levels to be split.
    pub arena_positions: Option<usize>,
    /// The most bytes of GPU memory the engine allocates, tables, arena,
    /// counters and staging together (`--gpu-memory`); `None`: no cap but the device's.
    pub memory_limit: Option<u64>,
    /// The most positions whose moves are counted and prefix-summed at once
    /// (at most [`MAX_COUNTED_AT_ONCE`], which keeps the sums within u32).
    pub counted_at_once: u32,
    /// The most positions one dispatch of the last-ply kernels takes; the
    /// totals are read back (and progress reported) after each.
    pub leaf_positions_per_dispatch: usize,
    /// The most roots counted together; `None` picks a quarter of the room
    /// the arena has at that depth. Never more than [`MAX_ROOT_GROUP`].
    pub root_group_size: Option<usize>,
    /// The first bound on one position's children used to keep room for the
    /// levels below (see the module documentation). Values below 218 work,
    /// slower, because a group that meets a larger position runs again.
    pub reserve_moves: u32,
    /// Slider algorithm and bitboard representation, fixed when the pipelines are built.
    pub variant: shaders::ShaderVariant,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions {
            arena_positions: None,
            memory_limit: None,
            counted_at_once: MAX_COUNTED_AT_ONCE,
            leaf_positions_per_dispatch: 1 << 20,
            root_group_size: None,
            reserve_moves: REACHABLE_MAX_MOVES,
            variant: shaders::ShaderVariant::default(),
        }
    }
}

/// The most legal moves of any position reachable in a game.
pub const REACHABLE_MAX_MOVES: u32 = 218;
/// Counting this many positions at once keeps their children's prefix sums
/// within u32, even at [`MAX_LEGAL_MOVES`] children each.
pub const MAX_COUNTED_AT_ONCE: u32 = 1 << 23;
/// The most roots one group holds (their totals buffer is sized for this).
pub const MAX_ROOT_GROUP: usize = 1 << 16;
/// The arena's default ceiling: 2^25 positions are 1.25 GiB.
const DEFAULT_ARENA_CEILING: u64 = 1 << 25;
/// The smallest arena: one root and its children at the proven bound.
const MIN_ARENA: u64 = 1 + MAX_LEGAL_MOVES as u64;
const SCAN_BLOCK: u32 = 256;
/// Bytes of GPU memory per arena slot: the position, its root tag, its
/// scan word, a share of the scan's block sums (rounded up) and, at most,
/// one root total.
const BYTES_PER_SLOT: u64 = size_of::<GpuPosition>() as u64 + 4 + 4 + 1 + 8;
/// The staging buffer for readbacks; offsets are read in pieces of this size.
const STAGING_BYTES: u64 = 1 << 20;
/// Status word, parameters and alignment slack.
const FIXED_BYTES: u64 = 4096;

const FAULT_NO_KING: u32 = 1;
const FAULT_ARENA_OVERFLOW: u32 = 2;

struct Pipelines {
    count_moves: wgpu::ComputePipeline,
    scan_blocks: wgpu::ComputePipeline,
    add_block_sums: wgpu::ComputePipeline,
    expand: wgpu::ComputePipeline,
    count_leaves: wgpu::ComputePipeline,
    count_leaves_fused: wgpu::ComputePipeline,
}

/// What the engine did since it was made: tests use it to show that a path
/// was taken, and `--verbose` style reports can print it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerftStatistics {
    /// Root groups counted to the end.
    pub root_groups: u64,
    /// Root groups discarded and run again with a larger reserve.
    pub restarted_groups: u64,
    /// Levels whose children did not fit at once and were split into chunks.
    pub split_levels: u64,
    /// Parts of levels larger than the counted-at-once cap.
    pub level_parts: u64,
    /// Dispatches of the last-ply kernels.
    pub leaf_dispatches: u64,
}

/// Why a root group stopped before its end.
enum Interrupt {
    /// A failure that ends the whole run.
    Gpu(GpuError),
    /// A position had more children than the room the group kept for it.
    TooManyChildren { children: u32 },
}

impl From<GpuError> for Interrupt {
    fn from(error: GpuError) -> Self {
        Interrupt::Gpu(error)
    }
}

/// Positions to keep free below a level with `remaining` plies to count,
/// when no position has more than `bound` children.
fn reserve(remaining: u32, bound: u32) -> u64 {
    u64::from(remaining.saturating_sub(2)) * u64::from(bound)
}

/// How the engine's memory is laid out, from the options and the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MemoryPlan {
    capacity: u32,
    totals_capacity: u32,
    staging_bytes: u64,
    table_bytes: u64,
}

impl MemoryPlan {
    fn new(limits: &wgpu::Limits, options: &PerftOptions) -> Result<MemoryPlan, GpuError> {
        let position_size = size_of::<GpuPosition>() as u64;
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let table_bytes = u64::from(options.variant.table_words()) * 8;
        if binding < table_bytes {
            return Err(GpuError::Limits(format!(
                "max_storage_buffer_binding_size is {binding} bytes; the attack tables need {table_bytes}"
            )));
        }
        let mut staging_bytes = STAGING_BYTES;
        let mut capacity = (binding / position_size).min(u64::from(u32::MAX) / 2);
        if let Some(limit) = options.memory_limit {
            staging_bytes = (limit / 16).clamp(4096, STAGING_BYTES);
            let fixed = table_bytes + staging_bytes + FIXED_BYTES;
            let needed = fixed + MIN_ARENA * BYTES_PER_SLOT;
            if limit < needed {
                return Err(GpuError::Limits(format!(
                    "a GPU memory limit of {limit} bytes is too small for the {} sliders: perft needs at \
                     least {needed} bytes ({:.2} MiB)",
                    options.variant.name(),
                    needed as f64 / (1024.0 * 1024.0),
                )));
            }
            capacity = capacity.min((limit - fixed) / BYTES_PER_SLOT);
        }
        capacity = match options.arena_positions {
            Some(positions) => capacity.min(positions as u64),
            None if options.memory_limit.is_some() => capacity,
            None => capacity.min(DEFAULT_ARENA_CEILING),
        };
        if capacity < MIN_ARENA {
            return Err(GpuError::Limits(format!(
                "a perft arena of {capacity} positions is too small; it needs at least {MIN_ARENA}"
            )));
        }
        let totals_capacity = capacity.min(MAX_ROOT_GROUP as u64) as u32;
        Ok(MemoryPlan { capacity: capacity as u32, totals_capacity, staging_bytes, table_bytes })
    }

    /// Bytes the plan allocates on the GPU.
    fn bytes(&self) -> u64 {
        let capacity = u64::from(self.capacity);
        let scan_words = capacity + capacity / u64::from(SCAN_BLOCK - 1) + 64;
        self.table_bytes
            + capacity * (size_of::<GpuPosition>() as u64 + 4)
            + scan_words * 4
            + u64::from(self.totals_capacity) * 8
            + self.staging_bytes
            + 4
            + size_of::<GpuPerftParameters>() as u64
    }
}

/// The GPU perft driver: pipelines, the arena and its companions.
pub struct GpuPerft {
    context: GpuContext,
    pipelines: Pipelines,
    /// Kept alive with the bind group; never read by the host.
    _tables: wgpu::Buffer,
    arena: wgpu::Buffer,
    roots: wgpu::Buffer,
    scan: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    totals: wgpu::Buffer,
    staging: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    plan: MemoryPlan,
    options: PerftOptions,
    max_workgroups: u32,
    statistics: PerftStatistics,
}

impl GpuPerft {
    pub fn new(context: &GpuContext) -> Result<GpuPerft, GpuError> {
        GpuPerft::with_options(context, PerftOptions::default())
    }

    pub fn with_options(context: &GpuContext, options: PerftOptions) -> Result<GpuPerft, GpuError> {
        let device = &context.device;
        let limits = device.limits();
        let plan = MemoryPlan::new(&limits, &options)?;
        super::movegen::check_variant(device, options.variant)?;
        let source = shaders::compose_variant("perft", options.variant, &[])?;
        let capacity = u64::from(plan.capacity);

        context.scoped(|| {
            use wgpu::BufferUsages as Usage;
            let table_data = shaders::attack_table_data();
            let tables = wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("attack tables"),
                    contents: bytemuck::cast_slice(&table_data[..options.variant.table_words() as usize]),
                    usage: Usage::STORAGE,
                },
            );
            let position_size = size_of::<GpuPosition>() as u64;
            let arena = buffer(device, "perft arena", capacity * position_size, Usage::STORAGE | Usage::COPY_DST);
            let roots = buffer(device, "perft roots", capacity * 4, Usage::STORAGE | Usage::COPY_DST);
            // Counts for every arena slot, then the block sums of each scan level.
            let scan_words = capacity + capacity / u64::from(SCAN_BLOCK - 1) + 64;
            let scan = buffer(device, "perft scan", scan_words * 4, Usage::STORAGE | Usage::COPY_SRC);
            let status = buffer(device, "perft status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
            let parameters = buffer(
                device,
                "perft parameters",
                size_of::<GpuPerftParameters>() as u64,
                Usage::UNIFORM | Usage::COPY_DST,
            );
            let totals = buffer(
                device,
                "perft totals",
                u64::from(plan.totals_capacity) * 8,
                Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC,
            );
            let staging = buffer(device, "perft staging", plan.staging_bytes, Usage::MAP_READ | Usage::COPY_DST);
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("perft"),
                entries: &[
                    storage_entry(0, true),
                    storage_entry(1, false),
                    storage_entry(2, false),
                    storage_entry(3, false),
                    storage_entry(5, false),
                    storage_entry(6, false),
                    uniform_entry(7),
                ],
            });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("perft"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("perft"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            let pipeline = |entry_point: &str| compute_pipeline(device, &pipeline_layout, &module, entry_point);
            let pipelines = Pipelines {
                count_moves: pipeline("count_moves"),
                scan_blocks: pipeline("scan_blocks"),
                add_block_sums: pipeline("add_block_sums"),
                expand: pipeline("expand"),
                count_leaves: pipeline("count_leaves"),
                count_leaves_fused: pipeline("count_leaves_fused"),
            };
            let bindings =
                [(0, &tables), (1, &arena), (2, &roots), (3, &scan), (5, &totals), (6, &status), (7, &parameters)];
            let entries: Vec<wgpu::BindGroupEntry> = bindings
                .iter()
                .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
                .collect();
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("perft"),
                layout: &layout,
                entries: &entries,
            });
            GpuPerft {
                context: context.clone(),
                pipelines,
                _tables: tables,
                arena,
                roots,
                scan,
                status,
                parameters,
                totals,
                staging,
                bind_group,
                plan,
                options,
                max_workgroups: limits.max_compute_workgroups_per_dimension,
                statistics: PerftStatistics::default(),
            }
        })
    }

    /// Positions the arena holds.
    pub fn capacity(&self) -> usize {
        self.plan.capacity as usize
    }

    /// What the engine has done so far.
    pub fn statistics(&self) -> PerftStatistics {
        self.statistics
    }

    /// Bytes of GPU memory this engine allocated.
    pub fn memory_bytes(&self) -> u64 {
        self.plan.bytes()
    }

    /// The deepest perft this arena can count with the given bound on one
    /// position's children (see the module documentation).
    fn fits(&self, depth: u32, bound: u32) -> bool {
        u64::from(self.plan.capacity) > reserve(depth, bound)
    }

    /// Perft of each root to `depth`, all roots sharing the GPU. `progress`
    /// receives the nodes counted so far, now and then.
    pub fn perft(
        &mut self,
        roots: &[Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, GpuError> {
        if depth == 0 {
            return Ok(vec![1; roots.len()]);
        }
        if !self.fits(depth, self.options.reserve_moves.min(MAX_LEGAL_MOVES as u32)) {
            return Err(GpuError::Limits(format!(
                "perft to depth {depth} needs an arena of at least {} positions; this one holds {} \
                 (allow more GPU memory)",
                reserve(depth, self.options.reserve_moves) + 1,
                self.plan.capacity
            )));
        }
        let context = self.context.clone();
        context.scoped(|| self.run(roots, depth, progress))?
    }

    /// Perft split by root move, as [`crate::perft::divide`]: each legal move
    /// with perft(depth - 1) of its child, in UCI order.
    pub fn divide(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<(Move, u64)>, GpuError> {
        crate::perft::divide_with(position, depth, |children, below| self.perft(children, below, progress))
    }

    /// How many roots to count together at `depth` with `bound`.
    fn group_size(&self, depth: u32, bound: u32) -> usize {
        let room = u64::from(self.plan.capacity) - reserve(depth, bound);
        let automatic = if depth <= 2 { room } else { (room / 4).max(1) };
        let size = match self.options.root_group_size {
            Some(size) => (size.max(1) as u64).min(room),
            None => automatic,
        };
        (size as usize).min(self.plan.totals_capacity as usize)
    }

    fn run(&mut self, roots: &[Position], depth: u32, progress: &mut dyn FnMut(u64)) -> Result<Vec<u64>, GpuError> {
        self.context.queue.write_buffer(&self.status, 0, bytemuck::bytes_of(&0u32));
        let mut totals = Vec::with_capacity(roots.len());
        let mut counted_before = 0u64;
        let fast_bound = self.options.reserve_moves.clamp(1, MAX_LEGAL_MOVES as u32);
        while totals.len() < roots.len() {
            let remaining = &roots[totals.len()..];
            let mut bound = fast_bound;
            let group_totals = loop {
                let group = &remaining[..self.group_size(depth, bound).min(remaining.len())];
                let mut report = |nodes: u64| progress(counted_before + nodes);
                match self.count_group(group, depth, bound, &mut report) {
                    Ok(group_totals) => break group_totals,
                    Err(Interrupt::Gpu(error)) => return Err(error),
                    Err(Interrupt::TooManyChildren { children }) => {
                        // Validation bounds every position's moves; the proven bound always fits.
                        if bound >= MAX_LEGAL_MOVES as u32 {
                            return Err(GpuError::ShaderFault(format!(
                                "a position has {children} legal moves, more than the proven bound {MAX_LEGAL_MOVES}"
                            )));
                        }
                        self.statistics.restarted_groups += 1;
                        bound = children.max(bound.saturating_mul(2)).min(MAX_LEGAL_MOVES as u32);
                        if !self.fits(depth, bound) {
                            return Err(GpuError::Limits(format!(
                                "a position with {children} legal moves needs an arena of at least {} positions \
                                 for perft to depth {depth}; this one holds {} (allow more GPU memory)",
                                reserve(depth, bound) + 1,
                                self.plan.capacity
                            )));
                        }
                    }
                }
            };
            self.statistics.root_groups += 1;
            counted_before += group_totals.iter().sum::<u64>();
            totals.extend(group_totals);
        }
        self.check_status()?;
        Ok(totals)
    }

    /// Counts one group of roots; their totals, or why not.
    fn count_group(
        &mut self,
        group: &[Position],
        depth: u32,
        bound: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, Interrupt> {
        let queue = &self.context.queue;
        let positions: Vec<GpuPosition> = group.iter().map(GpuPosition::from).collect();
        let root_indices: Vec<u32> = (0..group.len() as u32).collect();
        queue.write_buffer(&self.totals, 0, &vec![0u8; group.len() * 8]);
        queue.write_buffer(&self.arena, 0, bytemuck::cast_slice(&positions));
        queue.write_buffer(&self.roots, 0, bytemuck::cast_slice(&root_indices));
        let mut counted = Counted { roots: group.len(), progress };
        self.process(0, group.len() as u32, depth, bound, &mut counted)?;
        let totals = self.read_totals(group.len())?;
        self.check_status()?;
        Ok(totals)
    }

    /// Counts the subtrees of arena slots `start..start + count` to
    /// `remaining` plies. The caller guarantees `reserve(remaining, bound)`
    /// free slots after the level.
    fn process(
        &mut self,
        start: u32,
        count: u32,
        remaining: u32,
        bound: u32,
        counted: &mut Counted,
    ) -> Result<(), Interrupt> {
        if count == 0 {
            return Ok(());
        }
        if remaining <= 2 {
            let chunk = self.options.leaf_positions_per_dispatch.clamp(1, u32::MAX as usize) as u32;
            let mut offset = 0;
            while offset < count {
                let part = chunk.min(count - offset);
                let parameters = GpuPerftParameters { start: start + offset, count: part, ..Default::default() };
                let pipeline =
                    if remaining == 1 { &self.pipelines.count_leaves } else { &self.pipelines.count_leaves_fused };
                self.dispatch(pipeline, parameters, part, 64);
                self.statistics.leaf_dispatches += 1;
                offset += part;
                let totals = self.read_totals(counted.roots)?;
                (counted.progress)(totals.iter().sum());
            }
            return Ok(());
        }
        let level_end = start + count;
        let free = u64::from(self.plan.capacity - level_end);
        // Room for the children of one chunk, keeping what the levels below need.
        let budget = free.saturating_sub(reserve(remaining - 1, bound)).min(u64::from(u32::MAX)) as u32;
        let per_part = self.options.counted_at_once.clamp(1, MAX_COUNTED_AT_ONCE);
        let mut part_start = start;
        while part_start < level_end {
            let part = per_part.min(level_end - part_start);
            if part < count {
                self.statistics.level_parts += 1;
            }
            self.dispatch(
                &self.pipelines.count_moves,
                GpuPerftParameters { start: part_start, count: part, ..Default::default() },
                part,
                64,
            );
            let total_slot = self.scan(part_start, part, self.plan.capacity);
            let total = self.read_total_and_status(total_slot)?;
            if total <= budget {
                self.expand(part_start, part, level_end, 0);
                self.process(level_end, total, remaining - 1, bound, counted)?;
            } else {
                // The children do not fit at once: split the parents where they do.
                self.statistics.split_levels += 1;
                let scan = self.scan.clone();
                let offsets = self.read_words(&scan, part_start, part)?;
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
                    self.expand(part_start + first as u32, (last - first) as u32, level_end, base);
                    self.process(level_end, end_of(last) - base, remaining - 1, bound, counted)?;
                    first = last;
                }
            }
            part_start += part;
        }
        Ok(())
    }

    fn expand(&self, start: u32, count: u32, output_start: u32, base_offset: u32) {
        let parameters = GpuPerftParameters { start, count, output_start, base_offset, ..Default::default() };
        self.dispatch(&self.pipelines.expand, parameters, count, 64);
    }

    /// Exclusive prefix sum of scan words `data_start..data_start + count` in
    /// place; block sums go from `sums_start` on. Returns where the total is.
    fn scan(&self, data_start: u32, count: u32, sums_start: u32) -> u32 {
        let blocks = count.div_ceil(SCAN_BLOCK);
        let parameters =
            GpuPerftParameters { count, scan_start: data_start, scan_sums: sums_start, ..Default::default() };
        self.dispatch(&self.pipelines.scan_blocks, parameters, blocks * SCAN_BLOCK, SCAN_BLOCK);
        if blocks == 1 {
            return sums_start;
        }
        let total = self.scan(sums_start, blocks, sums_start + blocks);
        self.dispatch(&self.pipelines.add_block_sums, parameters, blocks * SCAN_BLOCK, SCAN_BLOCK);
        total
    }

    /// Writes the parameters and submits one dispatch of `invocations` invocations.
    fn dispatch(
        &self,
        pipeline: &wgpu::ComputePipeline,
        parameters: GpuPerftParameters,
        invocations: u32,
        workgroup_size: u32,
    ) {
        let (device, queue) = (&self.context.device, &self.context.queue);
        // Each write lands before the submit that follows it, so one buffer serves every dispatch.
        queue.write_buffer(&self.parameters, 0, bytemuck::bytes_of(&parameters));
        let (x, y) = grid(invocations.div_ceil(workgroup_size), self.max_workgroups);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("perft") });
        {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("perft"), timestamp_writes: None });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        queue.submit([encoder.finish()]);
    }

    /// Copies `count` words from `first` on out of `source` and reads them,
    /// in pieces the staging buffer holds.
    fn read_words(&mut self, source: &wgpu::Buffer, first: u32, count: u32) -> Result<Vec<u32>, GpuError> {
        let piece_words = (self.plan.staging_bytes / 4) as u32;
        let mut words = Vec::with_capacity(count as usize);
        let mut offset = 0;
        while offset < count {
            let piece = piece_words.min(count - offset);
            let size = u64::from(piece) * 4;
            let mut encoder = self.context.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(source, u64::from(first + offset) * 4, &self.staging, 0, size);
            self.context.queue.submit([encoder.finish()]);
            words.extend(read_mapped::<u32>(&self.context, &self.staging, size)?);
            offset += piece;
        }
        Ok(words)
    }

    /// Reads a level's child total and the fault flags in one round trip;
    /// a fault is an error at once, before its counts are used.
    fn read_total_and_status(&mut self, total_slot: u32) -> Result<u32, GpuError> {
        let mut encoder = self.context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.scan, u64::from(total_slot) * 4, &self.staging, 0, 4);
        encoder.copy_buffer_to_buffer(&self.status, 0, &self.staging, 4, 4);
        self.context.queue.submit([encoder.finish()]);
        let words = read_mapped::<u32>(&self.context, &self.staging, 8)?;
        fault_error(words[1])?;
        Ok(words[0])
    }

    fn read_totals(&mut self, roots: usize) -> Result<Vec<u64>, GpuError> {
        let totals = self.totals.clone();
        let words = self.read_words(&totals, 0, roots as u32 * 2)?;
        Ok(words.chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    fn check_status(&mut self) -> Result<(), GpuError> {
        let status = self.status.clone();
        fault_error(self.read_words(&status, 0, 1)?[0])
    }
}

/// The roots of the group being counted, and where progress goes.
struct Counted<'a> {
    roots: usize,
    progress: &'a mut dyn FnMut(u64),
}

/// The error for a nonzero fault word of the kernels.
fn fault_error(flags: u32) -> Result<(), GpuError> {
    if flags == 0 {
        return Ok(());
    }
    let mut reasons = Vec::new();
    if flags & FAULT_NO_KING != 0 {
        reasons.push("a position has no king for the side to move");
    }
    if flags & FAULT_ARENA_OVERFLOW != 0 {
        reasons.push("children overflowed the arena");
    }
    Err(GpuError::ShaderFault(format!("{} (flags {flags:#x})", reasons.join(", "))))
}
