//! The WGSL sources, a small `#import` composer, the generated constants
//! every shader shares, and the attack-table buffer contents.
//!
//! Each file in shaders/ is one module; `#import name` lines pull in other
//! modules, each once, dependencies first. The composer is deliberately
//! tiny: the shaders only need whole-file inclusion, which keeps every
//! composed module valid WGSL that naga can check as is.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::sliders::{SliderAlgorithm, kogge_stone, magic};
use crate::tables;

/// (module name, source) for every file in shaders/.
pub const MODULES: &[(&str, &str)] = &[
    ("bitboard", include_str!("../../shaders/bitboard.wgsl")),
    ("bitboard_u64", include_str!("../../shaders/bitboard_u64.wgsl")),
    ("kogge_stone", include_str!("../../shaders/kogge_stone.wgsl")),
    ("tables", include_str!("../../shaders/tables.wgsl")),
    ("position", include_str!("../../shaders/position.wgsl")),
    ("movegen", include_str!("../../shaders/movegen.wgsl")),
    ("movegen_io", include_str!("../../shaders/movegen_io.wgsl")),
    ("movegen_per_piece", include_str!("../../shaders/movegen_per_piece.wgsl")),
    ("movegen_per_position", include_str!("../../shaders/movegen_per_position.wgsl")),
    ("wide_counter", include_str!("../../shaders/wide_counter.wgsl")),
    ("perft", include_str!("../../shaders/perft.wgsl")),
    ("random", include_str!("../../shaders/random.wgsl")),
    ("chess", include_str!("../../shaders/chess.wgsl")),
    ("sliders_kogge_stone", include_str!("../../shaders/sliders_kogge_stone.wgsl")),
    ("sliders_dumb7fill", include_str!("../../shaders/sliders_dumb7fill.wgsl")),
    ("sliders_hyperbola", include_str!("../../shaders/sliders_hyperbola.wgsl")),
    ("sliders_sbamg", include_str!("../../shaders/sliders_sbamg.wgsl")),
    ("sliders_subtraction", include_str!("../../shaders/sliders_subtraction.wgsl")),
    ("sliders_magic", include_str!("../../shaders/sliders_magic.wgsl")),
];

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

/// What `Int64Mode::Auto` picks on an adapter with SHADER_INT64.
pub const AUTO_PREFERS_NATIVE_U64: bool = true;

