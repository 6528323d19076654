//! The WGSL building blocks against the CPU: 64-bit helpers (every shift
//! amount both ways, counts and bit scans), the Kogge-Stone fill against its
//! CPU twin and the ray walk, and the struct layouts against their Rust twins.

mod common;

use common::gpu::{builds, context, run_test_kernel_build};
use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::chess::gpu::layout::{BatchParameters, PackedPosition, PieceMovesRecord, PositionMovesRecord};
use gpu_movegen::chess::gpu::shaders;
use gpu_movegen::gpu::composer::ModuleKind;
use gpu_movegen::gpu::perft::{self as engine, PerftParameters};
use gpu_movegen::gpu::reflect::{BindingKind, reflect};
use gpu_movegen::sliders::{SliderAlgorithm, classical, kogge_stone};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BITBOARD_KERNEL: &str = r#"
#import bitboard

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

fn put(base: u32, board: Bitboard) {
    output[base] = bitboard_low(board);
    output[base + 1u] = bitboard_high(board);
}

// Invocation i takes values a = i and b = i + 1 (wrapping) and writes, for
// every amount 0..63, the left and right shifts of a, then counts, scans and
// arithmetic; the same words whichever bitboard module is composed in.
@compute @workgroup_size(64)
fn bitboard_ops(@builtin(global_invocation_id) id: vec3<u32>) {
    let count = arrayLength(&input) / 2u;
    let index = id.x;
    if index >= count { return; }
    let value = bitboard_make(input[index * 2u], input[index * 2u + 1u]);
    let next = (index + 1u) % count;
    let other = bitboard_make(input[next * 2u], input[next * 2u + 1u]);
    let base = index * 280u;
    for (var amount = 0u; amount < 64u; amount++) {
        put(base + amount * 4u, bitboard_shift_left(value, amount));
        put(base + amount * 4u + 2u, bitboard_shift_right(value, amount));
    }
    output[base + 256u] = bitboard_count(value);
    output[base + 257u] = bitboard_first(value);
    put(base + 258u, bitboard_without_first(value));
    output[base + 260u] = u32(bitboard_is_empty(value));
    output[base + 261u] = u32(bitboard_has_several(value));
    let square = index % 64u;
    put(base + 262u, bitboard_from_square(square));
    output[base + 264u] = u32(bitboard_contains(value, square));
    output[base + 265u] = bitboard_last(value);
    put(base + 266u, bitboard_sub(value, other));
    put(base + 268u, bitboard_mul(value, other));
    put(base + 270u, bitboard_reverse(value));
    put(base + 272u, bitboard_swap_bytes(value));
    put(base + 274u, value & ~other);
    put(base + 276u, value ^ other);
    put(base + 278u, value | other);
}
"#;

fn random_values(count: usize, seed: u64) -> Vec<u64> {
    let mut random = ChaCha8Rng::seed_from_u64(seed);
    let mut values: Vec<u64> = (0..count)
        .map(|index| match index % 3 {
            0 => random.random::<u64>(),
            1 => random.random::<u64>() & random.random::<u64>() & random.random::<u64>(),
            _ => 1 << random.random_range(0..64),
        })
        .collect();
    values.extend([0, 1, 1 << 31, 1 << 32, 1 << 63, u64::MAX, 0xffff_ffff, 0xffff_ffff_0000_0000]);
    values
}

