//! The core of the environments' GPU backend for games whose kernels keep
//! every game on the device and report each game's step as one record:
//! [`DeviceGameEnv`], generic over a [`DeviceGame`] (Go's
//! [`crate::go::gpu::env::GoDevice`], Shogi's
//! [`crate::shogi::gpu::env::ShogiDevice`]). Chess keeps its own host
//! ([`crate::chess::gpu::env::DeviceEnv`]): its kernels report moves by
//! index into a move list rather than a mask of actions.
//!
//! The kernels of a game's environment module share one shape, which this
//! host drives:
//!
//! - **Bindings:** `games` (1), each game's position record;
//!   `legal` (2), [`DeviceGame::MASK_WORDS`] words of legal-action bits a
//!   game; `status` (3), fault bits; `parameters` (4), an
//!   [`EnvironmentParameters`]; `actions` (5), one a game, `u32::MAX` for
//!   a game not stepped; `results` (6), `RESULT_*` a game; `game_states`
//!   (7), a [`DeviceGameState`] a game; `history` (8), first every game's
//!   [`DeviceGame::HISTORY_WORDS`], then every game's
//!   [`DeviceGame::RECENT_WORDS`], which are read back at every step. A
//!   game may add a table buffer at binding 0 ([`DeviceGame::tables`]).
//! - **Entry points:** [`DeviceGame::STEP_KERNELS`] play the actions and
//!   judge the ends, [`DeviceGame::SET_UP_KERNELS`] write the legal
//!   actions of games set up by a restore, `reset_ended` (in
//!   [`DeviceGame::AUTO_RESET_KERNELS`]) replaces each game that ended,
//!   `reset_games` (in [`DeviceGame::RESET_KERNELS`]) puts every game at
//!   its start.
//!
//! A step uploads one action a game, runs its kernels in one submission
//! and reads back, in one round trip, each game's result, state, legal
//! actions, position and recent record; the host lays out pgx's arrays from
//! them. A GPU failure is an error with no array changed, and closes the
//! environment: every later call is refused.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::env::{BatchArrays, EnvError, EnvGame, Rows, draw_players, is_over};
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::{Staging, bind_group, buffer, buffer_with};
use crate::gpu::{Check, GpuContext, GpuError};

/// `RESULT_*` in the environment kernels: what a step did to a game.
const RESULT_NOT_STEPPED: u32 = 0;
const RESULT_PLAYED: u32 = 1;
const RESULT_ILLEGAL: u32 = 2;
const RESULT_OVER: u32 = 3;
const RESULT_SET_UP: u32 = 4;
const RESULT_RESET: u32 = 5;
/// `FAULT_REPLAY` in the environment kernels: a replay of a game's moves
/// met one the kernels call illegal.
const FAULT_REPLAY: u32 = 8;

/// A game whose environment kernels [`DeviceGameEnv`] drives (see the module
/// documentation for their shape).
pub trait DeviceGame: Sized + Send + Sync + 'static {
    /// The CPU environment these games equal, array for array.
    type Env: EnvGame<Cell = bool>;
    /// The position record of the game's shaders (binding 1).
    type Position: Pod + std::fmt::Debug + PartialEq + Send + Sync;
    /// The game's name in messages ("Go", "Shogi").
    const NAME: &'static str;
    /// The most games a batch holds.
    const MAX_GAMES: usize;
    /// Words of a game's legal-action bits.
    const MASK_WORDS: usize;
    /// Words of a game's history kept on the device and read back only by
    /// snapshots.
    const HISTORY_WORDS: usize;
    /// Words of a game's record read back at every step (its recent boards,
    /// say); 0 for none.
    const RECENT_WORDS: usize;
    /// The kernels a step runs, in order.
    const STEP_KERNELS: &'static [&'static str];
    /// The kernels a step runs after them with auto-reset on: `reset_ended`
    /// and any that finish a new game.
    const AUTO_RESET_KERNELS: &'static [&'static str];
    /// The kernels that put every game at its start: `reset_games` and any
    /// that finish a new game.
    const RESET_KERNELS: &'static [&'static str];
    /// The kernels that write the legal actions of games set up by a restore.
    const SET_UP_KERNELS: &'static [&'static str];

    /// The game's environment module, composed.
    fn shader() -> Result<String, GpuError>;
    /// The table buffer at binding 0, when the module reads one.
    fn tables(context: &GpuContext) -> Option<wgpu::Buffer>;
    /// The self-test that vouches for the kernels on a driver's first use.
    fn check() -> Check;
    /// The colour to move in a position record (0 or 1).
    fn to_move(position: &Self::Position) -> usize;
    /// A game's legal-action mask from its words.
    fn unpack_mask(words: &[u32], mask: &mut [bool]);
    /// A game's observation from its record.
    fn observe(record: &Record<Self>, observation: &mut [bool]);
}

