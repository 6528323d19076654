//! Chess games kept on the device and stepped there: the core of the
//! environments' GPU backend ([`crate::env`] steps them on the CPU). A
//! [`DeviceGames`] holds each game's position and its legal-action mask
//! (pgx's 4,672 actions, [`crate::chess::env`]) in GPU buffers; a step
//! uploads one action a game, and one submission plays every action its
//! game's mask holds, writes the new masks and judges each game's end
//! (shaders/chess/kernels/environment.wgsl). What comes back is one result
//! word a game; the masks, ends and positions only when asked for
//! ([`DeviceGames::masks`], [`DeviceGames::outcomes`],
//! [`DeviceGames::positions`]).
//!
//! The end of a game is judged there too, by the CPU environment's rules
//! ([`crate::chess::env`]): checkmate, stalemate, the fifty-move rule,
//! threefold repetition (each game keeps the keys of its positions since
//! its last pawn move or capture), insufficient material, the step limit,
//! and an action outside the mask, which the mover loses. The observation,
//! the players' colours and auto-reset are still the CPU's. tests/gpu_env.rs
//! steps games here and in [`crate::env::Env`] side by side and compares
//! every position, mask, end and reward.

use bytemuck::{Pod, Zeroable};

use super::layout::PackedPosition;
use super::movegen::{ACTION_MASK_WORDS, check_build};
use super::shaders::{self, ShaderBuild};
use crate::chess::board::Color;
use crate::chess::env::{ACTIONS, ObservationView, write_observation};
use crate::chess::position::Position;
use crate::env::EnvError;
use crate::env::{BatchArrays, Rows, draw_players, is_over};
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::{Staging, bind_group, buffer, buffer_with};
use crate::gpu::{Check, GpuContext, GpuError};
use rayon::prelude::*;

/// The most games one [`DeviceGames`] holds: their repetition keys and
/// recent positions (3.9 KB a game) fit one 128 MiB binding.
pub const MAX_GAMES: usize = 1 << 15;

/// Keys a game keeps for repetition (`HISTORY_KEYS` in environment.wgsl):
/// a run of reversible moves ends by the fifty-move rule at its 101st position.
const HISTORY_KEYS: usize = 101;
/// Words of one key (`KEY_WORDS` in environment.wgsl).
const KEY_WORDS: usize = 9;
/// Positions an observation shows (`RECENT_POSITIONS` in environment.wgsl).
const RECENT_POSITIONS: usize = crate::chess::env::RECENT_POSITIONS;
/// Words of a game's recent positions (`RECENT_WORDS` in environment.wgsl):
/// their keys, the current first, then how often each has arisen.
const RECENT_WORDS: usize = RECENT_POSITIONS * KEY_WORDS + RECENT_POSITIONS;

/// What a step did to one game (`results` in environment.wgsl).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepResult {
    /// No action was given for it.
    NotStepped,
    /// Its action was legal and is played; its mask is the new position's.
    Played,
    /// Its action was not in its mask: the game is over, lost by the side
    /// that chose it, its board as it was.
    Illegal,
    /// It had ended before the step: nothing changed.
    Over,
    /// It was just set up ([`DeviceGames::new`], [`DeviceGames::reset_all`]):
    /// its mask is written, no step played.
    SetUp,
    /// It ended in this step, and with auto-reset on
    /// ([`DeviceGames::set_auto_reset`]) a new game from the start took its
    /// place; [`DeviceGames::outcomes`] holds the ended game's rewards.
    Reset,
}

/// Where one game stands (`GameState` in environment.wgsl, less what only
/// the kernels read).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameOutcome {
    /// Actions played (an action outside the mask is not one).
    pub steps: u32,
    /// Whether the game has ended.
    pub over: bool,
    /// Each colour's reward (white's, black's) for the last step: zero
    /// unless it ended the game with a winner.
    pub rewards: [f32; 2],
}

/// `GameState` in environment.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct GameState {
    steps: u32,
    over: u32,
    passed: u32,
    run_length: u32,
    rewards: [f32; 2],
    padding: [u32; 2],
}

