//! The fast CPU playout: the bitmaps of [`super::board`] plus each chain's
//! stones and liberties as bitmaps, kept up to date move by move, and the
//! set of stones in atari. The legal points then come from a few bitmap
//! operations per move instead of a flood per group. It plays exactly the
//! playouts of [`super::playout::playout`], the plain bitmap twin of the
//! GPU kernel; tests hold the two equal.

use super::bitmap::{Bitmap, Geometry};
use super::board::{Board, Color, NO_KO};
use super::outcome::{PlayoutResult, move_cap};
use crate::random::ShaderRandom;

/// Slots per table: a power of two above the largest board's 380 bits, so
/// that `bit & (SLOTS - 1)` indexes without a bounds check.
const SLOTS: usize = 512;

#[inline(always)]
fn slot(bit: usize) -> usize {
    bit & (SLOTS - 1)
}

/// Chains of one board, reused from playout to playout.
pub struct Chains<const W: usize> {
    board: Board<W>,
    /// The representative of each stone's chain, by bit.
    head: Box<[u16; SLOTS]>,
    /// By representative: the chain's stones and liberties.
    members: Box<[Bitmap<W>; SLOTS]>,
    liberties: Box<[Bitmap<W>; SLOTS]>,
    /// Stones whose chain has exactly one liberty, both colours.
    in_atari: Bitmap<W>,
    /// The neighbours of each bit's point, for the board size of `around_size`.
    around: Box<[Bitmap<W>; SLOTS]>,
    around_size: u32,
}

impl<const W: usize> Default for Chains<W> {
    fn default() -> Self {
        Chains {
            board: Board::EMPTY,
            head: Box::new([0; SLOTS]),
            members: Box::new([Bitmap::EMPTY; SLOTS]),
            liberties: Box::new([Bitmap::EMPTY; SLOTS]),
            in_atari: Bitmap::EMPTY,
            around: Box::new([Bitmap::EMPTY; SLOTS]),
            around_size: 0,
        }
    }
}

impl<const W: usize> Chains<W> {
    /// The board the chains stand for (after [`play_out`], its last board).
    pub fn board(&self) -> &Board<W> {
        &self.board
    }

    /// Sets the chains up for `board`.
    fn reset(&mut self, geometry: &Geometry<W>, board: Board<W>) {
        if self.around_size != geometry.size {
            for bit in 0..(64 * W).min(SLOTS) {
                let single = Bitmap::from_bit(bit);
                self.around[bit] =
                    if (single & geometry.board).is_empty() { Bitmap::EMPTY } else { geometry.neighbours(single) };
            }
            self.around_size = geometry.size;
        }
        self.board = board;
        self.in_atari = Bitmap::EMPTY;
        let empty = board.empty_points(geometry);
        for color in Color::ALL {
            let stones = board.stones[color.index()];
            let mut rest = stones;
            while let Some(first) = rest.first() {
                let group = geometry.flood(Bitmap::from_bit(first), stones);
                rest &= !group;
                for bit in group.bits() {
                    self.head[slot(bit)] = first as u16;
                }
                self.members[slot(first)] = group;
                self.liberties[slot(first)] = geometry.neighbours(group) & empty;
                self.refresh(first);
            }
        }
    }

    /// Puts the chain of `head` in or out of the atari set.
    #[inline(always)]
    fn refresh(&mut self, head: usize) {
        if self.liberties[slot(head)].count() == 1 {
            self.in_atari |= self.members[slot(head)];
        } else {
            self.in_atari &= !self.members[slot(head)];
        }
    }

    /// The legal points of the side to move ([`Board::legal`]).
    #[inline(always)]
    fn legal(&self, geometry: &Geometry<W>, empty: Bitmap<W>) -> Bitmap<W> {
        let color = self.board.to_move;
        let own = self.board.stones[color.index()];
        let enemy = self.board.stones[color.other().index()];
        let givers = empty | (own & !self.in_atari) | (enemy & self.in_atari);
        let mut legal = empty & geometry.neighbours(givers);
        if self.board.ko != NO_KO {
            legal &= !Bitmap::from_bit(self.board.ko as usize);
        }
        legal
    }

