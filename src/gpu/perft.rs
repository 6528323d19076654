//! Perft on the GPU, the shape the fastest GPU perft uses: the positions of
//! one level sit in a preallocated arena; per level the GPU counts each
//! position's moves, prefix-sums the counts and writes every child after the
//! level (each child tagged with its root), until the last two plies, which
//! one kernel counts without storing them. When a level would not fit in the
//! arena, its parents are split into chunks that do, and each chunk goes on
//! depth-first, so any depth runs in a fixed amount of memory.
//!
//! Totals are 64-bit: the kernels add into pairs of 32-bit atomics with a
//! carry, and the host adds the pairs as `u64`.

use super::context::{GpuContext, GpuError};
use super::layout::{GpuPerftParameters, GpuPosition};
use super::resources::{buffer, compute_pipeline, grid, read_mapped, storage_entry, uniform_entry};
use super::shaders;
use crate::board::{Move, Position};

/// Settings of a [`GpuPerft`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerftOptions {
    /// Positions the arena holds; `None` sizes it from the device's limits.
    /// Small values force levels to be split (tests use this).
    pub arena_positions: Option<usize>,
    /// The most positions one dispatch of the last-ply kernels takes; the
    /// totals are read back (and progress reported) after each.
    pub leaf_positions_per_dispatch: usize,
    /// Slider algorithm and bitboard representation, fixed when the pipelines are built.
    pub variant: shaders::ShaderVariant,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions {
            arena_positions: None,
            leaf_positions_per_dispatch: 1 << 20,
            variant: shaders::ShaderVariant::default(),
        }
    }
}

/// No chess position has more legal moves than this.
const MAX_MOVES: u64 = 218;
/// The arena's default ceiling: 2^25 positions are 1.25 GiB.
const DEFAULT_ARENA_CEILING: u64 = 1 << 25;
/// Counting this many positions at once keeps their children's count within u32.
const MAX_COUNTED_AT_ONCE: u32 = 1 << 24;
const SCAN_BLOCK: u32 = 256;

struct Pipelines {
    count_moves: wgpu::ComputePipeline,
    scan_blocks: wgpu::ComputePipeline,
    add_block_sums: wgpu::ComputePipeline,
    expand: wgpu::ComputePipeline,
    count_leaves: wgpu::ComputePipeline,
    count_leaves_fused: wgpu::ComputePipeline,
}

/// The GPU perft driver: pipelines, the arena and its companions.
pub struct GpuPerft {
    context: GpuContext,
    pipelines: Pipelines,
    layout: wgpu::BindGroupLayout,
    tables: wgpu::Buffer,
    arena: wgpu::Buffer,
    roots: wgpu::Buffer,
    scan: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    totals: wgpu::Buffer,
    totals_capacity: usize,
    staging: wgpu::Buffer,
    staging_size: u64,
    bind_group: wgpu::BindGroup,
    capacity: u32,
    options: PerftOptions,
    max_workgroups: u32,
}

impl GpuPerft {
    pub fn new(context: &GpuContext) -> Result<GpuPerft, GpuError> {
        GpuPerft::with_options(context, PerftOptions::default())
    }

