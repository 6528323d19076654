//! Chess games stepped on the device (`chess::gpu::env::DeviceGames`, and
//! the environment's GPU backend `DeviceEnv` on it), and Go's and Shogi's
//! GPU backends (`gpu::env::DeviceGameEnv`), against the CPU, step by
//! step: seeded random games, every position, legal-action mask and pgx
//! array compared after every step, illegal actions mixed in, auto-reset,
//! resets, games left out of a step, and the errors of a bad batch.

mod common;

use common::gpu::context;
use gpu_movegen::Position;
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::env::{ACTIONS, ChessState, MAX_STEPS};
use gpu_movegen::chess::gpu::env::{DeviceEnv, DeviceGames, DeviceGamesError, MAX_GAMES, StepResult};
use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::chess::gpu::{ACTION_MASK_WORDS, MoveGenerator};
use gpu_movegen::env::{Env, EnvError};
use gpu_movegen::game::Game;
use gpu_movegen::go::env::GoEnv;
use gpu_movegen::go::gpu::env::DeviceGoEnv;
use gpu_movegen::gpu::env::{DeviceGame, DeviceGameEnv};
use gpu_movegen::shogi::ShogiGame;
use gpu_movegen::shogi::env::{self as shogi_env, Repetition};
use gpu_movegen::shogi::gpu::env::DeviceShogiEnv;
use gpu_movegen::shogi::movegen::{Move as ShogiMove, in_check};
use rand::{Rng, SeedableRng};

/// The actions whose bits are set in one game's mask words.
fn actions_of(words: &[u32]) -> Vec<u32> {
    (0..ACTIONS as u32).filter(|&action| words[action as usize / 32] >> (action % 32) & 1 == 1).collect()
}

/// Each game's record as the kernels keep it: the en passant square only
/// where a pawn of the side to move could take there.
fn device_record(position: &Position) -> PackedPosition {
    let mut record = PackedPosition::from(position);
    if let Some(square) = position.en_passant() {
        let us = position.side_to_move();
        let takers =
            gpu_movegen::chess::tables::pawn_attacks(!us, square) & position.pieces_of(us, gpu_movegen::Piece::Pawn);
        if takers.is_empty() {
            record.state = record.state & !(0xff << 8) | 64 << 8;
        }
    }
    record
}

/// How a game on the CPU ended, for the test's coverage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ending {
    Checkmate,
    Stalemate,
    FiftyMoves,
    StepLimit,
    /// Threefold repetition or insufficient material.
    OtherDraw,
    IllegalAction,
}