/// `EnvironmentParameters` in the environment kernels.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct EnvironmentParameters {
    /// Games in the batch.
    pub count: u32,
    /// 1: `reset_ended` replaces a game that ends by a new one at once.
    pub auto_reset: u32,
    /// Padding; always 0.
    pub padding: [u32; 2],
}

/// A game's state in the environment kernels (each names `details` its own way).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct DeviceGameState {
    /// Actions played (an action that is not legal is not).
    pub steps: u32,
    /// 1 once the game has ended.
    pub over: u32,
    /// The game's own bookkeeping (Go: passes in a row, superko).
    pub details: [u32; 2],
    /// Each colour's reward for the last step.
    pub rewards: [f32; 2],
    /// Padding; always 0.
    pub padding: [u32; 2],
}

/// What a step left of one game, read back.
pub struct Record<G: DeviceGame> {
    /// `RESULT_*`.
    result: u32,
    /// The game's state.
    pub state: DeviceGameState,
    /// Its legal-action words.
    pub legal: Vec<u32>,
    /// Its position.
    pub position: G::Position,
    /// Its recent record ([`DeviceGame::RECENT_WORDS`]).
    pub recent: Vec<u32>,
}

/// Games of `G` on the device, with [`crate::env::Env`]'s arrays for
/// `G::Env` (see the module documentation).
pub struct DeviceGameEnv<G: DeviceGame> {
    context: GpuContext,
    kernels: Kernels,
    count: u32,
    games: wgpu::Buffer,
    legal: wgpu::Buffer,
    actions: wgpu::Buffer,
    results: wgpu::Buffer,
    game_states: wgpu::Buffer,
    history: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    staging: Staging,
    players: Vec<[u8; 2]>,
    seed: u64,
    resets: Vec<u32>,
    auto_reset: bool,
    closed: Option<String>,
    arrays: BatchArrays<bool>,
    _game: std::marker::PhantomData<G>,
}

