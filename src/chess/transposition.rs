//! Perft with a transposition table: a position met again at the same depth
//! takes its count from the table instead of being searched again.
//!
//! The table is shared by every thread without locks. Each entry keeps a
//! 128-bit key (two independent 64-bit hashes of the position) and its data, stored
//! as `(key_high ^ data, key_low ^ data, data)` in three atomic words: an
//! entry torn by two threads writing at once fails the check on reading, and
//! a false hit needs two positions whose 128-bit keys agree, about 2^-128 per
//! pair, so no count is changed by a collision in any run that will ever
//! happen.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::chess::position::Position;

/// A position's 128-bit key: two independent 64-bit hashes of everything
/// but the move counters ([`Position::state_words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PositionKey(pub u64, pub u64);

/// The high and low halves of a 64 × 64-bit product, folded by XOR: the
/// mixing step of the folded-multiply hashes.
#[inline(always)]
fn folded_multiply(value: u64, factor: u64) -> u64 {
    let product = u128::from(value) * u128::from(factor);
    (product >> 64) as u64 ^ product as u64
}

/// One 64-bit hash of nine words, seeded: each word is mixed in by a
/// folded multiply with an odd constant of its own.
#[inline(always)]
fn hash_words(words: &[u64; 9], seed: u64, factors: &[u64; 9]) -> u64 {
    let mut hash = seed;
    for (word, factor) in words.iter().zip(factors) {
        hash = folded_multiply(hash ^ word, *factor);
    }
    folded_multiply(hash, 0x9e37_79b9_7f4a_7c15)
}

/// Odd constants from a splitmix64 stream, nine per hash.
const FACTORS: [[u64; 9]; 2] = {
    let mut state = 0x6770_752d_6d6f_7665u64; // "gpu-move"
    let mut factors = [[0u64; 9]; 2];
    let mut half = 0;
    while half < 2 {
        let mut index = 0;
        while index < 9 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut value = state;
            value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            factors[half][index] = (value ^ (value >> 31)) | 1;
            index += 1;
        }
        half += 1;
    }
    factors
};

impl PositionKey {
    /// The key of `position`.
    #[inline]
    pub fn of(position: &Position) -> PositionKey {
        let words = position.state_words();
        PositionKey(
            hash_words(&words, 0x243f_6a88_85a3_08d3, &FACTORS[0]),
            hash_words(&words, 0x1319_8a2e_0370_7344, &FACTORS[1]),
        )
    }
}

/// Counts a table entry can hold: 56 bits (a subtree count above this is
/// simply not stored).
const COUNT_LIMIT: u64 = 1 << 56;

/// The shared perft transposition table.
pub struct TranspositionTable {
    /// Buckets of two entries (one kept by depth, one always replaced), each
    /// entry three words, padded to eight words: one cache line a bucket.
    words: Vec<AtomicU64>,
    buckets: usize,
    /// Words before the first bucket, so that buckets start on 64-byte boundaries.
    offset: usize,
}

/// Words a bucket takes: two entries of three words, padded to a cache line.
const BUCKET_WORDS: usize = 8;

