//! The CPU perft engine, what [`perft::perft`](crate::perft::perft) runs.
//!
//! - A compact node (eight bitboards, castling rights, en passant) copied per move.
//! - The side to move as a type parameter, so every pawn shift and table
//!   row is fixed when the code is compiled.
//! - Legal moves from a check mask and two pin masks; nothing is tried and
//!   taken back.
//! - The last ply counted by popcount, set by set, without making a move.
//! - Leaf parents counted from their parent (the `siblings` module): the parent
//!   looks at itself once from the other side, and most of its children
//!   (those whose move stays clear of that side's king) then recount only
//!   what the move touched. About 1.5x the speed on the suites' positions.
//! - Slider lookups chosen once per process ([`SliderLookup::selected`]):
//!   BMI2 PEXT where the processor runs it fast, magic multipliers
//!   elsewhere. The PEXT path is compiled for BMI2 by function
//!   multiversioning, so one binary runs everywhere.
//!
//! It is written apart from the reference generator ([`crate::movegen`]),
//! and the tests hold the two equal on every suite and on random positions,
//! on both slider paths.

mod generate;
mod node;
mod siblings;
mod sliders;
pub(crate) mod variants;

pub use sliders::{SLIDER_LOOKUP_VARIABLE, SliderLookup};

use crate::chess::board::Color;
use crate::chess::position::Position;
use generate::{Masks, Move, count, for_each_child, for_each_move};
use node::{Black, Node, Side, White};
use siblings::Siblings;
use sliders::Sliders;

/// Leaf nodes `depth` plies below `position`, with the selected slider lookup.
#[inline]
pub fn perft(position: &Position, depth: u32) -> u64 {
    perft_with(position, depth, SliderLookup::selected())
}

/// [`perft`] with a given slider lookup; one the processor lacks falls
/// back to magic, so every request counts.
pub fn perft_with(position: &Position, depth: u32, lookup: SliderLookup) -> u64 {
    if depth == 0 {
        return 1;
    }
    let node = Node::of(position);
    let white = position.side_to_move() == Color::White;
    #[cfg(target_arch = "x86_64")]
    if lookup == SliderLookup::Pext
        && let Some(pext) = sliders::Pext::detect()
    {
        // SAFETY: `Pext::detect` found BMI2, the one feature beyond the
        // build's baseline that `recurse_pext` is compiled for and uses.
        return unsafe {
            if white { recurse_pext::<White>(pext, &node, depth) } else { recurse_pext::<Black>(pext, &node, depth) }
        };
    }
    let _ = lookup;
    if white {
        recurse::<_, White>(sliders::Magic, &node, depth)
    } else {
        recurse::<_, Black>(sliders::Magic, &node, depth)
    }
}

/// The recursion, `depth` at least 1. Its body is one `#[inline(always)]`
/// step so that each entry point below compiles it whole for its own
/// instruction set. Leaf parents are counted by functions of their own
/// (`below` with depth 1, and `from_siblings`): out of the larger frame of
/// a node that makes children, the hot count ran 1.03x as fast.
#[inline(always)]
fn step<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    depth: u32,
    below: impl Fn(&Node, u32) -> u64,
    from_siblings: impl Fn(&Siblings, &Node, Move) -> u64,
) -> u64 {
    let masks = Masks::new::<S, C>(node);
    if depth == 1 {
        return count::<S, C>(sliders, node, &masks);
    }
    let mut nodes = 0;
    if depth == 2 {
        // In check, a node has few children, too few to pay for a view.
        if !masks.in_check()
            && let Some(nodes) = Siblings::with::<S, C::Other, u64>(sliders, node, |view| {
                let mut nodes = 0;
                for_each_move::<S, C>(sliders, node, &masks, &mut |child, made| {
                    nodes += if view.covers(made) { from_siblings(view, child, made) } else { below(child, 1) };
                });
                nodes
            })
        {
            return nodes;
        }
    }
    for_each_child::<S, C>(sliders, node, &masks, &mut |child| nodes += below(child, depth - 1));
    nodes
}

fn recurse<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    step::<S, C>(
        sliders,
        node,
        depth,
        |child, depth| {
            if depth == 1 {
                leaf_parent::<S, C::Other>(sliders, child)
            } else {
                recurse::<S, C::Other>(sliders, child, depth)
            }
        },
        |view, child, made| sibling::<S, C::Other>(sliders, view, child, made),
    )
}

#[inline(never)]
fn leaf_parent<S: Sliders, C: Side>(sliders: S, node: &Node) -> u64 {
    count::<S, C>(sliders, node, &Masks::new::<S, C>(node))
}

#[inline(never)]
fn sibling<S: Sliders, C: Side>(sliders: S, view: &Siblings, node: &Node, made: Move) -> u64 {
    view.count::<S, C>(sliders, node, made)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
unsafe fn recurse_pext<C: Side>(sliders: sliders::Pext, node: &Node, depth: u32) -> u64 {
    // SAFETY (each call below): the same features as this function's own.
    step::<_, C>(
        sliders,
        node,
        depth,
        |child, depth| unsafe {
            if depth == 1 {
                leaf_parent_pext::<C::Other>(sliders, child)
            } else {
                recurse_pext::<C::Other>(sliders, child, depth)
            }
        },
        |view, child, made| unsafe { sibling_pext::<C::Other>(sliders, view, child, made) },
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn leaf_parent_pext<C: Side>(sliders: sliders::Pext, node: &Node) -> u64 {
    count::<_, C>(sliders, node, &Masks::new::<sliders::Pext, C>(node))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn sibling_pext<C: Side>(sliders: sliders::Pext, view: &Siblings, node: &Node, made: Move) -> u64 {
    view.count::<_, C>(sliders, node, made)
}
