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
use crate::chess::env::ACTIONS;
use crate::chess::position::Position;
use crate::env::EnvError;
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::resources::{Staging, bind_group, buffer, buffer_with};
use crate::gpu::{GpuContext, GpuError};

/// The most games one [`DeviceGames`] holds: their repetition keys (3.6 KB
/// a game) fit one 128 MiB binding.
pub const MAX_GAMES: usize = 1 << 15;

/// Keys a game keeps for repetition (`HISTORY_KEYS` in environment.wgsl):
/// a run of reversible moves ends by the fifty-move rule at its 101st position.
const HISTORY_KEYS: usize = 101;
/// Words of one key (`KEY_WORDS` in environment.wgsl).
const KEY_WORDS: usize = 9;

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

/// `EnvironmentParameters` in environment.wgsl: the batch size, padded to a
/// uniform's 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
struct EnvironmentParameters {
    count: u32,
    padding: [u32; 3],
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
    status: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    staging: Staging,
}

impl DeviceGames {
    /// The games of `positions` (standard chess, at most [`MAX_GAMES`]) on
    /// `context`'s device, in the default shader build, with their masks
    /// written.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(context: &GpuContext, positions: &[Position]) -> Result<DeviceGames, DeviceGamesError> {
        crate::gpu::block_on(DeviceGames::new_async(context, positions, shaders::ShaderBuild::default()))
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
        context.require_async(&[]).await?;
        let shader = reflect(shaders::compose_build("environment", build, &[]).map_err(GpuError::from)?)?;
        let count = positions.len() as u32;
        let packed: Vec<PackedPosition> = positions.iter().map(PackedPosition::from).collect();
        let mask_bytes = (positions.len() * ACTION_MASK_WORDS * 4) as u64;
        let history_bytes = (positions.len() * HISTORY_KEYS * KEY_WORDS * 4) as u64;
        let limits = device.limits();
        if history_bytes > limits.max_storage_buffer_binding_size.min(limits.max_buffer_size) {
            return Err(GpuError::Limits(format!(
                "{} games' repetition keys take {history_bytes} bytes, past this device's largest storage binding",
                positions.len()
            ))
            .into());
        }
        // Each game's history begins with its start's key, the square a
        // double push passed being the position's en passant square.
        let mut history = vec![0u32; positions.len() * HISTORY_KEYS * KEY_WORDS];
        let mut states = Vec::with_capacity(positions.len());
        for (game, (position, record)) in positions.iter().zip(&packed).enumerate() {
            let passed = position.en_passant().map_or(64, |square| square as u32);
            let key = &mut history[game * HISTORY_KEYS * KEY_WORDS..][..KEY_WORDS];
            for (plane, halves) in record.planes.iter().enumerate() {
                key[2 * plane..2 * plane + 2].copy_from_slice(halves);
            }
            key[8] = record.state & !0xff00 | passed << 8;
            states.push(GameState { steps: 0, over: 0, passed, run_length: 1, rewards: [0.0; 2], padding: [0; 2] });
        }
        let games = context
            .scoped_async(|| {
                use wgpu::BufferUsages as Usage;
                let kernels = context.kernels(&shader, "environment");
                let tables =
                    buffer_with(device, "attack tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
                let games = buffer_with(device, "games", &packed, Usage::STORAGE | Usage::COPY_SRC);
                let masks = buffer(device, "action masks", mask_bytes, Usage::STORAGE | Usage::COPY_SRC);
                let actions = buffer(device, "actions", u64::from(count) * 4, Usage::STORAGE | Usage::COPY_DST);
                // Every game's result reads "set up", so that the first
                // `write_masks` writes every mask and judges no end.
                let results = buffer_with(
                    device,
                    "results",
                    &vec![RESULT_SET_UP; positions.len()],
                    Usage::STORAGE | Usage::COPY_SRC,
                );
                let game_states = buffer_with(device, "game states", &states, Usage::STORAGE | Usage::COPY_SRC);
                let history = buffer_with(device, "repetition keys", &history, Usage::STORAGE);
                let status = buffer(device, "status", 4, Usage::STORAGE | Usage::COPY_DST | Usage::COPY_SRC);
                let parameters = buffer_with(
                    device,
                    "parameters",
                    &[EnvironmentParameters { count, padding: [0; 3] }],
                    Usage::UNIFORM,
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
                // Enough for every mask at once, up to 16 MiB a round trip.
                let staging = Staging::new(device, mask_bytes.min(16 << 20).next_multiple_of(4));
                DeviceGames {
                    context: context.clone(),
                    kernels,
                    count,
                    games,
                    masks,
                    actions,
                    results,
                    game_states,
                    status,
                    bind_group,
                    staging,
                }
            })
            .await?;
        games.dispatch(&["write_masks"]).await?;
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
        self.dispatch(&["play_actions", "write_masks"]).await?;
        let results: Vec<u32> = self.staging.read(&self.context, &self.results, 0, u64::from(self.count) * 4).await?;
        results
            .into_iter()
            .map(|result| match result {
                RESULT_NOT_STEPPED => Ok(StepResult::NotStepped),
                RESULT_PLAYED => Ok(StepResult::Played),
                RESULT_ILLEGAL => Ok(StepResult::Illegal),
                RESULT_OVER => Ok(StepResult::Over),
                other => Err(GpuError::Internal(format!("a step's result reads {other}")).into()),
            })
            .collect()
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
        Ok(states
            .into_iter()
            .map(|state| GameOutcome { steps: state.steps, over: state.over != 0, rewards: state.rewards })
            .collect())
    }

    /// Every game's position as the kernels hold it (an en passant square
    /// only where a pawn could take there).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn positions(&self) -> Result<Vec<PackedPosition>, GpuError> {
        let bytes = (self.len() * size_of::<PackedPosition>()) as u64;
        crate::gpu::block_on(self.staging.read(&self.context, &self.games, 0, bytes))
    }

    /// Runs each entry point over every game in turn, in one submission,
    /// and checks the fault flags.
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
        context.submit([encoder.finish()]);
        let status: Vec<u32> = context.scoped_future(self.staging.read(context, &self.status, 0, 4)).await??;
        match status[0] {
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
