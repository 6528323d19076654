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

// Rust twin: ShogiBatchParameters in src/shogi/gpu/layout.rs.
struct ShogiBatchParameters {
    position_count: u32,
    reserved_0: u32,
    reserved_1: u32,
    reserved_2: u32,
}

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

@group(0) @binding(1) var<storage, read> positions: array<PackedShogiPosition>;
@group(0) @binding(2) var<storage, read_write> position_moves: array<ShogiPositionMovesRecord>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: ShogiBatchParameters;

@compute @workgroup_size(POSITION_WORKGROUP)
fn per_position(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.position_count {
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
    let them = 1u - us;
    let occupied = shogi_occupied(position);
    let checked = !board81_is_empty(shogi_attackers_to(position, king, them, occupied));
    let pinned = shogi_pinned(position, king, us);
    var count = 0u;
    for (var kind = 0u; kind < shogi_loop_bound(14u); kind++) {
        var pieces = shogi_pieces_of(position, us, kind);
        while !board81_is_empty(pieces) {
            let from_square = board81_first(pieces);
            pieces = board81_without_first(pieces);
            let test = checked || kind == SHOGI_KING || board81_contains(pinned, from_square);
            var targets = shogi_attacks(kind, us, from_square, occupied) & board81_not(shogi_color_set(position, us));
            var legal = BOARD81_EMPTY;
            while !board81_is_empty(targets) {
                let to = board81_first(targets);
                targets = board81_without_first(targets);
                // Promoting or not leaves our king as safe, so one test serves both choices.
                let choices = u32(promotion_choice_allowed(kind, us, from_square, to, true))
                    + u32(promotion_choice_allowed(kind, us, from_square, to, false));
                if choices > 0u && (!test || keeps_king_safe(position, from_square, to, kind, false)) {
                    legal = legal | board81_from_square(to);
                    count += choices;
                }
            }
            position_moves[index].destinations[from_square] = legal;
        }
    }
    for (var kind = 0u; kind < shogi_loop_bound(7u); kind++) {
        if shogi_hand(position, us, kind) == 0u {
            continue;
        }
        var targets = drop_targets(position, kind);
        var legal = BOARD81_EMPTY;
        while !board81_is_empty(targets) {
            let to = board81_first(targets);
            targets = board81_without_first(targets);
            if drop_is_legal(position, kind, to, checked) {
                legal = legal | board81_from_square(to);
                count += 1u;
            }
        }
        position_moves[index].drops[kind] = legal;
    }
    position_moves[index].move_count = count;
}