impl<G: DeviceGame> DeviceGameEnv<G> {
    /// `batch_size` games (1 to `G::MAX_GAMES`) at their start on
    /// `context`'s device, the players' colours drawn from `seed` as
    /// [`crate::env::Env::new`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext, batch_size: usize, seed: u64) -> Result<DeviceGameEnv<G>, GpuError> {
        crate::gpu::block_on(DeviceGameEnv::new_async(context, batch_size, seed))
    }

    /// [`DeviceGameEnv::new`], awaited.
    pub async fn new_async(context: &GpuContext, batch_size: usize, seed: u64) -> Result<DeviceGameEnv<G>, GpuError> {
        if batch_size == 0 || batch_size > G::MAX_GAMES {
            return Err(GpuError::Limits(format!(
                "{} games on the device number 1 to {}, not {batch_size}",
                G::NAME,
                G::MAX_GAMES
            )));
        }
        context.require_async(&[G::check()]).await?;
        let device = &context.device;
        let shader = reflect(G::shader()?)?;
        let count = batch_size as u32;
        let history_bytes = (batch_size * (G::HISTORY_WORDS + G::RECENT_WORDS) * 4) as u64;
        let limits = device.limits();
        if history_bytes > limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) {
            return Err(GpuError::Limits(format!(
                "{batch_size} {} games' histories take {history_bytes} bytes, past this device's largest storage binding",
                G::NAME
            )));
        }
        let record_bytes =
            (4 + size_of::<DeviceGameState>() + 4 * G::MASK_WORDS + size_of::<G::Position>() + 4 * G::RECENT_WORDS)
                as u64;
        let mut env = context
            .scoped_async(|| {
                use wgpu::BufferUsages as Usage;
                let label = format!("{} environment", G::NAME);
                let kernels = context.kernels(&shader, &label);
                let games = buffer(
                    device,
                    "games",
                    u64::from(count) * size_of::<G::Position>() as u64,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let legal = buffer(
                    device,
                    "legal actions",
                    (batch_size * G::MASK_WORDS * 4) as u64,
                    Usage::STORAGE | Usage::COPY_SRC,
                );
                let actions = buffer(device, "actions", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_DST);
                let results =
                    buffer(device, "results", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST);
                let game_states = buffer(
                    device,
                    "game states",
                    u64::from(count) * size_of::<DeviceGameState>() as u64,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let history = buffer(
                    device,
                    "histories and recent records",
                    history_bytes,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let status = buffer(device, "status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
                let parameters = buffer_with(
                    device,
                    "parameters",
                    &[EnvironmentParameters { count, auto_reset: 0, padding: [0; 2] }],
                    Usage::UNIFORM | Usage::COPY_DST,
                );
                let tables = G::tables(context);
                let mut entries = vec![
                    (1, &games),
                    (2, &legal),
                    (3, &status),
                    (4, &parameters),
                    (5, &actions),
                    (6, &results),
                    (7, &game_states),
                    (8, &history),
                ];
                if let Some(tables) = &tables {
                    entries.insert(0, (0, tables));
                }
                let bind_group = bind_group(device, &label, &kernels.layout, &entries);
                let staging = Staging::new(device, (4 + u64::from(count) * record_bytes).min(16 << 20));
                DeviceGameEnv {
                    context: context.clone(),
                    kernels,
                    count,
                    games,
                    legal,
                    actions,
                    results,
                    game_states,
                    history,
                    status,
                    parameters,
                    bind_group,
                    staging,
                    players: vec![[0, 1]; batch_size],
                    seed,
                    resets: vec![0; batch_size],
                    auto_reset: false,
                    closed: None,
                    arrays: BatchArrays::new(batch_size, G::Env::ACTIONS, G::Env::observation_len()),
                    _game: std::marker::PhantomData,
                }
            })
            .await?;
        env.reset_async(seed).await?;
        Ok(env)
    }

    /// Games in the batch.
    pub fn batch_size(&self) -> usize {
        self.players.len()
    }

    /// Whether a game that ends is replaced by a new one at once, as
    /// [`crate::env::Env::set_auto_reset`] says.
    pub fn set_auto_reset(&mut self, on: bool) {
        self.auto_reset = on;
        let parameters = EnvironmentParameters { count: self.count, auto_reset: u32::from(on), padding: [0; 2] };
        self.context.queue.write_buffer(&self.parameters, 0, bytemuck::bytes_of(&parameters));
    }

    /// Every game back at its start, the players' colours drawn anew from
    /// `seed`, as [`crate::env::Env::reset`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reset(&mut self, seed: u64) -> Result<(), GpuError> {
        crate::gpu::block_on(self.reset_async(seed))
    }

    /// [`DeviceGameEnv::reset`], awaited.
    pub async fn reset_async(&mut self, seed: u64) -> Result<(), GpuError> {
        self.check_open()?;
        let records = match self.run(G::RESET_KERNELS).await {
            Ok(records) => records,
            Err(error) => return Err(self.close(error)),
        };
        self.seed = seed;
        for (game, (players, resets)) in self.players.iter_mut().zip(&mut self.resets).enumerate() {
            *players = draw_players(seed, 0, game);
            *resets = 1;
        }
        self.lay_out(&records, &[])
    }

    /// Plays one action in every game (`actions[i]` in game `i`), as
    /// [`crate::env::Env::step`] plays it; refused, with no game changed,
    /// when there is not one action a game or one is outside the actions.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceStepError> {
        crate::gpu::block_on(self.step_async(actions))
    }

    /// [`DeviceGameEnv::step`], awaited.
    pub async fn step_async<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceStepError> {
        let expected = self.batch_size();
        if actions.len() != expected {
            return Err(EnvError::BatchSize { expected, got: actions.len() }.into());
        }
        let mut words = Vec::with_capacity(expected);
        for (game, &action) in actions.iter().enumerate() {
            let action = action.into();
            if !(0..G::Env::ACTIONS as i64).contains(&action) {
                return Err(EnvError::ActionOutOfRange { game, action, actions: G::Env::ACTIONS }.into());
            }
            // A game over is not stepped; one auto-reset put in place of a
            // game that ended is (crate::env's rule).
            let ended = self.arrays.terminated[game] || self.arrays.truncated[game];
            let stepped = !ended || (self.auto_reset && !is_over(ended, self.arrays.step_count[game]));
            words.push(if stepped { action as u32 } else { u32::MAX });
        }
        self.check_open()?;
        self.context.queue.write_buffer(&self.actions, 0, bytemuck::cast_slice(&words));
        let mut entry_points = G::STEP_KERNELS.to_vec();
        if self.auto_reset {
            entry_points.extend(G::AUTO_RESET_KERNELS);
        }
        let records = match self.run(&entry_points).await {
            Ok(records) => records,
            Err(error) => return Err(self.close(error).into()),
        };
        let movers = self.players.clone();
        for (game, record) in records.iter().enumerate() {
            if record.result == RESULT_RESET {
                self.players[game] = draw_players(self.seed, self.resets[game], game);
                self.resets[game] = self.resets[game].wrapping_add(1);
            }
        }
        Ok(self.lay_out(&records, &movers)?)
    }

    fn check_open(&self) -> Result<(), GpuError> {
        match &self.closed {
            Some(reason) => Err(GpuError::Internal(format!(
                "the environment was closed by an earlier GPU failure ({reason}); make a new one"
            ))),
            None => Ok(()),
        }
    }

    /// Closes the environment for `error`, and returns it.
    fn close(&mut self, error: GpuError) -> GpuError {
        self.closed = Some(error.to_string());
        error
    }

    /// Runs `entry_points` over every game in one submission and reads
    /// every game's record back in one round trip.
    async fn run(&self, entry_points: &[&str]) -> Result<Vec<Record<G>>, GpuError> {
        let context = &self.context;
        let mut encoder = context.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.status, 0, None);
        for entry_point in entry_points {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(entry_point), timestamp_writes: None });
            pass.set_pipeline(self.kernels.pipeline(entry_point));
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(self.count.div_ceil(self.kernels.workgroup_size(entry_point)), 1, 1);
        }
        context.scoped_async(|| context.submit([encoder.finish()])).await?;
        let count = u64::from(self.count);
        let sizes = [
            4,
            count * 4,
            count * size_of::<DeviceGameState>() as u64,
            count * 4 * G::MASK_WORDS as u64,
            count * size_of::<G::Position>() as u64,
            count * 4 * G::RECENT_WORDS as u64,
        ];
        let recent_offset = count * 4 * G::HISTORY_WORDS as u64;
        let mut ranges = vec![
            (&self.status, 0, sizes[0]),
            (&self.results, 0, sizes[1]),
            (&self.game_states, 0, sizes[2]),
            (&self.legal, 0, sizes[3]),
            (&self.games, 0, sizes[4]),
        ];
        if G::RECENT_WORDS > 0 {
            ranges.push((&self.history, recent_offset, sizes[5]));
        }
        let words: Vec<u32> = self.staging.read_ranges(context, &ranges).await?;
        match words[0] {
            0 => {}
            flags if flags & FAULT_REPLAY != 0 => {
                return Err(GpuError::ShaderFault(format!(
                    "replaying a {} game's moves met one its kernels call illegal (flags {flags:#x})",
                    G::NAME
                )));
            }
            flags => return Err(GpuError::ShaderFault(format!("{} environment fault flags {flags:#x}", G::NAME))),
        }
        let mut rest = &words[1..];
        let mut take = |bytes: u64| {
            let (taken, after) = rest.split_at(bytes as usize / 4);
            rest = after;
            taken
        };
        let results = take(sizes[1]);
        let states: &[DeviceGameState] = bytemuck::cast_slice(take(sizes[2]));
        let legal = take(sizes[3]);
        let positions: &[G::Position] = bytemuck::cast_slice(take(sizes[4]));
        let recent = take(if G::RECENT_WORDS > 0 { sizes[5] } else { 0 });
        Ok((0..self.count as usize)
            .map(|game| Record {
                result: results[game],
                state: states[game],
                legal: legal[game * G::MASK_WORDS..][..G::MASK_WORDS].to_vec(),
                position: positions[game],
                recent: recent[game * G::RECENT_WORDS..][..G::RECENT_WORDS].to_vec(),
            })
            .collect())
    }

    /// Writes every game's rows from `records`; `movers` holds each game's
    /// players before the step (empty after a reset).
    fn lay_out(&mut self, records: &[Record<G>], movers: &[[u8; 2]]) -> Result<(), GpuError> {
        if let Some(game) =
            records.iter().position(|record| record.result == RESULT_OVER || record.result > RESULT_RESET)
        {
            let error = GpuError::Internal(format!(
                "{} game {game} reads result {} on the device, over or unknown to its rows",
                G::NAME,
                records[game].result
            ));
            return Err(self.close(error));
        }
        (self.players.par_iter(), self.arrays.par_rows_mut()).into_par_iter().enumerate().for_each(
            |(
                game,
                (players, Rows { current_player, rewards, terminated, truncated, mask, observation, step_count }),
            )| {
                let record = &records[game];
                let color = G::to_move(&record.position);
                let by_player = |rewards: &mut [f32], players: [u8; 2], by_color: [f32; 2]| {
                    for (player, reward) in players.iter().zip(by_color) {
                        rewards[usize::from(*player)] = reward;
                    }
                };
                let mut observe = true;
                match record.result {
                    RESULT_SET_UP => {
                        *current_player = i32::from(players[color]);
                        rewards.fill(0.0);
                        *terminated = false;
                        *step_count = 0;
                        G::unpack_mask(&record.legal, mask);
                    }
                    RESULT_NOT_STEPPED => {
                        rewards.fill(0.0);
                        observe = false;
                    }
                    RESULT_ILLEGAL => {
                        // The board stays; the turn passes (crate::env's notes).
                        let mover = usize::from(movers[game][color]);
                        *step_count += 1;
                        rewards.fill(1.0);
                        rewards[mover] = -1.0;
                        *terminated = true;
                        *current_player = 1 - mover as i32;
                        mask.fill(true);
                        observe = false;
                    }
                    RESULT_PLAYED => {
                        *step_count += 1;
                        by_player(rewards, movers[game], record.state.rewards);
                        *terminated = record.state.over != 0;
                        *current_player = i32::from(players[color]);
                        if *terminated {
                            mask.fill(true);
                        } else {
                            G::unpack_mask(&record.legal, mask);
                        }
                    }
                    _ => {
                        // RESULT_RESET: the ended game's rewards by its
                        // players, then the new game's rows.
                        by_player(rewards, movers[game], record.state.rewards);
                        *terminated = true;
                        *step_count = 0;
                        *current_player = i32::from(players[color]);
                        G::unpack_mask(&record.legal, mask);
                    }
                }
                *truncated = false;
                if observe {
                    G::observe(record, observation);
                }
            },
        );
        Ok(())
    }

    /// pgx's arrays of every game, as the last step, reset or restore left them.
    pub fn arrays(&self) -> &BatchArrays<bool> {
        &self.arrays
    }

    /// Which player plays each colour in game `game` (`[first, second]`).
    pub fn players(&self, game: usize) -> [u8; 2] {
        self.players[game]
    }

    /// The chosen games as they stand, each to be put back by
    /// [`DeviceGameEnv::restore`] in any game of a batch of this size: one
    /// round trip for all, the history whole. A game outside the batch
    /// panics, as an index out of bounds does.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn snapshots(&mut self, chosen: &[usize]) -> Result<Vec<DeviceSnapshot<G>>, GpuError> {
        crate::gpu::block_on(self.snapshots_async(chosen))
    }

    /// [`DeviceGameEnv::snapshots`], awaited.
    pub async fn snapshots_async(&mut self, chosen: &[usize]) -> Result<Vec<DeviceSnapshot<G>>, GpuError> {
        if let Some(&game) = chosen.iter().find(|&&game| game >= self.batch_size()) {
            panic!("game {game} is outside the batch of {}", self.batch_size());
        }
        self.check_open()?;
        let count = u64::from(self.count);
        let (position_bytes, state_bytes) = (size_of::<G::Position>() as u64, size_of::<DeviceGameState>() as u64);
        let (history_bytes, recent_bytes) = (4 * G::HISTORY_WORDS as u64, 4 * G::RECENT_WORDS as u64);
        let mut ranges = Vec::with_capacity(4 * chosen.len());
        for &game in chosen {
            let game = game as u64;
            ranges.push((&self.games, game * position_bytes, position_bytes));
            ranges.push((&self.game_states, game * state_bytes, state_bytes));
            ranges.push((&self.history, game * history_bytes, history_bytes));
            if recent_bytes > 0 {
                ranges.push((&self.history, count * history_bytes + game * recent_bytes, recent_bytes));
            }
        }
        let words: Vec<u32> = match self.staging.read_ranges(&self.context, &ranges).await {
            Ok(words) => words,
            Err(error) => return Err(self.close(error)),
        };
        let size = ((position_bytes + state_bytes + history_bytes + recent_bytes) / 4) as usize;
        Ok(chosen
            .iter()
            .zip(words.chunks_exact(size))
            .map(|(&game, words)| {
                let (position, rest) = words.split_at(position_bytes as usize / 4);
                let (state, rest) = rest.split_at(state_bytes as usize / 4);
                let (history, recent) = rest.split_at(G::HISTORY_WORDS);
                DeviceSnapshot {
                    position: bytemuck::pod_read_unaligned(bytemuck::cast_slice(position)),
                    state: bytemuck::pod_read_unaligned(bytemuck::cast_slice(state)),
                    history: history.to_vec(),
                    recent: recent.to_vec(),
                    players: self.players[game],
                    current_player: self.arrays.current_player[game],
                    rewards: [self.arrays.rewards[2 * game], self.arrays.rewards[2 * game + 1]],
                    terminated: self.arrays.terminated[game],
                    truncated: self.arrays.truncated[game],
                    step_count: self.arrays.step_count[game],
                }
            })
            .collect())
    }

    /// Puts each `Some` snapshot in place of its game (`snapshots[i]` in
    /// game `i`; `None` leaves game `i` as it is), every array as it was
    /// when the snapshot was taken, as [`crate::env::Env::restore`] does.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn restore(&mut self, snapshots: &[Option<&DeviceSnapshot<G>>]) -> Result<(), DeviceStepError> {
        crate::gpu::block_on(self.restore_async(snapshots))
    }

    /// [`DeviceGameEnv::restore`], awaited.
    pub async fn restore_async(&mut self, snapshots: &[Option<&DeviceSnapshot<G>>]) -> Result<(), DeviceStepError> {
        let expected = self.batch_size();
        if snapshots.len() != expected {
            return Err(EnvError::BatchSize { expected, got: snapshots.len() }.into());
        }
        self.check_open()?;
        let queue = &self.context.queue;
        let count = u64::from(self.count);
        let (position_bytes, state_bytes) = (size_of::<G::Position>() as u64, size_of::<DeviceGameState>() as u64);
        let (history_bytes, recent_bytes) = (4 * G::HISTORY_WORDS as u64, 4 * G::RECENT_WORDS as u64);
        let mut results = vec![RESULT_NOT_STEPPED; expected];
        for (game, snapshot) in snapshots.iter().enumerate() {
            let Some(snapshot) = snapshot else { continue };
            results[game] = RESULT_SET_UP;
            let index = game as u64;
            queue.write_buffer(&self.games, index * position_bytes, bytemuck::bytes_of(&snapshot.position));
            queue.write_buffer(&self.game_states, index * state_bytes, bytemuck::bytes_of(&snapshot.state));
            queue.write_buffer(&self.history, index * history_bytes, bytemuck::cast_slice(&snapshot.history));
            if recent_bytes > 0 {
                queue.write_buffer(
                    &self.history,
                    count * history_bytes + index * recent_bytes,
                    bytemuck::cast_slice(&snapshot.recent),
                );
            }
        }
        queue.write_buffer(&self.results, 0, bytemuck::cast_slice(&results));
        let records = match self.run(G::SET_UP_KERNELS).await {
            Ok(records) => records,
            Err(error) => return Err(self.close(error).into()),
        };
        (self.players.par_iter_mut(), snapshots.par_iter(), self.arrays.par_rows_mut())
            .into_par_iter()
            .enumerate()
            .for_each(
                |(
                    game,
                    (
                        players,
                        snapshot,
                        Rows { current_player, rewards, terminated, truncated, mask, observation, step_count },
                    ),
                )| {
                    let Some(snapshot) = snapshot else { return };
                    let record = &records[game];
                    *players = snapshot.players;
                    *current_player = snapshot.current_player;
                    rewards.copy_from_slice(&snapshot.rewards);
                    *terminated = snapshot.terminated;
                    *truncated = snapshot.truncated;
                    *step_count = snapshot.step_count;
                    // A game over has an all-true mask, unless auto-reset
                    // already replaced it with a new game.
                    if is_over(snapshot.terminated || snapshot.truncated, snapshot.step_count) {
                        mask.fill(true);
                    } else {
                        G::unpack_mask(&record.legal, mask);
                    }
                    G::observe(record, observation);
                },
            );
        Ok(())
    }
}

