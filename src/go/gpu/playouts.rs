//! Batched Go playouts on the GPU, one invocation per whole playout
//! (shaders/go/kernels/playouts.wgsl); each ends exactly as the CPU's
//! playout with the same seed and stream.

use super::batch::{GoBatch, INVOCATIONS_PER_DISPATCH};
use super::layout::{GoPlayoutState, PackedGoPosition};
use crate::go::playout::move_cap;
#[cfg(not(target_arch = "wasm32"))]
use crate::go::playout::{PlayoutBatch, PlayoutRunner};
use crate::go::{PlayoutResult, Position};
use crate::gpu::batch::BatchParameters;
use crate::gpu::{GpuContext, GpuError};

/// The most playouts in one dispatch by default: enough invocations to fill
/// the largest GPUs (an H200 holds about 270,000 at once), and a bound on a
/// dispatch's length however large the batch, for drivers with a watchdog.
pub const PLAYOUTS_PER_DISPATCH: u32 = 1 << 18;

/// The GPU playout runner.
pub struct GpuPlayouts {
    batch: GoBatch,
    /// The most playouts one dispatch runs.
    per_dispatch: u32,
}

impl GpuPlayouts {
    /// A runner on `context`. The first batch of a board size is run once
    /// the device has passed the self-test of that size's playouts.
    pub fn new(context: &GpuContext) -> GpuPlayouts {
        GpuPlayouts {
            batch: GoBatch::new(context, "go_playouts", |size| vec![super::self_test::playout_check(size)]),
            per_dispatch: PLAYOUTS_PER_DISPATCH,
        }
    }

    /// The same runner with at most `playouts` (1 or more, at most the
    /// device's limit) in one dispatch: what lets a test reach the paths that
    /// split a batch without running millions of playouts.
    pub fn with_dispatch_limit(mut self, playouts: u32) -> GpuPlayouts {
        self.per_dispatch = playouts.clamp(1, INVOCATIONS_PER_DISPATCH);
        self
    }

    /// Builds the kernels for boards of `size` now, once the device has
    /// passed the self-test of them (they are otherwise built on first use).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn prepare(&mut self, size: u32) -> Result<(), GpuError> {
        crate::gpu::block_on(self.prepare_async(size))
    }

    /// [`GpuPlayouts::prepare`], awaited.
    pub async fn prepare_async(&mut self, size: u32) -> Result<(), GpuError> {
        self.batch.prepare(size).await
    }

    /// The adapter's description.
    pub fn adapter(&self) -> String {
        self.batch.context().adapter_description()
    }

    /// `per_position` playouts from each position (all of one size), playout
    /// `i` of the batch seeded with stream `first_stream + i` of `seed`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn playouts(
        &mut self,
        positions: &[Position],
        per_position: u32,
        seed: u32,
        first_stream: u32,
    ) -> Result<Vec<PlayoutResult>, GpuError> {
        crate::gpu::block_on(self.playouts_async(positions, per_position, seed, first_stream))
    }

    /// [`GpuPlayouts::playouts`], awaited.
    pub async fn playouts_async(
        &mut self,
        positions: &[Position],
        per_position: u32,
        seed: u32,
        first_stream: u32,
    ) -> Result<Vec<PlayoutResult>, GpuError> {
        let Some(first) = positions.first() else {
            return Ok(Vec::new());
        };
        let size = first.size();
        if positions.iter().any(|position| position.size() != size) {
            return Err(GpuError::Limits("one playout batch holds one board size".into()));
        }
        if per_position == 0 {
            return Ok(Vec::new());
        }
        // More playouts of one position than a dispatch holds: each position's
        // in pieces that do, streams numbered on as in one batch.
        if per_position > self.per_dispatch {
            let mut results = Vec::with_capacity(positions.len() * per_position as usize);
            for (index, position) in positions.iter().enumerate() {
                let base = first_stream.wrapping_add((index as u32).wrapping_mul(per_position));
                let mut done = 0;
                while done < per_position {
                    let part = (per_position - done).min(self.per_dispatch);
                    let streams = base.wrapping_add(done);
                    results
                        .extend(self.whole_positions(std::slice::from_ref(position), part, seed, streams, size).await?);
                    done += part;
                }
            }
            return Ok(results);
        }
        self.whole_positions(positions, per_position, seed, first_stream, size).await
    }

    /// Playouts of positions of one `size`, at most a dispatch's worth of
    /// them from any one position.
    async fn whole_positions(
        &mut self,
        positions: &[Position],
        per_position: u32,
        seed: u32,
        first_stream: u32,
        size: u32,
    ) -> Result<Vec<PlayoutResult>, GpuError> {
        // Whole positions per dispatch, so each dispatch's streams continue the last.
        let positions_per_dispatch = (self.per_dispatch / per_position).max(1) as usize;
        let mut results = Vec::with_capacity(positions.len() * per_position as usize);
        for (index, chunk) in positions.chunks(positions_per_dispatch).enumerate() {
            let count = u32::try_from(chunk.len() as u64 * u64::from(per_position))
                .ok()
                .filter(|count| *count <= self.per_dispatch)
                .ok_or_else(|| {
                    GpuError::Limits(format!("{per_position} playouts per position is too many for one dispatch"))
                })?;
            let packed: Vec<PackedGoPosition> = chunk.iter().map(PackedGoPosition::pack).collect();
            let stream = first_stream.wrapping_add((index * positions_per_dispatch) as u32 * per_position);
            let parameters = BatchParameters { count, per_position, seed, first_stream: stream };
            let states: Vec<GoPlayoutState> = self.batch.run(size, &["playout_games"], &packed, parameters).await?;
            if states.iter().any(|state| state.passes < 2 && state.moves < move_cap(size)) {
                return Err(GpuError::ShaderFault("a playout had not ended when its invocation did".into()));
            }
            results.extend(
                states.iter().map(|state| PlayoutResult { area_difference: state.area_difference, moves: state.moves }),
            );
        }
        Ok(results)
    }
}

// The GTP engine's runner blocks on each batch: native only.
#[cfg(not(target_arch = "wasm32"))]
impl PlayoutRunner for GpuPlayouts {
    fn run(&mut self, positions: &[Position], batch: PlayoutBatch) -> Result<Vec<PlayoutResult>, String> {
        self.playouts(positions, batch.per_position, batch.seed, batch.first_stream).map_err(|error| error.to_string())
    }
}
