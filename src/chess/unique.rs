//! Distinct positions level by level (`gpu-movegen unique`, and the split of
//! a perft into work units): each ply's distinct positions with the number
//! of move sequences that reach each (its multiplicity), so that
//! perft(depth) = Σ multiplicity × perft(depth - ply) over any ply.
//!
//! Positions are told apart by [`PositionIdentity`]: a level is sorted by
//! identity and equal neighbours are merged, so equality is decided on the
//! whole position, never on a hash.

use rayon::prelude::*;

use crate::chess::position::{Position, PositionIdentity};

/// The distinct positions of one ply, sorted by identity, with multiplicities.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Level {
    /// Each distinct position and the number of move sequences reaching it.
    pub positions: Vec<(PositionIdentity, u64)>,
}

impl Level {
    /// The root alone, with multiplicity 1.
    pub fn root(position: &Position) -> Level {
        Level { positions: vec![(position.identity(), 1)] }
    }

    /// Distinct positions.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the ply holds no position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Move sequences that reach this ply (the sum of the multiplicities):
    /// perft of the root to this ply.
    pub fn sequences(&self) -> u128 {
        self.positions.iter().map(|(_, count)| u128::from(*count)).sum()
    }

    /// The next ply's distinct positions, keeping only those whose
    /// identity falls in `part` of `parts` (by a hash of the identity), so
    /// that a ply too large for memory can be counted in several passes.
    pub fn next_part(&self, part: u64, parts: u64) -> Level {
        let mut children: Vec<(PositionIdentity, u64)> = self
            .positions
            .par_iter()
            .flat_map_iter(|(identity, count)| {
                let position = Position::from_identity(identity);
                let count = *count;
                position
                    .legal_moves()
                    .into_iter()
                    .map(move |mv| (position.make_move(mv).identity(), count))
                    .filter(move |(child, _)| parts <= 1 || spread(child) % parts == part)
                    .collect::<Vec<_>>()
            })
            .collect();
        children.par_sort_unstable_by_key(|(identity, _)| *identity);
        let mut merged: Vec<(PositionIdentity, u64)> = Vec::with_capacity(children.len() / 4);
        for (identity, count) in children {
            match merged.last_mut() {
                Some((last, total)) if *last == identity => *total += count,
                _ => merged.push((identity, count)),
            }
        }
        merged.shrink_to_fit();
        Level { positions: merged }
    }

    /// The next ply, whole.
    pub fn next(&self) -> Level {
        self.next_part(0, 1)
    }

    /// A forecast of the bytes the next ply's children take while they are
    /// merged: the positions times their average move count, sampled.
    pub fn forecast_bytes(&self) -> u64 {
        let sample: Vec<u64> = self
            .positions
            .iter()
            .step_by((self.len() / 1000).max(1))
            .map(|(identity, _)| Position::from_identity(identity).legal_moves().len() as u64)
            .collect();
        let average = sample.iter().sum::<u64>() / sample.len().max(1) as u64 + 1;
        (self.len() as u64).saturating_mul(average).saturating_mul(BYTES_PER_CHILD)
    }

    /// The distinct positions `ply` plies from `root`, whole, or the first
    /// ply whose children would not fit in `memory_bytes`.
    pub fn at_ply(root: &Position, ply: u32, memory_bytes: u64) -> Result<Level, TooLarge> {
        let mut level = Level::root(root);
        for at in 1..=ply {
            let bytes = level.forecast_bytes();
            if bytes > memory_bytes {
                return Err(TooLarge { ply: at, bytes, memory_bytes });
            }
            level = level.next();
        }
        Ok(level)
    }
}

/// Memory for a ply's positions when the caller names none: a quarter of
/// physical memory, at most 8 GiB.
pub fn default_memory_bytes() -> u64 {
    (crate::chess::transposition::default_mebibytes() * 2) << 20
}

/// A ply too large to hold whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "ply {ply} would take about {} MiB while it is merged, more than the {} MiB allowed",
    bytes >> 20,
    memory_bytes >> 20
)]
pub struct TooLarge {
    /// The ply that did not fit.
    pub ply: u32,
    /// Bytes it would take while merged.
    pub bytes: u64,
    /// Bytes allowed (`--memory`).
    pub memory_bytes: u64,
}

/// A well-mixed number from an identity, for splitting a ply into parts.
fn spread(identity: &PositionIdentity) -> u64 {
    identity
        .0
        .iter()
        .fold(0x243f_6a88_85a3_08d3u64, |hash, word| (hash ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29))
}

/// Bytes one child takes while a ply is merged.
const BYTES_PER_CHILD: u64 = 48;

/// The distinct positions at each ply from 1 to `depth`, handed to `report`
/// as `(ply, count)` as soon as each is known. Every ply but the last is
/// kept whole and must fit in `memory_bytes`; the last is counted in as
/// many passes as keep its children within `memory_bytes`.
pub fn unique_counts(
    position: &Position,
    depth: u32,
    memory_bytes: u64,
    mut report: impl FnMut(u32, u64),
) -> Result<(), TooLarge> {
    let mut level = Level::root(position);
    for ply in 1..=depth {
        let bytes = level.forecast_bytes();
        if ply < depth {
            if bytes > memory_bytes {
                return Err(TooLarge { ply, bytes, memory_bytes });
            }
            level = level.next();
            report(ply, level.len() as u64);
            continue;
        }
        let parts = bytes.div_ceil(memory_bytes.max(1)).max(1);
        let distinct = (0..parts).map(|part| level.next_part(part, parts).len() as u64).sum();
        report(ply, distinct);
    }
    Ok(())
}