/// One game of a [`DeviceGameEnv`] saved whole ([`DeviceGameEnv::snapshots`]):
/// the device's record of it and its arrays' rows.
pub struct DeviceSnapshot<G: DeviceGame> {
    position: G::Position,
    state: DeviceGameState,
    history: Vec<u32>,
    recent: Vec<u32>,
    players: [u8; 2],
    current_player: i32,
    rewards: [f32; 2],
    terminated: bool,
    truncated: bool,
    step_count: i32,
}

impl<G: DeviceGame> DeviceSnapshot<G> {
    /// Which player plays each colour in the game (`[first, second]`).
    pub fn players(&self) -> [u8; 2] {
        self.players
    }
}

// By hand: a derive would ask the game's marker type for each trait too.
impl<G: DeviceGame> Clone for DeviceSnapshot<G> {
    fn clone(&self) -> Self {
        DeviceSnapshot { history: self.history.clone(), recent: self.recent.clone(), ..*self }
    }
}

impl<G: DeviceGame> std::fmt::Debug for DeviceSnapshot<G> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DeviceSnapshot")
            .field("game", &G::NAME)
            .field("position", &self.position)
            .field("state", &self.state)
            .field("history_words", &self.history.len())
            .field("players", &self.players)
            .field("step_count", &self.step_count)
            .finish_non_exhaustive()
    }
}

impl<G: DeviceGame> PartialEq for DeviceSnapshot<G> {
    fn eq(&self, other: &Self) -> bool {
        self.position == other.position
            && self.state == other.state
            && self.history == other.history
            && self.recent == other.recent
            && self.players == other.players
            && self.current_player == other.current_player
            && self.rewards == other.rewards
            && self.terminated == other.terminated
            && self.truncated == other.truncated
            && self.step_count == other.step_count
    }
}

/// What [`DeviceGameEnv::step`] and [`DeviceGameEnv::restore`] refuse, or a GPU failure.
#[derive(Debug, thiserror::Error)]
pub enum DeviceStepError {
    /// A call refused before any game changed, as [`crate::env::Env::step`] refuses it.
    #[error(transparent)]
    Step(#[from] EnvError),
    /// The device failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}
