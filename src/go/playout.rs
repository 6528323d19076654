//! Random playouts, the CPU twin of shaders/go/kernels/playouts.wgsl: the
//! same steps and the same random numbers, so a playout seeded the same way
//! ends the same on both.
//!
//! Each move the side to move takes its playout moves
//! ([`Board::playout_moves`]: legal, and not its own eye), draws one
//! uniformly ([`ShaderRandom::below`] over their count, then the point of
//! that rank from the lowest bit) and plays it; with none it passes. The
//! playout ends after two passes in a row or `3 × points` moves, passes
//! included, and is scored by area ([`Board::area_difference`]).
//!
//! One draw per move from the exact set, rather than drawing among the
//! empty points and dropping the illegal ones, keeps the GPU kernel's
//! loops short and its draws one per move. (A rejection loop once played a
//! point it had not drawn on lavapipe from Mesa 22.3.6, whose loops stop
//! after 65,535 iterations; the self-test now refuses that driver.)

use super::bitmap::Geometry;
use super::board::Board;
use crate::random::ShaderRandom;

pub use super::outcome::{MAX_KOMI, PlayoutResult, move_cap};

/// Plays one playout from `board` with `random`.
pub fn playout<const W: usize>(
    geometry: &Geometry<W>,
    mut board: Board<W>,
    random: &mut ShaderRandom,
) -> PlayoutResult {
    let cap = move_cap(geometry.size);
    let mut passes = 0;
    let mut moves = 0;
    while moves < cap && passes < 2 {
        let color = board.to_move;
        let choices = board.playout_moves(geometry, color);
        let count = choices.count();
        if count == 0 {
            board.pass();
            passes += 1;
        } else {
            let bit = choices.nth(random.below(count)).expect("rank below the count");
            board.play(geometry, color, bit);
            passes = 0;
        }
        moves += 1;
    }
    PlayoutResult { area_difference: board.area_difference(geometry), moves }
}

/// `count` playouts from `position`, playout `i` seeded with stream
/// `first_stream + i` of `seed`, shared among rayon's threads (each the
/// fast chain twin of [`playout`]).
pub fn playouts(position: &super::Position, count: u32, seed: u32, first_stream: u32) -> Vec<PlayoutResult> {
    use rayon::prelude::*;
    super::position::with_board!(position, |board, geometry| {
        (0..count)
            .into_par_iter()
            .with_min_len(64)
            .map_init(super::chains::Chains::default, |chains, index| {
                let mut random = ShaderRandom::new(seed, first_stream.wrapping_add(index));
                super::chains::fast_playout(&geometry, board, chains, &mut random)
            })
            .collect()
    })
}

/// Positions from seeded random games on a board of `size`: each move a
/// legal point drawn uniformly (own eyes included, so captures and kos
/// happen), or a pass one time in `size * 4`; a game restarts after two
/// passes or `3 × points` moves. Every position reached is kept.
pub fn random_positions(size: u32, count: usize, seed: u64) -> Result<Vec<super::Position>, super::GoError> {
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let empty = super::Position::new(size)?;
    let mut positions = Vec::with_capacity(count);
    let mut position = empty;
    let mut passes = 0;
    let mut moves = 0;
    while positions.len() < count {
        let color = position.to_move();
        let legal = position.legal_points(color);
        let point = if legal.is_empty() || random.random_range(0..size * 4) == 0 {
            None
        } else {
            Some(legal[random.random_range(0..legal.len())])
        };
        position.play_move(super::Move { color, point }).expect("a legal point or a pass");
        passes = if point.is_none() { passes + 1 } else { 0 };
        moves += 1;
        positions.push(position);
        if passes == 2 || moves >= move_cap(size) {
            position = empty;
            passes = 0;
            moves = 0;
        }
    }
    Ok(positions)
}

/// A batch of playouts: `per_position` from each position, playout `i` of
/// the whole batch seeded with stream `first_stream + i` of `seed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayoutBatch {
    /// Playouts from each position.
    pub per_position: u32,
    /// The seed of every playout's stream.
    pub seed: u32,
    /// The stream of the batch's first playout.
    pub first_stream: u32,
}

/// Runs playouts for `genmove`.
pub trait PlayoutRunner {
    /// The results of `batch`'s playouts from `positions`, in order, or why
    /// they could not be run.
    fn run(&mut self, positions: &[super::Position], batch: PlayoutBatch) -> Result<Vec<PlayoutResult>, String>;
}

/// Playouts on the CPU's threads.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuPlayouts;

impl PlayoutRunner for CpuPlayouts {
    fn run(&mut self, positions: &[super::Position], batch: PlayoutBatch) -> Result<Vec<PlayoutResult>, String> {
        let PlayoutBatch { per_position, seed, first_stream } = batch;
        let mut results = Vec::with_capacity(positions.len() * per_position as usize);
        for (index, position) in positions.iter().enumerate() {
            let stream = first_stream.wrapping_add(index as u32 * per_position);
            results.extend(playouts(position, per_position, seed, stream));
        }
        Ok(results)
    }
}
