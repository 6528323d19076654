// wide_counter.wgsl — 64-bit counters from 32-bit atomics.
//
// Reads: nothing else. Writes: `totals`, an array<atomic<u32>> that the
// importing module declares; counter i is the pair totals[2i] (low word)
// and totals[2i + 1] (high word). Library only: any invocation may add.
// An add returns the low word's old value; if the add wrapped it, the
// carry goes into the high word. Each add is below 2^32, so one carry at
// most, and the pair always ends exact however the adds interleave.

fn wide_counter_add(counter: u32, value: u32) {
    if value == 0u {
        return;
    }
    let old = atomicAdd(&totals[2u * counter], value);
    if old + value < old {
        atomicAdd(&totals[2u * counter + 1u], 1u);
    }
}
