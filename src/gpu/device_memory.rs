//! How much memory a device has. wgpu's limits say how large one buffer and
//! one binding may be, never how many fit, so a plan that fills a GPU needs
//! the size from elsewhere: the driver's memory heaps where wgpu-hal reaches
//! them (Vulkan), the machine's memory for a software adapter, and else
//! allocation probes inside error scopes, given back at once.

/// A device's memory, and where the figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceMemory {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure was read.
    pub source: MemorySource,
}

/// Where a [`DeviceMemory`] figure was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemorySource {
    /// The largest device-local heap the Vulkan driver reports (through wgpu-hal).
    VulkanHeap,
    /// The machine's physical memory: the adapter is a software one, whose
    /// memory is the machine's.
    PhysicalMemory,
    /// What this process may still take under its memory limits (`ulimit
    /// -v`, `ulimit -d`, its cgroup's), less than the device reports: the
    /// device's memory is the machine's (a software adapter, an integrated
    /// GPU), so those limits bound it.
    ProcessLimit,
    /// Storage buffers allocated one after another until the device refused
    /// one (or [`PROBE_CEILING`] was held), inside out-of-memory error scopes,
    /// then freed.
    Probed,
}

impl std::fmt::Display for MemorySource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            MemorySource::VulkanHeap => "the Vulkan driver's device-local heap",
            MemorySource::PhysicalMemory => "the machine's memory (a software adapter)",
            MemorySource::Probed => "allocation probes",
            MemorySource::ProcessLimit => {
                "this process's memory limit (ulimit -v, ulimit -d or its cgroup's), which the device's memory shares"
            }
        })
    }
}

impl std::fmt::Display for DeviceMemory {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{:.1} GiB, from {}", self.bytes as f64 / GIB as f64, self.source)
    }
}

const GIB: u64 = 1 << 30;

/// The most memory allocation probes look for: 1 TiB.
pub const PROBE_CEILING: u64 = 1 << 40;

/// The memory the driver reports for `adapter`, where it reports any: the
/// largest device-local Vulkan heap, or the machine's memory for a software
/// adapter. `None` elsewhere ([`probe`] finds it then).
pub fn reported(adapter: &wgpu::Adapter) -> Option<DeviceMemory> {
    let device_type = adapter.get_info().device_type;
    let memory =
        vulkan_heap(adapter).map(|bytes| DeviceMemory { bytes, source: MemorySource::VulkanHeap }).or_else(|| {
            let mebibytes = crate::machine::physical_mebibytes().filter(|_| device_type == wgpu::DeviceType::Cpu)?;
            Some(DeviceMemory { bytes: mebibytes << 20, source: MemorySource::PhysicalMemory })
        });
    if matches!(device_type, wgpu::DeviceType::Cpu | wgpu::DeviceType::IntegratedGpu) {
        // The device's memory is host memory, which the process's limits bound:
        // past them a software driver's allocation or mapping fails, and
        // lavapipe then crashes instead of reporting it.
        return limited(memory, crate::machine::memory_headroom());
    }
    memory
}

/// `memory`, or the process's `headroom` where that is less (or where the
/// device reported nothing).
fn limited(memory: Option<DeviceMemory>, headroom: Option<u64>) -> Option<DeviceMemory> {
    match (memory, headroom) {
        (Some(memory), Some(headroom)) if headroom >= memory.bytes => Some(memory),
        (_, Some(headroom)) => Some(DeviceMemory { bytes: headroom, source: MemorySource::ProcessLimit }),
        (memory, None) => memory,
    }
}

#[cfg(all(not(target_arch = "wasm32"), any(target_os = "linux", target_os = "windows", target_os = "android")))]
fn vulkan_heap(adapter: &wgpu::Adapter) -> Option<u64> {
    /// VK_MEMORY_HEAP_DEVICE_LOCAL_BIT.
    const DEVICE_LOCAL: u32 = 0x1;
    // SAFETY: the hal adapter is only read (its physical device's memory
    // properties); nothing is created or destroyed through it.
    unsafe {
        let hal = adapter.as_hal::<wgpu::hal::api::Vulkan>()?;
        let properties =
            hal.shared_instance().raw_instance().get_physical_device_memory_properties(hal.raw_physical_device());
        let count = (properties.memory_heap_count as usize).min(properties.memory_heaps.len());
        properties.memory_heaps[..count]
            .iter()
            .filter(|heap| heap.flags.as_raw() & DEVICE_LOCAL != 0)
            .map(|heap| heap.size)
            .max()
    }
}

#[cfg(not(all(not(target_arch = "wasm32"), any(target_os = "linux", target_os = "windows", target_os = "android"))))]
fn vulkan_heap(_: &wgpu::Adapter) -> Option<u64> {
    None
}

/// Finds the device's memory by allocation: storage buffers of one binding's
/// size (at most 1 GiB each), each inside an out-of-memory error scope, until
/// one is refused or `ceiling` bytes are held; all are freed before it
/// returns. What was allocated is the figure. (The caller checks the
/// device's health after: `GpuContext::find_device_memory`.)
pub async fn probe(device: &wgpu::Device, ceiling: u64) -> DeviceMemory {
    let limits = device.limits();
    let step = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size).clamp(1 << 20, GIB);
    let mut held = Vec::new();
    let mut bytes = 0u64;
    while bytes + step <= ceiling {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("memory probe"),
            size: step,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let refused = scope.pop().await.is_some();
        if refused {
            buffer.destroy();
            break;
        }
        held.push(buffer);
        bytes += step;
    }
    for buffer in held {
        buffer.destroy();
    }
    DeviceMemory { bytes, source: MemorySource::Probed }
}
