//! The batched environments' rules and refusals, on the CPU backend: each
//! way a chess game ends, with pgx's rewards; illegal and out-of-range
//! actions; seeded resets and auto-reset. python/tests/test_env_pgx.py plays
//! the same environments against pgx itself.

use gpu_movegen::Position;
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::board::Color;
use gpu_movegen::chess::env::{ACTIONS, ChessState, action_of};
use gpu_movegen::env::{Env, EnvError, EnvGame};

/// pgx's action of the UCI move `uci` in game `game` of `env`.
fn action(env: &Env<Chess>, game: usize, uci: &str) -> u32 {
    let position = env.state(game).position();
    let mv = position.parse_uci_move(uci).unwrap_or_else(|error| panic!("{uci}: {error}"));
    let action = action_of(mv, position.side_to_move()) as u32;
    assert!(env.legal_actions(game).contains(&action), "{uci} is not in the mask");
    action
}

/// Plays `moves` (UCI) in a one-game batch.
fn play(env: &mut Env<Chess>, moves: &[&str]) {
    for uci in moves {
        let chosen = action(env, 0, uci);
        env.step(&[chosen]).unwrap();
    }
}

/// Rewards of game 0 by colour (the first mover's, then the other's: white
/// and black in chess, Black and White in Shogi).
fn rewards_by_colour<G: EnvGame>(env: &Env<G>) -> [f32; 2] {
    let players = env.players(0);
    [env.rewards()[usize::from(players[0])], env.rewards()[usize::from(players[1])]]
}

#[test]
fn fools_mate_ends_the_game_with_black_winning() {
    let mut env = Env::<Chess>::new(1, 3);
    play(&mut env, &["f2f3", "e7e5", "g2g4"]);
    assert!(!env.terminated()[0]);
    play(&mut env, &["d8h4"]);
    assert!(env.terminated()[0]);
    assert_eq!(rewards_by_colour(&env), [-1.0, 1.0]);
    // Over: every action is allowed, none changes the game, and rewards read zero.
    assert!(env.legal_action_mask().iter().all(|&legal| legal));
    let observation = env.observation().to_vec();
    env.step(&[0u32]).unwrap();
    assert_eq!(env.rewards(), [0.0, 0.0]);
    assert!(env.terminated()[0]);
    assert_eq!(env.observation(), observation.as_slice());
    assert_eq!(env.step_count()[0], 4);
}

#[test]
fn a_threefold_repetition_is_a_draw() {
    let mut env = Env::<Chess>::new(1, 0);
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    play(&mut env, &shuffle);
    assert!(!env.terminated()[0], "the start seen twice");
    play(&mut env, &shuffle[..3]);
    assert!(!env.terminated()[0]);
    play(&mut env, &shuffle[3..]);
    assert!(env.terminated()[0], "the start seen three times");
    assert_eq!(env.rewards(), [0.0, 0.0]);
}

#[test]
fn a_double_push_makes_a_position_of_its_own_as_pgx_counts_repetitions() {
    // After 1. e4 black is to move with e3 just passed; after the knights'
    // first and second round trips the same board is back, black to move,
    // with nothing passed. FIDE's rule (no en passant capture, so the same
    // position) would call the third a threefold repetition; pgx's does not.
    let mut env = Env::<Chess>::new(1, 0);
    let shuffle = ["g8f6", "g1f3", "f6g8", "f3g1"];
    play(&mut env, &["e2e4"]);
    play(&mut env, &shuffle);
    play(&mut env, &shuffle);
    assert!(!env.terminated()[0]);
    // White to move with the knight on f6: seen after moves 2 and 6, now the third time.
    play(&mut env, &shuffle[..1]);
    assert!(env.terminated()[0]);
}

/// A one-game batch from `fen`.
fn from_fen(fen: &str) -> Env<Chess> {
    let mut env = Env::<Chess>::new(1, 0);
    env.set_state(0, ChessState::from_position(Position::from_fen(fen).unwrap()));
    env
}

