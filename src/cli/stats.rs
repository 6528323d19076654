//! `perft --stats` and `perft --json`: the published perft table's eight
//! columns at the leaves, and one JSON object on stdout for scripts.

use std::io::Write as _;
use std::process::ExitCode;

use gpu_movegen::chess::stats::{PerftStats, divide_stats_with, perft_stats};
use gpu_movegen::{Move, Position};
use serde_json::{Map, Value, json};

use super::common::{Backend, CliError, Progress};

/// What `perft --stats` was asked for.
pub struct StatsRequest<'a> {
    pub position: &'a Position,
    pub depth: u32,
    pub divide: bool,
    pub chess960: bool,
    pub json: bool,
    pub threads: Option<u32>,
    pub backend: Backend,
    pub quiet: bool,
}

/// Counts the statistics on the CPU's threads and prints them.
pub fn run_stats(request: StatsRequest) -> Result<ExitCode, CliError> {
    if request.backend == Backend::Gpu {
        return Err(CliError::Usage(
            "--stats counts on the CPU; the GPU has no statistics kernel yet (use --backend cpu or auto)".to_owned(),
        ));
    }
    if request.backend == Backend::Auto && !request.quiet {
        eprintln!("note: --stats counts on the CPU");
    }
    let pool = gpu_movegen::threads::pool(request.threads.map(|threads| threads as usize))
        .map_err(|error| CliError::Usage(format!("cannot start the worker threads: {error}")))?;
    let started = std::time::Instant::now();
    // Counted by root move, so the progress bar moves as each finishes.
    let progress = Progress::new(request.quiet || request.json);
    let (total, divided) = pool.install(|| {
        if request.depth == 0 {
            return (perft_stats(request.position, 0), None);
        }
        let divided = divide_stats_with(request.position, request.depth, &progress);
        (divided.iter().map(|(_, stats)| *stats).sum(), request.divide.then_some(divided))
    });
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(total.nodes, &format!("CPU, {} threads, leaves counted by kind", pool.current_num_threads()));
    let chess960 = request.chess960 || request.position.is_chess960();
    let mut stdout = std::io::stdout().lock();
    if request.json {
        let report = Report {
            position: request.position,
            depth: request.depth,
            backend: "cpu",
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
            let columns: Vec<String> = stats.columns().iter().map(u64::to_string).collect();
            writeln!(stdout, "{} {}", mv.uci(chess960), columns.join(" "))?;
        }
        writeln!(stdout)?;
    }
    for (name, value) in PerftStats::NAMES.iter().zip(total.columns()) {
        writeln!(stdout, "{name}: {value}")?;
    }
    writeln!(stdout, "Nodes searched: {}", total.nodes)?;
    Ok(ExitCode::SUCCESS)
}

/// A count as JSON reports it: nodes alone, or every column.
pub enum Counts {
    Nodes(u64),
    Stats(PerftStats),
}

impl Counts {
    fn insert_into(&self, object: &mut Map<String, Value>) {
        match self {
            Counts::Nodes(nodes) => {
                object.insert("nodes".to_owned(), json!(nodes));
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
