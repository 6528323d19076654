//! Go perft on the GPU: Go as a game of the breadth-first perft engine
//! (`crate::gpu::perft`), whose documentation says how it stays exact in
//! fixed memory. The kernels are built for one board size (the variant);
//! a position of another size raises a fault, never a wrong count.

use super::layout::PackedGoPosition;
use super::shaders;
use crate::catalog::{self, Coverage, KernelChoice, KernelModule};
use crate::chess::gpu::ShaderBuild;
use crate::chess::variant::Variant;
use crate::go::Position;
use crate::gpu::perft::{FusedShape, PerftEngine, PerftGame, PerftOptions, memory_module};
use crate::gpu::reflect::{ComposedShader, reflect};
use crate::gpu::{GpuContext, GpuError};
use crate::registry::{ListedGame, ReadError};

/// The board size a Go perft engine's kernels are built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoardSize(pub u32);

impl Default for BoardSize {
    fn default() -> Self {
        BoardSize(19)
    }
}

pub use crate::go::perft::GoGame;

impl PerftGame for GoGame {
    type Record = PackedGoPosition;
    type Build = BoardSize;

    /// Every point of a 19×19 board.
    const REACHABLE_MAX_MOVES: u32 = 361;
    const MAX_LEGAL_MOVES: u32 = 361;
    const INVALID_POSITION: &'static str = "a Go position's board size is not the one the kernels were built for";

    fn pack(_: BoardSize, position: &Position) -> PackedGoPosition {
        PackedGoPosition::pack(position)
    }

    fn perft_shader(size: BoardSize, memory: &str) -> Result<ComposedShader, GpuError> {
        check_size(size)?;
        reflect(shaders::compose("go_perft", size.0, &[("perft_memory", memory)])?)
    }

    /// Go has no tables; the binding holds one word.
    fn table_words(_: BoardSize) -> Vec<u32> {
        vec![0]
    }

    fn describe(size: BoardSize) -> String {
        format!("the Go kernels ({0}x{0})", size.0)
    }

    fn check_device(_: &wgpu::Device, size: BoardSize) -> Result<(), GpuError> {
        check_size(size)
    }

    /// Both leaf shapes whichever runs: Go's kernels compile in seconds.
    fn known_answer_checks(size: BoardSize, _fused_leaves: bool) -> Vec<crate::gpu::Check> {
        vec![super::self_test::perft_check(size)]
    }
}

impl ListedGame for GoGame {
    const NOTATION: &'static str = "moves";
    const MAX_DEPTH: u32 = crate::go::perft::MAX_DEPTH;

    /// The moves from the empty board of `size` (`None`: none).
    fn read(text: Option<&str>, _: Variant, size: u32) -> Result<Position, ReadError> {
        Position::new(size).map_err(|error| ReadError::Size(error.to_string()))?;
        Position::from_moves(size, text.unwrap_or("")).map_err(|error| ReadError::Moves(error.to_string()))
    }

    /// The board as text (Go has no position notation that keeps the ko).
    fn position_text(position: &Position) -> String {
        format!("{position:?}")
    }

    /// On a 9x9 board.
    fn random_positions(_: Variant, count: usize, seed: u64) -> Result<Vec<Position>, String> {
        crate::go::playout::random_positions(9, count, seed).map_err(|error| error.to_string())
    }

    fn options_for(_: &GpuContext, root: &Position, _: ShaderBuild) -> GoPerftOptions {
        GoPerftOptions { build: BoardSize(root.size()), ..Default::default() }
    }

    /// Every size ([`Coverage::Full`]), or the sizes people play (9, 13,
    /// 19) and the smallest: the code differs between sizes only in its loop
    /// bounds and words. Every layout for 19x19.
    fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
        let mut modules = Vec::new();
        for size in 2..=crate::go::MAX_SIZE {
            if coverage == Coverage::Covering && ![2, 9, 13, 19].contains(&size) {
                continue;
            }
            for named in catalog::perft_layouts(coverage, size == 19) {
                let memory = memory_module(&named.layout);
                let configuration = format!("{size}x{size} {}", named.name);
                let shader = GoGame::perft_shader(BoardSize(size), &memory)?;
                modules.push(catalog::perft_module("go", "go_perft", &configuration, shader));
            }
            for module in ["go_legal", "go_playouts", "go_environment"] {
                let shader = reflect(shaders::compose(module, size, &[])?)?;
                modules.push(catalog::batch_module("go", module, format!("{size}x{size}"), shader));
            }
        }
        Ok(modules)
    }

    fn default_choice(context: &GpuContext) -> KernelChoice {
        let (kernels, leaf_reason) = catalog::fused_kernels(context, FusedShape::Auto);
        KernelChoice {
            game: "go",
            build: "one module per board size".to_owned(),
            build_reason: "a bitmap's words are a constant of the module".to_owned(),
            kernels,
            leaf_reason,
        }
    }
}

fn check_size(size: BoardSize) -> Result<(), GpuError> {
    if (2..=crate::go::MAX_SIZE).contains(&size.0) {
        Ok(())
    } else {
        Err(GpuError::Limits(format!("no Go kernels for a {0}x{0} board (2 to 19)", size.0)))
    }
}

/// The Go GPU perft driver.
pub type GoGpuPerft = PerftEngine<GoGame>;
/// Its settings.
pub type GoPerftOptions = PerftOptions<BoardSize>;
