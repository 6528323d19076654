//! Who owns each point at the end of the game, estimated by playouts (the
//! share of playouts from a position that end with the point in Black's
//! area, less the share that end with it in White's), and the judgement of
//! the game that `final_score`, `final_status_list` and the decision to pass
//! all rest on.
//!
//! The judgement: a chain is dead when the playouts and the board agree. The
//! playouts must give its points to the other side on average, and the board
//! must not show it unconditionally alive (Benson's algorithm: two regions
//! whose every empty point is its liberty, which no sequence of moves can
//! take). The dead stones are then taken off, and the board is scored by
//! area as Tromp–Taylor scores it: stones, and empty regions that touch one
//! colour only. A point neither side surrounds is dame and counts for
//! nobody (playout ownership would give it to whoever moves first).

use rayon::prelude::*;

use super::bitmap::Bitmap;
use super::board::Color;
use super::chains::{Chains, play_out};
use super::position::{Point, Position, with_board};
use crate::random::ShaderRandom;

/// Playouts an estimate takes by default: enough that a point's share is
/// within a few percent.
pub const OWNERSHIP_PLAYOUTS: u32 = 2_048;

/// The estimated owner of every point of a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Ownership {
    size: u32,
    /// By point, row by row from the bottom: from -1 (White's in every
    /// playout) to 1 (Black's in every playout).
    shares: Vec<f64>,
    position: Position,
}

impl Ownership {
    /// `playouts` seeded playouts from `position` (streams 0.. of `seed`), on rayon's threads.
    pub fn estimate(position: &Position, playouts: u32, seed: u32) -> Ownership {
        let size = position.size();
        let bits = with_board!(position, |board, geometry| {
            (0..playouts.max(1))
                .into_par_iter()
                .with_min_len(16)
                .fold(
                    || (Chains::default(), vec![0i32; 64 * geometry.board.0.len()]),
                    |(mut chains, mut totals), index| {
                        let mut random = ShaderRandom::new(seed, index);
                        play_out(&geometry, board, &mut chains, &mut random);
                        let [black, white] = chains.board().areas(&geometry);
                        add(&mut totals, black, 1);
                        add(&mut totals, white, -1);
                        (chains, totals)
                    },
                )
                .map(|(_, totals)| totals)
                .reduce(Vec::new, |mut sum, totals| {
                    if sum.is_empty() {
                        return totals;
                    }
                    sum.iter_mut().zip(totals).for_each(|(total, part)| *total += part);
                    sum
                })
        });
        let mut shares = Vec::with_capacity((size * size) as usize);
        for y in 0..size {
            for x in 0..size {
                let bit = position.bit(Point { x: x as u8, y: y as u8 });
                shares.push(f64::from(bits.get(bit).copied().unwrap_or(0)) / f64::from(playouts.max(1)));
            }
        }
        Ownership { size, shares, position: *position }
    }

    /// From -1 (White's) to 1 (Black's).
    pub fn share(&self, point: Point) -> f64 {
        self.shares[point.y as usize * self.size as usize + point.x as usize]
    }

    /// The side owning `point` in most playouts, or none when even.
    pub fn owner(&self, point: Point) -> Option<Color> {
        let share = self.share(point);
        if share > 0.0 {
            Some(Color::Black)
        } else if share < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The judgement of the game: dead stones, and the area score with
    /// them taken off.
    pub fn judge(&self) -> Judgement {
        let alive =
            [unconditionally_alive(&self.position, Color::Black), unconditionally_alive(&self.position, Color::White)];
        let size = self.size as usize;
        let mut dead = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for color in Color::ALL {
            for stone in self.position.stones(color) {
                if !seen.insert(stone) {
                    continue;
                }
                let chain = self.position.chain(stone);
                seen.extend(chain.iter().copied());
                if alive[color.index()][stone.y as usize * size + stone.x as usize] {
                    continue;
                }
                let sign = if color == Color::Black { 1.0 } else { -1.0 };
                let average = chain.iter().map(|&point| sign * self.share(point)).sum::<f64>() / chain.len() as f64;
                if average < 0.0 {
                    dead.extend(chain);
                }
            }
        }
        dead.sort();
        let mut settled = self.position;
        for &point in &dead {
            settled.set_stone(point, None);
        }
        Judgement { dead, area_difference: settled.area_difference() }
    }
}

/// The end of a game as judged: see the module's documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The dead stones, sorted.
    pub dead: Vec<Point>,
    /// Black's area minus White's once the dead stones are off, before komi.
    pub area_difference: i32,
}

