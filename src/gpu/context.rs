//! The GPU context: adapter choice, device creation with the adapter's real
//! limits, and turning wgpu's error reports into `Result`s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::device_memory::{self, DeviceMemory};
use super::faults;
use super::pipeline_cache::{PipelineCacheFile, PipelineCacheInfo};

pub use super::error::GpuError;

/// One line about an adapter: name, backend, device type, driver.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .into_iter()
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    // Browsers may keep the name to themselves (WebGPU's `description` is
    // often empty, for privacy).
    let name = if info.name.is_empty() { "unnamed adapter" } else { info.name.as_str() };
    format!(
        "{} ({:?}, {:?}{})",
        name,
        info.backend,
        info.device_type,
        if driver.is_empty() { String::new() } else { format!(", {driver}") }
    )
}

/// A device and queue, the adapter they came from, and the error reports
/// wgpu delivers by callback.
#[derive(Clone)]
pub struct GpuContext {
    /// The device every engine of this context builds on.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter the device came from; `None` for a caller's own device.
    pub adapter_info: Option<wgpu::AdapterInfo>,
    lost: Arc<Mutex<Option<String>>>,
    uncaptured: Arc<Mutex<Option<GpuError>>>,
    /// The self-test's verdicts for this device (see `super::self_test`).
    pub(crate) trust: Arc<Trust>,
    /// Kernels already built on this device, by module and build settings:
    /// an engine made again (the self-test makes several) reuses them
    /// instead of compiling the same pipelines once more. Held as `Any` so
    /// that the context needs nothing from the modules that build them.
    kernel_cache: Arc<Mutex<HashMap<String, Arc<dyn std::any::Any + Send + Sync>>>>,
    /// The longest one wait on the queue may take, in milliseconds.
    wait_milliseconds: Arc<AtomicU64>,
    /// The longest span so far from a submission to the end of the wait for
    /// it, in microseconds: a bound on the longest submission's run, what a
    /// driver's watchdog (Windows' TDR) would see.
    longest_wait_microseconds: Arc<AtomicU64>,
    /// When the oldest submission not yet waited for was made.
    submitted_at: Arc<Mutex<Option<web_time::Instant>>>,
    /// The last failure of the device itself (lost, out of memory, stalled,
    /// a failed readback) seen through this context: what tells a device
    /// that failed during a self-test from one that answered wrongly.
    runtime_failure: Arc<Mutex<Option<GpuError>>>,
    /// The driver's cache of compiled pipelines, kept between processes
    /// (see `super::pipeline_cache`); `None` where the adapter has none.
    pipeline_cache: Option<Arc<PipelineCacheFile>>,
    /// The device's memory, once known: read from the driver when the
    /// device is opened, or probed on first need (see `super::device_memory`).
    memory: Arc<Mutex<Option<DeviceMemory>>>,
}

/// What a binding array of storage buffers indexed non-uniformly needs (native Vulkan, Metal, DX12).
pub const BINDING_ARRAYS: wgpu::Features = wgpu::Features::BUFFER_BINDING_ARRAY
    .union(wgpu::Features::STORAGE_RESOURCE_BINDING_ARRAY)
    .union(wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING);

/// The default limit of one wait on a hardware GPU. Every submission is
/// sized to take well under a second there (docs/gpu-faults.md), so a
/// minute means the device is hung, not busy.
pub const DEFAULT_WAIT_SECONDS: u64 = 60;

/// The default limit of one wait on a software adapter (lavapipe), which
/// runs the same submissions tens of times slower on a few CPU cores.
pub const DEFAULT_SOFTWARE_WAIT_SECONDS: u64 = 600;

/// Ranks adapters: real GPUs first, then software ones; Vulkan before others.
fn preference(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let device = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal | wgpu::Backend::Dx12 => 1,
        _ => 2,
    };
    (device, backend)
}

async fn enumerate(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    descriptor.backends = backends;
    // In a browser this is the one adapter WebGPU offers (`navigator.gpu`).
    let mut adapters = wgpu::Instance::new(descriptor).enumerate_adapters(backends).await;
    adapters.sort_by_key(|adapter| preference(&adapter.get_info()));
    adapters
}

