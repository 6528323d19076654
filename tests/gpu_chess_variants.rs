//! The seven chess variants on the GPU (shaders/chess/variant.wgsl through
//! the perft engine): every published suite entry, seeded random play of
//! every variant against the CPU engine (itself held to python-chess by
//! tests/differential_python_chess.rs), the transposition table keyed by
//! variant, pockets and check counters, and both leaf shapes.

mod common;

use common::gpu::context;
use gpu_movegen::chess::gpu::{VariantGpuPerft, VariantKernels, VariantPerftOptions};
use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
use gpu_movegen::gpu::{FusedShape, GpuContext};
use gpu_movegen::suite::parse_suite;

/// Each published suite with its variant (tests/data/variants).
const SUITES: [(Variant, &str); 6] = [
    (Variant::Antichess, include_str!("data/variants/antichess.perft")),
    (Variant::Atomic, include_str!("data/variants/atomic.perft")),
    (Variant::ThreeCheck, include_str!("data/variants/3check.perft")),
    (Variant::Horde, include_str!("data/variants/horde.perft")),
    (Variant::RacingKings, include_str!("data/variants/racingkings.perft")),
    (Variant::Crazyhouse, include_str!("data/variants/crazyhouse.perft")),
];

/// Published counts up to this size in CI (85 of the 101 counts); the
/// ignored test takes every one.
const MAX_NODES: u64 = 100_000;

/// Positions of seeded random play a variant in CI; the ignored test takes 2,000.
const RANDOM_POSITIONS: usize = 40;

fn engine(context: &GpuContext, variant: Variant, options: VariantPerftOptions) -> VariantGpuPerft {
    let options = VariantPerftOptions { build: VariantKernels { variant, ..Default::default() }, ..options };
    VariantGpuPerft::with_options(context, options).unwrap_or_else(|error| panic!("a {variant} engine: {error}"))
}

/// The published suite of `variant` (none for king of the hill), counts up to `max_nodes`.
fn published(variant: Variant, max_nodes: u64) -> Vec<(VariantPosition, u32, u64)> {
    let Some((_, text)) = SUITES.iter().find(|(named, _)| *named == variant) else { return Vec::new() };
    let mut counts = Vec::new();
    for entry in parse_suite(text).unwrap() {
        let position = VariantPosition::from_fen(variant, &entry.fen).unwrap();
        for &(depth, expected) in entry.expected.iter().filter(|(_, nodes)| *nodes <= max_nodes) {
            counts.push((position, depth, expected));
        }
    }
    counts
}

/// Every published count of `variant` up to `max_nodes` and `random` positions
/// of seeded random play at depth 3, on one engine with the default settings:
/// the published counts one by one, the random positions in one batch, each
/// equal to the CPU's count. Returns how many published counts were checked.
fn check_build(context: &GpuContext, variant: Variant, max_nodes: u64, random: usize) -> usize {
    let mut gpu = engine(context, variant, VariantPerftOptions::default());
    let counts = published(variant, max_nodes);
    for (position, depth, expected) in &counts {
        let counted = gpu.perft(std::slice::from_ref(position), *depth, &mut |_| {}).unwrap();
        assert_eq!(counted, [*expected], "{variant} {} depth {depth}", position.to_fen());
    }
    let positions = variant::random_positions(variant, random, 80, 0x5eed ^ variant as u64);
    let expected: Vec<u64> = positions.iter().map(|position| variant::perft(position, 3)).collect();
    let counted = gpu.perft(&positions, 3, &mut |_| {}).unwrap();
    for ((position, gpu), cpu) in positions.iter().zip(&counted).zip(&expected) {
        assert_eq!(gpu, cpu, "{variant} {}", position.to_fen());
    }
    counts.len()
}

#[test]
fn every_variant_counts_its_suite_and_random_play_as_the_cpu() {
    let context = context();
    let checked: usize =
        Variant::VARIANTS.into_iter().map(|variant| check_build(&context, variant, MAX_NODES, RANDOM_POSITIONS)).sum();
    assert!(checked >= 80, "{checked} published counts");
}

