//! Who owns each point at the end of the game, estimated by playouts: the
//! share of playouts from a position that end with the point in Black's
//! area, less the share that end with it in White's. Stones their owner
//! loses in most playouts are dead; the score counts each point for the
//! side that owns it in most playouts. This is what `final_score`,
//! `final_status_list` and the decision to pass rest on, where the board's
//! own area (Tromp–Taylor, every stone alive) is wrong until every dead
//! stone has been taken off.

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

    /// Stones whose chain's points the other side owns, on average, in most playouts.
    pub fn dead_stones(&self) -> Vec<Point> {
        let mut dead = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for color in Color::ALL {
            for stone in self.position.stones(color) {
                if !seen.insert(stone) {
                    continue;
                }
                let chain = self.position.chain(stone);
                seen.extend(chain.iter().copied());
                let sign = if color == Color::Black { 1.0 } else { -1.0 };
                let average = chain.iter().map(|&point| sign * self.share(point)).sum::<f64>() / chain.len() as f64;
                if average < 0.0 {
                    dead.extend(chain);
                }
            }
        }
        dead.sort();
        dead
    }

    /// Black's points minus White's, before komi: each point counted for
    /// the side that owns it in most playouts.
    pub fn area_difference(&self) -> i32 {
        self.shares.iter().map(|&share| (share > 0.0) as i32 - (share < 0.0) as i32).sum()
    }
}

fn add<const W: usize>(totals: &mut [i32], set: Bitmap<W>, amount: i32) {
    for bit in set.bits() {
        totals[bit] += amount;
    }
}
