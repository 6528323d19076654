//! The engine's lookup tables, built once per process: each piece's steps
//! per colour and square, the eight rays from every square, the direction
//! from one square to another, and the rank attacks of a slider by the
//! occupancy of its rank's six inner squares.

use std::sync::LazyLock;

use crate::shogi::board::{Bitboard, Color, Piece};
use crate::shogi::movegen::{RAYS, STEP_ATTACKS};

/// Every square, as raw bits.
pub(super) const ALL: u128 = Bitboard::ALL.0;
/// No direction joins the two squares.
pub(super) const NO_DIRECTION: u8 = 8;

pub(super) struct Tables {
    /// The non-sliding attacks of `[piece][color][square]`.
    pub steps: [[[u128; 81]; 2]; 14],
    /// `rays[direction][square]`, in the reference's direction order:
    /// north, south, west, east, north-west, north-east, south-west, south-east.
    pub rays: [[u128; 81]; 8],
    /// The direction from the first square to the second, or [`NO_DIRECTION`].
    pub direction: [[u8; 81]; 81],
    /// Both orthogonal lines and both diagonals through a square, without it.
    pub rook_lines: [u128; 81],
    pub bishop_lines: [u128; 81],
    /// West and east attacks of a slider on `[column][inner occupancy]` as
    /// a nine-bit rank pattern; the inner occupancy is columns 1 to 7.
    pub rank_attacks: [[u16; 128]; 9],
}

impl Tables {
    fn build() -> Tables {
        let mut steps = [[[0u128; 81]; 2]; 14];
        for piece in Piece::ALL {
            for color in Color::ALL {
                for square in 0..81 {
                    steps[piece.index()][color.index()][square] =
                        STEP_ATTACKS[(piece.index() * 2 + color.index()) * 81 + square].0;
                }
            }
        }
        let mut rays = [[0u128; 81]; 8];
        for (direction, table) in rays.iter_mut().enumerate() {
            for (square, ray) in table.iter_mut().enumerate() {
                *ray = RAYS[direction][square].0;
            }
        }
        let mut direction = [[NO_DIRECTION; 81]; 81];
        for (from, row) in direction.iter_mut().enumerate() {
            for (to, entry) in row.iter_mut().enumerate() {
                if let Some(found) = (0..8).find(|&ray| rays[ray][from] >> to & 1 != 0) {
                    *entry = found as u8;
                }
            }
        }
        let rook_lines = std::array::from_fn(|square| (0..4).fold(0, |lines, ray| lines | rays[ray][square]));
        let bishop_lines = std::array::from_fn(|square| (4..8).fold(0, |lines, ray| lines | rays[ray][square]));
        let mut rank_attacks = [[0u16; 128]; 9];
        for (column, table) in rank_attacks.iter_mut().enumerate() {
            for (inner, pattern) in table.iter_mut().enumerate() {
                let occupied = (inner as u16) << 1;
                for step in [-1i32, 1] {
                    let mut current = column as i32 + step;
                    while (0..9).contains(&current) {
                        *pattern |= 1 << current;
                        if occupied >> current & 1 != 0 {
                            break;
                        }
                        current += step;
                    }
                }
            }
        }
        Tables { steps, rays, direction, rook_lines, bishop_lines, rank_attacks }
    }

    /// Attacks along one ray, up to and including the nearest blocker. The
    /// nearest is the lowest set bit where the squares' indices grow along
    /// the ray (south, east, south-west, south-east), the highest elsewhere.
    #[inline(always)]
    pub fn ray(&self, square: usize, direction: usize, occupied: u128) -> u128 {
        let ray = self.rays[direction][square];
        let blockers = ray & occupied;
        if blockers == 0 {
            return ray;
        }
        let grows = matches!(direction, 1 | 3 | 6 | 7);
        let nearest = if grows { blockers.trailing_zeros() } else { 127 - blockers.leading_zeros() };
        ray ^ self.rays[direction][nearest as usize]
    }

    /// West and east along the rank: the rank's nine bits are contiguous.
    #[inline(always)]
    pub fn rank(&self, square: usize, occupied: u128) -> u128 {
        let (rank, column) = (square / 9, square % 9);
        let inner = (occupied >> (rank * 9 + 1)) as usize & 0x7f;
        u128::from(self.rank_attacks[column][inner]) << (rank * 9)
    }

