//! The search experiments, on the GPU through the public embedding API and on
//! the CPU with the same seeds, move order and rules, so that the two give
//! bit-identical results. Shared by examples/gpu_search/main.rs and the tests.

use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::chess::gpu::embed::{self, EmbedOptions, ShaderRandom};
use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::gpu::resources::read_buffer;
use gpu_movegen::gpu::{GpuContext, GpuError};
use gpu_movegen::{Color, Move, Piece, Position};

pub const SEARCH_SHADER: &str = include_str!("search.wgsl");

/// How a playout ended (the shader's result codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Stalemate,
    FiftyMoves,
    InsufficientMaterial,
    PlyCap,
}

impl Outcome {
    pub fn from_code(code: u32) -> Option<Outcome> {
        Some(match code {
            0 => Outcome::WhiteWins,
            1 => Outcome::BlackWins,
            2 => Outcome::Stalemate,
            3 => Outcome::FiftyMoves,
            4 => Outcome::InsufficientMaterial,
            5 => Outcome::PlyCap,
            _ => return None,
        })
    }
}

/// One playout's end: how, and after how many plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Playout {
    pub outcome: Outcome,
    pub plies: u32,
}

/// Settings shared by both implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayoutSettings {
    pub playouts_per_root: u32,
    pub seed: u32,
    pub ply_cap: u32,
}

/// The CPU playout of stream `stream` (= root index * playouts + playout index).
pub fn cpu_playout(root: &Position, settings: &PlayoutSettings, stream: u32) -> Playout {
    let mut random = ShaderRandom::new(settings.seed, stream);
    let mut position = *root;
    let mut plies = 0;
    let outcome = loop {
        let moves = position.legal_moves_in_order();
        if moves.is_empty() {
            break match (position.in_check(), position.side_to_move()) {
                (true, Color::White) => Outcome::BlackWins,
                (true, Color::Black) => Outcome::WhiteWins,
                (false, _) => Outcome::Stalemate,
            };
        }
        if position.halfmove_clock() >= 100 {
            break Outcome::FiftyMoves;
        }
        if position.is_insufficient_material() {
            break Outcome::InsufficientMaterial;
        }
        if plies >= settings.ply_cap {
            break Outcome::PlyCap;
        }
        position = position.make_move(moves[random.below(moves.len() as u32) as usize]);
        plies += 1;
    };
    Playout { outcome, plies }
}

pub fn cpu_playouts(roots: &[Position], settings: &PlayoutSettings) -> Vec<Playout> {
    let per_root = settings.playouts_per_root;
    (0..roots.len() as u32 * per_root)
        .map(|stream| cpu_playout(&roots[(stream / per_root) as usize], settings, stream))
        .collect()
}

pub const MAX_DEPTH: u32 = 4;
const MATE: i32 = 100_000;
const INFINITY: i32 = 1_000_000;

fn material(position: &Position) -> i32 {
    let values =
        [(Piece::Pawn, 100), (Piece::Knight, 300), (Piece::Bishop, 300), (Piece::Rook, 500), (Piece::Queen, 900)];
    let score: i32 = values
        .iter()
        .map(|&(piece, value)| {
            value
                * (position.pieces_of(Color::White, piece).count() as i32
                    - position.pieces_of(Color::Black, piece).count() as i32)
        })
        .sum();
    if position.side_to_move() == Color::Black { -score } else { score }
}

fn terminal_score(position: &Position, ply: u32) -> i32 {
    if position.in_check() { -(MATE - ply as i32) } else { 0 }
}

fn negamax_node(position: &Position, depth: u32, ply: u32) -> (i32, Option<Move>) {
    let moves = position.legal_moves_in_order();
    if moves.is_empty() {
        return (terminal_score(position, ply), None);
    }
    if depth == 0 {
        return (material(position), None);
    }
    let mut best = -INFINITY;
    let mut best_move = None;
    for mv in moves {
        let (child_score, _) = negamax_node(&position.make_move(mv), depth - 1, ply + 1);
        if -child_score > best {
            best = -child_score;
            best_move = Some(mv);
        }
    }
    (best, best_move)
}

