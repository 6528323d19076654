//! Go perft on the GPU: Go as a game of the breadth-first perft engine
//! (`crate::gpu::perft`), whose documentation says how it stays exact in
//! fixed memory. The kernels are built for one board size (the variant);
//! a position of another size raises a fault, never a wrong count.

use super::layout::PackedGoPosition;
use super::shaders;
use crate::go::Position;
use crate::gpu::GpuError;
use crate::gpu::perft::{PerftEngine, PerftGame, PerftOptions};
use crate::gpu::reflect::{ComposedShader, reflect};

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
