//! Every kernel module the crate's engines compose, in the configurations
//! they can be built in: each game's perft module (with and without a
//! table, on each memory layout, for each slider algorithm and bitboard
//! representation, board layout or board size), the statistics leaf, the
//! chess variants' perft, the batched move generators and Go's batch
//! kernels. Tools that judge kernels as a whole read it:
//! `scripts/gpu-shader-stats` compiles each entry point on a real GPU
//! compiler, and `gpu-movegen info --kernels` names the ones a device
//! would run. The list is made from the same functions the engines call,
//! so it cannot drift from what they build.

use crate::chess::gpu::perft::Chess;
use crate::chess::gpu::shaders::{self as chess_shaders, ShaderBuild};
use crate::chess::gpu::variant::{ChessVariants, VariantKernels};
use crate::chess::sliders::SliderAlgorithm;
use crate::chess::variant::Variant;
use crate::go::gpu::perft::{BoardSize, GoGame};
use crate::go::gpu::shaders as go_shaders;
use crate::gpu::perft::{FusedShape, MemoryLayout, PerftGame, memory_module};
use crate::gpu::reflect::{ComposedShader, RuntimeChecks, reflect};
use crate::gpu::{GpuContext, GpuError};
use crate::shogi::gpu::layout::BoardWords;
use crate::shogi::gpu::perft::ShogiGame;
use crate::shogi::gpu::shaders as shogi_shaders;

/// One composed module and how the crate builds its pipelines.
#[derive(Debug, Clone)]
pub struct KernelModule {
    /// The game: `chess`, `variants`, `shogi` or `go`.
    pub game: &'static str,
    /// The kernel file the module is composed from (`perft`, `per_position`, ...).
    pub module: String,
    /// What it is built for: slider algorithm and bitboards, board layout or
    /// size, chess variant, and the memory layout of a perft module.
    pub configuration: String,
    /// The composed WGSL with its entry points and bindings.
    pub shader: ComposedShader,
    /// The bounds checks its pipelines are built with.
    pub runtime_checks: RuntimeChecks,
    /// Whether its uniform binding takes a dynamic offset (the perft engine's
    /// parameters: one buffer serves a submission's dispatches).
    pub dynamic_uniforms: bool,
}

/// How much of the configuration space [`kernel_modules`] lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coverage {
    /// Every configuration on the memory layout of a discrete GPU, and the
    /// other layouts in each game's default configuration: every kernel's
    /// code once per slider, bitboard, board and variant, and once per way
    /// of reaching memory (what CI compiles).
    #[default]
    Covering,
    /// The whole product of configurations and layouts.
    Full,
}

/// A memory layout of the perft engine, named for the devices that get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedLayout {
    /// A short name for tables and budget files.
    pub name: &'static str,
    /// The layout.
    pub layout: MemoryLayout,
}

/// The perft engine's memory layouts (see `gpu::perft::memory`), the first
/// the one a discrete GPU gets for a deep count: the arena over two
/// bindings and the table a binding array. The others: one arena binding
/// with a table of one binding or none (software adapters, small tables);
/// WebGPU's eight bindings (the table inside the merge entries' binding);
/// and a device without binding arrays (a `switch` over the table's bindings).
pub const PERFT_LAYOUTS: [NamedLayout; 4] = [
    NamedLayout {
        name: "arrays",
        layout: MemoryLayout {
            arena_bindings: 2,
            arena_binding_positions: 1 << 24,
            table_bindings: 4,
            table_array: true,
        },
    },
    NamedLayout {
        name: "single",
        layout: MemoryLayout {
            arena_bindings: 1,
            arena_binding_positions: 1 << 31,
            table_bindings: 1,
            table_array: false,
        },
    },
    NamedLayout { name: "webgpu", layout: MemoryLayout::SHARED },
    NamedLayout {
        name: "switch",
        layout: MemoryLayout {
            arena_bindings: 2,
            arena_binding_positions: 1 << 24,
            table_bindings: 4,
            table_array: false,
        },
    },
];