/// The adapters to choose from: those of the backends WGPU_BACKEND names;
/// without it the primary backends (Vulkan, Metal, DX12), and OpenGL only
/// when those have none (OpenGL start-up is slow and noisy on headless machines).
async fn candidate_adapters() -> Vec<wgpu::Adapter> {
    match wgpu::Backends::from_env() {
        Some(backends) => enumerate(backends).await,
        None => {
            let primary = enumerate(wgpu::Backends::PRIMARY).await;
            if primary.is_empty() { enumerate(wgpu::Backends::all()).await } else { primary }
        }
    }
}

/// Every adapter on every backend (or those WGPU_BACKEND names), best first
/// by this crate's preference.
#[cfg(not(target_arch = "wasm32"))]
pub fn list_adapters() -> Vec<wgpu::AdapterInfo> {
    super::runtime::block_on(list_adapters_async())
}

/// Every adapter on every backend (or those WGPU_BACKEND names), best first;
/// in a browser, the one WebGPU offers.
pub async fn list_adapters_async() -> Vec<wgpu::AdapterInfo> {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    enumerate(backends).await.iter().map(wgpu::Adapter::get_info).collect()
}

async fn choose_adapter() -> Result<wgpu::Adapter, GpuError> {
    let adapters = candidate_adapters().await;
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let lowered = wanted.to_lowercase();
        let available = adapters.iter().map(|adapter| describe_adapter(&adapter.get_info())).collect::<Vec<_>>();
        return adapters.into_iter().find(|adapter| adapter.get_info().name.to_lowercase().contains(&lowered)).ok_or(
            GpuError::AdapterNotFound {
                wanted,
                available: if available.is_empty() { "(none)".to_owned() } else { available.join("; ") },
            },
        );
    }
    adapters.into_iter().next().ok_or_else(|| GpuError::NoAdapter {
        detail: match std::env::var("WGPU_BACKEND") {
            Ok(backend) => format!(" for WGPU_BACKEND='{backend}'"),
            Err(_) => String::new(),
        },
    })
}

/// The longest one wait on the queue may take by default: a software
/// adapter runs the kernels on the CPU's cores, many times slower.
fn default_wait_seconds(software: bool) -> u64 {
    if software { DEFAULT_SOFTWARE_WAIT_SECONDS } else { DEFAULT_WAIT_SECONDS }
}

/// Whether a front end's `auto` backend counts on the CPU although this
/// adapter exists: a software rasteriser runs the kernels on these same
/// cores, several times slower than the CPU engines, unless the user named
/// it in `WGPU_ADAPTER_NAME`. The command line, the Python module and the
/// examples share this rule.
pub fn auto_prefers_cpu(info: &wgpu::AdapterInfo) -> bool {
    info.device_type == wgpu::DeviceType::Cpu && std::env::var_os("WGPU_ADAPTER_NAME").is_none()
}

/// The adapter [`GpuContext::new`] would open, without opening it.
#[cfg(not(target_arch = "wasm32"))]
pub fn preferred_adapter() -> Result<wgpu::AdapterInfo, GpuError> {
    super::runtime::block_on(choose_adapter()).map(|adapter| adapter.get_info())
}

