//! Chess perft on the GPU: the chess side of the breadth-first perft engine
//! (`crate::gpu::perft`), whose documentation says how it stays exact in
//! fixed memory.

use super::layout::PackedPosition;
use super::shaders::{self, ShaderBuild};
use crate::chess::movegen::MAX_LEGAL_MOVES;
use crate::chess::position::Position;
use crate::chess::stats::PerftStats;
use crate::gpu::GpuError;
use crate::gpu::perft::{PerftEngine, PerftGame};
use crate::gpu::reflect::{ComposedShader, reflect};

pub use crate::chess::perft::Chess;

impl PerftGame for Chess {
    type Record = PackedPosition;
    type Build = ShaderBuild;

    /// The most legal moves of any position a game can reach.
    const REACHABLE_MAX_MOVES: u32 = 218;
    const MAX_LEGAL_MOVES: u32 = MAX_LEGAL_MOVES as u32;
    const INVALID_POSITION: &'static str = "a position has no king for the side to move";

    fn pack(_: ShaderBuild, position: &Position) -> PackedPosition {
        PackedPosition::from(position)
    }

    fn perft_shader(build: ShaderBuild, memory: &str) -> Result<ComposedShader, GpuError> {
        reflect(shaders::compose_build("perft", build, &[("perft_memory", memory)])?)
    }

    fn table_words(build: ShaderBuild) -> Vec<u32> {
        let data = shaders::attack_table_data();
        bytemuck::cast_slice(&data[..build.table_words() as usize]).to_vec()
    }

    fn describe(build: ShaderBuild) -> String {
        format!("the {} sliders", build.name())
    }

    fn check_device(device: &wgpu::Device, build: ShaderBuild) -> Result<(), GpuError> {
        super::movegen::check_build(device, build)
    }

    /// Both leaf shapes whichever runs: chess's kernels compile in seconds.
    fn known_answer_checks(build: ShaderBuild, _fused_leaves: bool) -> Vec<crate::gpu::Check> {
        vec![super::self_test::perft_check(build)]
    }

    const STATISTICS_COLUMNS: u32 = PerftStats::NAMES.len() as u32;

    fn statistics_shader(build: ShaderBuild, memory: &str) -> Option<Result<ComposedShader, GpuError>> {
        Some(
            shaders::compose_build("perft_statistics", build, &[("perft_memory", memory)])
                .map_err(GpuError::from)
                .and_then(reflect),
        )
    }

    fn statistics_checks(build: ShaderBuild) -> Vec<crate::gpu::Check> {
        vec![super::self_test::statistics_check(build)]
    }
}

/// The chess GPU perft driver.
pub type GpuPerft = PerftEngine<Chess>;
/// Its settings.
pub type PerftOptions = crate::gpu::perft::PerftOptions<ShaderBuild>;

impl PerftEngine<Chess> {
    /// The statistics of each root's leaves `depth` plies below it, as
    /// [`crate::chess::stats::perft_stats`] counts them. The engine must be
    /// made with `leaf_statistics` set.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn perft_stats(
        &mut self,
        roots: &[Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<PerftStats>, GpuError> {
        crate::gpu::block_on(self.perft_stats_async(roots, depth, progress))
    }

    /// [`Self::perft_stats`], awaited.
    pub async fn perft_stats_async(
        &mut self,
        roots: &[Position],
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<PerftStats>, GpuError> {
        let rows = self.perft_statistics_async(roots, depth, progress).await?;
        Ok(rows.iter().map(|row| PerftStats::from_columns(row)).collect())
    }

    /// The statistics below each root move, as [`crate::chess::stats::divide_stats`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn divide_stats(
        &mut self,
        position: &Position,
        depth: u32,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Vec<(crate::chess::board::Move, PerftStats)>, GpuError> {
        // At depth 1 the leaves are the root moves themselves: nothing to count on the GPU.
        if depth <= 1 {
            return Ok(crate::chess::stats::divide_stats(position, depth));
        }
        crate::chess::perft::divide_with(position, depth, |children, below| self.perft_stats(children, below, progress))
    }
}
