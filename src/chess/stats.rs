//! Perft statistics: the eight columns of the published perft tables,
//! counted at the leaves on the CPU with the reference generator. A move
//! generator's author compares them to learn which kind of move is wrong.

use std::ops::{Add, AddAssign};

use rayon::prelude::*;

use crate::chess::board::{Bitboard, Move, MoveKind, Square};
use crate::chess::position::Position;
use crate::chess::transposition::PositionKey;

/// The leaves below a position, counted by kind. Each column counts the
/// last move of a leaf: a promotion counts once per piece chosen; a check
/// is discovered when no checker is the piece that moved (for castling,
/// the rook); a double check has two checkers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PerftStats {
    /// Leaf nodes.
    pub nodes: u64,
    /// Captures, en passant included.
    pub captures: u64,
    /// En passant captures.
    pub en_passant: u64,
    /// Castling moves.
    pub castles: u64,
    /// Promotions, each piece choice counted.
    pub promotions: u64,
    /// Leaves whose side to move is in check.
    pub checks: u64,
    /// Checks where no checker is the piece that moved.
    pub discovered_checks: u64,
    /// Checks by two pieces.
    pub double_checks: u64,
    /// Leaves that are checkmate.
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

    /// The statistics from nine numbers in the order of [`PerftStats::NAMES`]
    /// (missing numbers are 0).
    pub fn from_columns(columns: &[u64]) -> PerftStats {
        let column = |index: usize| columns.get(index).copied().unwrap_or(0);
        PerftStats {
            nodes: column(0),
            captures: column(1),
            en_passant: column(2),
            castles: column(3),
            promotions: column(4),
            checks: column(5),
            discovered_checks: column(6),
            double_checks: column(7),
            checkmates: column(8),
        }
    }

    /// The statistics of one leaf: `mv`, played from `position`, leading to `child`.
    fn of_leaf(position: &Position, mv: Move, child: &Position) -> PerftStats {
        let mut stats = PerftStats::of_move(position, mv);
        let checkers = child.checkers();
        if !checkers.is_empty() {
            stats.add_check(mv, checkers, child.legal_move_count() == 0);
        }
        stats
    }

    /// One leaf's columns that the move alone decides: the node, capture,
    /// en passant, castling and promotion (a drop is none of them).
    #[inline]
    pub(crate) fn of_move(position: &Position, mv: Move) -> PerftStats {
        let kind = mv.kind();
        let capture = match kind {
            MoveKind::EnPassant => true,
            MoveKind::Castling | MoveKind::Drop(_) => false,
            _ => position.colored(!position.side_to_move()).contains(mv.to()),
        };
        PerftStats {
            nodes: 1,
            captures: u64::from(capture),
            en_passant: u64::from(kind == MoveKind::EnPassant),
            castles: u64::from(kind == MoveKind::Castling),
            promotions: u64::from(matches!(kind, MoveKind::Promotion(_))),
            ..PerftStats::default()
        }
    }

    /// The check columns of a leaf whose move `mv` gave check from
    /// `checkers` (not empty): discovered when the piece that moved is not
    /// among them (a castling's piece is its rook), double when several,
    /// and mate when `mated`.
    #[inline]
    pub(crate) fn add_check(&mut self, mv: Move, checkers: Bitboard, mated: bool) {
        let arrived = match mv.kind() {
            MoveKind::Castling => {
                let (_, rook_file) = mv.castling_side().destination_files();
                Square::new(rook_file, mv.from().rank())
            }
            _ => mv.to(),
        };
        self.checks = 1;
        self.discovered_checks = u64::from(!checkers.contains(arrived));
        self.double_checks = u64::from(checkers.has_several());
        self.checkmates = u64::from(mated);
    }
}

impl Add for PerftStats {
    type Output = PerftStats;