#[test]
fn stalemate_the_fifty_move_rule_and_bare_material_are_draws() {
    for (fen, uci) in [
        // Qf7 leaves the black king no move and no check.
        ("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "f1f7"),
        // The hundredth halfmove without a capture or a pawn move.
        ("8/8/8/4k3/8/8/8/R3K3 w - - 99 80", "a1a2"),
        // King takes the last rook: bare kings.
        ("8/8/8/4k3/8/8/3r4/4K3 w - - 0 1", "e1d2"),
        // A knight takes a pawn: king and knight against king.
        ("8/8/8/4k3/8/8/3p4/1N2K3 w - - 0 1", "b1d2"),
        // Bishops left only on dark squares.
        ("8/8/8/4k3/3b4/8/3p4/2B1K3 w - - 0 1", "e1d2"),
    ] {
        let mut env = from_fen(fen);
        assert!(!env.terminated()[0], "{fen}");
        play(&mut env, &[uci]);
        assert!(env.terminated()[0], "{fen} {uci}");
        assert_eq!(env.rewards(), [0.0, 0.0], "{fen} {uci}");
    }
    // Bishops on both colours can still mate: the game goes on.
    let mut env = from_fen("8/8/8/4kb2/8/8/5p2/2B1K3 w - - 0 1");
    play(&mut env, &["e1f2"]);
    assert!(!env.terminated()[0]);
}

#[test]
fn an_illegal_action_loses_and_leaves_the_board() {
    let mut env = Env::<Chess>::new(2, 11);
    let before = env.state(0).clone();
    let mover = env.current_player()[0];
    let legal = env.legal_actions(1)[0];
    // 0 is a1 moving down: never legal at the start.
    env.step(&[0u32, legal]).unwrap();
    assert!(env.terminated()[0]);
    assert_eq!(env.rewards()[mover as usize], -1.0);
    assert_eq!(env.rewards()[1 - mover as usize], 1.0);
    assert_eq!(env.current_player()[0], 1 - mover, "the turn passes, as in pgx");
    assert_eq!(env.state(0).position(), before.position());
    assert!(!env.terminated()[1]);
}

#[test]
fn bad_batches_are_refused_before_any_game_changes() {
    let mut env = Env::<Chess>::new(2, 5);
    let before: Vec<_> = (0..2).map(|game| env.state(game).clone()).collect();
    let legal = env.legal_actions(0)[0];
    assert_eq!(env.step(&[legal]), Err(EnvError::BatchSize { expected: 2, got: 1 }));
    assert_eq!(
        env.step(&[i64::from(legal), ACTIONS as i64]),
        Err(EnvError::ActionOutOfRange { game: 1, action: ACTIONS as i64, actions: ACTIONS })
    );
    assert_eq!(env.step(&[-1i64, i64::from(legal)]).unwrap_err().to_string(), "game 0: action -1 is outside 0..4672");
    for (game, state) in before.iter().enumerate() {
        assert_eq!(env.state(game), state);
    }
    assert_eq!(env.step_count(), [0, 0]);
}

#[test]
fn the_same_seed_draws_the_same_players_and_another_seed_others() {
    let players = |seed| {
        let env = Env::<Chess>::new(64, seed);
        (0..64).map(|game| env.players(game)).collect::<Vec<_>>()
    };
    assert_eq!(players(9), players(9));
    assert_ne!(players(9), players(10));
    let drawn = players(9);
    assert!(drawn.iter().any(|pair| pair[0] == 0) && drawn.iter().any(|pair| pair[0] == 1));
    let env = Env::<Chess>::new(64, 9);
    for game in 0..64 {
        // White moves first, so the player to move is white's.
        assert_eq!(env.current_player()[game], i32::from(env.players(game)[Color::White.index()]));
    }
}

#[test]
fn auto_reset_starts_a_new_game_and_reports_the_old_one_s_end() {
    let mut env = Env::<Chess>::new(1, 3);
    env.set_auto_reset(true);
    play(&mut env, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert!(env.terminated()[0]);
    assert_eq!(rewards_by_colour(&env).iter().map(|reward| reward.abs()).sum::<f32>(), 2.0);
    assert_eq!(env.step_count()[0], 0, "already the new game");
    assert_eq!(env.legal_actions(0).len(), 20);
    play(&mut env, &["e2e4"]);
    assert!(!env.terminated()[0]);
    assert_eq!(env.rewards(), [0.0, 0.0]);
    assert_eq!(env.step_count()[0], 1);
}

#[test]
fn a_game_over_before_auto_reset_is_turned_on_stays_over() {
    let mut env = Env::<Chess>::new(1, 3);
    play(&mut env, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let over = env.snapshot(0);
    env.set_auto_reset(true);
    // Not played on its mated board (its mask is all true), not replaced.
    env.step(&[0u32]).unwrap();
    assert!(env.terminated()[0]);
    assert_eq!(env.rewards(), [0.0, 0.0]);
    assert_eq!(env.step_count()[0], 4);
    assert_eq!(env.state(0).position(), over.state().position());
    // Restored with auto-reset on, it is still over, its mask all true.
    env.reset(5);
    env.restore(&[Some(&over)]).unwrap();
    assert!(env.legal_action_mask().iter().all(|&legal| legal));
    env.step(&[0u32]).unwrap();
    assert!(env.terminated()[0] && env.step_count()[0] == 4);
}

// Go, as pgx's go_9x9 and go_19x19.

use gpu_movegen::go::env::GoEnv;

/// pgx's action for the point at `column`, `row` of a 9x9 board.
fn go_point(column: usize, row: usize) -> u32 {
    (row * 9 + column) as u32
}

const PASS: u32 = 81;

#[test]
fn go_starts_with_every_point_and_the_pass_legal() {
    let env = Env::<GoEnv<9>>::new(2, 0);
    assert_eq!(env.legal_action_mask().len(), 2 * 82);
    assert!(env.legal_action_mask().iter().all(|&legal| legal));
    assert_eq!(env.observation().len(), 2 * 9 * 9 * 17);
    assert!(env.observation().iter().all(|&stone| !stone), "no stones, black to move");
}

#[test]
fn two_passes_end_an_empty_board_with_white_ahead_by_komi() {
    // pgx counts an empty region that reaches neither colour for both: 81
    // against 81, and komi gives the game to white.
    let mut env = Env::<GoEnv<9>>::new(1, 0);
    env.step(&[PASS]).unwrap();
    assert!(!env.terminated()[0]);
    env.step(&[PASS]).unwrap();
    assert!(env.terminated()[0]);
    let players = env.players(0);
    assert_eq!(env.rewards()[usize::from(players[0])], -1.0, "black loses");
    assert_eq!(env.rewards()[usize::from(players[1])], 1.0, "white wins");
}

#[test]
fn a_stone_shows_in_the_next_players_observation_and_the_ko_is_masked() {
    let mut env = Env::<GoEnv<9>>::new(1, 0);
    let planes = 17;
    env.step(&[go_point(4, 4)]).unwrap();
    let at = |index: usize, plane: usize| env.observation()[index * planes + plane];
    // White to move: black's stone is the opponent's (plane 1), and plane 16 says white.
    assert!(at(4 * 9 + 4, 1) && !at(4 * 9 + 4, 0));
    assert!((0..81).all(|index| at(index, 16)));
    assert!(!env.legal_action_mask()[go_point(4, 4) as usize]);
    // A ko: black takes at (2,1), white may not retake at (1,1) at once.
    let mut env = Env::<GoEnv<9>>::new(1, 0);
    for (column, row) in [(1, 0), (2, 0), (0, 1), (3, 1), (1, 2), (2, 2), (8, 8), (1, 1), (2, 1)] {
        env.step(&[go_point(column, row)]).unwrap();
    }
    // Black's stone at (2,1) took white's at (1,1).
    assert!(!env.legal_action_mask()[go_point(1, 1) as usize], "the ko point");
    env.step(&[go_point(7, 7)]).unwrap();
    env.step(&[go_point(6, 6)]).unwrap();
    assert!(env.legal_action_mask()[go_point(1, 1) as usize], "the ko has lapsed");
}

// Snapshots, as a tree search saves and restores its nodes.

use gpu_movegen::env::Snapshot;

/// Every array of game `game`, as one comparable record.
fn rows(env: &Env<Chess>, game: usize) -> (i32, Vec<f32>, bool, bool, Vec<bool>, Vec<f32>, i32) {
    let width = 8 * 8 * 119;
    (
        env.current_player()[game],
        env.rewards()[2 * game..2 * game + 2].to_vec(),
        env.terminated()[game],
        env.truncated()[game],
        env.legal_action_mask()[game * ACTIONS..(game + 1) * ACTIONS].to_vec(),
        env.observation()[game * width..(game + 1) * width].to_vec(),
        env.step_count()[game],
    )
}

#[test]
fn a_restored_snapshot_gives_back_every_array_in_any_game_of_the_batch() {
    let mut env = Env::<Chess>::new(3, 21);
    play_each(&mut env, &["e2e4", "e7e5", "g1f3"]);
    let saved: Vec<Snapshot<Chess>> = (0..3).map(|game| env.snapshot(game)).collect();
    let before: Vec<_> = (0..3).map(|game| rows(&env, game)).collect();
    play_each(&mut env, &["b8c6", "f1b5"]);
    assert_ne!(rows(&env, 0), before[0]);
    // Game 0 back as it was, game 1 given game 2's snapshot, game 2 left.
    let after_two = rows(&env, 2);
    env.restore(&[Some(&saved[0]), Some(&saved[2]), None]).unwrap();
    assert_eq!(rows(&env, 0), before[0]);
    assert_eq!(rows(&env, 1), before[2]);
    assert_eq!(env.players(1), saved[2].players());
    assert_eq!(rows(&env, 2), after_two);
    assert_eq!(env.state(0), saved[0].state());
    // The restored games play on as the originals did.
    let next = [action(&env, 0, "b8c6"), action(&env, 1, "b8c6"), action(&env, 2, "a7a6")];
    env.step(&next).unwrap();
    assert_eq!(env.step_count(), [4, 4, 6]);
    assert_eq!(env.restore(&[None, None]), Err(EnvError::BatchSize { expected: 3, got: 2 }));
}

#[test]
fn a_snapshot_of_a_game_over_restores_its_all_true_mask_and_rewards() {
    let mut env = Env::<Chess>::new(1, 3);
    play(&mut env, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let over = env.snapshot(0);
    let before = rows(&env, 0);
    env.reset(4);
    assert!(!env.terminated()[0]);
    env.restore(&[Some(&over)]).unwrap();
    assert_eq!(rows(&env, 0), before);
    assert!(env.legal_action_mask().iter().all(|&legal| legal));
}

/// Plays `moves` (UCI) in every game of `env`.
fn play_each(env: &mut Env<Chess>, moves: &[&str]) {
    for uci in moves {
        let chosen: Vec<u32> = (0..env.batch_size()).map(|game| action(env, game, uci)).collect();
        env.step(&chosen).unwrap();
    }
}

// Shogi, as pgx's shogi, with sennichite.

use gpu_movegen::shogi::env::{Repetition, ShogiState, action_of as shogi_action_of};
use gpu_movegen::shogi::{Position as ShogiPosition, ShogiGame};

/// A one-game Shogi batch from `sfen`.
fn shogi_from(sfen: &str) -> Env<ShogiGame> {
    let mut env = Env::<ShogiGame>::new(1, 0);
    env.set_state(0, ShogiState::from_position(ShogiPosition::from_sfen(sfen).unwrap()));
    env
}

/// Plays `moves` (USI) in a one-game Shogi batch.
fn play_shogi(env: &mut Env<ShogiGame>, moves: &[&str]) {
    for usi in moves {
        let position = env.state(0).position();
        let mv = position.parse_usi_move(usi).unwrap_or_else(|error| panic!("{usi}: {error}"));
        let chosen = shogi_action_of(mv, position.side_to_move()) as u32;
        assert!(env.legal_actions(0).contains(&chosen), "{usi} is not in the mask");
        env.step(&[chosen]).unwrap();
    }
}

#[test]
fn shogi_s_fourth_repetition_is_a_draw_and_the_third_is_not() {
    let mut env = Env::<ShogiGame>::new(1, 2);
    let shuffle = ["5i4h", "5a4b", "4h5i", "4b5a"];
    for _ in 0..2 {
        play_shogi(&mut env, &shuffle);
    }
    assert!(!env.terminated()[0], "the start seen three times");
    play_shogi(&mut env, &shuffle[..3]);
    assert!(!env.terminated()[0]);
    play_shogi(&mut env, &shuffle[3..]);
    assert!(env.terminated()[0], "the start seen a fourth time");
    assert_eq!(env.state(0).repetition(), Some(Repetition::Draw));
    assert_eq!(env.rewards(), [0.0, 0.0]);
}

#[test]
fn shogi_s_perpetual_check_loses_for_the_side_giving_it() {
    // Black's rook checks the white king from file 1, then file 2, and back.
    let mut env = shogi_from("8k/9/9/9/9/9/9/9/K6R1 b - 1");
    let cycle = ["2i1i", "1a2a", "1i2i", "2a1a"];
    for _ in 0..2 {
        play_shogi(&mut env, &cycle);
    }
    play_shogi(&mut env, &cycle[..3]);
    assert!(!env.terminated()[0]);
    play_shogi(&mut env, &cycle[3..]);
    assert!(env.terminated()[0]);
    assert_eq!(env.state(0).repetition(), Some(Repetition::PerpetualCheck(gpu_movegen::shogi::Color::Black)));
    assert_eq!(rewards_by_colour(&env), [-1.0, 1.0]);
}

#[test]
fn a_pawn_drop_that_mates_is_not_in_shogi_s_mask_but_checkmate_ends_the_game() {
    // A pawn on 1b would mate: the gold guards it and 2b, the knight 2a.
    let mut env = shogi_from("8k/9/6NG1/9/9/9/9/9/K8 b GP 1");
    let position = *env.state(0).position();
    let drop = |square: &str| {
        let mv = gpu_movegen::shogi::Move {
            from: None,
            to: gpu_movegen::shogi::board::parse_square(square).unwrap(),
            piece: gpu_movegen::shogi::Piece::Pawn,
            promote: false,
        };
        shogi_action_of(mv, position.side_to_move()) as u32
    };
    let legal = env.legal_actions(0);
    assert!(!legal.contains(&drop("1b")), "uchifuzume");
    assert!(legal.contains(&drop("1c")));
    // A gold dropped on 1b, guarded by the other, mates: it covers 2a and 2b.
    play_shogi(&mut env, &["G*1b"]);
    assert!(env.terminated()[0]);
    assert_eq!(rewards_by_colour(&env), [1.0, -1.0]);
    assert!(env.legal_action_mask().iter().all(|&legal| legal));
}

#[test]
fn shogi_games_end_drawn_at_512_steps() {
    let mut env = Env::<ShogiGame>::new(4, 9);
    let mut steps = 0;
    while !env.terminated().iter().all(|&over| over) {
        // The first legal action of each game: reproducible, and it does not repeat.
        let actions: Vec<u32> = (0..4).map(|game| env.legal_actions(game)[0]).collect();
        env.step(&actions).unwrap();
        steps += 1;
        assert!(steps <= 512);
    }
    for game in 0..4 {
        let state = env.state(game);
        let ended_by_rule = state.repetition().is_some() || env.rewards()[2 * game..2 * game + 2] != [0.0, 0.0];
        assert!(ended_by_rule || state.steps() == 512, "game {game} ended at step {}", state.steps());
    }
}

#[test]
fn go_boards_between_pgx_s_two_have_ids_of_their_own() {
    assert_eq!(<GoEnv<9> as EnvGame>::ID, "go_9x9");
    assert_eq!(<GoEnv<13> as EnvGame>::ID, "go_13x13");
    assert_eq!(<GoEnv<19> as EnvGame>::ID, "go_19x19");
    // A 13x13 batch plays and scores like the others: two passes, white by komi.
    let mut env = Env::<GoEnv<13>>::new(1, 0);
    assert_eq!(env.legal_action_mask().len(), 13 * 13 + 1);
    env.step(&[169u32]).unwrap();
    env.step(&[169u32]).unwrap();
    assert!(env.terminated()[0]);
    let players = env.players(0);
    assert_eq!([env.rewards()[usize::from(players[0])], env.rewards()[usize::from(players[1])]], [-1.0, 1.0]);
}

// The variants, each ending by its own rule.

use gpu_movegen::chess::variant::env::{
    AtomicEnv, HordeEnv, KingOfTheHillEnv, RacingKingsEnv, ThreeCheckEnv, VariantState,
};
use gpu_movegen::chess::variant::{Variant, VariantPosition};

/// A one-game batch of `G` from `fen`, its first legal action whose UCI is
/// `uci` played; returns the rewards by colour and whether the game ended.
fn variant_step<G: EnvGame<State = VariantState>>(variant: Variant, fen: &str, uci: &str) -> ([f32; 2], bool) {
    let mut env = Env::<G>::new(1, 1);
    let position = VariantPosition::from_fen(variant, fen).unwrap();
    env.set_state(0, VariantState::from_position(position));
    let mv = position.parse_uci_move(uci).unwrap();
    let action = gpu_movegen::chess::env::action_of(mv, position.side_to_move()) as u32;
    assert!(env.legal_actions(0).contains(&action), "{uci} in {fen}");
    env.step(&[action]).unwrap();
    let players = env.players(0);
    ([env.rewards()[usize::from(players[0])], env.rewards()[usize::from(players[1])]], env.terminated()[0])
}

#[test]
fn each_variant_ends_by_its_own_rule_with_the_winner_rewarded() {
    // A king on the hill.
    assert_eq!(
        variant_step::<KingOfTheHillEnv>(Variant::KingOfTheHill, "8/3k4/8/8/8/3K4/8/8 w - - 0 1", "d3d4"),
        ([1.0, -1.0], true)
    );
    // The third check (white needed one more).
    assert_eq!(
        variant_step::<ThreeCheckEnv>(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4K2R w K - 1+3 0 1", "h1h8"),
        ([1.0, -1.0], true)
    );
    // The rook takes the queen and the blast takes the king beside it.
    assert_eq!(
        variant_step::<AtomicEnv>(Variant::Atomic, "4k3/4q3/8/8/8/8/8/4RK2 w - - 0 1", "e1e7"),
        ([1.0, -1.0], true)
    );
    // White's king reaches the eighth rank and black's cannot follow.
    assert_eq!(
        variant_step::<RacingKingsEnv>(Variant::RacingKings, "8/1K6/8/8/8/8/8/7k w - - 0 1", "b7b8"),
        ([1.0, -1.0], true)
    );
    // The horde's last piece is taken.
    assert_eq!(
        variant_step::<HordeEnv>(Variant::Horde, "4k3/8/8/8/8/8/3q4/4P3 b - - 0 1", "d2e1"),
        ([-1.0, 1.0], true)
    );
    // A quiet move ends nothing.
    assert_eq!(
        variant_step::<HordeEnv>(Variant::Horde, "4k3/8/8/8/8/8/3q4/4P3 b - - 0 1", "d2d3"),
        ([0.0, 0.0], false)
    );
}

#[test]
fn three_check_s_observation_has_the_checks_still_needed() {
    assert_eq!(<ThreeCheckEnv as EnvGame>::OBSERVATION_SHAPE, [8, 8, 121]);
    assert_eq!(<AtomicEnv as EnvGame>::OBSERVATION_SHAPE, [8, 8, 119]);
    assert_eq!(<ThreeCheckEnv as EnvGame>::ID, "3check");
    let mut env = Env::<ThreeCheckEnv>::new(1, 1);
    let position = VariantPosition::from_fen(Variant::ThreeCheck, "4k3/8/8/8/8/8/8/4K2R w K - 2+1 0 1").unwrap();
    env.set_state(0, VariantState::from_position(position));
    let square = &env.observation()[..121];
    assert_eq!(square[119], 2.0 / 3.0, "the mover (white) needs two");
    assert_eq!(square[120], 1.0 / 3.0, "black needs one");
}
