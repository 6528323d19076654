//! Whether a device's results can be trusted. A driver can miscompute
//! without reporting any error (lavapipe from Mesa 22.3.6 cuts every loop
//! off after 65,535 iterations in an invocation), so before the first result
//! of a kind leaves the crate, the device runs known-answer kernels for it
//! and their results are compared with CPU twins.
//!
//! A [`Check`] is a named known-answer test. This module owns the one every
//! device must pass ([`device_checks`]: long loops with divergent trip
//! counts); each game's `gpu` module owns the checks of its own kernels.
//! [`GpuContext::require`] runs the checks a caller needs, once per adapter,
//! driver version, crate version and build, and keeps each verdict in
//! memory and in the user's cache directory (`GPU_MOVEGEN_CACHE_DIR`
//! overrides it), so the test costs once. A failed verdict is kept for
//! [`FAILED_VERDICT_SECONDS`] only, so a driver fixed in place is tested
//! again; [`GpuContext::retest`] (`gpu-movegen info --retest`) tests again
//! at once. Checks run on an exempt clone of the context, whose engines do
//! not ask for checks themselves.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use super::cache::BUILD_ID;
pub use super::cache::cache_directory;
use super::context::GpuContext;
use super::error::GpuError;
use super::reflect::reflect;
use super::resources::{bind_group, buffer, buffer_with, read_buffer_async, record_dispatch};

pub use super::context::{Check, CheckResult};

/// Verdicts of this process by cache key; held while a check runs, so that
/// threads wanting the same verdict wait for one run. An async lock, since
/// a check awaits its readbacks while holding it.
static VERDICTS: OnceLock<futures_intrusive::sync::Mutex<HashMap<String, CheckResult>>> = OnceLock::new();

/// How long a failed verdict is believed: a day. A driver updated without a
/// new version string (a rebuilt ICD, a fixed library in place) is tested
/// again after it, and so is a verdict a flaky device got wrong. A passed
/// verdict lasts as long as its key: any new build or driver version tests anew.
pub const FAILED_VERDICT_SECONDS: u64 = 24 * 60 * 60;

/// The most a verdict file may hold: its key and a detail cut to
/// [`MAX_DETAIL_BYTES`] fit in a small part of it.
const MAX_VERDICT_FILE_BYTES: u64 = 64 << 10;

/// The longest detail a verdict file keeps.
const MAX_DETAIL_BYTES: usize = 8 << 10;

/// The checks every device must pass before any result is trusted.
pub fn device_checks() -> Vec<Check> {
    vec![Check::new("long loops (divergent nested and flat loops past 65,536 iterations)", run_long_loops)]
}

/// The verdict of one check of one context.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The check's name.
    pub check: String,
    /// Passed, or what differed from the CPU.
    pub outcome: CheckResult,
    /// How long the check ran, when it ran now (`None`: the verdict was known).
    pub seconds: Option<f64>,
    /// The device failed while the check ran (lost, out of memory, stalled,
    /// a readback failed): no verdict, and nothing is kept, since the next
    /// run may find a working device. `outcome` then holds the message.
    pub failure: Option<GpuError>,
    /// The file the verdict is kept in, where it is kept in one.
    pub cache_file: Option<std::path::PathBuf>,
}

