// perft_memory.wgsl — the perft engine's arena and transposition table:
// one arena binding, the table inside the merge entries' binding.
// src/gpu/perft/memory.rs writes this module for each engine's layout; the
// file in shaders/common is the layout that fits WebGPU's eight storage bindings.
//
// Reads: the arena's PerftRecords and the table's words. Writes: the same,
// for the engine's kernels: `perft_record`/`perft_store_record` reach arena
// slot `slot`, `table_word`/`table_set_word` word `word` of table shard `shard`.

@group(0) @binding(1) var<storage, read_write> arena: array<PerftRecord>;

fn perft_record(slot: u32) -> PerftRecord {
    return arena[slot];
}

fn perft_store_record(slot: u32, record: PerftRecord) {
    arena[slot] = record;
}

// The table follows the merge entries in their binding, from `parameters.table_base` on.
fn table_word(shard: u32, word: u32) -> u32 {
    return atomicLoad(&merge_table[parameters.table_base + word]);
}

fn table_set_word(shard: u32, word: u32, value: u32) {
    atomicStore(&merge_table[parameters.table_base + word], value);
}