/// What [`DeviceGames`] refuses, or a GPU failure.
#[derive(Debug, thiserror::Error)]
pub enum DeviceGamesError {
    /// A batch of no games or of more than [`MAX_GAMES`].
    #[error("device games hold 1 to {MAX_GAMES} games, not {0}")]
    BatchSize(usize),
    /// A Chess960 position: the environment's actions are standard chess's
    /// (castling is the king's two-square move).
    #[error("game {0} is a Chess960 position; the chess environment plays standard chess")]
    Chess960(usize),
    /// A step refused before any game changed, as [`crate::env::Env::step`] refuses it.
    #[error(transparent)]
    Step(#[from] EnvError),
    /// The device failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// `EnvironmentParameters` in environment.wgsl: the batch size, whether
/// games are reset when they end, and the position a new game starts from.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
struct EnvironmentParameters {
    count: u32,
    auto_reset: u32,
    padding: [u32; 2],
    /// The start's planes, as `PackedPosition::planes`.
    start_planes: [[u32; 2]; 4],
    /// The start's state and counters words, the square its last double
    /// push passed, padding.
    start_words: [u32; 4],
}

impl EnvironmentParameters {
    fn new(count: u32, auto_reset: bool) -> EnvironmentParameters {
        let start = Position::start();
        let packed = PackedPosition::from(&start);
        let passed = start.en_passant().map_or(64, |square| square as u32);
        EnvironmentParameters {
            count,
            auto_reset: u32::from(auto_reset),
            padding: [0; 2],
            start_planes: packed.planes,
            start_words: [packed.state, packed.counters, passed, 0],
        }
    }
}

/// Bytes a game's records take: result, state, mask, position, recent positions.
const GAME_STATE_BYTES: u64 = size_of::<GameState>() as u64;
const MASK_BYTES: u64 = (ACTION_MASK_WORDS * 4) as u64;
const POSITION_BYTES: u64 = size_of::<PackedPosition>() as u64;
const RECENT_BYTES: u64 = (RECENT_WORDS * 4) as u64;
const RECORD_BYTES: u64 = 4 + GAME_STATE_BYTES + MASK_BYTES + POSITION_BYTES + RECENT_BYTES;

impl From<&GameState> for GameOutcome {
    fn from(state: &GameState) -> GameOutcome {
        GameOutcome { steps: state.steps, over: state.over != 0, rewards: state.rewards }
    }
}

/// A result word as a [`StepResult`].
fn step_result(word: u32) -> Result<StepResult, GpuError> {
    match word {
        RESULT_NOT_STEPPED => Ok(StepResult::NotStepped),
        RESULT_PLAYED => Ok(StepResult::Played),
        RESULT_ILLEGAL => Ok(StepResult::Illegal),
        RESULT_OVER => Ok(StepResult::Over),
        RESULT_RESET => Ok(StepResult::Reset),
        RESULT_SET_UP => Ok(StepResult::SetUp),
        other => Err(GpuError::Internal(format!("a step's result reads {other}"))),
    }
}

/// The action word of a game not stepped (`NO_ACTION` in actions.wgsl).
const NO_ACTION: u32 = u32::MAX;
/// `RESULT_*` in environment.wgsl: what a step did to a game.
const RESULT_NOT_STEPPED: u32 = 0;
const RESULT_PLAYED: u32 = 1;
const RESULT_ILLEGAL: u32 = 2;
const RESULT_OVER: u32 = 3;
/// `RESULT_SET_UP` in environment.wgsl: a mask to write, no end to judge.
const RESULT_SET_UP: u32 = 4;
const RESULT_RESET: u32 = 5;
/// `FAULT_HISTORY_FULL` in environment.wgsl.
const FAULT_HISTORY_FULL: u32 = 16;
/// `FAULT_MASK_MISMATCH` in environment.wgsl.
const FAULT_MASK_MISMATCH: u32 = 8;

/// Chess games on the device (see the module documentation).
pub struct DeviceGames {
    context: GpuContext,
    kernels: Kernels,
    count: u32,
    games: wgpu::Buffer,
    masks: wgpu::Buffer,
    actions: wgpu::Buffer,
    results: wgpu::Buffer,
    game_states: wgpu::Buffer,
    history: wgpu::Buffer,
    status: wgpu::Buffer,
    parameters: wgpu::Buffer,
    auto_reset: bool,
    bind_group: wgpu::BindGroup,
    staging: Staging,
}

/// One game as the device keeps it ([`DeviceGames::save_async`]): its
/// position, state, recent positions and its run's repetition keys.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedGame {
    position: PackedPosition,
    state: GameState,
    recent: [u32; RECENT_WORDS],
    run: Vec<u32>,
}

/// Everything a step leaves of every game, read back in one round trip
/// ([`DeviceGames::records`]): what an environment's arrays are drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// What the last step did to each game.
    pub results: Vec<StepResult>,
    /// Where each game stands.
    pub outcomes: Vec<GameOutcome>,
    /// Each game's mask, [`ACTION_MASK_WORDS`] words a game.
    pub masks: Vec<u32>,
    /// Each game's position.
    pub positions: Vec<PackedPosition>,
    /// Each game's recent positions, the current first: the key's four
    /// planes and how often the position has arisen in the game (0: before
    /// the game began).
    pub recent: Vec<[([u64; 4], u32); RECENT_POSITIONS]>,
}

/// The chess shader build perft chooses on `context`'s adapter
/// (`info` names it and says why), which the environment uses too.
pub fn adapter_build(context: &GpuContext) -> ShaderBuild {
    crate::catalog::chess_default_build(context, super::KernelFamily::Chess).0
}

