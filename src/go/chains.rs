//! The fast CPU playout: the bitmaps of [`super::board`] for the candidate
//! and eye sets and the score, plus chains with pseudo-liberty counts (the
//! layout fast playout programs use) so that a legality test or a capture
//! never floods a group. It plays exactly the playouts of
//! [`super::playout::playout`], the plain bitmap twin of the GPU kernel;
//! tests hold the two equal.
//!
//! A chain's pseudo-liberties count (stone, empty neighbour) pairs, so the
//! count is zero exactly when the chain has no liberty, and after taking
//! away the pairs a point makes with a chain, it is above zero exactly when
//! the chain has a liberty besides that point.

use super::bitmap::{Bitmap, Geometry};
use super::board::{Board, Color, NO_KO};
use super::playout::{PlayoutResult, move_cap};
use crate::random::ShaderRandom;

/// Cells: the board's bits moved up one row, so every neighbour of a point,
/// the rows below and above the board included, has an index. 21 rows of 20.
const CELLS: usize = 448;

const EMPTY: u8 = 2;
const EDGE: u8 = 3;

struct Chains<const W: usize> {
    board: Board<W>,
    line: usize,
    /// Black 0, white 1, EMPTY or EDGE.
    cells: [u8; CELLS],
    /// The representative of each stone's chain.
    head: [u16; CELLS],
    /// The next stone of the chain, circular.
    next: [u16; CELLS],
    /// By representative: pseudo-liberties and stones.
    liberties: [u16; CELLS],
    sizes: [u16; CELLS],
}

impl<const W: usize> Chains<W> {
    fn new(geometry: &Geometry<W>, board: Board<W>) -> Chains<W> {
        let line = geometry.line as usize;
        let mut chains = Chains {
            board,
            line,
            cells: [EDGE; CELLS],
            head: [0; CELLS],
            next: [0; CELLS],
            liberties: [0; CELLS],
            sizes: [0; CELLS],
        };
        for bit in geometry.board.bits() {
            chains.cells[bit + line] = EMPTY;
        }
        for color in Color::ALL {
            for bit in board.stones[color.index()].bits() {
                chains.cells[bit + line] = color as u8;
            }
        }
        // Liberties only once every stone is down.
        for color in Color::ALL {
            let stones = board.stones[color.index()];
            let mut rest = stones;
            while let Some(first) = rest.first() {
                let group = geometry.flood(Bitmap::from_bit(first), stones);
                rest &= !group;
                let head = first + line;
                let members: Vec<usize> = group.bits().map(|bit| bit + line).collect();
                for (index, &cell) in members.iter().enumerate() {
                    chains.head[cell] = head as u16;
                    chains.next[cell] = members[(index + 1) % members.len()] as u16;
                }
                chains.sizes[head] = members.len() as u16;
                chains.liberties[head] = members
                    .iter()
                    .map(|&cell| chains.around(cell).into_iter().filter(|&n| chains.cells[n] == EMPTY).count() as u16)
                    .sum();
            }
        }
        chains
    }

    #[inline(always)]
    fn around(&self, cell: usize) -> [usize; 4] {
        [cell - 1, cell + 1, cell - self.line, cell + self.line]
    }

    /// Whether `color` may play the empty, non-ko `cell`.
    #[inline(always)]
    fn is_legal(&mut self, color: Color, cell: usize) -> bool {
        let own = color as u8;
        let mut stones = [0usize; 4];
        let mut count = 0;
        for neighbour in self.around(cell) {
            match self.cells[neighbour] {
                EMPTY => return true,
                EDGE => {}
                _ => {
                    stones[count] = neighbour;
                    count += 1;
                }
            }
        }
        for &stone in &stones[..count] {
            self.liberties[self.head[stone] as usize] -= 1;
        }
        let legal = stones[..count].iter().any(|&stone| {
            let liberties = self.liberties[self.head[stone] as usize];
            (self.cells[stone] == own) == (liberties > 0)
        });
        for &stone in &stones[..count] {
            self.liberties[self.head[stone] as usize] += 1;
        }
        legal
    }

