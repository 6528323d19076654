//! Shogi perft on the GPU: Shogi as a game of the breadth-first perft
//! engine (`crate::gpu::perft`), whose documentation says how it stays exact
//! in fixed memory.

use super::layout::{BoardWords, PackedShogiPosition};
use super::shaders;
use crate::catalog::{self, Coverage, KernelChoice, KernelModule};
use crate::chess::gpu::ShaderBuild;
use crate::chess::variant::Variant;
use crate::gpu::perft::{FusedShape, PerftEngine, PerftGame, PerftOptions, memory_module};
use crate::gpu::reflect::{ComposedShader, reflect};
use crate::gpu::{GpuContext, GpuError};
use crate::registry::{self, ListedGame, ReadError};
use crate::shogi::position::Position;

/// Shogi as a game of the perft engine: its build is how the 81 squares
/// are laid out in four 32-bit words.
pub use crate::shogi::perft::ShogiGame;

impl PerftGame for ShogiGame {
    type Record = PackedShogiPosition;
    type Build = BoardWords;

    /// The most legal moves known in a position a game can reach.
    const REACHABLE_MAX_MOVES: u32 = 593;
    /// A bound for every position SFEN validation accepts: a side's board
    /// pieces move at most 2 × 16 (each rook or bishop, promoting or not),
    /// 2 × 8 (each lance), 2 × 5 (each silver), 2 × 2 (each knight), 6 (each
    /// gold or tokin) and 8 (the king) ways, at most 388 in all, and drops
    /// reach at most 7 kinds × 81 squares; 1,024 is above their sum.
    const MAX_LEGAL_MOVES: u32 = 1024;
    const INVALID_POSITION: &'static str = "a Shogi position has no king for the side to move";

    fn pack(words: BoardWords, position: &Position) -> PackedShogiPosition {
        PackedShogiPosition::pack(words, position)
    }

    fn perft_shader(words: BoardWords, memory: &str) -> Result<ComposedShader, GpuError> {
        reflect(shaders::compose_build("shogi_perft", words, &[("perft_memory", memory)])?)
    }

    fn table_words(words: BoardWords) -> Vec<u32> {
        bytemuck::cast_slice(&shaders::table_data(words)).to_vec()
    }

    fn describe(words: BoardWords) -> String {
        format!("the Shogi kernels ({words:?})")
    }

    fn check_device(_: &wgpu::Device, _: BoardWords) -> Result<(), GpuError> {
        Ok(())
    }

    fn known_answer_checks(words: BoardWords, fused_leaves: bool) -> Vec<crate::gpu::Check> {
        vec![super::self_test::perft_check(words, fused_leaves)]
    }
}

impl ListedGame for ShogiGame {
    const NOTATION: &'static str = "SFEN";
    const MAX_DEPTH: u32 = crate::shogi::perft::MAX_DEPTH;

    fn read(text: Option<&str>, _: Variant, _: u32) -> Result<Position, ReadError> {
        registry::read_or_start(text, Position::start, Position::from_sfen)
    }

    fn position_text(position: &Position) -> String {
        position.to_sfen()
    }

    fn random_positions(_: Variant, count: usize, seed: u64) -> Result<Vec<Position>, String> {
        Ok(crate::shogi::perft::random_positions(count, seed))
    }

    fn options_for(context: &GpuContext, _: &Position, _: ShaderBuild) -> ShogiPerftOptions {
        ShogiPerftOptions { fused_leaves: fused_leaves_suit(context, true), ..Default::default() }
    }

    fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
        let mut modules = Vec::new();
        for words in [BoardWords::Full, BoardWords::ThreeRanks] {
            for named in catalog::perft_layouts(coverage, words == BoardWords::default()) {
                let memory = memory_module(&named.layout);
                let configuration = format!("{} {}", board_words_name(words), named.name);
                let shader = ShogiGame::perft_shader(words, &memory)?;
                modules.push(catalog::perft_module("shogi", "shogi_perft", &configuration, shader));
            }
            let shader = reflect(shaders::compose_build("shogi_per_position", words, &[])?)?;
            modules.push(catalog::batch_module(
                "shogi",
                "shogi_per_position",
                board_words_name(words).to_owned(),
                shader,
            ));
        }
        // The environment's GPU backend runs the default layout only.
        let shader = reflect(shaders::compose_with("shogi_environment", &[])?)?;
        modules.push(catalog::batch_module(
            "shogi",
            "shogi_environment",
            board_words_name(BoardWords::default()).to_owned(),
            shader,
        ));
        Ok(modules)
    }

    fn default_choice(context: &GpuContext) -> KernelChoice {
        let (kernels, leaf_reason) = if fused_leaves_suit(context, true) {
            catalog::fused_kernels(context, FusedShape::Auto)
        } else {
            (
                vec!["count_moves", "scan_blocks", "add_block_sums", "expand_moves", "write_children", "count_moves"],
                "the last level stored and counted one ply per position: on a software adapter, where levels \
                 merge (a table), the looped leaf counts slower than stored leaves; with --hash 0 it plays the \
                 pairs of the level above itself and counts faster"
                    .to_owned(),
            )
        };
        KernelChoice {
            game: "shogi",
            build: board_words_name(BoardWords::default()).to_owned(),
            build_reason: "the u128's bits in order: within noise of three ranks to a word on lavapipe, and its \
                           square-to-word arithmetic is a shift, not a division (BENCHMARKS.md)"
                .to_owned(),
            kernels,
            leaf_reason,
        }
    }
}

fn board_words_name(words: BoardWords) -> &'static str {
    match words {
        BoardWords::Full => "full-words",
        BoardWords::ThreeRanks => "three-ranks",
    }
}

/// The Shogi GPU perft driver.
pub type ShogiGpuPerft = PerftEngine<ShogiGame>;
/// Its settings.
pub type ShogiPerftOptions = PerftOptions<BoardWords>;

/// The leaf shape for `context` when levels are merged (`merges`: a
/// transposition table or merging on) or not. On a GPU, fused leaves, which
/// save storing the largest level. On a software adapter (lavapipe), fused
/// leaves where no level merges: the looped leaf then plays the pairs of the
/// level above itself, and counts start perft(6) in 0.88 of the stored
/// leaves' time; where levels merge, stored leaves, which count in 0.85 of
/// the looped leaf's time there. The looped kernel doubles a cold compile
/// on lavapipe (13 s against 6 s with Mesa's shader cache off), once a
/// driver (BENCHMARKS.md).
pub fn fused_leaves_suit(context: &GpuContext, merges: bool) -> bool {
    !context.is_software() || !merges
}