/// Games stepped on the device and in the CPU environment side by side,
/// every game to its end: random games from the start, from two sparse
/// endings (where the fifty-move rule, insufficient material and mates
/// come sooner), one that repeats the start three times by knight moves,
/// and an action outside the mask now and then. After every step each
/// game's result, end, rewards (by the CPU's players' colours), steps, and
/// for a game not over its position and mask, equal the CPU's.
#[test]
fn games_stepped_on_the_device_equal_the_cpu_environment_at_every_step() {
    let context = context();
    let mut starts = vec![Position::start(); 64];
    starts.extend(std::iter::repeat_n(Position::from_fen("4k3/8/8/3n4/8/8/8/R3K3 w Q - 0 1").unwrap(), 24));
    starts.extend(std::iter::repeat_n(Position::from_fen("7k/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap(), 24));
    let batch = starts.len();
    let mut env = Env::<Chess>::new(batch, 7);
    for (game, position) in starts.iter().enumerate() {
        env.set_state(game, ChessState::from_position(*position));
    }
    let mut games = DeviceGames::new(&context, &starts).expect("device games");
    // Game 0 repeats the start by knight moves, twice: a third time at step 8.
    let mut scratch = Position::start();
    let script: Vec<u32> = ["g1f3", "g8f6", "f3g1", "f6g8"]
        .iter()
        .map(|uci| {
            let mv = scratch.legal_moves().into_iter().find(|mv| mv.to_string() == *uci).expect("a legal knight move");
            let action = gpu_movegen::chess::env::action_of(mv, scratch.side_to_move()) as u32;
            scratch.play(mv);
            action
        })
        .collect();
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x6e5_2026);
    let mut endings = std::collections::HashMap::<Ending, usize>::new();
    let mut ended = vec![false; batch];
    for step in 0..=MAX_STEPS as usize {
        if ended.iter().all(|&over| over) {
            break;
        }
        let mut actions = Vec::with_capacity(batch);
        let mut expected = Vec::with_capacity(batch);
        for (game, &over) in ended.iter().enumerate() {
            let legal = env.legal_actions(game);
            let (action, result) = if over {
                (0, StepResult::Over)
            } else if game == 0 && step < 8 {
                (script[step % 4], StepResult::Played)
            } else if random.random_range(0..600) == 0 {
                let outside = loop {
                    let action = random.random_range(0..ACTIONS as u32);
                    if !legal.contains(&action) {
                        break action;
                    }
                };
                (outside, StepResult::Illegal)
            } else {
                (legal[random.random_range(0..legal.len())], StepResult::Played)
            };
            actions.push(action);
            expected.push(result);
        }
        env.step(&actions).expect("a CPU step");
        let results = games.step(&actions.iter().map(|&action| Some(action)).collect::<Vec<_>>()).expect("a step");
        assert_eq!(results, expected, "step {step}");
        let outcomes = games.outcomes().expect("outcomes");
        let records = games.positions().expect("positions");
        let masks = games.masks().expect("masks");
        for game in 0..batch {
            let state = env.state(game);
            let position = state.position();
            let players = env.players(game);
            let outcome = outcomes[game];
            let context = format!("game {game} at step {step}: {}", position.to_fen());
            assert_eq!(outcome.over, env.terminated()[game], "{context}");
            for (reward, player) in outcome.rewards.iter().zip(players) {
                assert_eq!(*reward, env.rewards()[2 * game + usize::from(player)], "{context}");
            }
            assert_eq!(outcome.steps, state.steps(), "{context}");
            assert_eq!(records[game], device_record(position), "{context}");
            if !outcome.over {
                let words = &masks[game * ACTION_MASK_WORDS..(game + 1) * ACTION_MASK_WORDS];
                assert_eq!(actions_of(words), env.legal_actions(game), "{context}");
            } else if !ended[game] {
                ended[game] = true;
                let no_moves = position.legal_moves().is_empty();
                let ending = if results[game] == StepResult::Illegal {
                    Ending::IllegalAction
                } else if no_moves && position.in_check() {
                    Ending::Checkmate
                } else if no_moves {
                    Ending::Stalemate
                } else if position.halfmove_clock() >= 100 {
                    Ending::FiftyMoves
                } else if state.steps() >= MAX_STEPS {
                    Ending::StepLimit
                } else {
                    Ending::OtherDraw
                };
                *endings.entry(ending).or_default() += 1;
            }
        }
        if step == 7 {
            assert!(outcomes[0].over, "the start arose a third time");
        }
    }
    assert!(ended.iter().all(|&over| over), "every game ends by the step limit");
    for ending in [
        Ending::Checkmate,
        Ending::Stalemate,
        Ending::FiftyMoves,
        Ending::StepLimit,
        Ending::OtherDraw,
        Ending::IllegalAction,
    ] {
        assert!(endings.get(&ending).is_some_and(|&count| count > 0), "no {ending:?} among {endings:?}");
    }
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
        assert_eq!(error.to_string(), format!("device games hold 1 to 32768 games, not {count}"));
    }
    let chess960 = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    assert!(chess960.is_chess960());
    let error = DeviceGames::new(&context, &[Position::start(), chess960]).err().expect("refused");
    assert!(matches!(error, DeviceGamesError::Chess960(1)), "{error}");
}

/// Every pgx array of the two backends, equal.
fn assert_same_arrays(device: &DeviceEnv, cpu: &Env<Chess>, context: &str) {
    let batch = cpu.batch_size();
    for game in 0..batch {
        assert_eq!(device.players(game), cpu.players(game), "{context}: game {game}'s players");
    }
    assert_eq!(device.arrays().current_player(), cpu.current_player(), "{context}: current_player");
    assert_eq!(device.arrays().rewards(), cpu.rewards(), "{context}: rewards");
    assert_eq!(device.arrays().terminated(), cpu.terminated(), "{context}: terminated");
    assert_eq!(device.arrays().truncated(), cpu.truncated(), "{context}: truncated");
    assert_eq!(device.arrays().step_count(), cpu.step_count(), "{context}: step_count");
    let width = ACTIONS;
    for game in 0..batch {
        let fen = cpu.state(game).position().to_fen();
        assert!(
            device.arrays().legal_action_mask()[game * width..(game + 1) * width]
                == cpu.legal_action_mask()[game * width..(game + 1) * width],
            "{context}: game {game}'s mask ({fen})"
        );
        let size = cpu.observation().len() / batch;
        let (ours, theirs) = (
            &device.arrays().observation()[game * size..(game + 1) * size],
            &cpu.observation()[game * size..(game + 1) * size],
        );
        if let Some(index) = (0..size).find(|&index| ours[index].to_bits() != theirs[index].to_bits()) {
            panic!(
                "{context}: game {game}'s observation differs at square {} plane {}: {} against the CPU's {} ({fen})",
                index / 119,
                index % 119,
                ours[index],
                theirs[index]
            );
        }
    }
}

/// One random action a game: legal mostly, outside the mask now and then
/// (an over game's mask is all true, so any action).
fn random_actions(env: &Env<Chess>, random: &mut rand_chacha::ChaCha8Rng, illegal_one_in: u32) -> Vec<u32> {
    (0..env.batch_size())
        .map(|game| {
            let legal = env.legal_actions(game);
            if random.random_range(0..illegal_one_in) == 0 {
                loop {
                    let action = random.random_range(0..ACTIONS as u32);
                    if legal.len() == ACTIONS || !legal.contains(&action) {
                        break action;
                    }
                }
            } else {
                legal[random.random_range(0..legal.len())]
            }
        })
        .collect()
}

/// The GPU backend against the CPU backend, every array at every step:
/// games from the start and from sparse endings (mates, the fifty-move
/// rule, insufficient material come sooner) played to their ends, with
/// actions outside the mask; then, with auto-reset, games replaced as they
/// end for longer than a game lasts; then a reset with a new seed.
#[test]
fn the_gpu_backend_equals_the_cpu_environment_array_for_array() {
    let context = context();
    let mut starts = vec![Position::start(); 24];
    starts.extend(std::iter::repeat_n(Position::from_fen("4k3/8/8/3n4/8/8/8/R3K3 w Q - 0 1").unwrap(), 12));
    starts.extend(std::iter::repeat_n(Position::from_fen("7k/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap(), 12));
    // A black move with an en passant square no pawn can use, and one it can.
    starts.push(Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap());
    starts.push(Position::from_fen("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1").unwrap());
    let batch = starts.len();
    let seed = 11;
    let mut cpu = Env::<Chess>::new(batch, seed);
    for (game, position) in starts.iter().enumerate() {
        cpu.set_state(game, ChessState::from_position(*position));
    }
    let mut device = DeviceEnv::with_positions(&context, &starts, seed).expect("device environment");
    assert_same_arrays(&device, &cpu, "at the start");
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x54_2026);
    let mut step = 0;
    while !cpu.terminated().iter().all(|&over| over) {
        let actions = random_actions(&cpu, &mut random, 400);
        cpu.step(&actions).expect("a CPU step");
        device.step(&actions).expect("a device step");
        assert_same_arrays(&device, &cpu, &format!("step {step}"));
        step += 1;
        assert!(step <= MAX_STEPS as usize + 1, "every game ends by the step limit");
    }

    // Auto-reset: a game that ends is replaced at once, its colours drawn anew.
    cpu.reset(23);
    device.reset(23).expect("a device reset");
    assert_same_arrays(&device, &cpu, "after the reset");
    cpu.set_auto_reset(true);
    device.set_auto_reset(true);
    let mut replaced = 0;
    for step in 0..MAX_STEPS as usize + 40 {
        let actions = random_actions(&cpu, &mut random, 150);
        cpu.step(&actions).expect("a CPU step");
        device.step(&actions).expect("a device step");
        assert_same_arrays(&device, &cpu, &format!("auto-reset step {step}"));
        replaced += cpu.terminated().iter().filter(|&&over| over).count();
    }
    assert!(replaced > batch, "games were replaced: {replaced}");
    assert!(cpu.step_count().iter().any(|&steps| steps > 8), "games went on past their replacement");

    // A bad batch is refused before any game changes.
    let error = device.step(&[0u32]).unwrap_err();
    assert!(matches!(error, DeviceGamesError::Step(EnvError::BatchSize { .. })), "{error}");
    let mut actions = vec![0i64; batch];
    actions[3] = -1;
    let error = device.step(&actions).unwrap_err();
    assert_eq!(error.to_string(), "game 3: action -1 is outside 0..4672");
    assert_same_arrays(&device, &cpu, "after refused steps");
}

/// Snapshots on the GPU backend against the CPU's: games saved at chosen
/// steps (some over, some with repetitions behind them) and put back in
/// other games of the batch, with and without auto-reset, every array equal
/// after every restore and every step that follows.
#[test]
fn gpu_snapshots_come_back_as_the_cpu_s_do() {
    let context = context();
    let batch = 24;
    let mut cpu = Env::<Chess>::new(batch, 3);
    let mut device = DeviceEnv::new(&context, batch, 3).expect("device environment");
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x5a_2026);
    let mut saved_cpu = Vec::new();
    let mut saved_device = Vec::new();
    for round in 0..6 {
        let auto_reset = round % 2 == 1;
        cpu.set_auto_reset(auto_reset);
        device.set_auto_reset(auto_reset);
        for step in 0..70 {
            let actions = random_actions(&cpu, &mut random, 300);
            cpu.step(&actions).expect("a CPU step");
            device.step(&actions).expect("a device step");
            assert_same_arrays(&device, &cpu, &format!("round {round}, step {step}"));
            if step % 23 == 5 {
                let chosen: Vec<usize> = (0..batch).filter(|_| random.random_range(0..3) == 0).collect();
                saved_cpu.extend(chosen.iter().map(|&game| cpu.snapshot(game)));
                saved_device.extend(device.snapshots(&chosen).expect("snapshots"));
                assert_eq!(saved_cpu.len(), saved_device.len());
            }
        }
        // Saved games back in random games of the batch, the rest left as they are.
        let picks: Vec<Option<usize>> = (0..batch)
            .map(|_| (random.random_range(0..2) == 0).then(|| random.random_range(0..saved_cpu.len())))
            .collect();
        let cpu_picks: Vec<_> = picks.iter().map(|pick| pick.map(|index| &saved_cpu[index])).collect();
        let device_picks: Vec<_> = picks.iter().map(|pick| pick.map(|index| &saved_device[index])).collect();
        cpu.restore(&cpu_picks).expect("a CPU restore");
        device.restore(&device_picks).expect("a device restore");
        assert_same_arrays(&device, &cpu, &format!("round {round}, restored"));
        // Saved again, a restored game is its snapshot, repetition keys and all.
        let restored: Vec<usize> = (0..batch).filter(|&game| picks[game].is_some()).collect();
        for (game, again) in restored.iter().zip(device.snapshots(&restored).expect("snapshots")) {
            assert!(again == saved_device[picks[*game].unwrap()], "round {round}: game {game} saved again differs");
        }
    }
    assert!(saved_cpu.iter().any(|snapshot| snapshot.state().steps() > 100), "games saved deep");
    let error = device.restore(&[None]).unwrap_err();
    assert!(matches!(error, DeviceGamesError::Step(EnvError::BatchSize { .. })), "{error}");
}

/// Every pgx array and the players of a Go or Shogi GPU backend, equal to
/// the CPU environment's, each named where one differs.
fn assert_device_equals_cpu<G: DeviceGame>(device: &DeviceGameEnv<G>, cpu: &Env<G::Env>, context: &str) {
    for game in 0..cpu.batch_size() {
        assert_eq!(device.players(game), cpu.players(game), "{context}: game {game}'s players");
    }
    assert_eq!(device.arrays().current_player(), cpu.current_player(), "{context}: current_player");
    assert_eq!(device.arrays().rewards(), cpu.rewards(), "{context}: rewards");
    assert_eq!(device.arrays().terminated(), cpu.terminated(), "{context}: terminated");
    assert_eq!(device.arrays().truncated(), cpu.truncated(), "{context}: truncated");
    assert_eq!(device.arrays().step_count(), cpu.step_count(), "{context}: step_count");
    assert!(device.arrays().legal_action_mask() == cpu.legal_action_mask(), "{context}: legal_action_mask");
    assert!(device.arrays().observation() == cpu.observation(), "{context}: observation");
}

/// Go on the device against the CPU environment, every array at every
/// step: random games with passes now and then (so that two passes end
/// some) and an action outside the mask now and then, with auto-reset, on
/// 9×9 long enough for positional superko to end games too, and on 19×19.
fn go_backend_equals_the_cpu<const SIZE: usize>(batch: usize, steps: usize) -> (usize, usize) {
    let context = context();
    let mut cpu = Env::<GoEnv<SIZE>>::new(batch, 13);
    let mut device = DeviceGoEnv::<SIZE>::new(&context, batch, 13).expect("device Go games");
    assert_device_equals_cpu(&device, &cpu, "at the start");
    cpu.set_auto_reset(true);
    device.set_auto_reset(true);
    let pass = (SIZE * SIZE) as u32;
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x60_2026 + SIZE as u64);
    let (mut superko, mut ended) = (0, 0);
    for step in 0..steps {
        let actions: Vec<u32> = (0..batch)
            .map(|game| {
                let legal = cpu.legal_actions(game);
                match random.random_range(0..100) {
                    0..4 => pass,
                    4 => random.random_range(0..pass + 1),
                    _ => legal[random.random_range(0..legal.len())],
                }
            })
            .collect();
        let before: Vec<i32> = cpu.step_count().to_vec();
        let in_mask: Vec<bool> = (0..batch)
            .map(|game| cpu.legal_action_mask()[game * (pass as usize + 1) + actions[game] as usize])
            .collect();
        cpu.step(&actions).expect("a CPU step");
        device.step(&actions).expect("a device step");
        assert_device_equals_cpu(&device, &cpu, &format!("{SIZE}x{SIZE} step {step}"));
        for game in (0..batch).filter(|&game| cpu.terminated()[game]) {
            ended += 1;
            // A legal stone that ends a game before the step limit recreated an earlier board.
            let before_the_limit = before[game] + 1 < (2 * SIZE * SIZE) as i32;
            if actions[game] != pass && in_mask[game] && before_the_limit {
                superko += 1;
            }
        }
    }
    (ended, superko)
}

#[test]
fn go_on_the_device_equals_the_cpu_environment_array_for_array() {
    let (ended, superko) = go_backend_equals_the_cpu::<9>(128, 700);
    assert!(ended > 128, "games ended and were replaced: {ended}");
    assert!(superko > 0, "no game ended by positional superko among {ended}");
    let (ended, _) = go_backend_equals_the_cpu::<19>(16, 200);
    assert!(ended > 0, "19x19 games ended: {ended}");
}

/// The chess environment's self-test passes in the build of every adapter
/// class: the GPU backend runs the build perft chooses for the adapter
/// (magic lookups on u32 pairs on NVIDIA), not only the one this driver gets.
#[test]
fn the_chess_environment_passes_its_check_in_every_adapter_default_build() {
    use gpu_movegen::chess::gpu::{ADAPTER_DEFAULTS, KernelFamily};
    let context = context();
    let mut builds: Vec<_> = ADAPTER_DEFAULTS
        .iter()
        .map(|default| default.build_for(KernelFamily::Chess, context.device.features()))
        .collect();
    builds.dedup();
    let checks: Vec<_> = builds.iter().map(|&build| gpu_movegen::chess::gpu::env::environment_check(build)).collect();
    // Run again, not read from the verdict cache.
    let verdicts = context.retest(&checks);
    assert!(verdicts.iter().all(|verdict| verdict.outcome.is_ok()), "{verdicts:?}");
    assert!(builds.len() >= 2, "{builds:?}");
}

/// Snapshots on the GPU against the CPU's: games saved at chosen steps
/// (some over) and put back in other games, with and without auto-reset,
/// every array equal after each restore and each step after it; each game
/// restored, saved again, is its snapshot (the history kept on the device
/// included, which the arrays alone do not show). `choose` gives each
/// step's actions.
fn snapshots_come_back_as_the_cpu_s_do<G: DeviceGame>(
    mut cpu: Env<G::Env>,
    mut device: DeviceGameEnv<G>,
    random: &mut rand_chacha::ChaCha8Rng,
    mut choose: impl FnMut(&Env<G::Env>, &mut rand_chacha::ChaCha8Rng) -> Vec<u32>,
) {
    let batch = cpu.batch_size();
    let (mut saved_cpu, mut saved_device, mut saved_over) = (Vec::new(), Vec::new(), 0);
    for round in 0..6 {
        let auto_reset = round % 2 == 1;
        cpu.set_auto_reset(auto_reset);
        device.set_auto_reset(auto_reset);
        for step in 0..60 {
            let actions = choose(&cpu, random);
            cpu.step(&actions).expect("a CPU step");
            device.step(&actions).expect("a device step");
            assert_device_equals_cpu(&device, &cpu, &format!("{} round {round}, step {step}", G::NAME));
            if step % 19 == 4 {
                let chosen: Vec<usize> = (0..batch).filter(|_| random.random_range(0..3) == 0).collect();
                saved_cpu.extend(chosen.iter().map(|&game| cpu.snapshot(game)));
                saved_device.extend(device.snapshots(&chosen).expect("snapshots"));
                saved_over += chosen.iter().filter(|&&game| cpu.terminated()[game]).count();
            }
        }
        let picks: Vec<Option<usize>> = (0..batch)
            .map(|_| (random.random_range(0..2) == 0).then(|| random.random_range(0..saved_cpu.len())))
            .collect();
        let cpu_picks: Vec<_> = picks.iter().map(|pick| pick.map(|index| &saved_cpu[index])).collect();
        let device_picks: Vec<_> = picks.iter().map(|pick| pick.map(|index| &saved_device[index])).collect();
        cpu.restore(&cpu_picks).expect("a CPU restore");
        device.restore(&device_picks).expect("a device restore");
        let context = format!("{} round {round}, restored", G::NAME);
        // Saved again, a restored game is its snapshot, history and all.
        let restored: Vec<usize> = (0..batch).filter(|&game| picks[game].is_some()).collect();
        for (game, again) in restored.iter().zip(device.snapshots(&restored).expect("snapshots")) {
            assert!(again == saved_device[picks[*game].unwrap()], "{context}: game {game} saved again differs");
        }
        assert_device_equals_cpu(&device, &cpu, &context);
    }
    assert!(saved_over > 0, "no {} game was saved over", G::NAME);
}

#[test]
fn gpu_go_snapshots_come_back_as_the_cpu_s_do() {
    let context = context();
    let batch = 24;
    let cpu = Env::<GoEnv<9>>::new(batch, 8);
    let device = DeviceGoEnv::<9>::new(&context, batch, 8).expect("device Go games");
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x5b_2026);
    let pass = 81u32;
    snapshots_come_back_as_the_cpu_s_do(cpu, device, &mut random, |cpu, random| {
        (0..batch)
            .map(|game| {
                let legal = cpu.legal_actions(game);
                if random.random_range(0..12) == 0 { pass } else { legal[random.random_range(0..legal.len())] }
            })
            .collect()
    });
}