    pub fn with_options(context: &GpuContext, options: PerftOptions) -> Result<GpuPerft, GpuError> {
        let device = &context.device;
        let limits = device.limits();
        let position_size = size_of::<GpuPosition>() as u64;
        let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        let table_bytes = u64::from(shaders::TABLE_OFFSETS.total) * 8;
        if binding < table_bytes {
            return Err(GpuError::Limits(format!(
                "max_storage_buffer_binding_size is {binding} bytes; the attack tables need {table_bytes}"
            )));
        }
        let capacity = match options.arena_positions {
            Some(positions) => positions as u64,
            None => (binding / position_size).min(DEFAULT_ARENA_CEILING),
        }
        .min(binding / position_size)
        .min(u64::from(u32::MAX) / 2);
        // One position and a full set of children must fit, with room for a second level.
        if capacity < 4 * MAX_MOVES {
            return Err(GpuError::Limits(format!(
                "a perft arena of {capacity} positions is too small; it needs at least {}",
                4 * MAX_MOVES
            )));
        }
        let capacity = capacity as u32;
        super::movegen::check_variant(device, options.variant)?;
        let source = shaders::compose_variant("perft", options.variant, &[])?;

        context.scoped(|| {
            use wgpu::BufferUsages as Usage;
            let tables = wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("attack tables"),
                    contents: bytemuck::cast_slice(&shaders::attack_table_data()),
                    usage: Usage::STORAGE,
                },
            );
            let arena =
                buffer(device, "perft arena", u64::from(capacity) * position_size, Usage::STORAGE | Usage::COPY_DST);
            let roots = buffer(device, "perft roots", u64::from(capacity) * 4, Usage::STORAGE | Usage::COPY_DST);
            // Counts for every arena slot, then the block sums of each scan level.
            let scan_words = u64::from(capacity) + u64::from(capacity) / u64::from(SCAN_BLOCK - 1) + 64;
            let scan = buffer(device, "perft scan", scan_words * 4, Usage::STORAGE | Usage::COPY_SRC);
            let status = buffer(device, "perft status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
            let parameters = buffer(
                device,
                "perft parameters",
                size_of::<GpuPerftParameters>() as u64,
                Usage::UNIFORM | Usage::COPY_DST,
            );
            let totals_capacity = 1;
            let totals = buffer(device, "perft totals", 8, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
            let staging_size = 4096;
            let staging = buffer(device, "perft staging", staging_size, Usage::MAP_READ | Usage::COPY_DST);
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
            let bind_group =
                bind_group(device, &layout, [&tables, &arena, &roots, &scan, &totals, &status, &parameters]);
            GpuPerft {
                context: context.clone(),
                pipelines,
                layout,
                tables,
                arena,
                roots,
                scan,
                status,
                parameters,
                totals,
                totals_capacity,
                staging,
                staging_size,
                bind_group,
                capacity,
                options,
                max_workgroups: limits.max_compute_workgroups_per_dimension,
            }
        })
    }

