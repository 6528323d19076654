//! Both GPU kernels against the CPU reference: suite positions, 20,000+
//! positions from seeded random play, several batch sizes, and the error paths.

mod common;

use common::gpu::context;
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::env::{ACTIONS, ChessState};
use gpu_movegen::chess::gpu::layout::{PackedPosition, join};
use gpu_movegen::chess::gpu::{ACTION_MASK_WORDS, GeneratorOptions, Kernel, MoveGenerator, PieceMode, PositionMoves};
use gpu_movegen::env::EnvGame;
use gpu_movegen::gpu::GpuError;
use gpu_movegen::{Bitboard, CastlingSide, Color, MoveKind, Piece, Position, Square, pseudo_legal};

fn test_positions() -> Vec<Position> {
    let mut roots = vec![Position::start()];
    roots.extend(common::suite_positions());
    let mut positions = roots.clone();
    // 148 roots x 140 walks, plus every en passant or double-check position passed on the way.
    positions.extend(common::random_walks(&roots, 140, 80, 0x6e0_2026, |position| {
        position.en_passant().is_some() || position.checkers().has_several()
    }));
    // Chess960: the suite's positions and two walks from every start position.
    let chess960 = common::chess960_suite_positions();
    positions.extend(&chess960);
    positions.extend(common::random_positions(&common::chess960_starts(), 2, 30, 0x960));
    positions
}

fn assert_same_moves(kernel: Kernel, positions: &[Position], gpu: &[PositionMoves]) {
    assert_eq!(gpu.len(), positions.len());
    for (position, moves) in positions.iter().zip(gpu) {
        let cpu = PositionMoves::from_cpu(position);
        assert_eq!(moves, &cpu, "{kernel:?} differs from the CPU in {}", position.to_fen());
        let mut gpu_list: Vec<String> = moves.moves().iter().map(ToString::to_string).collect();
        let mut cpu_list: Vec<String> = position.legal_moves().iter().map(ToString::to_string).collect();
        gpu_list.sort();
        cpu_list.sort();
        assert_eq!(gpu_list, cpu_list, "expanded moves differ in {}", position.to_fen());
    }
}

#[test]
fn both_kernels_match_the_cpu_on_suites_and_random_play() {
    let context = context();
    let mut generator = MoveGenerator::new(&context).expect("generator");
    let positions = test_positions();
    assert!(positions.len() >= 20_000, "{}", positions.len());
    let special = |test: fn(&Position) -> bool| positions.iter().filter(|position| test(position)).count();
    assert!(special(|position| position.checkers().has_several()) >= 20);
    assert!(special(|position| position.en_passant().is_some()) >= 200);
    assert!(special(|position| position.in_check()) >= 500);
    assert!(special(|position| !position.castling_rights().is_empty()) >= 1_000);
    assert!(special(|position| position.is_chess960()) >= 1_500);
    assert!(special(|position| position.legal_moves().iter().any(|mv| mv.promotion().is_some())) >= 100);

    for kernel in [Kernel::PerPosition, Kernel::PerPiece] {
        let moves = generator.generate(&positions, kernel).expect("GPU generation");
        assert_same_moves(kernel, &positions, &moves);
    }
}

