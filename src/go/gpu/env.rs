//! Go games kept on the device with pgx's arrays: the Go environments' GPU
//! backend ([`crate::env::Env`] with [`GoEnv`] steps them on the CPU),
//! equal to the CPU's array for array at every step (tests/gpu_env.rs, and
//! the self-test on a driver's first use).
//!
//! Each game's position, legal points, passes, end and rewards live in GPU
//! buffers, with what positional superko compares: a 64-bit hash of every
//! board since the start and every move, so that a board whose hash equals
//! an earlier one's is compared in full by replaying the moves to it
//! (shaders/go/kernels/environment.wgsl). A step uploads one action a game,
//! runs the step's kernels in one submission and reads back, in one round
//! trip, each game's result, state, legal points, position and last eight
//! boards; the host lays out pgx's arrays from them, as the chess backend
//! does ([`crate::chess::gpu::env::DeviceEnv`]). A game starts at the
//! empty board; a GPU failure is an error with no array changed, and closes
//! the environment.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::layout::PackedGoPosition;
use super::shaders;
use crate::env::{BatchArrays, EnvError, EnvGame, draw_players, is_over};
use crate::go::env::GoEnv;
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::{Staging, bind_group, buffer, buffer_with};
use crate::gpu::{Check, GpuContext, GpuError};

/// `RESULT_*` in environment.wgsl: what a step did to a game.
const RESULT_NOT_STEPPED: u32 = 0;
const RESULT_PLAYED: u32 = 1;
const RESULT_ILLEGAL: u32 = 2;
const RESULT_OVER: u32 = 3;
const RESULT_SET_UP: u32 = 4;
const RESULT_RESET: u32 = 5;
/// `FAULT_REPLAY` in environment.wgsl.
const FAULT_REPLAY: u32 = 8;
/// Boards an observation shows (`RECENT_BOARDS` in environment.wgsl).
const RECENT_BOARDS: usize = 8;
/// The most games a Go batch holds on the device (about 9.4 KB a game on
/// 19×19 for the superko history and recent boards, within one 128 MiB binding).
pub const MAX_GO_GAMES: usize = 1 << 13;

/// `GoEnvironmentParameters` in environment.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
struct GoEnvironmentParameters {
    count: u32,
    auto_reset: u32,
    padding: [u32; 2],
}

/// `GoGameState` in environment.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct GoGameState {
    steps: u32,
    over: u32,
    passes: u32,
    superko: u32,
    rewards: [f32; 2],
    padding: [u32; 2],
}

/// What a step left of one game, read back.
struct Record {
    result: u32,
    state: GoGameState,
    legal: Vec<u32>,
    position: PackedGoPosition,
    /// The last boards, the current first: black's words, then white's.
    recent: Vec<u32>,
}

/// Go games of `SIZE` on the device, with [`crate::env::Env`]'s arrays for
/// [`GoEnv<SIZE>`] (see the module documentation).
pub struct DeviceGoEnv<const SIZE: usize> {
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
}

impl<const SIZE: usize> DeviceGoEnv<SIZE> {
    /// Words of a bitmap in the shaders (`GO_WORDS`).
    const WORDS: usize = (SIZE * (SIZE + 1)).div_ceil(32);
    /// Steps after which a game ends (`MAX_STEPS` in environment.wgsl).
    const MAX_STEPS: usize = 2 * SIZE * SIZE;
    /// Words of a game's superko history (`HISTORY_WORDS`).
    const HISTORY_WORDS: usize = 3 * (Self::MAX_STEPS + 1);
    /// Words of a game's recent boards.
    const RECENT_WORDS: usize = RECENT_BOARDS * 2 * Self::WORDS;

