//! `env`: chess games stepped a batch at a time, the device's step
//! (`chess::gpu::env::DeviceGames`: play the actions, write the new
//! legal-action masks and judge each game's end on the GPU, then read the
//! masks back, as a policy needs them) against the CPU doing the same for
//! every game on all its threads (the environment's play, mask and end).
//! Both play the same random legal actions from the start, a game that has
//! ended left out; every GPU mask and end is checked against the CPU's
//! after each step, outside the clock, before any figure counts.
//!
//! Then whole environments: `crate::env::Env` on the CPU against its GPU
//! backend (`chess::gpu::env::DeviceEnv`), each making every one of pgx's
//! arrays every step (the 8×8×119 observation included), with auto-reset,
//! so that the batch stays full; their arrays are compared after every
//! step, outside the clock.

use crate::OrGpuExit as _;
use crate::report::{Row, seconds};
use gpu_movegen::Position;
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::env::ACTIONS;
use gpu_movegen::chess::gpu::ACTION_MASK_WORDS;
use gpu_movegen::chess::gpu::env::{DeviceEnv, DeviceGames};
use gpu_movegen::env::{Env, EnvGame};
use gpu_movegen::gpu::GpuContext;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

pub(crate) fn env_section(batch: usize, steps: usize) -> (Option<String>, Vec<Row>) {
    let context = GpuContext::new().ok();
    let adapter = context.as_ref().map(GpuContext::adapter_description);
    let threads = rayon::current_num_threads();
    let mut rows = Vec::new();
    println!("Chess environment steps per second, {batch} games (GPU: {})", adapter.as_deref().unwrap_or("none"));
    // The CPU's side is the environment's own per-game work (crate::env::Env
    // calls the same three functions), less the observation.
    let mut states = vec![<Chess as EnvGame>::start(); batch];
    let mut masks = vec![false; batch * ACTIONS];
    let mut over = vec![false; batch];
    masks.par_chunks_mut(ACTIONS).zip(&states).for_each(|(mask, state)| Chess::legal_action_mask(state, mask));
    let positions: Vec<Position> = states.iter().map(|state| *state.position()).collect();
    let mut games = context.as_ref().map(|context| DeviceGames::new(context, &positions).or_gpu_exit("device games"));
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0xe5_2026);
    let (mut cpu_time, mut gpu_time, mut played) = (0.0, 0.0, 0usize);
    for _ in 0..steps {
        // A random legal action a game; a game that has ended is left out.
        let actions: Vec<Option<u32>> = masks
            .chunks(ACTIONS)
            .zip(&over)
            .map(|(mask, &over)| {
                let legal: Vec<u32> = (0..ACTIONS as u32).filter(|&action| mask[action as usize]).collect();
                (!over).then(|| legal[random.random_range(0..legal.len())])
            })
            .collect();
        played += actions.iter().flatten().count();
        let ((), time) = seconds(|| {
            (states.par_iter_mut(), masks.par_chunks_mut(ACTIONS), over.par_iter_mut(), actions.par_iter())
                .into_par_iter()
                .for_each(|(state, mask, over, action)| {
                    if let Some(action) = action {
                        Chess::play_action(state, *action as usize);
                        Chess::legal_action_mask(state, mask);
                        *over = Chess::outcome(state, mask).terminated;
                    }
                })
        });
        cpu_time += time;
        if let Some(games) = games.as_mut() {
            let (words, time) = seconds(|| {
                games.step(&actions).or_gpu_exit("a device step");
                games.masks().or_gpu_exit("the masks")
            });
            gpu_time += time;
            let outcomes = games.outcomes().or_gpu_exit("the ends");
            for (game, (words, mask)) in words.chunks(ACTION_MASK_WORDS).zip(masks.chunks(ACTIONS)).enumerate() {
                let same_mask =
                    (0..ACTIONS).all(|action| (words[action / 32] >> (action % 32) & 1 == 1) == mask[action]);
                if outcomes[game].over != over[game] || (!over[game] && !same_mask) {
                    let fen = states[game].position().to_fen();
                    eprintln!("env: game {game}'s mask or end on the GPU differs from the CPU's in {fen}");
                    std::process::exit(1);
                }
            }
        }
    }
    let amount = played as f64;
    println!("{:<28} {:>14} {:>14}", "engine", "steps", "steps/s");
    println!("{:<28} {:>14} {:>14.0}", format!("cpu {threads} threads"), played, amount / cpu_time);
    rows.push(Row::counted(
        "env",
        format!("cpu {threads} threads"),
        "chess steps",
        batch as u64,
        amount,
        cpu_time,
        None,
    ));
    if games.is_some() {
        println!("{:<28} {:>14} {:>14.0}", "gpu", played, amount / gpu_time);
        rows.push(Row::counted("env", "gpu".into(), "chess steps", batch as u64, amount, gpu_time, Some("cpu")));
    }
    whole_environments(context.as_ref(), batch, steps, &mut rows);
    (adapter, rows)
}

/// pgx's arrays every step: the CPU environment against its GPU backend.
fn whole_environments(context: Option<&GpuContext>, batch: usize, steps: usize, rows: &mut Vec<Row>) {
    let threads = rayon::current_num_threads();
    let seed = 7;
    let mut cpu = Env::<Chess>::new(batch, seed);
    cpu.set_auto_reset(true);
    let mut device = context.map(|context| {
        let mut device = DeviceEnv::new(context, batch, seed).or_gpu_exit("the GPU environment");
        device.set_auto_reset(true);
        device
    });
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(0xe5_2027);
    let (mut cpu_time, mut gpu_time) = (0.0, 0.0);
    for step in 0..steps {
        let actions: Vec<u32> = (0..batch)
            .map(|game| {
                let legal = cpu.legal_actions(game);
                legal[random.random_range(0..legal.len())]
            })
            .collect();
        let (result, time) = seconds(|| cpu.step(&actions));
        result.expect("legal actions, one a game");
        cpu_time += time;
        if let Some(device) = device.as_mut() {
            let (result, time) = seconds(|| device.step(&actions));
            result.or_gpu_exit("a GPU environment step");
            gpu_time += time;
            let same = device.arrays().legal_action_mask() == cpu.legal_action_mask()
                && device.arrays().terminated() == cpu.terminated()
                && device.arrays().rewards() == cpu.rewards()
                && device.arrays().current_player() == cpu.current_player()
                && device.arrays().step_count() == cpu.step_count()
                && device.arrays().observation() == cpu.observation();
            if !same {
                eprintln!("env: the GPU environment's arrays differ from the CPU's after step {step}");
                std::process::exit(1);
            }
        }
    }
    let amount = (batch * steps) as f64;
    println!("pgx's arrays every step (the observation included), auto-reset:");
    let cpu_engine = format!("cpu env {threads} threads");
    println!("{cpu_engine:<28} {:>14} {:>14.0}", batch * steps, amount / cpu_time);
    rows.push(Row::counted("env", cpu_engine, "chess env steps", batch as u64, amount, cpu_time, None));
    if device.is_some() {
        println!("{:<28} {:>14} {:>14.0}", "gpu env", batch * steps, amount / gpu_time);
        rows.push(Row::counted(
            "env",
            "gpu env".into(),
            "chess env steps",
            batch as u64,
            amount,
            gpu_time,
            Some("cpu env"),
        ));
    }
}
