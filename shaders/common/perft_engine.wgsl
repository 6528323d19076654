// perft_engine.wgsl — what every game's perft kernels share with the
// breadth-first perft engine (src/gpu/perft.rs).
//
// Reads: the arena of `PerftRecord`s (binding 1; each game's kernels say
// `alias PerftRecord = ...;`), the root of each arena slot (binding 2) and
// the dispatch's `parameters` (binding 7); binding 0 is the game's own
// read-only data. Writes: children into the arena and their roots, move
// counts and their prefix sums (`scan_data`, binding 3), 64-bit totals per
// root (`totals`, binding 5, through wide_counter.wgsl) and fault flags
// (`status`, binding 6).
// Brings in the scan kernels (scan.wgsl), the helpers below and two kernels,
// one invocation per arena position, POSITION_WORKGROUP per workgroup:
// `count_moves` writes each position's legal move count to scan_data, and
// `count_leaves` adds it to the position's root's total; both ask the game's
// `perft_move_count(slot)`. A game's perft module adds `expand` (each
// position's children from output_start + its scanned offset - base_offset)
// and, if it has one, `count_leaves_fused` (each move played and the child's
// move count added).

#import scan
#import wide_counter

// Rust twin: PerftParameters in src/gpu/perft.rs.
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

const NO_ROOT: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read_write> arena: array<PerftRecord>;
@group(0) @binding(2) var<storage, read_write> root_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> scan_data: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(7) var<uniform> parameters: PerftParameters;

// The index of an invocation on the engine's two-dimensional grid.
fn grid_index(workgroup: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * groups.x + workgroup.x) * POSITION_WORKGROUP + local;
}

// Where a child goes: its parent's scanned offset, moved to the output range.
fn child_slot(slot: u32) -> u32 {
    return parameters.output_start + scan_data[slot] - parameters.base_offset;
}

// Raises a fault the host turns into an error after the dispatch.
fn perft_fault(flag: u32) {
    atomicOr(&status, flag);
}

var<workgroup> leaf_values: array<u32, POSITION_WORKGROUP>;
var<workgroup> leaf_roots: array<u32, POSITION_WORKGROUP>;

// Adds each invocation's value to its root's total: one atomic per run of
// equal roots in the workgroup (children of one root lie together). Every
// invocation of the workgroup must call it; those without a position pass
// NO_ROOT.
fn accumulate_by_root(local: u32, root: u32, value: u32) {
    leaf_values[local] = value;
    leaf_roots[local] = root;
    workgroupBarrier();
    if local == 0u {
        var run_root = leaf_roots[0];
        var run_sum = 0u;
        for (var index = 0u; index < POSITION_WORKGROUP; index++) {
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

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_moves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    if index < parameters.count {
        let slot = parameters.start + index;
        scan_data[slot] = perft_move_count(slot);
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    var root = NO_ROOT;
    var value = 0u;
    if index < parameters.count {
        let slot = parameters.start + index;
        root = root_of[slot];
        value = perft_move_count(slot);
    }
    accumulate_by_root(local, root, value);
}
