//! Batched game environments for self-play: N games side by side, each
//! stepped by one action a step, with pgx's state at every step (the legal
//! action mask, the observation, each player's reward, `terminated`,
//! `truncated` and the player to move), so that code written for pgx
//! (`pgx.make`, `jax.vmap(env.step)`) runs on this crate's rules engines.
//!
//! [`Env`] keeps the games' state and pgx's arrays, each with a leading
//! batch axis; [`EnvGame`] is what a game adds to its [`Game`]: the action
//! encoding, the observation planes and the end of a game, in the game's
//! own folder. Chess follows pgx's `chess` ([`crate::chess::env`]), Shogi
//! its `shogi` with the repetition rule added ([`crate::shogi::env`]), Go
//! its `go_9x9` and `go_19x19` ([`crate::go::env`]); the rules come from the
//! crate's own move generators, which perft checks against published
//! counts and peers.
//!
//! Steps follow pgx's `Env.step`:
//!
//! - A game already over is not stepped; its rewards read zero.
//! - An action outside the legal mask ends the game at once: the player who
//!   chose it gets -1, the other +1, and the turn passes. pgx plays the
//!   illegal action on its board first, which leaves a board no rules
//!   describe; here the board stays as it was, so the observation after an
//!   illegal action differs from pgx's (the rewards and flags do not).
//! - Once a game is over its legal mask is all true, as in pgx, so that a
//!   policy can be normalised over it.
//!
//! An action outside `0..ACTIONS`, or a batch of the wrong length, is an
//! [`EnvError`] before any game changes.
//!
//! A tree search keeps each node's game as a [`Snapshot`] ([`Env::snapshot`])
//! and puts it back in any game of the batch ([`Env::restore`]), every array
//! as it was.
//!
//! ```
//! use gpu_movegen::chess::Chess;
//! use gpu_movegen::env::Env;
//!
//! let mut env = Env::<Chess>::new(4, 7);
//! assert_eq!(env.legal_action_mask().len(), 4 * 4672);
//! // Every game plays its first legal action.
//! let actions: Vec<u32> = (0..4).map(|game| env.legal_actions(game)[0]).collect();
//! env.step(&actions).unwrap();
//! assert!(env.terminated().iter().all(|&over| !over));
//! ```

use rayon::prelude::*;

use crate::game::Game;
use crate::random::ShaderRandom;

/// What a game adds to its rules to be stepped in an [`Env`]: its action
/// encoding, observation and end.
pub trait EnvGame {
    /// The rules it plays by: the crate's [`Game`], whose legal moves and
    /// play the environment's actions map onto.
    type Rules: Game;
    /// One game in progress: the position and whatever history its rules
    /// and observation need.
    type State: Clone + Send + Sync;
    /// One element of an observation (pgx's dtype: float32 for chess, bool for Go).
    type Cell: Copy + Default + Send + Sync + PartialEq + std::fmt::Debug;
    /// pgx's id of the environment (`chess`).
    const ID: &'static str;
    /// Size of the action space.
    const ACTIONS: usize;
    /// The shape of one observation.
    const OBSERVATION_SHAPE: [usize; 3];

    /// The game's start.
    fn start() -> Self::State;
    /// The colour to move: 0 for the side that moves first, 1 for the other.
    fn color(state: &Self::State) -> usize;
    /// Sets `mask[action]` for each legal action and clears the rest.
    fn legal_action_mask(state: &Self::State, mask: &mut [bool]);
    /// Plays `action`, one the mask allows.
    fn play_action(state: &mut Self::State, action: usize);
    /// Whether the game is over, given its legal mask, and if so each
    /// colour's reward.
    fn outcome(state: &Self::State, mask: &[bool]) -> Outcome;
    /// Writes the observation for the colour to move.
    fn observe(state: &Self::State, observation: &mut [Self::Cell]);

    /// Elements in one observation.
    fn observation_len() -> usize {
        Self::OBSERVATION_SHAPE.iter().product()
    }
}