impl DeviceGames {
    /// The games of `positions` (standard chess, at most [`MAX_GAMES`]) on
    /// `context`'s device, in the shader build perft chooses for its
    /// adapter, with their masks written.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext, positions: &[Position]) -> Result<DeviceGames, DeviceGamesError> {
        crate::gpu::block_on(DeviceGames::new_async(context, positions, adapter_build(context)))
    }

    /// [`DeviceGames::new`] in a chosen build, awaited.
    pub async fn new_async(
        context: &GpuContext,
        positions: &[Position],
        build: ShaderBuild,
    ) -> Result<DeviceGames, DeviceGamesError> {
        if positions.is_empty() || positions.len() > MAX_GAMES {
            return Err(DeviceGamesError::BatchSize(positions.len()));
        }
        if let Some(game) = positions.iter().position(Position::is_chess960) {
            return Err(DeviceGamesError::Chess960(game));
        }
        let device = &context.device;
        check_build(device, build)?;
        context.require_async(&[environment_check(build)]).await?;
        let shader = reflect(shaders::compose_build("environment", build, &[]).map_err(GpuError::from)?)?;
        let count = positions.len() as u32;
        let packed: Vec<PackedPosition> = positions.iter().map(PackedPosition::from).collect();
        let mask_bytes = (positions.len() * ACTION_MASK_WORDS * 4) as u64;
        let history_bytes = (positions.len() * (HISTORY_KEYS * KEY_WORDS + RECENT_WORDS) * 4) as u64;
        let limits = device.limits();
        if history_bytes > limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) {
            return Err(GpuError::Limits(format!(
                "{} games' repetition keys and recent positions take {history_bytes} bytes, past this device's largest storage binding",
                positions.len()
            ))
            .into());
        }
        // Each game's history begins with its start's key, the square a
        // double push passed being the position's en passant square; so do
        // its recent positions, the start's arisen once.
        let runs = positions.len() * HISTORY_KEYS * KEY_WORDS;
        let mut history = vec![0u32; runs + positions.len() * RECENT_WORDS];
        let mut states = Vec::with_capacity(positions.len());
        for (game, (position, record)) in positions.iter().zip(&packed).enumerate() {
            let passed = position.en_passant().map_or(64, |square| square as u32);
            let key = &mut history[game * HISTORY_KEYS * KEY_WORDS..][..KEY_WORDS];
            for (plane, halves) in record.planes.iter().enumerate() {
                key[2 * plane..2 * plane + 2].copy_from_slice(halves);
            }
            key[8] = record.state & !0xff00 | passed << 8;
            let key: Vec<u32> = key.to_vec();
            let recent = &mut history[runs + game * RECENT_WORDS..][..RECENT_WORDS];
            recent[..KEY_WORDS].copy_from_slice(&key);
            recent[RECENT_POSITIONS * KEY_WORDS] = 1;
            states.push(GameState { steps: 0, over: 0, passed, run_length: 1, rewards: [0.0; 2], padding: [0; 2] });
        }
        let games = context
            .scoped_async(|| {
                use wgpu::BufferUsages as Usage;
                let kernels = context.kernels(&shader, "environment");
                let tables =
                    buffer_with(device, "attack tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
                let games = buffer_with(device, "games", &packed, Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST);
                let masks = buffer(device, "action masks", mask_bytes, Usage::STORAGE | Usage::COPY_SRC);
                let actions = buffer(device, "actions", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_DST);
                // Every game's result reads "set up", so that the first
                // `write_masks` writes every mask and judges no end.
                let results = buffer_with(
                    device,
                    "results",
                    &vec![RESULT_SET_UP; positions.len()],
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let game_states =
                    buffer_with(device, "game states", &states, Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST);
                let history = buffer_with(
                    device,
                    "repetition keys and recent positions",
                    &history,
                    Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
                );
                let status = buffer(device, "status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
                let parameters = buffer_with(
                    device,
                    "parameters",
                    &[EnvironmentParameters::new(count, false)],
                    Usage::UNIFORM | Usage::COPY_DST,
                );
                let bind_group = bind_group(
                    device,
                    "environment",
                    &kernels.layout,
                    &[
                        (0, &tables),
                        (1, &games),
                        (2, &masks),
                        (3, &status),
                        (4, &parameters),
                        (5, &actions),
                        (6, &results),
                        (7, &game_states),
                        (8, &history),
                    ],
                );
                // Enough for every record at once, up to 16 MiB a round trip.
                let staging = Staging::new(device, (4 + u64::from(count) * RECORD_BYTES).min(16 << 20));
                DeviceGames {
                    context: context.clone(),
                    kernels,
                    count,
                    games,
                    masks,
                    actions,
                    results,
                    game_states,
                    history,
                    status,
                    parameters,
                    auto_reset: false,
                    bind_group,
                    staging,
                }
            })
            .await?;
        games.dispatch(&["write_masks"]).await?;
        games.check(games.staging.read(context, &games.status, 0, 4).await?[0])?;
        Ok(games)
    }

    /// Games held.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether it holds no game (never: a batch has at least one).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Plays each game's action (`None`: the game is not stepped), when its
    /// mask holds it, and judges whether the game has ended
    /// ([`DeviceGames::outcomes`]); one action a game. A game already over
    /// is not stepped ([`StepResult::Over`]). An action outside the mask
    /// ends its game, lost by the side that chose it, the board as it was
    /// ([`StepResult::Illegal`]). A batch of the wrong length, or an action
    /// past the last, is refused before any game changes
    /// ([`DeviceGamesError::Step`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step(&mut self, actions: &[Option<u32>]) -> Result<Vec<StepResult>, DeviceGamesError> {
        crate::gpu::block_on(self.step_async(actions))
    }

    /// [`DeviceGames::step`], awaited.
    pub async fn step_async(&mut self, actions: &[Option<u32>]) -> Result<Vec<StepResult>, DeviceGamesError> {
        self.submit_step(actions).await?;
        let words: Vec<u32> = self
            .staging
            .read_ranges(&self.context, &[(&self.status, 0, 4), (&self.results, 0, u64::from(self.count) * 4)])
            .await?;
        self.check(words[0])?;
        Ok(words[1..].iter().map(|&result| step_result(result)).collect::<Result<_, _>>()?)
    }

    /// Uploads the actions and submits a step's dispatches, unchecked.
    async fn submit_step(&mut self, actions: &[Option<u32>]) -> Result<(), DeviceGamesError> {
        if actions.len() != self.len() {
            return Err(EnvError::BatchSize { expected: self.len(), got: actions.len() }.into());
        }
        let out_of_range = actions.iter().enumerate().find_map(|(game, action)| {
            action.filter(|&action| action as usize >= ACTIONS).map(|action| (game, action))
        });
        if let Some((game, action)) = out_of_range {
            return Err(EnvError::ActionOutOfRange { game, action: i64::from(action), actions: ACTIONS }.into());
        }
        let words: Vec<u32> = actions.iter().map(|action| action.unwrap_or(NO_ACTION)).collect();
        self.context.queue.write_buffer(&self.actions, 0, bytemuck::cast_slice(&words));
        let entry_points: &[&str] = if self.auto_reset {
            &["play_actions", "remember_positions", "write_masks", "reset_ended"]
        } else {
            &["play_actions", "remember_positions", "write_masks"]
        };
        self.dispatch(entry_points).await?;
        Ok(())
    }

    /// [`DeviceGames::step`], then everything the step left of every game
    /// ([`Records`]) in the same round trip: what an environment's step
    /// reads back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step_records(&mut self, actions: &[Option<u32>]) -> Result<Records, DeviceGamesError> {
        crate::gpu::block_on(self.step_records_async(actions))
    }

    /// [`DeviceGames::step_records`], awaited.
    pub async fn step_records_async(&mut self, actions: &[Option<u32>]) -> Result<Records, DeviceGamesError> {
        self.submit_step(actions).await?;
        Ok(self.read_records().await?)
    }

    /// Every game back at the start (auto-reset's new game, whatever
    /// position it began from), its rewards zero, and the records.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reset_all(&mut self) -> Result<Records, GpuError> {
        crate::gpu::block_on(self.reset_all_async())
    }

    /// [`DeviceGames::reset_all`], awaited.
    pub async fn reset_all_async(&mut self) -> Result<Records, GpuError> {
        self.dispatch(&["reset_games"]).await?;
        self.read_records().await
    }

    /// Whether a game that ends is replaced at once by a new one from the
    /// start ([`StepResult::Reset`]), as pgx's `auto_reset` wrapper does.
    pub fn set_auto_reset(&mut self, on: bool) {
        self.auto_reset = on;
        let parameters = EnvironmentParameters::new(self.count, on);
        self.context.queue.write_buffer(&self.parameters, 0, bytemuck::bytes_of(&parameters));
    }

    /// The chosen games as the device keeps them, to be put back by
    /// [`DeviceGames::restore_async`]: one round trip for all.
    pub async fn save_async(&self, chosen: &[usize]) -> Result<Vec<SavedGame>, GpuError> {
        let runs = u64::from(self.count) * (HISTORY_KEYS * KEY_WORDS * 4) as u64;
        let run_bytes = (HISTORY_KEYS * KEY_WORDS * 4) as u64;
        let mut ranges = Vec::with_capacity(chosen.len() * 4);
        for &game in chosen {
            let game = game as u64;
            ranges.push((&self.games, game * POSITION_BYTES, POSITION_BYTES));
            ranges.push((&self.game_states, game * GAME_STATE_BYTES, GAME_STATE_BYTES));
            ranges.push((&self.history, runs + game * RECENT_BYTES, RECENT_BYTES));
            ranges.push((&self.history, game * run_bytes, run_bytes));
        }
        let words: Vec<u32> = self.staging.read_ranges(&self.context, &ranges).await?;
        let size = (POSITION_BYTES + GAME_STATE_BYTES + RECENT_BYTES + run_bytes) as usize / 4;
        words
            .chunks_exact(size)
            .map(|words| {
                let (position, rest) = words.split_at(POSITION_BYTES as usize / 4);
                let (state, rest) = rest.split_at(GAME_STATE_BYTES as usize / 4);
                let (recent, run) = rest.split_at(RECENT_WORDS);
                let state: GameState = bytemuck::pod_read_unaligned(bytemuck::cast_slice(state));
                let length = state.run_length as usize;
                if !(1..=HISTORY_KEYS).contains(&length) {
                    return Err(GpuError::Internal(format!("a saved game's run reads {length} keys")));
                }
                Ok(SavedGame {
                    position: bytemuck::pod_read_unaligned(bytemuck::cast_slice(position)),
                    state,
                    recent: recent.try_into().expect("RECENT_WORDS words"),
                    run: run[..length * KEY_WORDS].to_vec(),
                })
            })
            .collect()
    }

    /// Puts each saved game in place of the game it is paired with, writes
    /// their masks, and reads back the records (the games not restored read
    /// [`StepResult::NotStepped`], the restored ones [`StepResult::SetUp`]).
    pub async fn restore_async(&mut self, restored: &[(usize, &SavedGame)]) -> Result<Records, GpuError> {
        let queue = &self.context.queue;
        let runs = u64::from(self.count) * (HISTORY_KEYS * KEY_WORDS * 4) as u64;
        let mut results = vec![RESULT_NOT_STEPPED; self.len()];
        for &(game, saved) in restored {
            results[game] = RESULT_SET_UP;
            let index = game as u64;
            queue.write_buffer(&self.games, index * POSITION_BYTES, bytemuck::bytes_of(&saved.position));
            queue.write_buffer(&self.game_states, index * GAME_STATE_BYTES, bytemuck::bytes_of(&saved.state));
            queue.write_buffer(&self.history, runs + index * RECENT_BYTES, bytemuck::cast_slice(&saved.recent));
            queue.write_buffer(
                &self.history,
                index * (HISTORY_KEYS * KEY_WORDS * 4) as u64,
                bytemuck::cast_slice(&saved.run),
            );
        }
        queue.write_buffer(&self.results, 0, bytemuck::cast_slice(&results));
        self.dispatch(&["write_masks"]).await?;
        self.read_records().await
    }

    /// Everything the last step left of every game (see [`Records`]), in
    /// one round trip; a fault a kernel flagged is an error.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn records(&self) -> Result<Records, GpuError> {
        crate::gpu::block_on(self.read_records())
    }

    async fn read_records(&self) -> Result<Records, GpuError> {
        let count = u64::from(self.count);
        let runs = count * (HISTORY_KEYS * KEY_WORDS * 4) as u64;
        let sizes =
            [4, count * 4, count * GAME_STATE_BYTES, count * MASK_BYTES, count * POSITION_BYTES, count * RECENT_BYTES];
        let words: Vec<u32> = self
            .staging
            .read_ranges(
                &self.context,
                &[
                    (&self.status, 0, sizes[0]),
                    (&self.results, 0, sizes[1]),
                    (&self.game_states, 0, sizes[2]),
                    (&self.masks, 0, sizes[3]),
                    (&self.games, 0, sizes[4]),
                    (&self.history, runs, sizes[5]),
                ],
            )
            .await?;
        self.check(words[0])?;
        let mut rest = &words[1..];
        let mut take = |bytes: u64| {
            let (taken, after) = rest.split_at(bytes as usize / 4);
            rest = after;
            taken
        };
        let results = take(sizes[1]).iter().map(|&result| step_result(result)).collect::<Result<_, _>>()?;
        let states: &[GameState] = bytemuck::cast_slice(take(sizes[2]));
        let masks = take(sizes[3]).to_vec();
        let positions = bytemuck::cast_slice::<u32, PackedPosition>(take(sizes[4])).to_vec();
        let recent = take(sizes[5])
            .chunks_exact(RECENT_WORDS)
            .map(|words| {
                std::array::from_fn(|slot| {
                    let key = &words[slot * KEY_WORDS..][..8];
                    let planes = std::array::from_fn(|plane| super::layout::join([key[2 * plane], key[2 * plane + 1]]));
                    (planes, words[RECENT_POSITIONS * KEY_WORDS + slot])
                })
            })
            .collect();
        Ok(Records { results, outcomes: states.iter().map(GameOutcome::from).collect(), masks, positions, recent })
    }

    /// Every game's mask, [`ACTION_MASK_WORDS`] words a game: bit
    /// `action % 32` of word `action / 32` is set when the action is legal.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn masks(&self) -> Result<Vec<u32>, GpuError> {
        crate::gpu::block_on(self.staging.read(
            &self.context,
            &self.masks,
            0,
            (self.len() * ACTION_MASK_WORDS * 4) as u64,
        ))
    }

    /// Where every game stands: steps, whether it has ended, the last
    /// step's rewards.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn outcomes(&self) -> Result<Vec<GameOutcome>, GpuError> {
        let bytes = (self.len() * size_of::<GameState>()) as u64;
        let states: Vec<GameState> =
            crate::gpu::block_on(self.staging.read(&self.context, &self.game_states, 0, bytes))?;
        Ok(states.iter().map(GameOutcome::from).collect())
    }

    /// Every game's position as the kernels hold it (an en passant square
    /// only where a pawn could take there).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn positions(&self) -> Result<Vec<PackedPosition>, GpuError> {
        let bytes = (self.len() * size_of::<PackedPosition>()) as u64;
        crate::gpu::block_on(self.staging.read(&self.context, &self.games, 0, bytes))
    }

    /// Runs each entry point over every game in turn, in one submission;
    /// the caller reads `status` back and [`DeviceGames::check`]s it.
    async fn dispatch(&self, entry_points: &[&str]) -> Result<(), GpuError> {
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
        context.scoped_async(|| context.submit([encoder.finish()])).await.map(|_| ())
    }

    /// The fault flags a step's kernels left in `status`, as an error.
    fn check(&self, status: u32) -> Result<(), GpuError> {
        match status {
            0 => Ok(()),
            flags if flags & FAULT_HISTORY_FULL != 0 => Err(GpuError::ShaderFault(format!(
                "a game's run of reversible moves outgrew its {HISTORY_KEYS} repetition keys (flags {flags:#x})"
            ))),
            flags if flags & FAULT_MASK_MISMATCH != 0 => {
                Err(GpuError::ShaderFault(format!("a game's mask held an action no legal move has (flags {flags:#x})")))
            }
            flags => Err(GpuError::ShaderFault(format!(
                "{} (flags {flags:#x})",
                <super::Chess as crate::gpu::PerftGame>::INVALID_POSITION
            ))),
        }
    }
}