    fn add(self, other: PerftStats) -> PerftStats {
        let [a, b] = [self.columns(), other.columns()];
        let sum: [u64; 9] = std::array::from_fn(|index| a[index] + b[index]);
        PerftStats::from_columns(&sum)
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
/// root move, as [`crate::perft::divide`] does. (`CpuPerft::divide_stats`
/// adds progress and the statistics table.)
pub fn divide_stats(position: &Position, depth: u32) -> Vec<(Move, PerftStats)> {
    if depth == 0 {
        return Vec::new();
    }
    // The moves themselves are wanted at depth 1, so this is not game::divide_with.
    let (moves, children) = crate::game::root_children::<crate::chess::Chess>(position);
    let stats: Vec<PerftStats> = moves
        .par_iter()
        .zip(children.par_iter())
        .map(|(mv, child)| {
            if depth == 1 { PerftStats::of_leaf(position, *mv, child) } else { perft_stats_parallel(child, depth - 1) }
        })
        .collect();
    crate::game::by_move::<crate::chess::Chess, _>(moves, stats)
}

/// A transposition table of statistics: the nine columns of a subtree, kept
/// apart from the count table so that plain perft never pays for their
/// size. One entry a slot behind its own lock: an entry is eleven words, too
/// many to check against torn writes the way the count table does.
pub struct StatsTable {
    entries: Vec<std::sync::Mutex<Option<StatsEntry>>>,
}

#[derive(Clone, Copy)]
struct StatsEntry {
    key: PositionKey,
    depth: u32,
    stats: PerftStats,
}

impl StatsTable {
    /// A table of about `mebibytes` MiB; `None` for 0 or when it cannot be allocated.
    pub fn with_mebibytes(mebibytes: u64) -> Option<StatsTable> {
        if mebibytes == 0 {
            return None;
        }
        let slot = size_of::<std::sync::Mutex<Option<StatsEntry>>>() as u64;
        let slots = (mebibytes.saturating_mul(1 << 20) / slot).max(1);
        // A power of two, so a key picks its slot with a mask.
        let slots = 1usize << (63 - slots.leading_zeros());
        let mut entries = Vec::new();
        entries.try_reserve_exact(slots).ok()?;
        entries.resize_with(slots, || std::sync::Mutex::new(None));
        Some(StatsTable { entries })
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> u64 {
        (self.entries.len() * size_of::<std::sync::Mutex<Option<StatsEntry>>>()) as u64
    }

    fn slot(&self, key: PositionKey) -> &std::sync::Mutex<Option<StatsEntry>> {
        &self.entries[key.0 as usize & (self.entries.len() - 1)]
    }

    fn probe(&self, key: PositionKey, depth: u32) -> Option<PerftStats> {
        let entry = *self.slot(key).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        entry.filter(|entry| entry.key == key && entry.depth == depth).map(|entry| entry.stats)
    }

    /// Keeps the deeper (costlier) subtree of the two.
    fn store(&self, key: PositionKey, depth: u32, stats: PerftStats) {
        let mut slot = self.slot(key).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none_or(|entry| entry.depth <= depth) {
            *slot = Some(StatsEntry { key, depth, stats });
        }
    }
}

/// [`perft_stats`] with `table`, on this thread.
pub fn perft_stats_hashed(position: &Position, depth: u32, table: &StatsTable) -> PerftStats {
    // Two plies cost less to count than to look up.
    if depth <= 2 {
        return perft_stats(position, depth);
    }
    let key = PositionKey::of(position);
    if let Some(stats) = table.probe(key, depth) {
        return stats;
    }
    let stats = position.sum_over_children(|child| perft_stats_hashed(child, depth - 1, table));
    table.store(key, depth, stats);
    stats
}

/// [`perft_stats_hashed`] with subtrees spread over the current rayon pool.
pub fn perft_stats_hashed_parallel(position: &Position, depth: u32, table: &StatsTable) -> PerftStats {
    if depth < PARALLEL_MIN_DEPTH {
        return perft_stats_hashed(position, depth, table);
    }
    let key = PositionKey::of(position);
    if let Some(stats) = table.probe(key, depth) {
        return stats;
    }
    let stats = position
        .legal_moves()
        .par_iter()
        .map(|mv| perft_stats_hashed_parallel(&position.make_move(*mv), depth - 1, table))
        .sum();
    table.store(key, depth, stats);
    stats
}