#[test]
fn gpu_shogi_snapshots_come_back_as_the_cpu_s_do() {
    let context = context();
    let batch = 24;
    let cpu = Env::<ShogiGame>::new(batch, 9);
    let device = DeviceShogiEnv::new(&context, batch, 9).expect("device Shogi games");
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x5c_2026);
    let mut last = vec![[None; 2]; batch];
    snapshots_come_back_as_the_cpu_s_do(cpu, device, &mut random, |cpu, random| {
        // A game restored or replaced starts its take-backs afresh.
        for (game, moves) in last.iter_mut().enumerate() {
            if cpu.step_count()[game] < 2 {
                *moves = [None; 2];
            }
        }
        shogi_actions(cpu, &mut last, random)
    });
}

/// An action for each Shogi game, chosen so that positions repeat and
/// some games end by sennichite and by perpetual check: a move that takes
/// back the mover's own last move and gives check is played, else some
/// move that checks half the time, else the take-back most of the time,
/// else a random legal action; now and then an action outside the mask.
/// `last` holds each game's last move by each colour.
fn shogi_actions(
    cpu: &Env<ShogiGame>,
    last: &mut [[Option<ShogiMove>; 2]],
    random: &mut rand_chacha::ChaCha8Rng,
) -> Vec<u32> {
    (0..cpu.batch_size())
        .map(|game| {
            let state = cpu.state(game);
            let position = state.position();
            let us = position.side_to_move();
            let checks = |mv: ShogiMove| in_check(&<ShogiGame as Game>::play(position, mv), !us);
            let take_back = last[game][us.index()].and_then(|mv| {
                let (from, (_, piece)) = (mv.from?, position.piece_on(mv.to)?);
                let back = ShogiMove { from: Some(mv.to), to: from, piece, promote: false };
                let action = shogi_env::action_of(back, us);
                (state.move_of(action) == Some(back)).then_some((action as u32, checks(back)))
            });
            let legal = cpu.legal_actions(game);
            let roll = random.random_range(0..100);
            let checking = || -> Vec<u32> {
                legal.iter().copied().filter(|&action| state.move_of(action as usize).is_some_and(checks)).collect()
            };
            let action = match (roll, take_back) {
                (0, _) => random.random_range(0..shogi_env::ACTIONS as u32),
                (_, Some((action, true))) => action,
                (1..50, _) => {
                    let checking = checking();
                    if checking.is_empty() {
                        legal[random.random_range(0..legal.len())]
                    } else {
                        checking[random.random_range(0..checking.len())]
                    }
                }
                (50..90, Some((action, _))) => action,
                _ => legal[random.random_range(0..legal.len())],
            };
            last[game][us.index()] = state.move_of(action as usize);
            action
        })
        .collect()
}

