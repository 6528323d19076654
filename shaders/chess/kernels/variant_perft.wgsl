// kernels/variant_perft.wgsl — the chess variants' kernels of the breadth-first perft engine.
//
// Reads: the attack tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl and perft_memory: the arena of packed variant
// positions, their roots, the parameters). Writes: move counts
// (`scan_data`), children in the arena, 64-bit totals per root, fault flags
// (FAULT_INVALID_POSITION for a royal side to move without its king,
// FAULT_ARENA_OVERFLOW for a child past the arena).
// The engine's move lists (common/perft_moves.wgsl) bring the kernels that
// expand a level (`expand_moves`, one invocation per position: its legal
// moves, in the order of the variant's walk (variant.wgsl), as words;
// `write_children`, one per move: the child) and count the last two plies
// one invocation per move (`count_leaves_fused`: the child's legal moves).
// On a software adapter `count_leaves_looped` counts them instead, one
// invocation per position playing each of its moves in turn. The engine
// module brings `count_moves` and the scan, which ask `perft_move_count`
// here. The variant is the composed module's constant VARIANT.

#import variant
#import perft_moves

alias PerftRecord = PackedVariantPosition;

// The position in `slot`, with a fault raised when a royal side to move has no king.
fn arena_variant(slot: u32) -> VariantPosition {
    return record_variant(perft_record(slot));
}

// The position of `record`, with a fault raised when it is not valid.
fn record_variant(record: PerftRecord) -> VariantPosition {
    let position = unpack_variant(record);
    if variant_invalid(position) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return position;
}

// The words of a record that make the position (perft_engine.wgsl; the
// move counters aside): the four planes, the state, the pockets, the
// promoted pieces and the checks. The seed is the variant's, so that
// variants (and chess, seed 0) never share a table entry.
const RECORD_CHUNKS: u32 = 4u;
const RECORD_SEED: u32 = VARIANT + 1u;

fn perft_record_chunk(record: PackedVariantPosition, index: u32) -> vec4<u32> {
    if index == 2u {
        return vec4<u32>(record.position.state, record.pockets.x, record.pockets.y, record.checks);
    }
    if index == 3u {
        return vec4<u32>(bitboard_low(record.promoted), bitboard_high(record.promoted), 0u, 0u);
    }
    let first = record.position.planes[2u * index];
    let second = record.position.planes[2u * index + 1u];
    return vec4<u32>(bitboard_low(first), bitboard_high(first), bitboard_low(second), bitboard_high(second));
}

// The engine's hook: the legal move count of the position in `slot`.
fn perft_move_count(slot: u32) -> u32 {
    return variant_move_count(arena_variant(slot));
}

// A move word of the move lists (move_word in movegen.wgsl) as the walk's
// step; a drop is a step from its own square.
fn step_of_word(word: u32) -> MoveStep {
    return move_step(word & 63u, (word >> 6u) & 63u, (word >> 12u) & 7u, (word >> 15u) & 7u);
}

// The move lists' hooks (common/perft_moves.wgsl).
fn perft_write_moves(slot: u32, first: u32) {
    let position = arena_variant(slot);
    var output = first;
    var walk = variant_walk_begin(position);
    loop {
        let step = variant_walk_next(position, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        perft_store_move(output, slot, move_word(step.from_square, step.to_square, step.piece, step.promotion));
        output += 1u;
    }
}

fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord {
    return pack_variant(variant_make_move(unpack_variant(perft_record(parent)), step_of_word(move_word)));
}

fn perft_pair_leaves(parent: u32, move_word: u32) -> u32 {
    return variant_move_count(variant_make_move(unpack_variant(perft_record(parent)), step_of_word(move_word)));
}

fn perft_leaf_children(record: PerftRecord) -> u32 {
    let position = record_variant(record);
    var walk = variant_walk_begin(position);
    var count = 0u;
    loop {
        let step = variant_walk_next(position, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        count += variant_move_count(variant_make_move(position, step));
    }
    return count;
}