/// The chess environment's legal-action masks made on the GPU equal the
/// CPU environment's bit for bit, on every standard position of the
/// suites and of seeded random play from them, castling, en passant and
/// every promotion among them, in three dispatches' worth of batch sizes.
#[test]
fn legal_action_masks_match_the_cpu_environment() {
    let context = context();
    let mut generator = MoveGenerator::new(&context).expect("generator");
    // The environment plays standard chess: Chess960's castling has no action of its own.
    let positions: Vec<Position> = test_positions().into_iter().filter(|position| !position.is_chess960()).collect();
    assert!(positions.len() >= 15_000, "{}", positions.len());
    let words = generator.legal_action_masks(&positions).expect("GPU masks");
    assert_eq!(words.len(), positions.len() * ACTION_MASK_WORDS);
    let mut mask = vec![false; ACTIONS];
    // Normal moves, castlings, en passant captures, underpromotions.
    let mut kinds = [0usize; 4];
    for (position, words) in positions.iter().zip(words.chunks(ACTION_MASK_WORDS)) {
        <Chess as EnvGame>::legal_action_mask(&ChessState::from_position(*position), &mut mask);
        let gpu: Vec<usize> = (0..ACTIONS).filter(|&action| words[action / 32] >> (action % 32) & 1 == 1).collect();
        let cpu: Vec<usize> = (0..ACTIONS).filter(|&action| mask[action]).collect();
        assert_eq!(gpu, cpu, "legal-action masks differ in {}", position.to_fen());
        for mv in position.legal_moves() {
            kinds[match mv.kind() {
                MoveKind::Castling => 1,
                MoveKind::EnPassant => 2,
                MoveKind::Promotion(Piece::Rook | Piece::Bishop | Piece::Knight) => 3,
                _ => 0,
            }] += 1;
        }
    }
    assert!(kinds.iter().all(|&count| count >= 100), "moves of each kind: {kinds:?}");
    // A batch cut into several dispatches gives the same words.
    let options = GeneratorOptions { max_positions_per_dispatch: 1_000, ..GeneratorOptions::default() };
    let mut small = MoveGenerator::with_options(&context, options).expect("generator");
    assert_eq!(small.legal_action_masks(&positions[..2_500]).expect("GPU masks"), words[..2_500 * ACTION_MASK_WORDS]);
    assert!(small.legal_action_masks(&[]).expect("an empty batch").is_empty());
}

#[test]
fn per_position_records_special_moves_and_counts() {
    let context = context();
    let mut generator = MoveGenerator::new(&context).unwrap();
    let positions = test_positions();
    let records = generator.per_position_raw(&positions).unwrap();
    for (position, record) in positions.iter().zip(&records) {
        let moves = position.legal_moves();
        assert_eq!(record.move_count as usize, moves.len(), "{}", position.to_fen());
        let en_passant_from: Bitboard =
            moves.iter().filter(|mv| mv.kind() == gpu_movegen::MoveKind::EnPassant).map(|mv| mv.from()).collect();
        assert_eq!(Bitboard(join(record.en_passant_from)), en_passant_from, "{}", position.to_fen());
        let castles = |side: CastlingSide| {
            moves.iter().any(|mv| mv.kind() == gpu_movegen::MoveKind::Castling && mv.castling_side() == side)
        };
        let expected = u32::from(castles(CastlingSide::King)) | u32::from(castles(CastlingSide::Queen)) << 1;
        assert_eq!(record.castling, expected, "{}", position.to_fen());
    }
}

#[test]
fn pseudo_legal_per_piece_kernel_matches_the_seed_semantics() {
    let context = context();
    let mut generator = MoveGenerator::new(&context).unwrap();
    let positions = test_positions();
    let entries = generator.per_piece_raw(&positions, PieceMode::PseudoLegal).unwrap();
    for (position, squares) in positions.iter().zip(entries.chunks_exact(64)) {
        for (index, entry) in squares.iter().enumerate() {
            let square = Square::from_index(index as u8);
            assert_eq!(entry.from_square as usize, index);
            let expected_piece = match position.piece_on(square) {
                None => 0,
                Some((color, piece)) => piece as u32 + 1 + if color == Color::Black { 8 } else { 0 },
            };
            assert_eq!(entry.piece, expected_piece, "{} {square}", position.to_fen());
            assert_eq!(
                Bitboard(join(entry.destinations)),
                pseudo_legal::seed_destinations(position, square),
                "{} {square}",
                position.to_fen()
            );
        }
    }
}

