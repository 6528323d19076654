//! gpu-movegen in a browser: the library's async GPU paths on WebGPU and its
//! CPU engines on one thread, behind the JavaScript API the page sets on
//! `globalThis.gpuMovegen` (`web/site/gpu-movegen.js`).
//!
//! Every count the GPU returns comes from engines whose kernels passed the
//! self-test on this adapter first (the library refuses to build them
//! otherwise). A device that fails while counting is dropped, so the next
//! call asks the browser for a new one; the failed call rejects with the
//! error and returns no count.

#![warn(missing_docs)]

use std::cell::RefCell;

use gpu_movegen::gpu::{GpuContext, GpuError};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

mod playouts;
mod request;
mod runs;

pub use request::{Backend, Game, PerftRequest};
pub use runs::{PerftOutcome, perft_outcome};

thread_local! {
    /// The device every GPU call of this page shares, once opened.
    static CONTEXT: RefCell<Option<GpuContext>> = const { RefCell::new(None) };
}

/// The page's device: the one already open, or a new one from the browser.
pub async fn context() -> Result<GpuContext, GpuError> {
    if let Some(context) = CONTEXT.with(|slot| slot.borrow().clone()) {
        return Ok(context);
    }
    let context = GpuContext::new_async().await?;
    CONTEXT.with(|slot| *slot.borrow_mut() = Some(context.clone()));
    Ok(context)
}

/// Forgets the page's device after a failure of the device itself, so that
/// the next call starts from a new one.
pub fn forget_device_after(error: &GpuError) {
    if error.is_device_failure() {
        CONTEXT.with(|slot| *slot.borrow_mut() = None);
    }
}

/// Sets `object[key]`: how every result object of this crate is built.
pub(crate) fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a plain property of a fresh object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
}

/// The adapter, its limits and the verdicts of the device checks and the
/// chess kernels' checks, which run now if this page has not run them:
/// `{adapter, limits: {...}, selfTest: {passed, checks: [{check, passed,
/// detail, seconds}]}}`. Rejects when no WebGPU adapter is available.
#[wasm_bindgen]
pub async fn info() -> Result<JsValue, JsError> {
    let context = context().await.map_err(|error| JsError::new(&error.to_string()))?;
    let limits = context.device.limits();
    let limit_object = Object::new();
    set(&limit_object, "maxStorageBufferBindingSize", limits.max_storage_buffer_binding_size as f64);
    set(&limit_object, "maxBufferSize", limits.max_buffer_size as f64);
    set(&limit_object, "maxComputeInvocationsPerWorkgroup", limits.max_compute_invocations_per_workgroup);
    set(&limit_object, "maxComputeWorkgroupStorageSize", limits.max_compute_workgroup_storage_size);
    set(&limit_object, "maxStorageBuffersPerShaderStage", limits.max_storage_buffers_per_shader_stage);
    set(&limit_object, "shaderInt64", context.device.features().contains(gpu_movegen::wgpu::Features::SHADER_INT64));
    let checks = gpu_movegen::chess::gpu::self_test::perft_check(Default::default());
    let verdicts = context.self_test_async(&[checks]).await;
    if let Some(failure) = verdicts.iter().find_map(|verdict| verdict.failure.as_ref()) {
        forget_device_after(failure);
    }
    let list = Array::new();
    for verdict in &verdicts {
        let row = Object::new();
        set(&row, "check", verdict.check.as_str());
        set(&row, "passed", verdict.outcome.is_ok());
        set(&row, "detail", verdict.outcome.as_ref().err().map(String::as_str).unwrap_or(""));
        set(&row, "seconds", verdict.seconds.unwrap_or(0.0));
        list.push(&row);
    }
    let self_test = Object::new();
    set(&self_test, "passed", verdicts.iter().all(|verdict| verdict.outcome.is_ok()));
    set(&self_test, "checks", list);
    let result = Object::new();
    set(&result, "adapter", context.adapter_description());
    set(&result, "limits", limit_object);
    set(&result, "selfTest", self_test);
    Ok(result.into())
}

/// Perft as the page's `gpuMovegen.perft` asks it: `request` is `{game,
/// position, size, depth, backend, divide, onProgress}` (see
/// [`PerftRequest`]); the result is `{nodes, backend, adapter, seconds,
/// divide}` with `nodes` a decimal string and `divide` a list of `[move,
/// nodes]` pairs when asked. Bad input rejects with the command line's message.
#[wasm_bindgen]
pub async fn perft(request: JsValue) -> Result<JsValue, JsError> {
    let progress = Reflect::get(&request, &JsValue::from_str("onProgress"))
        .ok()
        .and_then(|value| value.dyn_into::<js_sys::Function>().ok());
    let request = PerftRequest::from_js(&request).map_err(|message| JsError::new(&message))?;
    let report = move |nodes: u128| {
        if let Some(callback) = &progress {
            let _ = callback.call1(&JsValue::NULL, &JsValue::from_str(&nodes.to_string()));
        }
    };
    let outcome = perft_outcome(&request, &report).await.map_err(|message| JsError::new(&message))?;
    Ok(outcome.to_js())
}

/// Compares the GPU with the CPU on `count` positions from seeded random
/// play of `game` at `depth`: `{positions, agreed, mismatches: [{position,
/// gpu, cpu}], adapter, seconds}`.
#[wasm_bindgen]
pub async fn verify(game: String, count: u32, depth: u32, seed: u32) -> Result<JsValue, JsError> {
    let report = runs::verify(&game, count, depth, u64::from(seed)).await.map_err(|message| JsError::new(&message))?;
    Ok(report)
}

/// Go playouts from the position `moves` reaches on a `size` board, on
/// `backend`: `{playouts, blackWins, whiteWins, draws, backend, adapter, seconds}`.
#[wasm_bindgen]
pub async fn playouts(
    size: u32,
    moves: String,
    count: u32,
    seed: u32,
    komi: f64,
    backend: String,
) -> Result<JsValue, JsError> {
    playouts::playouts(size, &moves, count, seed, komi, &backend).await.map_err(|message| JsError::new(&message))
}
