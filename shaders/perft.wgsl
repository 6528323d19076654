// perft.wgsl — breadth-first perft on the GPU, one level at a time.
//
// Reads: the attack tables (binding 0), the arena of positions (binding 1)
// and their root indices (binding 2), `parameters` (binding 7).
// Writes: move counts and their prefix sums (`scan_data`, binding 3), child
// positions into the arena (bindings 1 and 2), 64-bit node totals per root
// (`totals`, binding 5, via wide_counter.wgsl), fault flags (`status`, binding 6).
// Per level the host runs `count_moves` (one invocation per position),
// `scan_blocks` and `add_block_sums` (a three-phase exclusive prefix sum, one
// invocation per count, 256 per workgroup), then `expand` (one invocation per
// position writes all its children, each with its root's index). The last
// ply is counted, not played: `count_leaves` adds each position's legal move
// count to its root's total; `count_leaves_fused` does the last two plies at
// once, playing each move and adding the child's move count, so the deepest
// level is never stored. Position kernels run 64 invocations per workgroup on
// a two-dimensional grid (index = (y * groups_x + x) * 64 + local).

#import movegen
#import wide_counter

// Rust twin: GpuPerftParameters in src/gpu/layout.rs.
struct PerftParameters {
    // First arena slot of the positions to work on, and how many.
    start: u32,
    count: u32,
    // expand: the first arena slot for the children, and the prefix-sum value
    // that maps to it (children of a chunk go to output_start + offset - base_offset).
    output_start: u32,
    base_offset: u32,
    // scan_blocks, add_block_sums: where the counts to scan start in
    // scan_data, and where the per-block sums go.
    scan_start: u32,
    scan_sums: u32,
    reserved_0: u32,
    reserved_1: u32,
}

const FAULT_NO_KING: u32 = 1u;
const FAULT_ARENA_OVERFLOW: u32 = 2u;
const SCAN_BLOCK: u32 = 256u;
const NO_ROOT: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read_write> arena: array<Position>;
@group(0) @binding(2) var<storage, read_write> root_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> scan_data: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(7) var<uniform> parameters: PerftParameters;

fn grid_index(workgroup: vec3<u32>, groups: vec3<u32>, local: u32, size: u32) -> u32 {
    return (workgroup.y * groups.x + workgroup.x) * size + local;
}

// Writes each position's legal move count into scan_data at its arena slot.
@compute @workgroup_size(64)
fn count_moves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local, 64u);
    if index >= parameters.count {
        return;
    }
    let slot = parameters.start + index;
    let board = unpack_position(arena[slot]);
    if bitboard_is_empty(board.kings & board_color(board, board.side_to_move)) {
        atomicOr(&status, FAULT_NO_KING);
    }
    scan_data[slot] = legal_move_count(board);
}

var<workgroup> scan_shared: array<u32, 256>;

// Exclusive prefix sum of each block of 256 values in place; each block's
// total goes to scan_sums + block.
@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let block = workgroup.y * groups.x + workgroup.x;
    let index = block * SCAN_BLOCK + local;
    let in_range = index < parameters.count;
    var value = 0u;
    if in_range {
        value = scan_data[parameters.scan_start + index];
    }
    scan_shared[local] = value;
    workgroupBarrier();
    // Hillis-Steele: after the step of width w each entry sums the 2w before it.
    for (var step = 1u; step < SCAN_BLOCK; step = step << 1u) {
        var addend = 0u;
        if local >= step {
            addend = scan_shared[local - step];
        }
        workgroupBarrier();
        scan_shared[local] += addend;
        workgroupBarrier();
    }
    if in_range {
        scan_data[parameters.scan_start + index] = scan_shared[local] - value;
    }
    let blocks = (parameters.count + SCAN_BLOCK - 1u) / SCAN_BLOCK;
    if local == SCAN_BLOCK - 1u && block < blocks {
        scan_data[parameters.scan_sums + block] = scan_shared[local];
    }
}

// Adds each block's scanned offset to its values, completing the prefix sum.
@compute @workgroup_size(256)
fn add_block_sums(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let block = workgroup.y * groups.x + workgroup.x;
    let index = block * SCAN_BLOCK + local;
    if index < parameters.count {
        scan_data[parameters.scan_start + index] += scan_data[parameters.scan_sums + block];
    }
}