    /// Plays a legal stone; the same captures and ko point as [`Board::play`].
    #[inline(always)]
    fn play(&mut self, geometry: &Geometry<W>, color: Color, bit: usize) {
        let point = Bitmap::from_bit(bit);
        let us = color.index();
        let them = color.other().index();
        let own = self.board.stones[us];
        let enemy = self.board.stones[them];
        self.board.stones[us] |= point;
        let around = self.around[slot(bit)];
        let empty = geometry.board & !(own | enemy | point);
        // The new chain: the point and every friendly chain next to it, kept
        // under the largest one's head so that the fewest stones are relabelled.
        let mut members = point;
        let mut liberties = around & empty;
        let (mut head, mut largest) = (bit, 0);
        let mut friends = around & own;
        while let Some(stone) = friends.first() {
            let chain = self.head[slot(stone)] as usize;
            let chain_members = self.members[slot(chain)];
            friends &= !chain_members;
            members |= chain_members;
            liberties |= self.liberties[slot(chain)];
            let size = chain_members.count();
            if size > largest {
                (head, largest) = (chain, size);
            }
        }
        liberties &= !point;
        let relabel = if head == bit { point } else { members & !self.members[slot(head)] };
        for stone in relabel.bits() {
            self.head[slot(stone)] = head as u16;
        }
        self.members[slot(head)] = members;
        self.liberties[slot(head)] = liberties;
        // Enemy chains next to the point lose it; those left without a liberty are taken.
        let mut captured = Bitmap::EMPTY;
        let mut foes = around & enemy;
        while let Some(stone) = foes.first() {
            let chain = self.head[slot(stone)] as usize;
            foes &= !self.members[slot(chain)];
            self.liberties[slot(chain)] &= !point;
            if self.liberties[slot(chain)].is_empty() {
                captured |= self.members[slot(chain)];
            } else {
                self.refresh(chain);
            }
        }
        if !captured.is_empty() {
            self.board.stones[them] &= !captured;
            self.in_atari &= !captured;
            // The capturer's chains next to the captured stones gain those points.
            let mut gainers = geometry.neighbours(captured) & self.board.stones[us];
            while let Some(stone) = gainers.first() {
                let chain = self.head[slot(stone)] as usize;
                gainers &= !self.members[slot(chain)];
                self.liberties[slot(chain)] |= geometry.neighbours(self.members[slot(chain)]) & captured;
                self.refresh(chain);
            }
        }
        self.refresh(head);
        self.board.ko = NO_KO;
        if members == point && captured.count() == 1 && self.liberties[slot(head)] == captured {
            self.board.ko = captured.first().unwrap_or(0) as u16;
        }
        self.board.to_move = color.other();
    }
}

/// The playout of [`super::playout::playout`], on chains set up afresh in `chains`.
pub fn fast_playout<const W: usize>(
    geometry: &Geometry<W>,
    board: Board<W>,
    chains: &mut Chains<W>,
    random: &mut ShaderRandom,
) -> PlayoutResult {
    let moves = play_out(geometry, board, chains, random);
    PlayoutResult { area_difference: chains.board.area_difference(geometry), moves }
}

/// Plays the playout of [`fast_playout`], leaving its last board in
/// [`Chains::board`]; the moves played, passes included.
pub fn play_out<const W: usize>(
    geometry: &Geometry<W>,
    board: Board<W>,
    chains: &mut Chains<W>,
    random: &mut ShaderRandom,
) -> u32 {
    chains.reset(geometry, board);
    let cap = move_cap(geometry.size);
    let mut passes = 0;
    let mut moves = 0;
    while moves < cap && passes < 2 {
        let color = chains.board.to_move;
        let empty = chains.board.empty_points(geometry);
        let choices = chains.legal(geometry, empty) & !chains.board.eyes_among(geometry, color, empty);
        let count = choices.count();
        if count == 0 {
            chains.board.pass();
            passes += 1;
        } else {
            let bit = choices.nth(random.below(count)).expect("rank below the count");
            chains.play(geometry, color, bit);
            passes = 0;
        }
        moves += 1;
    }
    moves
}
