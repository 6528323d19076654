//! Why a call failed, before it becomes a Python exception: what the worker
//! thread hands back, since it cannot build Python objects itself.

use gpu_movegen::gpu::GpuError as DeviceError;
use pyo3::PyErr;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};

/// A failure, as the command line sorts them.
#[derive(Debug)]
pub enum Failure {
    /// The caller's input (exit code 2 on the command line): `ValueError`.
    Input(String),
    /// The device or its driver (exit code 3): `GpuError`.
    Device(String),
    /// The GPU and the CPU counted a subtree differently (exit code 1): `MismatchError`.
    Mismatch(String),
    /// The count was stopped (Ctrl-C): `KeyboardInterrupt`.
    Cancelled,
    /// A fault of this package: `RuntimeError`, never a count.
    Internal(String),
}

impl From<DeviceError> for Failure {
    fn from(error: DeviceError) -> Failure {
        match error {
            DeviceError::Cancelled => Failure::Cancelled,
            error => Failure::Device(error.to_string()),
        }
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        match failure {
            Failure::Input(message) => PyValueError::new_err(message),
            Failure::Device(message) => crate::GpuError::new_err(message),
            Failure::Mismatch(message) => crate::MismatchError::new_err(message),
            Failure::Cancelled => PyKeyboardInterrupt::new_err("the count was stopped"),
            Failure::Internal(message) => PyRuntimeError::new_err(format!("internal error in gpu_movegen: {message}")),
        }
    }
}

/// Results of the worker thread.
pub type Outcome<T> = Result<T, Failure>;