impl GpuContext {
    /// Runs [`device_checks`] and `checks` (each at most once per adapter,
    /// driver and build; see the module documentation) and fails with
    /// [`GpuError::SelfTestFailed`] naming the adapter, its driver and the
    /// first check the device failed.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn require(&self, checks: &[Check]) -> Result<(), GpuError> {
        super::runtime::block_on(self.require_async(checks))
    }

    /// [`GpuContext::require`], awaited.
    pub async fn require_async(&self, checks: &[Check]) -> Result<(), GpuError> {
        for verdict in self.self_test_async(checks).await {
            if let Some(failure) = verdict.failure {
                return Err(failure);
            }
            if let Err(detail) = verdict.outcome {
                return Err(GpuError::SelfTestFailed {
                    adapter: self.adapter_description(),
                    check: verdict.check,
                    detail,
                    verdict_file: verdict.cache_file,
                });
            }
        }
        Ok(())
    }

    /// The verdict of every device check and of `checks`, running those not
    /// yet known. An exempt context (the one checks run on) passes all.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn self_test(&self, checks: &[Check]) -> Vec<Verdict> {
        super::runtime::block_on(self.self_test_async(checks))
    }

    /// [`GpuContext::self_test`], awaited.
    pub async fn self_test_async(&self, checks: &[Check]) -> Vec<Verdict> {
        self.run_checks(checks, false).await
    }

    /// [`GpuContext::self_test`] that runs every check again, whatever
    /// verdicts this process or the cache directory kept, and keeps the new
    /// ones: after a driver was fixed, or to see a failure again.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn retest(&self, checks: &[Check]) -> Vec<Verdict> {
        super::runtime::block_on(self.retest_async(checks))
    }

    /// [`GpuContext::retest`], awaited.
    pub async fn retest_async(&self, checks: &[Check]) -> Vec<Verdict> {
        self.run_checks(checks, true).await
    }

    /// The device checks and `checks`, each verdict known or (with `again`,
    /// or when unknown) found now.
    async fn run_checks(&self, checks: &[Check], again: bool) -> Vec<Verdict> {
        let all: Vec<Check> = device_checks().into_iter().chain(checks.iter().cloned()).collect();
        let mut verdicts = Vec::with_capacity(all.len());
        for check in &all {
            let started = web_time::Instant::now();
            let (outcome, ran, failure) = if self.trust.exempt {
                (Ok(()), false, None)
            } else {
                match self.verdict(check, again).await {
                    Ok((outcome, ran)) => (outcome, ran, None),
                    Err(failure) => (Err(failure.to_string()), true, Some(failure)),
                }
            };
            let failed = outcome.is_err();
            let seconds = ran.then(|| started.elapsed().as_secs_f64());
            let cache_file = self.verdict_file(check);
            verdicts.push(Verdict { check: check.name().to_owned(), outcome, seconds, failure, cache_file });
            // A device that failed one check is not asked for the next.
            if failed {
                break;
            }
        }
        verdicts
    }

    /// Where the verdict of `check` on this context is kept between
    /// processes; `None` when it is kept in memory only.
    fn verdict_file(&self, check: &Check) -> Option<std::path::PathBuf> {
        let key = self.cache_key(check)?;
        cache_directory().map(|directory| directory.join("self-test").join(super::cache::file_name(&key, "verdict")))
    }

    /// The verdict of `check`, and whether the check ran now to find it (as
    /// it does with `again`); a device that failed while checking is an
    /// error, and no verdict.
    async fn verdict(&self, check: &Check, again: bool) -> Result<(CheckResult, bool), GpuError> {
        let Some(key) = self.cache_key(check) else {
            let mut verdicts = self.trust.verdicts.lock().await;
            if let Some(outcome) = verdicts.get(check.name()).filter(|_| !again) {
                return Ok((outcome.clone(), false));
            }
            let outcome = self.run_check(check).await?;
            verdicts.insert(check.name().to_owned(), outcome.clone());
            return Ok((outcome, true));
        };
        let mut process =
            VERDICTS.get_or_init(|| futures_intrusive::sync::Mutex::new(HashMap::new(), true)).lock().await;
        if let Some(outcome) = process.get(&key).filter(|_| !again) {
            return Ok((outcome.clone(), false));
        }
        let file = self.verdict_file(check);
        if let Some(outcome) = file.as_ref().filter(|_| !again).and_then(|file| read_verdict(file, &key, now())) {
            process.insert(key, outcome.clone());
            return Ok((outcome, false));
        }
        let outcome = self.run_check(check).await?;
        if let Some(file) = &file {
            // A cache that cannot be written costs a rerun next time, nothing more.
            let _ = write_verdict(file, &key, &outcome, now());
        }
        process.insert(key, outcome.clone());
        Ok((outcome, true))
    }

    /// Runs `check`: its verdict, or the device's failure while it ran.
    async fn run_check(&self, check: &Check) -> Result<CheckResult, GpuError> {
        let exempt = self.exempt();
        let _ = exempt.take_failure();
        // The check is made inside the guarded future, so a check that
        // panics before its first await is caught too.
        let run = std::sync::Arc::clone(&check.run);
        let context = exempt.clone();
        let outcome = CatchUnwind(Box::pin(async move { run(context).await })).await;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(panic) => Err(format!("the check panicked: {}", super::runtime::panic_message(panic.as_ref()))),
        };
        // An error the check's own scopes did not catch is the device's too.
        let outcome = outcome.and_then(|()| exempt.check_health().map_err(|error| error.to_string()));
        match exempt.take_failure() {
            Some(failure) => Err(failure),
            None => Ok(outcome),
        }
    }

    /// Adapter, driver, crate version, build and check: what a verdict
    /// depends on. `None` for a caller's own device, whose adapter is
    /// unknown, and for a context with verdicts of its own.
    fn cache_key(&self, check: &Check) -> Option<String> {
        if self.trust.own {
            return None;
        }
        let info = self.adapter_info.as_ref()?;
        Some(format!(
            "{} | {:?} | {:04x}:{:04x} | {} | {} | gpu-movegen {} build {} | {}",
            info.name,
            info.backend,
            info.vendor,
            info.device,
            info.driver,
            info.driver_info,
            env!("CARGO_PKG_VERSION"),
            BUILD_ID,
            check.name()
        ))
    }
}