/// A batch of chess games with pgx's arrays, kept and stepped on the
/// device: [`crate::env::Env`]'s GPU backend for chess, its arrays, seeds
/// and rules the same step for step (tests/gpu_env.rs holds them side by
/// side).
///
/// The games live in a [`DeviceGames`]. A step uploads the actions, runs
/// the step's kernels in one submission and reads back, in one round trip,
/// each game's result, state, mask bits, position and recent positions
/// ([`Records`], about 1 KB a game); the host then lays out pgx's arrays
/// from them on the batch's threads: the mask's bits as booleans and the
/// observation's 119 planes ([`crate::chess::env`]'s writer, shared with
/// the CPU backend). The players' colours are drawn on the host, as the
/// CPU backend draws them.
///
/// A GPU failure is an error, with no array changed; the environment is
/// closed by it and refuses every later step or reset.
pub struct DeviceEnv {
    games: DeviceGames,
    players: Vec<[u8; 2]>,
    seed: u64,
    resets: Vec<u32>,
    auto_reset: bool,
    closed: Option<String>,
    arrays: BatchArrays<f32>,
}

impl DeviceEnv {
    /// `batch_size` games (1 to [`MAX_GAMES`]) at the start on `context`'s
    /// device, the players' colours drawn from `seed` as [`crate::env::Env::new`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext, batch_size: usize, seed: u64) -> Result<DeviceEnv, DeviceGamesError> {
        DeviceEnv::with_positions(context, &vec![Position::start(); batch_size], seed)
    }

    /// Games from `positions` (standard chess), as [`crate::env::Env::set_state`]
    /// puts them in a batch made with `seed`: no history before them, no
    /// steps played. A reset, or auto-reset, starts a game at chess's start.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_positions(
        context: &GpuContext,
        positions: &[Position],
        seed: u64,
    ) -> Result<DeviceEnv, DeviceGamesError> {
        crate::gpu::block_on(DeviceEnv::with_positions_async(context, positions, seed, adapter_build(context)))
    }

    /// [`DeviceEnv::with_positions`] in a chosen build, awaited.
    pub async fn with_positions_async(
        context: &GpuContext,
        positions: &[Position],
        seed: u64,
        build: ShaderBuild,
    ) -> Result<DeviceEnv, DeviceGamesError> {
        let games = DeviceGames::new_async(context, positions, build).await?;
        let batch_size = positions.len();
        let mut env = DeviceEnv {
            games,
            players: (0..batch_size).map(|game| draw_players(seed, 0, game)).collect(),
            seed,
            resets: vec![1; batch_size],
            auto_reset: false,
            closed: None,
            arrays: BatchArrays::new(batch_size, ACTIONS, OBSERVATION_LEN),
        };
        let records = env.games.read_records().await?;
        env.lay_out(&records, &[])?;
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
        self.games.set_auto_reset(on);
    }

    /// Every game back at chess's start, the players' colours drawn anew
    /// from `seed`, as [`crate::env::Env::reset`] draws them.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reset(&mut self, seed: u64) -> Result<(), DeviceGamesError> {
        crate::gpu::block_on(self.reset_async(seed))
    }

    /// [`DeviceEnv::reset`], awaited.
    pub async fn reset_async(&mut self, seed: u64) -> Result<(), DeviceGamesError> {
        if let Some(reason) = &self.closed {
            return Err(closed_error(reason).into());
        }
        let records = match self.games.reset_all_async().await {
            Ok(records) => records,
            Err(error) => {
                self.closed = Some(error.to_string());
                return Err(error.into());
            }
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
    /// when there is not one action a game or one is outside `0..4672`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn step<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceGamesError> {
        crate::gpu::block_on(self.step_async(actions))
    }

    /// [`DeviceEnv::step`], awaited.
    pub async fn step_async<A: Copy + Into<i64>>(&mut self, actions: &[A]) -> Result<(), DeviceGamesError> {
        let expected = self.batch_size();
        if actions.len() != expected {
            return Err(EnvError::BatchSize { expected, got: actions.len() }.into());
        }
        let mut checked = Vec::with_capacity(expected);
        for (game, &action) in actions.iter().enumerate() {
            let action = action.into();
            if !(0..ACTIONS as i64).contains(&action) {
                return Err(EnvError::ActionOutOfRange { game, action, actions: ACTIONS }.into());
            }
            checked.push(Some(action as u32));
        }
        if let Some(reason) = &self.closed {
            return Err(closed_error(reason).into());
        }
        // A game over is not stepped; one auto-reset put in place of a game
        // that ended is (crate::env's rule).
        for (game, action) in checked.iter_mut().enumerate() {
            let ended = self.arrays.terminated[game] || self.arrays.truncated[game];
            if ended && (!self.auto_reset || is_over(ended, self.arrays.step_count[game])) {
                *action = None;
            }
        }
        let records = match self.games.step_records_async(&checked).await {
            Ok(records) => records,
            Err(error) => {
                self.closed = Some(error.to_string());
                return Err(error);
            }
        };
        // The movers, read before the step's rows change: the players of a
        // game auto-reset replaced are its old players.
        let movers: Vec<[u8; 2]> = self.players.clone();
        for (game, result) in records.results.iter().enumerate() {
            if *result == StepResult::Reset {
                self.players[game] = draw_players(self.seed, self.resets[game], game);
                self.resets[game] = self.resets[game].wrapping_add(1);
            }
        }
        self.lay_out(&records, &movers)
    }

    /// Writes every game's rows from `records`; `movers` holds each game's
    /// players before the step (empty after a set-up or reset).
    fn lay_out(&mut self, records: &Records, movers: &[[u8; 2]]) -> Result<(), DeviceGamesError> {
        if let Some(game) = records.results.iter().position(|&result| result == StepResult::Over) {
            // The host steps only games it holds not over: the device disagrees.
            let error = GpuError::Internal(format!("game {game} is over on the device but not in its rows"));
            self.closed = Some(error.to_string());
            return Err(error.into());
        }
        (self.players.par_iter(), self.arrays.par_rows_mut()).into_par_iter().enumerate().for_each(
            |(
                game,
                (players, Rows { current_player, rewards, terminated, truncated, mask, observation, step_count }),
            )| {
                let position = &records.positions[game];
                let color = (position.state & 1) as usize;
                let by_player = |rewards: &mut [f32], players: [u8; 2], by_color: [f32; 2]| {
                    for (player, reward) in players.iter().zip(by_color) {
                        rewards[usize::from(*player)] = reward;
                    }
                };
                let mask_words = &records.masks[game * ACTION_MASK_WORDS..][..ACTION_MASK_WORDS];
                let mut observe = true;
                match records.results[game] {
                    StepResult::SetUp => {
                        *current_player = i32::from(players[color]);
                        rewards.fill(0.0);
                        *terminated = false;
                        *step_count = 0;
                        unpack_mask(mask_words, mask);
                    }
                    StepResult::NotStepped | StepResult::Over => {
                        rewards.fill(0.0);
                        observe = false;
                    }
                    StepResult::Illegal => {
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
                    StepResult::Played => {
                        let outcome = &records.outcomes[game];
                        *step_count += 1;
                        by_player(rewards, movers[game], outcome.rewards);
                        *terminated = outcome.over;
                        *current_player = i32::from(players[color]);
                        if outcome.over {
                            mask.fill(true);
                        } else {
                            unpack_mask(mask_words, mask);
                        }
                    }
                    StepResult::Reset => {
                        // The ended game's rewards, by its players; the
                        // new game's colours, mask and observation.
                        by_player(rewards, movers[game], records.outcomes[game].rewards);
                        *terminated = true;
                        *step_count = 0;
                        *current_player = i32::from(players[color]);
                        unpack_mask(mask_words, mask);
                    }
                }
                *truncated = false;
                if observe {
                    write_observation(
                        &observation_view(position, &records.recent[game], records.outcomes[game].steps),
                        observation,
                    );
                }
            },
        );
        Ok(())
    }

    /// pgx's arrays of every game, as the last step, reset or restore left them.
    pub fn arrays(&self) -> &BatchArrays<f32> {
        &self.arrays
    }

    /// Which player plays each colour in game `game` (`[first, second]`).
    pub fn players(&self, game: usize) -> [u8; 2] {
        self.players[game]
    }

    /// The games on the device.
    pub fn games(&self) -> &DeviceGames {
        &self.games
    }

    /// The chosen games as they stand, each to be put back by
    /// [`DeviceEnv::restore`] in any game of a batch (a tree search's
    /// nodes): one round trip for all, about 4 KB a game. A game outside
    /// the batch panics, as an index out of bounds does.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn snapshots(&mut self, chosen: &[usize]) -> Result<Vec<DeviceSnapshot>, DeviceGamesError> {
        crate::gpu::block_on(self.snapshots_async(chosen))
    }

    /// [`DeviceEnv::snapshots`], awaited.
    pub async fn snapshots_async(&mut self, chosen: &[usize]) -> Result<Vec<DeviceSnapshot>, DeviceGamesError> {
        if let Some(&game) = chosen.iter().find(|&&game| game >= self.batch_size()) {
            panic!("game {game} is outside the batch of {}", self.batch_size());
        }
        if let Some(reason) = &self.closed {
            return Err(closed_error(reason).into());
        }
        let saved = match self.games.save_async(chosen).await {
            Ok(saved) => saved,
            Err(error) => {
                self.closed = Some(error.to_string());
                return Err(error.into());
            }
        };
        Ok(chosen
            .iter()
            .zip(saved)
            .map(|(&game, saved)| DeviceSnapshot {
                saved,
                players: self.players[game],
                current_player: self.arrays.current_player[game],
                rewards: [self.arrays.rewards[2 * game], self.arrays.rewards[2 * game + 1]],
                terminated: self.arrays.terminated[game],
                truncated: self.arrays.truncated[game],
                step_count: self.arrays.step_count[game],
            })
            .collect())
    }

    /// Puts each `Some` snapshot in place of its game (`snapshots[i]` in
    /// game `i`; `None` leaves game `i` as it is), every array as it was
    /// when the snapshot was taken, as [`crate::env::Env::restore`] does.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn restore(&mut self, snapshots: &[Option<&DeviceSnapshot>]) -> Result<(), DeviceGamesError> {
        crate::gpu::block_on(self.restore_async(snapshots))
    }

    /// [`DeviceEnv::restore`], awaited.
    pub async fn restore_async(&mut self, snapshots: &[Option<&DeviceSnapshot>]) -> Result<(), DeviceGamesError> {
        let expected = self.batch_size();
        if snapshots.len() != expected {
            return Err(EnvError::BatchSize { expected, got: snapshots.len() }.into());
        }
        if let Some(reason) = &self.closed {
            return Err(closed_error(reason).into());
        }
        let restored: Vec<(usize, &SavedGame)> = snapshots
            .iter()
            .enumerate()
            .filter_map(|(game, snapshot)| snapshot.map(|snapshot| (game, &snapshot.saved)))
            .collect();
        let records = match self.games.restore_async(&restored).await {
            Ok(records) => records,
            Err(error) => {
                self.closed = Some(error.to_string());
                return Err(error.into());
            }
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
                        unpack_mask(&records.masks[game * ACTION_MASK_WORDS..][..ACTION_MASK_WORDS], mask);
                    }
                    let view =
                        observation_view(&records.positions[game], &records.recent[game], records.outcomes[game].steps);
                    write_observation(&view, observation);
                },
            );
        Ok(())
    }
}