/// pgx's arrays of a batch of games (a leading batch axis, row-major) as a
/// GPU backend lays them out after each step from what its kernels read
/// back ([`crate::chess::gpu::env::DeviceEnv::arrays`],
/// [`crate::gpu::env::DeviceGameEnv::arrays`] for Go and Shogi); [`Env`]
/// keeps its own in one too ([`Env::arrays`]), so that a backend's arrays
/// compare with the CPU's whole.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchArrays<Cell> {
    pub(crate) current_player: Vec<i32>,
    pub(crate) rewards: Vec<f32>,
    pub(crate) terminated: Vec<bool>,
    pub(crate) truncated: Vec<bool>,
    pub(crate) legal_action_mask: Vec<bool>,
    pub(crate) observation: Vec<Cell>,
    pub(crate) step_count: Vec<i32>,
    /// Actions a game.
    actions: usize,
}

impl<Cell: Copy + Default> BatchArrays<Cell> {
    /// The arrays of `batch_size` games of `actions` actions and observations of `observation_len` cells.
    pub(crate) fn new(batch_size: usize, actions: usize, observation_len: usize) -> BatchArrays<Cell> {
        BatchArrays {
            current_player: vec![0; batch_size],
            rewards: vec![0.0; batch_size * 2],
            terminated: vec![false; batch_size],
            truncated: vec![false; batch_size],
            legal_action_mask: vec![false; batch_size * actions],
            observation: vec![Cell::default(); batch_size * observation_len],
            step_count: vec![0; batch_size],
            actions,
        }
    }
}

impl<Cell: Send> BatchArrays<Cell> {
    /// Every game's rows, game by game, to be written in parallel (zipped
    /// with what each game's rows are made from).
    pub(crate) fn par_rows_mut(&mut self) -> impl IndexedParallelIterator<Item = Rows<'_, Cell>> {
        let games = self.current_player.len();
        let width = self.observation.len() / games.max(1);
        (
            self.current_player.par_iter_mut(),
            self.rewards.par_chunks_mut(2),
            self.terminated.par_iter_mut(),
            self.truncated.par_iter_mut(),
            self.legal_action_mask.par_chunks_mut(self.actions),
            self.observation.par_chunks_mut(width.max(1)),
            self.step_count.par_iter_mut(),
        )
            .into_par_iter()
            .map(|(current_player, rewards, terminated, truncated, mask, observation, step_count)| Rows {
                current_player,
                rewards,
                terminated,
                truncated,
                mask,
                observation,
                step_count,
            })
    }
}

impl<Cell> BatchArrays<Cell> {
    /// The legal actions of game `game`, lowest first.
    pub fn legal_actions(&self, game: usize) -> Vec<u32> {
        let mask = &self.legal_action_mask[game * self.actions..(game + 1) * self.actions];
        (0..self.actions as u32).filter(|&action| mask[action as usize]).collect()
    }

    /// The player (0 or 1) to move in each game.
    pub fn current_player(&self) -> &[i32] {
        &self.current_player
    }

    /// Each player's reward for the last step, two a game (player 0, then 1).
    pub fn rewards(&self) -> &[f32] {
        &self.rewards
    }

    /// Whether each game is over.
    pub fn terminated(&self) -> &[bool] {
        &self.terminated
    }

    /// Whether each game was cut short: never, as in pgx.
    pub fn truncated(&self) -> &[bool] {
        &self.truncated
    }

    /// The legal actions of each game, `actions` a game; all true once a game is over.
    pub fn legal_action_mask(&self) -> &[bool] {
        &self.legal_action_mask
    }

    /// Each game's observation for the player to move.
    pub fn observation(&self) -> &[Cell] {
        &self.observation
    }

    /// Steps taken in each game since its start.
    pub fn step_count(&self) -> &[i32] {
        &self.step_count
    }
}

/// Whether a game has ended, and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The game is over.
    pub terminated: bool,
    /// Each colour's reward for the step that ended it (zero for a draw).
    pub rewards: [f32; 2],
}

impl Outcome {
    /// A game still in progress.
    pub const ONGOING: Outcome = Outcome { terminated: false, rewards: [0.0; 2] };

    /// The rewards of a game colour `loser` (0 or 1) lost: -1 for it, +1 for
    /// the other.
    pub const fn loss_rewards(loser: usize) -> [f32; 2] {
        if loser == 0 { [-1.0, 1.0] } else { [1.0, -1.0] }
    }
}

/// A step refused before any game changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// The actions were not one a game.
    #[error("{got} actions for a batch of {expected} games")]
    BatchSize {
        /// Games in the batch.
        expected: usize,
        /// Actions given.
        got: usize,
    },
    /// An action outside the action space.
    #[error("game {game}: action {action} is outside 0..{actions}")]
    ActionOutOfRange {
        /// The game's index in the batch.
        game: usize,
        /// The action given.
        action: i64,
        /// Size of the action space.
        actions: usize,
    },
}

