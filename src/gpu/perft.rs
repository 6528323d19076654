//! The breadth-first perft engine every game's GPU perft runs on, the shape
//! the fastest GPU perft uses: the positions of one level sit in a
//! preallocated arena; per level the GPU counts each position's moves,
//! prefix-sums the counts and writes every child after the level (each child
//! tagged with its root), until the last two plies, which one kernel counts
//! without storing them. A game brings its position record, its kernels and
//! its bounds through [`PerftGame`]; the engine does the levels, the scans,
//! the splitting, the 64-bit totals, progress and faults once for all games.
//!
//! # Exact in fixed memory
//!
//! The arena is a stack of levels. A level at `[start, end)` writes its
//! children from `end` on, so no position is overwritten before its subtree
//! is counted. A level whose children do not fit is split into chunks of
//! parents whose children do, and each chunk goes on depth first. Each chunk
//! keeps room for the levels below it: `reserve(r) = B * (r - 2)` positions
//! for a level with `r` plies still to count (the last two plies store
//! nothing; `r - 1` when only the last ply is counted unstored), where `B`
//! bounds any one position's children. By induction
//! every level then has room for at least one parent's children, so the
//! engine never runs out of arena at any depth.
//!
//! `B` is first taken as [`PerftOptions::reserve_moves`] (by default the
//! game's [`PerftGame::REACHABLE_MAX_MOVES`]). A position with more children
//! stops its root group: the group's totals are discarded and it runs again
//! with a larger `B`, up to [`PerftGame::MAX_LEGAL_MOVES`], a proven bound for
//! every position the game accepts. Totals are per root group and are kept
//! only after the whole group succeeded, so a count is returned only when
//! every part of it was counted once.
//!
//! Totals are 64-bit: the kernels add into pairs of 32-bit atomics with a
//! carry, and the host adds the pairs as `u64`.

use bytemuck::{Pod, Zeroable};

use super::composer;
use super::context::{GpuContext, GpuError};
use super::reflect::{ComposedShader, Kernels, RuntimeChecks};
use super::resources::{Staging, buffer, buffer_with, record_dispatch};

/// A game's side of the engine: its record, kernels, data and bounds.
pub trait PerftGame {
    /// The position as callers hold it.
    type Position;
    /// The arena record the kernels read and write (`PerftRecord` in WGSL).
    type Record: Pod;
    /// What the kernels are built with (chess: the slider algorithm and
    /// bitboard representation).
    type Variant: Copy + std::fmt::Debug + Default + PartialEq;

    /// The most legal moves of any position reachable in a game.
    const REACHABLE_MAX_MOVES: u32;
    /// A proven bound on the legal moves of every position the game accepts.
    const MAX_LEGAL_MOVES: u32;
    /// What a kernel's FAULT_INVALID_POSITION means for this game.
    const INVALID_POSITION: &'static str;

    /// The record of a position, as the kernels of `variant` read it.
    fn pack(variant: Self::Variant, position: &Self::Position) -> Self::Record;
    /// The perft module, composed: the engine's module
    /// (shaders/common/perft_engine.wgsl) and the game's four kernels.
    fn perft_shader(variant: Self::Variant) -> Result<ComposedShader, GpuError>;
    /// The read-only data at binding 0 (tables), as 32-bit words.
    fn table_words(variant: Self::Variant) -> Vec<u32>;
    /// A short description of the variant for error messages.
    fn describe(variant: Self::Variant) -> String;
    /// Refuses a variant the device cannot run.
    fn check_device(device: &wgpu::Device, variant: Self::Variant) -> Result<(), GpuError>;
    /// The self-test's known-answer checks of these kernels, which a device
    /// must pass before an engine is made on it (see `super::self_test`).
    fn known_answer_checks(variant: Self::Variant) -> Vec<super::self_test::Check>;
}