impl GpuContext {
    /// Picks an adapter (WGPU_ADAPTER_NAME and WGPU_BACKEND are honoured;
    /// otherwise a real GPU before a software one, Vulkan first) and opens a
    /// device with the adapter's own limits rather than the defaults.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<GpuContext, GpuError> {
        super::runtime::block_on(GpuContext::new_async())
    }

    /// [`GpuContext::new`], awaited: the one way to open a device in a
    /// browser, where nothing may block.
    pub async fn new_async() -> Result<GpuContext, GpuError> {
        GpuContext::open_on(&choose_adapter().await?).await
    }

    /// Opens `count` devices for one count spread over them: the `count`
    /// best adapters of the backend [`GpuContext::new`] would use (real GPUs
    /// only, unless the only adapter is a software one), or `count` devices
    /// on the one adapter where there is just one. `None` opens one device
    /// on every adapter. Each device keeps its own self-test verdicts, so
    /// every one of them passes the self-test before it counts.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_devices(count: Option<usize>) -> Result<Vec<GpuContext>, GpuError> {
        super::runtime::block_on(GpuContext::open_devices_async(count))
    }

    /// [`GpuContext::open_devices`], awaited.
    pub async fn open_devices_async(count: Option<usize>) -> Result<Vec<GpuContext>, GpuError> {
        let best = choose_adapter().await?.get_info();
        let hardware = best.device_type != wgpu::DeviceType::Cpu;
        let wanted_name = std::env::var("WGPU_ADAPTER_NAME").ok().map(|name| name.to_lowercase());
        let adapters: Vec<wgpu::Adapter> = candidate_adapters()
            .await
            .into_iter()
            .filter(|adapter| {
                let info = adapter.get_info();
                info.backend == best.backend
                    && (!hardware || info.device_type != wgpu::DeviceType::Cpu)
                    && wanted_name.as_ref().is_none_or(|wanted| info.name.to_lowercase().contains(wanted))
            })
            .collect();
        let count = count.unwrap_or(adapters.len()).max(1);
        let mut contexts = Vec::with_capacity(count);
        if adapters.len() >= count {
            for adapter in &adapters[..count] {
                contexts.push(GpuContext::open_on(adapter).await?.with_own_verdicts());
            }
        } else if adapters.len() == 1 {
            for _ in 0..count {
                contexts.push(GpuContext::open_on(&adapters[0]).await?.with_own_verdicts());
            }
        } else {
            let names: Vec<String> = adapters.iter().map(|adapter| describe_adapter(&adapter.get_info())).collect();
            return Err(GpuError::Limits(format!(
                "{count} devices were asked for; this machine has {} adapters of the {:?} backend ({}); ask for \
                 at most {}, or for one device, which may be opened several times",
                adapters.len(),
                best.backend,
                names.join("; "),
                adapters.len()
            )));
        }
        Ok(contexts)
    }

    /// Opens a device on `adapter` with the adapter's own limits.
    async fn open_on(adapter: &wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let info = adapter.get_info();
        // Optional features that help when present; nothing requires them.
        let mut wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SHADER_INT64;
        // Binding arrays of storage buffers indexed per invocation: the perft
        // engine's table shards (see `super::perft::memory`), taken only whole.
        if adapter.features().contains(BINDING_ARRAYS) {
            wanted |= BINDING_ARRAYS;
        }
        if !super::pipeline_cache::disabled() {
            wanted |= wgpu::Features::PIPELINE_CACHE;
        }
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("gpu-movegen"),
            required_features: adapter.features() & wanted,
            required_limits: adapter.limits(),
            ..Default::default()
        };
        if faults::fires("gpu-device-request") {
            return Err(GpuError::RequestDevice {
                adapter: describe_adapter(&info),
                reason: "injected failure (gpu-device-request)".to_owned(),
            });
        }
        let (device, queue) = adapter
            .request_device(&descriptor)
            .await
            .map_err(|error| GpuError::RequestDevice { adapter: describe_adapter(&info), reason: error.to_string() })?;
        let pipeline_cache = PipelineCacheFile::open(&device, &info).map(Arc::new);
        let mut context = GpuContext::with_adapter_info(device, queue, Some(info));
        context.pipeline_cache = pipeline_cache;
        context.memory = Arc::new(Mutex::new(device_memory::reported(adapter)));
        Ok(context)
    }

    /// This context with verdicts of its own: its device runs the self-test
    /// itself rather than take the verdicts of its adapter's other devices
    /// (in memory or on disk), as each device of a run on several does.
    pub fn with_own_verdicts(self) -> GpuContext {
        GpuContext { trust: Arc::new(Trust::own()), ..self }
    }

    /// Wraps a caller's own device and queue. The caller's device keeps the
    /// limits it was created with; batches are sized to them.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> GpuContext {
        GpuContext::with_adapter_info(device, queue, None)
    }

    fn with_adapter_info(
        device: wgpu::Device,
        queue: wgpu::Queue,
        adapter_info: Option<wgpu::AdapterInfo>,
    ) -> GpuContext {
        let lost = Arc::new(Mutex::new(None));
        let uncaptured = Arc::new(Mutex::new(None));
        let lost_slot = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut slot) = lost_slot.lock() {
                *slot = Some(format!("{reason:?}: {message}"));
            }
        });
        let uncaptured_slot = Arc::clone(&uncaptured);
        // wgpu's default handler panics; errors must become `Err`s instead.
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            if let Ok(mut slot) = uncaptured_slot.lock() {
                slot.get_or_insert(GpuError::from(error));
            }
        }));
        let software = adapter_info.as_ref().is_some_and(|info| info.device_type == wgpu::DeviceType::Cpu);
        let seconds = default_wait_seconds(software);
        GpuContext {
            device,
            queue,
            adapter_info,
            lost,
            uncaptured,
            trust: Arc::default(),
            kernel_cache: Arc::default(),
            wait_milliseconds: Arc::new(AtomicU64::new(seconds * 1000)),
            runtime_failure: Arc::default(),
            longest_wait_microseconds: Arc::default(),
            submitted_at: Arc::default(),
            pipeline_cache: None,
            memory: Arc::default(),
        }
    }

    /// The device's memory where it is known without allocating: what the
    /// driver reported when the device was opened (Vulkan's heaps, or the
    /// machine's memory for a software adapter), or an earlier probe's figure.
    pub fn device_memory(&self) -> Option<DeviceMemory> {
        *self.memory.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The device's memory, probed by allocation ([`device_memory::probe`],
    /// up to [`device_memory::PROBE_CEILING`]) when the driver reported none;
    /// the figure is kept for the context and its clones.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn find_device_memory(&self) -> Result<DeviceMemory, GpuError> {
        super::runtime::block_on(self.find_device_memory_async())
    }

    /// [`GpuContext::find_device_memory`], awaited.
    pub async fn find_device_memory_async(&self) -> Result<DeviceMemory, GpuError> {
        if let Some(memory) = self.device_memory() {
            return Ok(memory);
        }
        let memory = device_memory::probe(&self.device, device_memory::PROBE_CEILING).await;
        self.check_health()?;
        *self.memory.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(memory);
        Ok(memory)
    }

    /// Where this context keeps its compiled pipelines between processes,
    /// and what it started with; `None` where the adapter offers no pipeline
    /// cache (WebGPU, OpenGL), there is no cache directory, or
    /// `GPU_MOVEGEN_PIPELINE_CACHE=off`.
    pub fn pipeline_cache(&self) -> Option<&PipelineCacheInfo> {
        self.pipeline_cache.as_deref().map(PipelineCacheFile::info)
    }

    /// The driver's pipeline cache, for the pipelines this crate builds.
    pub(crate) fn driver_pipeline_cache(&self) -> Option<&wgpu::PipelineCache> {
        self.pipeline_cache.as_deref().map(|file| &file.cache)
    }

    /// Saves the pipeline cache, if building added to it.
    pub(crate) fn save_pipeline_cache(&self) {
        if let Some(file) = &self.pipeline_cache {
            file.save();
        }
    }

    /// The longest span so far (for this context and its clones) from a
    /// submission to the end of the wait for it: a bound on how long one
    /// submission ran. (Software drivers may run the work inside the
    /// submit call itself; the span covers that too.)
    pub fn longest_wait(&self) -> Duration {
        Duration::from_micros(self.longest_wait_microseconds.load(Ordering::Relaxed))
    }

    /// Records `error` as a failure of the device and returns it.
    pub(crate) fn note_failure(&self, error: GpuError) -> GpuError {
        *self.runtime_failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(error.clone());
        error
    }

    /// The device failure recorded since the last call, if any.
    pub(crate) fn take_failure(&self) -> Option<GpuError> {
        self.runtime_failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }

    /// Sets the longest one wait on the queue may take (for this context and
    /// its clones); past it the wait fails with [`GpuError::Stall`].
    pub fn set_wait_timeout(&self, limit: Duration) {
        let milliseconds = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX).max(1);
        self.wait_milliseconds.store(milliseconds, Ordering::Relaxed);
    }

    /// Puts the longest wait back to its default for this adapter
    /// ([`DEFAULT_WAIT_SECONDS`], or [`DEFAULT_SOFTWARE_WAIT_SECONDS`] on a
    /// software one).
    pub fn reset_wait_timeout(&self) {
        self.set_wait_timeout(Duration::from_secs(default_wait_seconds(self.is_software())));
    }

    /// The longest one wait on the queue may take.
    pub fn wait_timeout(&self) -> Duration {
        Duration::from_millis(self.wait_milliseconds.load(Ordering::Relaxed))
    }

    /// Submits command buffers to the queue: the one place the crate's
    /// engines submit, so that a test build can lose the device here
    /// (`gpu-device-lost`, a real `Device::destroy`).
    pub fn submit<I: IntoIterator<Item = wgpu::CommandBuffer>>(&self, command_buffers: I) -> wgpu::SubmissionIndex {
        if faults::fires("gpu-device-lost") {
            self.device.destroy();
        }
        self.submitted_at
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get_or_insert_with(web_time::Instant::now);
        self.queue.submit(command_buffers)
    }

    /// This context for running known-answer checks on: engines made on it
    /// do not ask for checks (they are what is being checked).
    pub(crate) fn exempt(&self) -> GpuContext {
        GpuContext { trust: Arc::new(Trust::exempt()), ..self.clone() }
    }

    /// The kernels built on this device under `key`, if any.
    pub(crate) fn cached_kernels<T: std::any::Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let cache = self.kernel_cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.get(key).cloned().and_then(|kernels| kernels.downcast::<T>().ok())
    }

    /// Keeps `kernels` for later engines; only kernels whose building raised
    /// no error belong here.
    pub(crate) fn keep_kernels<T: std::any::Any + Send + Sync>(&self, key: String, kernels: Arc<T>) {
        self.kernel_cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(key, kernels);
    }

    /// Whether the adapter is a software one (a CPU driver such as lavapipe).
    /// A caller's own device, whose adapter is unknown, counts as hardware.
    pub fn is_software(&self) -> bool {
        self.adapter_info.as_ref().is_some_and(|info| info.device_type == wgpu::DeviceType::Cpu)
    }

    /// A one-line description of the adapter, when known.
    pub fn adapter_description(&self) -> String {
        match &self.adapter_info {
            Some(info) => describe_adapter(info),
            None => "(caller's device)".to_owned(),
        }
    }

    /// Fails if the device was lost or an error arrived outside an error scope.
    pub fn check_health(&self) -> Result<(), GpuError> {
        if let Some(reason) = self.lost.lock().ok().and_then(|slot| slot.clone()) {
            return Err(self.note_failure(GpuError::DeviceLost { reason }));
        }
        if let Some(error) = faults::take_injected() {
            return Err(self.note_failure(error));
        }
        if let Some(error) = self.uncaptured.lock().ok().and_then(|mut slot| slot.take()) {
            return Err(self.note_failure(self.unless_lost(error)));
        }
        Ok(())
    }

    /// `error`, unless the device was lost: a lost device rejects the calls
    /// that follow as invalid, and the loss is what the user must hear of.
    fn unless_lost(&self, error: GpuError) -> GpuError {
        if !matches!(error, GpuError::Validation(_)) {
            return error;
        }
        // Callbacks, the device-lost one among them, run when the device is polled.
        let _ = self.device.poll(wgpu::PollType::Poll);
        match self.lost.lock().ok().and_then(|slot| slot.clone()) {
            Some(reason) => GpuError::DeviceLost { reason },
            None => error,
        }
    }

    /// Runs `work` inside validation and out-of-memory error scopes and
    /// returns the first error either caught.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scoped<T>(&self, work: impl FnOnce() -> T) -> Result<T, GpuError> {
        super::runtime::block_on(self.scoped_async(work))
    }

    /// [`GpuContext::scoped`], awaited.
    pub async fn scoped_async<T>(&self, work: impl FnOnce() -> T) -> Result<T, GpuError> {
        self.scoped_future(async { work() }).await
    }

    /// [`GpuContext::scoped_async`] around work that awaits (readbacks inside it).
    pub async fn scoped_future<T>(&self, work: impl std::future::Future<Output = T>) -> Result<T, GpuError> {
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = work.await;
        let validation_error = validation.pop().await;
        let memory_error = memory.pop().await;
        if let Some(error) = memory_error.or(validation_error) {
            return Err(self.note_failure(self.unless_lost(error.into())));
        }
        self.check_health()?;
        Ok(value)
    }

    /// Waits until the queue is idle, for at most [`GpuContext::wait_timeout`];
    /// a lost device or a queue that does not finish in time is an error.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait(&self) -> Result<(), GpuError> {
        super::runtime::block_on(self.wait_async())
    }

    /// [`GpuContext::wait`], awaited. In a browser the queue runs on its own
    /// and this only checks the device's health: what waits there is the
    /// readback's mapping.
    pub async fn wait_async(&self) -> Result<(), GpuError> {
        let limit = self.wait_timeout();
        let stall = || GpuError::Stall { seconds: limit.as_secs_f64() };
        if faults::fires("gpu-readback-stall") {
            // A queue that never finishes, as a hung driver's: the wait
            // lasts its whole limit and ends the same way.
            std::thread::sleep(limit);
            return Err(self.note_failure(stall()));
        }
        let polled = self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(limit) });
        if let Some(submitted) = self.submitted_at.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
            let span = u64::try_from(submitted.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.longest_wait_microseconds.fetch_max(span, Ordering::Relaxed);
        }
        match polled {
            Ok(_) => {}
            Err(wgpu::PollError::Timeout) => return Err(self.note_failure(stall())),
            Err(error) => {
                self.check_health()?;
                return Err(self.note_failure(GpuError::DeviceLost { reason: error.to_string() }));
            }
        }
        self.check_health()
    }
}

