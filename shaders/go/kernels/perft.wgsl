// kernels/perft.wgsl — the Go kernels of the breadth-first perft engine.
//
// Reads: the engine's bindings (common/perft_engine.wgsl: the arena of
// packed positions, their roots, the parameters); binding 0, the game's
// tables, is one unused word for Go. Writes: move counts (`scan_data`),
// children in the arena, 64-bit totals per root, FAULT_ARENA_OVERFLOW for
// a child past the arena, FAULT_INVALID_POSITION for a record of another
// board size. One invocation per arena position,
// POSITION_WORKGROUP per workgroup: `expand` writes every legal child
// (lowest bit first) tagged with the root. The engine module brings
// `count_moves` (stored counts or last-ply totals) and the scan, which
// ask `perft_move_count` here: the popcount of the legal-point bitmap. `count_leaves_fused` counts
// the last two plies at once: each legal point played, and the popcount of
// the child's legal points added to the root's total.

#import go_board
#import perft_engine

alias PerftRecord = PackedGoPosition;

@group(0) @binding(0) var<storage, read> go_tables: array<u32>;

// The position in `slot`, with a fault raised when it is of another size.
fn arena_position(slot: u32) -> GoPosition {
    let record = perft_record(slot);
    if record.size != GO_SIZE {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return go_unpack(record);
}

// The engine's hooks for merging equal positions.
fn perft_record_hash(slot: u32) -> u32 {
    let record = perft_record(slot);
    var hash = (record.ko ^ (record.to_move << 16u)) * 0x9e3779b9u;
    for (var word = 0u; word < GO_WORDS; word++) {
        hash = (hash ^ record.black[word]) * 0x85ebca6bu;
        hash = (hash ^ (hash >> 13u) ^ record.white[word]) * 0xc2b2ae35u;
    }
    return hash ^ (hash >> 16u);
}

// The 128-bit key of the transposition table (perft_engine.wgsl), from the
// same words.
fn perft_record_key(slot: u32) -> vec4<u32> {
    let record = perft_record(slot);
    var key = perft_key_add(perft_key_begin(), record.ko ^ (record.to_move << 16u));
    for (var word = 0u; word < GO_WORDS; word++) {
        key = perft_key_add(key, record.black[word]);
        key = perft_key_add(key, record.white[word]);
    }
    return perft_key_finish(key);
}

fn perft_record_equal(first: u32, second: u32) -> bool {
    let a = perft_record(first);
    let b = perft_record(second);
    var same = a.ko == b.ko && a.to_move == b.to_move && a.size == b.size;
    for (var word = 0u; word < 12u; word++) {
        same = same && a.black[word] == b.black[word] && a.white[word] == b.white[word];
    }
    return same;
}

fn perft_move_count(slot: u32) -> u32 {
    let position = arena_position(slot);
    return go_count(go_legal(position, position.to_move));
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn expand(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let slot = expand_slot(workgroup, groups, local);
    if slot == NO_ROOT {
        return;
    }
    let position = arena_position(slot);
    let color = position.to_move;
    var legal = go_legal(position, color);
    var output = child_slot(slot);
    while !go_is_empty(legal) {
        let bit = go_first(legal);
        legal = go_and_not(legal, go_from_bit(bit));
        if output >= parameters.arena_capacity {
            perft_fault(FAULT_ARENA_OVERFLOW);
            return;
        }
        var child = position;
        go_play(&child, color, bit);
        perft_store_record(output, go_pack(child));
        perft_tag_child(output, slot);
        output += 1u;
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves_fused(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let leaf = leaf_slot(workgroup, groups, local);
    var value = 0u;
    if leaf != NO_ROOT {
        let slot = leaf;
        let position = arena_position(slot);
        let color = position.to_move;
        var legal = go_legal(position, color);
        while !go_is_empty(legal) {
            let bit = go_first(legal);
            legal = go_and_not(legal, go_from_bit(bit));
            var child = position;
            go_play(&child, color, bit);
            value += go_count(go_legal(child, child.to_move));
        }
    }
    perft_leaf_result(local, leaf, value);
}
