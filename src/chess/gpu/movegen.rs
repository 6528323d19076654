//! Batched move generation on the GPU: upload positions, dispatch one of
//! the kernels, read the move bitboards back. Buffers are kept and reused
//! across calls; batches larger than one dispatch allows are split.

use std::time::Duration;

use web_time::Instant;

use bytemuck::Pod;

use super::layout::{BatchParameters, PackedPosition, PieceMovesRecord, PositionMovesRecord, join, piece_from_code};
use super::shaders;
use crate::chess::board::{Bitboard, Move, Square};
use crate::chess::movegen::{PieceMoves, SpecialSquares};
use crate::chess::position::Position;
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::{bind_group, buffer, buffer_with, read_mapped};
use crate::gpu::{GpuContext, GpuError};

/// Which kernel generates the moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// One invocation per (position, square): the OpenCL generator's shape.
    PerPiece,
    /// One invocation per position.
    PerPosition,
}

/// What the per-piece kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PieceMode {
    /// The OpenCL generator's semantics: captures and quiet moves for the side to move,
    /// attack sets for the other side; no castling, en passant or legality.
    PseudoLegal,
    /// Full rules, destinations for the side to move only.
    Legal,
}

/// The legal moves of one position, per piece, as the GPU returned them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionMoves {
    /// Pieces of the side to move with at least one legal move, by from-square.
    pub piece_moves: Vec<PieceMoves>,
    /// Legal moves, promotions counted four times.
    pub move_count: u32,
    /// The position's en passant square and castling rooks, needed to expand the moves.
    pub special: SpecialSquares,
}

impl PositionMoves {
    /// The CPU reference's answer in the same shape.
    pub fn from_cpu(position: &Position) -> PositionMoves {
        let mut piece_moves = position.piece_moves();
        piece_moves.sort_by_key(|moves| moves.from);
        PositionMoves { piece_moves, move_count: position.legal_move_count(), special: position.special_squares() }
    }

    /// The destinations of the piece on `square`, empty when it has no moves.
    pub fn destinations(&self, square: Square) -> Bitboard {
        self.piece_moves.iter().find(|moves| moves.from == square).map_or(Bitboard::EMPTY, |moves| moves.to)
    }

    /// The from-squares whose destinations differ between two answers, with
    /// both destination sets (`self`'s first).
    pub fn differences(&self, other: &PositionMoves) -> Vec<(Square, Bitboard, Bitboard)> {
        Square::ALL
            .into_iter()
            .map(|square| (square, self.destinations(square), other.destinations(square)))
            .filter(|(_, mine, theirs)| mine != theirs)
            .collect()
    }

    /// Every move, expanded (promotions four ways, castling and en passant marked).
    pub fn moves(&self) -> Vec<Move> {
        self.piece_moves.iter().flat_map(|moves| moves.moves(self.special)).collect()
    }

    fn from_destinations(
        position: &Position,
        destinations: impl Iterator<Item = (Square, u64)>,
        move_count: u32,
    ) -> Self {
        let piece_moves = destinations
            .filter(|(_, to)| *to != 0)
            .map(|(from, to)| PieceMoves {
                // The kernels only fill squares of the side to move's pieces.
                piece: position.piece_kind_on(from).unwrap_or(crate::Piece::Pawn),
                from,
                to: Bitboard(to),
            })
            .collect();
        PositionMoves { piece_moves, move_count, special: position.special_squares() }
    }
}

/// Time spent in each phase of a timed call, summed over its dispatches.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Writing the positions into GPU memory.
    pub upload: Duration,
    /// Submitting the dispatch and waiting for it, as the host sees it.
    pub dispatch: Duration,
    /// The dispatch as the GPU's own timestamps measure it, when the adapter has them.
    pub gpu_dispatch: Option<Duration>,
    /// Copying the results out and mapping them on the host.
    pub readback: Duration,
    /// Dispatches the batch was split into.
    pub dispatches: usize,
}

