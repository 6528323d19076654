//! Perft statistics: the eight columns of the published perft tables,
//! counted at the leaves on the CPU with the reference generator. A move
//! generator's author compares them to learn which kind of move is wrong.

use std::ops::{Add, AddAssign};

use rayon::prelude::*;

use crate::chess::board::{Move, MoveKind, Square};
use crate::chess::cpu_perft::PerftProgress;
use crate::chess::position::Position;

/// The leaves below a position, counted by kind. Each column counts the
/// last move of a leaf: a promotion counts once per piece chosen; a check
/// is discovered when no checker is the piece that moved (for castling,
/// the rook); a double check has two checkers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PerftStats {
    pub nodes: u64,
    /// Captures, en passant included.
    pub captures: u64,
    pub en_passant: u64,
    pub castles: u64,
    pub promotions: u64,
    pub checks: u64,
    pub discovered_checks: u64,
    pub double_checks: u64,
    pub checkmates: u64,
}

impl PerftStats {
    /// The column names, in the order of [`PerftStats::columns`].
    pub const NAMES: [&'static str; 9] = [
        "nodes",
        "captures",
        "en_passant",
        "castles",
        "promotions",
        "checks",
        "discovered_checks",
        "double_checks",
        "checkmates",
    ];

    /// The nine numbers, nodes first.
    pub const fn columns(&self) -> [u64; 9] {
        [
            self.nodes,
            self.captures,
            self.en_passant,
            self.castles,
            self.promotions,
            self.checks,
            self.discovered_checks,
            self.double_checks,
            self.checkmates,
        ]
    }

    /// The statistics of one leaf: `mv`, played from `position`, leading to `child`.
    fn of_leaf(position: &Position, mv: Move, child: &Position) -> PerftStats {
        let kind = mv.kind();
        let capture = match kind {
            MoveKind::EnPassant => true,
            MoveKind::Castling => false,
            _ => position.colored(!position.side_to_move()).contains(mv.to()),
        };
        let checkers = child.checkers();
        let mut stats = PerftStats {
            nodes: 1,
            captures: u64::from(capture),
            en_passant: u64::from(kind == MoveKind::EnPassant),
            castles: u64::from(kind == MoveKind::Castling),
            promotions: u64::from(matches!(kind, MoveKind::Promotion(_))),
            ..PerftStats::default()
        };
        if checkers.is_empty() {
            return stats;
        }
        let arrived = match kind {
            MoveKind::Castling => {
                let (_, rook_file) = mv.castling_side().destination_files();
                Square::new(rook_file, mv.from().rank())
            }
            _ => mv.to(),
        };
        stats.checks = 1;
        stats.discovered_checks = u64::from(!checkers.contains(arrived));
        stats.double_checks = u64::from(checkers.has_several());
        stats.checkmates = u64::from(child.legal_move_count() == 0);
        stats
    }
}

impl Add for PerftStats {
    type Output = PerftStats;

    fn add(self, other: PerftStats) -> PerftStats {
        let [a, b] = [self.columns(), other.columns()];
        let sum: [u64; 9] = std::array::from_fn(|index| a[index] + b[index]);
        PerftStats {
            nodes: sum[0],
            captures: sum[1],
            en_passant: sum[2],
            castles: sum[3],
            promotions: sum[4],
            checks: sum[5],
            discovered_checks: sum[6],
            double_checks: sum[7],
            checkmates: sum[8],
        }
    }
}

impl AddAssign for PerftStats {
    fn add_assign(&mut self, other: PerftStats) {
        *self = *self + other;
    }
}

impl std::iter::Sum for PerftStats {
    fn sum<I: Iterator<Item = PerftStats>>(iter: I) -> PerftStats {
        iter.fold(PerftStats::default(), Add::add)
    }
}

/// The statistics of the leaves `depth` plies below `position`, on this
/// thread. Depth 0 is the root alone: one node, no last move.
///
/// ```
/// use gpu_movegen::chess::stats::perft_stats;
/// use gpu_movegen::Position;
/// let stats = perft_stats(&Position::start(), 4);
/// assert_eq!((stats.nodes, stats.captures, stats.checks, stats.checkmates), (197_281, 1_576, 469, 8));
/// ```
pub fn perft_stats(position: &Position, depth: u32) -> PerftStats {
    if depth == 0 {
        return PerftStats { nodes: 1, ..PerftStats::default() };
    }
    let mut stats = PerftStats::default();
    let special = position.special_squares();
    position.generate_piece_moves(|piece_moves| {
        piece_moves.for_each_move(special, |mv| {
            let child = position.make_move_of(piece_moves.piece, mv);
            stats +=
                if depth == 1 { PerftStats::of_leaf(position, mv, &child) } else { perft_stats(&child, depth - 1) };
        });
    });
    stats
}

/// Below this depth a subtree stays on one thread.
const PARALLEL_MIN_DEPTH: u32 = 4;

/// [`perft_stats`] with subtrees spread over the current rayon pool.
pub fn perft_stats_parallel(position: &Position, depth: u32) -> PerftStats {
    if depth < PARALLEL_MIN_DEPTH {
        return perft_stats(position, depth);
    }
    position.legal_moves().par_iter().map(|mv| perft_stats_parallel(&position.make_move(*mv), depth - 1)).sum()
}

/// The statistics below each root move, in UCI order; `depth` counts the
/// root move, as [`crate::perft::divide`] does.
pub fn divide_stats(position: &Position, depth: u32) -> Vec<(Move, PerftStats)> {
    divide_stats_with(position, depth, &())
}

/// [`divide_stats`], telling `progress` of each root move as it finishes.
pub fn divide_stats_with(position: &Position, depth: u32, progress: &dyn PerftProgress) -> Vec<(Move, PerftStats)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = position.legal_moves();
    progress.add_parts(moves.len() as u64);
    let mut divided: Vec<(Move, PerftStats)> = moves
        .par_iter()
        .map(|mv| {
            let child = position.make_move(*mv);
            let stats = if depth == 1 {
                PerftStats::of_leaf(position, *mv, &child)
            } else {
                perft_stats_parallel(&child, depth - 1)
            };
            progress.part_done(stats.nodes);
            (*mv, stats)
        })
        .collect();
    divided.sort_by_cached_key(|(mv, _)| mv.to_string());
    divided
}