#[test]
fn bitboard_helpers_match_u64_on_every_shift_amount_in_both_representations() {
    let context = context();
    let values = random_values(3_000, 64);
    let input: Vec<u32> = values.iter().flat_map(|value| [*value as u32, (value >> 32) as u32]).collect();
    for native_u64 in representations(&context) {
        let build = ShaderBuild { native_u64, ..Default::default() };
        let output = run_test_kernel_build(
            &context,
            build,
            BITBOARD_KERNEL,
            "bitboard_ops",
            &input,
            values.len() * 280,
            values.len() as u32,
        );
        let word = |index: usize, offset: usize| output[index * 280 + offset];
        let pair =
            |index: usize, offset: usize| u64::from(word(index, offset)) | u64::from(word(index, offset + 1)) << 32;
        for (index, &value) in values.iter().enumerate() {
            let other = values[(index + 1) % values.len()];
            let label = format!("{} {value:#x}", build.name());
            for amount in 0..64 {
                assert_eq!(pair(index, amount * 4), value << amount, "{label} << {amount}");
                assert_eq!(pair(index, amount * 4 + 2), value >> amount, "{label} >> {amount}");
            }
            assert_eq!(word(index, 256), value.count_ones(), "count {label}");
            assert_eq!(word(index, 257), if value == 0 { 64 } else { value.trailing_zeros() }, "first {label}");
            assert_eq!(pair(index, 258), value & value.wrapping_sub(1), "without first {label}");
            assert_eq!(word(index, 260), u32::from(value == 0));
            assert_eq!(word(index, 261), u32::from(value.count_ones() > 1));
            let square = index % 64;
            assert_eq!(pair(index, 262), 1 << square);
            assert_eq!(word(index, 264), (value >> square & 1) as u32);
            assert_eq!(word(index, 265), if value == 0 { 64 } else { 63 - value.leading_zeros() }, "last {label}");
            assert_eq!(pair(index, 266), value.wrapping_sub(other), "sub {label} {other:#x}");
            assert_eq!(pair(index, 268), value.wrapping_mul(other), "mul {label} {other:#x}");
            assert_eq!(pair(index, 270), value.reverse_bits(), "reverse {label}");
            assert_eq!(pair(index, 272), value.swap_bytes(), "swap {label}");
            assert_eq!(pair(index, 274), value & !other);
            assert_eq!(pair(index, 276), value ^ other);
            assert_eq!(pair(index, 278), value | other);
        }
    }
}

/// u32 pairs always; native u64 too where the adapter has SHADER_INT64.
fn representations(context: &gpu_movegen::gpu::GpuContext) -> Vec<bool> {
    if context.device.features().contains(wgpu::Features::SHADER_INT64) { vec![false, true] } else { vec![false] }
}

const KOGGE_STONE_KERNEL: &str = r#"
#import kogge_stone
#import tables

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

// Input per invocation: square, occupancy lo, occupancy hi, sliders lo, sliders hi.
// Output: rook attacks, bishop attacks, set-wise fill of `sliders` (each lo, hi).
@compute @workgroup_size(64)
fn kogge_stone_attacks(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index * 5u >= arrayLength(&input) { return; }
    let square = input[index * 5u];
    let occupied = bitboard_make(input[index * 5u + 1u], input[index * 5u + 2u]);
    let sliders = bitboard_make(input[index * 5u + 3u], input[index * 5u + 4u]);
    let fill = kogge_stone_queen_attacks(bitboard_from_square(square), ~occupied);
    let rook = fill & table_rook_rays(square);
    let bishop = fill & table_bishop_rays(square);
    let setwise = kogge_stone_queen_attacks(sliders, ~occupied);
    output[index * 6u] = bitboard_low(rook);
    output[index * 6u + 1u] = bitboard_high(rook);
    output[index * 6u + 2u] = bitboard_low(bishop);
    output[index * 6u + 3u] = bitboard_high(bishop);
    output[index * 6u + 4u] = bitboard_low(setwise);
    output[index * 6u + 5u] = bitboard_high(setwise);
}
"#;

/// The `index`-th random occupancy for `square`: sparse to dense by
/// `index % 4`, with the slider's own square occupied every other time.
fn random_occupancy(random: &mut ChaCha8Rng, square: u32, index: u32) -> u64 {
    let occupancy = match index % 4 {
        0 => random.random::<u64>() & random.random::<u64>() & random.random::<u64>(),
        1 => random.random::<u64>() & random.random::<u64>(),
        2 => random.random::<u64>(),
        _ => 0,
    };
    occupancy | if index % 2 == 0 { 1 << square } else { 0 }
}

