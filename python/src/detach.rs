//! Long work off the interpreter: a worker thread runs it with the GIL
//! released, while the calling thread wakes every tenth of a second to let
//! Python handle signals (Ctrl-C sets the work's cancel flag, then waits for
//! the work to stop, so the device is left idle and usable) and to call the
//! progress callback with the nodes counted so far. Python objects are only
//! ever touched by the calling thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use crate::failure::{Failure, Outcome};

/// How often the calling thread looks at signals and reports progress.
const POLL: Duration = Duration::from_millis(100);

/// What the work and the calling thread share.
pub struct Control {
    /// Set when the caller wants the work stopped; the work checks it.
    pub cancel: Arc<AtomicBool>,
    nodes: AtomicU64,
}

impl Control {
    /// Records the nodes counted so far (shown to the progress callback).
    pub fn set_nodes(&self, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
    }

    /// Adds to the nodes counted so far.
    pub fn add_nodes(&self, nodes: u64) {
        self.nodes.fetch_add(nodes, Ordering::Relaxed);
    }

    /// The nodes counted so far.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// [`Failure::Cancelled`] once the caller asked to stop.
    pub fn check(&self) -> Outcome<()> {
        if self.cancel.load(Ordering::Relaxed) { Err(Failure::Cancelled) } else { Ok(()) }
    }
}

impl gpu_movegen::chess::cpu_perft::PerftProgress for Control {
    fn part_done(&self, nodes: u64) {
        self.add_nodes(nodes);
    }

    fn add(&self, nodes: u64) {
        self.add_nodes(nodes);
    }
}

/// Whether the work has finished, and a way to wait for it.
#[derive(Default)]
struct Finished {
    done: Mutex<bool>,
    signal: Condvar,
}

impl Finished {
    fn set(&self) {
        *self.done.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
        self.signal.notify_all();
    }

    /// Waits up to `limit`; whether the work is done.
    fn wait(&self, limit: Duration) -> bool {
        let done = self.done.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (done, _) =
            self.signal.wait_timeout_while(done, limit, |done| !*done).unwrap_or_else(|poisoned| poisoned.into_inner());
        *done
    }
}

/// Runs `work` on a worker thread with the GIL released. `progress`, when
/// given, is called on this thread with the nodes counted so far, now and
/// then and once at the end with `final_nodes` of the result. Ctrl-C (or an
/// exception from `progress`) cancels the work and is raised once it stopped.
pub fn run<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    final_nodes: impl FnOnce(&T) -> Option<u128>,
    work: impl FnOnce(&Control) -> Outcome<T> + Send,
) -> PyResult<T> {
    let control = Control { cancel: Arc::new(AtomicBool::new(false)), nodes: AtomicU64::new(0) };
    let finished = Finished::default();
    let (outcome, raised) = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            // Set even when the work panics, so that the caller never waits forever.
            struct Done<'a>(&'a Finished);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.set();
                }
            }
            let _done = Done(&finished);
            work(&control)
        });
        let mut raised: Option<PyErr> = None;
        let mut reported = u64::MAX;
        loop {
            if py.detach(|| finished.wait(POLL)) {
                break;
            }
            let interruption = py.check_signals().err().or_else(|| {
                let callback = progress?;
                let nodes = control.nodes();
                if nodes == reported {
                    return None;
                }
                reported = nodes;
                callback.call1((nodes,)).err()
            });
            if let Some(error) = interruption {
                control.cancel.store(true, Ordering::Relaxed);
                raised = Some(error);
                py.detach(|| while !finished.wait(POLL) {});
                break;
            }
        }
        let outcome = worker.join().unwrap_or_else(|panic| {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
                .unwrap_or_else(|| "a worker thread panicked".to_owned());
            Err(Failure::Internal(text))
        });
        (outcome, raised)
    });
    // An interruption raised while the work ran wins over the work's own
    // "cancelled": it is the exception Python expects (KeyboardInterrupt).
    if let Some(error) = raised {
        return Err(error);
    }
    let value = outcome?;
    if let (Some(callback), Some(nodes)) = (progress, final_nodes(&value)) {
        callback.call1((nodes,))?;
    }
    Ok(value)
}