/// Every chess shader build: each slider algorithm on native u64 and on u32 pairs.
pub fn chess_shader_builds() -> Vec<ShaderBuild> {
    SliderAlgorithm::ALL
        .iter()
        .flat_map(|&slider| [true, false].map(|native_u64| ShaderBuild { slider, native_u64 }))
        .collect()
}

/// The kernel modules of every game (see the module documentation).
pub fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
    let mut modules = Vec::new();
    let layouts = |first_only: bool| PERFT_LAYOUTS.iter().take(if first_only { 1 } else { PERFT_LAYOUTS.len() });
    // Which (configuration, layout) pairs a perft module is listed in: every
    // configuration on the first layout, the default one on all of them.
    let pairs = |default: bool| layouts(coverage == Coverage::Covering && !default);

    for build in chess_shader_builds() {
        let default = build == ShaderBuild::default();
        for named in pairs(default) {
            let memory = memory_module(&named.layout);
            let configuration = format!("{} {}", build.name(), named.name);
            modules.push(perft_module("chess", "perft", &configuration, Chess::perft_shader(build, &memory)?));
            if let Some(shader) = Chess::statistics_shader(build, &memory) {
                modules.push(perft_module("chess", "perft_statistics", &configuration, shader?));
            }
        }
        for module in ["per_position", "per_piece"] {
            let shader = reflect(chess_shaders::compose_build(module, build, &[])?)?;
            modules.push(batch_module("chess", module, build.name(), shader));
        }
    }
    for variant in Variant::VARIANTS {
        for shaders in chess_shader_builds() {
            let default = shaders == ShaderBuild::default();
            // The variants' kernels share chess's slider code: in covering
            // mode each variant is listed in the default build only.
            if coverage == Coverage::Covering && !default {
                continue;
            }
            for named in pairs(variant == Variant::VARIANTS[0]) {
                let memory = memory_module(&named.layout);
                let configuration = format!("{variant} {} {}", shaders.name(), named.name);
                let shader = ChessVariants::perft_shader(VariantKernels { variant, shaders }, &memory)?;
                modules.push(perft_module("variants", "variant_perft", &configuration, shader));
            }
        }
    }
    for words in [BoardWords::Full, BoardWords::ThreeRanks] {
        let default = words == BoardWords::default();
        for named in pairs(default) {
            let memory = memory_module(&named.layout);
            let configuration = format!("{} {}", board_words_name(words), named.name);
            modules.push(perft_module(
                "shogi",
                "shogi_perft",
                &configuration,
                ShogiGame::perft_shader(words, &memory)?,
            ));
        }
        let shader = reflect(shogi_shaders::compose_build("shogi_per_position", words, &[])?)?;
        modules.push(batch_module("shogi", "shogi_per_position", board_words_name(words).to_owned(), shader));
    }
    for size in 2..=crate::go::MAX_SIZE {
        // Covering: the sizes people play (9, 13, 19), and the smallest;
        // the code differs between sizes only in its loop bounds and words.
        if coverage == Coverage::Covering && ![2, 9, 13, 19].contains(&size) {
            continue;
        }
        for named in pairs(size == 19) {
            let memory = memory_module(&named.layout);
            let configuration = format!("{size}x{size} {}", named.name);
            modules.push(perft_module(
                "go",
                "go_perft",
                &configuration,
                GoGame::perft_shader(BoardSize(size), &memory)?,
            ));
        }
        for module in ["go_legal", "go_playouts"] {
            let shader = reflect(go_shaders::compose(module, size, &[])?)?;
            modules.push(batch_module("go", module, format!("{size}x{size}"), shader));
        }
    }
    Ok(modules)
}

fn board_words_name(words: BoardWords) -> &'static str {
    match words {
        BoardWords::Full => "full-words",
        BoardWords::ThreeRanks => "three-ranks",
    }
}

/// A perft module as the engine builds it: checks off, dynamic parameters.
fn perft_module(game: &'static str, module: &'static str, configuration: &str, shader: ComposedShader) -> KernelModule {
    KernelModule {
        game,
        module: module.to_owned(),
        configuration: configuration.to_owned(),
        shader,
        runtime_checks: RuntimeChecks::Off,
        dynamic_uniforms: true,
    }
}

