//! What every command shares: the one-line usage error, where to run
//! (`--backend`), how GPU pipelines are built (`--slider`, `--int64`,
//! `--gpu-memory`), worker threads and the progress line on stderr.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clap::ValueEnum;
use gpu_movegen::chess::gpu::{Int64Mode, KernelFamily, ShaderBuild, adapter_default};
use gpu_movegen::gpu::{GpuContext, GpuError};
use gpu_movegen::sliders::SliderAlgorithm;
use gpu_movegen::wgpu;

/// How the GPU pipelines are built.
#[derive(clap::Args, Clone, Copy)]
pub struct ShaderArgs {
    /// Sliding-attack algorithm of the GPU kernels.
    #[arg(long, value_enum, default_value_t = SliderArg::Auto)]
    pub slider: SliderArg,
    /// Native 64-bit bitboards in the shaders (needs SHADER_INT64); `auto` takes the measured default.
    #[arg(long, value_enum, default_value_t = Int64Arg::Auto)]
    pub int64: Int64Arg,
    /// The most GPU memory to allocate, in MiB (default: nine tenths of the
    /// device's; perft takes what its depth wants of it, most of it for a
    /// deep count). Smaller is slower, never less exact.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub gpu_memory: Option<u64>,
    /// Time every GPU kernel with the device's timestamps and print each one's
    /// share on stderr when the count ends (slower: each batch is waited for).
    #[arg(long)]
    pub profile_kernels: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SliderArg {
    /// The default for this adapter class (`gpu-movegen info` shows it and why).
    Auto,
    /// The vectorised four-lane Kogge-Stone fill.
    KoggeStone,
    /// The same lanes, seven plain steps.
    Dumb7fill,
    /// Hyperbola Quintessence (bit reversal and byte swap).
    Hyperbola,
    /// Subtraction-based attack mask generation.
    Sbamg,
    /// Fill by subtraction, bit scans for the negative rays.
    Subtraction,
    /// Fancy magic bitboards, tables in a storage buffer.
    Magic,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Int64Arg {
    Auto,
    On,
    Off,
}

impl ShaderArgs {
    pub fn memory_limit(self) -> Option<u64> {
        self.gpu_memory.map(|mebibytes| mebibytes << 20)
    }

    /// The build `family`'s kernels get from these arguments on `context`'s
    /// device: the adapter table's choice where an argument says `auto`.
    pub fn build(self, context: &GpuContext, family: KernelFamily) -> Result<ShaderBuild, gpu_movegen::gpu::GpuError> {
        let default = adapter_default(context.adapter_info.as_ref());
        let slider = match self.slider {
            SliderArg::Auto => default.slider,
            SliderArg::KoggeStone => SliderAlgorithm::KoggeStone,
            SliderArg::Dumb7fill => SliderAlgorithm::Dumb7Fill,
            SliderArg::Hyperbola => SliderAlgorithm::Hyperbola,
            SliderArg::Sbamg => SliderAlgorithm::Sbamg,
            SliderArg::Subtraction => SliderAlgorithm::Subtraction,
            SliderArg::Magic => SliderAlgorithm::Magic,
        };
        let available = context.device.features().contains(wgpu::Features::SHADER_INT64);
        let mode = match self.int64 {
            Int64Arg::Auto if !default.native_u64_for(family) || !available => Int64Mode::Off,
            Int64Arg::Auto => Int64Mode::Auto,
            Int64Arg::On => Int64Mode::On,
            Int64Arg::Off => Int64Mode::Off,
        };
        Ok(ShaderBuild { slider, native_u64: mode.resolve(context.device.features())? })
    }
}

/// How many GPUs a count runs on (`--devices`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceCount {
    /// Every GPU of the machine.
    All,
    /// That many.
    Count(usize),
}

/// The most devices `--devices` takes.
const MAX_DEVICES: usize = 64;

/// `--devices N|all`.
pub fn parse_device_count(text: &str) -> Result<DeviceCount, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(DeviceCount::All);
    }
    match text.parse::<usize>() {
        Ok(count) if (1..=MAX_DEVICES).contains(&count) => Ok(DeviceCount::Count(count)),
        _ => Err(format!("expected `all` or a number of devices from 1 to {MAX_DEVICES}")),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The GPU if an adapter can be opened, otherwise the CPU (said on stderr).
    Auto,
    /// The GPU; fails if no adapter can be opened.
    Gpu,
    /// The multi-threaded CPU reference.
    Cpu,
}

