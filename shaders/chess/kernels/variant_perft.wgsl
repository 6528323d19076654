// kernels/variant_perft.wgsl — the chess variants' kernels of the breadth-first perft engine.
//
// Reads: the attack tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl and perft_memory: the arena of packed variant
// positions, their roots, the parameters). Writes: move counts
// (`scan_data`), children in the arena, 64-bit totals per root, fault flags
// (FAULT_INVALID_POSITION for a royal side to move without its king,
// FAULT_ARENA_OVERFLOW for a child past the arena).
// One invocation per arena position, POSITION_WORKGROUP per workgroup on the
// engine's two-dimensional grid: `expand` writes every legal child in the
// order of the variant's walk (variant.wgsl); `count_leaves_fused` plays each
// move and adds the child's legal move count. The engine module brings
// `count_moves` and the scan, which ask `perft_move_count` here. The variant
// is the composed module's constant VARIANT.

#import variant
#import perft_engine

alias PerftRecord = PackedVariantPosition;

// The position in `slot`, with a fault raised when a royal side to move has no king.
fn arena_variant(slot: u32) -> VariantPosition {
    let position = unpack_variant(perft_record(slot));
    if variant_invalid(position) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return position;
}

// The record's words that make the position (the move counters aside):
// the four planes, the state, the pockets, the promoted pieces and the checks.
fn record_word(record: PackedVariantPosition, index: u32) -> u32 {
    switch index {
        case 0u: { return bitboard_low(record.position.planes[0]); }
        case 1u: { return bitboard_high(record.position.planes[0]); }
        case 2u: { return bitboard_low(record.position.planes[1]); }
        case 3u: { return bitboard_high(record.position.planes[1]); }
        case 4u: { return bitboard_low(record.position.planes[2]); }
        case 5u: { return bitboard_high(record.position.planes[2]); }
        case 6u: { return bitboard_low(record.position.planes[3]); }
        case 7u: { return bitboard_high(record.position.planes[3]); }
        case 8u: { return record.position.state; }
        case 9u: { return record.pockets.x; }
        case 10u: { return record.pockets.y; }
        case 11u: { return bitboard_low(record.promoted); }
        case 12u: { return bitboard_high(record.promoted); }
        default: { return record.checks; }
    }
}

const RECORD_WORDS: u32 = 14u;

// The engine's hooks for merging equal positions.
fn perft_record_hash(slot: u32) -> u32 {
    let record = perft_record(slot);
    var hash = (VARIANT + 1u) * 0x9e3779b9u;
    for (var index = 0u; index < RECORD_WORDS; index++) {
        hash = (hash ^ record_word(record, index)) * 0x85ebca6bu;
        hash = hash ^ (hash >> 13u);
    }
    return hash ^ (hash >> 16u);
}

// The 128-bit key of the transposition table (perft_engine.wgsl): every
// word of the position and the variant, so that variants never share an entry.
fn perft_record_key(slot: u32) -> vec4<u32> {
    let record = perft_record(slot);
    var key = perft_key_add(perft_key_begin(), VARIANT);
    for (var index = 0u; index < RECORD_WORDS; index++) {
        key = perft_key_add(key, record_word(record, index));
    }
    return perft_key_finish(key);
}

fn perft_record_equal(first: u32, second: u32) -> bool {
    let a = perft_record(first);
    let b = perft_record(second);
    var same = true;
    for (var index = 0u; index < RECORD_WORDS; index++) {
        same = same && record_word(a, index) == record_word(b, index);
    }
    return same;
}

// The engine's hook: the legal move count of the position in `slot`.
fn perft_move_count(slot: u32) -> u32 {
    return variant_move_count(arena_variant(slot));
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
    let position = arena_variant(slot);
    var output = child_slot(slot);
    var walk = variant_walk_begin(position);
    loop {
        let step = variant_walk_next(position, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        if output >= parameters.arena_capacity {
            perft_fault(FAULT_ARENA_OVERFLOW);
            return;
        }
        perft_store_record(output, pack_variant(variant_make_move(position, step)));
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
        let position = arena_variant(leaf);
        var walk = variant_walk_begin(position);
        loop {
            let step = variant_walk_next(position, &walk);
            if step.from_square == NO_SQUARE {
                break;
            }
            value += variant_move_count(variant_make_move(position, step));
        }
    }
    perft_leaf_result(local, leaf, value);
}
