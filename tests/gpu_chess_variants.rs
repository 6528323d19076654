//! The seven chess variants on the GPU (shaders/chess/variant.wgsl through
//! the perft engine): every published suite entry, seeded random play of
//! every variant against the CPU engine (itself held to python-chess by
//! tests/differential_python_chess.rs), the transposition table keyed by
//! variant, pockets and check counters, and both leaf shapes.

mod common;

use common::gpu::context;
use gpu_movegen::chess::gpu::{VariantGpuPerft, VariantKernels, VariantPerftOptions};
use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
use gpu_movegen::gpu::GpuContext;
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

/// Published counts up to this size (every entry has smaller ones).
const MAX_NODES: u64 = 3_000_000;

fn engine(context: &GpuContext, variant: Variant, options: VariantPerftOptions) -> VariantGpuPerft {
    let options = VariantPerftOptions { variant: VariantKernels { variant, ..Default::default() }, ..options };
    VariantGpuPerft::with_options(context, options).unwrap_or_else(|error| panic!("a {variant} engine: {error}"))
}

#[test]
fn every_published_suite_entry_is_exact_on_the_gpu() {
    let context = context();
    let mut checked = 0;
    for (variant, text) in SUITES {
        let mut gpu = engine(&context, variant, VariantPerftOptions::default());
        for entry in parse_suite(text).unwrap() {
            let position = VariantPosition::from_fen(variant, &entry.fen).unwrap();
            for &(depth, expected) in entry.expected.iter().filter(|(_, nodes)| *nodes <= MAX_NODES) {
                let counted = gpu.perft(&[position], depth, &mut |_| {}).unwrap();
                assert_eq!(counted, [expected], "{variant} {} depth {depth}", entry.fen);
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "{checked} counts");
}

/// Random play of every variant, counted in one batch a variant: the GPU
/// equals the CPU position by position, with the table and without it, and
/// with the last ply stored instead of fused.
#[test]
fn random_play_of_every_variant_counts_as_on_the_cpu() {
    let context = context();
    for variant in Variant::VARIANTS {
        let positions = variant::random_positions(variant, 150, 80, 0x5eed ^ variant as u64);
        let expected: Vec<u64> = positions.iter().map(|position| variant::perft(position, 3)).collect();
        for options in [
            VariantPerftOptions::default(),
            VariantPerftOptions { table_bytes: Some(0), merge_transpositions: false, ..Default::default() },
            VariantPerftOptions { fused_leaves: false, table_bytes: Some(1 << 20), index_bits: 4, ..Default::default() },
        ] {
            let mut gpu = engine(&context, variant, options);
            let counted = gpu.perft(&positions, 3, &mut |_| {}).unwrap();
            for ((position, gpu), cpu) in positions.iter().zip(&counted).zip(&expected) {
                assert_eq!(gpu, cpu, "{variant} {}: fused {}", position.to_fen(), options.fused_leaves);
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
