//! GPU-side search built only on the public embedding API: seeded Monte
//! Carlo playouts and a batched fixed-depth negamax, each run on the GPU and
//! on the CPU with the same seeds, compared for bit-identical results, and
//! timed.
//!
//! ```text
//! cargo run --release --example gpu_search -- --playouts 256 --depth 3
//! ```

mod experiment;

use std::collections::HashMap;
use std::time::Instant;

use clap::Parser;
use experiment::{GpuSearch, Outcome, PlayoutSettings, cpu_negamax, cpu_playouts};
use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::{Position, random_play};

#[derive(Parser)]
struct Arguments {
    /// Root positions (the start position, then positions from seeded random play).
    #[arg(long, default_value_t = 32)]
    positions: usize,
    /// Playouts per root position.
    #[arg(long, default_value_t = 256)]
    playouts: u32,
    /// Seed of the playouts and of the root positions.
    #[arg(long, default_value_t = 2026)]
    seed: u32,
    /// Longest playout in plies.
    #[arg(long, default_value_t = 300)]
    ply_cap: u32,
    /// Negamax depth (1 to 4). Every level of the tree is held in GPU memory at
    /// once, so depth 4 needs a large device for more than a few positions.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=4))]
    depth: u32,
}

/// A GPU or driver failure (a refused driver included): exit code 3, as the
/// command line's.
fn gpu_failure(error: &dyn std::fmt::Display) -> ! {
    eprintln!("gpu_search: {error}");
    std::process::exit(3)
}

/// The GPU and its CPU twin disagree: exit code 1, as the command line's.
fn mismatch(what: &str) -> ! {
    eprintln!("gpu_search: {what}");
    std::process::exit(1)
}

fn main() {
    // Mesa's device-select layer prints a harmless XDG_RUNTIME_DIR error on
    // headless machines; this turns it off (see src/main.rs).
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    let arguments = Arguments::parse();
    let context = GpuContext::new().unwrap_or_else(|error| gpu_failure(&error));
    let search = GpuSearch::new(&context, ShaderBuild::default()).unwrap_or_else(|error| gpu_failure(&error));
    println!("adapter: {}", context.adapter_description());
    for entry in &search.composed().entry_points {
        println!("entry point {} (workgroup {:?})", entry.name, entry.workgroup_size);
    }
    for binding in &search.composed().bindings {
        println!("binding @group({}) @binding({}) {} {:?}", binding.group, binding.binding, binding.name, binding.kind);
    }
    let mut roots = vec![Position::start()];
    roots.extend(random_play::random_positions(
        &Position::start(),
        arguments.positions.saturating_sub(1),
        40,
        u64::from(arguments.seed),
    ));
    let settings =
        PlayoutSettings { playouts_per_root: arguments.playouts, seed: arguments.seed, ply_cap: arguments.ply_cap };

    let started = Instant::now();
    let gpu = search.playouts(&roots, &settings).unwrap_or_else(|error| gpu_failure(&error));
    let gpu_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let cpu = cpu_playouts(&roots, &settings);
    let cpu_seconds = started.elapsed().as_secs_f64();
    if gpu != cpu {
        mismatch("GPU and CPU playouts differ");
    }
    let total = gpu.len() as f64;
    println!(
        "playouts: {} ({} roots x {}), identical on GPU and CPU; GPU {:.0} playouts/s, CPU (1 thread) {:.0} playouts/s",
        gpu.len(),
        roots.len(),
        arguments.playouts,
        total / gpu_seconds,
        total / cpu_seconds
    );
    println!("{:<4} {:>7} {:>7} {:>7} {:>7}  fen", "root", "white", "draw", "black", "capped");
    for (index, root) in roots.iter().enumerate().take(8) {
        let mut counts: HashMap<&str, u32> = HashMap::new();
        for playout in &gpu[index * arguments.playouts as usize..(index + 1) * arguments.playouts as usize] {
            let key = match playout.outcome {
                Outcome::WhiteWins => "white",
                Outcome::BlackWins => "black",
                Outcome::PlyCap => "capped",
                _ => "draw",
            };
            *counts.entry(key).or_default() += 1;
        }
        let count = |key: &str| counts.get(key).copied().unwrap_or(0);
        println!(
            "{index:<4} {:>7} {:>7} {:>7} {:>7}  {}",
            count("white"),
            count("draw"),
            count("black"),
            count("capped"),
            root.to_fen()
        );
    }

    let started = Instant::now();
    let gpu = search.negamax(&roots, arguments.depth).unwrap_or_else(|error| gpu_failure(&error));
    let gpu_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let cpu: Vec<_> = roots.iter().map(|root| cpu_negamax(root, arguments.depth)).collect();
    let cpu_seconds = started.elapsed().as_secs_f64();
    if gpu != cpu {
        mismatch("GPU and CPU negamax differ");
    }
    println!(
        "negamax depth {}: {} positions, identical on GPU and CPU; GPU {:.1} positions/s, CPU (1 thread) {:.1} positions/s",
        arguments.depth,
        roots.len(),
        roots.len() as f64 / gpu_seconds,
        roots.len() as f64 / cpu_seconds
    );
    for (root, (score, best)) in roots.iter().zip(&gpu).take(4) {
        println!("  {} -> {} ({score:+})", root.to_fen(), best.map_or("none".to_owned(), |mv| mv.to_string()));
    }
}