    /// Positions the arena holds.
    pub fn capacity(&self) -> usize {
        self.capacity as usize
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
        if roots.is_empty() {
            return Ok(Vec::new());
        }
        let context = self.context.clone();
        context.scoped(|| self.ensure_totals(roots.len()))?;
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

    fn ensure_totals(&mut self, roots: usize) {
        if roots > self.totals_capacity {
            use wgpu::BufferUsages as Usage;
            let device = &self.context.device;
            self.totals =
                buffer(device, "perft totals", roots as u64 * 8, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
            self.totals_capacity = roots;
            self.bind_group = bind_group(
                device,
                &self.layout,
                [&self.tables, &self.arena, &self.roots, &self.scan, &self.totals, &self.status, &self.parameters],
            );
        }
    }

    fn run(&mut self, roots: &[Position], depth: u32, progress: &mut dyn FnMut(u64)) -> Result<Vec<u64>, GpuError> {
        let queue = self.context.queue.clone();
        queue.write_buffer(&self.totals, 0, &vec![0u8; roots.len() * 8]);
        queue.write_buffer(&self.status, 0, bytemuck::bytes_of(&0u32));
        // Roots go in groups that leave most of the arena for their subtrees.
        let group_size = (self.capacity as usize / 4).max(1);
        for (group_index, group) in roots.chunks(group_size).enumerate() {
            let first_root = (group_index * group_size) as u32;
            let positions: Vec<GpuPosition> = group.iter().map(GpuPosition::from).collect();
            let root_indices: Vec<u32> = (first_root..first_root + group.len() as u32).collect();
            queue.write_buffer(&self.arena, 0, bytemuck::cast_slice(&positions));
            queue.write_buffer(&self.roots, 0, bytemuck::cast_slice(&root_indices));
            self.process(0, group.len() as u32, depth, roots.len(), progress)?;
        }
        let totals = self.read_totals(roots.len())?;
        self.check_status()?;
        Ok(totals)
    }

    /// Counts the subtrees of arena slots `start..start + count` to `remaining` plies.
    fn process(
        &mut self,
        start: u32,
        count: u32,
        remaining: u32,
        root_count: usize,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), GpuError> {
        if count == 0 {
            return Ok(());
        }
        if remaining <= 2 {
            let chunk = (self.options.leaf_positions_per_dispatch.max(1) as u32).max(64);
            let mut offset = 0;
            while offset < count {
                let part = chunk.min(count - offset);
                let parameters = GpuPerftParameters { start: start + offset, count: part, ..Default::default() };
                let pipeline =
                    if remaining == 1 { &self.pipelines.count_leaves } else { &self.pipelines.count_leaves_fused };
                self.dispatch(pipeline, parameters, part, 64);
                offset += part;
                let totals = self.read_totals(root_count)?;
                progress(totals.iter().sum());
            }
            return Ok(());
        }
        if count > MAX_COUNTED_AT_ONCE {
            let mut offset = 0;
            while offset < count {
                let part = MAX_COUNTED_AT_ONCE.min(count - offset);
                self.process(start + offset, part, remaining, root_count, progress)?;
                offset += part;
            }
            return Ok(());
        }

        self.dispatch(
            &self.pipelines.count_moves,
            GpuPerftParameters { start, count, ..Default::default() },
            count,
            64,
        );
        let total_slot = self.scan(start, count, self.capacity);
        let scan = self.scan.clone();
        let total = self.read_words(&scan, total_slot, 1)?[0];
        self.check_status()?;

        let output_start = start + count;
        let free = self.capacity - output_start;
        if total <= free {
            self.expand(start, count, output_start, 0);
            return self.process(output_start, total, remaining - 1, root_count, progress);
        }
        // The children do not fit: split the parents where their children do.
        let offsets = self.read_words(&scan, start, count)?;
        let mut first = 0usize;
        while first < offsets.len() {
            let base = offsets[first];
            let mut last = first + 1;
            while last < offsets.len() && offsets[last] - base <= free {
                last += 1;
            }
            let children_end = if last < offsets.len() { offsets[last] } else { total };
            if children_end - base > free {
                if last == first + 1 {
                    return Err(GpuError::Limits(format!(
                        "the perft arena ({} positions) cannot hold one position's children at this depth",
                        self.capacity
                    )));
                }
                last -= 1;
            }
            let children_end = if last < offsets.len() { offsets[last] } else { total };
            self.expand(start + first as u32, (last - first) as u32, output_start, base);
            self.process(output_start, children_end - base, remaining - 1, root_count, progress)?;
            first = last;
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

    /// Copies `count` words from `first` on out of `source` and reads them.
    fn read_words(&mut self, source: &wgpu::Buffer, first: u32, count: u32) -> Result<Vec<u32>, GpuError> {
        let size = u64::from(count) * 4;
        if size > self.staging_size {
            self.staging_size = size.next_power_of_two();
            self.staging = buffer(
                &self.context.device,
                "perft staging",
                self.staging_size,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            );
        }
        let mut encoder = self.context.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(source, u64::from(first) * 4, &self.staging, 0, size);
        self.context.queue.submit([encoder.finish()]);
        read_mapped(&self.context, &self.staging, size)
    }

    fn read_totals(&mut self, roots: usize) -> Result<Vec<u64>, GpuError> {
        let totals = self.totals.clone();
        let words = self.read_words(&totals, 0, roots as u32 * 2)?;
        Ok(words.chunks_exact(2).map(|pair| u64::from(pair[0]) | u64::from(pair[1]) << 32).collect())
    }

    fn check_status(&mut self) -> Result<(), GpuError> {
        let status = self.status.clone();
        let flags = self.read_words(&status, 0, 1)?[0];
        if flags == 0 {
            return Ok(());
        }
        let mut reasons = Vec::new();
        if flags & 1 != 0 {
            reasons.push("a position has no king for the side to move");
        }
        if flags & 2 != 0 {
            reasons.push("children overflowed the arena");
        }
        Err(GpuError::ShaderFault(format!("{} (flags {flags:#x})", reasons.join(", "))))
    }
}

fn bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, buffers: [&wgpu::Buffer; 7]) -> wgpu::BindGroup {
    let bindings = [0, 1, 2, 3, 5, 6, 7];
    let entries: Vec<wgpu::BindGroupEntry> = bindings
        .iter()
        .zip(buffers)
        .map(|(&binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some("perft"), layout, entries: &entries })
}