    /// `batch_size` games (1 to [`MAX_GO_GAMES`]) at the empty board on
    /// `context`'s device, the players' colours drawn from `seed` as
    /// [`crate::env::Env::new`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext, batch_size: usize, seed: u64) -> Result<DeviceGoEnv<SIZE>, GpuError> {
        crate::gpu::block_on(DeviceGoEnv::new_async(context, batch_size, seed))
    }

    /// [`DeviceGoEnv::new`], awaited.
    pub async fn new_async(context: &GpuContext, batch_size: usize, seed: u64) -> Result<DeviceGoEnv<SIZE>, GpuError> {
        if batch_size == 0 || batch_size > MAX_GO_GAMES {
            return Err(GpuError::Limits(format!(
                "Go games on the device number 1 to {MAX_GO_GAMES}, not {batch_size}"
            )));
        }
        context.require_async(&[go_environment_check::<SIZE>()]).await?;
        let device = &context.device;
        let shader = reflect(shaders::compose("go_environment", SIZE as u32, &[])?)?;
        let count = batch_size as u32;
        let history_bytes = (batch_size * (Self::HISTORY_WORDS + Self::RECENT_WORDS) * 4) as u64;
        let limits = device.limits();
        if history_bytes > limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) {
            return Err(GpuError::Limits(format!(
                "{batch_size} Go games' histories take {history_bytes} bytes, past this device's largest storage binding"
            )));
        }
        let record_bytes =
            (4 + size_of::<GoGameState>() + 4 * Self::WORDS + size_of::<PackedGoPosition>() + 4 * Self::RECENT_WORDS)
                as u64;
        let mut env = context
            .scoped_async(|| {
                use wgpu::BufferUsages as Usage;
                let kernels = context.kernels(&shader, "go environment");
                let games = buffer(
                    device,
                    "Go games",
                    u64::from(count) * size_of::<PackedGoPosition>() as u64,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let legal = buffer(
                    device,
                    "legal points",
                    (batch_size * Self::WORDS * 4) as u64,
                    Usage::STORAGE | Usage::COPY_SRC,
                );
                let actions = buffer(device, "actions", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_DST);
                let results =
                    buffer(device, "results", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST);
                let game_states = buffer(
                    device,
                    "Go game states",
                    u64::from(count) * size_of::<GoGameState>() as u64,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let history = buffer(
                    device,
                    "superko history and recent boards",
                    history_bytes,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let status = buffer(device, "status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
                let parameters = buffer_with(
                    device,
                    "parameters",
                    &[GoEnvironmentParameters { count, auto_reset: 0, padding: [0; 2] }],
                    Usage::UNIFORM | Usage::COPY_DST,
                );
                let bind_group = bind_group(
                    device,
                    "Go environment",
                    &kernels.layout,
                    &[
                        (1, &games),
                        (2, &legal),
                        (3, &status),
                        (4, &parameters),
                        (5, &actions),
                        (6, &results),
                        (7, &game_states),
                        (8, &history),
                    ],
                );
                let staging = Staging::new(device, (4 + u64::from(count) * record_bytes).min(16 << 20));
                DeviceGoEnv {
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
                    arrays: BatchArrays::new(batch_size, GoEnv::<SIZE>::ACTIONS, GoEnv::<SIZE>::observation_len()),
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
        let parameters = GoEnvironmentParameters { count: self.count, auto_reset: u32::from(on), padding: [0; 2] };
        self.context.queue.write_buffer(&self.parameters, 0, bytemuck::bytes_of(&parameters));
    }

    /// Every game back at the empty board, the players' colours drawn anew
    /// from `seed`, as [`crate::env::Env::reset`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reset(&mut self, seed: u64) -> Result<(), GpuError> {
        crate::gpu::block_on(self.reset_async(seed))
    }

    /// [`DeviceGoEnv::reset`], awaited.
    pub async fn reset_async(&mut self, seed: u64) -> Result<(), GpuError> {
        self.check_open()?;
        let records = match self.run(&["reset_games"]).await {
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
    /// when there is not one action a game or one is outside `0..size²+1`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceGoError> {
        crate::gpu::block_on(self.step_async(actions))
    }

    /// [`DeviceGoEnv::step`], awaited.
    pub async fn step_async<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceGoError> {
        let expected = self.batch_size();
        if actions.len() != expected {
            return Err(EnvError::BatchSize { expected, got: actions.len() }.into());
        }
        let mut words = Vec::with_capacity(expected);
        for (game, &action) in actions.iter().enumerate() {
            let action = action.into();
            if !(0..GoEnv::<SIZE>::ACTIONS as i64).contains(&action) {
                return Err(EnvError::ActionOutOfRange { game, action, actions: GoEnv::<SIZE>::ACTIONS }.into());
            }
            // A game over is not stepped; one auto-reset put in place of a
            // game that ended is (crate::env's rule).
            let ended = self.arrays.terminated[game] || self.arrays.truncated[game];
            let stepped = !ended || (self.auto_reset && !is_over(ended, self.arrays.step_count[game]));
            words.push(if stepped { action as u32 } else { u32::MAX });
        }
        self.check_open()?;
        self.context.queue.write_buffer(&self.actions, 0, bytemuck::cast_slice(&words));
        let entry_points: &[&str] = if self.auto_reset {
            &["play_actions", "remember_boards", "write_legal", "reset_ended"]
        } else {
            &["play_actions", "remember_boards", "write_legal"]
        };
        let records = match self.run(entry_points).await {
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
    async fn run(&self, entry_points: &[&str]) -> Result<Vec<Record>, GpuError> {
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
            count * size_of::<GoGameState>() as u64,
            count * 4 * Self::WORDS as u64,
            count * size_of::<PackedGoPosition>() as u64,
            count * 4 * Self::RECENT_WORDS as u64,
        ];
        let recent_offset = count * 4 * Self::HISTORY_WORDS as u64;
        let words: Vec<u32> = self
            .staging
            .read_ranges(
                context,
                &[
                    (&self.status, 0, sizes[0]),
                    (&self.results, 0, sizes[1]),
                    (&self.game_states, 0, sizes[2]),
                    (&self.legal, 0, sizes[3]),
                    (&self.games, 0, sizes[4]),
                    (&self.history, recent_offset, sizes[5]),
                ],
            )
            .await?;
        match words[0] {
            0 => {}
            flags if flags & FAULT_REPLAY != 0 => {
                return Err(GpuError::ShaderFault(format!(
                    "replaying a Go game's moves met one its kernels call illegal (flags {flags:#x})"
                )));
            }
            flags => return Err(GpuError::ShaderFault(format!("Go environment fault flags {flags:#x}"))),
        }
        let mut rest = &words[1..];
        let mut take = |bytes: u64| {
            let (taken, after) = rest.split_at(bytes as usize / 4);
            rest = after;
            taken
        };
        let results = take(sizes[1]);
        let states: &[GoGameState] = bytemuck::cast_slice(take(sizes[2]));
        let legal = take(sizes[3]);
        let positions: &[PackedGoPosition] = bytemuck::cast_slice(take(sizes[4]));
        let recent = take(sizes[5]);
        Ok((0..self.count as usize)
            .map(|game| Record {
                result: results[game],
                state: states[game],
                legal: legal[game * Self::WORDS..][..Self::WORDS].to_vec(),
                position: positions[game],
                recent: recent[game * Self::RECENT_WORDS..][..Self::RECENT_WORDS].to_vec(),
            })
            .collect())
    }

    /// Writes every game's rows from `records`; `movers` holds each game's
    /// players before the step (empty after a reset).
    fn lay_out(&mut self, records: &[Record], movers: &[[u8; 2]]) -> Result<(), GpuError> {
        if let Some(game) =
            records.iter().position(|record| record.result == RESULT_OVER || record.result > RESULT_RESET)
        {
            let error = GpuError::Internal(format!(
                "Go game {game} reads result {} on the device, over or unknown to its rows",
                records[game].result
            ));
            return Err(self.close(error));
        }
        let actions = GoEnv::<SIZE>::ACTIONS;
        let width = GoEnv::<SIZE>::observation_len();
        (
            self.players.par_iter(),
            self.arrays.current_player.par_iter_mut(),
            self.arrays.rewards.par_chunks_mut(2),
            self.arrays.terminated.par_iter_mut(),
            self.arrays.truncated.par_iter_mut(),
            self.arrays.legal_action_mask.par_chunks_mut(actions),
            self.arrays.observation.par_chunks_mut(width),
            self.arrays.step_count.par_iter_mut(),
        )
            .into_par_iter()
            .enumerate()
            .for_each(
                |(game, (players, current_player, rewards, terminated, truncated, mask, observation, step_count))| {
                    let record = &records[game];
                    let color = record.position.to_move as usize;
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
                            unpack_legal::<SIZE>(&record.legal, mask);
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
                                unpack_legal::<SIZE>(&record.legal, mask);
                            }
                        }
                        _ => {
                            // RESULT_RESET: the ended game's rewards by its
                            // players, then the new game's rows.
                            by_player(rewards, movers[game], record.state.rewards);
                            *terminated = true;
                            *step_count = 0;
                            *current_player = i32::from(players[color]);
                            unpack_legal::<SIZE>(&record.legal, mask);
                        }
                    }
                    *truncated = false;
                    if observe {
                        observe_boards::<SIZE>(&record.recent, record.state.steps as usize, color, observation);
                    }
                },
            );
        Ok(())
    }

    /// pgx's arrays of every game, as the last step, reset or restore left them.
    pub fn arrays(&self) -> &BatchArrays<bool> {
        &self.arrays
    }

    /// Which player plays each colour in game `game` (`[black, white]`).
    pub fn players(&self, game: usize) -> [u8; 2] {
        self.players[game]
    }

    /// The chosen games as they stand, each to be put back by
    /// [`DeviceGoEnv::restore`] in any game of a batch of this size: one
    /// round trip for all (the superko history whole, 8.7 KB a game on
    /// 19×19). A game outside the batch panics, as an index out of bounds does.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn snapshots(&mut self, chosen: &[usize]) -> Result<Vec<DeviceGoSnapshot<SIZE>>, GpuError> {
        crate::gpu::block_on(self.snapshots_async(chosen))
    }

    /// [`DeviceGoEnv::snapshots`], awaited.
    pub async fn snapshots_async(&mut self, chosen: &[usize]) -> Result<Vec<DeviceGoSnapshot<SIZE>>, GpuError> {
        if let Some(&game) = chosen.iter().find(|&&game| game >= self.batch_size()) {
            panic!("game {game} is outside the batch of {}", self.batch_size());
        }
        self.check_open()?;
        let count = u64::from(self.count);
        let (position_bytes, state_bytes) = (size_of::<PackedGoPosition>() as u64, size_of::<GoGameState>() as u64);
        let (history_bytes, recent_bytes) = (4 * Self::HISTORY_WORDS as u64, 4 * Self::RECENT_WORDS as u64);
        let mut ranges = Vec::with_capacity(4 * chosen.len());
        for &game in chosen {
            let game = game as u64;
            ranges.push((&self.games, game * position_bytes, position_bytes));
            ranges.push((&self.game_states, game * state_bytes, state_bytes));
            ranges.push((&self.history, game * history_bytes, history_bytes));
            ranges.push((&self.history, count * history_bytes + game * recent_bytes, recent_bytes));
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
                let (history, recent) = rest.split_at(Self::HISTORY_WORDS);
                DeviceGoSnapshot {
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
    pub fn restore(&mut self, snapshots: &[Option<&DeviceGoSnapshot<SIZE>>]) -> Result<(), DeviceGoError> {
        crate::gpu::block_on(self.restore_async(snapshots))
    }

    /// [`DeviceGoEnv::restore`], awaited.
    pub async fn restore_async(&mut self, snapshots: &[Option<&DeviceGoSnapshot<SIZE>>]) -> Result<(), DeviceGoError> {
        let expected = self.batch_size();
        if snapshots.len() != expected {
            return Err(EnvError::BatchSize { expected, got: snapshots.len() }.into());
        }
        self.check_open()?;
        let queue = &self.context.queue;
        let count = u64::from(self.count);
        let (position_bytes, state_bytes) = (size_of::<PackedGoPosition>() as u64, size_of::<GoGameState>() as u64);
        let (history_bytes, recent_bytes) = (4 * Self::HISTORY_WORDS as u64, 4 * Self::RECENT_WORDS as u64);
        let mut results = vec![RESULT_NOT_STEPPED; expected];
        for (game, snapshot) in snapshots.iter().enumerate() {
            let Some(snapshot) = snapshot else { continue };
            results[game] = RESULT_SET_UP;
            let index = game as u64;
            queue.write_buffer(&self.games, index * position_bytes, bytemuck::bytes_of(&snapshot.position));
            queue.write_buffer(&self.game_states, index * state_bytes, bytemuck::bytes_of(&snapshot.state));
            queue.write_buffer(&self.history, index * history_bytes, bytemuck::cast_slice(&snapshot.history));
            queue.write_buffer(
                &self.history,
                count * history_bytes + index * recent_bytes,
                bytemuck::cast_slice(&snapshot.recent),
            );
        }
        queue.write_buffer(&self.results, 0, bytemuck::cast_slice(&results));
        let records = match self.run(&["write_legal"]).await {
            Ok(records) => records,
            Err(error) => return Err(self.close(error).into()),
        };
        let actions = GoEnv::<SIZE>::ACTIONS;
        let width = GoEnv::<SIZE>::observation_len();
        (
            self.players.par_iter_mut(),
            snapshots.par_iter(),
            self.arrays.current_player.par_iter_mut(),
            self.arrays.rewards.par_chunks_mut(2),
            self.arrays.terminated.par_iter_mut(),
            self.arrays.truncated.par_iter_mut(),
            self.arrays.legal_action_mask.par_chunks_mut(actions),
            self.arrays.observation.par_chunks_mut(width),
            self.arrays.step_count.par_iter_mut(),
        )
            .into_par_iter()
            .enumerate()
            .for_each(
                |(
                    game,
                    (players, snapshot, current_player, rewards, terminated, truncated, mask, observation, step_count),
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
                        unpack_legal::<SIZE>(&record.legal, mask);
                    }
                    let color = record.position.to_move as usize;
                    observe_boards::<SIZE>(&record.recent, record.state.steps as usize, color, observation);
                },
            );
        Ok(())
    }
}

/// One Go game of a [`DeviceGoEnv`] saved whole ([`DeviceGoEnv::snapshots`]):
/// the device's record of it and its arrays' rows.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceGoSnapshot<const SIZE: usize> {
    position: PackedGoPosition,
    state: GoGameState,
    history: Vec<u32>,
    recent: Vec<u32>,
    players: [u8; 2],
    current_player: i32,
    rewards: [f32; 2],
    terminated: bool,
    truncated: bool,
    step_count: i32,
}

impl<const SIZE: usize> DeviceGoSnapshot<SIZE> {
    /// Which player plays each colour in the game (`[black, white]`).
    pub fn players(&self) -> [u8; 2] {
        self.players
    }
}

/// What [`DeviceGoEnv::step`] refuses, or a GPU failure.
#[derive(Debug, thiserror::Error)]
pub enum DeviceGoError {
    /// A step refused before any game changed, as [`crate::env::Env::step`] refuses it.
    #[error(transparent)]
    Step(#[from] EnvError),
    /// The device failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// The bit of point `index` (`row * size + column`) in the shaders' bitmaps.
fn bit_of<const SIZE: usize>(index: usize) -> usize {
    index / SIZE * (SIZE + 1) + index % SIZE
}

/// The mask of a game's legal points (the pass always legal).
fn unpack_legal<const SIZE: usize>(words: &[u32], mask: &mut [bool]) {
    for (index, legal) in mask.iter_mut().take(SIZE * SIZE).enumerate() {
        let bit = bit_of::<SIZE>(index);
        *legal = words[bit / 32] >> (bit % 32) & 1 == 1;
    }
    mask[SIZE * SIZE] = true;
}

/// pgx's observation from a game's recent boards (the current first; those
/// before the game began are empty), `steps` into the game, `color` to move.
fn observe_boards<const SIZE: usize>(recent: &[u32], steps: usize, color: usize, observation: &mut [bool]) {
    observation.fill(false);
    let words = recent.len() / (2 * RECENT_BOARDS);
    let planes = 2 * RECENT_BOARDS + 1;
    for back in 0..RECENT_BOARDS.min(steps + 1) {
        let board = &recent[back * 2 * words..][..2 * words];
        for (plane, stones_color) in [(2 * back, color), (2 * back + 1, 1 - color)] {
            let stones = &board[stones_color * words..][..words];
            for index in 0..SIZE * SIZE {
                let bit = bit_of::<SIZE>(index);
                if stones[bit / 32] >> (bit % 32) & 1 == 1 {
                    observation[index * planes + plane] = true;
                }
            }
        }
    }
    if color == 1 {
        for index in 0..SIZE * SIZE {
            observation[index * planes + planes - 1] = true;
        }
    }
}

/// The Go environment's kernels and the host's lay-out against the CPU
/// environment, array for array, for the self-test: random games with
/// passes now and then and an action outside the mask now and then, with
/// auto-reset, long enough for games to end by two passes.
pub fn go_environment_check<const SIZE: usize>() -> Check {
    Check::new(format!("Go environment ({SIZE}x{SIZE}: step, legal points, ends, observation)"), |context| async move {
        let (games, seed) = (8, 3);
        let mut cpu = crate::env::Env::<GoEnv<SIZE>>::new(games, seed);
        let mut device =
            DeviceGoEnv::<SIZE>::new_async(&context, games, seed).await.map_err(|error| error.to_string())?;
        cpu.set_auto_reset(true);
        device.set_auto_reset(true);
        let mut random = crate::random::ShaderRandom::new(seed as u32, 1);
        let actions_count = GoEnv::<SIZE>::ACTIONS as u32;
        for step in 0..48 {
            let same = device.arrays().current_player() == cpu.current_player()
                && device.arrays().rewards() == cpu.rewards()
                && device.arrays().terminated() == cpu.terminated()
                && device.arrays().step_count() == cpu.step_count()
                && device.arrays().legal_action_mask() == cpu.legal_action_mask()
                && device.arrays().observation() == cpu.observation();
            if !same {
                return Err(format!("after step {step}: an array differs from the CPU environment's"));
            }
            let actions: Vec<u32> = (0..games)
                .map(|game| {
                    let legal = cpu.legal_actions(game);
                    match random.below(16) {
                        0 | 1 => actions_count - 1,
                        2 => random.below(actions_count),
                        _ => legal[random.below(legal.len() as u32) as usize],
                    }
                })
                .collect();
            cpu.step(&actions).expect("actions in range");
            device.step_async(&actions).await.map_err(|error| error.to_string())?;
        }
        Ok(())
    })
}
