//! Go games kept on the device with pgx's arrays: the Go environments' GPU
//! backend ([`crate::env::Env`] with [`GoEnv`] steps them on the CPU),
//! equal to the CPU's array for array at every step (tests/gpu_env.rs, and
//! the self-test on a driver's first use). [`GoDevice`] is Go's part of
//! the device environments' core ([`crate::gpu::env::DeviceGameEnv`]).
//!
//! Each game's position, legal points, passes, end and rewards live in GPU
//! buffers, with what positional superko compares: a 64-bit hash of every
//! board since the start and every move, so that a board whose hash equals
//! an earlier one's is compared in full by replaying the moves to it
//! (shaders/go/kernels/environment.wgsl). Each step reads back, with the
//! rest of a game's record, its last eight boards, which the observation
//! shows. A game starts at the empty board.

use super::layout::PackedGoPosition;
use super::shaders;
use crate::env::EnvGame;
use crate::go::env::GoEnv;
use crate::gpu::env::{DeviceGame, DeviceGameEnv, DeviceSnapshot, DeviceStepError, Record};
use crate::gpu::{Check, GpuContext, GpuError};

/// Boards an observation shows (`RECENT_BOARDS` in environment.wgsl).
const RECENT_BOARDS: usize = 8;
/// The most games a Go batch holds on the device (about 9.4 KB a game on
/// 19×19 for the superko history and recent boards, within one 128 MiB binding).
pub const MAX_GO_GAMES: usize = 1 << 13;

/// Go of `SIZE` as the device environments' core drives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoDevice<const SIZE: usize>;

/// Go games of `SIZE` on the device, with [`crate::env::Env`]'s arrays for
/// [`GoEnv<SIZE>`] (see the module documentation).
pub type DeviceGoEnv<const SIZE: usize> = DeviceGameEnv<GoDevice<SIZE>>;
/// One Go game of a [`DeviceGoEnv`] saved whole.
pub type DeviceGoSnapshot<const SIZE: usize> = DeviceSnapshot<GoDevice<SIZE>>;
/// What [`DeviceGoEnv`]'s step and restore refuse, or a GPU failure.
pub type DeviceGoError = DeviceStepError;

impl<const SIZE: usize> GoDevice<SIZE> {
    /// Words of a bitmap in the shaders (`GO_WORDS`).
    const WORDS: usize = (SIZE * (SIZE + 1)).div_ceil(32);
    /// Steps after which a game ends (`MAX_STEPS` in environment.wgsl).
    const MAX_STEPS: usize = 2 * SIZE * SIZE;
}

impl<const SIZE: usize> DeviceGame for GoDevice<SIZE> {
    type Env = GoEnv<SIZE>;
    type Position = PackedGoPosition;
    const NAME: &'static str = "Go";
    const MAX_GAMES: usize = MAX_GO_GAMES;
    const MASK_WORDS: usize = Self::WORDS;
    /// `HISTORY_WORDS` in environment.wgsl: two words of hash a board and a
    /// move a step, plies 0 to `MAX_STEPS`.
    const HISTORY_WORDS: usize = 3 * (Self::MAX_STEPS + 1);
    const RECENT_WORDS: usize = RECENT_BOARDS * 2 * Self::WORDS;
    const STEP_KERNELS: &'static [&'static str] = &["play_actions", "remember_boards", "write_legal"];
    const AUTO_RESET_KERNELS: &'static [&'static str] = &["reset_ended"];
    const RESET_KERNELS: &'static [&'static str] = &["reset_games"];
    const SET_UP_KERNELS: &'static [&'static str] = &["write_legal"];

    fn shader() -> Result<String, GpuError> {
        Ok(shaders::compose("go_environment", SIZE as u32, &[])?)
    }

    fn tables(_context: &GpuContext) -> Option<wgpu::Buffer> {
        None
    }

    fn check() -> Check {
        go_environment_check::<SIZE>()
    }

    fn to_move(position: &PackedGoPosition) -> usize {
        position.to_move as usize
    }

    fn unpack_mask(words: &[u32], mask: &mut [bool]) {
        unpack_legal::<SIZE>(words, mask);
    }

    fn observe(record: &Record<Self>, observation: &mut [bool]) {
        let color = record.position.to_move as usize;
        observe_boards::<SIZE>(&record.recent, record.state.steps as usize, color, observation);
    }
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
            // The stones only, as the CPU environment's writer does.
            for (word_index, &word) in board[stones_color * words..][..words].iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    let bit = word_index * 32 + rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let index = bit / (SIZE + 1) * SIZE + bit % (SIZE + 1);
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
            // All seven of pgx's arrays, `truncated` included.
            if device.arrays() != cpu.arrays() {
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
