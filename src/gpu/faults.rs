//! Named points where a test build makes the GPU fail as real GPUs do, so
//! that every command is shown to turn the failure into an error and never
//! into a count. Built only with the `failpoints` feature (the `fail`
//! crate); the `FAILPOINTS` variable switches points on, e.g.
//! `FAILPOINTS='gpu-device-lost=3*off->return'` loses the device at the
//! fourth submit. Without the feature every point is `false` and costs
//! nothing.
//!
//! | point | what happens |
//! | --- | --- |
//! | `gpu-device-request` | the device cannot be created |
//! | `gpu-device-lost` | the device is destroyed at a submit (a real loss) |
//! | `gpu-buffer-allocate` | an allocation fails, as out of memory |
//! | `gpu-map-read` | a readback's mapping fails |
//! | `gpu-readback-stall` | a wait never completes, until its deadline |

use super::error::GpuError;

/// Whether the fault point `name` fires now.
#[cfg(feature = "failpoints")]
pub(crate) fn fires(name: &str) -> bool {
    fail::eval(name, |_| ()).is_some()
}

/// Whether the fault point `name` fires now: never, without `failpoints`.
#[cfg(not(feature = "failpoints"))]
pub(crate) fn fires(_name: &str) -> bool {
    false
}

/// An allocation failure injected where no context is at hand (buffers are
/// made from a device): the next health check of any context reports it,
/// as it would a real out-of-memory error caught outside an error scope.
static INJECTED: std::sync::Mutex<Option<GpuError>> = std::sync::Mutex::new(None);

/// Fires `gpu-buffer-allocate`: records an out-of-memory error for `label`.
pub(crate) fn allocation(label: &str) {
    if fires("gpu-buffer-allocate") {
        let error = GpuError::OutOfMemory(format!("allocating '{label}' failed (injected: gpu-buffer-allocate)"));
        INJECTED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get_or_insert(error);
    }
}

/// The injected allocation failure, if one is pending.
pub(crate) fn take_injected() -> Option<GpuError> {
    INJECTED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
}