impl TranspositionTable {
    /// A table of about `mebibytes` MiB (at least one bucket); `None` for 0.
    pub fn with_mebibytes(mebibytes: u64) -> Option<TranspositionTable> {
        if mebibytes == 0 {
            return None;
        }
        let bytes = mebibytes.saturating_mul(1 << 20);
        // A power of two of buckets, so a key picks its bucket with a mask.
        let buckets = (bytes / (BUCKET_WORDS as u64 * 8)).max(1);
        let buckets = 1usize << (63 - buckets.leading_zeros());
        let total = buckets * BUCKET_WORDS + BUCKET_WORDS;
        let mut words: Vec<AtomicU64> = Vec::new();
        words.try_reserve_exact(total).ok()?;
        advise_huge_pages(words.spare_capacity_mut());
        words.resize_with(total, || AtomicU64::new(0));
        let misalignment = words.as_ptr() as usize % 64;
        let offset = if misalignment == 0 { 0 } else { (64 - misalignment) / 8 };
        Some(TranspositionTable { words, buckets, offset })
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> u64 {
        (self.buckets * BUCKET_WORDS) as u64 * 8
    }

    fn bucket(&self, key: PositionKey) -> usize {
        self.offset + (key.0 as usize & (self.buckets - 1)) * BUCKET_WORDS
    }

    /// The count stored for `key` at `depth`, if any.
    pub fn probe(&self, key: PositionKey, depth: u32) -> Option<u64> {
        let base = self.bucket(key);
        for entry in 0..2 {
            let at = base + entry * 3;
            let data = self.words[at + 2].load(Ordering::Relaxed);
            if data != 0
                && self.words[at].load(Ordering::Relaxed) ^ data == key.0
                && self.words[at + 1].load(Ordering::Relaxed) ^ data == key.1
                && (data & 0xff) as u32 == depth
            {
                return Some(data >> 8);
            }
        }
        None
    }

    /// Stores `count` for `key` at `depth`: in the first entry when it is
    /// empty or shallower, else in the second, so the first keeps the
    /// deepest (costliest) subtree the bucket has seen and the second the
    /// latest.
    pub fn store(&self, key: PositionKey, depth: u32, count: u64) {
        if count >= COUNT_LIMIT || depth > 0xff {
            return;
        }
        let data = count << 8 | u64::from(depth);
        let base = self.bucket(key);
        let kept = self.words[base + 2].load(Ordering::Relaxed);
        let at = if kept == 0 || depth > (kept & 0xff) as u32 { base } else { base + 3 };
        self.words[at].store(key.0 ^ data, Ordering::Relaxed);
        self.words[at + 1].store(key.1 ^ data, Ordering::Relaxed);
        self.words[at + 2].store(data, Ordering::Relaxed);
    }
}

/// Asks Linux to back a table with 2 MiB pages. The table is touched all
/// over at random, so 4 KiB pages cost a fault each on first touch and a
/// TLB miss on most probes; under a hypervisor the faults alone took longer
/// than the count (9 s of system time for a 1 GiB table on two threads).
/// Advice only: where it is not taken, the table works as before.
fn advise_huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = memory.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE);
        let end = (start + std::mem::size_of_val(memory)) / HUGE_PAGE * HUGE_PAGE;
        if end > first {
            // SAFETY: the range lies inside `memory`; madvise
            // with MADV_HUGEPAGE changes how pages are backed, not their contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// Perft of `position` to `depth` on this thread, with `table`.
pub fn perft_hashed(position: &Position, depth: u32, table: &TranspositionTable) -> u64 {
    if depth <= 1 {
        return crate::chess::perft::perft(position, depth);
    }
    let key = PositionKey::of(position);
    if let Some(count) = table.probe(key, depth) {
        return count;
    }
    if depth == 2 {
        // The fast engine counts a two-ply subtree in less time than its
        // children would take to probe.
        let nodes = crate::chess::perft::perft(position, depth);
        table.store(key, depth, nodes);
        return nodes;
    }
    let nodes = position.sum_over_children(|child| perft_hashed(child, depth - 1, table));
    table.store(key, depth, nodes);
    nodes
}

/// Below this depth a subtree stays on one thread.
const PARALLEL_MIN_DEPTH: u32 = 4;

/// [`perft_hashed`] with subtrees spread over the current rayon pool, all
/// sharing `table`.
pub fn perft_hashed_parallel(position: &Position, depth: u32, table: &TranspositionTable) -> u64 {
    let never = std::sync::atomic::AtomicBool::new(false);
    perft_hashed_parallel_until(position, depth, table, &never).unwrap_or_else(|| unreachable!("nothing sets the flag"))
}

/// [`perft_hashed_parallel`] that gives up, returning `None`, once `stop` is
/// set; a subtree given up is not stored, so the table keeps only whole counts.
pub fn perft_hashed_parallel_until(
    position: &Position,
    depth: u32,
    table: &TranspositionTable,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<u64> {
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    if depth < PARALLEL_MIN_DEPTH {
        return Some(perft_hashed(position, depth, table));
    }
    let key = PositionKey::of(position);
    if let Some(count) = table.probe(key, depth) {
        return Some(count);
    }
    let nodes = position
        .legal_moves()
        .par_iter()
        .map(|mv| perft_hashed_parallel_until(&position.make_move(*mv), depth - 1, table, stop))
        .sum::<Option<u64>>()?;
    table.store(key, depth, nodes);
    Some(nodes)
}

/// The default table size: an eighth of physical memory, at most 4 GiB, or
/// 256 MiB when the memory size cannot be read.
pub fn default_mebibytes() -> u64 {
    match physical_mebibytes() {
        Some(mebibytes) => (mebibytes / 8).clamp(16, 4096),
        None => 256,
    }
}

pub use crate::machine::physical_mebibytes;