/// N games of `G` stepped together, with pgx's arrays (a leading batch axis,
/// row-major) for every game.
pub struct Env<G: EnvGame> {
    states: Vec<G::State>,
    /// Which player (0 or 1) plays each colour, per game, drawn at reset.
    players: Vec<[u8; 2]>,
    seed: u64,
    resets: Vec<u32>,
    auto_reset: bool,
    arrays: BatchArrays<G::Cell>,
}

/// One game saved whole, to be put back later in any game of a batch of
/// the same game: a tree search saves each node's game and restores it to
/// expand the node (the state a node of pgx's tree search holds).
#[derive(Clone)]
pub struct Snapshot<G: EnvGame> {
    state: G::State,
    players: [u8; 2],
    current_player: i32,
    rewards: [f32; 2],
    terminated: bool,
    truncated: bool,
    step_count: i32,
}

impl<G: EnvGame> Snapshot<G> {
    /// The game's state.
    pub fn state(&self) -> &G::State {
        &self.state
    }

    /// Which player plays each colour in the game (`[first, second]`).
    pub fn players(&self) -> [u8; 2] {
        self.players
    }
}

/// One game's rows of the batch's arrays, as a step, a reset or a restore
/// writes them ([`BatchArrays::par_rows_mut`]).
pub(crate) struct Rows<'a, Cell> {
    pub(crate) current_player: &'a mut i32,
    pub(crate) rewards: &'a mut [f32],
    pub(crate) terminated: &'a mut bool,
    pub(crate) truncated: &'a mut bool,
    pub(crate) mask: &'a mut [bool],
    pub(crate) observation: &'a mut [Cell],
    pub(crate) step_count: &'a mut i32,
}

impl<G: EnvGame> Env<G> {
    /// `batch_size` games at their start, the players' colours drawn from `seed`.
    pub fn new(batch_size: usize, seed: u64) -> Env<G> {
        let mut env = Env {
            states: vec![G::start(); batch_size],
            players: vec![[0, 1]; batch_size],
            seed,
            resets: vec![0; batch_size],
            auto_reset: false,
            arrays: BatchArrays::new(batch_size, G::ACTIONS, G::observation_len()),
        };
        env.reset(seed);
        env
    }

    /// Games in the batch.
    pub fn batch_size(&self) -> usize {
        self.states.len()
    }

    /// Whether a game that ends is replaced by a new one at once (pgx's
    /// `auto_reset` wrapper): the step that ends it still reports its
    /// rewards and `terminated`, with the new game's mask and observation,
    /// and the next step plays the new game. It replaces the games that end
    /// while it is on: a game already over when it is turned on stays over
    /// (pgx's wrapper would play on its last board, with an all-true mask).
    pub fn set_auto_reset(&mut self, on: bool) {
        self.auto_reset = on;
    }

