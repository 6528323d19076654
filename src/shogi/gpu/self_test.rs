//! The Shogi kernels' known-answer check for the GPU self-test
//! (`crate::gpu::self_test`): perft in the engine's leaf shape, merged and
//! not, against the CPU engine.

use super::layout::BoardWords;
use super::perft::{ShogiGpuPerft, ShogiPerftOptions};
use crate::gpu::Check;
use crate::shogi::perft::{perft, random_positions};
use crate::shogi::position::Position;

/// The "matsuri" position (published perft(2): 28,684): pieces in hand on
/// both sides, promoted pieces, drops; besides the start and positions
/// from seeded random games.
const HANDS_SFEN: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1";

/// Perft of six positions with the kernels of `words` in one leaf shape,
/// at depths that reach every kernel that shape runs: with fused leaves,
/// depth 1 (the stored count at the last ply) and 3 (a stored level, then
/// the fused kernel); with stored leaves, depth 2.
pub fn perft_check(words: BoardWords, fused_leaves: bool) -> Check {
    let shape = if fused_leaves { "fused" } else { "stored" };
    Check::new(format!("Shogi perft ({words:?}; {shape} leaves, tables and not)"), move |context| async move {
        let mut roots = vec![Position::start(), Position::from_sfen(HANDS_SFEN).expect("a valid check SFEN")];
        roots.extend(random_positions(4, 2026));
        let depths: &[u32] = if fused_leaves { &[1, 3] } else { &[2] };
        for merge_transpositions in [true, false] {
            let options = ShogiPerftOptions::for_check(
                words,
                fused_leaves,
                crate::gpu::perft::FusedShape::Auto,
                merge_transpositions,
            );
            let mut engine =
                ShogiGpuPerft::with_options_async(&context, options).await.map_err(|error| error.to_string())?;
            for &depth in depths {
                let counts = engine.perft_async(&roots, depth, &mut |_| {}).await.map_err(|error| error.to_string())?;
                for (index, root) in roots.iter().enumerate() {
                    let expected = perft(root, depth);
                    if counts.get(index) != Some(&expected) {
                        return Err(format!(
                            "perft({depth}) of {} is {:?} on the GPU, {expected} on the CPU ({shape} leaves, tables and merging {merge_transpositions})",
                            root.to_sfen(),
                            counts.get(index),
                        ));
                    }
                }
            }
        }
        Ok(())
    })
}