/// Settings of a [`PerftEngine`]. The defaults suit real use; tests shrink
/// them to force every path of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerftOptions<Variant> {
    /// Positions the arena holds; `None` sizes it from the device's limits
    /// and [`PerftOptions::memory_limit`]. Small values force levels to be split.
    pub arena_positions: Option<usize>,
    /// The most bytes of GPU memory the engine allocates, tables, arena,
    /// counters and staging together (`--gpu-memory`); `None`: no cap but the device's.
    pub memory_limit: Option<u64>,
    /// The most positions whose moves are counted and prefix-summed at once
    /// (at most [`MAX_COUNTED_AT_ONCE`], and fewer for games with many moves,
    /// which keeps the sums within u32).
    pub counted_at_once: u32,
    /// The most positions one dispatch of the last-ply kernels takes; the
    /// totals are read back (and progress reported) after each.
    pub leaf_positions_per_dispatch: usize,
    /// The most roots counted together; `None` picks a quarter of the room
    /// the arena has at that depth. Never more than [`MAX_ROOT_GROUP`].
    pub root_group_size: Option<usize>,
    /// The first bound on one position's children used to keep room for the
    /// levels below (see the module documentation); `None` takes the game's
    /// reachable maximum. Smaller values work, slower, because a group that
    /// meets a larger position runs again.
    pub reserve_moves: Option<u32>,
    /// Count the last two plies in one kernel (each position plays its moves
    /// and counts each child's), or store the last level too and count one
    /// ply per child: work spread over (position, move) pairs. The default
    /// is the faster on lavapipe for every game (BENCHMARKS.md).
    pub fused_leaves: bool,
    /// Runtime bounds checks in the kernels (see [`RuntimeChecks`]); off by
    /// default, on in the tests that also run them off.
    pub runtime_checks: RuntimeChecks,
    /// Merge equal positions of each stored level (same root, same whole
    /// position): each is expanded once and its count weighted by how many
    /// move sequences reach it. On by default; `--hash 0` turns it off.
    pub merge_transpositions: bool,
    /// What the kernels are built with, fixed when the engine is made.
    pub variant: Variant,
}

impl<Variant: Default> Default for PerftOptions<Variant> {
    fn default() -> Self {
        PerftOptions {
            arena_positions: None,
            memory_limit: None,
            counted_at_once: MAX_COUNTED_AT_ONCE,
            leaf_positions_per_dispatch: 1 << 20,
            root_group_size: None,
            reserve_moves: None,
            runtime_checks: RuntimeChecks::Off,
            merge_transpositions: true,
            fused_leaves: true,
            variant: Variant::default(),
        }
    }
}

/// The most positions counted and prefix-summed at once. A game with a
/// larger move bound gets fewer (`u32::MAX / PerftGame::MAX_LEGAL_MOVES`), so
/// the sums always stay within u32.
pub const MAX_COUNTED_AT_ONCE: u32 = 1 << 23;
/// The most roots one group holds (their totals buffer is sized for this).
pub const MAX_ROOT_GROUP: usize = 1 << 16;
/// Invocations per workgroup of the per-position kernels.
pub const POSITION_WORKGROUP: u32 = 64;
/// Invocations per workgroup of the scan, and the values each block sums.
pub const SCAN_BLOCK: u32 = 256;
/// A kernel met a position it cannot handle (chess: no king for the side to move).
pub const FAULT_INVALID_POSITION: u32 = 1;
/// A kernel would have written a child past the arena.
pub const FAULT_ARENA_OVERFLOW: u32 = 2;
/// The arena's default ceiling: 2^25 positions.
const DEFAULT_ARENA_CEILING: u64 = 1 << 25;
/// The staging buffer for readbacks; offsets are read in pieces of this size.
const STAGING_BYTES: u64 = 1 << 20;
/// Status word, parameters and alignment slack.
const FIXED_BYTES: u64 = 4096;

/// The engine's constants as WGSL, for every game's composed perft module.
pub fn engine_constants() -> String {
    composer::constants(&[
        ("POSITION_WORKGROUP", POSITION_WORKGROUP),
        ("SCAN_BLOCK", SCAN_BLOCK),
        ("FAULT_INVALID_POSITION", FAULT_INVALID_POSITION),
        ("FAULT_ARENA_OVERFLOW", FAULT_ARENA_OVERFLOW),
    ])
}