    #[inline(always)]
    pub fn rook(&self, square: usize, occupied: u128) -> u128 {
        self.ray(square, 0, occupied) | self.ray(square, 1, occupied) | self.rank(square, occupied)
    }

    #[inline(always)]
    pub fn bishop(&self, square: usize, occupied: u128) -> u128 {
        self.ray(square, 4, occupied)
            | self.ray(square, 5, occupied)
            | self.ray(square, 6, occupied)
            | self.ray(square, 7, occupied)
    }

    /// A lance of `color`: north for Black, south for White.
    #[inline(always)]
    pub fn lance(&self, color: usize, square: usize, occupied: u128) -> u128 {
        self.ray(square, color, occupied)
    }

    /// What `piece` of `color` on `square` attacks.
    #[inline(always)]
    pub fn attacks(&self, piece: usize, color: usize, square: usize, occupied: u128) -> u128 {
        const LANCE: usize = Piece::Lance as usize;
        const BISHOP: usize = Piece::Bishop as usize;
        const ROOK: usize = Piece::Rook as usize;
        const HORSE: usize = Piece::Horse as usize;
        const DRAGON: usize = Piece::Dragon as usize;
        match piece {
            LANCE => self.lance(color, square, occupied),
            BISHOP => self.bishop(square, occupied),
            ROOK => self.rook(square, occupied),
            HORSE => self.steps[piece][color][square] | self.bishop(square, occupied),
            DRAGON => self.steps[piece][color][square] | self.rook(square, occupied),
            _ => self.steps[piece][color][square],
        }
    }

    /// The squares strictly between two squares on one line; empty otherwise.
    #[inline(always)]
    pub fn between(&self, from: usize, to: usize) -> u128 {
        match self.direction[from][to] {
            NO_DIRECTION => 0,
            direction => self.rays[direction as usize][from] & !self.rays[direction as usize][to] & !(1u128 << to),
        }
    }
}

pub(super) static TABLES: LazyLock<Tables> = LazyLock::new(Tables::build);

/// A step of a whole set: a shift, and the squares it may land on (those
/// not reached by wrapping round from the other side of the board).
#[derive(Clone, Copy)]
pub(super) struct Shift {
    amount: u32,
    up: bool,
    wrap: u128,
}

impl Shift {
    /// `(file step, rank step)` in Black's frame; White's ranks run the other way.
    const fn new(file_step: i32, rank_step: i32, color: usize) -> Shift {
        let rank_step = if color == 1 { -rank_step } else { rank_step };
        let delta = rank_step * 9 + file_step;
        let wrap = match file_step {
            -1 => ALL & !Bitboard::column(8).0,
            1 => ALL & !Bitboard::column(0).0,
            _ => ALL,
        };
        Shift { amount: delta.unsigned_abs(), up: delta > 0, wrap }
    }

    #[inline(always)]
    pub fn apply(self, bits: u128) -> u128 {
        (if self.up { bits << self.amount } else { bits >> self.amount }) & self.wrap
    }
}

const fn shifts<const N: usize>(steps: [(i32, i32); N]) -> [[Shift; N]; 2] {
    let mut table = [[Shift { amount: 0, up: false, wrap: 0 }; N]; 2];
    let mut color = 0;
    while color < 2 {
        let mut index = 0;
        while index < N {
            table[color][index] = Shift::new(steps[index].0, steps[index].1, color);
            index += 1;
        }
        color += 1;
    }
    table
}

pub(super) const PAWN_SHIFTS: [[Shift; 1]; 2] = shifts([(0, -1)]);
pub(super) const KNIGHT_SHIFTS: [[Shift; 2]; 2] = shifts([(-1, -2), (1, -2)]);
pub(super) const SILVER_SHIFTS: [[Shift; 5]; 2] = shifts([(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)]);
pub(super) const GOLD_SHIFTS: [[Shift; 6]; 2] = shifts([(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)]);

/// Where each side promotes (its last three ranks), and the last one and two
/// ranks, where a pawn or lance, or a knight, would have no move.
pub(super) const ZONE: [u128; 2] = [0x7ff_ffff, 0x7ff_ffff << 54];
pub(super) const LAST_RANK: [u128; 2] = [0x1ff, 0x1ff << 72];
pub(super) const LAST_TWO_RANKS: [u128; 2] = [0x3_ffff, 0x3_ffff << 63];
