//! Chess games stepped on the device (`chess::gpu::env::DeviceGames`)
//! against the CPU, step by step: seeded random games, every position and
//! every legal-action mask compared after every step, illegal actions mixed
//! in, games left out of a step, and the errors of a bad batch.

mod common;

use common::gpu::context;
use gpu_movegen::Position;
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::env::{ACTIONS, ChessState};
use gpu_movegen::chess::gpu::env::{DeviceGames, DeviceGamesError, MAX_GAMES, StepResult};
use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::chess::gpu::{ACTION_MASK_WORDS, MoveGenerator};
use gpu_movegen::env::{EnvError, EnvGame};
use rand::{Rng, SeedableRng};

/// The CPU environment's legal actions of `position`.
fn legal_actions(position: &Position) -> Vec<u32> {
    let mut mask = vec![false; ACTIONS];
    <Chess as EnvGame>::legal_action_mask(&ChessState::from_position(*position), &mut mask);
    (0..ACTIONS as u32).filter(|&action| mask[action as usize]).collect()
}

/// The actions whose bits are set in one game's mask words.
fn actions_of(words: &[u32]) -> Vec<u32> {
    (0..ACTIONS as u32).filter(|&action| words[action as usize / 32] >> (action % 32) & 1 == 1).collect()
}

/// 192 games, one a suite-like start each, played at random for up to 160
/// plies on both sides: one step in twenty takes an action outside the
/// mask, one in ten leaves a game out, and a game with no legal move is
/// left out for good. After every step each game's position and mask on
/// the device equal the CPU's.
#[test]
fn games_stepped_on_the_device_equal_the_cpu_at_every_step() {
    let context = context();
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x6e5_2026);
    let mut positions: Vec<Position> = vec![Position::start(); 160];
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
    ] {
        let position = Position::from_fen(fen).unwrap();
        positions.extend(std::iter::repeat_n(position, 4));
    }
    let mut games = DeviceGames::new(&context, &positions).expect("device games");
    assert_eq!(games.len(), positions.len());
    let (mut played, mut illegal, mut left_out) = (0usize, 0usize, 0usize);
    for ply in 0..160 {
        let mut actions = Vec::with_capacity(positions.len());
        let mut expected = Vec::with_capacity(positions.len());
        for position in &mut positions {
            let legal = legal_actions(position);
            if legal.is_empty() || random.random_range(0..10) == 0 {
                actions.push(None);
                expected.push(StepResult::NotStepped);
            } else if random.random_range(0..20) == 0 {
                let outside = loop {
                    let action = random.random_range(0..ACTIONS as u32);
                    if !legal.contains(&action) {
                        break action;
                    }
                };
                actions.push(Some(outside));
                expected.push(StepResult::Illegal);
            } else {
                let action = legal[random.random_range(0..legal.len())];
                let state = ChessState::from_position(*position);
                let mv = state.move_of(action as usize).expect("a legal action's move");
                position.play(mv);
                actions.push(Some(action));
                expected.push(StepResult::Played);
            }
        }
        let results = games.step(&actions).expect("a step");
        assert_eq!(results, expected, "ply {ply}");
        played += expected.iter().filter(|&&result| result == StepResult::Played).count();
        illegal += expected.iter().filter(|&&result| result == StepResult::Illegal).count();
        left_out += expected.iter().filter(|&&result| result == StepResult::NotStepped).count();

        let device_positions = games.positions().expect("positions");
        let masks = games.masks().expect("masks");
        for (game, position) in positions.iter().enumerate() {
            let mut expected_record = PackedPosition::from(position);
            // The kernels keep an en passant square only where a pawn could take there.
            if let Some(square) = position.en_passant() {
                let us = position.side_to_move();
                let takers = gpu_movegen::chess::tables::pawn_attacks(!us, square)
                    & position.pieces_of(us, gpu_movegen::Piece::Pawn);
                if takers.is_empty() {
                    expected_record.state = expected_record.state & !(0xff << 8) | 64 << 8;
                }
            }
            assert_eq!(device_positions[game], expected_record, "game {game} at ply {ply}: {}", position.to_fen());
            let words = &masks[game * ACTION_MASK_WORDS..(game + 1) * ACTION_MASK_WORDS];
            assert_eq!(actions_of(words), legal_actions(position), "game {game} at ply {ply}: {}", position.to_fen());
        }
    }
    assert!(played > 15_000 && illegal > 800 && left_out > 2_000, "{played} {illegal} {left_out}");
    // Some games ended (no legal move) and kept being left out.
    assert!(positions.iter().any(|position| position.legal_moves().is_empty()));
}

/// The masks of games on the device equal the batch kernel's, and bad
/// batches are clear errors.
#[test]
fn device_games_refuse_bad_batches_and_agree_with_the_batch_kernel() {
    let context = context();
    let positions: Vec<Position> =
        common::suite_positions().into_iter().filter(|position| !position.is_chess960()).take(100).collect();
    let games = DeviceGames::new(&context, &positions).expect("device games");
    let mut generator = MoveGenerator::new(&context).expect("generator");
    assert_eq!(games.masks().unwrap(), generator.legal_action_masks(&positions).unwrap());

    let mut games = games;
    let error = games.step(&[Some(0)]).unwrap_err();
    assert_eq!(error.to_string(), "1 actions for a batch of 100 games");
    let results = games.step(&vec![None; 100]).unwrap();
    assert!(results.iter().all(|&result| result == StepResult::NotStepped));
    // An action past the last is refused before any game changes, as the CPU environment refuses it.
    let mut actions = vec![Some(0); 100];
    actions[7] = Some(ACTIONS as u32 + 5);
    let error = games.step(&actions).unwrap_err();
    assert!(matches!(error, DeviceGamesError::Step(EnvError::ActionOutOfRange { game: 7, .. })), "{error}");
    assert_eq!(games.masks().unwrap(), generator.legal_action_masks(&positions).unwrap());

    for count in [0, MAX_GAMES + 1] {
        let error = DeviceGames::new(&context, &vec![Position::start(); count]).err().expect("refused");
        assert_eq!(error.to_string(), format!("device games hold 1 to 65536 games, not {count}"));
    }
    let chess960 = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    assert!(chess960.is_chess960());
    let error = DeviceGames::new(&context, &[Position::start(), chess960]).err().expect("refused");
    assert!(matches!(error, DeviceGamesError::Chess960(1)), "{error}");
}
