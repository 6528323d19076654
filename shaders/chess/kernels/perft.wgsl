// kernels/perft.wgsl — the chess kernels of the breadth-first perft engine.
//
// Reads: the attack tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl: the arena of packed positions, their roots,
// the parameters). Writes: move counts (`scan_data`), children in the arena,
// 64-bit totals per root, fault flags (FAULT_INVALID_POSITION for a side to
// move without a king, FAULT_ARENA_OVERFLOW for a child past the arena).
// One invocation per arena position, POSITION_WORKGROUP per workgroup on
// the engine's two-dimensional grid: `expand` writes every child, in the
// order of the move walk, tagged with the position's root;
// `count_leaves_fused` does the last two plies at once, playing each move and
// adding the child's move count, so the deepest level is never stored. The
// engine module brings `count_moves`, `count_leaves` and the scan, which ask
// `perft_move_count` here for a position's legal move count.

#import movegen
#import perft_engine

alias PerftRecord = PackedPosition;

// The position in `slot`, with a fault raised when its side to move has no king.
fn arena_position(slot: u32) -> Position {
    let board = unpack_position(arena[slot]);
    if bitboard_is_empty(board.kings & position_color(board, board.side_to_move)) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return board;
}

// The engine's hook: the legal move count of the position in `slot`.
fn perft_move_count(slot: u32) -> u32 {
    return legal_move_count(arena_position(slot));
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn expand(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    if index >= parameters.count {
        return;
    }
    let slot = parameters.start + index;
    let board = arena_position(slot);
    let root = root_of[slot];
    let capacity = arrayLength(&arena);
    var output = child_slot(slot);
    var walk = move_walk_begin(board);
    loop {
        let step = move_walk_next(board, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        if output >= capacity {
            perft_fault(FAULT_ARENA_OVERFLOW);
            return;
        }
        arena[output] = pack_position(play_step(board, step));
        root_of[output] = root;
        output += 1u;
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves_fused(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    var root = NO_ROOT;
    var value = 0u;
    if index < parameters.count {
        let slot = parameters.start + index;
        let board = arena_position(slot);
        root = root_of[slot];
        var walk = move_walk_begin(board);
        loop {
            let step = move_walk_next(board, &walk);
            if step.from_square == NO_SQUARE {
                break;
            }
            value += legal_move_count(play_step(board, step));
        }
    }
    accumulate_by_root(local, root, value);
}