    /// Every game back to its start, the players' colours drawn anew from
    /// `seed`: the same seed gives the same games, on every backend.
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.resets.fill(0);
        for game in 0..self.batch_size() {
            self.reset_game(game);
        }
    }

    fn reset_game(&mut self, game: usize) {
        self.players[game] = draw_players(self.seed, self.resets[game], game);
        self.resets[game] = self.resets[game].wrapping_add(1);
        self.set_state(game, G::start());
    }

    /// Puts `state` in place of game `game` (a game from a chosen position,
    /// say), its arrays as at a start: no reward, not over.
    pub fn set_state(&mut self, game: usize, state: G::State) {
        self.states[game] = state;
        let players = self.players[game];
        let rows = rows_of::<G>(
            game,
            &mut self.arrays.current_player,
            &mut self.arrays.rewards,
            &mut self.arrays.terminated,
            &mut self.arrays.truncated,
            &mut self.arrays.legal_action_mask,
            &mut self.arrays.observation,
            &mut self.arrays.step_count,
        );
        start_rows::<G>(&self.states[game], players, rows);
    }

    /// Plays one action in every game (`actions[i]` in game `i`). Refused,
    /// with no game changed, when there is not one action a game or an
    /// action is outside `0..ACTIONS`.
    pub fn step<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), EnvError> {
        let expected = self.batch_size();
        if actions.len() != expected {
            return Err(EnvError::BatchSize { expected, got: actions.len() });
        }
        let mut checked = Vec::with_capacity(expected);
        for (game, &action) in actions.iter().enumerate() {
            let action = action.into();
            if !(0..G::ACTIONS as i64).contains(&action) {
                return Err(EnvError::ActionOutOfRange { game, action, actions: G::ACTIONS });
            }
            checked.push(action as usize);
        }
        let auto_reset = self.auto_reset;
        let ended: Vec<bool> =
            (self.states.par_iter_mut(), self.players.par_iter(), checked.par_iter(), self.arrays.par_rows_mut())
                .into_par_iter()
                .map(|(state, players, &action, rows)| step_game::<G>(state, *players, action, rows, auto_reset))
                .collect();
        if auto_reset {
            for game in (0..expected).filter(|&game| ended[game]) {
                let (terminated, truncated) = (self.arrays.terminated[game], self.arrays.truncated[game]);
                let rewards = [self.arrays.rewards[2 * game], self.arrays.rewards[2 * game + 1]];
                self.reset_game(game);
                self.arrays.terminated[game] = terminated;
                self.arrays.truncated[game] = truncated;
                self.arrays.rewards[2 * game..2 * game + 2].copy_from_slice(&rewards);
            }
        }
        Ok(())
    }

    /// Game `game` as it stands, to be put back by [`Env::restore`].
    pub fn snapshot(&self, game: usize) -> Snapshot<G> {
        Snapshot {
            state: self.states[game].clone(),
            players: self.players[game],
            current_player: self.arrays.current_player[game],
            rewards: [self.arrays.rewards[2 * game], self.arrays.rewards[2 * game + 1]],
            terminated: self.arrays.terminated[game],
            truncated: self.arrays.truncated[game],
            step_count: self.arrays.step_count[game],
        }
    }

    /// Puts each `Some` snapshot in place of its game (`snapshots[i]` in
    /// game `i`; `None` leaves game `i` as it is), with every array as it
    /// was when the snapshot was taken. The masks and observations are
    /// derived again, on the batch's threads.
    pub fn restore(&mut self, snapshots: &[Option<&Snapshot<G>>]) -> Result<(), EnvError> {
        let expected = self.batch_size();
        if snapshots.len() != expected {
            return Err(EnvError::BatchSize { expected, got: snapshots.len() });
        }
        (self.states.par_iter_mut(), self.players.par_iter_mut(), snapshots.par_iter(), self.arrays.par_rows_mut())
            .into_par_iter()
            .for_each(
                |(
                    state,
                    players,
                    snapshot,
                    Rows { current_player, rewards, terminated, truncated, mask, observation, step_count },
                )| {
                    let Some(snapshot) = snapshot else { return };
                    *state = snapshot.state.clone();
                    *players = snapshot.players;
                    *current_player = snapshot.current_player;
                    rewards.copy_from_slice(&snapshot.rewards);
                    *terminated = snapshot.terminated;
                    *truncated = snapshot.truncated;
                    *step_count = snapshot.step_count;
                    // A game over has an all-true mask, unless auto-reset
                    // already replaced it with a new game (see `step`).
                    if is_over(snapshot.terminated || snapshot.truncated, snapshot.step_count) {
                        mask.fill(true);
                    } else {
                        G::legal_action_mask(state, mask);
                    }
                    G::observe(state, observation);
                },
            );
        Ok(())
    }

    /// The legal actions of game `game`, lowest first.
    pub fn legal_actions(&self, game: usize) -> Vec<u32> {
        self.arrays.legal_actions(game)
    }

    /// pgx's arrays of every game, as [`BatchArrays`] (what the GPU backends
    /// offer too), for code written for any backend.
    pub fn arrays(&self) -> &BatchArrays<G::Cell> {
        &self.arrays
    }

    /// The player (0 or 1) to move in each game.
    pub fn current_player(&self) -> &[i32] {
        &self.arrays.current_player
    }

    /// Each player's reward for the last step, two a game (player 0, then 1).
    pub fn rewards(&self) -> &[f32] {
        &self.arrays.rewards
    }

    /// Whether each game is over.
    pub fn terminated(&self) -> &[bool] {
        &self.arrays.terminated
    }

    /// Whether each game was cut short; pgx's games end within a step
    /// limit by termination, so this stays false, as in pgx.
    pub fn truncated(&self) -> &[bool] {
        &self.arrays.truncated
    }

    /// The legal actions of each game, `ACTIONS` a game; all true once a
    /// game is over.
    pub fn legal_action_mask(&self) -> &[bool] {
        &self.arrays.legal_action_mask
    }

    /// Each game's observation for the player to move, `OBSERVATION_SHAPE`
    /// a game.
    pub fn observation(&self) -> &[G::Cell] {
        &self.arrays.observation
    }

    /// Steps taken in each game since its start (pgx's `_step_count`).
    pub fn step_count(&self) -> &[i32] {
        &self.arrays.step_count
    }

    /// Which player plays each colour in game `game` (`[first, second]`).
    pub fn players(&self, game: usize) -> [u8; 2] {
        self.players[game]
    }

    /// The state of game `game`.
    pub fn state(&self, game: usize) -> &G::State {
        &self.states[game]
    }
}

