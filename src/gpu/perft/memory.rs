//! Where the engine's two large structures live on the device: the arena of
//! positions and the transposition table, each spread over as many storage
//! bindings as it needs. One binding holds at most 2 GiB on every Vulkan
//! device (128 MiB on lavapipe), so a table as large as a GPU's memory is a
//! row of bindings, and a level larger than one binding's positions is too.
//!
//! The kernels reach both through the functions of the `perft_memory` WGSL
//! module, which [`memory_module`] writes for a [`MemoryLayout`]:
//! `perft_record(slot)` and `perft_store_record(slot, record)` for the
//! arena, `table_word(shard, word)` and `table_set_word(shard, word, value)`
//! for the table. WGSL has no pointer that can point into either of two
//! bindings, so each function is a `switch` over the bindings (a plain access
//! when there is one). The number of bindings is fixed when the module is
//! composed; the table's size within them is a parameter of each dispatch.
//!
//! Bindings: the arena's first binding is 1, the merge entries are at 9 (the
//! engine's fixed bindings are 0–9); the arena's further bindings follow
//! from 10, then the table's; or, where the device indexes binding arrays,
//! the table is one binding array in group 1 (wgpu keeps binding arrays out
//! of group 0, whose parameters take a dynamic offset). Where a device offers only WebGPU's eight
//! storage bindings a stage, the table has none of its own: it follows the
//! merge entries in binding 9, as [`MemoryLayout::SHARED`] says.

use std::fmt::Write as _;

/// How the arena and the transposition table are spread over bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryLayout {
    /// Bindings holding the arena (at least 1).
    pub arena_bindings: u32,
    /// Positions in each arena binding but the last: slot `s` is position
    /// `s % arena_binding_positions` of binding `s / arena_binding_positions`.
    /// A power of two, so that the split is a shift and a mask.
    pub arena_binding_positions: u32,
    /// Bindings of the transposition table's own; 0: the table follows the
    /// merge entries in their binding (devices with eight storage bindings).
    pub table_bindings: u32,
    /// Whether the table's bindings are one binding array, indexed by the
    /// shard, where the device can index one non-uniformly: a `switch` over
    /// the shards runs every case the lanes of a SIMD group ask for, one
    /// after another, since each probe picks its shard by hash (start
    /// perft(7) on lavapipe: 1.46 s with one binding, 1.97 s with a switch
    /// over 8, 2.21 s over 32).
    pub table_array: bool,
}

impl MemoryLayout {
    /// One arena binding and the table inside the merge entries' binding:
    /// what fits WebGPU's default eight storage bindings, and the layout
    /// `shaders/common/perft_memory.wgsl` holds for composing a module
    /// outside an engine.
    pub const SHARED: MemoryLayout =
        MemoryLayout { arena_bindings: 1, arena_binding_positions: 1 << 31, table_bindings: 0, table_array: false };

    /// Storage bindings the engine declares with this layout: its seven
    /// fixed ones (tables, roots, scan, totals, status, multiplicity, merge
    /// entries) and the arena's and table's.
    pub fn storage_bindings(&self) -> u32 {
        FIXED_STORAGE_BINDINGS + self.arena_bindings + self.table_bindings
    }

    /// The binding number of the arena's binding `index`.
    pub fn arena_binding(&self, index: u32) -> u32 {
        if index == 0 { 1 } else { FIRST_EXTRA_BINDING + index - 1 }
    }

    /// The binding number of the table's binding `index` (with a binding
    /// array, its one binding for index 0).
    pub fn table_binding(&self, index: u32) -> u32 {
        FIRST_EXTRA_BINDING + self.arena_bindings - 1 + index
    }

    /// Shards the table's words are spread over: its bindings, or the one
    /// binding it shares.
    pub fn table_shards(&self) -> u32 {
        self.table_bindings.max(1)
    }
}

/// The engine's storage bindings besides the arena and the table.
pub const FIXED_STORAGE_BINDINGS: u32 = 7;
/// The first binding number after the engine's fixed ones.
const FIRST_EXTRA_BINDING: u32 = 10;

