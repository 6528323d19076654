//! The chess WGSL: its modules in shaders/chess/, the variants a pipeline
//! is built in (slider algorithm, bitboard representation), the attack-table
//! buffer and the constants generated from Rust for every chess shader.

use crate::chess::sliders::{SliderAlgorithm, kogge_stone, magic};
use crate::chess::tables;
use crate::gpu::composer::{self, COMMON_MODULES, ComposeError, Module, ModuleKind};

macro_rules! chess_module {
    ($name:literal, $path:literal, $kind:ident) => {
        Module {
            name: $name,
            path: concat!("chess/", $path),
            kind: ModuleKind::$kind,
            source: include_str!(concat!("../../../shaders/chess/", $path)),
        }
    };
}

/// Every file in shaders/chess/: library modules, the slider algorithms
/// (each stands in as `sliders`), and the kernels the host dispatches.
pub const CHESS_MODULES: &[Module] = &[
    chess_module!("kogge_stone", "kogge_stone.wgsl", Library),
    chess_module!("tables", "tables.wgsl", Library),
    chess_module!("position", "position.wgsl", Library),
    chess_module!("movegen", "movegen.wgsl", Library),
    chess_module!("movegen_io", "movegen_io.wgsl", Library),
    chess_module!("chess", "chess.wgsl", Library),
    chess_module!("sliders_kogge_stone", "sliders/kogge_stone.wgsl", Library),
    chess_module!("sliders_dumb7fill", "sliders/dumb7fill.wgsl", Library),
    chess_module!("sliders_hyperbola", "sliders/hyperbola.wgsl", Library),
    chess_module!("sliders_sbamg", "sliders/sbamg.wgsl", Library),
    chess_module!("sliders_subtraction", "sliders/subtraction.wgsl", Library),
    chess_module!("sliders_magic", "sliders/magic.wgsl", Library),
    chess_module!("sliders_by_piece", "sliders/by_piece.wgsl", Library),
    chess_module!("per_piece", "kernels/per_piece.wgsl", Kernels),
    chess_module!("per_position", "kernels/per_position.wgsl", Kernels),
    chess_module!("perft", "kernels/perft.wgsl", Kernels),
];

/// Every module a chess shader can import: the common ones, then chess's.
pub fn modules() -> impl Iterator<Item = &'static Module> {
    COMMON_MODULES.iter().chain(CHESS_MODULES)
}

fn module_source(name: &str) -> Option<&'static str> {
    modules().find(|module| module.name == name).map(|module| module.source)
}

/// How a pipeline's shaders are built: which slider algorithm stands in as
/// the `sliders` module, and whether bitboards are native u64 (`bitboard_u64`
/// as `bitboard`; needs the adapter's SHADER_INT64) or pairs of u32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ShaderVariant {
    pub slider: SliderAlgorithm,
    pub native_u64: bool,
}

/// Whether to build bitboards on native u64 (`--int64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Int64Mode {
    /// The measured default where the adapter has SHADER_INT64 (see BENCHMARKS.md).
    #[default]
    Auto,
    /// Native u64; an error where the adapter lacks SHADER_INT64.
    On,
    /// Pairs of u32 everywhere.
    Off,
}

/// What `Int64Mode::Auto` picks on an adapter with SHADER_INT64 when the
/// adapter table below has no say.
pub const AUTO_PREFERS_NATIVE_U64: bool = true;

/// A class of adapters: a PCI vendor (or any) and a device type (or any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterClass {
    pub vendor: Option<u32>,
    pub device_type: Option<wgpu::DeviceType>,
}

/// The default pipeline variant for a class of adapters, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterDefault {
    pub class: AdapterClass,
    pub slider: SliderAlgorithm,
    /// Native u64 where the adapter has SHADER_INT64.
    pub native_u64: bool,
    /// Where the choice comes from, for `gpu-movegen info` and the docs.
    pub source: &'static str,
}

/// NVIDIA's PCI vendor id.
pub const VENDOR_NVIDIA: u32 = 0x10de;

/// The default variant per adapter class, first match wins. Each entry says
/// where it comes from: a `scripts/gpu-bench` measurement (BENCHMARKS.md) or,
/// where none was possible yet, a published finding.
pub const ADAPTER_DEFAULTS: &[AdapterDefault] = &[
    AdapterDefault {
        class: AdapterClass { vendor: None, device_type: Some(wgpu::DeviceType::Cpu) },
        slider: SliderAlgorithm::KoggeStone,
        native_u64: true,
        source: "measured on lavapipe with the throughput example's slider table (BENCHMARKS.md)",
    },
    AdapterDefault {
        class: AdapterClass { vendor: Some(VENDOR_NVIDIA), device_type: None },
        slider: SliderAlgorithm::Magic,
        native_u64: false,
        source: "not measured here yet: taken from perft_gpu's design notes, where magic lookups beat \
                 Kogge-Stone on NVIDIA GPUs",
    },
    AdapterDefault {
        class: AdapterClass { vendor: None, device_type: None },
        slider: SliderAlgorithm::KoggeStone,
        native_u64: true,
        source: "no measurement for this adapter class: the portable default",
    },
];