impl Int64Mode {
    /// Whether to use native u64 on a device with these features.
    pub fn resolve(self, features: wgpu::Features) -> Result<bool, super::GpuError> {
        let available = features.contains(wgpu::Features::SHADER_INT64);
        match self {
            Int64Mode::Off => Ok(false),
            Int64Mode::Auto => Ok(available && AUTO_PREFERS_NATIVE_U64),
            Int64Mode::On if available => Ok(true),
            Int64Mode::On => Err(super::GpuError::Limits(
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
        if self.native_u64 { "bitboard_u64" } else { "bitboard" }
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

/// A compute stage: the module that holds it, its entry point and workgroup size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    pub module: &'static str,
    pub entry_point: &'static str,
    pub workgroup_size: u32,
}

/// Every compute stage the crate dispatches.
pub const STAGES: &[Stage] = &[
    Stage { module: "movegen_per_piece", entry_point: "per_piece_pseudo_legal", workgroup_size: 64 },
    Stage { module: "movegen_per_piece", entry_point: "per_piece_legal", workgroup_size: 64 },
    Stage { module: "movegen_per_position", entry_point: "per_position", workgroup_size: 64 },
    Stage { module: "perft", entry_point: "count_moves", workgroup_size: 64 },
    Stage { module: "perft", entry_point: "scan_blocks", workgroup_size: 256 },
    Stage { module: "perft", entry_point: "add_block_sums", workgroup_size: 256 },
    Stage { module: "perft", entry_point: "expand", workgroup_size: 64 },
    Stage { module: "perft", entry_point: "count_leaves", workgroup_size: 64 },
    Stage { module: "perft", entry_point: "count_leaves_fused", workgroup_size: 64 },
];

/// The stage with this entry point.
pub fn stage(entry_point: &str) -> Option<&'static Stage> {
    STAGES.iter().find(|stage| stage.entry_point == entry_point)
}

/// Why a module could not be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    #[error("unknown WGSL module '{name}' (imported by '{importer}')")]
    UnknownModule { name: String, importer: String },
    #[error("WGSL modules import each other in a cycle through '{0}'")]
    Cycle(String),
}

fn module_source(name: &str) -> Option<&'static str> {
    MODULES.iter().find(|(module, _)| *module == name).map(|(_, source)| *source)
}

/// The module `root` with everything it imports, preceded by the generated
/// constants. `extra` modules (name, source) take part in import resolution
/// before the crate's own, so callers can add or override modules.
pub fn compose_with(root: &str, extra: &[(&str, &str)]) -> Result<String, ComposeError> {
    fn visit(
        name: &str,
        importer: &str,
        extra: &[(&str, &str)],
        done: &mut HashSet<String>,
        in_progress: &mut Vec<String>,
        output: &mut String,
    ) -> Result<(), ComposeError> {
        if done.contains(name) {
            return Ok(());
        }
        if in_progress.iter().any(|module| module == name) {
            return Err(ComposeError::Cycle(name.to_owned()));
        }
        let source = extra
            .iter()
            .find(|(module, _)| *module == name)
            .map(|(_, source)| *source)
            .or_else(|| module_source(name))
            .ok_or_else(|| ComposeError::UnknownModule { name: name.to_owned(), importer: importer.to_owned() })?;
        in_progress.push(name.to_owned());
        for line in source.lines() {
            if let Some(import) = line.trim().strip_prefix("#import") {
                visit(import.trim(), name, extra, done, in_progress, output)?;
            }
        }
        in_progress.pop();
        writeln!(output, "// ---- module {name} ----").unwrap();
        for line in source.lines().filter(|line| !line.trim().starts_with("#import")) {
            output.push_str(line);
            output.push('\n');
        }
        done.insert(name.to_owned());
        Ok(())
    }

    let mut output = generated_constants();
    let wraps = kogge_stone_wraps_module();
    let mut modules: Vec<(&str, &str)> = extra.to_vec();
    modules.push(("kogge_stone_wraps", &wraps));
    let mut done = HashSet::new();
    visit(root, "(root)", &modules, &mut done, &mut Vec::new(), &mut output)?;
    Ok(output)
}

/// [`compose_with`] for one of the crate's own modules, in the default variant.
pub fn compose(root: &str) -> Result<String, ComposeError> {
    compose_variant(root, ShaderVariant::default(), &[])
}

/// `root` composed in `variant`: the variant's modules stand in as `bitboard`
/// and `sliders`; `extra` modules come first, as in [`compose_with`].
pub fn compose_variant(root: &str, variant: ShaderVariant, extra: &[(&str, &str)]) -> Result<String, ComposeError> {
    let source_of = |name: &str| module_source(name).expect("variant modules exist");
    let mut modules: Vec<(&str, &str)> = extra.to_vec();
    modules.push(("bitboard", source_of(variant.bitboard_module())));
    modules.push(("sliders", source_of(variant.slider_module())));
    compose_with(root, &modules)
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

/// The `kogge_stone_wraps` module: the seed's wrap masks, generated from the
/// Rust constants, in whichever lane form the bitboard module has.
fn kogge_stone_wraps_module() -> String {
    let mut text = String::from(
        "// kogge_stone_wraps.wgsl — generated by src/gpu/shaders.rs from src/sliders/kogge_stone.rs.\n\
         //\n// Reads: nothing. Writes: nothing. The wrap masks of the left and right fills.\n\n#import bitboard\n\n",
    );
    text += &lanes_function("kogge_stone_left_wraps", kogge_stone::LEFT_WRAPS);
    text += &lanes_function("kogge_stone_right_wraps", kogge_stone::RIGHT_WRAPS);
    text
}

/// Constants generated from the Rust side, so that each fact has one source.
pub fn generated_constants() -> String {
    let offsets = TABLE_OFFSETS;
    let mut text = String::from("// ---- generated by src/gpu/shaders.rs from the Rust tables ----\n");
    for (name, value) in [
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
    ] {
        writeln!(text, "const {name}: u32 = {value}u;").unwrap();
    }
    text
}
