//! `sliders`: every slider algorithm in both bitboard layouts: slider
//! evaluations, move generation and perft on the GPU, and the CPU twins.

use crate::OrGpuExit as _;
use crate::movegen::batch_of;
use crate::report::{Row, seconds};
use gpu_movegen::chess::gpu::{GeneratorOptions, GpuPerft, PerftOptions, ShaderBuild, shaders};
use gpu_movegen::chess::gpu::{Kernel, MoveGenerator};
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::reflect::reflect;
use gpu_movegen::sliders::SliderAlgorithm;
use gpu_movegen::suite::published_count;
use gpu_movegen::{Position, perft, random_play};
use std::time::Instant;

/// Each invocation evaluates 64 queen attack sets (varying square and
/// occupancy) and folds them into one word, so the work cannot be skipped.
pub(crate) const SLIDER_BENCH_KERNEL: &str = r#"
#import sliders

@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)

fn slider_bench(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let index = id.y * groups.x * 64u + id.x;
    var occupied = bitboard_make(input[index % arrayLength(&input)], index * 0x9e3779b9u);
    var folded = BITBOARD_EMPTY;
    for (var step = 0u; step < 64u; step++) {
        let attacks = slider_queen_attacks((index + step * 7u) % 64u, occupied);
        folded = folded ^ attacks;
        occupied = occupied ^ bitboard_shift_left(attacks, step % 7u);
    }
    output[index] = bitboard_low(folded) ^ bitboard_high(folded);
}
"#;

/// Slider evaluations per second of `build` on the GPU.
pub(crate) fn gpu_slider_evaluations(context: &GpuContext, build: ShaderBuild, invocations: u32) -> f64 {
    use gpu_movegen::gpu::resources::{bind_group, buffer, buffer_with, record_dispatch};
    let device = &context.device;
    let source = shaders::compose_build("bench", build, &[("bench", SLIDER_BENCH_KERNEL)]).expect("composes");
    let kernels = reflect(source).expect("the bench kernel parses").kernels(device, "slider bench");
    let tables = buffer_with(device, "tables", &shaders::attack_table_data(), wgpu::BufferUsages::STORAGE);
    let seeds: Vec<u32> = (0..4096u32).map(|index| index.wrapping_mul(0x2545_f491) ^ 0x0f0f_1234).collect();
    let input = buffer_with(device, "seeds", &seeds, wgpu::BufferUsages::STORAGE);
    let output = buffer(device, "output", u64::from(invocations) * 4, wgpu::BufferUsages::STORAGE);
    let bind_group = bind_group(device, "slider bench", &kernels.layout, &[(0, &tables), (1, &input), (2, &output)]);
    let max_per_dimension = device.limits().max_compute_workgroups_per_dimension;
    // Every invocation of the grid runs its 64 evaluations, the spare ones too.
    let (x, y) = gpu_movegen::gpu::resources::grid(invocations.div_ceil(64), max_per_dimension);
    let run = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        let pipeline = kernels.pipeline("slider_bench");
        record_dispatch(&mut encoder, pipeline, &bind_group, &[], invocations, 64, max_per_dimension);
        context.queue.submit([encoder.finish()]);
        context.wait().expect("GPU work finishes");
    };
    run();
    let started = Instant::now();
    run();
    (u64::from(x * y) * 64 * 64) as f64 / started.elapsed().as_secs_f64()
}

pub(crate) fn sliders_section(batch: usize, perft_depth: u32, invocations: u32) -> (Option<String>, Vec<Row>) {
    let context = match GpuContext::new() {
        Ok(context) => context,
        Err(error) => {
            eprintln!("sliders: {error}");
            std::process::exit(crate::GPU_FAILURE);
        }
    };
    let native = context.device.features().contains(wgpu::Features::SHADER_INT64);
    println!("Slider algorithms, adapter: {} (SHADER_INT64: {native})", context.adapter_description());
    let positions = batch_of(&random_play::random_positions(&Position::start(), 20_000, 120, 2026), batch);
    // The published count where there is one, else the CPU's.
    let expected_nodes = published_count(&Position::start(), perft_depth)
        .unwrap_or_else(|| perft::perft_parallel(&Position::start(), perft_depth));
    println!(
        "{:<20} {:>16} {:>18} {:>16} {:>18}",
        "variant", "G evals/s", "movegen pos/s", "perft M n/s", "cpu twin M evals/s"
    );
    let mut rows = Vec::new();
    for slider in SliderAlgorithm::ALL {
        // The CPU twin's rate, one thread, for scale.
        let started = Instant::now();
        let mut folded = 0u64;
        let mut occupied = 0x0000_ff00_1234_5678u64;
        let evaluations = 2_000_000u32;
        for step in 0..evaluations {
            let square = (step * 7 % 64) as u8;
            let attacks = slider.rook_attacks(square, occupied) | slider.bishop_attacks(square, occupied);
            folded ^= attacks;
            occupied ^= attacks << (step % 7);
        }
        std::hint::black_box(folded);
        let cpu_rate = f64::from(evaluations) / started.elapsed().as_secs_f64();
        for native_u64 in [false, true] {
            if native_u64 && !native {
                continue;
            }
            let build = ShaderBuild { slider, native_u64 };
            let evaluation_rate = gpu_slider_evaluations(&context, build, invocations);
            let mut generator = MoveGenerator::with_options(&context, GeneratorOptions { build, ..Default::default() })
                .expect("generator");
            generator.generate(&positions[..positions.len().min(1_000)], Kernel::PerPosition).or_gpu_exit("warm-up");
            let started = Instant::now();
            generator.generate(&positions, Kernel::PerPosition).expect("generation");
            let movegen_rate = batch as f64 / started.elapsed().as_secs_f64();
            let mut gpu =
                GpuPerft::with_options(&context, PerftOptions { build, table_bytes: Some(0), ..Default::default() })
                    .expect("perft");
            gpu.perft(&[Position::start()], 3, &mut |_| {}).or_gpu_exit("warm-up");
            let (nodes, perft_seconds) =
                seconds(|| gpu.perft(&[Position::start()], perft_depth, &mut |_| {}).expect("perft")[0]);
            if nodes != expected_nodes {
                eprintln!(
                    "sliders: {} counted {nodes} for start perft({perft_depth}); expected {expected_nodes}",
                    build.name()
                );
                std::process::exit(1);
            }
            let perft_rate = nodes as f64 / perft_seconds;
            println!(
                "{:<20} {:>16.3} {:>18.0} {:>16.1} {:>18.1}",
                build.name(),
                evaluation_rate / 1e9,
                movegen_rate,
                perft_rate / 1e6,
                cpu_rate / 1e6
            );
            let row = |engine: &str, workload: &str, size: u64, rate: f64| Row {
                section: "sliders",
                engine: format!("{} {engine}", build.name()),
                workload: workload.to_owned(),
                size,
                rate,
                amount: rate,
                seconds: 0.0,
                upload_ms: None,
                dispatch_ms: None,
                gpu_ms: None,
                readback_ms: None,
                checked: None,
            };
            rows.push(row("slider evaluations", "queen attacks", 1, evaluation_rate));
            rows.push(row("movegen", "per-position kernel", batch as u64, movegen_rate));
            rows.push(row("perft", "start position", u64::from(perft_depth), perft_rate));
            rows.push(row("cpu twin", "queen attacks", 1, cpu_rate));
        }
    }
    (Some(context.adapter_description()), rows)
}
