// kernels/legal.wgsl — Go legal points and playout moves, one invocation per position.
//
// Reads: `positions` (binding 1), `parameters` (binding 4), both of
// common/batch_io.wgsl. Writes: `position_moves` (binding 2): per
// position, the points the side to move
// may legally play and the points a playout may choose (legal, not its own
// eye), both in the bitmap layout of bitmap.wgsl padded to 12 words.
// Dispatch: GO_WORKGROUP invocations per workgroup; global invocation x is
// the position.

#import go_board
#import batch_io

alias BatchPosition = PackedGoPosition;

// Rust twin: GoMovesRecord in src/go/gpu/layout.rs.
struct GoMovesRecord {
    legal: array<u32, 12>,
    playout: array<u32, 12>,
}

@group(0) @binding(2) var<storage, read_write> position_moves: array<GoMovesRecord>;

@compute @workgroup_size(GO_WORKGROUP)
fn legal_points(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let position = go_unpack(positions[index]);
    var legal = go_legal(position, position.to_move);
    var playout = go_and_not(legal, go_eyes(position, position.to_move));
    for (var word = 0u; word < 12u; word++) {
        position_moves[index].legal[word] = 0u;
        position_moves[index].playout[word] = 0u;
    }
    for (var word = 0u; word < GO_WORDS; word++) {
        position_moves[index].legal[word] = legal[word];
        position_moves[index].playout[word] = playout[word];
    }
}
