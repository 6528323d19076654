//! The WGSL building blocks against the CPU: 64-bit helpers (every shift
//! amount both ways, counts and bit scans), the Kogge-Stone fill against its
//! CPU twin and the ray walk, and the struct layouts against their Rust twins.

mod common;

use common::gpu::{context, run_test_kernel};
use gpu_movegen::gpu::layout::{GpuParameters, GpuPerftParameters, GpuPieceMoves, GpuPosition, GpuPositionMoves};
use gpu_movegen::gpu::shaders;
use gpu_movegen::sliders::{classical, kogge_stone};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BITBOARD_KERNEL: &str = r#"
#import bitboard

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

// Invocation i takes value i and writes, for every amount 0..63, the left
// and right shifts, then count, first square and the value without it.
@compute @workgroup_size(64)
fn bitboard_ops(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    if index * 2u >= arrayLength(&input) { return; }
    let value = vec2<u32>(input[index * 2u], input[index * 2u + 1u]);
    let base = index * 266u;
    for (var amount = 0u; amount < 64u; amount++) {
        let left = bitboard_shift_left(value, amount);
        let right = bitboard_shift_right(value, amount);
        output[base + amount * 4u] = left.x;
        output[base + amount * 4u + 1u] = left.y;
        output[base + amount * 4u + 2u] = right.x;
        output[base + amount * 4u + 3u] = right.y;
    }
    output[base + 256u] = bitboard_count(value);
    output[base + 257u] = bitboard_first(value);
    let rest = bitboard_without_first(value);
    output[base + 258u] = rest.x;
    output[base + 259u] = rest.y;
    output[base + 260u] = u32(bitboard_is_empty(value));
    output[base + 261u] = u32(bitboard_has_several(value));
    let square = index % 64u;
    let single = bitboard_from_square(square);
    output[base + 262u] = single.x;
    output[base + 263u] = single.y;
    output[base + 264u] = u32(bitboard_contains(value, square));
    output[base + 265u] = 0u;
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
fn bitboard_helpers_match_u64_on_every_shift_amount() {
    let context = context();
    let values = random_values(4_000, 64);
    let input: Vec<u32> = values.iter().flat_map(|value| [*value as u32, (value >> 32) as u32]).collect();
    let output =
        run_test_kernel(&context, BITBOARD_KERNEL, "bitboard_ops", &input, values.len() * 266, values.len() as u32);
    let word = |index: usize, offset: usize| output[index * 266 + offset];
    let pair = |index: usize, offset: usize| u64::from(word(index, offset)) | u64::from(word(index, offset + 1)) << 32;
    for (index, &value) in values.iter().enumerate() {
        for amount in 0..64 {
            assert_eq!(pair(index, amount * 4), value << amount, "{value:#x} << {amount}");
            assert_eq!(pair(index, amount * 4 + 2), value >> amount, "{value:#x} >> {amount}");
        }
        assert_eq!(word(index, 256), value.count_ones(), "count {value:#x}");
        assert_eq!(word(index, 257), if value == 0 { 64 } else { value.trailing_zeros() }, "first {value:#x}");
        assert_eq!(pair(index, 258), value & value.wrapping_sub(1), "without first {value:#x}");
        assert_eq!(word(index, 260), u32::from(value == 0));
        assert_eq!(word(index, 261), u32::from(value.count_ones() > 1));
        let square = index % 64;
        assert_eq!(pair(index, 262), 1 << square);
        assert_eq!(word(index, 264), (value >> square & 1) as u32);
    }
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
    let occupied = vec2<u32>(input[index * 5u + 1u], input[index * 5u + 2u]);
    let sliders = vec2<u32>(input[index * 5u + 3u], input[index * 5u + 4u]);
    let fill = kogge_stone_queen_attacks(bitboard_from_square(square), ~occupied);
    let rook = fill & table_rook_rays(square);
    let bishop = fill & table_bishop_rays(square);
    let setwise = kogge_stone_queen_attacks(sliders, ~occupied);
    output[index * 6u] = rook.x;
    output[index * 6u + 1u] = rook.y;
    output[index * 6u + 2u] = bishop.x;
    output[index * 6u + 3u] = bishop.y;
    output[index * 6u + 4u] = setwise.x;
    output[index * 6u + 5u] = setwise.y;
}
"#;

#[test]
fn kogge_stone_wgsl_matches_its_cpu_twin_and_the_ray_walk_on_every_square() {
    let context = context();
    let mut random = ChaCha8Rng::seed_from_u64(2021);
    let mut cases = Vec::new();
    for square in 0..64u32 {
        for index in 0..1_000 {
            let occupancy = match index % 4 {
                0 => random.random::<u64>() & random.random::<u64>() & random.random::<u64>(),
                1 => random.random::<u64>() & random.random::<u64>(),
                2 => random.random::<u64>(),
                _ => 0,
            } | if index % 2 == 0 { 1 << square } else { 0 };
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
    let output = run_test_kernel(
        &context,
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

/// naga's view of a composed module.
fn parse(root: &str) -> naga::Module {
    let source = shaders::compose(root).expect("composes");
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
    let per_piece = parse("movegen_per_piece");
    let per_position = parse("movegen_per_position");
    assert_eq!(
        struct_layout(&per_piece, "Position"),
        (size_of::<GpuPosition>() as u32, offsets!(GpuPosition, planes, state, counters))
    );
    assert_eq!(
        struct_layout(&per_piece, "PieceMoves"),
        (size_of::<GpuPieceMoves>() as u32, offsets!(GpuPieceMoves, destinations, from_square, piece))
    );
    assert_eq!(
        struct_layout(&per_position, "PositionMoves"),
        (
            size_of::<GpuPositionMoves>() as u32,
            offsets!(GpuPositionMoves, destinations, en_passant_from, move_count, castling)
        )
    );
    let perft = parse("perft");
    assert_eq!(
        struct_layout(&perft, "Position"),
        (size_of::<GpuPosition>() as u32, offsets!(GpuPosition, planes, state, counters))
    );
    assert_eq!(
        struct_layout(&perft, "PerftParameters"),
        (
            size_of::<GpuPerftParameters>() as u32,
            offsets!(
                GpuPerftParameters,
                start,
                count,
                output_start,
                base_offset,
                scan_start,
                scan_sums,
                reserved_0,
                reserved_1
            )
        )
    );
    for module in [&per_piece, &per_position] {
        assert_eq!(
            struct_layout(module, "Parameters"),
            (
                size_of::<GpuParameters>() as u32,
                offsets!(GpuParameters, position_count, reserved_0, reserved_1, reserved_2)
            )
        );
    }
}

#[test]
fn every_stage_validates_and_has_a_header() {
    for stage in shaders::STAGES {
        let module = parse(stage.module);
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
            .validate(&module)
            .unwrap_or_else(|error| panic!("{} does not validate: {error:?}", stage.module));
        let entry = module.entry_points.iter().find(|entry| entry.name == stage.entry_point).expect("entry point");
        assert_eq!(entry.workgroup_size, [stage.workgroup_size, 1, 1], "{}", stage.entry_point);
    }
    for (name, source) in shaders::MODULES {
        let header = source.lines().take_while(|line| line.starts_with("//")).collect::<Vec<_>>().join("\n");
        assert!(header.starts_with(&format!("// {name}.wgsl")), "{name}.wgsl must open with its name");
        assert!(
            header.contains("Reads:") && header.contains("Writes:"),
            "{name}.wgsl header must say what it reads and writes"
        );
    }
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
