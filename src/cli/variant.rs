//! The chess variants on the command line: where a variant's perft runs
//! (the CPU's threads, one GPU or several), and `perft --variant` for one
//! position, a divide, statistics, JSON and suites.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use gpu_movegen::Move;
use gpu_movegen::chess::gpu::{ChessVariants, KernelFamily, VariantGpuPerft, VariantKernels, VariantPerftOptions};
use gpu_movegen::chess::stats::PerftStats;
use gpu_movegen::chess::variant::{self, Variant, VariantPosition};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::perft::Counter;
use serde_json::{Map, Value, json};

use super::common::{Backend, CliError, DeviceCount, Progress, open_backend};
use super::engine::CountingArgs;

/// `--variant NAME`: a UCI_Variant name or lichess's.
pub fn parse_build(text: &str) -> Result<Variant, String> {
    text.parse::<Variant>().map_err(|error| error.to_string())
}

/// Reads `fen` as a position of `variant`, naming `what` (the option) in the error.
pub fn parse_variant_fen(variant: Variant, fen: &str, what: &str) -> Result<VariantPosition, CliError> {
    VariantPosition::from_fen(variant, fen).map_err(|error| CliError::Usage(format!("{what}: {variant}: {error}")))
}

/// Where a variant's perft runs (the CPU's threads, one GPU or several):
/// the library's counter, with the command line's progress and errors.
pub struct VariantEngine(Counter<ChessVariants>);

impl VariantEngine {
    /// An engine for `variant` as `counting` asks; `depth` sizes the GPU's table.
    pub fn open(variant: Variant, counting: CountingArgs, depth: u32) -> Result<VariantEngine, CliError> {
        let CountingArgs { threads, backend, hash, shaders, quiet, devices } = counting;
        super::common::set_quiet(quiet);
        let open_on = |context: &GpuContext| -> Result<(VariantGpuPerft, String), gpu_movegen::gpu::GpuError> {
            let kernels = VariantKernels { variant, shaders: shaders.build(context, KernelFamily::Variants)? };
            let memory_limit = shaders.memory_limit();
            let (table_bytes, merge_transpositions) =
                gpu_movegen::gpu::perft::requested_table(context, hash.mebibytes, memory_limit, depth)?;
            let options = VariantPerftOptions {
                build: kernels,
                memory_limit,
                merge_transpositions,
                table_bytes: Some(table_bytes),
                ..Default::default()
            };
            let engine = super::common::announce_if_slow(
                quiet,
                &format!(
                    "building and self-testing the {variant} GPU kernels (the first run on a driver compiles them)"
                ),
                || VariantGpuPerft::with_options(context, options),
            )?;
            super::common::note_memory_plan(&engine.memory_report(), hash.mebibytes.is_none());
            let mut description =
                format!("{}, {variant} kernels, {}", context.adapter_description(), kernels.shaders.name());
            if engine.transposition_table_bytes() > 0 {
                description += &format!(", {} MiB transposition table", engine.transposition_table_bytes() >> 20);
            }
            Ok((engine, description))
        };
        if let Some(devices) = devices
            && devices != DeviceCount::Count(1)
        {
            if backend == Backend::Cpu {
                return Err(CliError::Usage("--devices counts on GPUs; it cannot go with --backend cpu".to_owned()));
            }
            let (pool, description) = super::common::open_device_pool(devices, open_on)?;
            return Ok(VariantEngine(Counter::Devices(Box::new(pool), description)));
        }
        let gpu = || -> Result<VariantEngine, gpu_movegen::gpu::GpuError> {
            let context = super::common::open_gpu()?;
            let (engine, description) = open_on(&context)?;
            Ok(VariantEngine(Counter::Gpu(Box::new(engine), description)))
        };
        open_backend(backend, gpu, || Ok(VariantEngine(Counter::Cpu(super::common::thread_pool(threads)?))))
    }

    pub fn describe(&self) -> String {
        self.0.describe()
    }