/// A failure that ends a command: one line on stderr and the exit code
/// every command shares (README: 2 bad input or usage, 3 GPU or driver).
pub enum CliError {
    /// The user's input, arguments or files: exit code 2.
    Usage(String),
    /// No adapter, a lost device, out of memory, a failed self-test: exit code 3.
    Gpu(String),
}

impl CliError {
    pub fn message(&self) -> &str {
        match self {
            CliError::Usage(message) | CliError::Gpu(message) => message,
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Gpu(_) => 3,
        }
    }
}

impl From<gpu_movegen::gpu::GpuError> for CliError {
    fn from(error: gpu_movegen::gpu::GpuError) -> Self {
        CliError::Gpu(error.to_string())
    }
}

/// Errors of the user's input and environment: exit code 2.
macro_rules! usage_errors {
    ($($error:ty),* $(,)?) => {
        $(impl From<$error> for CliError {
            fn from(error: $error) -> Self {
                CliError::Usage(error.to_string())
            }
        })*
    };
}

usage_errors!(
    std::io::Error,
    rayon::ThreadPoolBuildError,
    gpu_movegen::FenError,
    gpu_movegen::MoveError,
    gpu_movegen::chess::units::UnitError,
);

pub fn thread_pool(threads: Option<u32>) -> Result<rayon::ThreadPool, CliError> {
    Ok(gpu_movegen::threads::pool(threads.map(|threads| threads as usize))?)
}

/// Opens where a game's perft runs: `gpu()` for the GPU, `cpu()` for the
/// CPU. `auto` takes the GPU unless the only adapter is a software one
/// or none opens, and says on stderr why it counts on the CPU instead.
pub fn open_backend<Engine>(
    backend: Backend,
    gpu: impl FnOnce() -> Result<Engine, gpu_movegen::gpu::GpuError>,
    cpu: impl FnOnce() -> Result<Engine, CliError>,
) -> Result<Engine, CliError> {
    match backend {
        Backend::Cpu => cpu(),
        Backend::Gpu => Ok(gpu()?),
        Backend::Auto => match gpu_movegen::gpu::context::preferred_adapter() {
            Ok(info) if auto_prefers_cpu(&info) => {
                note(&format!(
                    "the only GPU adapter, {}, is a software one; counting on the CPU, which is faster here \
                     (--backend gpu runs on it anyway)",
                    gpu_movegen::gpu::context::describe_adapter(&info)
                ));
                cpu()
            }
            _ => match gpu() {
                Ok(engine) => Ok(engine),
                Err(error) => {
                    note(&error.to_string());
                    note("running on the CPU instead");
                    cpu()
                }
            },
        },
    }
}

pub use gpu_movegen::gpu::context::auto_prefers_cpu;

/// Progress on stderr: hidden at first, shown once a run passes a second,
/// never when stderr is not a terminal or with --quiet.
pub struct Progress {
    bar: indicatif::ProgressBar,
    nodes: AtomicU64,
    /// Independent parts of the work (root moves) and how many are done,
    /// for the time left; 0 parts: unknown.
    parts: AtomicU64,
    parts_done: AtomicU64,
    started: Instant,
    quiet: bool,
    /// More to show after the rate (each device's share, on several GPUs).
    detail: std::sync::Mutex<String>,
}

impl gpu_movegen::chess::cpu_perft::PerftProgress for Progress {
    fn add_parts(&self, parts: u64) {
        Progress::add_parts(self, parts);
    }

