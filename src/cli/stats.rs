//! `perft --stats` and `perft --json`: the published perft table's eight
//! columns at the leaves (on the GPU's statistics kernel or the CPU), and
//! one JSON object on stdout for scripts.

use std::io::Write as _;
use std::process::ExitCode;

use gpu_movegen::chess::cross_check;
use gpu_movegen::chess::stats::{PerftStats, perft_stats_parallel};
use gpu_movegen::{Move, Position};
use serde_json::{Map, Value, json};

use super::common::{CliError, Progress};
use super::engine::{CountingArgs, Engine};

/// What `perft --stats` was asked for.
pub struct StatsRequest<'a> {
    pub position: &'a Position,
    pub depth: u32,
    pub divide: bool,
    pub chess960: bool,
    pub json: bool,
    pub cross_check: Option<u32>,
    pub counting: CountingArgs,
}

/// Subtrees a GPU statistics count to depth 5 or more recounts on the CPU by default.
const DEFAULT_CROSS_CHECKS: u32 = 8;

/// Counts the statistics on the fastest backend present and prints them.
pub fn run_stats(request: StatsRequest) -> Result<ExitCode, CliError> {
    let mut engine = Engine::open_for(request.counting, request.depth, true)?;
    let quiet = request.counting.quiet;
    let progress = Progress::new(quiet || request.json);
    let started = std::time::Instant::now();
    let divided = match request.divide {
        true => Some(engine.divide_stats(request.position, request.depth, &progress)?),
        false => None,
    };
    let total = match &divided {
        Some(divided) => divided.iter().map(|(_, stats)| *stats).sum(),
        None => engine.perft_stats(std::slice::from_ref(request.position), request.depth, &progress)?[0],
    };
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(total.nodes, &format!("{}, leaves counted by kind", engine.describe()));
    let mut stdout = std::io::stdout().lock();
    if let Engine::Gpu(..) = engine {
        let checks = request.cross_check.unwrap_or(if request.depth >= 5 { DEFAULT_CROSS_CHECKS } else { 0 });
        if !cross_check_stats(&mut engine, request.position, request.depth, checks, &mut stdout)? {
            return Ok(ExitCode::from(1));
        }
        if checks > 0 && !quiet {
            eprintln!("cross-check: {checks} random subtrees have equal statistics on the GPU and the CPU");
        }
    } else if request.cross_check.is_some_and(|checks| checks > 0) && !quiet {
        super::common::note("--cross-check compares the GPU with the CPU; this count ran on the CPU, so there is none");
    }
    let chess960 = request.chess960 || request.position.is_chess960();
    if request.json {
        let report = Report {
            position: request.position,
            depth: request.depth,
            backend: engine.backend_name(),
            seconds,
            total: Counts::Stats(total),
            divided: divided.map(|moves| moves.into_iter().map(|(mv, stats)| (mv, Counts::Stats(stats))).collect()),
            chess960,
        };
        writeln!(stdout, "{}", report.to_json())?;
        return Ok(ExitCode::SUCCESS);
    }
    let header: Vec<&str> = PerftStats::NAMES.to_vec();
    if let Some(divided) = &divided {
        writeln!(stdout, "move {}", header.join(" "))?;
        for (mv, stats) in divided {
            writeln!(stdout, "{} {}", mv.uci(chess960), columns_text(stats))?;
        }
        writeln!(stdout)?;
    }
    for (name, value) in PerftStats::NAMES.iter().zip(total.columns()) {
        writeln!(stdout, "{name}: {value}")?;
    }
    writeln!(stdout, "Nodes searched: {}", total.nodes)?;
    Ok(ExitCode::SUCCESS)
}

/// The nine numbers, space-separated.
pub fn columns_text(stats: &PerftStats) -> String {
    stats.columns().iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

/// Recounts `checks` random subtrees of the count with the engine and on the
/// CPU; prints each difference and returns whether there was none.
fn cross_check_stats(
    engine: &mut Engine,
    position: &Position,
    depth: u32,
    checks: u32,
    stdout: &mut impl std::io::Write,
) -> Result<bool, CliError> {
    if checks == 0 {
        return Ok(true);
    }
    let seed: u64 = rand::random();
    let subtrees = cross_check::draw_subtrees(position, depth, checks as usize, seed);
    let quiet = Progress::new(true);
    let mut differences = 0;
    for subtree in &subtrees {
        let gpu = engine.perft_stats(std::slice::from_ref(&subtree.position), subtree.depth, &quiet)?[0];
        let cpu = perft_stats_parallel(&subtree.position, subtree.depth);
        if gpu != cpu {
            differences += 1;
            let moves: Vec<String> = subtree.moves.iter().map(|mv| mv.uci(true).to_string()).collect();
            writeln!(
                stdout,
                "CROSS-CHECK MISMATCH statistics of perft({}) of {} (after {}): GPU {}, CPU {}",
                subtree.depth,
                subtree.position.to_fen(),
                if moves.is_empty() { "no moves".to_owned() } else { moves.join(" ") },
                columns_text(&gpu),
                columns_text(&cpu)
            )?;
        }
    }
    if differences > 0 {
        eprintln!(
            "error: {differences} of {checks} subtrees had different statistics on the GPU and the CPU (seed {seed}); \
             the GPU's statistics are not printed"
        );
    }
    Ok(differences == 0)
}

/// A count as JSON reports it: nodes alone, or every column.
pub enum Counts {
    Nodes(u128),
    Stats(PerftStats),
}

impl Counts {
    fn insert_into(&self, object: &mut Map<String, Value>) {
        match self {
            Counts::Nodes(nodes) => {
                // JSON numbers past u64 would need serde_json's arbitrary
                // precision; a count past 2^64 is written as a decimal string.
                let value = match u64::try_from(*nodes) {
                    Ok(nodes) => json!(nodes),
                    Err(_) => json!(nodes.to_string()),
                };
                object.insert("nodes".to_owned(), value);
            }
            Counts::Stats(stats) => {
                for (name, value) in PerftStats::NAMES.iter().zip(stats.columns()) {
                    object.insert((*name).to_owned(), json!(value));
                }
            }
        }
    }
}

/// The one JSON object `perft --json` prints.
pub struct Report<'a> {
    pub position: &'a Position,
    pub depth: u32,
    pub backend: &'static str,
    pub seconds: f64,
    pub total: Counts,
    pub divided: Option<Vec<(Move, Counts)>>,
    pub chess960: bool,
}

impl Report<'_> {
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("fen".to_owned(), json!(self.position.to_fen()));
        object.insert("depth".to_owned(), json!(self.depth));
        object.insert("backend".to_owned(), json!(self.backend));
        object.insert("seconds".to_owned(), json!(self.seconds));
        self.total.insert_into(&mut object);
        if let Some(divided) = &self.divided {
            let moves: Vec<Value> = divided
                .iter()
                .map(|(mv, counts)| {
                    let mut entry = Map::new();
                    entry.insert("move".to_owned(), json!(mv.uci(self.chess960).to_string()));
                    counts.insert_into(&mut entry);
                    Value::Object(entry)
                })
                .collect();
            object.insert("divide".to_owned(), Value::Array(moves));
        }
        Value::Object(object)
    }
}
