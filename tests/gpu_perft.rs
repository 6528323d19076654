//! GPU perft against the CPU and the published counts: suites, forced
//! chunking in a tiny arena, the 64-bit totals, divide, and make-move.

mod common;

use common::gpu::{context, gpu_child, run_test_kernel};
use common::{EDGE_CASES, PERFT_SUITE, TRICKY, suite};
use gpu_movegen::chess::gpu::layout::{PackedPosition, piece_code};
use gpu_movegen::chess::gpu::{GpuPerft, PerftOptions};

use gpu_movegen::{Position, perft};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Published counts up to this size run on lavapipe in CI.
const GPU_MAX_NODES: u64 = 2_000_000;

#[test]
fn suites_match_published_counts_on_the_gpu_in_batches() {
    let context = context();
    let mut gpu = GpuPerft::new(&context).unwrap();
    let mut checked = 0;
    for text in [PERFT_SUITE, EDGE_CASES, TRICKY] {
        // The tricky suite's impossible-material entry is refused, not counted.
        let entries: Vec<_> = suite(text).into_iter().filter(|entry| entry.position().is_ok()).collect();
        for depth in 1..=6 {
            // Every position with a small enough count at this depth, in one batch.
            let batch: Vec<(Position, u64, String)> = entries
                .iter()
                .filter_map(|entry| {
                    let (_, nodes) =
                        entry.expected.iter().find(|(at, nodes)| *at == depth && *nodes <= GPU_MAX_NODES)?;
                    Some((entry.position().unwrap(), *nodes, entry.fen.clone()))
                })
                .collect();
            let roots: Vec<Position> = batch.iter().map(|(position, _, _)| *position).collect();
            let counts = gpu.perft(&roots, depth, &mut |_| {}).unwrap();
            for ((_, expected, fen), actual) in batch.iter().zip(counts) {
                assert_eq!(actual, *expected, "{fen} depth {depth}");
                checked += 1;
            }
        }
    }
    assert!(checked > 600, "{checked}");
}

#[test]
fn a_tiny_arena_splits_levels_and_stays_exact() {
    let context = context();
    let options = PerftOptions { arena_positions: Some(1_000), leaf_positions_per_dispatch: 100, ..Default::default() };
    let mut gpu = GpuPerft::with_options(&context, options).unwrap();
    assert_eq!(gpu.capacity(), 1_000);
    let roots: Vec<Position> = [
        gpu_movegen::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ]
    .iter()
    .map(|fen| Position::from_fen(fen).unwrap())
    .collect();
    let mut reports = Vec::new();
    let counts = gpu.perft(&roots, 4, &mut |nodes| reports.push(nodes)).unwrap();
    let expected: Vec<u64> = roots.iter().map(|root| perft::perft(root, 4)).collect();
    assert_eq!(counts, expected);
    assert_eq!(counts, [197_281, 4_085_603, 182_838, 43_238]);
    // Progress comes at the end of each root group and at most every 250 ms
    // in between: a running total that never goes down.
    assert!(!reports.is_empty());
    assert!(reports.windows(2).all(|pair| pair[0] <= pair[1]));
    assert_eq!(reports.last(), Some(&counts.iter().sum()));
    // Depth 5 of the start position: the level of depth 3 (8,902) cannot fit.
    assert_eq!(gpu.perft(&roots[..1], 5, &mut |_| {}).unwrap(), [4_865_609]);
}

#[test]
fn an_arena_too_small_for_any_position_is_refused() {
    let context = context();
    let error = GpuPerft::with_options(&context, PerftOptions { arena_positions: Some(100), ..Default::default() })
        .err()
        .expect("too small");
    assert!(error.to_string().contains("too small"), "{error}");
}

#[test]
fn divide_on_the_gpu_equals_divide_on_the_cpu() {
    let context = context();
    let mut gpu = GpuPerft::new(&context).unwrap();
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ] {
        let position = Position::from_fen(fen).unwrap();
        for depth in 1..=3 {
            assert_eq!(gpu.divide(&position, depth, &mut |_| {}).unwrap(), perft::divide(&position, depth, false));
        }
    }
}

const WIDE_COUNTER_KERNEL: &str = r#"
#import wide_counter

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<atomic<u32>>;

// Invocation i adds input[i] to counter i % 4.
@compute @workgroup_size(64)
fn add_values(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= arrayLength(&input) { return; }
    wide_counter_add(id.x % 4u, input[id.x]);
}
"#;

#[test]
fn totals_carry_past_two_to_the_32() {
    let context = context();
    let mut random = ChaCha8Rng::seed_from_u64(32);
    // Large values make the low words wrap thousands of times.
    let values: Vec<u32> = (0..20_000).map(|_| random.random_range(0xf000_0000..=u32::MAX)).collect();
    let words = run_test_kernel(&context, WIDE_COUNTER_KERNEL, "add_values", &values, 8, values.len() as u32);
    for counter in 0..4 {
        let expected: u64 = values.iter().skip(counter).step_by(4).map(|value| u64::from(*value)).sum();
        let actual = u64::from(words[2 * counter]) | u64::from(words[2 * counter + 1]) << 32;
        assert_eq!(actual, expected, "counter {counter}");
        assert!(expected > 1 << 40);
    }
}

const MAKE_MOVE_KERNEL: &str = r#"
#import movegen

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

// Input per invocation: a position (10 words), then from, to, piece, promotion.
// Output: the child position (10 words).
@compute @workgroup_size(64)
fn play(@builtin(global_invocation_id) id: vec3<u32>) {
    let base = id.x * 14u;
    if base >= arrayLength(&input) { return; }
    var position: PackedPosition;
    for (var plane = 0u; plane < 4u; plane++) {
        position.planes[plane] = vec2<u32>(input[base + 2u * plane], input[base + 2u * plane + 1u]);
    }
    position.state = input[base + 8u];
    position.counters = input[base + 9u];
    let child = pack_position(position_make_move(unpack_position(position), input[base + 10u], input[base + 11u], input[base + 12u], input[base + 13u]));
    for (var plane = 0u; plane < 4u; plane++) {
        output[id.x * 10u + 2u * plane] = child.planes[plane].x;
        output[id.x * 10u + 2u * plane + 1u] = child.planes[plane].y;
    }
    output[id.x * 10u + 8u] = child.state;
    output[id.x * 10u + 9u] = child.counters;
}
"#;

#[test]
fn make_move_on_the_gpu_equals_make_move_on_the_cpu() {
    let context = context();
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    let positions = common::random_walks(&roots, 24, 80, 99, |position| position.en_passant().is_some());
    let mut input: Vec<u32> = Vec::new();
    let mut expected: Vec<PackedPosition> = Vec::new();
    for position in &positions {
        for mv in position.legal_moves() {
            let piece = position.piece_kind_on(mv.from()).unwrap();
            input.extend_from_slice(bytemuck::cast_slice(&[PackedPosition::from(position)]));
            input.extend([mv.from() as u32, mv.to() as u32, piece_code(piece), mv.promotion().map_or(0, piece_code)]);
            expected.push(gpu_child(position, mv));
        }
    }
    assert!(expected.len() > 50_000, "only {} moves", expected.len());
    let output =
        run_test_kernel(&context, MAKE_MOVE_KERNEL, "play", &input, expected.len() * 10, expected.len() as u32);
    let children: &[PackedPosition] = bytemuck::cast_slice(&output);
    for (index, (child, expected)) in children.iter().zip(&expected).enumerate() {
        let words = &input[index * 14..index * 14 + 14];
        assert_eq!(child, expected, "move {:?} in {:?}", &words[10..], &words[..10]);
    }
}
