//! Shogi games kept on the device with pgx's arrays: the Shogi
//! environment's GPU backend ([`crate::env::Env`] with [`ShogiGame`] steps
//! them on the CPU), equal to the CPU's array for array at every step
//! (tests/gpu_env.rs, and the self-test on a driver's first use).
//! [`ShogiDevice`] is Shogi's part of the device environments' core
//! ([`crate::gpu::env::DeviceGameEnv`]).
//!
//! Each game's position, legal actions, end and rewards live in GPU
//! buffers, with what repetition (sennichite) compares: a 64-bit hash of
//! every position since the start, and every action with whether it gave
//! check, so that a position whose hash has come up three times before is
//! compared in full by replaying the actions from the start
//! (shaders/shogi/kernels/environment.wgsl). The host lays out each
//! game's observation from the position read back, with the CPU
//! environment's own writer. A game starts at the start position.

use super::layout::PackedShogiPosition;
use super::shaders;
use crate::env::EnvGame;
use crate::gpu::env::{DeviceGame, DeviceGameEnv, DeviceSnapshot, DeviceStepError, Record};
use crate::gpu::resources::buffer_with;
use crate::gpu::{Check, GpuContext, GpuError};
use crate::shogi::ShogiGame;
use crate::shogi::env::{ACTIONS, MAX_STEPS, observe_position};

/// The most Shogi games a batch holds on the device (about 6 KB a game of
/// history, 48 MiB for all).
pub const MAX_SHOGI_GAMES: usize = 1 << 13;

/// Shogi as the device environments' core drives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShogiDevice;

/// Shogi games on the device, with [`crate::env::Env`]'s arrays for
/// [`ShogiGame`] (see the module documentation).
pub type DeviceShogiEnv = DeviceGameEnv<ShogiDevice>;
/// One Shogi game of a [`DeviceShogiEnv`] saved whole.
pub type DeviceShogiSnapshot = DeviceSnapshot<ShogiDevice>;

impl DeviceGame for ShogiDevice {
    type Env = ShogiGame;
    type Position = PackedShogiPosition;
    const NAME: &'static str = "Shogi";
    const MAX_GAMES: usize = MAX_SHOGI_GAMES;
    const MASK_WORDS: usize = ACTIONS.div_ceil(32);
    /// `HISTORY_WORDS` in environment.wgsl: two words of hash a position
    /// and an action a step, plies 0 to `MAX_STEPS`.
    const HISTORY_WORDS: usize = 3 * (MAX_STEPS as usize + 1);
    const RECENT_WORDS: usize = 0;
    const STEP_KERNELS: &'static [&'static str] = &["play_actions", "write_masks"];
    const AUTO_RESET_KERNELS: &'static [&'static str] = &["reset_ended", "write_masks"];
    const RESET_KERNELS: &'static [&'static str] = &["reset_games", "write_masks"];
    const SET_UP_KERNELS: &'static [&'static str] = &["write_masks"];

    fn shader() -> Result<String, GpuError> {
        Ok(shaders::compose_with("shogi_environment", &[])?)
    }

    fn tables(context: &GpuContext) -> Option<wgpu::Buffer> {
        Some(buffer_with(
            &context.device,
            "shogi tables",
            &shaders::table_data(super::layout::BoardWords::Full),
            wgpu::BufferUsages::STORAGE,
        ))
    }

    fn check() -> Check {
        shogi_environment_check()
    }

    fn to_move(position: &PackedShogiPosition) -> usize {
        (position.state & 1) as usize
    }

    fn unpack_mask(words: &[u32], mask: &mut [bool]) {
        for (action, legal) in mask.iter_mut().enumerate() {
            *legal = words[action / 32] >> (action % 32) & 1 == 1;
        }
    }

    fn observe(record: &Record<Self>, observation: &mut [bool]) {
        observe_position(&record.position.unpack(), observation);
    }
}

/// The Shogi environment's kernels and the host's lay-out against the CPU
/// environment, array for array, for the self-test: random games with an
/// action outside the mask now and then, with auto-reset.
pub fn shogi_environment_check() -> Check {
    Check::new("Shogi environment (step, legal actions, ends, observation)", |context| async move {
        let (games, seed) = (8, 5);
        let mut cpu = crate::env::Env::<ShogiGame>::new(games, seed);
        let mut device = DeviceShogiEnv::new_async(&context, games, seed).await.map_err(|error| error.to_string())?;
        cpu.set_auto_reset(true);
        device.set_auto_reset(true);
        let mut random = crate::random::ShaderRandom::new(seed as u32, 1);
        for step in 0..40 {
            // All seven of pgx's arrays, `truncated` included.
            if device.arrays() != cpu.arrays() {
                return Err(format!("after step {step}: an array differs from the CPU environment's"));
            }
            let actions: Vec<u32> = (0..games)
                .map(|game| {
                    let legal = cpu.legal_actions(game);
                    if random.below(24) == 0 {
                        random.below(<ShogiGame as EnvGame>::ACTIONS as u32)
                    } else {
                        legal[random.below(legal.len() as u32) as usize]
                    }
                })
                .collect();
            cpu.step(&actions).expect("actions in range");
            device.step_async(&actions).await.map_err(|error| error.to_string())?;
        }
        Ok(())
    })
}

/// What [`DeviceShogiEnv`]'s step and restore refuse, or a GPU failure.
pub type DeviceShogiError = DeviceStepError;