    /// Plays a legal stone; the same captures and ko point as [`Board::play`].
    #[inline(always)]
    fn play(&mut self, color: Color, cell: usize) {
        let own = color as u8;
        let bit = cell - self.line;
        self.cells[cell] = own;
        self.head[cell] = cell as u16;
        self.next[cell] = cell as u16;
        self.sizes[cell] = 1;
        self.liberties[cell] = 0;
        self.board.stones[color.index()] |= Bitmap::from_bit(bit);
        let neighbours = self.around(cell);
        for &neighbour in &neighbours {
            match self.cells[neighbour] {
                EMPTY => self.liberties[cell] += 1,
                EDGE => {}
                _ => self.liberties[self.head[neighbour] as usize] -= 1,
            }
        }
        for &neighbour in &neighbours {
            if self.cells[neighbour] == own && self.head[neighbour] != self.head[cell] {
                self.merge(self.head[cell] as usize, self.head[neighbour] as usize);
            }
        }
        let mut captured = 0;
        let mut captured_cell = 0;
        for &neighbour in &neighbours {
            let cell_color = self.cells[neighbour];
            if cell_color < EMPTY && cell_color != own && self.liberties[self.head[neighbour] as usize] == 0 {
                captured += self.remove(color.other(), self.head[neighbour] as usize);
                captured_cell = neighbour;
            }
        }
        self.board.ko = NO_KO;
        let head = self.head[cell] as usize;
        if captured == 1 && self.sizes[head] == 1 && self.liberties[head] == 1 {
            self.board.ko = (captured_cell - self.line) as u16;
        }
        self.board.to_move = color.other();
    }

    fn merge(&mut self, first: usize, second: usize) {
        let (big, small) = if self.sizes[first] >= self.sizes[second] { (first, second) } else { (second, first) };
        let mut stone = small;
        loop {
            self.head[stone] = big as u16;
            stone = self.next[stone] as usize;
            if stone == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.liberties[big] += self.liberties[small];
        self.sizes[big] += self.sizes[small];
    }

    /// Takes the chain of `head` (of `color`) off the board; returns its size.
    fn remove(&mut self, color: Color, head: usize) -> u32 {
        let mut stone = head;
        loop {
            self.cells[stone] = EMPTY;
            self.board.stones[color.index()] &= !Bitmap::from_bit(stone - self.line);
            stone = self.next[stone] as usize;
            if stone == head {
                break;
            }
        }
        let mut removed = 0;
        loop {
            removed += 1;
            for neighbour in self.around(stone) {
                if self.cells[neighbour] < EMPTY {
                    self.liberties[self.head[neighbour] as usize] += 1;
                }
            }
            stone = self.next[stone] as usize;
            if stone == head {
                break;
            }
        }
        removed
    }
}

/// The playout of [`super::playout::playout`], run on chains.
pub fn fast_playout<const W: usize>(
    geometry: &Geometry<W>,
    board: Board<W>,
    random: &mut ShaderRandom,
) -> PlayoutResult {
    let mut chains = Chains::new(geometry, board);
    let line = chains.line;
    let cap = move_cap(geometry.size);
    let mut passes = 0;
    let mut moves = 0;
    while moves < cap && passes < 2 {
        let board = &chains.board;
        let color = board.to_move;
        let empty = board.empty_points(geometry);
        let mut candidates = empty & !board.eyes(geometry, color);
        if board.ko != NO_KO {
            candidates &= !Bitmap::from_bit(board.ko as usize);
        }
        // A point next to an empty point is legal; the others ask the chains.
        let mut choices = candidates & geometry.neighbours(empty);
        for bit in (candidates & !choices).bits() {
            if chains.is_legal(color, bit + line) {
                choices |= Bitmap::from_bit(bit);
            }
        }
        let count = choices.count();
        if count == 0 {
            chains.board.pass();
            passes += 1;
        } else {
            let bit = choices.nth(random.below(count)).expect("rank below the count");
            chains.play(color, bit + line);
            passes = 0;
        }
        moves += 1;
    }
    PlayoutResult { area_difference: chains.board.area_difference(geometry), moves }
}