/// One game of a [`DeviceEnv`] saved whole ([`DeviceEnv::snapshots`]): the
/// device's record of it and its arrays' rows.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceSnapshot {
    saved: SavedGame,
    players: [u8; 2],
    current_player: i32,
    rewards: [f32; 2],
    terminated: bool,
    truncated: bool,
    step_count: i32,
}

impl DeviceSnapshot {
    /// Which player plays each colour in the game (`[first, second]`).
    pub fn players(&self) -> [u8; 2] {
        self.players
    }
}

/// The error of a call to an environment an earlier GPU failure closed.
fn closed_error(reason: &str) -> GpuError {
    GpuError::Internal(format!("the environment was closed by an earlier GPU failure ({reason}); make a new one"))
}

/// Elements of one observation.
const OBSERVATION_LEN: usize = 64 * crate::chess::env::PLANES;

/// Sets `mask[action]` for each bit set in `words`.
fn unpack_mask(words: &[u32], mask: &mut [bool]) {
    for (word, chunk) in words.iter().zip(mask.chunks_mut(32)) {
        for (bit, legal) in chunk.iter_mut().enumerate() {
            *legal = word >> bit & 1 == 1;
        }
    }
}

/// What the observation shows of a game the device keeps.
fn observation_view(
    position: &PackedPosition,
    recent: &[([u64; 4], u32); RECENT_POSITIONS],
    steps: u32,
) -> ObservationView {
    let us = if position.state & 1 == 1 { Color::Black } else { Color::White };
    ObservationView {
        us,
        recent: std::array::from_fn(|back| {
            let (planes, count) = recent[back];
            (count > 0).then_some((planes, count > 1))
        }),
        steps,
        castling_files: [(position.state >> 16) as u8, (position.state >> 24) as u8],
        halfmove_clock: position.counters & 0xffff,
    }
}

