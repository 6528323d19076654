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

use crate::chess::gpu::shaders::ShaderBuild;
use crate::chess::sliders::SliderAlgorithm;
use crate::chess::variant::Variant;
use crate::gpu::perft::{FusedShape, MemoryLayout};
use crate::gpu::reflect::{ComposedShader, RuntimeChecks};
use crate::gpu::{GpuContext, GpuError};
use crate::registry::{self, ListedGame, Visit};

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

/// The kernel modules of every game (see the module documentation), in
/// the registry's order.
pub fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError> {
    #[derive(Clone, Copy)]
    struct Modules(Coverage);
    impl Visit for Modules {
        type Output = Result<Vec<KernelModule>, GpuError>;
        fn visit<G: ListedGame>(self, _: Variant) -> Self::Output {
            G::kernel_modules(self.0)
        }
    }
    Ok(registry::visit_each(Modules(coverage)).into_iter().collect::<Result<Vec<_>, _>>()?.concat())
}

/// The memory layouts a perft module of one configuration is listed on:
/// every configuration on the first layout, and the game's `default`
/// configuration on all of them (all of them for all in [`Coverage::Full`]).
pub(crate) fn perft_layouts(coverage: Coverage, default: bool) -> impl Iterator<Item = &'static NamedLayout> {
    let first_only = coverage == Coverage::Covering && !default;
    PERFT_LAYOUTS.iter().take(if first_only { 1 } else { PERFT_LAYOUTS.len() })
}

/// A perft module as the engine builds it: checks off, dynamic parameters.
pub(crate) fn perft_module(
    game: &'static str,
    module: &'static str,
    configuration: &str,
    shader: ComposedShader,
) -> KernelModule {
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
pub(crate) fn batch_module(
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

/// The default choices of every game's perft engine on `context`'s device,
/// in the registry's order.
pub fn default_choices(context: &GpuContext) -> Vec<KernelChoice> {
    #[derive(Clone, Copy)]
    struct Choice<'a>(&'a GpuContext);
    impl Visit for Choice<'_> {
        type Output = KernelChoice;
        fn visit<G: ListedGame>(self, _: Variant) -> KernelChoice {
            G::default_choice(self.0)
        }
    }
    registry::visit_each(Choice(context))
}

/// The slider build `family`'s engine gets on `context`'s device by default
/// (the adapter table's choice, on u32 pairs without SHADER_INT64), and why.
pub(crate) fn chess_default_build(
    context: &GpuContext,
    family: crate::chess::gpu::KernelFamily,
) -> (ShaderBuild, String) {
    let default = crate::chess::gpu::adapter_default(context.adapter_info.as_ref());
    let int64 = context.device.features().contains(wgpu::Features::SHADER_INT64);
    let build = default.build_for(family, context.device.features());
    let reason = if default.native_u64_for(family) && !int64 {
        format!("{}; u32 pairs, since this device lacks SHADER_INT64", default.source)
    } else {
        default.source.to_owned()
    };
    (build, reason)
}

/// The kernels a count to depth 3 or more dispatches with the last two
/// plies fused in `shape` on `context`'s device, and why that leaf shape
/// (see [`FusedShape`]).
pub(crate) fn fused_kernels(context: &GpuContext, shape: FusedShape) -> (Vec<&'static str>, String) {
    let expand = vec!["count_moves", "scan_blocks", "add_block_sums", "expand_moves", "write_children"];
    match shape.resolve(context.is_software()) {
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
}