/// Shogi on the device against the CPU environment, every array at every
/// step, in rounds with auto-reset off (where the games' ends are counted
/// by kind: checkmate, sennichite, perpetual check) and on.
#[test]
fn shogi_on_the_device_equals_the_cpu_environment_array_for_array() {
    let context = context();
    let batch = 64;
    let mut cpu = Env::<ShogiGame>::new(batch, 21);
    let mut device = DeviceShogiEnv::new(&context, batch, 21).expect("device Shogi games");
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0x54_2026);
    let (mut repetitions, mut perpetual_checks, mut ended) = (0, 0, 0);
    for round in 0..6u64 {
        let auto_reset = round % 3 == 2;
        cpu.reset(round);
        device.reset(round).expect("a device reset");
        cpu.set_auto_reset(auto_reset);
        device.set_auto_reset(auto_reset);
        let mut last = vec![[None; 2]; batch];
        for step in 0..150 {
            let actions = shogi_actions(&cpu, &mut last, &mut random);
            cpu.step(&actions).expect("a CPU step");
            device.step(&actions).expect("a device step");
            assert_device_equals_cpu(&device, &cpu, &format!("round {round}, step {step}"));
            for (game, moves) in last.iter_mut().enumerate() {
                if cpu.step_count()[game] == 0 {
                    *moves = [None; 2];
                }
            }
        }
        if !auto_reset {
            for game in (0..batch).filter(|&game| cpu.terminated()[game]) {
                ended += 1;
                match cpu.state(game).repetition() {
                    Some(Repetition::Draw) => repetitions += 1,
                    Some(Repetition::PerpetualCheck(_)) => perpetual_checks += 1,
                    None => {}
                }
            }
        }
    }
    eprintln!("{ended} games ended: {repetitions} by sennichite, {perpetual_checks} by perpetual check");
    assert!(repetitions > 0, "no game ended by sennichite among {ended}");
    assert!(perpetual_checks > 0, "no game ended by perpetual check among {ended}");
}