    fn part_done(&self, nodes: u64) {
        Progress::part_done(self, nodes);
    }

    fn add(&self, nodes: u64) {
        Progress::add(self, nodes);
    }
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        Progress {
            bar,
            nodes: AtomicU64::new(0),
            parts: AtomicU64::new(0),
            parts_done: AtomicU64::new(0),
            started: Instant::now(),
            quiet,
            detail: std::sync::Mutex::default(),
        }
    }

    /// Text shown after the rate from now on.
    pub fn set_detail(&self, detail: String) {
        *self.detail.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = detail;
    }

    /// Adds `parts` more parts the work is made of (the time left is
    /// estimated from the share of parts done).
    pub fn add_parts(&self, parts: u64) {
        self.parts.fetch_add(parts, Ordering::Relaxed);
    }

    /// One part finished, with its nodes.
    pub fn part_done(&self, nodes: u64) {
        self.parts_done.fetch_add(1, Ordering::Relaxed);
        self.add(nodes);
    }

    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    pub fn add(&self, nodes: u64) {
        let total = self.nodes.fetch_add(nodes, Ordering::Relaxed) + nodes;
        self.show(total);
    }

    pub fn set(&self, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
        self.show(nodes);
    }

    /// A callback for a count that starts now: the nodes it has counted so
    /// far, shown after those shown now.
    pub fn continuing(&self) -> impl Fn(u64) + Sync + '_ {
        let base = self.nodes();
        move |nodes| self.set(base + nodes)
    }

    fn show(&self, nodes: u64) {
        let seconds = self.started.elapsed().as_secs_f64();
        if self.quiet || seconds < 1.0 {
            return;
        }
        if self.bar.is_hidden() && std::io::stderr().is_terminal() {
            self.bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(std::time::Duration::from_millis(200));
        }
        let (parts, done) = (self.parts.load(Ordering::Relaxed), self.parts_done.load(Ordering::Relaxed));
        let left = if parts > 0 && done > 0 && done <= parts {
            let remaining = seconds * (parts - done) as f64 / done as f64;
            format!(
                ", {done}/{parts} parts, about {} left",
                indicatif::HumanDuration(std::time::Duration::from_secs_f64(remaining))
            )
        } else {
            String::new()
        };
        let detail = self.detail.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        let detail = if detail.is_empty() { detail } else { format!("; {detail}") };
        self.bar.set_message(format!("{nodes} nodes, {:.1} M nodes/s{left}{detail}", nodes as f64 / seconds / 1e6));
    }

    /// Clears the bar and prints the summary line.
    pub fn finish(&self, nodes: u64, backend: &str) {
        self.bar.finish_and_clear();
        if !self.quiet {
            let seconds = self.started.elapsed().as_secs_f64();
            eprintln!(
                "{nodes} nodes in {seconds:.3} s ({:.1} M nodes/s) on the {}",
                nodes as f64 / seconds.max(1e-9) / 1e6,
                backend
            );
        }
    }
}

/// Says on stderr when a perft could not end in any reasonable time, so a
/// run to a depth the crate allows but no machine finishes does not start
/// without a word. `first` and `second` are perft(1) and perft(2) of the
/// root; the forecast grows perft(2) by their ratio each further ply, which
/// underestimates games whose branching widens.
pub fn note_if_endless(depth: u32, first: u64, second: u64) {
    if depth <= 2 || first == 0 || second == 0 {
        return;
    }
    let branching = second as f64 / first as f64;
    let forecast = second as f64 * branching.powi(depth as i32 - 2);
    // A trillion nodes a second (a fast GPU) for a day.
    const DAY_AT_A_TRILLION: f64 = 8.64e16;
    if forecast > DAY_AT_A_TRILLION {
        let years = forecast / 1e12 / 3.156e7;
        eprintln!(
            "note: perft({depth}) of this position is about {forecast:.1e} nodes or more, {} at 10^12 nodes a second; \
             it runs until stopped",
            if years >= 1.0 { format!("{years:.1e} years") } else { format!("{:.0} days", years * 365.25) }
        );
    }
}