#[test]
fn kogge_stone_wgsl_matches_its_cpu_twin_and_the_ray_walk_on_every_square() {
    let context = context();
    let mut random = ChaCha8Rng::seed_from_u64(2021);
    let mut cases = Vec::new();
    for square in 0..64u32 {
        for index in 0..1_000u32 {
            let occupancy = random_occupancy(&mut random, square, index);
            let sliders = random.random::<u64>() & random.random::<u64>() & random.random::<u64>() & occupancy;
            cases.push((square, occupancy, sliders));
        }
    }
    let input: Vec<u32> = cases
        .iter()
        .flat_map(|&(square, occupancy, sliders)| {
            [square, occupancy as u32, (occupancy >> 32) as u32, sliders as u32, (sliders >> 32) as u32]
        })
        .collect();
    for native_u64 in representations(&context) {
        let build = ShaderBuild { native_u64, ..Default::default() };
        let output = run_test_kernel_build(
            &context,
            build,
            KOGGE_STONE_KERNEL,
            "kogge_stone_attacks",
            &input,
            cases.len() * 6,
            cases.len() as u32,
        );
        for (index, &(square, occupied, sliders)) in cases.iter().enumerate() {
            let pair =
                |offset: usize| u64::from(output[index * 6 + offset]) | u64::from(output[index * 6 + offset + 1]) << 32;
            let square = square as u8;
            let (rook, bishop, setwise) = (pair(0), pair(2), pair(4));
            assert_eq!(rook, kogge_stone::rook_attacks(square, occupied), "twin rook {square} {occupied:#x}");
            assert_eq!(rook, classical::rook_attacks(square, occupied), "ray walk rook {square} {occupied:#x}");
            assert_eq!(bishop, kogge_stone::bishop_attacks(square, occupied), "twin bishop {square} {occupied:#x}");
            assert_eq!(bishop, classical::bishop_attacks(square, occupied), "ray walk bishop {square} {occupied:#x}");
            assert_eq!(
                setwise,
                kogge_stone::queen_attacks_setwise(sliders, !occupied),
                "set-wise {sliders:#x} {occupied:#x}"
            );
        }
    }
}

/// naga's view of a composed module.
fn parse(root: &str) -> naga::Module {
    parse_build(root, ShaderBuild::default())
}

fn parse_build(root: &str, build: ShaderBuild) -> naga::Module {
    let source = shaders::compose_build(root, build, &[]).expect("composes");
    naga::front::wgsl::parse_str(&source).unwrap_or_else(|error| panic!("{root}: {}", error.emit_to_string(&source)))
}

/// (size, member offsets) of the WGSL struct `name`.
fn struct_layout(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name}"));
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => {
            (*span, members.iter().map(|member| (member.name.clone().unwrap_or_default(), member.offset)).collect())
        }
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

macro_rules! offsets {
    ($type:ty, $($field:ident),+) => {
        vec![$((stringify!($field).to_owned(), std::mem::offset_of!($type, $field) as u32)),+]
    };
}

#[test]
fn wgsl_structs_match_their_rust_twins() {
    let per_piece = parse("per_piece");
    let per_position = parse("per_position");
    let perft = parse("perft");
    for module in [&per_piece, &per_position, &perft] {
        assert_eq!(
            struct_layout(module, "PackedPosition"),
            (size_of::<PackedPosition>() as u32, offsets!(PackedPosition, planes, state, counters))
        );
    }
    assert_eq!(
        struct_layout(&per_piece, "PieceMovesRecord"),
        (size_of::<PieceMovesRecord>() as u32, offsets!(PieceMovesRecord, destinations, from_square, piece))
    );
    assert_eq!(
        struct_layout(&per_position, "PositionMovesRecord"),
        (
            size_of::<PositionMovesRecord>() as u32,
            offsets!(PositionMovesRecord, destinations, en_passant_from, move_count, castling)
        )
    );
    assert_eq!(
        struct_layout(&perft, "PerftParameters"),
        (
            size_of::<PerftParameters>() as u32,
            offsets!(
                PerftParameters,
                start,
                count,
                output_start,
                base_offset,
                scan_start,
                scan_sums,
                merge_slots,
                leaves,
                tables,
                remaining,
                table_shards,
                shallow_buckets,
                deep_buckets,
                index_mask,
                count_bits,
                state_base,
                table_base,
                arena_capacity,
                leaf_list,
                list_total
            )
        )
    );
    // Every game's batch kernels share the uniform (common/batch_io.wgsl).
    let wgsl = |source: Result<String, _>| {
        let source: String = source.expect("composes");
        naga::front::wgsl::parse_str(&source).unwrap_or_else(|error| panic!("{}", error.emit_to_string(&source)))
    };
    let go_legal = wgsl(gpu_movegen::go::gpu::shaders::compose("go_legal", 9, &[]));
    let go_playouts = wgsl(gpu_movegen::go::gpu::shaders::compose("go_playouts", 19, &[]));
    let shogi_per_position = wgsl(gpu_movegen::shogi::gpu::shaders::compose_with("shogi_per_position", &[]));
    for module in [&per_piece, &per_position, &go_legal, &go_playouts, &shogi_per_position] {
        assert_eq!(
            struct_layout(module, "BatchParameters"),
            (size_of::<BatchParameters>() as u32, offsets!(BatchParameters, count, per_position, seed, first_stream))
        );
    }
}

