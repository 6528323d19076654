//! Where work runs: one GPU context for the whole interpreter, opened on
//! first use and opened again after the device failed, and the command
//! line's rule for `backend="auto"`.

use std::sync::Mutex;

use gpu_movegen::chess::gpu::{Int64Mode, KernelFamily, ShaderBuild, adapter_default};
use gpu_movegen::gpu::{GpuContext, GpuError as DeviceError};
use gpu_movegen::wgpu;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::failure::{Failure, Outcome};

/// Where the caller asked the work to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The GPU unless its only adapter is a software one or none opens.
    Auto,
    /// The GPU, or a `GpuError`.
    Gpu,
    /// The CPU reference.
    Cpu,
}

impl Backend {
    /// Reads `backend=`.
    pub fn parse(text: &str) -> Outcome<Backend> {
        match text {
            "auto" => Ok(Backend::Auto),
            "gpu" => Ok(Backend::Gpu),
            "cpu" => Ok(Backend::Cpu),
            other => Err(Failure::Input(format!("backend: expected 'auto', 'gpu' or 'cpu', not {other:?}"))),
        }
    }
}

/// The interpreter's GPU context, shared by every call.
static CONTEXT: Mutex<Option<GpuContext>> = Mutex::new(None);

/// The longest wait for the device that `set_gpu_timeout` asked for.
static TIMEOUT: Mutex<Option<std::time::Duration>> = Mutex::new(None);

/// The shared GPU context, opened now if there is none or the last one's
/// device has failed.
pub fn context() -> Result<GpuContext, DeviceError> {
    let mut slot = CONTEXT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(context) = slot.as_ref() {
        if context.check_health().is_ok() {
            return Ok(context.clone());
        }
        *slot = None;
    }
    let context = GpuContext::new()?;
    if let Some(limit) = *TIMEOUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) {
        context.set_wait_timeout(limit);
    }
    *slot = Some(context.clone());
    Ok(context)
}

/// Sets how long a GPU call waits for the device before it fails with a
/// GpuError (a stall): `seconds`, or None for the default (60 s on a
/// hardware GPU, 600 s on a software one), as the command line's
/// `--gpu-timeout`.
#[pyfunction]
#[pyo3(signature = (seconds))]
pub fn set_gpu_timeout(seconds: Option<f64>) -> PyResult<()> {
    let limit = match seconds {
        None => None,
        Some(seconds) if seconds.is_finite() && (0.001..=86_400.0).contains(&seconds) => {
            Some(std::time::Duration::from_secs_f64(seconds))
        }
        Some(seconds) => {
            return Err(Failure::Input(format!("seconds: {seconds} is not from 0.001 to 86400")).into());
        }
    };
    *TIMEOUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = limit;
    if let Some(context) = CONTEXT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).as_ref() {
        match limit {
            Some(limit) => context.set_wait_timeout(limit),
            None => context.reset_wait_timeout(),
        }
    }
    Ok(())
}

/// Releases the shared GPU device (its memory goes back to the driver);
/// the next GPU call opens one again. Generators keep their own until they
/// are dropped.
#[pyfunction]
pub fn close() {
    forget_context();
}

/// Drops the shared context after a device failure, so that the next call
/// opens a fresh device instead of reusing a lost one.
pub fn forget_context() {
    *CONTEXT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
}

/// `outcome`, the shared context dropped first when the device failed in it.
pub fn forget_on_failure<T>(outcome: Outcome<T>) -> Outcome<T> {
    if let Err(Failure::Device(_)) = &outcome {
        forget_context();
    }
    outcome
}

/// Opens the engine `backend` asks for: `gpu` builds it on the shared
/// context (self-tested kernels), `cpu` on the CPU. `auto` takes the GPU
/// unless the only adapter is a software one, and the CPU when the GPU
/// cannot be opened or refuses the kernels.
pub fn open<Engine>(
    backend: Backend,
    gpu: impl FnOnce(&GpuContext) -> Result<Engine, DeviceError>,
    cpu: impl FnOnce() -> Outcome<Engine>,
) -> Outcome<Engine> {
    match backend {
        Backend::Cpu => cpu(),
        Backend::Gpu => Ok(on_gpu(gpu)?),
        Backend::Auto => match gpu_movegen::gpu::context::preferred_adapter() {
            Ok(info) if gpu_movegen::gpu::context::auto_prefers_cpu(&info) => cpu(),
            _ => on_gpu(gpu).or_else(|_| cpu()),
        },
    }
}

