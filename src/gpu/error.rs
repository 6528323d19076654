//! The GPU runtime's error type. Every failure on the GPU side (no adapter,
//! device lost, out of memory, limits, a kernel's fault flag) becomes one of
//! these, never a wrong or partial result.

/// Everything that can go wrong on the GPU side. Each message says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter could be opened (for the backend `WGPU_BACKEND` names, if any).
    #[error(
        "no GPU adapter found{detail}. Install a Vulkan driver: your GPU vendor's, or on a headless Linux \
         machine Mesa's software driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1)"
    )]
    NoAdapter {
        /// Which backend was asked for, when one was.
        detail: String,
    },
    /// `WGPU_ADAPTER_NAME` names no adapter of this machine.
    #[error("WGPU_ADAPTER_NAME='{wanted}' matches none of the adapters: {available}")]
    AdapterNotFound {
        /// The name asked for.
        wanted: String,
        /// The adapters there are.
        available: String,
    },
    /// The adapter would not create a device.
    #[error("the adapter '{adapter}' refused a device: {reason}")]
    RequestDevice {
        /// The adapter, described.
        adapter: String,
        /// What the driver said.
        reason: String,
    },
    /// The device was lost (a driver reset, `Device::destroy`, a reclaimed
    /// browser device): nothing it was computing is returned.
    #[error("the GPU device was lost ({reason}); results of the interrupted work were discarded")]
    DeviceLost {
        /// What wgpu said of the loss.
        reason: String,
    },
    /// A wait on the queue passed its limit ([`GpuContext::set_wait_timeout`](super::GpuContext::set_wait_timeout)).
    #[error(
        "the GPU did not finish its work within {seconds} s, the limit of one wait (--gpu-timeout SECONDS \
         on the command line); the device may be hung, or too slow for that limit"
    )]
    Stall {
        /// The limit that passed.
        seconds: f64,
    },
    /// wgpu refused a call: a bug in this crate.
    #[error("GPU validation error (a bug in this crate; please report it): {0}")]
    Validation(String),
    /// A request past the device's limits or `--gpu-memory`.
    #[error("the GPU device's limits are too small: {0}")]
    Limits(String),
    /// An allocation failed.
    #[error("the GPU ran out of memory: {0}. Use smaller batches")]
    OutOfMemory(String),
    /// wgpu reported an internal error.
    #[error("GPU internal error: {0}")]
    Internal(String),
    /// A readback's mapping failed.
    #[error("reading results back from the GPU failed: {0}")]
    Readback(String),
    /// A kernel raised its fault flag (an arena or counter overflow).
    #[error("a GPU kernel reported a fault: {0}")]
    ShaderFault(String),
    /// The WGSL composer failed (an unknown module, a cycle).
    #[error("{0}")]
    Compose(#[from] super::composer::ComposeError),
    /// The device answered a known-answer check wrongly: its results cannot be trusted.
    #[error(
        "the GPU self-test failed on {adapter}: {check}: {detail}; this device's results cannot be trusted \
         (--backend cpu counts on the CPU){kept}",
        kept = verdict_kept(verdict_file.as_deref())
    )]
    SelfTestFailed {
        /// The adapter, described.
        adapter: String,
        /// The check it failed.
        check: String,
        /// What differed from the CPU.
        detail: String,
        /// The file the failed verdict is kept in, where it is kept.
        verdict_file: Option<std::path::PathBuf>,
    },
    /// A composed shader does not compile (naga's message, with the source lines).
    #[error("WGSL error in the composed shader:\n{0}")]
    Shader(String),
    /// The work was stopped before its end (another device of the run
    /// failed, or the caller asked): nothing of it is returned.
    #[error("the GPU count was stopped before its end; nothing of it is returned")]
    Cancelled,
    /// One device of a run on several failed; the run ends with no count.
    #[error("{device}: {source}")]
    OnDevice {
        /// Which device: its number in the run and its adapter.
        device: String,
        /// What failed.
        source: Box<GpuError>,
    },
}

/// Where a failed verdict is kept and how to test again, for its error.
fn verdict_kept(file: Option<&std::path::Path>) -> String {
    match file {
        Some(file) => format!(
            ". The verdict is kept in {} for a day; `gpu-movegen info --retest` (GpuContext::retest) tests again now",
            file.display()
        ),
        None => String::new(),
    }
}

impl From<wgpu::Error> for GpuError {
    fn from(error: wgpu::Error) -> Self {
        match error {
            wgpu::Error::OutOfMemory { .. } => GpuError::OutOfMemory(error.to_string()),
            wgpu::Error::Validation { description, .. } => GpuError::Validation(description),
            wgpu::Error::Internal { description, .. } => GpuError::Internal(description),
        }
    }
}

impl GpuError {
    /// Whether the device itself failed (lost, stalled, out of memory, a
    /// readback that did not complete): a caller holding the device should
    /// open a new one rather than use it again.
    pub fn is_device_failure(&self) -> bool {
        match self {
            GpuError::OnDevice { source, .. } => source.is_device_failure(),
            _ => matches!(
                self,
                GpuError::DeviceLost { .. } | GpuError::Stall { .. } | GpuError::OutOfMemory(_) | GpuError::Readback(_)
            ),
        }
    }
}
