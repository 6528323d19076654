//! Chess perft on the GPU: the chess side of the breadth-first perft engine
//! (`crate::gpu::perft`), whose documentation says how it stays exact in
//! fixed memory.

use super::layout::PackedPosition;
use super::shaders::{self, ShaderBuild};
use crate::catalog::{self, Coverage, KernelChoice, KernelModule};
use crate::chess::board::Move;
use crate::chess::movegen::MAX_LEGAL_MOVES;
use crate::chess::position::Position;
use crate::chess::stats::PerftStats;
use crate::chess::variant::Variant;
use crate::gpu::perft::{FusedShape, PerftEngine, PerftGame, memory_module};
use crate::gpu::reflect::{ComposedShader, reflect};
use crate::gpu::{GpuContext, GpuError};
use crate::registry::{self, ListedGame, ReadError};

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

impl ListedGame for Chess {
    const NOTATION: &'static str = "FEN";
    const MAX_DEPTH: u32 = crate::chess::perft::MAX_DEPTH;

    fn read(text: Option<&str>, _: Variant, _: u32) -> Result<Position, ReadError> {
        registry::read_or_start(text, Position::start, Position::from_fen)
    }

    fn move_text(position: &Position, mv: Move, chess960: bool) -> String {
        mv.uci(chess960 || position.is_chess960()).to_string()
    }

    fn position_text(position: &Position) -> String {
        position.to_fen()
    }

    fn random_positions(_: Variant, count: usize, seed: u64) -> Result<Vec<Position>, String> {
        Ok(crate::chess::random_play::random_positions(&Position::start(), count, 80, seed))
    }

    fn options_for(_: &GpuContext, _: &Position, shaders: ShaderBuild) -> PerftOptions {
        PerftOptions { build: shaders, ..Default::default() }
    }

    fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
        let mut modules = Vec::new();
        for build in catalog::chess_shader_builds() {
            for named in catalog::perft_layouts(coverage, build == ShaderBuild::default()) {
                let memory = memory_module(&named.layout);
                let configuration = format!("{} {}", build.name(), named.name);
                modules.push(catalog::perft_module(
                    "chess",
                    "perft",
                    &configuration,
                    Chess::perft_shader(build, &memory)?,
                ));
                if let Some(shader) = Chess::statistics_shader(build, &memory) {
                    modules.push(catalog::perft_module("chess", "perft_statistics", &configuration, shader?));
                }
            }
            for module in ["per_position", "per_piece", "action_masks", "environment"] {
                let shader = reflect(shaders::compose_build(module, build, &[])?)?;
                modules.push(catalog::batch_module("chess", module, build.name(), shader));
            }
        }
        Ok(modules)
    }

    fn default_choice(context: &GpuContext) -> KernelChoice {
        let (build, build_reason) = catalog::chess_default_build(context, super::KernelFamily::Chess);
        let (kernels, leaf_reason) = catalog::fused_kernels(context, FusedShape::Auto);
        KernelChoice { game: "chess", build: build.name(), build_reason, kernels, leaf_reason }
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