/// What a check's runner returns when the device is wrong: what differed.
pub type CheckResult = Result<(), String>;

type Runner = Arc<dyn Fn(GpuContext) -> super::runtime::LocalFuture<'static, CheckResult> + Send + Sync>;

/// A known-answer test of some kernels against their CPU twins.
#[derive(Clone)]
pub struct Check {
    name: String,
    pub(crate) run: Runner,
}

impl std::fmt::Debug for Check {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Check").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Check {
    /// `name` says what is tested and with which build of the kernels; it is
    /// part of the cache key, so two checks of different kernels need
    /// different names. `run` gets an exempt context and returns what
    /// differed from the CPU, if anything. A GPU error inside `run` (an
    /// `Err` from the runtime) fails the check with its message.
    pub fn new<Run, Checking>(name: impl Into<String>, run: Run) -> Check
    where
        Run: Fn(GpuContext) -> Checking + Send + Sync + 'static,
        Checking: std::future::Future<Output = CheckResult> + 'static,
    {
        Check { name: name.into(), run: Arc::new(move |context| Box::pin(run(context))) }
    }

    /// The check's name, as verdicts report it.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The verdicts of one context's adapter, shared by its clones. `exempt`
/// contexts are the ones checks run on.
pub(crate) struct Trust {
    pub(crate) exempt: bool,
    /// Verdicts kept for this context only, never shared with other
    /// contexts of the adapter nor read from the disk cache.
    pub(crate) own: bool,
    /// Verdicts of a caller's own device (no adapter information, so no
    /// cache key): kept for this context only.
    pub(crate) verdicts: futures_intrusive::sync::Mutex<HashMap<String, CheckResult>>,
}

impl Default for Trust {
    fn default() -> Trust {
        Trust { exempt: false, own: false, verdicts: futures_intrusive::sync::Mutex::new(HashMap::new(), true) }
    }
}

impl Trust {
    pub(crate) fn exempt() -> Trust {
        Trust { exempt: true, ..Default::default() }
    }

    pub(crate) fn own() -> Trust {
        Trust { own: true, ..Default::default() }
    }
}