impl AdapterClass {
    fn matches(&self, info: &wgpu::AdapterInfo) -> bool {
        self.vendor.is_none_or(|vendor| vendor == info.vendor)
            && self.device_type.is_none_or(|kind| kind == info.device_type)
    }
}

/// The table's entry for an adapter (`None`: a caller's device, whose adapter is unknown).
pub fn adapter_default(info: Option<&wgpu::AdapterInfo>) -> &'static AdapterDefault {
    let fallback = ADAPTER_DEFAULTS.last().expect("the table ends with a catch-all");
    info.and_then(|info| ADAPTER_DEFAULTS.iter().find(|entry| entry.class.matches(info))).unwrap_or(fallback)
}

impl Int64Mode {
    /// Whether to use native u64 on a device with these features.
    pub fn resolve(self, features: wgpu::Features) -> Result<bool, crate::gpu::GpuError> {
        let available = features.contains(wgpu::Features::SHADER_INT64);
        match self {
            Int64Mode::Off => Ok(false),
            Int64Mode::Auto => Ok(available && AUTO_PREFERS_NATIVE_U64),
            Int64Mode::On if available => Ok(true),
            Int64Mode::On => Err(crate::gpu::GpuError::Limits(
                "--int64 on needs the adapter feature SHADER_INT64, which this adapter lacks".to_owned(),
            )),
        }
    }
}

impl ShaderVariant {
    /// The module that implements the slider interface.
    pub fn slider_module(self) -> &'static str {
        match self.slider {
            SliderAlgorithm::KoggeStone => "sliders_kogge_stone",
            SliderAlgorithm::Dumb7Fill => "sliders_dumb7fill",
            SliderAlgorithm::Hyperbola => "sliders_hyperbola",
            SliderAlgorithm::Sbamg => "sliders_sbamg",
            SliderAlgorithm::Subtraction => "sliders_subtraction",
            SliderAlgorithm::Magic => "sliders_magic",
        }
    }

    /// The module that implements bitboards.
    pub fn bitboard_module(self) -> &'static str {
        if self.native_u64 { "bitboard64_native" } else { "bitboard64" }
    }

    /// How many bitboards of the attack-table buffer this variant reads: the
    /// magic tables (about 0.8 MiB) only for the magic sliders.
    pub fn table_words(self) -> u32 {
        match self.slider {
            SliderAlgorithm::Magic => TABLE_OFFSETS.total,
            _ => TABLE_OFFSETS.rook_magics,
        }
    }

    /// A short name such as `magic/u64`.
    pub fn name(self) -> String {
        format!("{}/{}", self.slider.name(), if self.native_u64 { "u64" } else { "u32x2" })
    }
}

/// `root` with everything it imports, in the default variant; `extra`
/// modules (name, source) are looked up first, so callers can add or
/// override modules.
pub fn compose_with(root: &str, extra: &[(&str, &str)]) -> Result<String, ComposeError> {
    compose_variant(root, ShaderVariant::default(), extra)
}

/// [`compose_with`] for one of the crate's own modules, in the default variant.
pub fn compose(root: &str) -> Result<String, ComposeError> {
    compose_variant(root, ShaderVariant::default(), &[])
}

/// `root` composed in `variant`: the variant's modules stand in as `bitboard`
/// and `sliders`; `extra` modules come first, as in [`compose_with`].
pub fn compose_variant(root: &str, variant: ShaderVariant, extra: &[(&str, &str)]) -> Result<String, ComposeError> {
    let source_of = |name: &str| module_source(name).expect("variant modules exist");
    let wraps = kogge_stone_wraps_module();
    let mut lookup: Vec<(&str, &str)> = extra.to_vec();
    lookup.push(("bitboard", source_of(variant.bitboard_module())));
    lookup.push(("sliders", source_of(variant.slider_module())));
    lookup.push(("kogge_stone_wraps", &wraps));
    lookup.extend(modules().map(|module| (module.name, module.source)));
    composer::compose(root, &lookup, &generated_constants())
}

/// Where each table starts in the attack-table buffer, in bitboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOffsets {
    pub pawn_pushes: u32,
    pub pawn_attacks: u32,
    pub knight: u32,
    pub king: u32,
    pub bishop_rays: u32,
    pub rook_rays: u32,
    pub queen_rays: u32,
    pub between: u32,
    pub line: u32,
    pub line_masks: u32,
    pub sbamg_outer: u32,
    pub rays: u32,
    pub rook_magics: u32,
    pub bishop_magics: u32,
    pub magic_attacks: u32,
    pub total: u32,
}

