//! The GPU runtime's error type. Every failure on the GPU side (no adapter,
//! device lost, out of memory, limits, a kernel's fault flag) becomes one of
//! these, never a wrong or partial result.

/// Everything that can go wrong on the GPU side. Each message says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    #[error(
        "no GPU adapter found{detail}. Install a Vulkan driver: your GPU vendor's, or on a headless Linux \
         machine Mesa's software driver (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1)"
    )]
    NoAdapter { detail: String },
    #[error("WGPU_ADAPTER_NAME='{wanted}' matches none of the adapters: {available}")]
    AdapterNotFound { wanted: String, available: String },
    #[error("the adapter '{adapter}' refused a device: {reason}")]
    RequestDevice { adapter: String, reason: String },
    #[error("the GPU device was lost ({reason}); results of the interrupted work were discarded")]
    DeviceLost { reason: String },
    #[error(
        "the GPU did not finish its work within {seconds} s, the limit of one wait (--gpu-timeout SECONDS \
         on the command line); the device may be hung, or too slow for that limit"
    )]
    Stall { seconds: f64 },
    #[error("GPU validation error (a bug in this crate; please report it): {0}")]
    Validation(String),
    #[error("the GPU device's limits are too small: {0}")]
    Limits(String),
    #[error("the GPU ran out of memory: {0}. Use smaller batches")]
    OutOfMemory(String),
    #[error("GPU internal error: {0}")]
    Internal(String),
    #[error("reading results back from the GPU failed: {0}")]
    Readback(String),
    #[error("a GPU kernel reported a fault: {0}")]
    ShaderFault(String),
    #[error("{0}")]
    Compose(#[from] super::composer::ComposeError),
    #[error(
        "the GPU self-test failed on {adapter}: {check}: {detail}; this device's results cannot be trusted \
         (--backend cpu counts on the CPU)"
    )]
    SelfTestFailed { adapter: String, check: String, detail: String },
    #[error("WGSL error in the composed shader:\n{0}")]
    Shader(String),
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
