//! The chess variants on the GPU: one game of the perft engine for all
//! seven, the variant a constant of the composed module
//! (shaders/chess/variant.wgsl, kernels/variant_perft.wgsl), not seven
//! copies of the generator. Its known-answer check runs each variant's own
//! positions against the CPU (`crate::chess::variant`).

use super::layout::PackedVariantPosition;
use super::shaders::{self, ShaderBuild};
use crate::catalog::{self, Coverage, KernelChoice, KernelModule};
use crate::chess::board::Move;
use crate::chess::variant::{MAX_VARIANT_MOVES, Variant, VariantPosition};
use crate::gpu::perft::{PerftEngine, PerftGame, memory_module};
use crate::gpu::reflect::{ComposedShader, reflect};
use crate::gpu::{Check, GpuContext, GpuError};
use crate::registry::{self, ListedGame, ReadError};

/// What the variant kernels are built for: the variant and the chess shader build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VariantKernels {
    /// The variant whose rules the module holds.
    pub variant: Variant,
    /// The slider algorithm and bitboard representation.
    pub shaders: ShaderBuild,
}

pub use crate::chess::variant::ChessVariants;

/// The `variant_selected` module: the variants' numbers (the discriminants
/// of [`Variant`]) and the one a module is composed for.
pub fn variant_selected_module(variant: Variant) -> String {
    let mut text = String::from(
        "// variant_selected.wgsl — written by src/chess/gpu/variant.rs for one variant.\n//\n\
         // Reads: nothing. Writes: nothing. The variants' numbers, and VARIANT, the one this module is for.\n\n",
    );
    for each in Variant::ALL {
        let name = match each {
            Variant::Chess => "CHESS",
            Variant::Antichess => "ANTICHESS",
            Variant::Atomic => "ATOMIC",
            Variant::KingOfTheHill => "KING_OF_THE_HILL",
            Variant::ThreeCheck => "THREE_CHECK",
            Variant::Horde => "HORDE",
            Variant::RacingKings => "RACING_KINGS",
            Variant::Crazyhouse => "CRAZYHOUSE",
        };
        text += &format!("const VARIANT_{name}: u32 = {}u;\n", each as u32);
    }
    text += &format!("const VARIANT: u32 = {}u;\n", variant as u32);
    text
}

/// The variant perft module for `kernels`, with `memory` as `perft_memory`.
pub fn variant_perft_shader(kernels: VariantKernels, memory: &str) -> Result<ComposedShader, GpuError> {
    let selected = variant_selected_module(kernels.variant);
    reflect(shaders::compose_build(
        "variant_perft",
        kernels.shaders,
        &[("perft_memory", memory), ("variant_selected", &selected)],
    )?)
}

impl PerftGame for ChessVariants {
    type Record = PackedVariantPosition;
    type Build = VariantKernels;

    /// Chess's 218, and room for crazyhouse's drops in the positions its
    /// games reach; a position with more makes its group run again.
    const REACHABLE_MAX_MOVES: u32 = 500;
    const MAX_LEGAL_MOVES: u32 = MAX_VARIANT_MOVES as u32;
    const INVALID_POSITION: &'static str = "a variant position's side to move has no king";

    fn pack(_: VariantKernels, position: &VariantPosition) -> PackedVariantPosition {
        PackedVariantPosition::from(position)
    }

    fn perft_shader(kernels: VariantKernels, memory: &str) -> Result<ComposedShader, GpuError> {
        variant_perft_shader(kernels, memory)
    }

    fn table_words(kernels: VariantKernels) -> Vec<u32> {
        let data = shaders::attack_table_data();
        bytemuck::cast_slice(&data[..kernels.shaders.table_words() as usize]).to_vec()
    }

    fn describe(kernels: VariantKernels) -> String {
        format!("the {} kernels ({})", kernels.variant, kernels.shaders.name())
    }

    fn check_device(device: &wgpu::Device, kernels: VariantKernels) -> Result<(), GpuError> {
        super::movegen::check_build(device, kernels.shaders)
    }

    fn known_answer_checks(kernels: VariantKernels, _fused_leaves: bool) -> Vec<Check> {
        vec![perft_check(kernels)]
    }
}

impl ListedGame for ChessVariants {
    const NOTATION: &'static str = "FEN";
    const MAX_DEPTH: u32 = crate::chess::perft::MAX_DEPTH;
    const KERNEL_FAMILY: super::KernelFamily = super::KernelFamily::Variants;

    fn read(text: Option<&str>, variant: Variant, _: u32) -> Result<VariantPosition, ReadError> {
        registry::read_or_start(text, || VariantPosition::start(variant), |fen| VariantPosition::from_fen(variant, fen))
    }

    fn move_text(position: &VariantPosition, mv: Move, chess960: bool) -> String {
        mv.uci(chess960 || position.board().is_chess960()).to_string()
    }

    fn position_text(position: &VariantPosition) -> String {
        position.to_fen()
    }

    fn random_positions(variant: Variant, count: usize, seed: u64) -> Result<Vec<VariantPosition>, String> {
        Ok(crate::chess::variant::random_positions(variant, count, 80, seed))
    }

    fn options_for(_: &GpuContext, root: &VariantPosition, shaders: ShaderBuild) -> VariantPerftOptions {
        VariantPerftOptions { build: VariantKernels { variant: root.variant(), shaders }, ..Default::default() }
    }