    /// `"gpu"` or `"cpu"`, as JSON reports name the backend.
    pub fn backend_name(&self) -> &'static str {
        if self.0.on_cpu() { "cpu" } else { "gpu" }
    }

    /// Perft of every root to `depth`.
    pub fn perft(&mut self, roots: &[VariantPosition], depth: u32, progress: &Progress) -> Result<Vec<u64>, CliError> {
        Ok(self.0.perft(roots, depth, &progress.continuing())?)
    }

    /// Perft of one root in 128 bits.
    pub fn perft_wide(
        &mut self,
        position: &VariantPosition,
        depth: u32,
        progress: &Progress,
    ) -> Result<u128, CliError> {
        Ok(self.0.perft_wide(std::slice::from_ref(position), depth, &progress.continuing())?[0])
    }

    /// Each legal move with perft(depth - 1) of its child, in UCI order.
    pub fn divide(
        &mut self,
        position: &VariantPosition,
        depth: u32,
        progress: &Progress,
    ) -> Result<Vec<(Move, u64)>, CliError> {
        Ok(self.0.divide(position, depth, &progress.continuing())?)
    }

    /// [`VariantEngine::divide`] that setting `stop` ends early with
    /// `Ok(None)`, as [`super::engine::Engine::divide_until`] does.
    pub fn divide_until(
        &mut self,
        position: &VariantPosition,
        depth: u32,
        progress: &Progress,
        stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<Option<Vec<(Move, u64)>>, CliError> {
        Ok(self.0.divide_until(position, depth, &progress.continuing(), stop)?)
    }
}

/// What `perft --variant` was asked for.
pub struct VariantRequest {
    pub variant: Variant,
    pub fen: Option<String>,
    pub depth: u32,
    pub divide: bool,
    pub chess960: bool,
    pub stats: bool,
    pub json: bool,
    pub counting: CountingArgs,
}

