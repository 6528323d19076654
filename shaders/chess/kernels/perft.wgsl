// kernels/perft.wgsl — the chess kernels of the breadth-first perft engine.
//
// Reads: the attack tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl: the arena of packed positions, their roots,
// the parameters). Writes: move counts (`scan_data`), move lists and
// children in the arena, 64-bit totals per root, fault flags
// (FAULT_INVALID_POSITION for a side to move without a king,
// FAULT_ARENA_OVERFLOW for a child past the arena).
// The engine's move lists (common/perft_moves.wgsl) bring the kernels that
// expand a level (`expand_moves`, one invocation per position: its legal
// moves as words, from the move walk; `write_children`, one per move: the
// child, played on the packed planes) and count the last two plies
// (`count_leaves_fused`, one per move of the last stored level: the child's
// legal moves). On a software adapter the last two plies are counted by
// `count_leaves_looped` instead: one invocation per position of the last
// stored level, playing each of its moves in turn. The engine module brings
// `count_moves` and the scan, which ask `perft_move_count` here for a
// position's legal move count.

#import movegen
#import perft_moves

alias PerftRecord = PackedPosition;

// The position in `slot`, with a fault raised when its side to move has no king.
fn arena_position(slot: u32) -> Position {
    let board = unpack_position(perft_record(slot));
    if bitboard_is_empty(board.kings & position_color(board, board.side_to_move)) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return board;
}

// The engine's hooks for merging equal positions: a hash of the position in
// `slot` and whether two slots hold the same position (the move counters
// aside: perft does not depend on them).
fn perft_record_hash(slot: u32) -> u32 {
    let record = perft_record(slot);
    var hash = record.state * 0x9e3779b9u;
    for (var plane = 0u; plane < 4u; plane++) {
        hash = (hash ^ bitboard_low(record.planes[plane])) * 0x85ebca6bu;
        hash = (hash ^ (hash >> 13u) ^ bitboard_high(record.planes[plane])) * 0xc2b2ae35u;
    }
    return hash ^ (hash >> 16u);
}

// The 128-bit key of the transposition table (perft_engine.wgsl), from the
// same words.
fn perft_record_key(slot: u32) -> vec4<u32> {
    let record = perft_record(slot);
    var key = perft_key_add(perft_key_begin(), record.state);
    for (var plane = 0u; plane < 4u; plane++) {
        key = perft_key_add(key, bitboard_low(record.planes[plane]));
        key = perft_key_add(key, bitboard_high(record.planes[plane]));
    }
    return perft_key_finish(key);
}

fn perft_record_equal(first: u32, second: u32) -> bool {
    let a = perft_record(first);
    let b = perft_record(second);
    var same = a.state == b.state;
    for (var plane = 0u; plane < 4u; plane++) {
        same = same && bitboard_low(a.planes[plane]) == bitboard_low(b.planes[plane])
            && bitboard_high(a.planes[plane]) == bitboard_high(b.planes[plane]);
    }
    return same;
}

// The engine's hook: the legal move count of the position in `slot`, with
// a fault when its side to move has no king.
fn perft_move_count(slot: u32) -> u32 {
    let record = perft_record(slot);
    if bitboard_is_empty(packed_kings(record) & packed_color(record, record.state & 1u)) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return legal_move_count_packed(record);
}

// The move lists' hooks (common/perft_moves.wgsl).
fn perft_write_moves(slot: u32, first: u32) {
    let board = arena_position(slot);
    var output = first;
    var walk = move_walk_begin(board);
    loop {
        let step = move_walk_next(board, &walk);
        if step.from_square == NO_SQUARE || !perft_store_move(output, slot, move_word(step.from_square,
            step.to_square, step.piece, step.promotion)) {
            break;
        }
        output += 1u;
    }
}

fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord {
    return play_move_word(perft_record(parent), move_word);
}

fn perft_pair_leaves(parent: u32, move_word: u32) -> u32 {
    return legal_move_count_packed(play_move_word(perft_record(parent), move_word));
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves_looped(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let leaf = leaf_slot(workgroup, groups, local);
    var value = 0u;
    if leaf != NO_ROOT {
        let record = perft_record(leaf);
        let board = arena_position(leaf);
        var walk = move_walk_begin(board);
        loop {
            let step = move_walk_next(board, &walk);
            if step.from_square == NO_SQUARE {
                break;
            }
            value += legal_move_count_packed(play_move_word(record,
                move_word(step.from_square, step.to_square, step.piece, step.promotion)));
        }
    }
    perft_leaf_result(local, leaf, value);
}
