// perft_moves.wgsl — the perft engine's move lists: a level's children as
// (parent slot, move) pairs before any of them is a position.
//
// Reads: the arena (perft_memory) through the game's hooks, the pairs, and
// the parents' roots, multiplicities and states (perft_engine). Writes:
// pairs, children and their tags, the parents' counts or their roots'
// totals, fault flags. A pair lives in the words of the arena slot its
// child would take (the children's range after the level, which the engine
// keeps free): the parent in the slot's `root_of` word, where the child's
// tag goes later, and the move in its `scan_data` word, where the child's
// move count goes later; so a move list needs no memory of its own, and no
// atomic word is touched per move.
//
// A game whose perft module imports this one defines four hooks:
//   fn perft_write_moves(slot: u32, first: u32)
//       every legal move of the position in `slot`, through
//       perft_store_move(first + k, slot, move_word) for the k-th;
//   fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord
//       the position after `move_word` from the one in `parent`;
//   fn perft_pair_leaves(parent: u32, move_word: u32) -> u32
//       the legal moves of that position;
//   fn perft_leaf_children(record: PerftRecord) -> u32
//       the legal moves of every child of the position `record`, added
//       up in one loop (one call site of the game's count, which a driver
//       inlines there: a software adapter compiles it at every cold start);
// and gets four kernels, one invocation each, POSITION_WORKGROUP per
// workgroup on the engine's grid: `expand_moves` (per live slot of a
// level: its moves from its scanned offset), `write_children` (per pair:
// the child's record in the pair's slot, tagged), `count_leaves_fused`
// (per pair: the child's legal moves, to the parent's subtree count with
// tables or, times the parent's multiplicity, to its root's total) and
// `count_leaves_looped` (per slot of the last stored level: its
// perft_leaf_children, as perft_leaf_result says; or, where no level is
// merged, per pair of the level above it: the child's, to its parent as
// `count_leaves_fused` adds, which spares writing that level's
// positions and reading them back). Each of the first three
// holds one of move generation, making a move and counting, never two at
// once, and lanes of a SIMD group do equal work: one move each.

#import perft_engine

// Stores the pair of move `move_word` of `parent` for child slot `child`;
// false, with a fault, when the child would fall past the arena.
fn perft_store_move(child: u32, parent: u32, move_word: u32) -> bool {
    if child >= parameters.arena_capacity {
        perft_fault(FAULT_ARENA_OVERFLOW);
        return false;
    }
    root_of[child] = parent;
    scan_data[child] = move_word;
    return true;
}

// The pair stored for `child`: (parent slot, move).
fn perft_pair(child: u32) -> vec2<u32> {
    return vec2<u32>(root_of[child], scan_data[child]);
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn expand_moves(invocation: GridInvocation) {
    let slot = expand_slot(invocation);
    if slot != NO_ROOT {
        perft_write_moves(slot, child_slot(slot));
    }
}

// One invocation a pair of `parameters.start..start + count`: the child's
// record replaces the pair (read first) in its slot, tagged with its parent.
@compute @workgroup_size(POSITION_WORKGROUP)
fn write_children(invocation: GridInvocation) {
    let child = dispatch_slot(invocation);
    if child == NO_ROOT {
        return;
    }
    let pair = perft_pair(child);
    perft_store_record(child, perft_child_record(pair.x, pair.y));
    perft_tag_child(child, pair.x);
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves_fused(invocation: GridInvocation) {
    let child = dispatch_slot(invocation);
    var parent = NO_ROOT;
    var count = 0u;
    if child != NO_ROOT {
        let pair = perft_pair(child);
        parent = pair.x;
        count = perft_pair_leaves(pair.x, pair.y);
    }
    accumulate_runs(invocation.local, RUN_PARENT_LEAVES, parent, vec2<u32>(count, 0u));
}

// `parameters.leaves` is LEAVES_OF_PAIRS when the dispatch's slots hold
// pairs; the game's count has one call site either way.
@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves_looped(invocation: GridInvocation) {
    let pairs = parameters.leaves == LEAVES_OF_PAIRS;
    var leaf = NO_ROOT;
    var parent = NO_ROOT;
    var record: PerftRecord;
    if pairs {
        let child = dispatch_slot(invocation);
        if child != NO_ROOT {
            let pair = perft_pair(child);
            parent = pair.x;
            record = perft_child_record(pair.x, pair.y);
        }
    } else {
        leaf = leaf_slot(invocation);
        if leaf != NO_ROOT {
            record = perft_record(leaf);
        }
    }
    var count = 0u;
    if leaf != NO_ROOT || parent != NO_ROOT {
        count = perft_leaf_children(record);
    }
    if pairs {
        accumulate_runs(invocation.local, RUN_PARENT_LEAVES, parent, vec2<u32>(count, 0u));
    } else {
        perft_leaf_result(invocation.local, leaf, count);
    }
}
