//! The Shogi kernels' known-answer check for the GPU self-test
//! (`crate::gpu::self_test`): perft, merged and not, against the CPU reference.

use super::layout::BoardWords;
use super::perft::{ShogiGpuPerft, ShogiPerftOptions};
use crate::gpu::Check;
use crate::shogi::perft::{perft, random_positions};
use crate::shogi::position::Position;

/// The "matsuri" position (published perft(2): 28,684): pieces in hand on
/// both sides, promoted pieces, drops; besides the start and positions
/// from seeded random games.
const HANDS_SFEN: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1";

/// Perft to depth 2 of six positions with the kernels of `words`.
pub fn perft_check(words: BoardWords) -> Check {
    Check::new(format!("Shogi perft ({words:?}; fused and stored leaves, merged and not)"), move |context| {
        let mut roots = vec![Position::start(), Position::from_sfen(HANDS_SFEN).expect("a valid check SFEN")];
        roots.extend(random_positions(4, 2026));
        let expected: Vec<u64> = roots.iter().map(|root| perft(root, 2)).collect();
        // Both leaf shapes, and merging on and off, in two engines.
        for (fused_leaves, merge_transpositions) in [(true, true), (false, false)] {
            let options =
                ShogiPerftOptions { variant: words, fused_leaves, merge_transpositions, ..Default::default() };
            let mut engine = ShogiGpuPerft::with_options(context, options).map_err(|error| error.to_string())?;
            let counts = engine.perft(&roots, 2, &mut |_| {}).map_err(|error| error.to_string())?;
            if let Some(index) = (0..roots.len()).find(|&index| counts.get(index) != Some(&expected[index])) {
                return Err(format!(
                    "perft(2) of {} is {:?} on the GPU, {} on the CPU (fused leaves {fused_leaves}, merging {merge_transpositions})",
                    roots[index].to_sfen(),
                    counts.get(index),
                    expected[index]
                ));
            }
        }
        Ok(())
    })
}
