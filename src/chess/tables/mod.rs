//! Attack tables, built at compile time by `const fn`: the single source of
//! truth that the CPU generator reads and the GPU kernels receive as storage
//! buffers. Square 0 is a1, bit `i` is square `i`.

pub mod ray_walk;

use crate::chess::board::{Bitboard, Color, Piece, Square};

const fn step_attacks(square: usize, steps: &[(i8, i8)]) -> u64 {
    let file = (square & 7) as i8;
    let rank = (square >> 3) as i8;
    let mut attacks = 0;
    let mut index = 0;
    while index < steps.len() {
        let (file_step, rank_step) = steps[index];
        let target_file = file + file_step;
        let target_rank = rank + rank_step;
        if target_file >= 0 && target_file < 8 && target_rank >= 0 && target_rank < 8 {
            attacks |= 1 << (target_rank * 8 + target_file);
        }
        index += 1;
    }
    attacks
}

const KNIGHT_STEPS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_STEPS: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const WHITE_PAWN_CAPTURE_STEPS: [(i8, i8); 2] = [(-1, 1), (1, 1)];
const BLACK_PAWN_CAPTURE_STEPS: [(i8, i8); 2] = [(-1, -1), (1, -1)];

const fn table_of_steps(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        table[square] = step_attacks(square, steps);
        square += 1;
    }
    table
}

/// One step forward, plus the double step from the pawn's starting rank.
/// Like the OpenCL generator's table, a pawn on its own back rank still gets its one
/// step; such pawns are illegal and never reach the generators.
const fn pawn_pushes(color: Color) -> [u64; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        let rank = square / 8;
        table[square] = match color {
            Color::White if rank < 7 => {
                let single = 1u64 << (square + 8);
                if rank == 1 { single | single << 8 } else { single }
            }
            Color::Black if rank > 0 => {
                let single = 1u64 << (square - 8);
                if rank == 6 { single | single >> 8 } else { single }
            }
            _ => 0,
        };
        square += 1;
    }
    table
}

const fn slider_rays(rook: bool, bishop: bool) -> [u64; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        if rook {
            table[square] |= ray_walk::rook_attacks(square as u8, 0);
        }
        if bishop {
            table[square] |= ray_walk::bishop_attacks(square as u8, 0);
        }
        square += 1;
    }
    table
}

/// Knight attacks per square.
pub static KNIGHT_ATTACKS: [u64; 64] = table_of_steps(&KNIGHT_STEPS);
/// King attacks per square.
pub static KING_ATTACKS: [u64; 64] = table_of_steps(&KING_STEPS);
/// Pawn capture targets per colour and square.
pub static PAWN_ATTACKS: [[u64; 64]; 2] =
    [table_of_steps(&WHITE_PAWN_CAPTURE_STEPS), table_of_steps(&BLACK_PAWN_CAPTURE_STEPS)];
/// Pawn push targets (single and, from the start rank, double) per colour and square.
pub static PAWN_PUSHES: [[u64; 64]; 2] = [pawn_pushes(Color::White), pawn_pushes(Color::Black)];
/// Bishop attacks on an empty board.
pub static BISHOP_RAYS: [u64; 64] = slider_rays(false, true);
/// Rook attacks on an empty board.
pub static ROOK_RAYS: [u64; 64] = slider_rays(true, false);
/// Queen attacks on an empty board.
pub static QUEEN_RAYS: [u64; 64] = slider_rays(true, true);

/// `(between, line)` for every pair of squares: the squares strictly
/// between two squares on a common rank, file or diagonal, and the whole
/// line through them; empty for squares not aligned. One walk fills both.
const fn alignment_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0; 64]; 64];
    let mut line = [[0; 64]; 64];
    let mut from = 0;
    while from < 64 {
        let mut direction = 0;
        while direction < 8 {
            let (file_step, rank_step) = ray_walk::QUEEN_DIRECTIONS[direction];
            let forward = ray_walk::ray_attacks(from as u8, 0, file_step, rank_step);
            let backward = ray_walk::ray_attacks(from as u8, 0, -file_step, -rank_step);
            let mut targets = forward;
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                line[from][to] = forward | backward | 1 << from;
                // Walk the ray with the target as the only blocker.
                between[from][to] = ray_walk::ray_attacks(from as u8, 1 << to, file_step, rank_step) & !(1 << to);
                targets &= targets - 1;
            }
            direction += 1;
        }
        from += 1;
    }
    (between, line)
}