/// Polls a check inside `catch_unwind`, so that a check that panics fails
/// with the panic's message instead of ending the process.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = std::thread::Result<F::Output>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Pin::new(inner).poll(context))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// Seconds since the Unix epoch, the time a verdict file records.
fn now() -> u64 {
    web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs())
}

/// A verdict file: the key on the first line (so a hash collision is a
/// miss), then `passed` or `failed: DETAIL`, then `written SECONDS` (since
/// the Unix epoch). A failed verdict older than [`FAILED_VERDICT_SECONDS`],
/// dated ahead of `now`, or undated is a miss, so the check runs again. A
/// file that is no verdict file at all is reported and ignored.
fn read_verdict(file: &std::path::Path, key: &str, now: u64) -> Option<CheckResult> {
    let bytes = super::cache::read_bounded(file, MAX_VERDICT_FILE_BYTES)?;
    let Some((stored_key, rest)) = std::str::from_utf8(&bytes).ok().and_then(|text| text.split_once('\n')) else {
        super::cache::ignored(file, "not a verdict file");
        return None;
    };
    if stored_key != key {
        return None;
    }
    let mut lines = rest.lines();
    let verdict = lines.next().unwrap_or("");
    let written = lines.next().and_then(|line| line.strip_prefix("written ")).and_then(|time| time.parse::<u64>().ok());
    if verdict == "passed" {
        return Some(Ok(()));
    }
    let Some(detail) = verdict.strip_prefix("failed: ") else {
        super::cache::ignored(file, "not a verdict file: its verdict is neither passed nor failed");
        return None;
    };
    let fresh = written.is_some_and(|written| written <= now && now - written < FAILED_VERDICT_SECONDS);
    fresh.then(|| Err(detail.to_owned()))
}

fn write_verdict(file: &std::path::Path, key: &str, outcome: &CheckResult, now: u64) -> std::io::Result<()> {
    let verdict = match outcome {
        Ok(()) => "passed".to_owned(),
        Err(detail) => {
            let mut detail = detail.replace('\n', " ");
            if detail.len() > MAX_DETAIL_BYTES {
                let mut end = MAX_DETAIL_BYTES;
                while !detail.is_char_boundary(end) {
                    end -= 1;
                }
                detail.truncate(end);
                detail += "…";
            }
            format!("failed: {detail}")
        }
    };
    super::cache::write_whole(file, format!("{key}\n{verdict}\nwritten {now}\n").as_bytes())
}

/// The long-loop kernel: every invocation runs a xorshift generator through
/// nested loops (outer × inner + lane-dependent extra iterations) and a flat
/// loop, each past 65,536 iterations, and writes both sums.
const LONG_LOOPS_SHADER: &str = r#"
// Reads `parameters` (binding 1: outer trips, inner trips, flat trips).
// Writes `sums` (binding 2: two words per invocation).
// One invocation per word pair; its index changes its trip counts.
@group(0) @binding(1) var<storage, read> parameters: array<u32>;
@group(0) @binding(2) var<storage, read_write> sums: array<u32>;

fn step(state: u32) -> u32 {
    var next = state ^ (state << 13u);
    next ^= next >> 17u;
    return next ^ (next << 5u);
}

@compute @workgroup_size(64)
fn long_loops(@builtin(global_invocation_id) id: vec3<u32>) {
    let index = id.x;
    var state = index * 2654435761u + 1u;
    var nested = 0u;
    for (var outer = 0u; outer < parameters[0]; outer += 1u) {
        for (var inner = 0u; inner < parameters[1] + (index & 7u); inner += 1u) {
            state = step(state);
            nested += state >> 28u;
        }
    }
    var flat = 0u;
    var trips = parameters[2] + index;
    loop {
        if trips == 0u { break; }
        state = step(state);
        flat += state >> 28u;
        trips -= 1u;
    }
    sums[2u * index] = nested;
    sums[2u * index + 1u] = flat;
}
"#;

