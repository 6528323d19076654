// perft_engine.wgsl — what every game's perft kernels share with the
// breadth-first perft engine (src/gpu/perft/).
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
// `count_moves` asks the game's `perft_move_count(slot)` and, as
// `parameters.leaves` says, writes each position's legal move count to
// scan_data (for the scan before `expand`) or adds it to the position's
// root's total (the last ply). One kernel serves both, so drivers compile
// the game's move count once. A game's perft module adds `expand` (each
// position's children from output_start + its scanned offset - base_offset)
// and, if it has one, `count_leaves_fused` (each move played and the child's
// move count added).

#import scan
#import wide_counter

// Rust twin: PerftParameters in src/gpu/perft/mod.rs.
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
    // merge_duplicates: slots in the merge table (a power of two).
    merge_slots: u32,
    // count_moves: 1 to add the counts to the roots' totals, 0 to store them.
    leaves: u32,
}

const NO_ROOT: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read_write> arena: array<PerftRecord>;
@group(0) @binding(2) var<storage, read_write> root_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> scan_data: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(7) var<uniform> parameters: PerftParameters;
// Two words a slot: the low and high halves of its multiplicity.
@group(0) @binding(8) var<storage, read_write> multiplicity: array<atomic<u32>>;
// Arena slot + 1 per entry, 0 for an empty entry.
@group(0) @binding(9) var<storage, read_write> merge_table: array<atomic<u32>>;

// The multiplicity of `slot` as (low, high).
fn slot_multiplicity(slot: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&multiplicity[2u * slot]), atomicLoad(&multiplicity[2u * slot + 1u]));
}

// Tags a child with its parent's root and multiplicity (every game's `expand`).
fn perft_tag_child(child: u32, parent: u32) {
    root_of[child] = root_of[parent];
    let weight = slot_multiplicity(parent);
    atomicStore(&multiplicity[2u * child], weight.x);
    atomicStore(&multiplicity[2u * child + 1u], weight.y);
}

// The 64-bit product of two 32-bit values, as (low, high).
fn multiply_wide(first: u32, second: u32) -> vec2<u32> {
    let a_low = first & 0xffffu;
    let a_high = first >> 16u;
    let b_low = second & 0xffffu;
    let b_high = second >> 16u;
    let low_low = a_low * b_low;
    let middle = a_high * b_low + (low_low >> 16u);
    let middle_low = (middle & 0xffffu) + a_low * b_high;
    let high = a_high * b_high + (middle >> 16u) + (middle_low >> 16u);
    return vec2<u32>((middle_low << 16u) | (low_low & 0xffffu), high);
}

// `count` leaves of the position in `slot` times its multiplicity, as
// (low, high): 64 bits, which every root total below perft(14) fits.
fn perft_weight(slot: u32, count: u32) -> vec2<u32> {
    let weight = slot_multiplicity(slot);
    let low = multiply_wide(count, weight.x);
    return vec2<u32>(low.x, low.y + count * weight.y);
}

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

var<workgroup> leaf_values: array<vec2<u32>, POSITION_WORKGROUP>;
var<workgroup> leaf_roots: array<u32, POSITION_WORKGROUP>;

// `first` + `second`, 64-bit values as (low, high).
fn add_wide(first: vec2<u32>, second: vec2<u32>) -> vec2<u32> {
    let low = first.x + second.x;
    return vec2<u32>(low, first.y + second.y + select(0u, 1u, low < first.x));
}

// Adds a 64-bit value to counter `counter`: the high word as is, plus the
// carry out of the low word (exact however adds interleave).
fn wide_counter_add_wide(counter: u32, value: vec2<u32>) {
    wide_counter_add(counter, value.x);
    if value.y != 0u {
        atomicAdd(&totals[2u * counter + 1u], value.y);
    }
}

// Adds each invocation's weighted value (`perft_weight`) to its root's
// total: one atomic per run of equal roots in the workgroup (children of
// one root lie together). Every invocation of the workgroup must call it;
// those without a position pass NO_ROOT.
fn accumulate_by_root(local: u32, root: u32, value: vec2<u32>) {
    leaf_values[local] = value;
    leaf_roots[local] = root;
    workgroupBarrier();
    if local == 0u {
        var run_root = leaf_roots[0];
        var run_sum = vec2<u32>(0u, 0u);
        for (var index = 0u; index < POSITION_WORKGROUP; index++) {
            if leaf_roots[index] != run_root {
                if run_root != NO_ROOT {
                    wide_counter_add_wide(run_root, run_sum);
                }
                run_root = leaf_roots[index];
                run_sum = vec2<u32>(0u, 0u);
            }
            run_sum = add_wide(run_sum, leaf_values[index]);
        }
        if run_root != NO_ROOT {
            wide_counter_add_wide(run_root, run_sum);
        }
    }
}

// Whether `slot` was merged into an equal position of its level.
fn perft_merged(slot: u32) -> bool {
    return all(slot_multiplicity(slot) == vec2<u32>(0u, 0u));
}

// The arena slot an invocation of a game's `expand` works on, or NO_ROOT
// when it has none: past the dispatch's positions, or merged into an equal
// position (whose count it went to), which has no children.
fn expand_slot(workgroup: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    let index = grid_index(workgroup, groups, local);
    if index >= parameters.count {
        return NO_ROOT;
    }
    let slot = parameters.start + index;
    if perft_merged(slot) {
        return NO_ROOT;
    }
    return slot;
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_moves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    var root = NO_ROOT;
    var value = vec2<u32>(0u, 0u);
    if index < parameters.count {
        let slot = parameters.start + index;
        let merged = perft_merged(slot);
        let count = select(perft_move_count(slot), 0u, merged);
        if parameters.leaves == 0u {
            scan_data[slot] = count;
        } else if !merged {
            root = root_of[slot];
            value = perft_weight(slot, count);
        }
    }
    // The mode is uniform (a uniform buffer's word), so every invocation of
    // a workgroup reaches the barriers inside, or none does.
    if parameters.leaves != 0u {
        accumulate_by_root(local, root, value);
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn merge_duplicates(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = grid_index(workgroup, groups, local);
    if index >= parameters.count {
        return;
    }
    let slot = parameters.start + index;
    let root = root_of[slot];
    let mask = parameters.merge_slots - 1u;
    var entry = (perft_record_hash(slot) ^ (root * 0x9e3779b9u)) & mask;
    // Linear probing; the table has at least twice the level's slots, so it never fills.
    for (var probes = 0u; probes <= mask; probes++) {
        let claimed = atomicCompareExchangeWeak(&merge_table[entry], 0u, slot + 1u);
        if claimed.exchanged {
            return;
        }
        if claimed.old_value == 0u {
            // A spurious failure of the weak exchange: try the same entry again.
            probes -= 1u;
            continue;
        }
        let other = claimed.old_value - 1u;
        if root_of[other] == root && perft_record_equal(other, slot) {
            let weight = slot_multiplicity(slot);
            let old = atomicAdd(&multiplicity[2u * other], weight.x);
            let carry = select(0u, 1u, old + weight.x < old);
            atomicAdd(&multiplicity[2u * other + 1u], weight.y + carry);
            atomicStore(&multiplicity[2u * slot], 0u);
            atomicStore(&multiplicity[2u * slot + 1u], 0u);
            return;
        }
        entry = (entry + 1u) & mask;
    }
}
