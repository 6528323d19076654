//! gpu-shader-stats: a real GPU compiler's verdict on every kernel of
//! gpu-movegen, without a GPU.
//!
//! Mesa's RADV driver makes a "null" device for the chip that
//! `RADV_FORCE_FAMILY` names and compiles SPIR-V for it with ACO, AMD's
//! production shader compiler; VK_KHR_pipeline_executable_properties then
//! reports each pipeline's registers, spills, occupancy, instruction count
//! and ACO's latency and throughput estimates. This program lists every
//! kernel module the crate's engines compose (`gpu_movegen::catalog`), writes
//! each entry point to SPIR-V as wgpu's Vulkan backend would, builds it on
//! the null device of each chip asked for, and prints the statistics; with
//! `--budgets` it fails when a kernel spills or passes its register budget.
//!
//! Each chip is compiled in a child process of its own, since RADV reads
//! the chip from the environment when the device is made.
//!
//! Exit codes, as for gpu-movegen: 0 done, 1 a budget or spill check
//! failed, 2 bad arguments or budget file, 3 no RADV driver or a driver failure.

mod budgets;
mod report;
mod spirv;
mod vulkan;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Parser;
use gpu_movegen::catalog::{self, Coverage};
use rayon::prelude::*;

use report::{ChipReport, KernelRow};

/// The chips compiled for when none is named: RDNA3 and RDNA4.
const DEFAULT_CHIPS: [&str; 2] = ["navi31", "gfx1201"];

#[derive(Parser, Debug)]
#[command(
    name = "gpu-shader-stats",
    about = "Registers, spills and occupancy of every gpu-movegen kernel on a real GPU compiler (Mesa RADV's ACO, \
             null device; no GPU needed)"
)]
struct Arguments {
    /// A chip as Mesa names it (RADV_FORCE_FAMILY): navi31 (RDNA3), gfx1201 (RDNA4), navi21, ...; repeat for
    /// several [default: navi31 and gfx1201]
    #[arg(long = "chip", value_name = "CHIP")]
    chips: Vec<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// Every configuration of every module, not the covering set (every slider, bitboard, board and variant on a
    /// discrete GPU's memory layout, every layout in the default configuration).
    #[arg(long)]
    full: bool,
    /// Only kernels whose `game/module/entry configuration` contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// One row per kernel and chip: the configuration with the most VGPRs.
    #[arg(long)]
    worst: bool,
    /// Check the budgets in this file (and that no kernel spills); exit 1 on a breach. Without --filter, a budget
    /// naming a kernel that no module holds is refused (exit 2).
    #[arg(long, value_name = "FILE")]
    budgets: Option<PathBuf>,
    /// Compile this WGSL file instead of the crate's kernels (`#import chess` and the other library modules
    /// resolve as in embedded shaders); its pipelines are built with runtime checks off, as the perft kernels are.
    #[arg(long, value_name = "FILE")]
    wgsl: Option<PathBuf>,
    /// The chess library build a `--wgsl` file is composed with: a slider algorithm and bitboard
    /// representation as `gpu-movegen info` names them (kogge-stone/u64, magic/u32x2, ...).
    #[arg(long, value_name = "BUILD", default_value = "kogge-stone/u32x2")]
    build: String,
    /// Write each kernel's internal representations (NIR, ACO's IR and assembly) into this folder, one file per
    /// chip and kernel.
    #[arg(long, value_name = "FOLDER")]
    isa: Option<PathBuf>,
    /// Run one chip in this process (the parent sets the driver's environment).
    #[arg(long, hide = true)]
    worker: bool,
}

