// kernels/playouts.wgsl — batched random Go playouts, one invocation per playout.
//
// Reads: `positions` (binding 1), `parameters` (binding 4), both of
// common/batch_io.wgsl. Writes: `playouts` (binding 2), one record per
// playout: its last board, random state, passes, moves, and black's area
// minus white's. Kernel `playout_games`, GO_WORKGROUP invocations per
// workgroup, x the playout: invocation i plays a whole game from position
// i / per_position with stream first_stream + i of `seed` (random.wgsl),
// and ends exactly as src/go/playout.rs does for the same numbers: each
// move draws one of the mover's playout moves (legal, not its own eye) and
// plays it, or passes when there is none; two passes in a row or
// 3 x points moves end it.
//
// The whole game runs in one invocation so that the atari set of
// atari.wgsl stays in private memory from move to move; a 19x19 playout is
// a few thousand bitmap operations, far from any watchdog. BENCHMARKS.md
// has the shapes measured against it.

#import go_board
#import go_atari
#import random
#import batch_io

alias BatchPosition = PackedGoPosition;

// Rust twin: GoPlayoutState in src/go/gpu/layout.rs.
struct GoPlayoutState {
    position: PackedGoPosition,
    random: u32,
    passes: u32,
    moves: u32,
    // Black's area minus white's once the playout has ended.
    area_difference: i32,
}

@group(0) @binding(2) var<storage, read_write> playouts: array<GoPlayoutState>;

const GO_MOVE_CAP: u32 = 3u * GO_SIZE * GO_SIZE;

@compute @workgroup_size(GO_WORKGROUP)
fn playout_games(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    var position = go_unpack(positions[index / parameters.per_position]);
    var random = random_seed(parameters.seed, parameters.first_stream + index);
    go_atari_setup(position);
    // The stones of the side to move and of the other, swapped each move.
    var color = position.to_move;
    var mover = go_stones(position, color);
    var waiting = go_stones(position, 1u - color);
    var ko = position.ko;
    var passes = 0u;
    var moves = 0u;
    while moves < GO_MOVE_CAP && passes < 2u {
        let choices = go_legal_points(mover, waiting, go_atari, ko, go_eye_points(mover, waiting));
        let count = go_count(choices);
        if count == 0u {
            ko = GO_NO_POINT;
            passes += 1u;
        } else {
            ko = go_atari_play(&mover, &waiting, go_nth(choices, random_below(&random, count)));
            passes = 0u;
        }
        let moved = mover;
        mover = waiting;
        waiting = moved;
        color = 1u - color;
        moves += 1u;
    }
    if color == GO_BLACK {
        position.black = mover;
        position.white = waiting;
    } else {
        position.white = mover;
        position.black = waiting;
    }
    position.to_move = color;
    position.ko = ko;
    playouts[index].position = go_pack(position);
    playouts[index].random = random;
    playouts[index].passes = passes;
    playouts[index].moves = moves;
    playouts[index].area_difference = go_area_difference(position);
}
