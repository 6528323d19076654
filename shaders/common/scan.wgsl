// scan.wgsl — an exclusive prefix sum over a range of u32 words, in place.
//
// Reads: `scan_data` (an array<u32> storage binding) from
// `parameters.scan_start` on, `parameters.count` words. Writes: the same
// words, scanned in place, and each block's total to
// `scan_data[parameters.scan_sums + block]`. The importing module
// declares `scan_data` and a uniform `parameters` with those three fields
// (perft_engine.wgsl does). Kernels, SCAN_BLOCK invocations per workgroup:
// `scan_blocks` (one invocation per word: a Hillis-Steele scan of its
// block), then, after the host has scanned the block sums the same way,
// `add_block_sums` (one invocation per word: adds its block's offset).

// An invocation's place on a two-dimensional grid of workgroups: the host
// splits a dispatch longer than a dimension's limit over y. Every grid
// kernel (here and in perft_engine.wgsl) takes its builtins as one.
struct GridInvocation {
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
}

// The index of an invocation's workgroup on the grid.
fn grid_block(invocation: GridInvocation) -> u32 {
    return invocation.workgroup.y * invocation.groups.x + invocation.workgroup.x;
}

var<workgroup> scan_shared: array<u32, SCAN_BLOCK>;

@compute @workgroup_size(SCAN_BLOCK)
fn scan_blocks(invocation: GridInvocation) {
    let local = invocation.local;
    let block = grid_block(invocation);
    let index = block * SCAN_BLOCK + local;
    let in_range = index < parameters.count;
    var value = 0u;
    if in_range {
        value = scan_data[parameters.scan_start + index];
    }
    scan_shared[local] = value;
    workgroupBarrier();
    // After the step of width w each entry sums the 2w entries up to it.
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

@compute @workgroup_size(SCAN_BLOCK)
fn add_block_sums(invocation: GridInvocation) {
    let local = invocation.local;
    let block = grid_block(invocation);
    let index = block * SCAN_BLOCK + local;
    if index < parameters.count {
        scan_data[parameters.scan_start + index] += scan_data[parameters.scan_sums + block];
    }
}