/// Builds an engine on the shared context; a failure drops the context, so
/// that the next call opens the device afresh.
fn on_gpu<Engine>(gpu: impl FnOnce(&GpuContext) -> Result<Engine, DeviceError>) -> Result<Engine, DeviceError> {
    let context = context()?;
    gpu(&context).inspect_err(|_| forget_context())
}

/// The measured default of `family`'s kernels for this adapter: its slider
/// algorithm, and native 64-bit bitboards where they are faster and present.
pub fn chess_shaders(context: &GpuContext, family: KernelFamily) -> Result<ShaderBuild, DeviceError> {
    let default = adapter_default(context.adapter_info.as_ref());
    let available = context.device.features().contains(wgpu::Features::SHADER_INT64);
    let mode = if default.native_u64_for(family) && available { Int64Mode::Auto } else { Int64Mode::Off };
    Ok(ShaderBuild { slider: default.slider, native_u64: mode.resolve(context.device.features())? })
}

/// What `info()` learns about the GPU, gathered off the interpreter.
struct GpuFacts {
    adapter: String,
    software: bool,
    shaders: String,
    self_test: String,
    int64: bool,
    memory: Option<u64>,
}

/// What this machine offers: `version`; `adapters` (every adapter wgpu
/// sees); `adapter` (the one a GPU call opens, or None) with `software`,
/// `shaders`, `shader_int64`, `device_memory` (bytes, or None when the driver
/// reports none); `self_test` (`"passed"` or `"failed (...)"`, the device
/// checks and the chess perft kernels run now or known from an earlier run on
/// this driver); `backend` (where `backend="auto"` counts: `"gpu"` or
/// `"cpu"`) with `reason`; and `error` (why the GPU cannot be used, or None).
#[pyfunction]
pub fn info(py: Python<'_>) -> PyResult<Py<PyDict>> {
    let adapters: Vec<String> = py
        .detach(|| gpu_movegen::gpu::list_adapters().iter().map(gpu_movegen::gpu::context::describe_adapter).collect());
    let facts = crate::detach::run(
        py,
        None,
        |_| None,
        |_| {
            let gather = || -> Result<GpuFacts, DeviceError> {
                let context = context()?;
                let shaders = chess_shaders(&context, KernelFamily::Chess)?;
                let checks = [gpu_movegen::chess::gpu::self_test::perft_check(shaders)];
                let verdicts = context.self_test(&checks);
                let self_test = match verdicts.iter().find(|verdict| verdict.outcome.is_err()) {
                    None => "passed".to_owned(),
                    Some(verdict) => format!(
                        "failed ({}: {})",
                        verdict.check,
                        verdict.outcome.as_ref().err().map(ToString::to_string).unwrap_or_default()
                    ),
                };
                Ok(GpuFacts {
                    adapter: context.adapter_description(),
                    software: context.is_software(),
                    shaders: shaders.name(),
                    self_test,
                    int64: context.device.features().contains(wgpu::Features::SHADER_INT64),
                    memory: context.device_memory().map(|memory| memory.bytes),
                })
            };
            Ok(gather().inspect_err(|_| forget_context()))
        },
    )?;
    let report = PyDict::new(py);
    report.set_item("version", env!("CARGO_PKG_VERSION"))?;
    report.set_item("adapters", adapters)?;
    match facts {
        Ok(facts) => {
            let (backend, reason) = if facts.self_test != "passed" {
                ("cpu", "the GPU failed its self-test")
            } else if facts.software && std::env::var_os("WGPU_ADAPTER_NAME").is_none() {
                ("cpu", "the only adapter is a software one, slower than the CPU; backend='gpu' uses it anyway")
            } else {
                ("gpu", "a hardware adapter passed the self-test")
            };
            report.set_item("adapter", facts.adapter)?;
            report.set_item("software", facts.software)?;
            report.set_item("shaders", facts.shaders)?;
            report.set_item("shader_int64", facts.int64)?;
            report.set_item("device_memory", facts.memory)?;
            report.set_item("self_test", facts.self_test)?;
            report.set_item("backend", backend)?;
            report.set_item("reason", reason)?;
            report.set_item("error", py.None())?;
        }
        Err(error) => {
            for key in ["adapter", "software", "shaders", "shader_int64", "device_memory", "self_test"] {
                report.set_item(key, py.None())?;
            }
            report.set_item("backend", "cpu")?;
            report.set_item("reason", "no GPU can be used")?;
            report.set_item("error", error.to_string())?;
        }
    }
    Ok(report.unbind())
}
