// kernels/playouts.wgsl — batched random Go playouts, one invocation per playout.
//
// Reads: `positions` (binding 1), `parameters` (binding 4). Writes:
// `playouts` (binding 2), one state per playout, which ends holding black's
// area minus white's and the moves played. Invocation i plays from
// position i / per_position with stream first_stream + i of `seed`
// (random.wgsl) and ends exactly as src/go/playout.rs does for the same
// numbers: each move draws one of the mover's playout moves (legal, not its
// own eye) and plays it, or passes when there is none; two passes in a row
// or 3 x points moves end it.
// Kernels, GO_WORKGROUP invocations per workgroup, x the playout:
// `playout_start` sets each playout up; `playout_steps` plays at most
// GO_PLAYOUT_STEPS moves of each unfinished playout and scores the ones that
// end. The host records one start and enough steps for the move cap in one
// submission, so no invocation runs a whole playout: real GPUs' watchdogs
// dislike long dispatches, and on Mesa 25 the bounded shape costs nothing
// against one dispatch a game (BENCHMARKS.md).

#import go_board
#import random

// Rust twin: GoBatchParameters in src/go/gpu/layout.rs.
struct GoBatchParameters {
    count: u32,
    per_position: u32,
    seed: u32,
    first_stream: u32,
}

// Rust twin: GoPlayoutState in src/go/gpu/layout.rs.
struct GoPlayoutState {
    position: PackedGoPosition,
    random: u32,
    passes: u32,
    moves: u32,
    // Black's area minus white's once the playout has ended.
    area_difference: i32,
}

@group(0) @binding(1) var<storage, read> positions: array<PackedGoPosition>;
@group(0) @binding(2) var<storage, read_write> playouts: array<GoPlayoutState>;
@group(0) @binding(4) var<uniform> parameters: GoBatchParameters;

const GO_MOVE_CAP: u32 = 3u * GO_SIZE * GO_SIZE;

@compute @workgroup_size(GO_WORKGROUP)
fn playout_start(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    playouts[index].position = positions[index / parameters.per_position];
    playouts[index].random = random_seed(parameters.seed, parameters.first_stream + index);
    playouts[index].passes = 0u;
    playouts[index].moves = 0u;
    playouts[index].area_difference = 0;
}

@compute @workgroup_size(GO_WORKGROUP)
fn playout_steps(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    var passes = playouts[index].passes;
    var moves = playouts[index].moves;
    if moves >= GO_MOVE_CAP || passes >= 2u {
        return;
    }
    var position = go_unpack(playouts[index].position);
    var random = playouts[index].random;
    for (var step = 0u; step < GO_PLAYOUT_STEPS && moves < GO_MOVE_CAP && passes < 2u; step++) {
        let color = position.to_move;
        let choices = go_playout_moves(position, color);
        let count = go_count(choices);
        if count == 0u {
            go_pass(&position);
            passes += 1u;
        } else {
            go_play(&position, color, go_nth(choices, random_below(&random, count)));
            passes = 0u;
        }
        moves += 1u;
    }
    playouts[index].position = go_pack(position);
    playouts[index].random = random;
    playouts[index].passes = passes;
    playouts[index].moves = moves;
    if moves >= GO_MOVE_CAP || passes >= 2u {
        playouts[index].area_difference = go_area_difference(position);
    }
}