/// The `perft_memory` WGSL module for `layout`: the arena's and the
/// table's bindings and their access functions (see the module documentation).
pub fn memory_module(layout: &MemoryLayout) -> String {
    let mut text = String::new();
    let table = match layout.table_bindings {
        0 => "the table inside the merge entries' binding".to_owned(),
        1 => "the table in one binding of its own".to_owned(),
        count => format!("the table over {count} bindings of its own"),
    };
    let arena = match layout.arena_bindings {
        1 => "one arena binding".to_owned(),
        count => format!("the arena over {count} bindings"),
    };
    let _ = writeln!(
        text,
        "// perft_memory.wgsl — the perft engine's arena and transposition table:\n\
         // {arena}, {table}.\n\
         // src/gpu/perft/memory.rs writes this module for each engine's layout; the\n\
         // file in shaders/common is the layout that fits WebGPU's eight storage bindings.\n\
         //\n\
         // Reads: the arena's PerftRecords and the table's words. Writes: the same,\n\
         // for the engine's kernels: `perft_record`/`perft_store_record` reach arena\n\
         // slot `slot`, `table_word`/`table_set_word` word `word` of table shard `shard`."
    );
    text.push('\n');
    if layout.arena_bindings <= 1 {
        text.push_str(
            "@group(0) @binding(1) var<storage, read_write> arena: array<PerftRecord>;\n\n\
             fn perft_record(slot: u32) -> PerftRecord {\n    return arena[slot];\n}\n\n\
             fn perft_store_record(slot: u32, record: PerftRecord) {\n    arena[slot] = record;\n}\n",
        );
    } else {
        let shift = layout.arena_binding_positions.trailing_zeros();
        for index in 0..layout.arena_bindings {
            let _ = writeln!(
                text,
                "@group(0) @binding({}) var<storage, read_write> {}: array<PerftRecord>;",
                layout.arena_binding(index),
                arena_name(index)
            );
        }
        let _ = writeln!(text, "\nconst ARENA_BINDING_SHIFT: u32 = {shift}u;");
        text.push_str("const ARENA_BINDING_MASK: u32 = (1u << ARENA_BINDING_SHIFT) - 1u;\n\n");
        let select_arena = "    let index = slot & ARENA_BINDING_MASK;\n    switch slot >> ARENA_BINDING_SHIFT {";
        let arena = |index| arena_name(index);
        write_switch(
            &mut text,
            "fn perft_record(slot: u32) -> PerftRecord {",
            select_arena,
            layout.arena_bindings,
            |index| format!("return {}[index];", arena(index)),
        );
        text.push('\n');
        write_switch(
            &mut text,
            "fn perft_store_record(slot: u32, record: PerftRecord) {",
            select_arena,
            layout.arena_bindings,
            |index| format!("{}[index] = record;", arena(index)),
        );
    }
    text.push('\n');
    if layout.table_bindings == 0 {
        text.push_str(
            "// The table follows the merge entries in their binding, from `parameters.table_base` on.\n\
             fn table_word(shard: u32, word: u32) -> u32 {\n    return atomicLoad(&merge_table[parameters.table_base + word]);\n}\n\n\
             fn table_set_word(shard: u32, word: u32, value: u32) {\n    atomicStore(&merge_table[parameters.table_base + word], value);\n}\n",
        );
        return text;
    }
    if layout.table_array {
        let _ = writeln!(
            text,
            "enable wgpu_binding_array;\n\nstruct TableShard {{\n    words: array<atomic<u32>>,\n}}\n\n\
             @group(1) @binding(0) var<storage, read_write> table_shards: binding_array<TableShard, {}>;\n\n\
             fn table_word(shard: u32, word: u32) -> u32 {{\n    return atomicLoad(&table_shards[shard].words[word]);\n}}\n\n\
             fn table_set_word(shard: u32, word: u32, value: u32) {{\n    atomicStore(&table_shards[shard].words[word], value);\n}}",
            layout.table_bindings
        );
        return text;
    }
    for index in 0..layout.table_bindings {
        let _ = writeln!(
            text,
            "@group(0) @binding({}) var<storage, read_write> table_{index}: array<atomic<u32>>;",
            layout.table_binding(index)
        );
    }
    if layout.table_bindings == 1 {
        text.push_str(
            "\nfn table_word(shard: u32, word: u32) -> u32 {\n    return atomicLoad(&table_0[word]);\n}\n\n\
             fn table_set_word(shard: u32, word: u32, value: u32) {\n    atomicStore(&table_0[word], value);\n}\n",
        );
        return text;
    }
    text.push('\n');
    let select_shard = "    switch shard {";
    write_switch(
        &mut text,
        "fn table_word(shard: u32, word: u32) -> u32 {",
        select_shard,
        layout.table_bindings,
        |index| format!("return atomicLoad(&table_{index}[word]);"),
    );
    text.push('\n');
    write_switch(
        &mut text,
        "fn table_set_word(shard: u32, word: u32, value: u32) {",
        select_shard,
        layout.table_bindings,
        |index| format!("atomicStore(&table_{index}[word], value);"),
    );
    text
}

