//! Batched Shogi move generation on the GPU: upload positions, run the
//! per-position kernel, read every legal destination and drop back.

use super::layout::{PackedShogiPosition, ShogiPositionMovesRecord};
use super::shaders;
use crate::gpu::batch::BatchParameters;
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::buffer_with;
use crate::gpu::{GpuContext, GpuError};
use crate::shogi::board::{Bitboard, Piece};
use crate::shogi::position::Position;

/// The legal moves of one position as move sets: destinations per
/// from-square (a destination counts when either promotion choice is
/// legal), drop squares per hand kind, and the number of legal moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShogiPositionMoves {
    /// (from-square, destinations) for every square with at least one.
    pub destinations: Vec<(u8, Bitboard)>,
    /// Drop squares by hand slot (pawn, lance, knight, silver, gold, bishop, rook).
    pub drops: [Bitboard; 7],
    /// Legal moves, promotions and non-promotions apart.
    pub move_count: u32,
}

impl ShogiPositionMoves {
    /// The CPU reference's answer in the same shape.
    pub fn from_cpu(position: &Position) -> ShogiPositionMoves {
        let mut destinations = [Bitboard::EMPTY; 81];
        let mut drops = [Bitboard::EMPTY; 7];
        let moves = position.legal_moves();
        for mv in &moves {
            match mv.from {
                Some(from) => destinations[from as usize] |= Bitboard::from_square(mv.to),
                None => drops[mv.piece.hand_index()] |= Bitboard::from_square(mv.to),
            }
        }
        ShogiPositionMoves {
            destinations: collect_destinations(destinations.iter().copied()),
            drops,
            move_count: moves.len() as u32,
        }
    }

    fn from_record(record: &ShogiPositionMovesRecord) -> ShogiPositionMoves {
        let bitboard = |words: &[u32; 4]| {
            Bitboard(
                words.iter().enumerate().fold(0u128, |bits, (index, word)| bits | u128::from(*word) << (32 * index)),
            )
        };
        let mut drops = [Bitboard::EMPTY; 7];
        for (slot, words) in record.drops.iter().enumerate() {
            drops[slot] = bitboard(words);
        }
        ShogiPositionMoves {
            destinations: collect_destinations(record.destinations.iter().map(bitboard)),
            drops,
            move_count: record.move_count,
        }
    }

    /// The drop squares of `piece` (an unpromoted hand kind).
    pub fn drops_of(&self, piece: Piece) -> Bitboard {
        self.drops[piece.hand_index()]
    }
}

fn collect_destinations(sets: impl Iterator<Item = Bitboard>) -> Vec<(u8, Bitboard)> {
    sets.enumerate().filter(|(_, set)| !set.is_empty()).map(|(square, set)| (square as u8, set)).collect()
}

/// The Shogi move generator: the kernel and the tables.
pub struct ShogiMoveGenerator {
    context: GpuContext,
    kernels: Kernels,
    tables: wgpu::Buffer,
}

/// Positions per dispatch: 65,535 workgroups of 64 stay within every device's limit.
const POSITIONS_PER_DISPATCH: usize = 65_535 * 64;

impl ShogiMoveGenerator {
    /// A generator on `context`, once its device has passed the self-test's
    /// device checks (`shogi verify` compares what it returns with the CPU).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext) -> Result<ShogiMoveGenerator, GpuError> {
        crate::gpu::block_on(ShogiMoveGenerator::new_async(context))
    }

    /// [`ShogiMoveGenerator::new`], awaited.
    pub async fn new_async(context: &GpuContext) -> Result<ShogiMoveGenerator, GpuError> {
        context.require_async(&[]).await?;
        let shader = reflect(shaders::compose_with("shogi_per_position", &[])?)?;
        context
            .scoped_async(|| ShogiMoveGenerator {
                context: context.clone(),
                kernels: context.kernels(&shader, "shogi per_position"),
                tables: buffer_with(
                    &context.device,
                    "shogi tables",
                    &shaders::table_data(super::layout::BoardWords::Full),
                    wgpu::BufferUsages::STORAGE,
                ),
            })
            .await
    }

    /// The legal moves of every position.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn generate(&mut self, positions: &[Position]) -> Result<Vec<ShogiPositionMoves>, GpuError> {
        crate::gpu::block_on(self.generate_async(positions))
    }

    /// [`ShogiMoveGenerator::generate`], awaited.
    pub async fn generate_async(&mut self, positions: &[Position]) -> Result<Vec<ShogiPositionMoves>, GpuError> {
        let mut moves = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(POSITIONS_PER_DISPATCH) {
            let records = self.dispatch(chunk).await?;
            moves.extend(records.iter().map(ShogiPositionMoves::from_record));
        }
        Ok(moves)
    }

    async fn dispatch(&self, chunk: &[Position]) -> Result<Vec<ShogiPositionMovesRecord>, GpuError> {
        let packed: Vec<PackedShogiPosition> = chunk.iter().map(PackedShogiPosition::from).collect();
        let batch = crate::gpu::batch::Batch {
            label: "shogi per_position",
            kernels: &self.kernels,
            entry_points: &["per_position"],
            tables: Some(&self.tables),
            positions: &packed,
            parameters: BatchParameters::positions(chunk.len() as u32),
        };
        crate::gpu::batch::run(&self.context, &batch, |flags| {
            format!("a Shogi position has no king for the side to move (flags {flags:#x})")
        })
        .await
    }
}