// Writes every child of each position, in the order legal_move_count counts them.
@compute @workgroup_size(64)
fn expand(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local, 64u);
    if index >= parameters.count {
        return;
    }
    let slot = parameters.start + index;
    let board = unpack_position(arena[slot]);
    let root = root_of[slot];
    let context = make_context(board);
    if context.king == NO_SQUARE {
        atomicOr(&status, FAULT_NO_KING);
        return;
    }
    var output = parameters.output_start + scan_data[slot] - parameters.base_offset;
    let capacity = arrayLength(&arena);
    var pieces = context.ours;
    while !bitboard_is_empty(pieces) {
        let from_square = bitboard_first(pieces);
        pieces = bitboard_without_first(pieces);
        let piece = board_piece_on(board, from_square);
        var destinations = legal_destinations(board, context, piece, from_square);
        while !bitboard_is_empty(destinations) {
            let to_square = bitboard_first(destinations);
            destinations = bitboard_without_first(destinations);
            for (var k = 0u; k < moves_per_destination(piece, to_square); k++) {
                if output >= capacity {
                    atomicOr(&status, FAULT_ARENA_OVERFLOW);
                    return;
                }
                let child = board_make_move(board, from_square, to_square, piece, promotion_of(piece, to_square, k));
                arena[output] = pack_board(child);
                root_of[output] = root;
                output += 1u;
            }
        }
    }
}

var<workgroup> leaf_values: array<u32, 64>;
var<workgroup> leaf_roots: array<u32, 64>;

// Adds each invocation's value to its root's total: one atomic per run of
// equal roots in the workgroup (children of one root lie together).
fn accumulate_by_root(local: u32, root: u32, value: u32) {
    leaf_values[local] = value;
    leaf_roots[local] = root;
    workgroupBarrier();
    if local == 0u {
        var run_root = leaf_roots[0];
        var run_sum = 0u;
        for (var index = 0u; index < 64u; index++) {
            if leaf_roots[index] != run_root {
                if run_root != NO_ROOT {
                    wide_counter_add(run_root, run_sum);
                }
                run_root = leaf_roots[index];
                run_sum = 0u;
            }
            run_sum += leaf_values[index];
        }
        if run_root != NO_ROOT {
            wide_counter_add(run_root, run_sum);
        }
    }
}

// The last ply: each position's legal move count.
@compute @workgroup_size(64)
fn count_leaves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local, 64u);
    var root = NO_ROOT;
    var value = 0u;
    if index < parameters.count {
        let slot = parameters.start + index;
        let board = unpack_position(arena[slot]);
        if bitboard_is_empty(board.kings & board_color(board, board.side_to_move)) {
            atomicOr(&status, FAULT_NO_KING);
        }
        root = root_of[slot];
        value = legal_move_count(board);
    }
    accumulate_by_root(local, root, value);
}

// The last two plies: play each move and count the child's moves.
@compute @workgroup_size(64)
fn count_leaves_fused(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local, 64u);
    var root = NO_ROOT;
    var value = 0u;
    if index < parameters.count {
        let slot = parameters.start + index;
        let board = unpack_position(arena[slot]);
        root = root_of[slot];
        let context = make_context(board);
        if context.king == NO_SQUARE {
            atomicOr(&status, FAULT_NO_KING);
        } else {
            var pieces = context.ours;
            while !bitboard_is_empty(pieces) {
                let from_square = bitboard_first(pieces);
                pieces = bitboard_without_first(pieces);
                let piece = board_piece_on(board, from_square);
                var destinations = legal_destinations(board, context, piece, from_square);
                while !bitboard_is_empty(destinations) {
                    let to_square = bitboard_first(destinations);
                    destinations = bitboard_without_first(destinations);
                    for (var k = 0u; k < moves_per_destination(piece, to_square); k++) {
                        let child = board_make_move(board, from_square, to_square, piece, promotion_of(piece, to_square, k));
                        value += legal_move_count(child);
                    }
                }
            }
        }
    }
    accumulate_by_root(local, root, value);
}