impl Judgement {
    /// Black's lead with `komi`: positive when Black wins.
    pub fn score(&self, komi: f64) -> f64 {
        f64::from(self.area_difference) - komi
    }
}

/// Benson's algorithm: by point (row by row from the bottom), whether a
/// stone of `color` stands there that no sequence of the opponent's moves
/// can capture, even with `color` passing every time.
pub fn unconditionally_alive(position: &Position, color: Color) -> Vec<bool> {
    let size = position.size() as usize;
    let points = size * size;
    let at = |index: usize| Point { x: (index % size) as u8, y: (index / size) as u8 };
    let neighbours = |index: usize| {
        let (x, y) = (index % size, index / size);
        [
            (x > 0).then(|| index - 1),
            (x + 1 < size).then(|| index + 1),
            (y > 0).then(|| index - size),
            (y + 1 < size).then(|| index + size),
        ]
        .into_iter()
        .flatten()
    };
    let stone: Vec<Option<Color>> = (0..points).map(|index| position.stone(at(index))).collect();
    // Chains of `color`, and regions: connected sets of every other point.
    let mut chain_of = vec![usize::MAX; points];
    let mut region_of = vec![usize::MAX; points];
    let (mut chains, mut regions) = (0, 0);
    for start in 0..points {
        let ours = stone[start] == Some(color);
        let (labels, count) = if ours { (&mut chain_of, &mut chains) } else { (&mut region_of, &mut regions) };
        if labels[start] != usize::MAX {
            continue;
        }
        labels[start] = *count;
        let mut stack = vec![start];
        while let Some(index) = stack.pop() {
            for next in neighbours(index) {
                if (stone[next] == Some(color)) == ours && labels[next] == usize::MAX {
                    labels[next] = *count;
                    stack.push(next);
                }
            }
        }
        *count += 1;
    }
    // Per region: the chains it touches, and those it is vital to (every
    // empty point of the region is a liberty of the chain).
    let mut touches: Vec<Vec<usize>> = vec![Vec::new(); regions];
    let mut vital: Vec<Option<Vec<usize>>> = vec![None; regions];
    for index in (0..points).filter(|&index| stone[index] != Some(color)) {
        let region = region_of[index];
        let mut adjacent: Vec<usize> =
            neighbours(index).map(|next| chain_of[next]).filter(|&chain| chain != usize::MAX).collect();
        adjacent.sort_unstable();
        adjacent.dedup();
        touches[region].extend(adjacent.iter().copied());
        if stone[index].is_none() {
            vital[region] = Some(match vital[region].take() {
                None => adjacent,
                Some(before) => before.into_iter().filter(|chain| adjacent.contains(chain)).collect(),
            });
        }
    }
    for list in &mut touches {
        list.sort_unstable();
        list.dedup();
    }
    // A region without an empty point is vital to every chain it touches.
    let vital: Vec<Vec<usize>> =
        vital.into_iter().zip(&touches).map(|(vital, touches)| vital.unwrap_or_else(|| touches.clone())).collect();
    let mut chain_kept = vec![true; chains];
    let mut region_kept = vec![true; regions];
    loop {
        let mut changed = false;
        let mut vital_count = vec![0u32; chains];
        for region in (0..regions).filter(|&region| region_kept[region]) {
            for &chain in &vital[region] {
                vital_count[chain] += 1;
            }
        }
        for chain in 0..chains {
            if chain_kept[chain] && vital_count[chain] < 2 {
                chain_kept[chain] = false;
                changed = true;
            }
        }
        for region in 0..regions {
            if region_kept[region] && touches[region].iter().any(|&chain| !chain_kept[chain]) {
                region_kept[region] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..points).map(|index| chain_of[index] != usize::MAX && chain_kept[chain_of[index]]).collect()
}

fn add<const W: usize>(totals: &mut [i32], set: Bitmap<W>, amount: i32) {
    for bit in set.bits() {
        totals[bit] += amount;
    }
}
