//! The Python package `gpu_movegen`: GPU perft and batched legal move
//! generation for chess, Shogi and Go, over the Rust library.
//!
//! This is the compiled module `gpu_movegen._native`; the package's one
//! Python file re-exports it (package/gpu_movegen: that layout lets each
//! module ship its own typing stub). `perft` and `info` are functions,
//! `Generator` a class, and every failure an exception with the command
//! line's message (`ValueError` for the caller's input, `GpuError` for the
//! device). Work runs on a worker thread with the GIL released; the calling
//! thread watches for Ctrl-C and calls the progress callback (`detach`).

use pyo3::prelude::*;

mod backend;
mod detach;
mod env;
mod failure;
mod generator;
mod perft;

pyo3::create_exception!(
    gpu_movegen,
    GpuError,
    pyo3::exceptions::PyRuntimeError,
    "A GPU or driver failure: no adapter, a refused driver, a failed self-test, a lost device, \
     out of memory or a stall. No count is returned with it."
);

pyo3::create_exception!(
    gpu_movegen,
    MismatchError,
    GpuError,
    "The GPU's count differed from the CPU's on a subtree the cross-check recounted: \
     the GPU's total is not returned."
);

/// GPU perft and batched legal move generation for chess, Shogi and Go.
///
/// `perft` counts a position's leaves to a depth, on the GPU or the CPU;
/// `Generator` opens a device once and generates the legal moves of batches
/// of positions; `info` says what the machine offers.
#[pymodule]
#[pyo3(name = "_native")]
fn gpu_movegen_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("GpuError", py.get_type::<GpuError>())?;
    module.add("MismatchError", py.get_type::<MismatchError>())?;
    module.add_function(wrap_pyfunction!(perft::perft, module)?)?;
    module.add_function(wrap_pyfunction!(backend::info, module)?)?;
    module.add_function(wrap_pyfunction!(backend::set_gpu_timeout, module)?)?;
    module.add_function(wrap_pyfunction!(backend::close, module)?)?;
    module.add_class::<generator::Generator>()?;
    // `import gpu_movegen.env` finds the submodule through sys.modules.
    let environments = env::module(py)?;
    py.import("sys")?.getattr("modules")?.set_item("gpu_movegen.env", &environments)?;
    module.add_submodule(&environments)?;
    module.add(
        "__all__",
        ["Generator", "GpuError", "MismatchError", "__version__", "close", "env", "info", "perft", "set_gpu_timeout"],
    )?;
    #[cfg(feature = "failpoints")]
    module.add_function(wrap_pyfunction!(failpoint, module)?)?;
    Ok(())
}

/// Test builds only (the `failpoints` feature): sets the GPU runtime's fault
/// point `name` to `actions` in the `fail` crate's syntax (`"return"`,
/// `"3*off->return"`), or clears it when `actions` is empty.
#[cfg(feature = "failpoints")]
#[pyfunction]
#[pyo3(name = "_failpoint")]
fn failpoint(name: &str, actions: &str) -> PyResult<()> {
    if actions.is_empty() {
        fail::remove(name);
        return Ok(());
    }
    fail::cfg(name, actions).map_err(pyo3::exceptions::PyValueError::new_err)
}
