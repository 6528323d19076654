//! Legal points and playout moves for batches of Go positions on the GPU,
//! one invocation per position (shaders/go/kernels/legal.wgsl).

use super::batch::{GoBatch, INVOCATIONS_PER_DISPATCH};
use super::layout::{GoMovesRecord, PackedGoPosition, join_words};
use crate::go::Position;
use crate::go::position::MAX_WORDS;
use crate::gpu::batch::BatchParameters;
use crate::gpu::{GpuContext, GpuError};

/// The move bitmaps of one position for its side to move, as 64-bit words
/// in the layout of `crate::go::bitmap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoPositionMoves {
    /// The legal points.
    pub legal: [u64; MAX_WORDS],
    /// The points a playout may choose: legal, and not the mover's own eyes.
    pub playout: [u64; MAX_WORDS],
}

impl GoPositionMoves {
    /// The CPU reference's answer in the same shape.
    pub fn from_cpu(position: &Position) -> GoPositionMoves {
        let color = position.to_move();
        let (legal, playout) = position.move_words(color);
        GoPositionMoves { legal, playout }
    }
}

/// The Go move-bitmap generator.
pub struct GoMoveGenerator {
    batch: GoBatch,
}

impl GoMoveGenerator {
    /// A generator on `context`; its kernels are built, after their self-test, on first use.
    pub fn new(context: &GpuContext) -> GoMoveGenerator {
        GoMoveGenerator { batch: GoBatch::new(context, "go_legal", |_| Vec::new()) }
    }

    /// The move bitmaps of every position; all must have the same board size.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn generate(&mut self, positions: &[Position]) -> Result<Vec<GoPositionMoves>, GpuError> {
        crate::gpu::block_on(self.generate_async(positions))
    }

    /// [`GoMoveGenerator::generate`], awaited.
    pub async fn generate_async(&mut self, positions: &[Position]) -> Result<Vec<GoPositionMoves>, GpuError> {
        let Some(first) = positions.first() else {
            return Ok(Vec::new());
        };
        let size = first.size();
        if let Some(other) = positions.iter().find(|position| position.size() != size) {
            return Err(GpuError::Limits(format!(
                "one batch holds one board size: {size}x{size} and {0}x{0} were mixed",
                other.size()
            )));
        }
        let mut moves = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(INVOCATIONS_PER_DISPATCH as usize) {
            let packed: Vec<PackedGoPosition> = chunk.iter().map(PackedGoPosition::pack).collect();
            let parameters = BatchParameters::positions(chunk.len() as u32);
            let records: Vec<GoMovesRecord> = self.batch.run(size, &["legal_points"], &packed, parameters).await?;
            moves.extend(records.iter().map(|record| GoPositionMoves {
                legal: join_words(&record.legal),
                playout: join_words(&record.playout),
            }));
        }
        Ok(moves)
    }
}