/// The bar: every published count (the largest is 9.5 million) and
/// 2,000 positions of random play a variant (the CPU engine is held to
/// python-chess on as many by tests/differential_python_chess.rs).
#[test]
#[ignore = "about half an hour on lavapipe; run with --ignored"]
fn every_published_count_and_two_thousand_random_positions_a_variant() {
    let context = context();
    let checked: usize =
        Variant::VARIANTS.into_iter().map(|variant| check_build(&context, variant, u64::MAX, 2000)).sum();
    assert_eq!(checked, 101, "published counts");
}

/// The engine's other shapes, each on variants whose rules reach far into
/// the kernels: no table and no merging, the fused plies one invocation per
/// move (what a GPU runs) with and without a table, and the last ply stored
/// instead of fused with a table cut to a few bits (entries evicted all the time).
#[test]
fn without_a_table_and_with_stored_leaves_the_counts_stay() {
    let context = context();
    let shapes = [
        (
            [Variant::Atomic, Variant::Horde],
            VariantPerftOptions { table_bytes: Some(0), merge_transpositions: false, ..Default::default() },
        ),
        (
            [Variant::RacingKings, Variant::ThreeCheck],
            VariantPerftOptions { table_bytes: Some(0), fused_shape: FusedShape::PerMove, ..Default::default() },
        ),
        (
            [Variant::Crazyhouse, Variant::KingOfTheHill],
            VariantPerftOptions { fused_shape: FusedShape::PerMove, index_bits: 4, ..Default::default() },
        ),
        (
            [Variant::Crazyhouse, Variant::Antichess],
            VariantPerftOptions {
                fused_leaves: false,
                table_bytes: Some(1 << 20),
                index_bits: 4,
                ..Default::default()
            },
        ),
    ];
    for (variants, options) in shapes {
        for variant in variants {
            let positions = variant::random_positions(variant, RANDOM_POSITIONS, 80, 0xd1ce ^ variant as u64);
            let expected: Vec<u64> = positions.iter().map(|position| variant::perft(position, 3)).collect();
            let mut gpu = engine(&context, variant, options);
            let counted = gpu.perft(&positions, 3, &mut |_| {}).unwrap();
            for ((position, gpu), cpu) in positions.iter().zip(&counted).zip(&expected) {
                assert_eq!(
                    gpu,
                    cpu,
                    "{variant} {}: fused {} {:?}",
                    position.to_fen(),
                    options.fused_leaves,
                    options.fused_shape
                );
            }
        }
    }
}

/// Positions equal on the board but not in what the variant adds (pockets,
/// promoted pieces, check counters) are different positions to the table:
/// counted in one batch with a table cut to a few bits, each keeps its own count.
#[test]
fn the_table_tells_pockets_and_check_counters_apart() {
    let context = context();
    for (variant, fens) in [
        (
            Variant::Crazyhouse,
            [
                "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1",
                "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1",
                "4k3/8/8/8/8/8/8/4K3[q] w - - 0 1",
            ],
        ),
        (
            Variant::ThreeCheck,
            [
                "4k3/8/8/8/8/8/8/R3K3 w - - 3+3 0 1",
                "4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1",
                "4k3/8/8/8/8/8/8/R3K3 w - - 3+1 0 1",
            ],
        ),
    ] {
        let positions: Vec<VariantPosition> =
            fens.iter().map(|fen| VariantPosition::from_fen(variant, fen).unwrap()).collect();
        let expected: Vec<u64> = positions.iter().map(|position| variant::perft(position, 4)).collect();
        let options = VariantPerftOptions { table_bytes: Some(1 << 20), index_bits: 2, ..Default::default() };
        let mut gpu = engine(&context, variant, options);
        assert_eq!(gpu.perft(&positions, 4, &mut |_| {}).unwrap(), expected, "{variant}");
        // Again with the table full of the first pass's counts.
        assert_eq!(gpu.perft(&positions, 4, &mut |_| {}).unwrap(), expected, "{variant}");
        assert!(expected[0] != expected[1] || expected[1] != expected[2], "{variant}: the positions differ in count");
    }
}

#[test]
fn divide_on_the_gpu_equals_the_cpu() {
    let context = context();
    let position = VariantPosition::from_fen(Variant::Crazyhouse, "4k3/1Q~6/8/8/4b3/8/Kpp5/8[Nn] b - - 0 1").unwrap();
    let mut gpu = engine(&context, Variant::Crazyhouse, VariantPerftOptions::default());
    assert_eq!(gpu.divide(&position, 3, &mut |_| {}).unwrap(), variant::divide(&position, 3, false));
}
