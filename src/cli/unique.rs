//! `gpu-movegen unique`: the distinct positions after each ply, on the CPU,
//! as a line a ply or one JSON object.

use std::io::Write as _;
use std::process::ExitCode;

use gpu_movegen::chess::transposition::physical_mebibytes;
use serde_json::json;

use super::chess::parse_fen_argument;
use super::common::{Backend, CliError};

/// `gpu-movegen unique`: distinct positions per ply.
#[derive(clap::Args)]
pub struct UniqueArgs {
    /// Root position (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// Plies to go (at most 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=gpu_movegen::perft::MAX_DEPTH as i64))]
    depth: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Memory for the last ply's positions in MiB (more passes when it does
    /// not fit; default: a quarter of physical memory).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(16..=1 << 22))]
    memory: Option<u64>,
    /// Print one JSON object on stdout at the end (keys: fen, depth, seconds,
    /// plies: one {ply, distinct} object a ply) instead of a line a ply.
    #[arg(long)]
    json: bool,
    /// Where to run: the CPU (the GPU does not count distinct positions yet).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
}

pub fn run_unique(arguments: UniqueArgs) -> Result<ExitCode, CliError> {
    let root = parse_fen_argument(arguments.fen.as_deref())?;
    if matches!(arguments.backend, Backend::Gpu) {
        return Err(CliError::Usage(
            "unique runs on the CPU; the GPU does not count distinct positions yet (use --backend cpu or auto)".into(),
        ));
    }
    let pool = super::common::thread_pool(arguments.threads)?;
    let memory = match arguments.memory {
        None => gpu_movegen::chess::unique::default_memory_bytes(),
        Some(wanted) => {
            if let Some(physical) = physical_mebibytes().filter(|physical| wanted > physical / 2) {
                return Err(CliError::Usage(format!(
                    "--memory {wanted} MiB is more than half of this machine's {physical} MiB of memory (16 to {})",
                    physical / 2
                )));
            }
            wanted << 20
        }
    };
    let mut failure = None;
    let mut plies = Vec::new();
    let started = std::time::Instant::now();
    let counted = pool.install(|| {
        gpu_movegen::chess::unique::unique_counts(&root, arguments.depth, memory, |ply, count| {
            if arguments.json {
                plies.push(json!({ "ply": ply, "distinct": count }));
            } else if failure.is_none() {
                let mut stdout = std::io::stdout().lock();
                failure = writeln!(stdout, "{ply} {count}").and_then(|()| stdout.flush()).err();
            }
        })
    });
    if let Some(error) = failure {
        return Err(error.into());
    }
    counted.map_err(|error| {
        CliError::Usage(format!("unique --depth {}: {error}; give --memory or a smaller depth", arguments.depth))
    })?;
    if arguments.json {
        let report = json!({
            "fen": root.to_fen(),
            "depth": arguments.depth,
            "seconds": started.elapsed().as_secs_f64(),
            "plies": plies,
        });
        writeln!(std::io::stdout().lock(), "{report}")?;
    }
    Ok(ExitCode::SUCCESS)
}
