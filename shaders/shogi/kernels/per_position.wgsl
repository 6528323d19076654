// kernels/per_position.wgsl — Shogi move generation, one invocation per position.
//
// Reads: the Shogi tables (binding 0), `positions` (binding 1), `parameters`
// (binding 4). Writes: `position_moves` (binding 2), one record per
// position: the legal destinations of every square (a destination counts when
// either promotion choice is legal), the legal drop squares of each hand
// kind, and the legal move count (promotion choices apart); `status`
// (binding 3) on a fault. Dispatch: POSITION_WORKGROUP invocations per
// workgroup; global invocation x is the position.

#import shogi_movegen
#import batch_io

alias BatchPosition = PackedShogiPosition;

// Rust twin: ShogiPositionMovesRecord in src/shogi/gpu/layout.rs.
struct ShogiPositionMovesRecord {
    destinations: array<Board81, 81>,
    // By hand slot: pawn, lance, knight, silver, gold, bishop, rook.
    drops: array<Board81, 7>,
    move_count: u32,
    reserved_0: u32,
    reserved_1: u32,
    reserved_2: u32,
}

@group(0) @binding(2) var<storage, read_write> position_moves: array<ShogiPositionMovesRecord>;

@compute @workgroup_size(POSITION_WORKGROUP)
fn per_position(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let position = shogi_unpack(positions[index]);
    for (var square = 0u; square < 81u; square++) {
        position_moves[index].destinations[square] = BOARD81_EMPTY;
    }
    for (var slot = 0u; slot < 7u; slot++) {
        position_moves[index].drops[slot] = BOARD81_EMPTY;
    }
    position_moves[index].move_count = 0u;
    let us = position.side_to_move;
    let king = shogi_king(position, us);
    if king == SHOGI_NO_SQUARE {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }
    let occupied = shogi_occupied(position);
    let masks = shogi_masks(position);
    let king_moves = king_destinations(position, masks);
    var count = 0u;
    var pieces = shogi_color_set(position, us);
    while !board81_is_empty(pieces) {
        let from_square = board81_first(pieces);
        pieces = board81_without_first(pieces);
        let kind = shogi_piece_on(position, from_square);
        var legal = king_moves;
        if kind != SHOGI_KING {
            legal = shogi_attacks(kind, us, from_square, occupied) & piece_targets(position, masks, from_square);
        }
        // A destination stays when either promotion choice is legal.
        var remaining = legal;
        while !board81_is_empty(remaining) {
            let to = board81_first(remaining);
            remaining = board81_without_first(remaining);
            let choices = u32(promotion_choice_allowed(kind, us, from_square, to, true))
                + u32(promotion_choice_allowed(kind, us, from_square, to, false));
            count += choices;
            if choices == 0u {
                legal = legal & ~board81_from_square(to);
            }
        }
        position_moves[index].destinations[from_square] = legal;
    }
    let mating_pawn = mating_pawn_drop(position, masks);
    for (var kind = 0u; kind < shogi_loop_bound(7u); kind++) {
        let legal = legal_drop_squares(position, masks, kind, mating_pawn);
        count += board81_count(legal);
        position_moves[index].drops[kind] = legal;
    }
    position_moves[index].move_count = count;
}