fn main() -> ExitCode {
    let arguments = match Arguments::try_parse() {
        Ok(arguments) => arguments,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    if arguments.worker {
        return worker(&arguments);
    }
    let chips: Vec<String> =
        if arguments.chips.is_empty() { DEFAULT_CHIPS.map(str::to_owned).to_vec() } else { arguments.chips.clone() };
    if let Some(chip) = chips.iter().find(|chip| chip.is_empty() || !chip.chars().all(|c| c.is_ascii_alphanumeric())) {
        eprintln!("gpu-shader-stats: '{chip}' is not a chip name (Mesa's names: navi31, gfx1201, navi21, ...)");
        return ExitCode::from(2);
    }
    let budgets = match arguments.budgets.as_deref().map(budgets::Budgets::read).transpose() {
        Ok(budgets) => budgets,
        Err(error) => {
            eprintln!("gpu-shader-stats: {error}");
            return ExitCode::from(2);
        }
    };
    let manifest = match radv_manifest() {
        Ok(manifest) => manifest,
        Err(error) => {
            eprintln!("gpu-shader-stats: {error}");
            return ExitCode::from(3);
        }
    };
    // The chips side by side: each child compiles on every core, and a
    // driver's start-up is mostly waiting.
    let reports: Vec<Result<ChipReport, Failure>> =
        chips.par_iter().map(|chip| run_worker(chip, &manifest, &arguments)).collect();
    let mut chip_reports = Vec::new();
    for report in reports {
        match report {
            Ok(report) => chip_reports.push(report),
            Err(failure) => {
                eprintln!("gpu-shader-stats: {}", failure.message);
                return ExitCode::from(failure.code);
            }
        }
    }
    if arguments.json {
        println!("{}", serde_json::to_string_pretty(&chip_reports).expect("statistics serialize"));
    } else {
        print!("{}", report::table(&chip_reports, arguments.worst));
    }
    let mut failed = false;
    for chip in &chip_reports {
        for row in chip.kernels.iter().filter(|row| row.spilled() > 0) {
            eprintln!(
                "gpu-shader-stats: {} {} ({}) spills {} registers",
                chip.chip,
                row.kernel(),
                row.configuration,
                row.spilled()
            );
            failed = true;
        }
    }
    if let Some(budgets) = &budgets {
        match budgets.check(&chip_reports, arguments.filter.is_none() && arguments.wgsl.is_none()) {
            Ok(breaches) => {
                for breach in &breaches {
                    eprintln!("gpu-shader-stats: {breach}");
                }
                failed |= !breaches.is_empty();
                if breaches.is_empty() {
                    eprintln!("gpu-shader-stats: every budget of {} kept, no kernel spills", budgets.path.display());
                }
            }
            Err(error) => {
                eprintln!("gpu-shader-stats: {error}");
                return ExitCode::from(2);
            }
        }
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// RADV's Vulkan manifest: `GPU_SHADER_STATS_ICD`, or the first
/// `radeon_icd*.json` in the loader's usual folders.
fn radv_manifest() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("GPU_SHADER_STATS_ICD") {
        return Ok(PathBuf::from(path));
    }
    for folder in ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"] {
        let Ok(entries) = std::fs::read_dir(folder) else { continue };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.starts_with("radeon_icd"))
            })
            .collect();
        found.sort();
        if let Some(path) = found.into_iter().next() {
            return Ok(path);
        }
    }
    Err("Mesa's RADV Vulkan driver is not installed (no radeon_icd*.json manifest): scripts/gpu-shader-stats \
         installs Mesa 25 from bookworm-backports on Debian 12; elsewhere install mesa-vulkan-drivers (Mesa 23 or \
         newer), or set GPU_SHADER_STATS_ICD to the manifest"
        .to_owned())
}

/// Why a chip has no report, with the exit code it ends the program with.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// The driver or the machine failed (exit 3).
    fn driver(message: String) -> Failure {
        Failure { code: 3, message }
    }

    /// The caller's input was wrong (exit 2).
    fn input(message: String) -> Failure {
        Failure { code: 2, message }
    }
}

fn run_worker(chip: &str, manifest: &std::path::Path, arguments: &Arguments) -> Result<ChipReport, Failure> {
    let program =
        std::env::current_exe().map_err(|error| Failure::driver(format!("cannot find this program: {error}")))?;
    let mut command = Command::new(program);
    command.args(["--worker", "--chip", chip]);
    if arguments.full {
        command.arg("--full");
    }
    if let Some(filter) = &arguments.filter {
        command.args(["--filter", filter]);
    }
    if let Some(file) = &arguments.wgsl {
        command.arg("--wgsl").arg(file).args(["--build", &arguments.build]);
    }
    if let Some(folder) = &arguments.isa {
        command.arg("--isa").arg(folder);
    }
    let output = command
        .env("VK_ICD_FILENAMES", manifest)
        .env("VK_DRIVER_FILES", manifest)
        .env("RADV_FORCE_FAMILY", chip)
        // Mesa's device-select layer would list devices of other drivers too.
        .env("NODEVICE_SELECT", "1")
        .output()
        .map_err(|error| Failure::driver(format!("{chip}: the worker did not start: {error}")))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // The worker's own message where it wrote one (RADV's notes on the
        // null device's missing PCI bus are noise here), else all it said.
        let message = match stderr.find(WORKER_ERROR) {
            Some(start) => &stderr[start + WORKER_ERROR.len()..],
            None => &stderr,
        };
        let message = format!("{chip}: {}", message.trim());
        return Err(if output.status.code() == Some(2) { Failure::input(message) } else { Failure::driver(message) });
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|error| Failure::driver(format!("{chip}: the worker's report is unreadable: {error}")))
}

