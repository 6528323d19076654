//! `gpu-movegen info`: the adapters, the one chosen, its limits and features.

use std::io::Write as _;
use std::process::ExitCode;

use gpu_movegen::wgpu;

use super::common::{CliError, auto_prefers_cpu};

pub fn run_info(kernels: bool, retest: bool) -> Result<ExitCode, CliError> {
    let mut stdout = std::io::stdout().lock();
    let adapters = gpu_movegen::gpu::list_adapters();
    writeln!(stdout, "adapters ({}):", adapters.len())?;
    for info in &adapters {
        writeln!(stdout, "  {}", gpu_movegen::gpu::context::describe_adapter(info))?;
    }
    let sliders = gpu_movegen::chess::fast_perft::SliderLookup::selected();
    writeln!(
        stdout,
        "cpu perft sliders: {sliders} (pext where the processor has fast BMI2; {}=magic chooses the portable path)",
        gpu_movegen::chess::fast_perft::SLIDER_LOOKUP_VARIABLE
    )?;
    let context = super::common::open_gpu()?;
    let limits = context.device.limits();
    let features = context.device.features();
    let adapter_features = context.adapter_info.as_ref().map(|info| info.backend);
    writeln!(stdout, "chosen: {}", context.adapter_description())?;
    let software = context.adapter_info.as_ref().is_some_and(auto_prefers_cpu);
    let default = gpu_movegen::chess::gpu::adapter_default(context.adapter_info.as_ref());
    let build = default.build_for(gpu_movegen::chess::gpu::KernelFamily::Chess, context.device.features());
    let variant_build = default.build_for(gpu_movegen::chess::gpu::KernelFamily::Variants, context.device.features());
    writeln!(
        stdout,
        "default shaders: {} for chess, {} for the variants ({})",
        build.name(),
        variant_build.name(),
        default.source
    )?;
    writeln!(
        stdout,
        "perft --backend auto: {}",
        if software { "the CPU (this adapter is a software one; --backend gpu uses it)" } else { "this GPU" }
    )?;
    // The most any depth's default takes.
    let table = gpu_movegen::gpu::perft::default_table_bytes(&context, None, Some(64));
    writeln!(
        stdout,
        "gpu perft transposition table: at most {} MiB by default (what the depth wants: 64 MiB at depth 6, four \
         times more a ply beyond on a GPU, three on a software adapter; at most nine tenths of the device's memory \
         less the arena's share, and an eighth of memory on a software adapter); --hash MIB sets it",
        table >> 20
    )?;
    match context.device_memory() {
        Some(memory) => writeln!(stdout, "device memory: {memory}")?,
        None => {
            writeln!(stdout, "device memory: not reported by the driver (a deep count finds it by allocation probes)")?
        }
    }
    let options = gpu_movegen::chess::gpu::PerftOptions { build, table_bytes: Some(table), ..Default::default() };
    match gpu_movegen::gpu::perft::plan_report::<gpu_movegen::chess::gpu::Chess>(&context, &options) {
        Ok(report) => writeln!(stdout, "gpu perft memory plan (the largest default table): {report}")?,
        Err(error) => writeln!(stdout, "gpu perft memory plan: none fits ({error})")?,
    }
    writeln!(
        stdout,
        "gtp playouts (--backend auto): {}",
        if software { "the CPU's threads (this adapter is a software one)" } else { "this GPU" }
    )?;
    if let Some(backend) = adapter_features {
        writeln!(stdout, "backend: {backend:?}")?;
    }
    writeln!(stdout, "limits:")?;
    writeln!(stdout, "  max_storage_buffer_binding_size: {}", limits.max_storage_buffer_binding_size)?;
    writeln!(stdout, "  max_buffer_size: {}", limits.max_buffer_size)?;
    writeln!(stdout, "  max_storage_buffers_per_shader_stage: {}", limits.max_storage_buffers_per_shader_stage)?;
    writeln!(stdout, "  max_compute_workgroups_per_dimension: {}", limits.max_compute_workgroups_per_dimension)?;
    writeln!(stdout, "  max_compute_invocations_per_workgroup: {}", limits.max_compute_invocations_per_workgroup)?;
    writeln!(stdout, "  max_compute_workgroup_storage_size: {}", limits.max_compute_workgroup_storage_size)?;
    writeln!(stdout, "features:")?;
    writeln!(stdout, "  SHADER_INT64: {}", features.contains(wgpu::Features::SHADER_INT64))?;
    writeln!(stdout, "  TIMESTAMP_QUERY: {}", features.contains(wgpu::Features::TIMESTAMP_QUERY))?;
    writeln!(stdout, "  PIPELINE_CACHE: {}", features.contains(wgpu::Features::PIPELINE_CACHE))?;
    if kernels {
        write_kernels(&mut stdout, &context)?;
    }
    stdout.flush()?;
    // Every game's kernels in their default builds; other builds are checked when first used.
    let checks = [
        gpu_movegen::chess::gpu::self_test::perft_check(build),
        gpu_movegen::chess::gpu::self_test::library_check(build),
        // The environment's GPU backend runs perft's build for the adapter.
        gpu_movegen::chess::gpu::env::environment_check(build),
        gpu_movegen::shogi::gpu::self_test::perft_check(
            Default::default(),
            gpu_movegen::shogi::gpu::fused_leaves_suit(&context, true),
        ),
        gpu_movegen::go::gpu::self_test::perft_check(gpu_movegen::go::gpu::BoardSize(9)),
        gpu_movegen::go::gpu::self_test::playout_check(9),
        gpu_movegen::go::gpu::env::go_environment_check::<9>(),
        gpu_movegen::shogi::gpu::env::shogi_environment_check(),
    ];
    let verdicts = super::common::announce_if_slow(
        false,
        "running the self-test (the first run on a driver compiles every game's kernels)",
        || if retest { context.retest(&checks) } else { context.self_test(&checks) },
    );
    let failure = verdicts.iter().find_map(|verdict| verdict.outcome.as_ref().err().map(|detail| (verdict, detail)));
    match failure {
        None => writeln!(stdout, "self-test: passed")?,
        Some((verdict, detail)) => {
            writeln!(stdout, "self-test: failed ({}: {detail})", verdict.check)?;
            if let Some(file) = &verdict.cache_file {
                writeln!(
                    stdout,
                    "  the failed verdict is kept in {} for a day; 'gpu-movegen info --retest' tests again now",
                    file.display()
                )?;
            }
        }
    }
    for verdict in &verdicts {
        let state = if verdict.outcome.is_ok() { "passed" } else { "failed" };
        match verdict.seconds {
            Some(seconds) => writeln!(stdout, "  {}: {state} ({seconds:.1} s)", verdict.check)?,
            None => writeln!(stdout, "  {}: {state} (cached)", verdict.check)?,
        }
    }
    if let Some(directory) = gpu_movegen::gpu::self_test::cache_directory() {
        writeln!(stdout, "  verdicts cached in {}", directory.join("self-test").display())?;
    }
    match context.pipeline_cache() {
        Some(cache) if cache.loaded_bytes == 0 => {
            writeln!(stdout, "pipeline cache: {} (this process started it afresh)", cache.file.display())?
        }
        Some(cache) => writeln!(
            stdout,
            "pipeline cache: {} (started with {} bytes of the driver's data)",
            cache.file.display(),
            cache.loaded_bytes
        )?,
        None if gpu_movegen::gpu::pipeline_cache::disabled() => {
            writeln!(stdout, "pipeline cache: off (GPU_MOVEGEN_PIPELINE_CACHE)")?
        }
        None => writeln!(stdout, "pipeline cache: none (the adapter offers none, or there is no cache directory)")?,
    }
    // A device whose results cannot be trusted is a GPU failure for scripts too.
    Ok(if failure.is_none() { ExitCode::SUCCESS } else { ExitCode::from(3) })
}

/// `info --kernels`: each game's perft kernels on this device, their build
/// and leaf shape, and why.
fn write_kernels(stdout: &mut impl std::io::Write, context: &gpu_movegen::gpu::GpuContext) -> Result<(), CliError> {
    writeln!(stdout, "kernels (perft, as each game's engine runs them here by default):")?;
    for choice in gpu_movegen::catalog::default_choices(context) {
        writeln!(stdout, "  {}: build {} ({})", choice.game, choice.build, choice.build_reason)?;
        writeln!(stdout, "    dispatched: {}", choice.kernels.join(", "))?;
        writeln!(stdout, "    last two plies: {}", choice.leaf_reason)?;
    }
    writeln!(
        stdout,
        "  registers, spills and occupancy on a real GPU compiler: scripts/gpu-shader-stats (docs/testing.md); \
         device time per kernel: perft --profile-kernels"
    )?;
    Ok(())
}