/// `PerftParameters` in shaders/common/perft_engine.wgsl: what one dispatch works on.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct PerftParameters {
    pub start: u32,
    pub count: u32,
    pub output_start: u32,
    pub base_offset: u32,
    pub scan_start: u32,
    pub scan_sums: u32,
    pub merge_slots: u32,
    pub reserved_1: u32,
}

const _: () = assert!(size_of::<PerftParameters>() == 32);

/// What the engine did since it was made: tests use it to show that a path
/// was taken.
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
    /// Levels whose equal positions were merged.
    pub merged_levels: u64,
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
/// when no position has more than `bound` children and the last
/// `leaf_plies` plies are counted without being stored.
fn reserve(remaining: u32, bound: u32, leaf_plies: u32) -> u64 {
    u64::from(remaining.saturating_sub(leaf_plies)) * u64::from(bound)
}

/// How the engine's memory is laid out, from the options and the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MemoryPlan {
    capacity: u32,
    totals_capacity: u32,
    staging_bytes: u64,
    table_bytes: u64,
    record_bytes: u64,
    merge: bool,
}

impl MemoryPlan {
    /// Bytes per arena slot: the record, its root tag, its scan word, a
    /// share of the scan's block sums (rounded up), at most one root total,
    /// its multiplicity and (when merging) up to four bytes of merge table
    /// twice over.
    fn bytes_per_slot(&self) -> u64 {
        self.record_bytes + 4 + 4 + 1 + 8 + 8 + if self.merge { 16 } else { 0 }
    }

    /// Entries of the merge table: twice the arena, rounded up to a power of two.
    fn merge_slots(&self) -> u64 {
        if self.merge { u64::from(self.capacity).next_power_of_two() * 2 } else { 4 }
    }

