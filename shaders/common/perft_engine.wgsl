// perft_engine.wgsl — what every game's perft kernels share with the
// breadth-first perft engine (src/gpu/perft/).
//
// Reads: the arena of `PerftRecord`s (perft_memory: `perft_record(slot)`;
// each game's kernels say `alias PerftRecord = ...;`), the root of each
// arena slot (binding 2) and
// the dispatch's `parameters` (binding 7); binding 0 is the game's own
// read-only data. Writes: children into the arena and their roots, move
// counts and their prefix sums (`scan_data`, binding 3), 64-bit totals per
// root (`totals`, binding 5, pairs of 32-bit atomics) and fault flags
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
// A run with tables (`parameters.tables`) keeps a 64-bit subtree count per
// slot in `multiplicity` instead of totals per root, and in `root_of` each
// slot's parent and state (counted here, taken from the transposition
// table, or an alias of an equal slot of its level); the table lives in
// shards reached through perft_memory. `dedupe_level` probes and merges a
// level just written and `reduce_level` adds a counted level's subtrees to
// their parents' and stores them, one invocation a slot.

#import scan
#import perft_memory

// Rust twin: PerftParameters in src/gpu/perft/mod.rs.
// `parameters.leaves` of a count_leaves_looped dispatch over pairs.
const LEAVES_OF_PAIRS: u32 = 2u;

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
    // count_moves: 1 to add the counts to the roots' totals (or, with
    // tables, to store them as the slots' subtree counts), 0 to store them for the scan.
    // count_leaves_looped: LEAVES_OF_PAIRS when its slots hold pairs.
    leaves: u32,
    // 1 when the run keeps subtree counts per slot and a transposition table.
    tables: u32,
    // dedupe_level, reduce_level: plies still to count below each slot of the level.
    remaining: u32,
    // Table shards in use (at most the layout's bindings), and buckets of
    // each shard's shallow and deep regions (see table_slot).
    table_shards: u32,
    shallow_buckets: u32,
    deep_buckets: u32,
    // The bits of a hash that pick a table shard and bucket or a merge entry:
    // all of them but in tests, which keep a few so that collisions happen constantly.
    index_mask: u32,
    // With tables, a subtree count at or past 2^count_bits faults as one
    // past 2^64 would: 64 in real use, less in tests of the 128-bit path.
    count_bits: u32,
    // With tables: where the slots' states start in `root_of` (the arena's
    // capacity), and, with a table inside the merge entries' binding, where
    // it starts there.
    state_base: u32,
    table_base: u32,
    // Slots of the arena: a child at or past it is an overflow.
    arena_capacity: u32,
    // Leaf kernels: 1 when they take their slots from the list of live
    // slots `gather_live` wrote (positions start..start + count of it), whose
    // length is merge_table[list_total].
    leaf_list: u32,
    list_total: u32,
}

const NO_ROOT: u32 = 0xffffffffu;

@group(0) @binding(2) var<storage, read_write> root_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> scan_data: array<u32>;
@group(0) @binding(5) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(7) var<uniform> parameters: PerftParameters;
// Two words a slot: the low and high halves of its multiplicity.
@group(0) @binding(8) var<storage, read_write> multiplicity: array<atomic<u32>>;
// Arena slot + 1 per entry, 0 for an empty entry.
@group(0) @binding(9) var<storage, read_write> merge_table: array<atomic<u32>>;
// With tables, `root_of` holds each slot's parent, then from
// `parameters.state_base` on each slot's state: SLOT_LIVE, SLOT_RESOLVED or
// the slot this one is an alias of. The transposition table's words are in
// perft_memory's shards (see "Transposition tables" below). Atomic, since
// stores of one dispatch race each other (probes run in other dispatches);
// a race that mixes an entry's words fails its seal.

// slot_state: the slot is counted here (its children expanded or its leaves counted).
const SLOT_LIVE: u32 = 0xffffffffu;
// slot_state: the slot's count came from the transposition table.
const SLOT_RESOLVED: u32 = 0xfffffffeu;

// The multiplicity of `slot` as (low, high).
fn slot_multiplicity(slot: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&multiplicity[2u * slot]), atomicLoad(&multiplicity[2u * slot + 1u]));
}

