//! Go playouts from a position, on the GPU or the CPU, and their win rates.

use gpu_movegen::go::gpu::GpuPlayouts;
use js_sys::Object;
use wasm_bindgen::JsValue;

use crate::set;

/// Go playouts and their win rates.
pub async fn playouts(
    size: u32,
    moves: &str,
    count: u32,
    seed: u32,
    komi: f64,
    backend: &str,
) -> Result<JsValue, String> {
    use gpu_movegen::go::Position;
    if !(1..=1_000_000).contains(&count) {
        return Err(format!("playouts must be from 1 to 1,000,000, not {count}"));
    }
    if !komi.is_finite() || komi.abs() > gpu_movegen::go::playout::MAX_KOMI {
        return Err(format!("komi must be within ±{}", gpu_movegen::go::playout::MAX_KOMI));
    }
    let position = Position::from_moves(size, moves).map_err(|error| format!("--moves: {error}"))?;
    let started_at = web_time::Instant::now();
    let (results, adapter) = match backend {
        "cpu" => (gpu_movegen::go::playout::playouts(&position, count, seed, 0), "WebAssembly CPU engine".to_owned()),
        "gpu" => {
            let context = crate::context().await.map_err(|error| error.to_string())?;
            let mut runner = GpuPlayouts::new(&context);
            let results = runner.playouts_async(&[position], count, seed, 0).await.map_err(|error| {
                crate::forget_device_after(&error);
                error.to_string()
            })?;
            (results, context.adapter_description())
        }
        other => return Err(format!("backend must be \"gpu\" or \"cpu\", not \"{other}\"")),
    };
    let signs: Vec<i32> = results.iter().map(|result| result.winner_sign(komi)).collect();
    let report = Object::new();
    set(&report, "playouts", results.len() as u32);
    set(&report, "blackWins", signs.iter().filter(|&&sign| sign > 0).count() as u32);
    set(&report, "whiteWins", signs.iter().filter(|&&sign| sign < 0).count() as u32);
    set(&report, "draws", signs.iter().filter(|&&sign| sign == 0).count() as u32);
    set(&report, "backend", backend);
    set(&report, "adapter", adapter);
    set(&report, "seconds", started_at.elapsed().as_secs_f64());
    Ok(report.into())
}
