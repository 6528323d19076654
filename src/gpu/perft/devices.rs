//! One count on several devices: each device has its own engine (and so
//! its own transposition table), the roots' subtrees are handed out as
//! devices ask for them, and the counts are added in 128 bits.
//!
//! Every subtree goes to one device at a time and its count is kept only
//! when that device returns it whole, so none is counted twice or dropped.
//! A device that fails ends the run: the others are stopped at their next
//! round trip (see [`PerftEngine::set_cancel`]) and the run returns the
//! failure, naming the device, and no count.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::*;

/// Engines of one game on several devices, counting together.
pub struct DevicePool<G: PerftGame> {
    engines: Vec<PerftEngine<G>>,
    names: Vec<String>,
}

/// Where a run on several devices stands, for progress lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolProgress {
    /// Nodes counted so far by each device, in the pool's order.
    pub nodes: Vec<u64>,
    /// Subtrees counted so far, of `subtrees`.
    pub subtrees_done: usize,
    /// Subtrees the run was split into.
    pub subtrees: usize,
}

/// A subtree of the run: a position below root `root`.
struct Subtree<P> {
    root: usize,
    position: P,
}

impl<G> DevicePool<G>
where
    G: PerftGame,
    G::Position: Clone + Send + Sync,
    PerftEngine<G>: Send,
{
    /// A pool of `engines`, each on its own device; `names` describe the devices.
    pub fn new(engines: Vec<PerftEngine<G>>, names: Vec<String>) -> DevicePool<G> {
        assert_eq!(engines.len(), names.len(), "a name for each engine");
        DevicePool { engines, names }
    }

    /// Devices in the pool.
    pub fn len(&self) -> usize {
        self.engines.len()
    }

    /// Whether the pool has no device.
    pub fn is_empty(&self) -> bool {
        self.engines.is_empty()
    }

    /// The devices, described.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The engines, in the pool's order.
    pub fn engines_mut(&mut self) -> &mut [PerftEngine<G>] {
        &mut self.engines
    }

    /// Perft of each root to `depth` in 128 bits, the subtrees spread over
    /// the devices as they ask for work. Each root is split a ply or two
    /// down (into at least 32 subtrees a device where the tree allows);
    /// `progress` hears how far each device has got.
    pub fn perft_wide(
        &mut self,
        roots: &[G::Position],
        depth: u32,
        progress: &(dyn Fn(&PoolProgress) + Sync),
    ) -> Result<Vec<u128>, GpuError> {
        if depth == 0 || self.engines.len() == 1 {
            return self.engines[0].perft_wide(roots, depth, &mut |nodes| {
                progress(&PoolProgress { nodes: vec![nodes], subtrees_done: 0, subtrees: 0 })
            });
        }
        let wanted = 32 * self.engines.len();
        let mut subtrees: Vec<Subtree<G::Position>> =
            roots.iter().enumerate().map(|(root, position)| Subtree { root, position: position.clone() }).collect();
        let mut plies = 0;
        while subtrees.len() < wanted && plies + 1 < depth && plies < 3 {
            subtrees = subtrees
                .into_iter()
                .flat_map(|subtree| {
                    G::children(&subtree.position)
                        .into_iter()
                        .map(move |position| Subtree { root: subtree.root, position })
                })
                .collect();
            plies += 1;
        }
        let below = depth - plies;
        let counts = self.count_subtrees(&subtrees, below, progress)?;
        let mut totals = vec![0u128; roots.len()];
        for (subtree, count) in subtrees.iter().zip(counts) {
            totals[subtree.root] += count;
        }
        Ok(totals)
    }

    /// The count of every subtree to `depth`, or the first failure.
    fn count_subtrees(
        &mut self,
        subtrees: &[Subtree<G::Position>],
        depth: u32,
        progress: &(dyn Fn(&PoolProgress) + Sync),
    ) -> Result<Vec<u128>, GpuError> {
        let devices = self.engines.len();
        let next = Mutex::new(0usize);
        let results: Mutex<Vec<Option<u128>>> = Mutex::new(vec![None; subtrees.len()]);
        let done = AtomicU64::new(0);
        let per_device: Vec<AtomicU64> = (0..devices).map(|_| AtomicU64::new(0)).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let failure: Mutex<Option<GpuError>> = Mutex::new(None);
        let report = || {
            progress(&PoolProgress {
                nodes: per_device.iter().map(|nodes| nodes.load(Ordering::Relaxed)).collect(),
                subtrees_done: done.load(Ordering::Relaxed) as usize,
                subtrees: subtrees.len(),
            })
        };
        std::thread::scope(|scope| {
            for (index, (engine, name)) in self.engines.iter_mut().zip(&self.names).enumerate() {
                let (next, results, done, per_device, stop, failure, report) =
                    (&next, &results, &done, &per_device, &stop, &failure, &report);
                scope.spawn(move || {
                    engine.set_cancel(Some(Arc::clone(stop)));
                    let mut finished = 0u64;
                    loop {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        // Guided handout: a share of what is left, smaller as the end nears.
                        let (first, last) = {
                            let mut next = next.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                            let left = subtrees.len() - *next;
                            if left == 0 {
                                break;
                            }
                            let take = (left / (4 * devices)).clamp(1, 64);
                            let first = *next;
                            *next += take;
                            (first, first + take)
                        };
                        let batch: Vec<G::Position> =
                            subtrees[first..last].iter().map(|subtree| subtree.position.clone()).collect();
                        let counted = engine.perft_wide(&batch, depth, &mut |nodes| {
                            per_device[index].store(finished + nodes, Ordering::Relaxed);
                            report();
                        });
                        match counted {
                            Ok(counts) => {
                                let total: u128 = counts.iter().sum();
                                finished = finished.saturating_add(u64::try_from(total).unwrap_or(u64::MAX));
                                per_device[index].store(finished, Ordering::Relaxed);
                                let mut results = results.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                                for (slot, count) in results[first..last].iter_mut().zip(counts) {
                                    *slot = Some(count);
                                }
                                drop(results);
                                done.fetch_add((last - first) as u64, Ordering::Relaxed);
                                report();
                            }
                            Err(GpuError::Cancelled) if stop.load(Ordering::Relaxed) => break,
                            Err(error) => {
                                stop.store(true, Ordering::Relaxed);
                                let mut failure = failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                                failure.get_or_insert(GpuError::OnDevice {
                                    device: format!("GPU {} of {devices} ({name})", index + 1),
                                    source: Box::new(error),
                                });
                                break;
                            }
                        }
                    }
                    engine.set_cancel(None);
                });
            }
        });
        if let Some(error) = failure.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()) {
            return Err(error);
        }
        let results = results.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Every subtree was handed out once and came back once, or the run failed above.
        results
            .into_iter()
            .map(|count| count.ok_or_else(|| GpuError::Internal("a subtree of the run was never counted".to_owned())))
            .collect()
    }
}