const ALIGNMENT: ([[u64; 64]; 64], [[u64; 64]; 64]) = alignment_tables();

/// Squares strictly between two squares on a common rank, file or diagonal; empty otherwise.
pub static BETWEEN: [[u64; 64]; 64] = ALIGNMENT.0;
/// The whole line (edge to edge) through two aligned squares; empty when not aligned.
pub static LINE: [[u64; 64]; 64] = ALIGNMENT.1;

/// The squares a knight on `square` attacks.
#[inline]
pub fn knight_attacks(square: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[square.index()])
}

/// The squares a king on `square` attacks.
#[inline]
pub fn king_attacks(square: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[square.index()])
}

/// The squares a `color` pawn on `square` attacks.
#[inline]
pub fn pawn_attacks(color: Color, square: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKS[color.index()][square.index()])
}

/// The squares strictly between two squares on a line; empty off a line.
#[inline]
pub fn between(from: Square, to: Square) -> Bitboard {
    Bitboard(BETWEEN[from.index()][to.index()])
}

/// The whole line through two squares, both included; empty off a line.
#[inline]
pub fn line(from: Square, to: Square) -> Bitboard {
    Bitboard(LINE[from.index()][to.index()])
}

/// The empty-board attacks of a non-pawn piece (pawns: use [`pawn_attacks`]).
pub fn empty_board_attacks(piece: Piece, square: Square) -> Bitboard {
    Bitboard(match piece {
        Piece::Pawn => 0,
        Piece::Knight => KNIGHT_ATTACKS[square.index()],
        Piece::Bishop => BISHOP_RAYS[square.index()],
        Piece::Rook => ROOK_RAYS[square.index()],
        Piece::Queen => QUEEN_RAYS[square.index()],
        Piece::King => KING_ATTACKS[square.index()],
    })
}

/// The eight ray directions as (file step, rank step): the four that walk up
/// the square order (north, east, north-east, north-west), then their opposites.
pub const RAY_DIRECTIONS: [(i8, i8); 8] = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)];

const fn ray_table() -> [[u64; 64]; 8] {
    let mut table = [[0; 64]; 8];
    let mut direction = 0;
    while direction < 8 {
        let (file_step, rank_step) = RAY_DIRECTIONS[direction];
        let mut square = 0;
        while square < 64 {
            table[direction][square] = ray_walk::ray_attacks(square as u8, 0, file_step, rank_step);
            square += 1;
        }
        direction += 1;
    }
    table
}

/// Empty-board rays per direction ([`RAY_DIRECTIONS`] order) and square.
pub static RAYS: [[u64; 64]; 8] = ray_table();

/// The four lines through a square: rank, file, diagonal (a1-h8 direction),
/// anti-diagonal (h1-a8 direction).
pub const LINE_KINDS: usize = 4;

const fn line_masks() -> [[u64; 64]; 4] {
    let rays = ray_table();
    let mut table = [[0; 64]; 4];
    let mut square = 0;
    while square < 64 {
        table[0][square] = rays[1][square] | rays[5][square];
        table[1][square] = rays[0][square] | rays[4][square];
        table[2][square] = rays[2][square] | rays[6][square];
        table[3][square] = rays[3][square] | rays[7][square];
        square += 1;
    }
    table
}

/// Each line through a square, without the square itself.
pub static LINE_MASKS: [[u64; 64]; 4] = line_masks();

const fn sbamg_outer_squares() -> [[u64; 64]; 4] {
    let lines = line_masks();
    let mut table = [[0; 64]; 4];
    let mut kind = 0;
    while kind < 4 {
        let mut square = 0;
        while square < 64 {
            let line = lines[kind][square] | 1 << square;
            let lowest = line & line.wrapping_neg();
            let highest = 1u64 << (63 - line.leading_zeros());
            // The lowest end always (it may be the square itself: then it stands
            // in for a blocker below), the highest only when it is another square.
            table[kind][square] = lowest | if highest == 1 << square { 0 } else { highest };
            square += 1;
        }
        kind += 1;
    }
    table
}

/// SBAMG's outer squares per line kind and square: the line's ends, set in the
/// occupancy so that a blocker below and above the slider always exists.
pub static SBAMG_OUTER_SQUARES: [[u64; 64]; 4] = sbamg_outer_squares();
