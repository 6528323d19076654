//! The CPU perft engine, what [`perft::perft`](crate::perft::perft) runs.
//!
//! - A compact node (eight bitboards, castling rights, en passant) copied per move.
//! - The side to move as a type parameter, so every pawn shift and table
//!   row is fixed when the code is compiled.
//! - Legal moves from a check mask and two pin masks; nothing is tried and
//!   taken back.
//! - The last ply counted by popcount, set by set, without making a move.
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
mod sliders;
pub(crate) mod variants;

pub use sliders::{SLIDER_LOOKUP_VARIABLE, SliderLookup};

use crate::chess::board::Color;
use crate::chess::position::Position;
use generate::{Masks, count, for_each_child};
use node::{Black, Node, Side, White};
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
/// instruction set.
#[inline(always)]
fn step<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32, below: impl Fn(&Node, u32) -> u64) -> u64 {
    let masks = Masks::new::<S, C>(node);
    if depth == 1 {
        return count::<S, C>(sliders, node, &masks);
    }
    let mut nodes = 0;
    for_each_child::<S, C>(sliders, node, &masks, &mut |child| nodes += below(child, depth - 1));
    nodes
}

fn recurse<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    step::<S, C>(sliders, node, depth, |child, depth| recurse::<S, C::Other>(sliders, child, depth))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
unsafe fn recurse_pext<C: Side>(sliders: sliders::Pext, node: &Node, depth: u32) -> u64 {
    // SAFETY: the same features as this function's own.
    step::<_, C>(sliders, node, depth, |child, depth| unsafe { recurse_pext::<C::Other>(sliders, child, depth) })
}
