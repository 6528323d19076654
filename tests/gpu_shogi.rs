//! Shogi on the GPU against the CPU reference and the published counts:
//! the record's layout, perft of the suite, random game positions in
//! batches, the 593-move position, and small arenas that force the engine
//! to split levels.

mod common;

use common::gpu::context;
use gpu_movegen::gpu::perft::{FusedShape, PerftOptions};
use gpu_movegen::shogi::Position;
use gpu_movegen::shogi::gpu::layout::PackedShogiPosition;
use gpu_movegen::shogi::gpu::{ShogiGpuPerft, shaders};
use gpu_movegen::shogi::perft::{perft, random_positions};

const SUITE: &str = include_str!("data/shogi.epd");

/// Published counts up to this size run on lavapipe in CI.
const GPU_MAX_NODES: u64 = 1_000_000;

#[test]
fn the_packed_record_matches_its_rust_twin() {
    let source = shaders::compose_with("shogi_perft", &[]).unwrap();
    let module =
        naga::front::wgsl::parse_str(&source).unwrap_or_else(|error| panic!("{}", error.emit_to_string(&source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty())
        .validate(&module)
        .unwrap_or_else(|error| panic!("{error:?}"));
    let (_, ty) = module.types.iter().find(|(_, ty)| ty.name.as_deref() == Some("PackedShogiPosition")).unwrap();
    let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("not a struct") };
    assert_eq!(*span as usize, size_of::<PackedShogiPosition>());
    let offsets: Vec<(String, u32)> =
        members.iter().map(|member| (member.name.clone().unwrap_or_default(), member.offset)).collect();
    assert_eq!(
        offsets,
        [
            ("planes".to_owned(), std::mem::offset_of!(PackedShogiPosition, planes) as u32),
            ("hands".to_owned(), std::mem::offset_of!(PackedShogiPosition, hands) as u32),
            ("state".to_owned(), std::mem::offset_of!(PackedShogiPosition, state) as u32),
            ("move_number".to_owned(), std::mem::offset_of!(PackedShogiPosition, move_number) as u32),
        ]
    );
}

#[test]
fn published_counts_match_on_the_gpu() {
    let context = context();
    let mut gpu = ShogiGpuPerft::new(&context).unwrap();
    let mut checked = 0;
    for line in SUITE.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
        let mut fields = line.split(';');
        let position = Position::from_sfen(fields.next().unwrap().trim()).unwrap();
        for field in fields {
            let (depth, nodes) = field.trim().trim_start_matches('D').split_once(' ').unwrap();
            let (depth, nodes): (u32, u64) = (depth.parse().unwrap(), nodes.parse().unwrap());
            if nodes <= GPU_MAX_NODES {
                assert_eq!(gpu.perft(&[position], depth, &mut |_| {}).unwrap(), [nodes], "{line} depth {depth}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn random_game_positions_count_as_on_the_cpu_in_one_batch() {
    let context = context();
    let roots = random_positions(400, 12);
    for depth in 1..=2 {
        let expected: Vec<u64> = roots.iter().map(|root| perft(root, depth)).collect();
        let mut gpu = ShogiGpuPerft::new(&context).unwrap();
        assert_eq!(gpu.perft(&roots, depth, &mut |_| {}).unwrap(), expected, "depth {depth}");
    }
}

/// Positions where a pawn drop in front of the enemy king checks, and in
/// some of them mates (uchifuzume): the kernels decide that drop once per
/// position from the king's escapes and the pawn's capturers.
#[test]
fn pawn_drops_that_might_mate_count_as_on_the_cpu() {
    let context = context();
    let roots = common::shogi::pawn_drop_positions(600, 9);
    let mates = roots.iter().filter(|root| common::shogi::pawn_drop_mates(root)).count();
    assert!(mates >= 10, "only {mates} of the positions have a mating pawn drop");
    let mut gpu = ShogiGpuPerft::new(&context).unwrap();
    for depth in 1..=2 {
        let expected: Vec<u64> = roots.iter().map(|root| perft(root, depth)).collect();
        assert_eq!(gpu.perft(&roots, depth, &mut |_| {}).unwrap(), expected, "depth {depth}");
    }
}

#[test]
fn small_arenas_stay_exact() {
    let context = context();
    let start = Position::start();
    // Every leaf shape (stored, fused per position and per move), each in
    // an arena small enough to split a level.
    for (arena, fused_leaves, fused_shape, depth, nodes) in [
        (2_500, false, FusedShape::Auto, 4, 719_731),
        (5_000, true, FusedShape::PerPosition, 5, 19_861_490),
        (5_000, true, FusedShape::PerMove, 5, 19_861_490),
    ] {
        let options = PerftOptions { arena_positions: Some(arena), fused_leaves, fused_shape, ..Default::default() };
        let mut gpu = ShogiGpuPerft::with_options(&context, options).unwrap();
        assert_eq!(gpu.perft(&[start], depth, &mut |_| {}).unwrap(), [nodes], "{arena} {fused_leaves} {fused_shape:?}");
        assert!(gpu.statistics().split_levels > 0, "{arena}: {:?}", gpu.statistics());
    }
}

#[test]
fn every_shogi_module_opens_with_what_it_reads_and_writes() {
    for module in shaders::modules() {
        let file = module.path.split_once('/').expect("folder/file").1;
        let header = module.source.lines().take_while(|line| line.starts_with("//")).collect::<Vec<_>>().join("\n");
        assert!(header.starts_with(&format!("// {file} ")), "{} must open with its name", module.path);
        assert!(header.contains("Reads:") && header.contains("Writes:"), "{}", module.path);
    }
}

#[test]
fn gpu_move_sets_equal_the_cpu_in_random_game_positions() {
    use gpu_movegen::shogi::gpu::{ShogiMoveGenerator, ShogiPositionMoves};
    let context = context();
    let mut generator = ShogiMoveGenerator::new(&context).unwrap();
    let mut positions = random_positions(600, 77);
    for line in SUITE.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
        positions.push(Position::from_sfen(line.split(';').next().unwrap().trim()).unwrap());
    }
    let moves = generator.generate(&positions).unwrap();
    let mut with_drops = 0;
    for (position, gpu) in positions.iter().zip(&moves) {
        assert_eq!(gpu, &ShogiPositionMoves::from_cpu(position), "{}", position.to_sfen());
        with_drops += usize::from(gpu.drops.iter().any(|drops| !drops.is_empty()));
    }
    assert!(with_drops > 150, "{with_drops}");
    // The 593-move position, moves counted with promotion choices apart.
    assert_eq!(moves.last().map(|moves| moves.move_count), Some(119));
    assert!(moves.iter().any(|moves| moves.move_count == 593));
}

#[test]
fn the_move_record_matches_its_rust_twin() {
    use gpu_movegen::shogi::gpu::layout::ShogiPositionMovesRecord;
    let source = shaders::compose_with("shogi_per_position", &[]).unwrap();
    let module =
        naga::front::wgsl::parse_str(&source).unwrap_or_else(|error| panic!("{}", error.emit_to_string(&source)));
    let (_, ty) = module.types.iter().find(|(_, ty)| ty.name.as_deref() == Some("ShogiPositionMovesRecord")).unwrap();
    let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("not a struct") };
    assert_eq!(*span as usize, size_of::<ShogiPositionMovesRecord>());
    let offsets: Vec<u32> = members.iter().map(|member| member.offset).collect();
    assert_eq!(
        offsets[..3],
        [
            std::mem::offset_of!(ShogiPositionMovesRecord, destinations) as u32,
            std::mem::offset_of!(ShogiPositionMovesRecord, drops) as u32,
            std::mem::offset_of!(ShogiPositionMovesRecord, move_count) as u32,
        ]
    );
}

/// The other bitboard layout (three ranks to a 27-bit word) counts the same.
#[test]
fn both_bitboard_layouts_count_the_same() {
    use gpu_movegen::shogi::gpu::layout::BoardWords;
    let context = context();
    let roots = random_positions(40, 5);
    let expected: Vec<u64> = roots.iter().map(|root| perft(root, 2)).collect();
    for build in [BoardWords::Full, BoardWords::ThreeRanks] {
        let mut gpu = ShogiGpuPerft::with_options(&context, PerftOptions { build, ..Default::default() }).unwrap();
        assert_eq!(gpu.perft(&roots, 2, &mut |_| {}).unwrap(), expected, "{build:?}");
        assert_eq!(gpu.perft(&[Position::start()], 3, &mut |_| {}).unwrap(), [25_470], "{build:?}");
    }
    for words in [0u128, 1, 1 << 80, all_squares(), 0x1234_5678_9abc_def0_1234_5678] {
        let words = words & all_squares();
        assert_eq!(BoardWords::ThreeRanks.bitboard(BoardWords::ThreeRanks.words(words)), words);
        assert_eq!(BoardWords::Full.bitboard(BoardWords::Full.words(words)), words);
    }
}

fn all_squares() -> u128 {
    gpu_movegen::shogi::Bitboard::ALL.0
}
