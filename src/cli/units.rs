//! `perft run-unit` and `perft merge`: one work unit counted (plain or with
//! statistics) and its result written atomically, and a split's results
//! checked and summed.

use std::process::ExitCode;

use gpu_movegen::Position;
use gpu_movegen::chess::stats::PerftStats;
use gpu_movegen::chess::units::{self, RunOutcome, Unit};

use super::common::{CliError, Progress, escape_controls};
use super::engine::{CountingArgs, Engine};

/// `perft merge`: the total (and the statistics when every result has
/// them), or every unit that cannot be merged (exit 1).
pub fn merge(folder: &std::path::Path) -> Result<ExitCode, CliError> {
    // A folder that holds no readable manifest is not a split: bad input.
    units::read_manifest(folder)?;
    match units::merge(folder) {
        Ok(merged) => {
            let manifest = &merged.manifest;
            eprintln!(
                "perft({}) of {}, merged from {} units split at ply {}",
                manifest.depth,
                manifest.root,
                manifest.units.len(),
                manifest.split_depth
            );
            if let Some(columns) = merged.statistics {
                for (name, value) in PerftStats::NAMES.iter().zip(columns) {
                    println!("{name}: {value}");
                }
            }
            println!("Nodes searched: {}", merged.nodes);
            Ok(ExitCode::SUCCESS)
        }
        Err(problems) => {
            for problem in &problems {
                println!("{}", escape_controls(problem));
            }
            let folder = escape_controls(&folder.display().to_string());
            eprintln!("error: {} of the split in {folder} cannot be merged", problems.len());
            Ok(ExitCode::from(1))
        }
    }
}

/// `perft run-unit`: counts one unit unless it has a valid result (with
/// statistics when `stats` is set).
pub fn run_unit(path: &std::path::Path, counting: CountingArgs, stats: bool) -> Result<ExitCode, CliError> {
    // Check the unit (and an existing result) before opening a device.
    let unit = units::read_unit(path)?;
    let shown = escape_controls(&path.display().to_string());
    if let Ok(found) = units::read_unit_result(&units::result_path(path), &unit.checksum)
        && (found.statistics.is_some() || !stats)
    {
        println!("{shown}: already counted, {} nodes", found.nodes);
        return Ok(ExitCode::SUCCESS);
    }
    if stats && unit.remaining == 0 {
        return Err(CliError::Usage(format!(
            "{shown}: --stats needs at least one ply below the split; this split is at the full depth {}",
            unit.depth
        )));
    }
    let mut engine = Engine::open_for(counting, unit.remaining, stats)?;
    let bar = unit_progress(unit.positions.len() as u64, counting.quiet);
    // A GPU failure keeps its own exit code through the unit runner.
    let mut failure = None;
    let mut count_batches = |unit: &Unit, count: &mut CountBatch| {
        // Batches of positions: the GPU shares its arena, the bar moves between batches.
        for chunk in unit.positions.chunks(64) {
            let roots: Vec<Position> = chunk.iter().map(|(position, _)| *position).collect();
            if let Err(error) = count(&mut engine, &roots) {
                let message = error.message().to_owned();
                failure = Some(error);
                return Err(message);
            }
            bar.inc(chunk.len() as u64);
        }
        Ok(())
    };
    let progress = Progress::new(true);
    let outcome = if stats {
        units::run_unit_stats(path, |unit| {
            let mut counted = Vec::with_capacity(unit.positions.len());
            count_batches(unit, &mut |engine, roots| {
                counted.extend(engine.perft_stats(roots, unit.remaining, &progress)?);
                Ok(())
            })
            .map(|()| counted)
        })
        .map(|(outcome, _)| outcome)
    } else {
        units::run_unit(path, |unit| {
            let mut counted = Vec::with_capacity(unit.positions.len());
            count_batches(unit, &mut |engine, roots| {
                counted.extend(engine.perft(roots, unit.remaining, &progress)?);
                Ok(())
            })
            .map(|()| counted)
        })
    };
    let outcome = match (outcome, failure) {
        (Err(_), Some(error)) => return Err(error),
        (outcome, _) => outcome?,
    };
    bar.finish_and_clear();
    match outcome {
        RunOutcome::Counted(nodes) => println!("{shown}: {nodes} nodes"),
        RunOutcome::AlreadyCounted(nodes) => println!("{shown}: already counted, {nodes} nodes"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Counts one batch of a unit's positions, keeping what it counted.
type CountBatch<'a> = dyn FnMut(&mut Engine, &[Position]) -> Result<(), CliError> + 'a;

/// A bar over a unit's positions with the time left, on a terminal and without --quiet.
fn unit_progress(positions: u64, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal as _;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(positions);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} positions, {elapsed_precise} elapsed, {eta} left",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}