/// `perft --variant V` for one position: the count, a divide, statistics or JSON.
pub fn run_variant_perft(request: VariantRequest) -> Result<ExitCode, CliError> {
    let variant = request.variant;
    let position = match &request.fen {
        Some(fen) => parse_variant_fen(variant, fen, "--fen")?,
        None => VariantPosition::start(variant),
    };
    if request.divide && request.depth == 0 {
        return Err(CliError::Usage(
            "--divide needs --depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
        ));
    }
    let chess960 = request.chess960 || position.board().is_chess960();
    let quiet = request.counting.quiet || request.json;
    let progress = Progress::new(quiet);
    let started = Instant::now();
    let mut stdout = std::io::stdout().lock();
    if request.stats {
        if request.counting.backend == Backend::Gpu || request.counting.devices.is_some() {
            return Err(CliError::Usage(format!(
                "--stats for {variant} counts on the CPU; leave out --backend gpu and --devices"
            )));
        }
        super::common::set_quiet(request.counting.quiet);
        let pool = super::common::thread_pool(request.counting.threads)?;
        let divided = pool.install(|| variant::divide_stats(&position, request.depth));
        let total: PerftStats = if request.depth == 0 {
            PerftStats { nodes: 1, ..PerftStats::default() }
        } else {
            divided.iter().map(|(_, stats)| *stats).sum()
        };
        let seconds = started.elapsed().as_secs_f64();
        progress.finish(total.nodes, &format!("CPU ({variant}), leaves counted by kind"));
        if request.json {
            let mut object = report_head(&position, request.depth, "cpu", seconds);
            insert_stats(&mut object, &total);
            if request.divide {
                let moves: Vec<Value> = divided
                    .iter()
                    .map(|(mv, stats)| {
                        let mut entry = Map::new();
                        entry.insert("move".to_owned(), json!(mv.uci(chess960).to_string()));
                        insert_stats(&mut entry, stats);
                        Value::Object(entry)
                    })
                    .collect();
                object.insert("divide".to_owned(), Value::Array(moves));
            }
            writeln!(stdout, "{}", Value::Object(object))?;
            return Ok(ExitCode::SUCCESS);
        }
        if request.divide {
            for (mv, stats) in &divided {
                writeln!(stdout, "{}: {}", mv.uci(chess960), stats.nodes)?;
            }
            writeln!(stdout)?;
        }
        for (name, value) in PerftStats::NAMES.iter().zip(total.columns()) {
            writeln!(stdout, "{name}: {value}")?;
        }
        writeln!(stdout, "Nodes searched: {}", total.nodes)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut engine = VariantEngine::open(variant, request.counting, request.depth)?;
    let divided = if request.divide { Some(engine.divide(&position, request.depth, &progress)?) } else { None };
    let nodes: u128 = match &divided {
        Some(counts) => counts.iter().map(|(_, nodes)| u128::from(*nodes)).sum(),
        None => engine.perft_wide(&position, request.depth, &progress)?,
    };
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(u64::try_from(nodes).unwrap_or(u64::MAX), &format!("{} ({variant})", engine.describe()));
    if request.json {
        let mut object = report_head(&position, request.depth, engine.backend_name(), seconds);
        object.insert("nodes".to_owned(), count_value(nodes));
        if let Some(divided) = &divided {
            let moves: Vec<Value> = divided
                .iter()
                .map(|(mv, nodes)| json!({ "move": mv.uci(chess960).to_string(), "nodes": nodes }))
                .collect();
            object.insert("divide".to_owned(), Value::Array(moves));
        }
        writeln!(stdout, "{}", Value::Object(object))?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(divided) = &divided {
        for (mv, nodes) in divided {
            writeln!(stdout, "{}: {nodes}", mv.uci(chess960))?;
        }
        writeln!(stdout)?;
    }
    writeln!(stdout, "Nodes searched: {nodes}")?;
    Ok(ExitCode::SUCCESS)
}

/// The keys every variant report opens with.
fn report_head(position: &VariantPosition, depth: u32, backend: &str, seconds: f64) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("variant".to_owned(), json!(position.variant().uci_name()));
    object.insert("fen".to_owned(), json!(position.to_fen()));
    object.insert("depth".to_owned(), json!(depth));
    object.insert("backend".to_owned(), json!(backend));
    object.insert("seconds".to_owned(), json!(seconds));
    object
}

fn insert_stats(object: &mut Map<String, Value>, stats: &PerftStats) {
    for (name, value) in PerftStats::NAMES.iter().zip(stats.columns()) {
        object.insert((*name).to_owned(), json!(value));
    }
}

/// A count as JSON: a number, or a decimal string past 2^64.
fn count_value(nodes: u128) -> Value {
    match u64::try_from(nodes) {
        Ok(nodes) => json!(nodes),
        Err(_) => json!(nodes.to_string()),
    }
}

/// One position of a variant suite, with the counts it expects.
pub struct VariantSuiteEntry {
    pub line: usize,
    pub variant: Variant,
    pub position: VariantPosition,
    pub expected: Vec<(u32, u64)>,
}

/// Checks a suite of variant positions (each with its own variant), depth
/// by depth and variant by variant, each variant on an engine of its own;
/// prints `P passed, F failed` (or JSON) and exits 1 on any mismatch.
pub fn run_variant_suite(
    entries: &[VariantSuiteEntry],
    counting: CountingArgs,
    max_depth: Option<u32>,
    json: bool,
) -> Result<ExitCode, CliError> {
    let max_depth = max_depth.unwrap_or(u32::MAX);
    let progress = Progress::new(counting.quiet || json);
    let started = Instant::now();
    let mut variants: Vec<Variant> = entries.iter().map(|entry| entry.variant).collect();
    variants.sort_unstable();
    variants.dedup();
    let mut failed = vec![false; entries.len()];
    let mut mismatches = Vec::new();
    let mut total_nodes = 0u64;
    let mut backend = "cpu";
    let mut describe = Vec::new();
    for variant in variants {
        let of_variant: Vec<usize> = (0..entries.len()).filter(|&index| entries[index].variant == variant).collect();
        let deepest = of_variant
            .iter()
            .flat_map(|&index| entries[index].expected.iter().map(|(depth, _)| *depth))
            .filter(|depth| *depth <= max_depth)
            .max();
        let Some(deepest) = deepest else { continue };
        let mut engine = VariantEngine::open(variant, counting, deepest)?;
        backend = engine.backend_name();
        describe.push(format!("{variant}: {}", engine.describe()));
        for depth in 1..=deepest {
            let batch: Vec<(usize, u64)> = of_variant
                .iter()
                .flat_map(|&index| {
                    entries[index]
                        .expected
                        .iter()
                        .filter(move |(at, _)| *at == depth)
                        .map(move |(_, nodes)| (index, *nodes))
                })
                .collect();
            if batch.is_empty() {
                continue;
            }
            let roots: Vec<VariantPosition> = batch.iter().map(|(index, _)| entries[*index].position).collect();
            let counts = engine.perft(&roots, depth, &progress)?;
            for ((index, expected), actual) in batch.into_iter().zip(counts) {
                total_nodes += actual;
                if actual != expected {
                    failed[index] = true;
                    mismatches.push((entries[index].line, variant, depth, expected, actual));
                }
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    progress.finish(total_nodes, &describe.join("; "));
    let failures = failed.iter().filter(|failed| **failed).count();
    let mut stdout = std::io::stdout().lock();
    mismatches.sort_unstable_by_key(|(line, _, depth, _, _)| (*line, *depth));
    if json {
        let listed: Vec<Value> = mismatches
            .iter()
            .map(|(line, variant, depth, expected, actual)| {
                json!({ "line": line, "variant": variant.uci_name(), "depth": depth, "expected": expected, "actual": actual })
            })
            .collect();
        let report = json!({
            "backend": backend,
            "seconds": seconds,
            "nodes": total_nodes,
            "passed": entries.len() - failures,
            "failed": failures,
            "mismatches": listed,
        });
        writeln!(stdout, "{report}")?;
    } else {
        for (line, variant, depth, expected, actual) in &mismatches {
            writeln!(stdout, "MISMATCH line {line} ({variant}) depth {depth}: expected {expected}, counted {actual}")?;
        }
        writeln!(stdout, "{} passed, {failures} failed", entries.len() - failures)?;
    }
    Ok(if failures == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `verify --variant`: every position counted to `depth` on the GPU's
/// variant kernels and on the CPU; a difference is a MISMATCH line and exit 1.
pub fn run_variant_verify(
    variant: Variant,
    positions: &[VariantPosition],
    depth: u32,
    shaders: super::common::ShaderArgs,
) -> Result<ExitCode, CliError> {
    let context = super::common::open_gpu()?;
    let kernels = VariantKernels { variant, shaders: shaders.build(&context, KernelFamily::Variants)? };
    eprintln!("adapter: {}, {variant} kernels, {}", context.adapter_description(), kernels.shaders.name());
    let options = VariantPerftOptions { build: kernels, memory_limit: shaders.memory_limit(), ..Default::default() };
    let mut engine = super::common::announce_if_slow(
        false,
        &format!("building and self-testing the {variant} GPU kernels (the first run on a driver compiles them)"),
        || VariantGpuPerft::with_options(&context, options),
    )?;
    let started = Instant::now();
    let gpu = engine.perft(positions, depth, &mut |_| {})?;
    eprintln!("GPU: {} positions to depth {depth} in {:.3} s", positions.len(), started.elapsed().as_secs_f64());
    let (mut passed, mut failed) = (0u64, 0u64);
    let mut stdout = std::io::stdout().lock();
    for (position, gpu) in positions.iter().zip(gpu) {
        let cpu = variant::perft(position, depth);
        if cpu == gpu {
            passed += 1;
        } else {
            failed += 1;
            writeln!(stdout, "MISMATCH {variant} {}: perft({depth}) gpu {gpu}, cpu {cpu}", position.to_fen())?;
        }
    }
    writeln!(stdout, "{passed} passed, {failed} failed")?;
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
