//! The Go kernels' known-answer checks for the GPU self-test
//! (`crate::gpu::self_test`): perft, with tables and without, and playouts, against
//! their CPU twins, on the board size the kernels are built for.

use super::perft::{BoardSize, GoGpuPerft, GoPerftOptions};
use super::playouts::GpuPlayouts;
use crate::go::Position;
use crate::go::perft::perft;
use crate::go::playout::{playouts, random_positions};
use crate::gpu::Check;

const SEED: u64 = 2026;

fn positions(size: u32) -> Result<Vec<Position>, String> {
    let mut positions = vec![Position::new(size).map_err(|error| error.to_string())?];
    // Positions from late in random games, where captures and ko happen.
    let played = random_positions(size, 3 * size as usize * size as usize, SEED).map_err(|e| e.to_string())?;
    positions.extend(played.iter().rev().step_by(size as usize * 2).take(3));
    Ok(positions)
}

/// Perft to depth 2 of the empty board and three played positions of `size`.
pub fn perft_check(size: BoardSize) -> Check {
    Check::new(
        format!("Go perft ({0}x{0}; fused and stored leaves, tables and not)", size.0),
        move |context| async move {
            let roots = positions(size.0)?;
            let expected: Vec<u64> = roots.iter().map(|root| perft(root, 2)).collect();
            // Both leaf shapes, and a table with merging and neither, in two engines.
            for (fused_leaves, merge_transpositions) in [(true, true), (false, false)] {
                let options = GoPerftOptions::for_check(
                    size,
                    fused_leaves,
                    crate::gpu::perft::FusedShape::Auto,
                    merge_transpositions,
                );
                let mut engine =
                    GoGpuPerft::with_options_async(&context, options).await.map_err(|error| error.to_string())?;
                let counts = engine.perft_async(&roots, 2, &mut |_| {}).await.map_err(|error| error.to_string())?;
                if counts != expected {
                    return Err(format!(
                        "perft(2) of {} positions is {counts:?} on the GPU, {expected:?} on the CPU (fused leaves {fused_leaves}, tables and merging {merge_transpositions})",
                        roots.len()
                    ));
                }
            }
            Ok(())
        },
    )
}

/// Sixteen playouts from each of the positions of `size`, result for result.
pub fn playout_check(size: u32) -> Check {
    Check::new(format!("Go playouts ({size}x{size})"), move |context| async move {
        let roots = positions(size)?;
        let mut runner = GpuPlayouts::new(&context);
        let gpu = runner.playouts_async(&roots, 16, SEED as u32, 0).await.map_err(|error| error.to_string())?;
        for (index, root) in roots.iter().enumerate() {
            let cpu = playouts(root, 16, SEED as u32, index as u32 * 16);
            if gpu[index * 16..(index + 1) * 16] != cpu[..] {
                return Err(format!("the playouts of position {index} differ from the CPU's"));
            }
        }
        Ok(())
    })
}