/// `text` with control characters written as escapes, so that an argument
/// echoed in an error cannot move the cursor or clear the terminal.
pub fn escape_controls(text: &str) -> String {
    text.chars()
        .map(
            |character| {
                if character.is_control() { character.escape_default().to_string() } else { character.to_string() }
            },
        )
        .collect()
}

/// `-q`: no notes on stderr either (errors still go there).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records the command's `-q`, which [`note`] obeys.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// A `note:` line on stderr, unless the command was given `-q`.
pub fn note(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("note: {message}");
    }
}

/// `--gpu-timeout`, in seconds, once the command line is read.
static GPU_TIMEOUT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();

/// Records `--gpu-timeout` for every context [`open_gpu`] opens.
pub fn set_gpu_timeout(seconds: Option<u64>) {
    let _ = GPU_TIMEOUT.set(seconds);
}

/// The command line's `--gpu-timeout`, if it gave one.
pub fn gpu_timeout() -> Option<u64> {
    GPU_TIMEOUT.get().copied().flatten()
}

/// Says on stderr where a GPU count's memory went, when that is worth a
/// line: a table of 1 GiB or more, or one spread over several bindings
/// (`sized_by_default`: the table was sized to the device, not by --hash).
pub fn note_memory_plan(report: &gpu_movegen::gpu::perft::MemoryReport, sized_by_default: bool) {
    if report.table_bytes >= 1 << 30 || report.table_bindings > 1 {
        let how = if sized_by_default { "; --hash MIB or --gpu-memory MIB caps it" } else { "" };
        note(&format!("GPU memory: {report}{how}"));
    }
}

/// Opens the GPU (the adapter [`GpuContext::new`] prefers) with the
/// command line's `--gpu-timeout`, if it gave one.
pub fn open_gpu() -> Result<GpuContext, gpu_movegen::gpu::GpuError> {
    let context = GpuContext::new()?;
    if let Some(seconds) = GPU_TIMEOUT.get().copied().flatten() {
        context.set_wait_timeout(std::time::Duration::from_secs(seconds));
    }
    Ok(context)
}

/// Why a suite run would count nothing: no expected count within
/// `--max-depth` when one was given, else none at all.
pub fn no_counts_problem(max_depth: Option<u32>) -> String {
    match max_depth {
        Some(depth) => format!("no expected count at depth {depth} or below"),
        None => "no expected counts".to_owned(),
    }
}

/// Runs `work`; when it takes more than two seconds, says on stderr what is
/// going on (unless `quiet`), and once it is done how long it took, so that
/// a cold start (a driver compiling kernels for the first time) is not
/// silence.
pub fn announce_if_slow<T>(quiet: bool, what: &str, work: impl FnOnce() -> T) -> T {
    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);
    let started = std::time::Instant::now();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let announcer = scope.spawn(move || {
            let slow = matches!(finished.recv_timeout(PATIENCE), Err(std::sync::mpsc::RecvTimeoutError::Timeout));
            if slow && !quiet {
                eprintln!("{what}…");
            }
            slow
        });
        let value = work();
        drop(done);
        let slow = announcer.join().unwrap_or(false);
        if slow && !quiet {
            eprintln!("{what}: done in {:.1} s", started.elapsed().as_secs_f64());
        }
        value
    })
}

/// Where Shogi and Go perft count, and with what: the options their
/// `perft` commands share.
#[derive(clap::Args, Clone, Copy)]
pub struct GameCountingArgs {
    /// Worker threads for the CPU (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Where to run: `auto` uses a real GPU when there is one, else the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// The most GPU memory to allocate, in MiB (smaller is slower, never less exact).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub gpu_memory: Option<u64>,
    #[command(flatten)]
    pub hash: GpuTableArgs,
    /// Time every GPU kernel with the device's timestamps and print each one's
    /// share on stderr when the count ends (slower: each batch is waited for).
    #[arg(long)]
    pub profile_kernels: bool,
}