/// Plain negamax to `depth` (1..=MAX_DEPTH): score for the side to move and the first best move.
pub fn cpu_negamax(root: &Position, depth: u32) -> (i32, Option<Move>) {
    negamax_node(root, depth.clamp(1, MAX_DEPTH), 0)
}

/// Both experiments on one device, built with the public embedding API.
pub struct GpuSearch {
    context: GpuContext,
    composed: embed::ComposedShader,
    playouts: wgpu::ComputePipeline,
    count_children: wgpu::ComputePipeline,
    expand_children: wgpu::ComputePipeline,
    evaluate_leaves: wgpu::ComputePipeline,
    reduce_level: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    tables_bind_group: wgpu::BindGroup,
}

#[repr(C)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct SearchParameters {
    root_count: u32,
    playouts_per_root: u32,
    seed: u32,
    ply_cap: u32,
    depth: u32,
    reserved: [u32; 3],
}

/// What one dispatch reads besides its positions.
#[derive(Default)]
struct Inputs<'a> {
    offsets: &'a [u32],
    child_scores: &'a [u32],
    next_level_size: u32,
}

impl GpuSearch {
    pub fn new(context: &GpuContext, build: ShaderBuild) -> Result<GpuSearch, GpuError> {
        let options = EmbedOptions { table_group: 1, table_binding: 0, build };
        let composed = embed::compose(SEARCH_SHADER, options)?;
        let device = &context.device;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("search"),
            entries: &composed.layout_entries(0),
        });
        let tables_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("chess tables"),
            entries: &[embed::table_layout_entry(&options)],
        });
        let tables = embed::create_table_buffer(device);
        let tables_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("chess tables"),
            layout: &tables_layout,
            entries: &[wgpu::BindGroupEntry { binding: options.table_binding, resource: tables.as_entire_binding() }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("search"),
            bind_group_layouts: &[Some(&layout), Some(&tables_layout)],
            immediate_size: 0,
        });
        let pipeline =
            |entry_point: &str| composed.create_compute_pipeline(context, &pipeline_layout, entry_point, &[]);
        Ok(GpuSearch {
            context: context.clone(),
            playouts: pipeline("playouts")?,
            count_children: pipeline("count_children")?,
            expand_children: pipeline("expand_children")?,
            evaluate_leaves: pipeline("evaluate_leaves")?,
            reduce_level: pipeline("reduce_level")?,
            composed,
            layout,
            tables_bind_group,
        })
    }

    /// What the composed module holds (entry points, bindings).
    pub fn composed(&self) -> &embed::ComposedShader {
        &self.composed
    }

    /// One dispatch over `positions` (one invocation each, or `invocations`):
    /// returns `result_words` words of `results` and the `next_level` positions.
    fn run(
        &self,
        pipeline: &wgpu::ComputePipeline,
        positions: &[PackedPosition],
        parameters: SearchParameters,
        invocations: u32,
        result_words: u32,
        inputs: Inputs<'_>,
    ) -> Result<(Vec<u32>, Vec<PackedPosition>), GpuError> {
        use wgpu::util::DeviceExt as _;
        let (device, queue) = (&self.context.device, &self.context.queue);
        // Storage bindings may not be empty: pad every input to at least one element.
        let storage = |label: &str, bytes: &[u8], extra: wgpu::BufferUsages| {
            let mut contents = bytes.to_vec();
            contents.resize(contents.len().max(48), 0);
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: &contents,
                usage: wgpu::BufferUsages::STORAGE | extra,
            })
        };
        let (results, next_level) = self.context.scoped(|| {
            let positions_buffer = storage("positions", bytemuck::cast_slice(positions), wgpu::BufferUsages::empty());
            let parameters_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("search parameters"),
                contents: bytemuck::bytes_of(&parameters),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let results = storage("results", &vec![0; result_words as usize * 4], wgpu::BufferUsages::COPY_SRC);
            let level_bytes = vec![0; inputs.next_level_size as usize * size_of::<PackedPosition>()];
            let next_level = storage("next level", &level_bytes, wgpu::BufferUsages::COPY_SRC);
            let offsets = storage("offsets", bytemuck::cast_slice(inputs.offsets), wgpu::BufferUsages::empty());
            let child_scores =
                storage("child scores", bytemuck::cast_slice(inputs.child_scores), wgpu::BufferUsages::empty());
            let buffers = [&positions_buffer, &parameters_buffer, &results, &next_level, &offsets, &child_scores];
            let entries: Vec<wgpu::BindGroupEntry> = buffers
                .iter()
                .enumerate()
                .map(|(binding, buffer)| wgpu::BindGroupEntry {
                    binding: binding as u32,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("search"),
                layout: &self.layout,
                entries: &entries,
            });
            let groups = invocations.div_ceil(64).max(1);
            let (x, y) = (groups.min(65_535), groups.div_ceil(65_535));
            let mut encoder = device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                pass.set_bind_group(1, &self.tables_bind_group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            queue.submit([encoder.finish()]);
            (results, next_level)
        })?;
        let results: Vec<u32> = read_buffer(&self.context, &results, 0, results.size())?;
        let level: Vec<PackedPosition> = read_buffer(&self.context, &next_level, 0, next_level.size())?;
        Ok((results[..result_words as usize].to_vec(), level[..inputs.next_level_size as usize].to_vec()))
    }

    pub fn playouts(&self, roots: &[Position], settings: &PlayoutSettings) -> Result<Vec<Playout>, GpuError> {
        let count = roots.len() as u32 * settings.playouts_per_root;
        let parameters = SearchParameters {
            root_count: roots.len() as u32,
            playouts_per_root: settings.playouts_per_root,
            seed: settings.seed,
            ply_cap: settings.ply_cap,
            ..Default::default()
        };
        let positions: Vec<PackedPosition> = roots.iter().map(PackedPosition::from).collect();
        let (words, _) = self.run(&self.playouts, &positions, parameters, count, count, Inputs::default())?;
        words
            .iter()
            .map(|word| {
                Outcome::from_code(word & 255)
                    .map(|outcome| Playout { outcome, plies: word >> 8 })
                    .ok_or_else(|| GpuError::ShaderFault(format!("unknown playout result {word:#x}")))
            })
            .collect()
    }

    /// Negamax of every root to `depth` (1..=MAX_DEPTH), level by level on the GPU.
    pub fn negamax(&self, roots: &[Position], depth: u32) -> Result<Vec<(i32, Option<Move>)>, GpuError> {
        let depth = depth.clamp(1, MAX_DEPTH);
        let parameters =
            |count: usize, ply: u32| SearchParameters { root_count: count as u32, depth: ply, ..Default::default() };
        // Down: every level of the tree, with each level's child offsets.
        let mut levels: Vec<Vec<PackedPosition>> = vec![roots.iter().map(PackedPosition::from).collect()];
        let mut level_offsets: Vec<Vec<u32>> = Vec::new();
        for ply in 0..depth {
            let level = &levels[ply as usize];
            let count = level.len() as u32;
            let (counts, _) =
                self.run(&self.count_children, level, parameters(level.len(), ply), count, count, Inputs::default())?;
            let mut offsets = Vec::with_capacity(counts.len() + 1);
            let mut total = 0u32;
            for moves in &counts {
                offsets.push(total);
                total += moves;
            }
            offsets.push(total);
            let inputs = Inputs { offsets: &offsets, next_level_size: total, ..Default::default() };
            let (_, children) =
                self.run(&self.expand_children, level, parameters(level.len(), ply), count, 0, inputs)?;
            levels.push(children);
            level_offsets.push(offsets);
        }
        // Up: score the leaves, then each level from its children's scores.
        let leaves = &levels[depth as usize];
        let count = leaves.len() as u32;
        let (mut scores, _) = self.run(
            &self.evaluate_leaves,
            leaves,
            parameters(leaves.len(), depth),
            count,
            2 * count,
            Inputs::default(),
        )?;
        for ply in (0..depth).rev() {
            let level = &levels[ply as usize];
            let count = level.len() as u32;
            let inputs = Inputs { offsets: &level_offsets[ply as usize], child_scores: &scores, ..Default::default() };
            scores = self.run(&self.reduce_level, level, parameters(level.len(), ply), count, 2 * count, inputs)?.0;
        }
        Ok(scores
            .chunks_exact(2)
            .map(|pair| (pair[0] as i32, u16::try_from(pair[1]).ok().and_then(Move::from_bits)))
            .collect())
    }
}