/// Settings of a [`MoveGenerator`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorOptions {
    /// The most positions one dispatch takes; the device's limits may lower it.
    pub max_positions_per_dispatch: usize,
    /// The most bytes of GPU memory the generator allocates (`--gpu-memory`);
    /// it lowers the positions per dispatch to fit.
    pub memory_limit: Option<u64>,
    /// Slider algorithm and bitboard representation, fixed when the pipelines are built.
    pub build: shaders::ShaderBuild,
}

impl Default for GeneratorOptions {
    fn default() -> Self {
        GeneratorOptions {
            max_positions_per_dispatch: 1 << 16,
            memory_limit: None,
            build: shaders::ShaderBuild::default(),
        }
    }
}

/// Words of one position's legal-action mask from
/// [`MoveGenerator::legal_action_masks`]: the chess environment's 4,672
/// actions ([`crate::chess::env::ACTIONS`]), 32 a word.
pub const ACTION_MASK_WORDS: usize = crate::chess::env::ACTIONS.div_ceil(32);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pipeline {
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))] // per_piece_raw is native only
    PerPiecePseudoLegal,
    PerPieceLegal,
    PerPosition,
    ActionMasks,
}

impl Pipeline {
    fn entry_point(self) -> &'static str {
        match self {
            Pipeline::PerPiecePseudoLegal => "per_piece_pseudo_legal",
            Pipeline::PerPieceLegal => "per_piece_legal",
            Pipeline::PerPosition => "per_position",
            Pipeline::ActionMasks => "legal_action_masks",
        }
    }

    /// Bytes of output per position.
    fn output_stride(self) -> u64 {
        match self {
            Pipeline::PerPiecePseudoLegal | Pipeline::PerPieceLegal => 64 * size_of::<PieceMovesRecord>() as u64,
            Pipeline::PerPosition => size_of::<PositionMovesRecord>() as u64,
            Pipeline::ActionMasks => (ACTION_MASK_WORDS * size_of::<u32>()) as u64,
        }
    }
}

/// Buffers sized for `capacity` positions, reused until a larger batch arrives.
struct Buffers {
    capacity: usize,
    positions: wgpu::Buffer,
    output: wgpu::Buffer,
    staging: wgpu::Buffer,
    status: wgpu::Buffer,
    status_staging: wgpu::Buffer,
    parameters: wgpu::Buffer,
    per_piece_bind_group: wgpu::BindGroup,
    per_position_bind_group: wgpu::BindGroup,
    action_masks_bind_group: wgpu::BindGroup,
}

struct Timestamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
}

/// The GPU move generator: pipelines, tables and reusable buffers.
pub struct MoveGenerator {
    context: GpuContext,
    tables: wgpu::Buffer,
    per_piece: Kernels,
    per_position: Kernels,
    action_masks: Kernels,
    buffers: Option<Buffers>,
    timestamps: Option<Timestamps>,
    positions_per_dispatch: usize,
}