#[test]
fn batch_sizes_and_several_dispatches_give_identical_results() {
    let context = context();
    let positions = test_positions();
    let sample = &positions[..300];
    let mut whole = MoveGenerator::new(&context).unwrap();
    let mut split = MoveGenerator::with_options(
        &context,
        GeneratorOptions { max_positions_per_dispatch: 64, ..Default::default() },
    )
    .unwrap();
    assert_eq!(split.positions_per_dispatch(), 64);
    for kernel in [Kernel::PerPosition, Kernel::PerPiece] {
        let reference = whole.generate(sample, kernel).unwrap();
        for size in [1, 2, 63, 64, 65, 300] {
            assert_eq!(whole.generate(&sample[..size], kernel).unwrap(), reference[..size], "{kernel:?} {size}");
            // Batches past 64 need two to five dispatches here.
            let (moves, timings) = split.generate_timed(&sample[..size], kernel, true).unwrap();
            assert_eq!(moves, reference[..size], "{kernel:?} {size} split");
            assert_eq!(timings.dispatches, size.div_ceil(64));
        }
    }
    assert!(whole.generate(&[], Kernel::PerPosition).unwrap().is_empty());
}

#[test]
fn a_position_without_a_king_is_a_shader_fault_not_a_wrong_answer() {
    let context = context();
    let mut generator = MoveGenerator::new(&context).unwrap();
    let mut broken = PackedPosition::from(&Position::start());
    // Clear the white king (e1) from the piece-code planes.
    for plane in &mut broken.planes[..3] {
        plane[0] &= !(1 << Square::E1 as u32);
    }
    assert!(broken.piece_set(Piece::King).contains(Square::E8));
    let error = generator.per_position_raw_gpu(&[PackedPosition::from(&Position::start()), broken]).unwrap_err();
    assert!(matches!(error, GpuError::ShaderFault(ref text) if text.contains("no king")), "{error}");
    // The generator still works afterwards.
    let moves = generator.generate(&[Position::start()], Kernel::PerPosition).unwrap();
    assert_eq!(moves[0].move_count, 20);
}

/// A caller's own device whose storage bindings hold only 2 MiB: the
/// generator sizes its dispatches to the device's limits and splits larger
/// batches instead of failing.
#[test]
fn a_callers_device_with_small_binding_limits_gets_split_batches() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .expect("GPU tests need an adapter");
    let limits = wgpu::Limits { max_storage_buffer_binding_size: 2 << 20, ..adapter.limits() };
    let (device, queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .expect("device with lowered limits");
    let context = gpu_movegen::gpu::GpuContext::from_device(device, queue);
    let mut generator = MoveGenerator::new(&context).unwrap();
    // 2 MiB / 1 KiB of per-piece output per position.
    assert_eq!(generator.positions_per_dispatch(), 2048);
    let positions = &test_positions()[..5_000];
    for kernel in [Kernel::PerPosition, Kernel::PerPiece] {
        let (moves, timings) = generator.generate_timed(positions, kernel, false).unwrap();
        assert_eq!(timings.dispatches, 3);
        assert_same_moves(kernel, positions, &moves);
    }
}

/// The attack tables (about 0.9 MiB with the magic tables) must fit one storage binding; a device that
/// cannot bind them is refused with a message, not a validation panic.
#[test]
fn a_device_too_small_for_the_tables_is_a_clear_error() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        .expect("GPU tests need an adapter");
    let limits = wgpu::Limits { max_storage_buffer_binding_size: 64 * 1024, ..adapter.limits() };
    let (device, queue) = pollster::block_on(
        adapter.request_device(&wgpu::DeviceDescriptor { required_limits: limits, ..Default::default() }),
    )
    .expect("device with lowered limits");
    let context = gpu_movegen::gpu::GpuContext::from_device(device, queue);
    let error = MoveGenerator::new(&context).err().expect("too small a device is refused");
    assert!(matches!(error, GpuError::Limits(_)), "{error}");
    assert!(error.to_string().contains("max_storage_buffer_binding_size"), "{error}");
}