pub const TABLE_OFFSETS: TableOffsets = TableOffsets {
    pawn_pushes: 0,
    pawn_attacks: 128,
    knight: 256,
    king: 320,
    bishop_rays: 384,
    rook_rays: 448,
    queen_rays: 512,
    between: 576,
    line: 576 + 4096,
    line_masks: 576 + 2 * 4096,
    sbamg_outer: 576 + 2 * 4096 + 256,
    rays: 576 + 2 * 4096 + 512,
    rook_magics: 576 + 2 * 4096 + 1024,
    bishop_magics: 576 + 2 * 4096 + 1024 + 192,
    magic_attacks: 576 + 2 * 4096 + 1024 + 384,
    total: 576 + 2 * 4096 + 1024 + 384 + magic::TABLE_LEN as u32,
};

/// The attack-table buffer: the Rust tables concatenated at [`TABLE_OFFSETS`],
/// each bitboard as (squares 0..31, squares 32..63).
pub fn attack_table_data() -> Vec<[u32; 2]> {
    let mut data: Vec<u64> = Vec::with_capacity(TABLE_OFFSETS.total as usize);
    data.extend(tables::PAWN_PUSHES.iter().flatten());
    data.extend(tables::PAWN_ATTACKS.iter().flatten());
    data.extend(tables::KNIGHT_ATTACKS);
    data.extend(tables::KING_ATTACKS);
    data.extend(tables::BISHOP_RAYS);
    data.extend(tables::ROOK_RAYS);
    data.extend(tables::QUEEN_RAYS);
    data.extend(tables::BETWEEN.iter().flatten());
    data.extend(tables::LINE.iter().flatten());
    data.extend(tables::LINE_MASKS.iter().flatten());
    data.extend(tables::SBAMG_OUTER_SQUARES.iter().flatten());
    data.extend(tables::RAYS.iter().flatten());
    for entries in [&magic::ROOK_MAGICS, &magic::BISHOP_MAGICS] {
        for entry in entries.iter() {
            data.extend([entry.mask, entry.magic, u64::from(entry.shift) | u64::from(entry.offset) << 32]);
        }
    }
    data.extend(magic::SLIDER_TABLE.iter());
    debug_assert_eq!(data.len(), TABLE_OFFSETS.total as usize);
    data.into_iter().map(super::layout::split).collect()
}

/// A function returning four lanes, in whichever form the bitboard module has.
fn lanes_function(name: &str, lanes: [u64; 4]) -> String {
    let lo = lanes.map(|lane| format!("{:#010x}u", lane as u32)).join(", ");
    let hi = lanes.map(|lane| format!("{:#010x}u", (lane >> 32) as u32)).join(", ");
    format!("fn {name}() -> Lanes {{\n    return lanes_make(vec4<u32>({lo}), vec4<u32>({hi}));\n}}\n")
}

/// The `kogge_stone_wraps` module: the Kogge-Stone wrap masks, generated from the
/// Rust constants, in whichever lane form the bitboard module has.
fn kogge_stone_wraps_module() -> String {
    let mut text = String::from(
        "// kogge_stone_wraps.wgsl — generated by src/chess/gpu/shaders.rs from src/chess/sliders/kogge_stone.rs.\n\
         //\n// Reads: nothing. Writes: nothing. The wrap masks of the left and right fills.\n\n#import bitboard\n\n",
    );
    text += &lanes_function("kogge_stone_left_wraps", kogge_stone::LEFT_WRAPS);
    text += &lanes_function("kogge_stone_right_wraps", kogge_stone::RIGHT_WRAPS);
    text
}

/// Invocations per workgroup of the per-position kernels (move generation
/// and every perft kernel but the scan).
pub const POSITION_WORKGROUP: u32 = crate::gpu::perft::POSITION_WORKGROUP;

/// Constants generated from the Rust side, so that each fact has one source:
/// the table offsets, the fault bits and the workgroup sizes.
pub fn generated_constants() -> String {
    let offsets = TABLE_OFFSETS;
    let mut text = String::from("// ---- generated by src/chess/gpu/shaders.rs from the Rust side ----\n");
    text += &composer::constants(&[
        ("TABLE_PAWN_PUSHES", offsets.pawn_pushes),
        ("TABLE_PAWN_ATTACKS", offsets.pawn_attacks),
        ("TABLE_KNIGHT", offsets.knight),
        ("TABLE_KING", offsets.king),
        ("TABLE_BISHOP_RAYS", offsets.bishop_rays),
        ("TABLE_ROOK_RAYS", offsets.rook_rays),
        ("TABLE_QUEEN_RAYS", offsets.queen_rays),
        ("TABLE_BETWEEN", offsets.between),
        ("TABLE_LINE", offsets.line),
        ("TABLE_LINE_MASKS", offsets.line_masks),
        ("TABLE_SBAMG_OUTER", offsets.sbamg_outer),
        ("TABLE_RAYS", offsets.rays),
        ("TABLE_ROOK_MAGICS", offsets.rook_magics),
        ("TABLE_BISHOP_MAGICS", offsets.bishop_magics),
        ("TABLE_MAGIC_ATTACKS", offsets.magic_attacks),
    ]);
    text += &crate::gpu::perft::engine_constants();
    text
}