impl MoveGenerator {
    /// A generator with the default options (see [`MoveGenerator::with_options`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext) -> Result<MoveGenerator, GpuError> {
        MoveGenerator::with_options(context, GeneratorOptions::default())
    }

    /// A generator on `context`, once its device has passed the self-test's
    /// device checks (`verify` compares every bitboard it returns with the CPU).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_options(context: &GpuContext, options: GeneratorOptions) -> Result<MoveGenerator, GpuError> {
        crate::gpu::block_on(MoveGenerator::with_options_async(context, options))
    }

    /// [`MoveGenerator::with_options`], awaited.
    pub async fn with_options_async(
        context: &GpuContext,
        options: GeneratorOptions,
    ) -> Result<MoveGenerator, GpuError> {
        let device = &context.device;
        check_build(device, options.build)?;
        context.require_async(&[]).await?;
        let per_piece = reflect(shaders::compose_build("per_piece", options.build, &[])?)?;
        let per_position = reflect(shaders::compose_build("per_position", options.build, &[])?)?;
        let action_masks = reflect(shaders::compose_build("action_masks", options.build, &[])?)?;
        let limits = device.limits();
        let table_bytes = u64::from(shaders::TABLE_OFFSETS.total) * 8;
        let largest_binding = table_bytes.max(Pipeline::PerPieceLegal.output_stride());
        if limits.max_storage_buffer_binding_size < largest_binding {
            return Err(GpuError::Limits(format!(
                "max_storage_buffer_binding_size is {} bytes; the attack tables need {table_bytes}",
                limits.max_storage_buffer_binding_size
            )));
        }
        let output_stride = Pipeline::PerPieceLegal.output_stride().max(Pipeline::PerPosition.output_stride());
        let per_dispatch = {
            let binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
            let by_memory = binding / output_stride;
            let by_workgroups = u64::from(limits.max_compute_workgroups_per_dimension);
            (options.max_positions_per_dispatch.max(1) as u64).min(by_memory).min(by_workgroups).max(1) as usize
        };
        let per_dispatch = match options.memory_limit {
            None => per_dispatch,
            Some(limit) => {
                // Tables, then per position: its record, the output and its staging copy.
                let fixed = table_bytes + 4096;
                let per_position = size_of::<PackedPosition>() as u64 + 2 * output_stride;
                if limit < fixed + per_position {
                    return Err(GpuError::Limits(format!(
                        "a GPU memory limit (--gpu-memory) of {limit} bytes is too small: move generation needs at \
                         least {} bytes",
                        fixed + per_position
                    )));
                }
                per_dispatch.min(((limit - fixed) / per_position) as usize)
            }
        };

        let generator = context
            .scoped_async(|| {
                let tables =
                    buffer_with(device, "attack tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
                // Layouts and workgroup sizes come from the WGSL itself.
                let per_piece = context.kernels(&per_piece, "per_piece");
                let per_position = context.kernels(&per_position, "per_position");
                let action_masks = context.kernels(&action_masks, "action_masks");
                let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY).then(|| Timestamps {
                    queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("dispatch timestamps"),
                        ty: wgpu::QueryType::Timestamp,
                        count: 2,
                    }),
                    resolve: device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("timestamp resolve"),
                        size: 16,
                        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                    staging: device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("timestamp staging"),
                        size: 16,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                });
                MoveGenerator {
                    context: context.clone(),
                    per_piece,
                    per_position,
                    action_masks,
                    tables,
                    buffers: None,
                    timestamps,
                    positions_per_dispatch: per_dispatch,
                }
            })
            .await?;
        Ok(generator)
    }

    /// The most positions one dispatch takes on this device.
    pub fn positions_per_dispatch(&self) -> usize {
        self.positions_per_dispatch
    }

    /// Legal moves of every position, by the chosen kernel.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn generate(&mut self, positions: &[Position], kernel: Kernel) -> Result<Vec<PositionMoves>, GpuError> {
        self.generate_timed(positions, kernel, false).map(|(moves, _)| moves)
    }

    /// [`MoveGenerator::generate`], awaited.
    pub async fn generate_async(
        &mut self,
        positions: &[Position],
        kernel: Kernel,
    ) -> Result<Vec<PositionMoves>, GpuError> {
        self.generate_timed_async(positions, kernel, false).await.map(|(moves, _)| moves)
    }

    /// [`MoveGenerator::generate`], and with `timed` the phases are run one
    /// after the other and timed separately (slower, for measurements).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn generate_timed(
        &mut self,
        positions: &[Position],
        kernel: Kernel,
        timed: bool,
    ) -> Result<(Vec<PositionMoves>, Timings), GpuError> {
        crate::gpu::block_on(self.generate_timed_async(positions, kernel, timed))
    }

    /// [`MoveGenerator::generate_timed`], awaited.
    pub async fn generate_timed_async(
        &mut self,
        positions: &[Position],
        kernel: Kernel,
        timed: bool,
    ) -> Result<(Vec<PositionMoves>, Timings), GpuError> {
        let gpu_positions = pack_batch(positions);
        match kernel {
            Kernel::PerPiece => {
                let (entries, timings) =
                    self.run::<PieceMovesRecord>(Pipeline::PerPieceLegal, &gpu_positions, timed).await?;
                let moves = crate::threads::map_batch(positions.len(), |index| {
                    let (position, squares) = (&positions[index], &entries[index * 64..index * 64 + 64]);
                    let destinations: Vec<(Square, u64)> = squares
                        .iter()
                        .map(|entry| (Square::from_index(entry.from_square as u8), join(entry.destinations)))
                        .collect();
                    let count = squares
                        .iter()
                        .map(|entry| {
                            let piece = piece_from_code(entry.piece).unwrap_or(crate::Piece::King);
                            PieceMoves {
                                piece,
                                from: Square::from_index(entry.from_square as u8),
                                to: Bitboard(join(entry.destinations)),
                            }
                            .len() as u32
                        })
                        .sum();
                    PositionMoves::from_destinations(position, destinations.into_iter(), count)
                });
                Ok((moves, timings))
            }
            Kernel::PerPosition => {
                let (records, timings) =
                    self.run::<PositionMovesRecord>(Pipeline::PerPosition, &gpu_positions, timed).await?;
                let moves = crate::threads::map_batch(positions.len(), |index| {
                    let (position, record) = (&positions[index], &records[index]);
                    let destinations =
                        Square::ALL.into_iter().zip(record.destinations.iter().map(|halves| join(*halves)));
                    PositionMoves::from_destinations(position, destinations, record.move_count)
                });
                Ok((moves, timings))
            }
        }
    }

    /// The per-piece kernel's raw output: 64 entries per position, square order.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn per_piece_raw(
        &mut self,
        positions: &[Position],
        mode: PieceMode,
    ) -> Result<Vec<PieceMovesRecord>, GpuError> {
        let pipeline = match mode {
            PieceMode::PseudoLegal => Pipeline::PerPiecePseudoLegal,
            PieceMode::Legal => Pipeline::PerPieceLegal,
        };
        let gpu_positions = pack_batch(positions);
        crate::gpu::block_on(self.run(pipeline, &gpu_positions, false)).map(|(entries, _)| entries)
    }

    /// The per-position kernel's raw records.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn per_position_raw(&mut self, positions: &[Position]) -> Result<Vec<PositionMovesRecord>, GpuError> {
        let gpu_positions = pack_batch(positions);
        crate::gpu::block_on(self.run(Pipeline::PerPosition, &gpu_positions, false)).map(|(records, _)| records)
    }

    /// Runs a kernel on positions given in the GPU layout directly. Inputs
    /// the kernels reject (such as a side without a king) come back as
    /// [`GpuError::ShaderFault`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn per_position_raw_gpu(&mut self, positions: &[PackedPosition]) -> Result<Vec<PositionMovesRecord>, GpuError> {
        crate::gpu::block_on(self.per_position_raw_gpu_async(positions))
    }

    /// [`MoveGenerator::per_position_raw_gpu`], awaited.
    pub async fn per_position_raw_gpu_async(
        &mut self,
        positions: &[PackedPosition],
    ) -> Result<Vec<PositionMovesRecord>, GpuError> {
        self.run(Pipeline::PerPosition, positions, false).await.map(|(records, _)| records)
    }

    /// The chess environment's legal-action masks of `positions`
    /// ([`crate::chess::env`]: pgx's 4,672 AlphaZero actions), computed on
    /// the GPU, [`ACTION_MASK_WORDS`] words a position: bit `action % 32`
    /// of word `action / 32` is set when the action is legal. The same
    /// masks as [`crate::env::EnvGame::legal_action_mask`] of each position
    /// on the CPU, which the tests check on thousands of positions. A side
    /// to move without a king is [`GpuError::ShaderFault`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn legal_action_masks(&mut self, positions: &[Position]) -> Result<Vec<u32>, GpuError> {
        crate::gpu::block_on(self.legal_action_masks_async(positions))
    }

    /// [`MoveGenerator::legal_action_masks`], awaited.
    pub async fn legal_action_masks_async(&mut self, positions: &[Position]) -> Result<Vec<u32>, GpuError> {
        let gpu_positions = pack_batch(positions);
        self.run(Pipeline::ActionMasks, &gpu_positions, false).await.map(|(words, _)| words)
    }

    fn ensure_buffers(&mut self, capacity: usize) {
        if self.buffers.as_ref().is_some_and(|buffers| buffers.capacity >= capacity) {
            return;
        }
        let device = &self.context.device;
        let output_size =
            capacity as u64 * Pipeline::PerPieceLegal.output_stride().max(Pipeline::PerPosition.output_stride());
        use wgpu::BufferUsages as Usage;
        let positions = buffer(
            device,
            "positions",
            (capacity * size_of::<PackedPosition>()) as u64,
            Usage::STORAGE | Usage::COPY_DST,
        );
        let output = buffer(device, "moves", output_size, Usage::STORAGE | Usage::COPY_SRC);
        let staging = buffer(device, "moves staging", output_size, Usage::MAP_READ | Usage::COPY_DST);
        let status = buffer(device, "status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
        let status_staging = buffer(device, "status staging", 4, Usage::MAP_READ | Usage::COPY_DST);
        let parameters =
            buffer(device, "parameters", size_of::<BatchParameters>() as u64, Usage::UNIFORM | Usage::COPY_DST);
        let buffers = [(0, &self.tables), (1, &positions), (2, &output), (3, &status), (4, &parameters)];
        let per_piece_bind_group = bind_group(device, "per_piece", &self.per_piece.layout, &buffers);
        let per_position_bind_group = bind_group(device, "per_position", &self.per_position.layout, &buffers);
        let action_masks_bind_group = bind_group(device, "action_masks", &self.action_masks.layout, &buffers);
        self.buffers = Some(Buffers {
            capacity,
            positions,
            output,
            staging,
            status,
            status_staging,
            parameters,
            per_piece_bind_group,
            per_position_bind_group,
            action_masks_bind_group,
        });
    }

    fn kernels(&self, pipeline: Pipeline) -> &Kernels {
        match pipeline {
            Pipeline::PerPiecePseudoLegal | Pipeline::PerPieceLegal => &self.per_piece,
            Pipeline::PerPosition => &self.per_position,
            Pipeline::ActionMasks => &self.action_masks,
        }
    }

    async fn run<T: Pod>(
        &mut self,
        pipeline: Pipeline,
        positions: &[PackedPosition],
        timed: bool,
    ) -> Result<(Vec<T>, Timings), GpuError> {
        let mut timings = Timings::default();
        let stride = pipeline.output_stride();
        let per_position = (stride as usize) / size_of::<T>();
        let mut output: Vec<T> = Vec::with_capacity(positions.len() * per_position);
        if positions.is_empty() {
            return Ok((output, timings));
        }
        let chunk_size = self.positions_per_dispatch.min(positions.len());
        let context = self.context.clone();
        context.scoped_async(|| self.ensure_buffers(chunk_size)).await?;
        for chunk in positions.chunks(chunk_size) {
            let part = context.scoped_future(self.dispatch::<T>(pipeline, chunk, timed, &mut timings)).await??;
            output.extend(part);
            timings.dispatches += 1;
        }
        // Callers take each position's records by index: a short readback
        // must be an error, never a batch cut short.
        if output.len() != positions.len() * per_position {
            return Err(GpuError::Internal(format!(
                "{pipeline:?} returned {} records for {} positions",
                output.len(),
                positions.len()
            )));
        }
        Ok((output, timings))
    }

    async fn dispatch<T: Pod>(
        &self,
        pipeline: Pipeline,
        chunk: &[PackedPosition],
        timed: bool,
        timings: &mut Timings,
    ) -> Result<Vec<T>, GpuError> {
        let buffers = self.buffers.as_ref().expect("buffers are allocated before dispatch");
        let (device, queue) = (&self.context.device, &self.context.queue);
        let count = chunk.len() as u32;
        let output_bytes = u64::from(count) * pipeline.output_stride();

        let started = Instant::now();
        queue.write_buffer(&buffers.positions, 0, bytemuck::cast_slice(chunk));
        queue.write_buffer(&buffers.parameters, 0, bytemuck::bytes_of(&BatchParameters::positions(count)));
        queue.write_buffer(&buffers.status, 0, bytemuck::bytes_of(&0u32));
        if timed {
            self.context.submit([]);
            self.context.wait_async().await?;
            timings.upload += started.elapsed();
        }

        let started = Instant::now();
        let timestamps = self.timestamps.as_ref().filter(|_| timed);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("movegen") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("movegen"),
                timestamp_writes: timestamps.map(|timestamps| wgpu::ComputePassTimestampWrites {
                    query_set: &timestamps.queries,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            let kernels = self.kernels(pipeline);
            let bind_group = match pipeline {
                Pipeline::PerPosition => &buffers.per_position_bind_group,
                Pipeline::ActionMasks => &buffers.action_masks_bind_group,
                _ => &buffers.per_piece_bind_group,
            };
            // The per-piece kernels run one workgroup (a thread per square) per position.
            let workgroups = match pipeline {
                Pipeline::PerPosition | Pipeline::ActionMasks => {
                    count.div_ceil(kernels.workgroup_size(pipeline.entry_point()))
                }
                _ => count,
            };
            pass.set_pipeline(kernels.pipeline(pipeline.entry_point()));
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(workgroups, 1, 1);
        }
        if let Some(timestamps) = timestamps {
            encoder.resolve_query_set(&timestamps.queries, 0..2, &timestamps.resolve, 0);
            encoder.copy_buffer_to_buffer(&timestamps.resolve, 0, &timestamps.staging, 0, 16);
        }
        if timed {
            self.context.submit([encoder.finish()]);
            self.context.wait_async().await?;
            timings.dispatch += started.elapsed();
            if let Some(timestamps) = timestamps {
                let ticks: Vec<u64> = read_mapped(&self.context, &timestamps.staging, 16).await?;
                let nanoseconds = ticks[1].saturating_sub(ticks[0]) as f64 * f64::from(queue.get_timestamp_period());
                *timings.gpu_dispatch.get_or_insert(Duration::ZERO) += Duration::from_nanos(nanoseconds as u64);
            }
            encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
        }

        let started = Instant::now();
        encoder.copy_buffer_to_buffer(&buffers.output, 0, &buffers.staging, 0, output_bytes);
        encoder.copy_buffer_to_buffer(&buffers.status, 0, &buffers.status_staging, 0, 4);
        self.context.submit([encoder.finish()]);
        let status: Vec<u32> = read_mapped(&self.context, &buffers.status_staging, 4).await?;
        if status[0] != 0 {
            return Err(GpuError::ShaderFault(describe_faults(status[0])));
        }
        let result = read_mapped(&self.context, &buffers.staging, output_bytes).await?;
        timings.readback += started.elapsed();
        Ok(result)
    }
}

/// Native u64 shaders need the device feature; refuse clearly without it.
pub(crate) fn check_build(device: &wgpu::Device, build: shaders::ShaderBuild) -> Result<(), GpuError> {
    if build.native_u64 && !device.features().contains(wgpu::Features::SHADER_INT64) {
        return Err(GpuError::Limits(format!(
            "the {} variant needs SHADER_INT64, which this device was not created with",
            build.name()
        )));
    }
    Ok(())
}

fn describe_faults(flags: u32) -> String {
    use crate::gpu::perft::FAULT_INVALID_POSITION;
    let mut reasons = Vec::new();
    if flags & FAULT_INVALID_POSITION != 0 {
        reasons.push(<super::Chess as crate::gpu::PerftGame>::INVALID_POSITION);
    }
    if flags & !FAULT_INVALID_POSITION != 0 {
        reasons.push("unknown fault bits");
    }
    format!("{} (flags {flags:#x})", reasons.join(", "))
}

/// The GPU layout of every position, packed on every core for a large batch.
fn pack_batch(positions: &[Position]) -> Vec<PackedPosition> {
    crate::threads::map_batch(positions.len(), |index| PackedPosition::from(&positions[index]))
}