/// The value of the WGSL constant `name` in a parsed module.
fn constant(module: &naga::Module, name: &str) -> u32 {
    let (_, constant) = module
        .constants
        .iter()
        .find(|(_, constant)| constant.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no constant {name}"));
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(value)) => value,
        ref other => panic!("{name} is {other:?}"),
    }
}

/// The constants the host and the kernels share come from Rust, and the
/// workgroup sizes the host dispatches with are the ones the WGSL declares.
#[test]
fn shared_constants_and_workgroup_sizes_come_from_one_definition() {
    let perft = parse("perft");
    for (name, value) in [
        ("POSITION_WORKGROUP", engine::POSITION_WORKGROUP),
        ("SCAN_BLOCK", engine::SCAN_BLOCK),
        ("FAULT_INVALID_POSITION", engine::FAULT_INVALID_POSITION),
        ("FAULT_ARENA_OVERFLOW", engine::FAULT_ARENA_OVERFLOW),
        ("SHALLOW_MAX_REMAINING", engine::SHALLOW_MAX_REMAINING),
        ("TABLE_MAGIC_ATTACKS", shaders::TABLE_OFFSETS.magic_attacks),
        ("TABLE_BETWEEN", shaders::TABLE_OFFSETS.between),
    ] {
        assert_eq!(constant(&perft, name), value, "{name}");
    }
    let reflected = reflect(shaders::compose_build("perft", ShaderBuild::default(), &[]).unwrap()).unwrap();
    let sizes: Vec<(String, [u32; 3])> =
        reflected.entry_points.iter().map(|entry| (entry.name.clone(), entry.workgroup_size)).collect();
    for (name, size) in [
        ("count_moves", engine::POSITION_WORKGROUP),
        ("expand_moves", engine::POSITION_WORKGROUP),
        ("write_children", engine::POSITION_WORKGROUP),
        ("count_leaves_fused", engine::POSITION_WORKGROUP),
        ("count_leaves_looped", engine::POSITION_WORKGROUP),
        ("merge_duplicates", engine::POSITION_WORKGROUP),
        ("dedupe_level", engine::POSITION_WORKGROUP),
        ("reduce_level", engine::POSITION_WORKGROUP),
        ("scan_blocks", engine::SCAN_BLOCK),
        ("add_block_sums", engine::SCAN_BLOCK),
    ] {
        assert!(sizes.contains(&(name.to_owned(), [size, 1, 1])), "{name}: {sizes:?}");
    }
    // The bind-group layout the engine builds is the one the WGSL declares.
    let bindings: Vec<(u32, BindingKind)> =
        reflected.bindings.iter().map(|binding| (binding.binding, binding.kind)).collect();
    assert_eq!(
        bindings,
        [
            (0, BindingKind::Storage { read_only: true }),
            (1, BindingKind::Storage { read_only: false }),
            (2, BindingKind::Storage { read_only: false }),
            (3, BindingKind::Storage { read_only: false }),
            (5, BindingKind::Storage { read_only: false }),
            (6, BindingKind::Storage { read_only: false }),
            (7, BindingKind::Uniform),
            (8, BindingKind::Storage { read_only: false }),
            (9, BindingKind::Storage { read_only: false }),
        ]
    );
    // Eight storage buffers: the most WebGPU's default limits allow a stage.
    let storage = bindings.iter().filter(|(_, kind)| matches!(kind, BindingKind::Storage { .. })).count();
    assert_eq!(storage, 8);
}