/// A batch module as the move generators and Go's batch build it: checks on.
fn batch_module(
    game: &'static str,
    module: &'static str,
    configuration: String,
    shader: ComposedShader,
) -> KernelModule {
    KernelModule {
        game,
        module: module.to_owned(),
        configuration,
        shader,
        runtime_checks: RuntimeChecks::On,
        dynamic_uniforms: false,
    }
}

/// What one game's perft engine runs on a device by default, and why: for
/// `gpu-movegen info --kernels`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelChoice {
    /// The game.
    pub game: &'static str,
    /// The build of its kernels (slider algorithm and bitboards, board layout).
    pub build: String,
    /// Why that build.
    pub build_reason: String,
    /// The kernels a count to depth 3 or more dispatches, level by level.
    pub kernels: Vec<&'static str>,
    /// Why the last two plies run as they do.
    pub leaf_reason: String,
}

/// The default choices of every game's perft engine on `context`'s device:
/// the builds the adapter table and the device's features give, and the
/// leaf shape its kind gives (see [`FusedShape`]).
pub fn default_choices(context: &GpuContext) -> Vec<KernelChoice> {
    let software = context.is_software();
    let default = crate::chess::gpu::adapter_default(context.adapter_info.as_ref());
    let int64 = context.device.features().contains(wgpu::Features::SHADER_INT64);
    let chess_build = ShaderBuild { slider: default.slider, native_u64: default.native_u64 && int64 };
    let build_reason = if default.native_u64 && !int64 {
        format!("{}; u32 pairs, since this device lacks SHADER_INT64", default.source)
    } else {
        default.source.to_owned()
    };
    let fused = |shape: FusedShape| -> (Vec<&'static str>, String) {
        let expand = vec!["count_moves", "scan_blocks", "add_block_sums", "expand_moves", "write_children"];
        match shape.resolve(software) {
            FusedShape::PerPosition => (
                [expand, vec!["count_leaves_looped"]].concat(),
                "one invocation per position, looping over its moves: a software adapter runs the kernels on \
                 CPU cores, where a loop shares each invocation's fixed cost"
                    .to_owned(),
            ),
            _ => (
                [expand.clone(), vec!["count_moves", "scan_blocks", "expand_moves", "count_leaves_fused"]].concat(),
                "one invocation per move of the last stored level's move list: no kernel holds move generation \
                 and counting at once (fewer registers, more threads resident), and every lane \
                 of a SIMD group plays one move"
                    .to_owned(),
            ),
        }
    };
    let (chess_kernels, chess_leaves) = fused(FusedShape::Auto);
    let shogi_fused = crate::shogi::gpu::fused_leaves_suit(context);
    let (shogi_kernels, shogi_leaves) = if shogi_fused {
        fused(FusedShape::Auto)
    } else {
        (
            vec!["count_moves", "scan_blocks", "add_block_sums", "expand_moves", "write_children", "count_moves"],
            "the last level stored and counted one ply per position: on a software adapter the fused Shogi \
             kernels take longer to compile than they save"
                .to_owned(),
        )
    };
    vec![
        KernelChoice {
            game: "chess",
            build: chess_build.name(),
            build_reason: build_reason.clone(),
            kernels: chess_kernels.clone(),
            leaf_reason: chess_leaves.clone(),
        },
        KernelChoice {
            game: "variants",
            build: chess_build.name(),
            build_reason,
            kernels: chess_kernels.clone(),
            leaf_reason: chess_leaves.clone(),
        },
        KernelChoice {
            game: "shogi",
            build: board_words_name(BoardWords::default()).to_owned(),
            build_reason: "the u128's bits in order: within noise of three ranks to a word on lavapipe, and its \
                           square-to-word arithmetic is a shift, not a division (BENCHMARKS.md)"
                .to_owned(),
            kernels: shogi_kernels,
            leaf_reason: shogi_leaves,
        },
        KernelChoice {
            game: "go",
            build: "one module per board size".to_owned(),
            build_reason: "a bitmap's words are a constant of the module".to_owned(),
            kernels: chess_kernels,
            leaf_reason: chess_leaves,
        },
    ]
}
