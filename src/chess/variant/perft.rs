//! Perft of a variant position: leaves `depth` plies below it, the last ply
//! counted without playing its moves, standard chess, king of the hill,
//! three-check, racing kings, antichess, atomic and horde handed to the fast engine
//! (`crate::chess::fast_perft`), the rest by the general rules
//! ([`perft_by_rules`] counts every variant that way, for the tests).

use rayon::prelude::*;

use super::{Variant, VariantPosition};
use crate::chess::board::Move;

/// Leaf nodes `depth` plies below `position`. A position whose game ended
/// by its variant's rule has no moves, so nothing below it is counted.
pub fn perft(position: &VariantPosition, depth: u32) -> u64 {
    use crate::chess::fast_perft::variants::{self, FastVariant};
    let fast = match position.variant {
        Variant::Chess => return crate::chess::perft::perft(&position.board, depth),
        Variant::KingOfTheHill => FastVariant::KingOfTheHill,
        Variant::ThreeCheck => FastVariant::ThreeCheck(position.remaining_checks),
        Variant::RacingKings => FastVariant::RacingKings,
        Variant::Antichess => FastVariant::Antichess,
        Variant::Atomic => FastVariant::Atomic,
        Variant::Horde => FastVariant::Horde,
        Variant::Crazyhouse => return count(position, depth),
    };
    variants::perft(&position.board, fast, depth)
}

/// [`perft`] by the general rules ([`VariantPosition::legal_moves`] and
/// [`VariantPosition::make_move`]) for every variant, written apart from
/// the fast engine so that tests can hold the two equal.
pub fn perft_by_rules(position: &VariantPosition, depth: u32) -> u64 {
    count(position, depth)
}

fn count(position: &VariantPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.legal_move_count(),
        _ => position.legal_moves().iter().map(|&mv| count(&position.make_move(mv), depth - 1)).sum(),
    }
}

/// [`perft_parallel`] that gives up, returning `None`, once `stop` is set:
/// within the time of one perft(4) on a thread
/// ([`crate::threads::perft_until`]).
pub fn perft_parallel_until(
    position: &VariantPosition,
    depth: u32,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<u64> {
    use crate::game::Game;
    crate::threads::perft_until(
        position,
        depth,
        4,
        &ChessVariants::children,
        &|position, depth| perft(position, depth),
        stop,
    )
}

/// [`perft`] with the root moves spread over rayon's threads.
pub fn perft_parallel(position: &VariantPosition, depth: u32) -> u64 {
    if depth < 3 {
        return perft(position, depth);
    }
    let moves = position.legal_moves();
    moves.par_iter().map(|&mv| perft(&position.make_move(mv), depth - 1)).sum()
}

/// Perft split by root move: each legal move with perft(depth - 1) of its
/// child, in the order of their UCI text (`parallel` spreads the moves over
/// rayon's threads).
pub fn divide(position: &VariantPosition, depth: u32, parallel: bool) -> Vec<(Move, u64)> {
    crate::game::divide_by::<ChessVariants>(position, depth, parallel, perft)
}

/// The chess variants as a [`Game`](crate::game::Game): each position
/// carries its variant, so one game serves all seven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChessVariants;

impl crate::game::Game for ChessVariants {
    type Position = VariantPosition;
    type Move = Move;
    const NAME: &'static str = "chess variants";

    fn legal_moves(position: &VariantPosition) -> Vec<Move> {
        position.legal_moves().into_iter().collect()
    }

    fn play(position: &VariantPosition, mv: Move) -> VariantPosition {
        position.make_move(mv)
    }

    fn perft(position: &VariantPosition, depth: u32) -> u64 {
        perft_parallel(position, depth)
    }

    fn perft_until(position: &VariantPosition, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
        perft_parallel_until(position, depth, stop)
    }
}

/// `count` positions of `variant`, each the end of one seeded random game
/// of up to `max_plies` plies from the variant's start (shorter where the
/// game ends): for differential tests and `verify --variant`.
pub fn random_positions(variant: Variant, count: usize, max_plies: usize, seed: u64) -> Vec<VariantPosition> {
    use rand::{Rng, SeedableRng};
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let start = VariantPosition::start(variant);
    (0..count)
        .map(|_| {
            let plies = random.random_range(0..=max_plies);
            crate::game::random_game::<ChessVariants>(start, plies, &mut random, |_| {})
        })
        .collect()
}

/// The published perft table's columns for the leaves `depth` plies below
/// `position`, with the variant's meaning: captures (en passant included,
/// never a drop), en passant, castles, promotions, and checks as the
/// variant has them (none in antichess or against a horde; none between
/// touching kings in atomic), of which discovered (the moved piece is not
/// among the checkers), double, and checkmates (in check with no legal
/// move). Columns a variant never fills stay 0.
pub fn perft_stats(position: &VariantPosition, depth: u32) -> crate::chess::stats::PerftStats {
    use crate::chess::stats::PerftStats;
    if depth == 0 {
        return PerftStats { nodes: 1, ..PerftStats::default() };
    }
    position
        .legal_moves()
        .iter()
        .map(|&mv| {
            let child = position.make_move(mv);
            if depth == 1 { leaf_stats(position, mv, &child) } else { perft_stats(&child, depth - 1) }
        })
        .sum()
}

/// [`perft_stats`] below each root move, in the order of their UCI text.
pub fn divide_stats(position: &VariantPosition, depth: u32) -> Vec<(Move, crate::chess::stats::PerftStats)> {
    if depth == 0 {
        return Vec::new();
    }
    // The moves themselves are wanted at depth 1, so this is not game::divide_with.
    let (moves, children) = crate::game::root_children::<ChessVariants>(position);
    let stats: Vec<crate::chess::stats::PerftStats> = moves
        .par_iter()
        .zip(children.par_iter())
        .map(|(&mv, child)| if depth == 1 { leaf_stats(position, mv, child) } else { perft_stats(child, depth - 1) })
        .collect();
    crate::game::by_move::<ChessVariants, _>(moves, stats)
}

/// The columns of one leaf: `mv`, played from `position`, leading to `child`.
fn leaf_stats(position: &VariantPosition, mv: Move, child: &VariantPosition) -> crate::chess::stats::PerftStats {
    use crate::chess::board::Piece;
    use crate::chess::stats::PerftStats;
    let mut stats = PerftStats::of_move(position.board(), mv);
    if !child.is_check() {
        return stats;
    }
    let child_board = child.board();
    let checked = child_board.side_to_move();
    let king = child_board.pieces_of(checked, Piece::King).first();
    let checkers = king.map_or(crate::chess::board::Bitboard::EMPTY, |king| {
        child_board.attackers(king, !checked, child_board.occupied())
    });
    stats.add_check(mv, checkers, child.legal_moves().is_empty());
    stats
}