    fn new<G: PerftGame>(limits: &wgpu::Limits, options: &PerftOptions<G::Variant>) -> Result<MemoryPlan, GpuError> {
        let record_bytes = size_of::<G::Record>() as u64;
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let table_bytes = G::table_words(options.variant).len() as u64 * 4;
        if binding < table_bytes {
            return Err(GpuError::Limits(format!(
                "max_storage_buffer_binding_size is {binding} bytes; the tables need {table_bytes}"
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
        };
        let mut capacity = (binding / record_bytes).min(u64::from(u32::MAX) / 2);
        if let Some(limit) = options.memory_limit {
            plan.staging_bytes = (limit / 16).clamp(4096, STAGING_BYTES);
            let fixed = table_bytes + plan.staging_bytes + FIXED_BYTES;
            let needed = fixed + min_arena * plan.bytes_per_slot();
            if limit < needed {
                return Err(GpuError::Limits(format!(
                    "a GPU memory limit of {limit} bytes is too small for {}: perft needs at least {needed} bytes \
                     ({:.2} MiB)",
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
        Ok(plan)
    }

    /// Bytes the plan allocates on the GPU.
    fn bytes(&self) -> u64 {
        let capacity = u64::from(self.capacity);
        self.table_bytes
            + capacity * (self.record_bytes + 4 + 8)
            + self.merge_slots() * 4
            + scan_words(self.capacity) * 4
            + u64::from(self.totals_capacity) * 8
            + self.staging_bytes
            + 4
            + size_of::<PerftParameters>() as u64
    }
}

/// Scan words for an arena: one per slot, then the block sums of each scan level.
fn scan_words(capacity: u32) -> u64 {
    let capacity = u64::from(capacity);
    capacity + capacity / u64::from(SCAN_BLOCK - 1) + 64
}

/// The GPU perft driver of game `G`: kernels, the arena and its companions.
pub struct PerftEngine<G: PerftGame> {
    context: GpuContext,
    kernels: Kernels,
    arena: wgpu::Buffer,
    roots: wgpu::Buffer,
    scan: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    totals: wgpu::Buffer,
    multiplicity: wgpu::Buffer,
    merge_table: wgpu::Buffer,
    staging: Staging,
    bind_group: wgpu::BindGroup,
    plan: MemoryPlan,
    options: PerftOptions<G::Variant>,
    max_workgroups: u32,
    statistics: PerftStatistics,
    batch: Batch,
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

/// Parameter slots per submission.
const PARAMETER_SLOTS: u32 = 64;

impl<G: PerftGame> PerftEngine<G> {
    pub fn new(context: &GpuContext) -> Result<Self, GpuError> {
        Self::with_options(context, PerftOptions::default())
    }

    /// An engine on `context`, once its device has passed the self-test of
    /// these kernels (a device that failed it gets [`GpuError::SelfTestFailed`]).
    pub fn with_options(context: &GpuContext, options: PerftOptions<G::Variant>) -> Result<Self, GpuError> {
        let device = &context.device;
        let limits = device.limits();
        let plan = MemoryPlan::new::<G>(&limits, &options)?;
        G::check_device(device, options.variant)?;
        // Refusals the request alone decides come first; then the device's trust.
        context.require(&G::known_answer_checks(options.variant))?;
        let shader = G::perft_shader(options.variant)?;
        let capacity = u64::from(plan.capacity);

        context.scoped(|| {
            use wgpu::BufferUsages as Usage;
            let kernels = shader.build_kernels(device, "perft", options.runtime_checks, true);
            let stride = (size_of::<PerftParameters>() as u32).max(limits.min_uniform_buffer_offset_alignment);
            let tables = buffer_with(device, "perft tables", &G::table_words(options.variant), Usage::STORAGE);
            let arena = buffer(device, "perft arena", capacity * plan.record_bytes, Usage::STORAGE | Usage::COPY_DST);
            let roots = buffer(device, "perft roots", capacity * 4, Usage::STORAGE | Usage::COPY_DST);
            let scan = buffer(device, "perft scan", scan_words(plan.capacity) * 4, Usage::STORAGE | Usage::COPY_SRC);
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
            let multiplicity = buffer(device, "perft multiplicity", capacity * 8, Usage::STORAGE | Usage::COPY_DST);
            let merge_table =
                buffer(device, "perft merge table", plan.merge_slots() * 4, Usage::STORAGE | Usage::COPY_DST);
            let storage = [
                (0, &tables),
                (1, &arena),
                (2, &roots),
                (3, &scan),
                (5, &totals),
                (6, &status),
                (8, &multiplicity),
                (9, &merge_table),
            ];
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
            PerftEngine {
                context: context.clone(),
                kernels,
                arena,
                roots,
                scan,
                status,
                parameters,
                totals,
                multiplicity,
                merge_table,
                staging,
                bind_group,
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
            }
        })
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

    /// Plies counted without storing their positions.
    fn leaf_plies(&self) -> u32 {
        if self.options.fused_leaves { 2 } else { 1 }
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
    pub fn perft(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, GpuError> {
        if depth == 0 {
            return Ok(vec![1; roots.len()]);
        }
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
        context.scoped(|| self.run(roots, depth, progress))?
    }

    /// How many roots to count together at `depth` with `bound`.
    fn group_size(&self, depth: u32, bound: u32) -> usize {
        let room = u64::from(self.plan.capacity) - reserve(depth, bound, self.leaf_plies());
        let automatic = if depth <= self.leaf_plies() { room } else { (room / 4).max(1) };
        let size = match self.options.root_group_size {
            Some(size) => (size.max(1) as u64).min(room),
            None => automatic,
        };
        (size as usize).min(self.plan.totals_capacity as usize)
    }

    fn run(&mut self, roots: &[G::Position], depth: u32, progress: &mut dyn FnMut(u64)) -> Result<Vec<u64>, GpuError> {
        self.context.queue.write_buffer(&self.status, 0, bytemuck::bytes_of(&0u32));
        let mut totals = Vec::with_capacity(roots.len());
        let mut counted_before = 0u64;
        while totals.len() < roots.len() {
            let remaining = &roots[totals.len()..];
            let mut bound = self.first_bound();
            let group_totals = loop {
                let group = &remaining[..self.group_size(depth, bound).min(remaining.len())];
                let mut report = |nodes: u64| progress(counted_before + nodes);
                match self.count_group(group, depth, bound, &mut report) {
                    Ok(group_totals) => break group_totals,
                    Err(Interrupt::Gpu(error)) => return Err(error),
                    Err(Interrupt::TooManyChildren { children }) => {
                        // The game's proven bound always fits; more is a broken promise.
                        if bound >= G::MAX_LEGAL_MOVES {
                            return Err(GpuError::ShaderFault(format!(
                                "a position has {children} legal moves, more than the proven bound {}",
                                G::MAX_LEGAL_MOVES
                            )));
                        }
                        self.statistics.restarted_groups += 1;
                        bound = children.max(bound.saturating_mul(2)).min(G::MAX_LEGAL_MOVES);
                        if !self.fits(depth, bound) {
                            return Err(GpuError::Limits(format!(
                                "a position with {children} legal moves needs an arena of at least {} positions \
                                 for perft to depth {depth}; this one holds {} (allow more GPU memory)",
                                reserve(depth, bound, self.leaf_plies()) + 1,
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
        group: &[G::Position],
        depth: u32,
        bound: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<u64>, Interrupt> {
        // Work recorded for a group that stopped is never submitted.
        self.batch.encoder = None;
        self.batch.used = 0;
        let queue = &self.context.queue;
        let variant = self.options.variant;
        let records: Vec<G::Record> = group.iter().map(|position| G::pack(variant, position)).collect();
        let root_indices: Vec<u32> = (0..group.len() as u32).collect();
        queue.write_buffer(&self.totals, 0, &vec![0u8; group.len() * 8]);
        queue.write_buffer(&self.arena, 0, bytemuck::cast_slice(&records));
        queue.write_buffer(&self.roots, 0, bytemuck::cast_slice(&root_indices));
        // Each root is reached once.
        let ones: Vec<u32> = (0..group.len()).flat_map(|_| [1, 0]).collect();
        queue.write_buffer(&self.multiplicity, 0, bytemuck::cast_slice(&ones));
        let mut counted = Counted { roots: group.len(), progress, last_report: std::time::Instant::now() };
        self.process(0, group.len() as u32, depth, bound, &mut counted)?;
        let totals = self.read_totals(group.len())?;
        self.check_status()?;
        (counted.progress)(totals.iter().sum());
        Ok(totals)
    }

    /// Counts the subtrees of arena slots `start..start + count` to
    /// `remaining` plies. The caller guarantees `reserve(remaining, bound, _)`
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
        if remaining <= self.leaf_plies() {
            let chunk = self.options.leaf_positions_per_dispatch.clamp(1, u32::MAX as usize) as u32;
            let entry = if remaining == 1 { "count_leaves" } else { "count_leaves_fused" };
            let mut offset = 0;
            while offset < count {
                let part = chunk.min(count - offset);
                self.dispatch(
                    entry,
                    PerftParameters { start: start + offset, count: part, ..Default::default() },
                    part,
                );
                self.statistics.leaf_dispatches += 1;
                offset += part;
                // Progress costs a round trip; take one at most every so often.
                if counted.last_report.elapsed() >= PROGRESS_INTERVAL {
                    let totals = self.read_totals(counted.roots)?;
                    (counted.progress)(totals.iter().sum());
                    counted.last_report = std::time::Instant::now();
                }
            }
            return Ok(());
        }
        let level_end = start + count;
        let free = u64::from(self.plan.capacity - level_end);
        // Room for the children of one chunk, keeping what the levels below need.
        let budget =
            free.saturating_sub(reserve(remaining - 1, bound, self.leaf_plies())).min(u64::from(u32::MAX)) as u32;
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
            let total = self.read_total_and_status(total_slot)?;
            if total <= budget {
                self.expand(part_start, part, level_end, 0);
                self.merge(level_end, total);
                self.process(level_end, total, remaining - 1, bound, counted)?;
            } else {
                // The children do not fit at once: split the parents where they do.
                self.statistics.split_levels += 1;
                self.flush();
                let offsets: Vec<u32> =
                    self.staging.read(&self.context, &self.scan, u64::from(part_start) * 4, u64::from(part) * 4)?;
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
                    self.merge(level_end, end_of(last) - base);
                    self.process(level_end, end_of(last) - base, remaining - 1, bound, counted)?;
                    first = last;
                }
            }
            part_start += part;
        }
        Ok(())
    }

    fn expand(&mut self, start: u32, count: u32, output_start: u32, base_offset: u32) {
        let parameters = PerftParameters { start, count, output_start, base_offset, ..Default::default() };
        self.dispatch("expand", parameters, count);
    }

    /// Merges the equal positions among arena slots `start..start + count`
    /// (a level just written): a cleared hash table of at least twice their
    /// number, then one invocation a slot.
    fn merge(&mut self, start: u32, count: u32) {
        if !self.options.merge_transpositions || count < 2 {
            return;
        }
        let slots = (u64::from(count).next_power_of_two() * 2).min(self.plan.merge_slots());
        let device = &self.context.device;
        let encoder = self.batch.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("perft") })
        });
        encoder.clear_buffer(&self.merge_table, 0, Some(slots * 4));
        let parameters = PerftParameters { start, count, merge_slots: slots as u32, ..Default::default() };
        self.dispatch("merge_duplicates", parameters, count);
        self.statistics.merged_levels += 1;
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
    fn dispatch(&mut self, entry_point: &str, parameters: PerftParameters, invocations: u32) {
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
        record_dispatch(
            encoder,
            self.kernels.pipeline(entry_point),
            &self.bind_group,
            &[offset],
            invocations,
            self.kernels.workgroup_size(entry_point),
            self.max_workgroups,
        );
    }

    /// Submits the recorded dispatches, their parameters written first
    /// (a buffer write lands before the submission that follows it).
    fn flush(&mut self) {
        if let Some(encoder) = self.batch.encoder.take() {
            let bytes = (self.batch.used * self.batch.stride) as usize;
            self.context.queue.write_buffer(&self.parameters, 0, &self.batch.parameters[..bytes]);
            self.context.queue.submit([encoder.finish()]);
        }
        self.batch.used = 0;
    }

    /// Reads a level's child total and the fault flags in one round trip;
    /// a fault is an error at once, before its counts are used.
    fn read_total_and_status(&mut self, total_slot: u32) -> Result<u32, GpuError> {
        self.flush();
        let words: Vec<u32> = self
            .staging
            .read_ranges(&self.context, &[(&self.scan, u64::from(total_slot) * 4, 4), (&self.status, 0, 4)])?;
        self.fault_error(words[1])?;
        Ok(words[0])
    }

    fn read_totals(&mut self, roots: usize) -> Result<Vec<u64>, GpuError> {
        self.flush();
        let words: Vec<u32> = self.staging.read(&self.context, &self.totals, 0, roots as u64 * 8)?;
        Ok(words.chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    fn check_status(&mut self) -> Result<(), GpuError> {
        self.flush();
        let words: Vec<u32> = self.staging.read(&self.context, &self.status, 0, 4)?;
        self.fault_error(words[0])
    }

    /// The error for a nonzero fault word of the kernels.
    fn fault_error(&self, flags: u32) -> Result<(), GpuError> {
        if flags == 0 {
            return Ok(());
        }
        let mut reasons = Vec::new();
        if flags & FAULT_INVALID_POSITION != 0 {
            reasons.push(G::INVALID_POSITION);
        }
        if flags & FAULT_ARENA_OVERFLOW != 0 {
            reasons.push("children overflowed the arena");
        }
        if flags & !(FAULT_INVALID_POSITION | FAULT_ARENA_OVERFLOW) != 0 {
            reasons.push("unknown fault bits");
        }
        Err(GpuError::ShaderFault(format!("{} (flags {flags:#x})", reasons.join(", "))))
    }
}

/// The roots of the group being counted, and where progress goes.
struct Counted<'a> {
    roots: usize,
    progress: &'a mut dyn FnMut(u64),
    last_report: std::time::Instant,
}

/// How often the leaf kernels' running totals are read for progress.
const PROGRESS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);