/// Writes a WGSL function, `header` then `select` (which opens a switch),
/// that runs `body(binding)` for the binding the switch picks: one case
/// for each of bindings 1 to `bindings - 1`, binding 0 the default.
fn write_switch(text: &mut String, header: &str, select: &str, bindings: u32, body: impl Fn(u32) -> String) {
    let _ = writeln!(text, "{header}\n{select}");
    for index in 1..bindings {
        let _ = writeln!(text, "        case {index}u: {{\n            {}\n        }}", body(index));
    }
    let _ = writeln!(text, "        default: {{\n            {}\n        }}\n    }}\n}}", body(0));
}

fn arena_name(index: u32) -> String {
    if index == 0 { "arena".to_owned() } else { format!("arena_{index}") }
}

/// Bytes of one bucket of compact entries (subtrees of 1 to 3 plies): two
/// entries of three words.
pub const SHALLOW_BUCKET_BYTES: u64 = 24;
/// Bytes of one bucket of wide entries (deeper subtrees): two entries of four words.
pub const DEEP_BUCKET_BYTES: u64 = 32;
/// The wide entries' share of each shard: a quarter of its bytes. Most
/// positions of a deep count are 1 to 3 plies from its leaves (each ply
/// holds about ten times more distinct positions than the one above it),
/// but a deeper hit saves a larger subtree.
const DEEP_SHARE_DIVISOR: u64 = 4;

/// Buckets of compact and of wide entries in a shard of `bytes`; (0, 0)
/// when it cannot hold one of each.
pub(super) fn shard_buckets(bytes: u64) -> (u64, u64) {
    if bytes < SHALLOW_BUCKET_BYTES + DEEP_BUCKET_BYTES {
        return (0, 0);
    }
    let deep = (bytes / DEEP_SHARE_DIVISOR / DEEP_BUCKET_BYTES).max(1);
    let shallow = (bytes - deep * DEEP_BUCKET_BYTES) / SHALLOW_BUCKET_BYTES;
    (shallow, deep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_layout_is_the_module_in_shaders_common() {
        let file = crate::gpu::composer::COMMON_MODULES
            .iter()
            .find(|module| module.name == "perft_memory")
            .expect("shaders/common/perft_memory.wgsl");
        assert_eq!(memory_module(&MemoryLayout::SHARED), file.source);
    }

    #[test]
    fn bindings_are_numbered_past_the_fixed_ones_without_gaps_or_overlap() {
        let layout =
            MemoryLayout { arena_bindings: 3, arena_binding_positions: 1 << 10, table_bindings: 4, table_array: false };
        let arena: Vec<u32> = (0..3).map(|index| layout.arena_binding(index)).collect();
        let table: Vec<u32> = (0..4).map(|index| layout.table_binding(index)).collect();
        assert_eq!(arena, [1, 10, 11]);
        assert_eq!(table, [12, 13, 14, 15]);
        assert_eq!(layout.storage_bindings(), 14);
        let text = memory_module(&layout);
        for binding in arena.iter().chain(&table) {
            assert!(text.contains(&format!("@binding({binding})")), "{binding}");
        }
        assert!(text.contains("const ARENA_BINDING_SHIFT: u32 = 10u;"));
    }
}