/// Prints where a profiled GPU engine's device time went, a line a kernel
/// (nothing when it was not profiled).
pub fn print_kernel_times(times: &[gpu_movegen::gpu::perft::KernelTime]) {
    let total: f64 = times.iter().map(|time| time.seconds).sum();
    for time in times {
        eprintln!(
            "kernel {:<24} {:9.3} s {:5.1}% {:8} dispatches {:13} invocations {:8.1} ns each",
            time.entry_point,
            time.seconds,
            100.0 * time.seconds / total.max(f64::MIN_POSITIVE),
            time.dispatches,
            time.invocations,
            1e9 * time.seconds / time.invocations.max(1) as f64
        );
    }
}

/// The GPU transposition table of Shogi and Go perft (`--hash`).
#[derive(clap::Args, Clone, Copy)]
pub struct GpuTableArgs {
    /// Transposition table in GPU memory, in MiB (within --gpu-memory); 0
    /// turns tables and merging off. Default: what the depth needs (16 MiB
    /// up to depth 5, 64 MiB at depth 6, more a ply beyond), within the
    /// device's memory. The CPU counts Shogi and Go without a table.
    #[arg(long = "hash", value_name = "MIB", value_parser = clap::value_parser!(u64).range(0..=1 << 22))]
    pub mebibytes: Option<u64>,
}

impl GpuTableArgs {
    /// The table's bytes and whether to merge equal positions, by the
    /// library's rule for every front end
    /// ([`gpu_movegen::gpu::perft::requested_table`]).
    pub fn resolve(
        &self,
        context: &GpuContext,
        memory_limit: Option<u64>,
        depth: u32,
    ) -> Result<(u64, bool), gpu_movegen::gpu::GpuError> {
        gpu_movegen::gpu::perft::requested_table(context, self.mebibytes, memory_limit, depth)
    }
}

/// One engine on each of `devices` GPUs, each built by `open_on` (which
/// also names it), as a pool, with its description: "N GPUs, each …", or
/// each named where they differ. A device that fails is named in the error.
pub fn open_device_pool<G: gpu_movegen::gpu::perft::PerftGame>(
    devices: DeviceCount,
    open_on: impl Fn(&GpuContext) -> Result<(gpu_movegen::gpu::perft::PerftEngine<G>, String), GpuError>,
) -> Result<(gpu_movegen::gpu::perft::DevicePool<G>, String), CliError>
where
    gpu_movegen::gpu::perft::PerftEngine<G>: Send,
{
    let count = match devices {
        DeviceCount::All => None,
        DeviceCount::Count(count) => Some(count),
    };
    let contexts = GpuContext::open_devices(count).map_err(|error| match error {
        GpuError::Limits(message) => CliError::Usage(format!("--devices: {message}")),
        error => CliError::from(error),
    })?;
    let mut engines = Vec::with_capacity(contexts.len());
    let mut names = Vec::with_capacity(contexts.len());
    for (index, context) in contexts.iter().enumerate() {
        if let Some(seconds) = gpu_timeout() {
            context.set_wait_timeout(std::time::Duration::from_secs(seconds));
        }
        let (engine, name) = open_on(context).map_err(|error| GpuError::OnDevice {
            device: format!("GPU {} of {}", index + 1, contexts.len()),
            source: Box::new(error),
        })?;
        engines.push(engine);
        names.push(name);
    }
    let description = if names.iter().all(|name| *name == names[0]) {
        format!("{} GPUs, each {}", names.len(), names[0])
    } else {
        format!("{} GPUs: {}", names.len(), names.join("; "))
    };
    Ok((gpu_movegen::gpu::perft::DevicePool::new(engines, names), description))
}
