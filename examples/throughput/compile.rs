//! `compile`: the cold compile time of every game's perft kernels. Each
//! kernel is built on a fresh pipeline and dispatched once with empty
//! buffers: lavapipe compiles a pipeline at its first dispatch, not when it
//! is created, so the time to a finished first dispatch is the compile time.
//! main.rs turns Mesa's shader cache off for this section
//! (`MESA_SHADER_CACHE_DISABLE=true`), so every figure is a cold compile.

use crate::OrGpuExit as _;
use crate::report::Row;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::reflect::{BindingKind, ComposedShader, RuntimeChecks, reflect};
use std::time::Instant;

/// Every game's perft module in the build its engine uses by default.
fn modules() -> Vec<(&'static str, ComposedShader)> {
    use gpu_movegen::{chess, go, shogi};
    let composed = [
        ("chess", chess::gpu::shaders::compose_build("perft", Default::default(), &[]).map_err(|e| e.to_string())),
        (
            "shogi",
            shogi::gpu::shaders::compose_build("shogi_perft", Default::default(), &[]).map_err(|e| e.to_string()),
        ),
        ("go 9x9", go::gpu::shaders::compose("go_perft", 9, &[]).map_err(|e| e.to_string())),
        ("go 19x19", go::gpu::shaders::compose("go_perft", 19, &[]).map_err(|e| e.to_string())),
    ];
    composed
        .into_iter()
        .map(|(game, source)| {
            let shader = source.and_then(|text| reflect(text).map_err(|error| error.to_string()));
            (game, shader.unwrap_or_else(|error| panic!("{game} perft module: {error}")))
        })
        .collect()
}

/// Builds `entry` of `shader` alone and dispatches it once; the seconds taken.
fn first_dispatch(context: &GpuContext, shader: &ComposedShader, entry: &str) -> f64 {
    let device = &context.device;
    let started = Instant::now();
    let mut only = shader.clone();
    only.entry_points.retain(|point| point.name == entry);
    let kernels = context
        .scoped(|| only.build_kernels(device, "cold compile", RuntimeChecks::Off, false))
        .or_gpu_exit("the kernel builds");
    let buffers: Vec<(u32, wgpu::Buffer)> = shader
        .bindings
        .iter()
        .filter(|binding| binding.group == 0)
        .map(|binding| {
            let usage = match binding.kind {
                BindingKind::Uniform => wgpu::BufferUsages::UNIFORM,
                _ => wgpu::BufferUsages::STORAGE,
            };
            // Zeroed: every count is 0, so the dispatch does no work.
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 1 << 16,
                usage,
                mapped_at_creation: false,
            });
            (binding.binding, buffer)
        })
        .collect();
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|(binding, buffer)| wgpu::BindGroupEntry { binding: *binding, resource: buffer.as_entire_binding() })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &kernels.layout,
        entries: &entries,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(kernels.pipeline(entry));
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    context.queue.submit([encoder.finish()]);
    context.wait().or_gpu_exit("the dispatch finishes");
    started.elapsed().as_secs_f64()
}

pub(crate) fn compile_section() -> (Option<String>, Vec<Row>) {
    let Ok(context) = GpuContext::new() else {
        println!("cold compile: no adapter");
        return (None, Vec::new());
    };
    let adapter = context.adapter_description();
    println!("Cold compile of every game's perft kernels on {adapter} (Mesa's shader cache off), seconds");
    println!("{:<10} {:<24} {:>9}", "game", "kernel", "seconds");
    let mut rows = Vec::new();
    for (game, shader) in modules() {
        let mut total = 0.0;
        for entry in shader.entry_points.iter().map(|point| point.name.clone()) {
            let seconds = first_dispatch(&context, &shader, &entry);
            total += seconds;
            println!("{game:<10} {entry:<24} {seconds:>9.2}");
            rows.push(Row::counted("compile", game.to_owned(), &entry, 0, 1.0, seconds, None));
        }
        println!("{game:<10} {:<24} {total:>9.2}", "(all)");
    }
    (Some(adapter), rows)
}
