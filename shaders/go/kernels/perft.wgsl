// kernels/perft.wgsl — the Go kernels of the breadth-first perft engine.
//
// Reads: the engine's bindings (common/perft_engine.wgsl: the arena of
// packed positions, their roots, the parameters); binding 0, the game's
// tables, is one unused word for Go. Writes: move counts (`scan_data`),
// children in the arena, 64-bit totals per root, FAULT_ARENA_OVERFLOW for
// a child past the arena, FAULT_INVALID_POSITION for a record of another
// board size. The engine's move lists (common/perft_moves.wgsl) bring the
// kernels that expand a level (`expand_moves`, one invocation per
// position: its legal points, lowest bit first, as move words;
// `write_children`, one per move: the child) and count the last two plies
// one invocation per move (`count_leaves_fused`: the popcount of the
// child's legal points). `count_leaves_looped` counts them one invocation
// per position instead, playing each legal point in turn. The engine module
// brings `count_moves` (stored counts or last-ply totals) and the scan,
// which ask `perft_move_count` here: the popcount of the legal-point bitmap.

#import go_board
#import perft_moves

alias PerftRecord = PackedGoPosition;

@group(0) @binding(0) var<storage, read> go_tables: array<u32>;

// The position in `slot`, with a fault raised when it is of another size.
fn arena_position(slot: u32) -> GoPosition {
    return record_position(perft_record(slot));
}

// The position of `record`, with a fault raised when it is not of this size.
fn record_position(record: PerftRecord) -> GoPosition {
    if record.size != GO_SIZE {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return go_unpack(record);
}

// The words of a record that make the position (perft_engine.wgsl): the
// black and the white stones' words two by two (a board of this size uses
// GO_WORDS of each), then the ko point, the side to move and the size.
const RECORD_CHUNKS: u32 = (GO_WORDS + 1u) / 2u + 1u;
const RECORD_SEED: u32 = 0u;

fn perft_record_chunk(record: PackedGoPosition, index: u32) -> vec4<u32> {
    if index == RECORD_CHUNKS - 1u {
        return vec4<u32>(record.ko, record.to_move, record.size, 0u);
    }
    let word = 2u * index;
    // An odd GO_WORDS leaves a word past the board (array index 11 at most) in the last pair.
    let inside = word + 1u < GO_WORDS;
    let next = vec2<u32>(select(0u, record.black[word + 1u], inside), select(0u, record.white[word + 1u], inside));
    return vec4<u32>(record.black[word], record.white[word], next.x, next.y);
}

fn perft_move_count(slot: u32) -> u32 {
    let position = arena_position(slot);
    return go_count(go_legal(position, position.to_move));
}

// The move lists' hooks (common/perft_moves.wgsl); a move word is the
// point's bit.
fn perft_write_moves(slot: u32, first: u32) {
    let position = arena_position(slot);
    var legal = go_legal(position, position.to_move);
    var output = first;
    while !go_is_empty(legal) {
        let bit = go_first(legal);
        legal = go_and_not(legal, go_from_bit(bit));
        perft_store_move(output, slot, bit);
        output += 1u;
    }
}

fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord {
    var child = go_unpack(perft_record(parent));
    go_play(&child, child.to_move, move_word);
    return go_pack(child);
}

fn perft_pair_leaves(parent: u32, move_word: u32) -> u32 {
    var child = go_unpack(perft_record(parent));
    go_play(&child, child.to_move, move_word);
    return go_count(go_legal(child, child.to_move));
}

fn perft_leaf_children(record: PerftRecord) -> u32 {
    let position = record_position(record);
    let color = position.to_move;
    var legal = go_legal(position, color);
    var count = 0u;
    while !go_is_empty(legal) {
        let bit = go_first(legal);
        legal = go_and_not(legal, go_from_bit(bit));
        var child = position;
        go_play(&child, color, bit);
        count += go_count(go_legal(child, child.to_move));
    }
    return count;
}