    /// Each variant in every build and layout ([`Coverage::Full`]), or in the
    /// default build only, with every layout for the first variant: the
    /// variants' kernels share chess's slider code.
    fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
        let mut modules = Vec::new();
        for variant in Variant::VARIANTS {
            for shaders in catalog::chess_shader_builds() {
                if coverage == Coverage::Covering && shaders != ShaderBuild::default() {
                    continue;
                }
                for named in catalog::perft_layouts(coverage, variant == Variant::VARIANTS[0]) {
                    let memory = memory_module(&named.layout);
                    let configuration = format!("{variant} {} {}", shaders.name(), named.name);
                    let shader = ChessVariants::perft_shader(VariantKernels { variant, shaders }, &memory)?;
                    modules.push(catalog::perft_module("variants", "variant_perft", &configuration, shader));
                }
            }
        }
        Ok(modules)
    }

    /// Chess's: the variants run on chess's slider builds and leaf shapes.
    fn default_choice(context: &GpuContext) -> KernelChoice {
        let (build, build_reason) = catalog::chess_default_build(context, super::KernelFamily::Variants);
        KernelChoice {
            game: "variants",
            build: build.name(),
            build_reason,
            ..<super::Chess as ListedGame>::default_choice(context)
        }
    }
}

/// The chess variants' GPU perft driver.
pub type VariantGpuPerft = PerftEngine<ChessVariants>;
/// Its settings.
pub type VariantPerftOptions = crate::gpu::perft::PerftOptions<VariantKernels>;

/// Positions each variant's check counts, with the depth: the start and
/// the published suites' positions that reach each variant's own rules
/// (drops and promoted pieces, explosions and atomic castling, king
/// promotions, the horde's first-rank pushes, racing to the eighth rank,
/// third checks).
fn check_positions(variant: Variant) -> &'static [(&'static str, u32)] {
    match variant {
        Variant::Chess => &[("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3)],
        Variant::Antichess => &[
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 3),
            ("8/2p5/8/8/8/8/P7/8 w - - 0 1", 9),
            ("4k3/1P6/8/8/8/8/p7/2R5 w - - 0 1", 3),
        ],
        Variant::Atomic => &[
            ("rn2kb1r/1pp1p2p/p2q1pp1/3P4/2P3b1/4PN2/PP3PPP/R2QKB1R b KQkq - 0 1", 2),
            ("8/8/8/8/8/8/2k5/rR4KR w KQ - 0 1", 3),
            ("Rr2k1rR/3K4/3p4/8/8/8/7P/8 w kq - 0 1", 3),
        ],
        Variant::KingOfTheHill => &[("rnbqkbnr/pppp1ppp/8/4p3/8/3K4/PPPPPPPP/RNBQ1BNR w kq - 0 1", 3)],
        Variant::ThreeCheck => &[
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 1+1 0 1", 2),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 1+1 0 1", 3),
        ],
        Variant::Horde => &[
            ("rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1", 3),
            ("k7/5p2/4p2P/3p2P1/2p2P2/1p2P2P/p2P2P1/2P2P2 w - - 0 1", 3),
        ],
        Variant::RacingKings => {
            &[("8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1", 2), ("4brn1/2K2k2/8/8/8/8/8/8 w - - 0 1", 4)]
        }
        Variant::Crazyhouse => &[
            ("2k5/8/8/8/8/8/8/4K3[QRBNPqrbnp] w - - 0 1", 2),
            ("4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", 3),
            ("r1bqk2r/pppp1ppp/2n1p3/4P3/1b1Pn3/2NB1N2/PPP2PPP/R1BQK2R[] b KQkq - 0 1", 2),
        ],
    }
}

/// Perft of the variant's check positions with fused and stored leaves,
/// with a transposition table (and merging) and without either, against the CPU.
pub fn perft_check(kernels: VariantKernels) -> Check {
    Check::new(
        format!("{} perft ({}; fused and stored leaves, tables and not)", kernels.variant, kernels.shaders.name()),
        move |context| async move {
            let roots: Vec<(VariantPosition, u32, &str)> = check_positions(kernels.variant)
                .iter()
                .map(|&(fen, depth)| {
                    (VariantPosition::from_fen(kernels.variant, fen).expect("a valid check FEN"), depth, fen)
                })
                .collect();
            for fused_leaves in [true, false] {
                for merge_transpositions in [true, false] {
                    let options = VariantPerftOptions::for_check(
                        kernels,
                        fused_leaves,
                        crate::gpu::perft::FusedShape::Auto,
                        merge_transpositions,
                    );
                    let mut engine = VariantGpuPerft::with_options_async(&context, options)
                        .await
                        .map_err(|error| error.to_string())?;
                    for (root, depth, fen) in &roots {
                        let gpu = engine
                            .perft_async(std::slice::from_ref(root), *depth, &mut |_| {})
                            .await
                            .map_err(|error| error.to_string())?;
                        let cpu = crate::chess::variant::perft(root, *depth);
                        if gpu != [cpu] {
                            return Err(format!(
                                "{} perft({depth}) of {fen} is {gpu:?} on the GPU, {cpu} on the CPU (fused leaves \
                                 {fused_leaves}, tables and merging {merge_transpositions})",
                                kernels.variant
                            ));
                        }
                    }
                }
            }
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_chess_selected_is_the_module_in_shaders_chess() {
        let file = shaders::CHESS_MODULES
            .iter()
            .find(|module| module.name == "variant_selected")
            .expect("shaders/chess/variant_selected.wgsl");
        assert_eq!(variant_selected_module(Variant::Chess), file.source);
    }
}