/// The environment's kernels and the host's lay-out against the CPU
/// environment, array for array, for the self-test
/// ([`crate::gpu::GpuContext::require`]): games from positions with
/// castling, en passant, promotions and near mates, stepped by seeded
/// random actions (now and then one outside the mask) with auto-reset on,
/// so that games end and begin again.
pub fn environment_check(build: ShaderBuild) -> Check {
    Check::new(
        format!("chess environment (step, masks, ends, observation; {})", build.name()),
        move |context| async move {
            let fens = [
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                "7k/8/8/8/8/8/8/R3K3 w Q - 0 1",
                "4k3/8/8/3n4/8/8/8/R3K3 w Q - 0 1",
                "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            ];
            let positions: Vec<Position> =
                fens.iter().map(|fen| Position::from_fen(fen).expect("a valid check FEN")).collect();
            let seed = 5;
            let mut cpu = crate::env::Env::<super::Chess>::new(positions.len(), seed);
            for (game, position) in positions.iter().enumerate() {
                cpu.set_state(game, crate::chess::env::ChessState::from_position(*position));
            }
            let mut device = DeviceEnv::with_positions_async(&context, &positions, seed, build)
                .await
                .map_err(|error| error.to_string())?;
            cpu.set_auto_reset(true);
            device.set_auto_reset(true);
            let mut random = crate::random::ShaderRandom::new(seed as u32, 0);
            for step in 0..CHECK_STEPS {
                if let Some(difference) = difference(&device, &cpu) {
                    return Err(format!("after step {step}: {difference}"));
                }
                let actions: Vec<u32> = (0..positions.len())
                    .map(|game| {
                        let legal = cpu.legal_actions(game);
                        if random.below(64) == 0 {
                            random.below(ACTIONS as u32)
                        } else {
                            legal[random.below(legal.len() as u32) as usize]
                        }
                    })
                    .collect();
                cpu.step(&actions).expect("actions in range");
                device.step_async(&actions).await.map_err(|error| error.to_string())?;
            }
            difference(&device, &cpu)
                .map_or(Ok(()), |difference| Err(format!("after step {CHECK_STEPS}: {difference}")))
        },
    )
}

/// Steps of [`environment_check`]: past the mate a near-mate game reaches.
const CHECK_STEPS: usize = 40;

/// The first array in which the GPU backend differs from the CPU's, if any.
fn difference(device: &DeviceEnv, cpu: &crate::env::Env<super::Chess>) -> Option<String> {
    let arrays: [(&str, bool); 6] = [
        ("current_player", device.arrays().current_player() == cpu.current_player()),
        ("rewards", device.arrays().rewards() == cpu.rewards()),
        ("terminated", device.arrays().terminated() == cpu.terminated()),
        ("step_count", device.arrays().step_count() == cpu.step_count()),
        ("legal_action_mask", device.arrays().legal_action_mask() == cpu.legal_action_mask()),
        (
            "observation",
            device
                .arrays()
                .observation()
                .iter()
                .zip(cpu.observation())
                .all(|(ours, theirs)| ours.to_bits() == theirs.to_bits()),
        ),
    ];
    arrays.iter().find(|(_, same)| !same).map(|(name, _)| format!("`{name}` differs from the CPU environment's"))
}