/// One chip in this process: compile every kernel and print the report as JSON.
fn worker(arguments: &Arguments) -> ExitCode {
    let chip = arguments.chips.first().cloned().unwrap_or_default();
    match compile_all(&chip, arguments) {
        Ok(report) => {
            println!("{}", serde_json::to_string(&report).expect("statistics serialize"));
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("{WORKER_ERROR}{}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// What a worker's own error line starts with, so the parent can tell it
/// from what the driver prints on the same stream.
const WORKER_ERROR: &str = "gpu-shader-stats worker: ";

/// A WGSL file of the caller's as a module: composed with the library
/// where it imports from it, built as the perft kernels are (checks off).
fn file_module(path: &std::path::Path, build: &str) -> Result<catalog::KernelModule, String> {
    use gpu_movegen::chess::gpu::embed;
    use gpu_movegen::gpu::reflect::{RuntimeChecks, reflect};
    let builds = catalog::chess_shader_builds();
    let Some(chosen) = builds.iter().copied().find(|candidate| candidate.name() == build) else {
        let names: Vec<String> = builds.iter().map(|candidate| candidate.name()).collect();
        return Err(format!("no chess build '{build}'; the builds: {}", names.join(", ")));
    };
    let source = std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let shader = if source.contains("#import") {
        embed::compose(&source, embed::EmbedOptions { build: chosen, ..Default::default() })
    } else {
        reflect(source)
    }
    .map_err(|error| format!("{}: {error}", path.display()))?;
    Ok(catalog::KernelModule {
        game: "file",
        module: path.file_stem().and_then(|stem| stem.to_str()).unwrap_or("file").to_owned(),
        configuration: format!("{build} checks-off"),
        shader,
        runtime_checks: RuntimeChecks::Off,
        dynamic_uniforms: false,
    })
}

/// The oldest Mesa whose RADV builds null devices for the chips named here.
const OLDEST_MESA: (u32, u32) = (23, 0);

fn mesa_version(driver: &str) -> Option<(u32, u32)> {
    let text = driver.split("Mesa ").nth(1)?;
    let mut parts = text.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn compile_all(chip: &str, arguments: &Arguments) -> Result<ChipReport, Failure> {
    // The caller's file first: a mistake in it is theirs, whatever the driver.
    let modules = match &arguments.wgsl {
        Some(path) => vec![file_module(path, &arguments.build).map_err(Failure::input)?],
        None => {
            let coverage = if arguments.full { Coverage::Full } else { Coverage::Covering };
            catalog::kernel_modules(coverage)
                .map_err(|error| Failure::driver(format!("composing the kernels: {error}")))?
        }
    };
    compile_modules(chip, arguments, &modules).map_err(Failure::driver)
}

fn compile_modules(chip: &str, arguments: &Arguments, modules: &[catalog::KernelModule]) -> Result<ChipReport, String> {
    let device = vulkan::NullDevice::open()?;
    match mesa_version(&device.driver) {
        Some(version) if version >= OLDEST_MESA => {}
        _ => {
            return Err(format!(
                "{} is too old or not Mesa: RADV's null devices need Mesa {}.{} or newer (scripts/gpu-shader-stats \
                 installs Mesa 25 from bookworm-backports)",
                device.driver, OLDEST_MESA.0, OLDEST_MESA.1
            ));
        }
    }
    if !device.name.to_ascii_lowercase().contains(&chip.to_ascii_lowercase()) {
        return Err(format!(
            "RADV made '{}', not a {chip}: is '{chip}' a chip Mesa {} knows?",
            device.name, device.driver
        ));
    }
    if let Some(folder) = &arguments.isa {
        std::fs::create_dir_all(folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    }
    let mut jobs = Vec::new();
    for module in modules {
        let entries = spirv::entry_points(module)
            .map_err(|error| format!("{} {} ({}): {error}", module.game, module.module, module.configuration))?;
        for entry in entries {
            let row = KernelRow::new(module, &entry.name);
            if arguments.filter.as_deref().is_some_and(|filter| !row.label().contains(filter)) {
                continue;
            }
            jobs.push((row, entry));
        }
    }
    // Equal SPIR-V (a scan kernel in every slider's module) is built once.
    let mut unique: HashMap<(Vec<u32>, String), usize> = HashMap::new();
    let mut builds = Vec::new();
    let mut build_of = Vec::with_capacity(jobs.len());
    for (_, entry) in &jobs {
        let key = (entry.words.clone(), format!("{} {:?}", entry.name, entry.bindings));
        let next = builds.len();
        let index = *unique.entry(key).or_insert(next);
        if index == next {
            builds.push(entry);
        }
        build_of.push(index);
    }
    let capture = arguments.isa.is_some();
    let built: Vec<Result<vulkan::Built, String>> =
        builds.par_iter().map(|entry| device.build(&entry.words, &entry.name, &entry.bindings, capture)).collect();
    let mut kernels = Vec::with_capacity(jobs.len());
    for ((mut row, _), index) in jobs.into_iter().zip(build_of) {
        let built =
            built[index].as_ref().map_err(|error| format!("{} ({}): {error}", row.kernel(), row.configuration))?;
        row.set_statistics(&built.statistics);
        if let Some(folder) = &arguments.isa {
            let name = format!("{chip}-{}-{}.txt", row.kernel(), row.configuration).replace(['/', ' '], "-");
            let mut text = String::new();
            for (title, body) in &built.representations {
                text += &format!("==== {title}\n{body}\n");
            }
            std::fs::write(folder.join(&name), text).map_err(|error| format!("{name}: {error}"))?;
        }
        kernels.push(row);
    }
    Ok(ChipReport { chip: chip.to_owned(), device: device.name.clone(), driver: device.driver.clone(), kernels })
}
