//! Cross-checking another backend's counts: subtrees a few plies below the
//! root, drawn at random, counted by that backend and by the CPU reference.
//! `perft --cross-check K` runs it after a GPU count, so a device that got
//! past the self-test but miscounts this tree is still caught.

use rand::{Rng, SeedableRng};

use super::board::Move;
use super::perft::perft_parallel;
use super::position::Position;

/// The deepest subtree a cross-check counts on the CPU: perft(4) is at most
/// a few million nodes for any reachable position, milliseconds of work.
pub const MAX_SUBTREE_DEPTH: u32 = 4;

/// One subtree: the moves from the root, the position they reach, and the
/// depth counted below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subtree {
    /// The moves from the root to the subtree, in order.
    pub moves: Vec<Move>,
    /// The position they reach.
    pub position: Position,
    /// Plies counted below it.
    pub depth: u32,
}

/// A subtree whose two counts differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Where the counts differ.
    pub subtree: Subtree,
    /// The count being checked (the GPU's, or the other engine's).
    pub other: u64,
    /// The CPU reference's count.
    pub reference: u64,
}

/// The depth counted below each subtree of a perft to `depth`, and the plies
/// from the root to it: as deep a subtree as [`MAX_SUBTREE_DEPTH`] allows,
/// at least one ply below the root (the root itself for depth 0 or 1).
pub fn subtree_shape(depth: u32) -> (u32, u32) {
    if depth <= 1 {
        return (0, depth);
    }
    let below = (depth - 1).min(MAX_SUBTREE_DEPTH);
    (depth - below, below)
}

/// `count` subtrees of a perft of `root` to `depth`, each reached by random
/// legal moves drawn with `seed`. A line that ends early in mate or
/// stalemate is a subtree too (its count is 0 below the end).
pub fn draw_subtrees(root: &Position, depth: u32, count: usize, seed: u64) -> Vec<Subtree> {
    let (plies, _) = subtree_shape(depth);
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut position = *root;
            let mut moves = Vec::with_capacity(plies as usize);
            for _ in 0..plies {
                let legal = position.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let mv = legal[random.random_range(0..legal.len())];
                position = position.make_move(mv);
                moves.push(mv);
            }
            // Below a line that ended early, the depth left is counted from where it ended.
            let depth = depth - moves.len() as u32;
            Subtree { moves, position, depth }
        })
        .collect()
}

/// Counts every subtree with `other` (the backend under test; one call per
/// depth, all subtrees of that depth at once) and with the CPU reference,
/// and returns those whose counts differ.
pub fn cross_check<E>(
    subtrees: &[Subtree],
    mut other: impl FnMut(&[Position], u32) -> Result<Vec<u64>, E>,
) -> Result<Vec<Mismatch>, E> {
    let mut mismatches = Vec::new();
    let mut depths: Vec<u32> = subtrees.iter().map(|subtree| subtree.depth).collect();
    depths.sort_unstable();
    depths.dedup();
    for depth in depths {
        let group: Vec<&Subtree> = subtrees.iter().filter(|subtree| subtree.depth == depth).collect();
        let positions: Vec<Position> = group.iter().map(|subtree| subtree.position).collect();
        let counts = other(&positions, depth)?;
        for (index, subtree) in group.iter().enumerate() {
            let reference = perft_parallel(&subtree.position, depth);
            // A missing count is a mismatch too, never a pass.
            let other = counts.get(index).copied().unwrap_or(u64::MAX);
            if other != reference {
                mismatches.push(Mismatch { subtree: (*subtree).clone(), other, reference });
            }
        }
    }
    Ok(mismatches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtrees_sit_a_few_plies_below_the_root() {
        assert_eq!(subtree_shape(0), (0, 0));
        assert_eq!(subtree_shape(1), (0, 1));
        assert_eq!(subtree_shape(3), (1, 2));
        assert_eq!(subtree_shape(9), (5, 4));
        let subtrees = draw_subtrees(&Position::start(), 7, 6, 1);
        assert_eq!(subtrees.len(), 6);
        for subtree in &subtrees {
            assert_eq!((subtree.moves.len(), subtree.depth), (3, 4));
            let replayed = subtree.moves.iter().fold(Position::start(), |position, mv| position.make_move(*mv));
            assert_eq!(replayed, subtree.position);
        }
        assert_eq!(subtrees, draw_subtrees(&Position::start(), 7, 6, 1), "the seed decides");
    }

    #[test]
    fn a_line_into_mate_keeps_the_depth_left() {
        // Fool's mate one move away: every line of two plies from here may end in mate.
        let root = Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2").unwrap();
        for subtree in draw_subtrees(&root, 3, 40, 7) {
            assert_eq!(subtree.moves.len() as u32 + subtree.depth, 3);
        }
    }

    #[test]
    fn a_wrong_count_is_found_and_a_right_one_passes() {
        let subtrees = draw_subtrees(&Position::start(), 5, 4, 3);
        let right = cross_check(&subtrees, |positions, depth| {
            Ok::<_, ()>(positions.iter().map(|position| crate::chess::perft::perft(position, depth)).collect())
        });
        assert_eq!(right, Ok(Vec::new()));
        let wrong = cross_check(&subtrees, |positions, depth| {
            Ok::<_, ()>(
                positions
                    .iter()
                    .enumerate()
                    .map(|(index, position)| crate::chess::perft::perft(position, depth) + u64::from(index == 2))
                    .collect(),
            )
        })
        .unwrap();
        assert_eq!(wrong.len(), 1);
        assert_eq!(wrong[0].other, wrong[0].reference + 1);
        let short = cross_check(&subtrees, |_, _| Ok::<_, ()>(Vec::new())).unwrap();
        assert_eq!(short.len(), 4, "missing counts are mismatches");
    }
}