const LONG_LOOP_INVOCATIONS: u32 = 64;
const LONG_LOOP_TRIPS: [u32; 3] = [300, 300, 70_000];

fn long_loops_twin(index: u32) -> [u32; 2] {
    let step = |state: u32| {
        let mut next = state ^ (state << 13);
        next ^= next >> 17;
        next ^ (next << 5)
    };
    let [outer, inner, flat_trips] = LONG_LOOP_TRIPS;
    let mut state = index.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut nested = 0u32;
    for _ in 0..outer {
        for _ in 0..inner + (index & 7) {
            state = step(state);
            nested = nested.wrapping_add(state >> 28);
        }
    }
    let mut flat = 0u32;
    for _ in 0..flat_trips + index {
        state = step(state);
        flat = flat.wrapping_add(state >> 28);
    }
    [nested, flat]
}

async fn run_long_loops(context: GpuContext) -> CheckResult {
    let sums = long_loops_on_gpu(&context).await.map_err(|error| error.to_string())?;
    let differing: Vec<u32> = (0..LONG_LOOP_INVOCATIONS)
        .filter(|&index| sums[2 * index as usize..2 * index as usize + 2] != long_loops_twin(index))
        .collect();
    match differing.first() {
        None => Ok(()),
        Some(&first) => Err(format!(
            "{} of {LONG_LOOP_INVOCATIONS} invocations differ from the CPU (the first, {first}, gave {:?} for {:?})",
            differing.len(),
            &sums[2 * first as usize..2 * first as usize + 2],
            long_loops_twin(first)
        )),
    }
}

async fn long_loops_on_gpu(context: &GpuContext) -> Result<Vec<u32>, GpuError> {
    let device = &context.device;
    let composed = reflect(LONG_LOOPS_SHADER.to_owned())?;
    let bytes = u64::from(LONG_LOOP_INVOCATIONS) * 8;
    let output = context
        .scoped_async(|| {
            let kernels = context.kernels(&composed, "self-test long loops");
            let parameters = buffer_with(device, "self-test parameters", &LONG_LOOP_TRIPS, wgpu::BufferUsages::STORAGE);
            let output =
                buffer(device, "self-test sums", bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
            let group = bind_group(device, "self-test long loops", &kernels.layout, &[(1, &parameters), (2, &output)]);
            let mut encoder = device.create_command_encoder(&Default::default());
            record_dispatch(&mut encoder, kernels.pipeline("long_loops"), &group, &[], LONG_LOOP_INVOCATIONS, 64, 1);
            context.submit([encoder.finish()]);
            output
        })
        .await?;
    read_buffer_async(context, &output, 0, bytes).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_files_round_trip_and_refuse_another_key() {
        let directory = std::env::temp_dir().join(format!("gpu-movegen-verdict-{}", std::process::id()));
        let file = directory.join("a.verdict");
        let now = 1_800_000_000;
        write_verdict(&file, "key one", &Err("lane 3\ndiffers".into()), now).unwrap();
        assert_eq!(read_verdict(&file, "key one", now + 60), Some(Err("lane 3 differs".into())));
        assert_eq!(read_verdict(&file, "key two", now + 60), None);
        // A failed verdict expires after a day, and one dated ahead of the clock is not believed.
        assert_eq!(read_verdict(&file, "key one", now + FAILED_VERDICT_SECONDS), None);
        assert_eq!(read_verdict(&file, "key one", now - 1), None);
        write_verdict(&file, "key one", &Ok(()), now).unwrap();
        assert_eq!(read_verdict(&file, "key one", now + 10 * FAILED_VERDICT_SECONDS), Some(Ok(())));
        // An undated failure (as an earlier build wrote them) runs the check again.
        std::fs::write(&file, "key one\nfailed: lane 3\n").unwrap();
        assert_eq!(read_verdict(&file, "key one", now), None);
        std::fs::remove_dir_all(directory).unwrap();
    }

    #[test]
    fn long_loop_twin_runs_past_the_old_lavapipe_limit() {
        // The fault this check exists for cuts loops at 65,535 iterations.
        let [outer, inner, flat] = LONG_LOOP_TRIPS;
        assert!(outer * inner > 65_535 && flat > 65_535);
        assert_ne!(long_loops_twin(0), long_loops_twin(1));
    }
}