#[test]
fn every_kernel_validates_and_every_module_has_a_header() {
    for slider in SliderAlgorithm::ALL {
        for native_u64 in [false, true] {
            let build = ShaderBuild { slider, native_u64 };
            let capabilities =
                if native_u64 { naga::valid::Capabilities::SHADER_INT64 } else { naga::valid::Capabilities::empty() };
            for module in shaders::modules().filter(|module| module.kind == ModuleKind::Kernels) {
                let parsed = parse_build(module.name, build);
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
                    .validate(&parsed)
                    .unwrap_or_else(|error| panic!("{} ({}) does not validate: {error:?}", module.name, build.name()));
                assert!(!parsed.entry_points.is_empty(), "{}", module.name);
            }
        }
    }
    let mut kernels = 0;
    for module in shaders::modules() {
        // The header names the file as it lies in its game's folder.
        let file = module.path.split_once('/').expect("game/file").1;
        let header = module.source.lines().take_while(|line| line.starts_with("//")).collect::<Vec<_>>().join("\n");
        assert!(header.starts_with(&format!("// {file} ")), "{} must open with its name", module.path);
        assert!(
            header.contains("Reads:") && header.contains("Writes:"),
            "{} header must say what it reads and writes",
            module.path
        );
        assert_eq!(module.path.contains("/kernels/"), module.kind == ModuleKind::Kernels, "{}", module.path);
        kernels += usize::from(module.kind == ModuleKind::Kernels);
    }
    // per_piece, per_position, action_masks, environment, perft, perft_statistics, variant_perft.
    assert_eq!(kernels, 7);
}

#[test]
fn composer_reports_unknown_modules_and_cycles() {
    let unknown = shaders::compose_with("root", &[("root", "#import nowhere\n")]).unwrap_err();
    assert!(unknown.to_string().contains("'nowhere'"), "{unknown}");
    let cycle = shaders::compose_with("a", &[("a", "#import b\n"), ("b", "#import a\n")]).unwrap_err();
    assert!(cycle.to_string().contains("cycle"), "{cycle}");
    // Each module appears once even when imported twice.
    let text = shaders::compose("movegen").unwrap();
    assert_eq!(text.matches("// ---- module bitboard ----").count(), 1);
}

const SLIDER_KERNEL: &str = r#"
#import sliders

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

// Input per invocation: square, occupancy (low, high). Output: rook, bishop
// and queen attacks (each low, high) from the `sliders` module in use.
@compute @workgroup_size(64)
fn slider_attacks(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index * 3u >= arrayLength(&input) { return; }
    let square = input[index * 3u];
    let occupied = bitboard_make(input[index * 3u + 1u], input[index * 3u + 2u]);
    let rook = slider_rook_attacks(square, occupied);
    let bishop = slider_bishop_attacks(square, occupied);
    let queen = slider_queen_attacks(square, occupied);
    output[index * 6u] = bitboard_low(rook);
    output[index * 6u + 1u] = bitboard_high(rook);
    output[index * 6u + 2u] = bitboard_low(bishop);
    output[index * 6u + 3u] = bitboard_high(bishop);
    output[index * 6u + 4u] = bitboard_low(queen);
    output[index * 6u + 5u] = bitboard_high(queen);
}
"#;

#[test]
fn every_gpu_slider_algorithm_in_both_representations_equals_the_ray_walk() {
    let context = context();
    let mut random = ChaCha8Rng::seed_from_u64(555);
    let mut cases = Vec::new();
    for square in 0..64u32 {
        for index in 0..400u32 {
            let occupancy = random_occupancy(&mut random, square, index);
            cases.push((square, occupancy));
        }
    }
    let input: Vec<u32> =
        cases.iter().flat_map(|&(square, occupancy)| [square, occupancy as u32, (occupancy >> 32) as u32]).collect();
    let builds = builds(&context);
    assert!(builds.len() >= 6);
    for build in builds {
        let output = run_test_kernel_build(
            &context,
            build,
            SLIDER_KERNEL,
            "slider_attacks",
            &input,
            cases.len() * 6,
            cases.len() as u32,
        );
        for (index, &(square, occupied)) in cases.iter().enumerate() {
            let pair =
                |offset: usize| u64::from(output[index * 6 + offset]) | u64::from(output[index * 6 + offset + 1]) << 32;
            let square = square as u8;
            let rook = classical::rook_attacks(square, occupied);
            let bishop = classical::bishop_attacks(square, occupied);
            let label = format!("{} square {square} occupied {occupied:#x}", build.name());
            assert_eq!(pair(0), rook, "rook, {label}");
            assert_eq!(pair(2), bishop, "bishop, {label}");
            assert_eq!(pair(4), rook | bishop, "queen, {label}");
        }
    }
}