/// Whether a game whose row reads `ended` (`terminated` or `truncated`)
/// after `step_count` steps is over, rather than a new game auto-reset put
/// in place of one that ended: a game only ends by a step, and a new game
/// has taken none.
pub(crate) fn is_over(ended: bool, step_count: i32) -> bool {
    ended && step_count != 0
}

/// Which player plays each colour (`[first, second]`) in game `game` of a
/// batch seeded `seed`, when it starts after `resets` earlier starts since
/// the batch's reset: every backend draws the same.
pub(crate) fn draw_players(seed: u64, resets: u32, game: usize) -> [u8; 2] {
    let folded = (seed ^ seed >> 32) as u32 ^ ShaderRandom::hash(resets);
    let first = (ShaderRandom::new(folded, game as u32).next_u32() & 1) as u8;
    [first, 1 - first]
}

#[allow(clippy::too_many_arguments)]
fn rows_of<'a, G: EnvGame>(
    game: usize,
    current_player: &'a mut [i32],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
    mask: &'a mut [bool],
    observation: &'a mut [G::Cell],
    step_count: &'a mut [i32],
) -> Rows<'a, G::Cell> {
    let width = G::observation_len();
    Rows {
        current_player: &mut current_player[game],
        rewards: &mut rewards[2 * game..2 * game + 2],
        terminated: &mut terminated[game],
        truncated: &mut truncated[game],
        mask: &mut mask[game * G::ACTIONS..(game + 1) * G::ACTIONS],
        observation: &mut observation[game * width..(game + 1) * width],
        step_count: &mut step_count[game],
    }
}

/// A game's rows at its start.
fn start_rows<G: EnvGame>(state: &G::State, players: [u8; 2], rows: Rows<'_, G::Cell>) {
    *rows.current_player = i32::from(players[G::color(state)]);
    rows.rewards.fill(0.0);
    *rows.terminated = false;
    *rows.truncated = false;
    *rows.step_count = 0;
    G::legal_action_mask(state, rows.mask);
    G::observe(state, rows.observation);
}

/// One game's step, as pgx's `Env.step` takes it; whether the game ended.
fn step_game<G: EnvGame>(
    state: &mut G::State,
    players: [u8; 2],
    action: usize,
    rows: Rows<'_, G::Cell>,
    auto_reset: bool,
) -> bool {
    if auto_reset && (*rows.terminated || *rows.truncated) && !is_over(true, *rows.step_count) {
        // The game was replaced by a new one when it ended: this step plays it.
        *rows.terminated = false;
        *rows.truncated = false;
    }
    if *rows.terminated || *rows.truncated {
        rows.rewards.fill(0.0);
        return false;
    }
    let mover = usize::from(players[G::color(state)]);
    *rows.step_count += 1;
    if !rows.mask[action] {
        // pgx counts the step and passes the turn before it ends the game;
        // the board stays as it was (see the module's notes).
        rows.rewards.fill(1.0);
        rows.rewards[mover] = -1.0;
        *rows.terminated = true;
        *rows.current_player = 1 - mover as i32;
    } else {
        G::play_action(state, action);
        G::legal_action_mask(state, rows.mask);
        let outcome = G::outcome(state, rows.mask);
        rows.rewards.fill(0.0);
        for (player, reward) in players.iter().zip(outcome.rewards) {
            rows.rewards[usize::from(*player)] = reward;
        }
        *rows.terminated = outcome.terminated;
        *rows.current_player = i32::from(players[G::color(state)]);
    }
    if *rows.terminated {
        rows.mask.fill(true);
    }
    G::observe(state, rows.observation);
    *rows.terminated
}