// Tags a child with its parent's root and multiplicity (every game's
// `expand`), or with tables with its parent.
fn perft_tag_child(child: u32, parent: u32) {
    if parameters.tables != 0u {
        root_of[child] = parent;
        return;
    }
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
fn grid_index(invocation: GridInvocation) -> u32 {
    return grid_block(invocation) * POSITION_WORKGROUP + invocation.local;
}

// The arena slot of an invocation, `parameters.start` + its grid index, or
// NO_ROOT past the dispatch's `parameters.count` slots.
fn dispatch_slot(invocation: GridInvocation) -> u32 {
    let index = grid_index(invocation);
    return select(NO_ROOT, parameters.start + index, index < parameters.count);
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
var<workgroup> leaf_targets: array<u32, POSITION_WORKGROUP>;

// Adds a 64-bit value to a counter: with `subtrees`, the subtree count of
// slot `index` (its multiplicity words), otherwise root total `index`. The
// high word takes the value's high word plus the carry out of the low word
// (exact however adds interleave); a fault if the counter passes 2^64 or,
// for a subtree count, 2^count_bits (the add that carries it past sees it).
fn add_to_counter(subtrees: bool, index: u32, value: vec2<u32>) {
    var carry = 0u;
    var after = vec2<u32>(0u, 0u);
    if value.x != 0u {
        var old = 0u;
        if subtrees {
            old = atomicAdd(&multiplicity[2u * index], value.x);
        } else {
            old = atomicAdd(&totals[2u * index], value.x);
        }
        after.x = old + value.x;
        carry = select(0u, 1u, after.x < old);
    }
    if value.y == 0xffffffffu && carry != 0u {
        perft_fault(FAULT_COUNT_OVERFLOW);
    }
    let high = value.y + carry;
    if high != 0u {
        var old = 0u;
        if subtrees {
            old = atomicAdd(&multiplicity[2u * index + 1u], high);
        } else {
            old = atomicAdd(&totals[2u * index + 1u], high);
        }
        after.y = old + high;
        if after.y < old {
            perft_fault(FAULT_COUNT_OVERFLOW);
        }
    }
    if subtrees && count_past_limit(after) {
        perft_fault(FAULT_COUNT_OVERFLOW);
    }
}

// What a run of equal targets in accumulate_runs adds to: root totals, the
// subtree counts of slots, or the leaves of a parent's run of pairs.
const RUN_ROOT_TOTALS: u32 = 0u;
const RUN_SUBTREES: u32 = 1u;
const RUN_PARENT_LEAVES: u32 = 2u;

// Adds the sum of a run of equal targets (see accumulate_runs). A parent's
// pairs' leaves go with tables to its subtree count, and to totals[0] for
// progress; otherwise, times its multiplicity, to its root's total (at most
// POSITION_WORKGROUP moves of MAX_LEGAL_MOVES leaves each, or of its
// square below a looped leaf's pairs: within the low word).
fn add_run(kind: u32, counter: u32, sum: vec2<u32>) {
    if kind != RUN_PARENT_LEAVES {
        add_to_counter(kind == RUN_SUBTREES, counter, sum);
    } else if parameters.tables != 0u {
        let leaves = vec2<u32>(sum.x, 0u);
        add_to_counter(true, counter, leaves);
        add_to_counter(false, 0u, leaves);
    } else {
        add_to_counter(false, root_of[counter], perft_weight(counter, sum.x));
    }
}

// Adds each invocation's value to its target (see add_run): one add per
// run of equal targets in the workgroup (children of one root, or of one
// parent, lie together), so a parent's multiplicity is read once a run.
// Every invocation of the workgroup must call it with the same `kind`;
// those without a value pass NO_ROOT.
fn accumulate_runs(local: u32, kind: u32, counter: u32, value: vec2<u32>) {
    leaf_values[local] = value;
    leaf_targets[local] = counter;
    workgroupBarrier();
    if local == 0u {
        var run_target = leaf_targets[0];
        var run_sum = vec2<u32>(0u, 0u);
        for (var index = 0u; index < POSITION_WORKGROUP; index++) {
            if leaf_targets[index] != run_target {
                if run_target != NO_ROOT {
                    add_run(kind, run_target, run_sum);
                }
                run_target = leaf_targets[index];
                run_sum = vec2<u32>(0u, 0u);
            }
            if kind == RUN_PARENT_LEAVES {
                // Within the low word (see add_run): no carry to check.
                run_sum.x += leaf_values[index].x;
            } else {
                run_sum = add_wide_checked(run_sum, leaf_values[index]);
            }
        }
        if run_target != NO_ROOT {
            add_run(kind, run_target, run_sum);
        }
    }
}

// Adds each invocation's weighted value (`perft_weight`) to its root's total.
fn accumulate_by_root(local: u32, root: u32, value: vec2<u32>) {
    accumulate_runs(local, RUN_ROOT_TOTALS, root, value);
}

// Whether `slot` was merged into an equal position of its level.
fn perft_merged(slot: u32) -> bool {
    return all(slot_multiplicity(slot) == vec2<u32>(0u, 0u));
}

// The state of `slot` in a run with tables.
fn slot_state(slot: u32) -> u32 {
    return root_of[parameters.state_base + slot];
}

fn set_slot_state(slot: u32, state: u32) {
    root_of[parameters.state_base + slot] = state;
}

// Whether the position in `slot` is counted here: not merged into an equal
// position and, with tables, not taken from the table either.
fn perft_live(slot: u32) -> bool {
    if parameters.tables != 0u {
        return slot_state(slot) == SLOT_LIVE;
    }
    return !perft_merged(slot);
}

// A leaf kernel's result for `slot` (NO_ROOT for an invocation without
// one): `count` leaves below it. With tables it is the slot's subtree count;
// otherwise it goes, times the slot's multiplicity, to its root's total.
// Every invocation of the workgroup must call it.
// With tables, totals[0] gathers the leaves counted, for progress only.
fn perft_leaf_result(local: u32, slot: u32, count: u32) {
    var root = NO_ROOT;
    var weighted = vec2<u32>(0u, 0u);
    if slot != NO_ROOT {
        if parameters.tables != 0u {
            set_subtree_count(slot, vec2<u32>(count, 0u));
            if count_past_limit(vec2<u32>(count, 0u)) {
                perft_fault(FAULT_COUNT_OVERFLOW);
            }
            root = 0u;
            weighted = vec2<u32>(count, 0u);
        } else {
            root = root_of[slot];
            weighted = perft_weight(slot, count);
        }
    }
    accumulate_by_root(local, root, weighted);
}

// The arena slot an invocation of a game's `expand` works on, or NO_ROOT
// when it has none: past the dispatch's positions, or merged into an equal
// position (whose count it went to), which has no children.
fn expand_slot(invocation: GridInvocation) -> u32 {
    let slot = dispatch_slot(invocation);
    if slot == NO_ROOT || !perft_live(slot) {
        return NO_ROOT;
    }
    return slot;
}

// The slot a leaf kernel's invocation counts, or NO_ROOT: past the
// dispatch, a slot not counted here, or past the end of the live list.
fn leaf_slot(invocation: GridInvocation) -> u32 {
    // A place in the live list, or the slot itself.
    let place = dispatch_slot(invocation);
    if place == NO_ROOT {
        return NO_ROOT;
    }
    if parameters.leaf_list != 0u {
        if place >= atomicLoad(&merge_table[parameters.list_total]) {
            return NO_ROOT;
        }
        return atomicLoad(&merge_table[place]);
    }
    return select(NO_ROOT, place, perft_live(place));
}

// Where a workgroup of gather_live counts its live slots, and where its
// run of the list starts.
var<workgroup> gathered: atomic<u32>;
var<workgroup> gathered_base: u32;

// One invocation a slot of a leaf level: each live slot appends itself to
// the live list, the first words of `merge_table` (the level's merge
// entries are spent by then), whose length is the word at
// `parameters.list_total` (cleared before). A workgroup takes its run of
// the list with one atomic add. The order within the list is no matter: a
// leaf's result goes to its own slot or its root's total. The leaf kernels
// then run on live positions only: on a SIMD machine a lane whose slot was
// merged or taken from the table would still cost what its neighbours'
// move generation costs.
@compute @workgroup_size(POSITION_WORKGROUP)
fn gather_live(invocation: GridInvocation) {
    let local = invocation.local;
    if local == 0u {
        atomicStore(&gathered, 0u);
    }
    workgroupBarrier();
    let slot = dispatch_slot(invocation);
    var place = NO_ROOT;
    if slot != NO_ROOT && perft_live(slot) {
        place = atomicAdd(&gathered, 1u);
    }
    workgroupBarrier();
    if local == 0u {
        gathered_base = atomicAdd(&merge_table[parameters.list_total], atomicLoad(&gathered));
    }
    let base = workgroupUniformLoad(&gathered_base);
    if place != NO_ROOT {
        atomicStore(&merge_table[base + place], slot);
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_moves(invocation: GridInvocation) {
    // The mode is uniform (a uniform buffer's word), so every invocation of
    // a workgroup reaches the barriers inside, or none does. The game's move
    // count is called once for both modes: a driver inlines every call, and
    // the count is the largest code of the module to compile.
    var slot = NO_ROOT;
    if parameters.leaves != 0u {
        slot = leaf_slot(invocation);
    } else {
        slot = expand_slot(invocation);
    }
    var count = 0u;
    if slot != NO_ROOT {
        count = perft_move_count(slot);
    }
    if parameters.leaves != 0u {
        perft_leaf_result(invocation.local, slot, count);
        return;
    }
    let written = dispatch_slot(invocation);
    if written != NO_ROOT {
        scan_data[written] = count;
    }
}

// Finds in `merge_table` (cleared before the level) a slot equal to `slot`
// (of root `root`; NO_ROOT: of any root) and returns it, or claims an entry
// for `slot` and returns NO_ROOT. Linear probing from `hash`; the table has
// at least twice the level's slots, so it never fills.
fn merge_or_claim(slot: u32, hash: u32, root: u32) -> u32 {
    let mask = parameters.merge_slots - 1u;
    var entry = hash & mask;
    for (var probes = 0u; probes <= mask; probes++) {
        let claimed = atomicCompareExchangeWeak(&merge_table[entry], 0u, slot + 1u);
        if claimed.exchanged {
            return NO_ROOT;
        }
        if claimed.old_value == 0u {
            // A spurious failure of the weak exchange: try the same entry again.
            probes -= 1u;
            continue;
        }
        let other = claimed.old_value - 1u;
        if (root == NO_ROOT || root_of[other] == root) && perft_record_equal(other, slot) {
            return other;
        }
        entry = (entry + 1u) & mask;
    }
    return NO_ROOT;
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn merge_duplicates(invocation: GridInvocation) {
    let slot = dispatch_slot(invocation);
    if slot == NO_ROOT {
        return;
    }
    let root = root_of[slot];
    let other = merge_or_claim(slot, perft_record_hash(slot) ^ (root * 0x9e3779b9u), root);
    if other != NO_ROOT {
        let weight = slot_multiplicity(slot);
        let old = atomicAdd(&multiplicity[2u * other], weight.x);
        let carry = select(0u, 1u, old + weight.x < old);
        atomicAdd(&multiplicity[2u * other + 1u], weight.y + carry);
        atomicStore(&multiplicity[2u * slot], 0u);
        atomicStore(&multiplicity[2u * slot + 1u], 0u);
    }
}

// ---- A position's words: merging and the table's keys ----
//
// A game's perft module says which words of its record make the position
// (move counters aside, which perft does not depend on), four at a time:
//   const RECORD_CHUNKS: u32 (how many groups of four words),
//   const RECORD_SEED: u32 (a word that keeps games and variants apart in
//   a shared table), and
//   fn perft_record_chunk(record: PerftRecord, index: u32) -> vec4<u32>
//   (unused words zero);
// merging equal positions and the transposition table's keys read those
// words only, so two records are one position exactly when they agree.
// Four words a step keep the loops short (a few steps, as a record's
// planes are) and the comparisons vector-wide.

// A 32-bit hash of the position in `slot`, where merge_duplicates probes.
fn perft_record_hash(slot: u32) -> u32 {
    let record = perft_record(slot);
    var hash = (RECORD_SEED + 1u) * 0x9e3779b9u;
    for (var index = 0u; index < RECORD_CHUNKS; index++) {
        let words = perft_record_chunk(record, index);
        hash = (hash ^ words.x) * 0x85ebca6bu;
        hash = (hash ^ (hash >> 13u) ^ words.y) * 0xc2b2ae35u;
        hash = (hash ^ (hash >> 16u) ^ words.z) * 0x85ebca6bu;
        hash = (hash ^ (hash >> 13u) ^ words.w) * 0xc2b2ae35u;
    }
    return hash ^ (hash >> 16u);
}

// The 128-bit key of the position in `slot` (see "Transposition tables").
fn perft_record_key(slot: u32) -> vec4<u32> {
    let record = perft_record(slot);
    var key = perft_key_add(perft_key_begin(), RECORD_SEED);
    for (var index = 0u; index < RECORD_CHUNKS; index++) {
        let words = perft_record_chunk(record, index);
        key = perft_key_add(key, words.x);
        key = perft_key_add(key, words.y);
        key = perft_key_add(key, words.z);
        key = perft_key_add(key, words.w);
    }
    return perft_key_finish(key);
}

// Whether the slots hold the same position.
fn perft_record_equal(first: u32, second: u32) -> bool {
    let a = perft_record(first);
    let b = perft_record(second);
    var same = true;
    for (var index = 0u; index < RECORD_CHUNKS; index++) {
        same = same && all(perft_record_chunk(a, index) == perft_record_chunk(b, index));
    }
    return same;
}

// ---- Transposition tables (runs with `parameters.tables`) ----
//
// A position's key is 128 bits: four 32-bit lanes, each a hash of the
// record's words with its own seed and multipliers (perft_record_key feeds
// them to perft_key_add). Lane x picks the
// shard and lane y the bucket (both mixed with the remaining depth); lanes z
// and w, 64 bits, are the fragment an entry keeps to tell its position from
// the others of its bucket. Each shard holds `shallow_buckets` buckets of
// compact entries for subtrees of 1 to SHALLOW_MAX_REMAINING plies, then
// `deep_buckets` buckets of wide entries for the deeper ones. A bucket holds
// two entries: the first keeps the deeper subtree (replaced only by a
// deeper one), the second takes every other store.
//
// A compact entry is three words: the fragment's two words, each sealed
// (XORed) with a mix of the data word, then the data word: the count in 30
// bits and the remaining depth in the top two. A wide entry is four: the
// sealed fragment, the count's low word, and its high 24 bits with the depth
// in the top eight. An empty entry (all zero) has depth 0, which no probe
// asks for. Two writers of one entry in one dispatch can leave its words
// mixed; the seal then fails (but with chance 2^-64) and the entry reads as
// a miss. Counts too wide for their entry (2^30 compact, 2^56 wide) are not
// stored.

const SHALLOW_ENTRY_WORDS: u32 = 3u;
const SHALLOW_BUCKET_WORDS: u32 = 6u;
const SHALLOW_COUNT_BITS: u32 = 30u;
const DEEP_ENTRY_WORDS: u32 = 4u;
const DEEP_BUCKET_WORDS: u32 = 8u;
const DEEP_COUNT_HIGH_BITS: u32 = 24u;

// One murmur-style finishing mix of a 32-bit word.
fn perft_mix(value: u32) -> u32 {
    var mixed = value ^ (value >> 16u);
    mixed *= 0x85ebca6bu;
    mixed ^= mixed >> 13u;
    mixed *= 0xc2b2ae35u;
    return mixed ^ (mixed >> 16u);
}

// The key before any word is added.
fn perft_key_begin() -> vec4<u32> {
    return vec4<u32>(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u);
}

// Adds one word of a record to all four lanes, each with its own multipliers.
fn perft_key_add(key: vec4<u32>, word: u32) -> vec4<u32> {
    var scrambled = vec4<u32>(word) * vec4<u32>(0xcc9e2d51u, 0x1b873593u, 0x85ebca77u, 0xc2b2ae3du);
    scrambled = (scrambled << vec4<u32>(15u, 13u, 17u, 11u)) | (scrambled >> vec4<u32>(17u, 19u, 15u, 21u));
    scrambled *= vec4<u32>(0x1b873593u, 0x27d4eb2fu, 0x165667b1u, 0x9e3779b1u);
    var lanes = key ^ scrambled;
    lanes = (lanes << vec4<u32>(13u, 15u, 11u, 17u)) | (lanes >> vec4<u32>(19u, 17u, 21u, 15u));
    return lanes * vec4<u32>(5u, 9u, 3u, 7u) + vec4<u32>(0xe6546b64u, 0x7f4a7c15u, 0x632be5abu, 0x94d049bbu);
}

// The finished key: each lane mixed, then each folded with its neighbour so
// every lane depends on every other.
fn perft_key_finish(key: vec4<u32>) -> vec4<u32> {
    let mixed = vec4<u32>(perft_mix(key.x), perft_mix(key.y), perft_mix(key.z), perft_mix(key.w));
    return mixed ^ (mixed.yzwx * 0x9e3779b9u);
}

// The two words an entry's fragment is sealed with: mixes of both data
// words, so that an entry whose words came from two writers fails the check.
fn table_seal(data: vec2<u32>) -> vec2<u32> {
    let first = perft_mix(data.x ^ 0x9e3779b9u ^ perft_mix(data.y ^ 0x7f4a7c15u));
    return vec2<u32>(first, perft_mix(first ^ data.y ^ 0x85ebca6bu));
}

// Where `key` at `remaining` plies lives: (shard, first word of its bucket).
fn table_slot(key: vec4<u32>, remaining: u32) -> vec2<u32> {
    let shard = ((key.x ^ perft_mix(remaining ^ 0x3c6ef372u)) & parameters.index_mask) % parameters.table_shards;
    let index = (key.y ^ perft_mix(remaining)) & parameters.index_mask;
    if remaining <= SHALLOW_MAX_REMAINING {
        return vec2<u32>(shard, (index % parameters.shallow_buckets) * SHALLOW_BUCKET_WORDS);
    }
    let deep_start = parameters.shallow_buckets * SHALLOW_BUCKET_WORDS;
    return vec2<u32>(shard, deep_start + (index % parameters.deep_buckets) * DEEP_BUCKET_WORDS);
}

// The data words of an entry: (count low, count high with the depth) for a
// wide entry, (count with the depth, 0) for a compact one.
fn table_entry_data(count: vec2<u32>, remaining: u32) -> vec2<u32> {
    if remaining <= SHALLOW_MAX_REMAINING {
        return vec2<u32>(count.x | (remaining << SHALLOW_COUNT_BITS), 0u);
    }
    return vec2<u32>(count.x, count.y | (remaining << DEEP_COUNT_HIGH_BITS));
}

// The depth an entry's data words hold (0 for an empty entry).
fn table_entry_depth(data: vec2<u32>, shallow: bool) -> u32 {
    return select(data.y >> DEEP_COUNT_HIGH_BITS, data.x >> SHALLOW_COUNT_BITS, shallow);
}

// The data words of the entry at `word` of `shard`.
fn table_read_data(shard: u32, word: u32, shallow: bool) -> vec2<u32> {
    if shallow {
        return vec2<u32>(table_word(shard, word + 2u), 0u);
    }
    return vec2<u32>(table_word(shard, word + 2u), table_word(shard, word + 3u));
}

// The subtree count stored for `key` at `remaining` plies, as (found, low, high).
fn table_probe(key: vec4<u32>, remaining: u32) -> vec3<u32> {
    let place = table_slot(key, remaining);
    let shallow = remaining <= SHALLOW_MAX_REMAINING;
    let entry_words = select(DEEP_ENTRY_WORDS, SHALLOW_ENTRY_WORDS, shallow);
    var found = vec3<u32>(0u, 0u, 0u);
    for (var entry = 0u; entry < 2u; entry++) {
        let word = place.y + entry * entry_words;
        let data = table_read_data(place.x, word, shallow);
        if table_entry_depth(data, shallow) != remaining {
            continue;
        }
        let seal = table_seal(data);
        let fragment = vec2<u32>(table_word(place.x, word) ^ seal.x, table_word(place.x, word + 1u) ^ seal.y);
        if all(fragment == key.zw) {
            if shallow {
                found = vec3<u32>(1u, data.x & ((1u << SHALLOW_COUNT_BITS) - 1u), 0u);
            } else {
                found = vec3<u32>(1u, data.x, data.y & ((1u << DEEP_COUNT_HIGH_BITS) - 1u));
            }
        }
    }
    return found;
}

// Stores the subtree count of `key` at `remaining` plies, unless it is too
// wide for its entry.
fn table_store(key: vec4<u32>, remaining: u32, count: vec2<u32>) {
    let shallow = remaining <= SHALLOW_MAX_REMAINING;
    if shallow && (count.y != 0u || (count.x >> SHALLOW_COUNT_BITS) != 0u) {
        return;
    }
    if !shallow && (count.y >> DEEP_COUNT_HIGH_BITS) != 0u {
        return;
    }
    let place = table_slot(key, remaining);
    let entry_words = select(DEEP_ENTRY_WORDS, SHALLOW_ENTRY_WORDS, shallow);
    // The first entry keeps the deeper subtree: it takes an empty entry
    // (depth 0) or a deeper subtree; the rest go to the second.
    let first_depth = table_entry_depth(table_read_data(place.x, place.y, shallow), shallow);
    let word = select(place.y + entry_words, place.y, remaining > first_depth);
    let data = table_entry_data(count, remaining);
    let seal = table_seal(data);
    table_set_word(place.x, word, key.z ^ seal.x);
    table_set_word(place.x, word + 1u, key.w ^ seal.y);
    table_set_word(place.x, word + 2u, data.x);
    if !shallow {
        table_set_word(place.x, word + 3u, data.y);
    }
}

// A position's 64-bit subtree count, stored in its multiplicity words.
fn subtree_count(slot: u32) -> vec2<u32> {
    return slot_multiplicity(slot);
}

fn set_subtree_count(slot: u32, count: vec2<u32>) {
    atomicStore(&multiplicity[2u * slot], count.x);
    atomicStore(&multiplicity[2u * slot + 1u], count.y);
}

// `first` + `second`, 64-bit values as (low, high), with a fault if the
// sum passes 2^64.
fn add_wide_checked(first: vec2<u32>, second: vec2<u32>) -> vec2<u32> {
    let low = first.x + second.x;
    let carry = select(0u, 1u, low < first.x);
    let high = first.y + second.y + carry;
    if high < first.y || (high == first.y && (second.y != 0u || carry != 0u)) {
        perft_fault(FAULT_COUNT_OVERFLOW);
    }
    return vec2<u32>(low, high);
}

// Whether a count is at or past 2^count_bits (never, at 64 bits).
fn count_past_limit(value: vec2<u32>) -> bool {
    let bits = parameters.count_bits;
    if bits >= 64u {
        return false;
    }
    if bits >= 32u {
        return (value.y >> (bits - 32u)) != 0u;
    }
    return value.y != 0u || (value.x >> bits) != 0u;
}

// One invocation a slot of a level just written (or of the roots): the
// subtree count from the transposition table if it holds the position at
// `parameters.remaining` plies (SLOT_RESOLVED), else an equal live
// position of the level to be an alias of (merged through `merge_table`,
// cleared before, by the game's exact comparison), else SLOT_LIVE with a
// zero count the level below adds to.
@compute @workgroup_size(POSITION_WORKGROUP)
fn dedupe_level(invocation: GridInvocation) {
    let slot = dispatch_slot(invocation);
    if slot == NO_ROOT {
        return;
    }
    let key = perft_record_key(slot);
    let found = table_probe(key, parameters.remaining);
    if found.x != 0u {
        set_subtree_count(slot, found.yz);
        set_slot_state(slot, SLOT_RESOLVED);
        return;
    }
    set_subtree_count(slot, vec2<u32>(0u, 0u));
    set_slot_state(slot, SLOT_LIVE);
    if parameters.merge_slots == 0u {
        return;
    }
    let other = merge_or_claim(slot, key.y & parameters.index_mask, NO_ROOT);
    if other != NO_ROOT {
        set_slot_state(slot, other);
    }
}

// One invocation a slot of a level whose subtrees are all counted: the
// slot's count (its alias's, for an alias) goes to its parent's, and a
// count made here is stored in the transposition table.
@compute @workgroup_size(POSITION_WORKGROUP)
fn reduce_level(invocation: GridInvocation) {
    let slot = dispatch_slot(invocation);
    var parent = NO_ROOT;
    var value = vec2<u32>(0u, 0u);
    if slot != NO_ROOT {
        let state = slot_state(slot);
        value = subtree_count(select(slot, state, state < SLOT_RESOLVED));
        if state == SLOT_LIVE {
            table_store(perft_record_key(slot), parameters.remaining, value);
        }
        parent = root_of[slot];
    }
    accumulate_runs(invocation.local, RUN_SUBTREES, parent, value);
}
