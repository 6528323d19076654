//! The breadth-first perft engine every game's GPU perft runs on, the shape
//! the fastest GPU perft uses: the positions of one level sit in a
//! preallocated arena; per level the GPU counts each position's moves,
//! prefix-sums the counts, writes every move as a (parent, move) pair in the
//! slot its child will take, and then one invocation a move makes the child
//! there (shaders/common/perft_moves.wgsl), until the last two plies, which
//! are counted without storing the last level: one invocation per move of
//! the last stored level on a GPU, one per position looping over its moves
//! on a software adapter ([`FusedShape`]). No kernel both generates moves
//! and counts them, which keeps each one's registers few. A game brings its
//! position record, its hooks and its bounds through [`PerftGame`]; the
//! engine does the levels, the scans, the splitting, the 64-bit totals,
//! progress and faults once for all games.
//!
//! # Exact in fixed memory
//!
//! The arena is a stack of levels. A level at `[start, end)` writes its
//! children from `end` on, so no position is overwritten before its subtree
//! is counted. A level whose children do not fit is split into chunks of
//! parents whose children do, and each chunk goes on depth first. Each chunk
//! keeps room for the levels below it: `reserve(r) = B * (r - 2)` positions
//! for a level with `r` plies still to count (the last two plies store
//! nothing; `r - 1` when only the last ply is counted unstored), where `B`
//! bounds any one position's children. By induction
//! every level then has room for at least one parent's children, so the
//! engine never runs out of arena at any depth.
//!
//! `B` is first taken as [`PerftOptions::reserve_moves`] (by default the
//! game's [`PerftGame::REACHABLE_MAX_MOVES`]). A position with more children
//! stops its root group: the group's totals are discarded and it runs again
//! with a larger `B`, up to [`PerftGame::MAX_LEGAL_MOVES`], a proven bound for
//! every position the game accepts. Totals are per root group and are kept
//! only after the whole group succeeded, so a count is returned only when
//! every part of it was counted once.
//!
//! Totals are 64-bit: the kernels add into pairs of 32-bit atomics with a
//! carry, and the host adds the pairs as `u64`.
//!
//! # Transposition tables
//!
//! With a table (the default; `table_bytes`), a run keeps one subtree count
//! per arena slot instead of totals per root, and each slot's parent. A level
//! just written is probed first (`dedupe_level`): a position the table holds
//! at the same remaining depth takes its count from there and is not
//! expanded; the others are merged with equal positions of the level, under
//! any root, by exact comparison. When a level's subtrees are all counted,
//! `reduce_level` adds each slot's count (an alias: its position's) to its
//! parent's and stores every count made there, the fused leaf levels'
//! included, so the table outlives the level, the root group and the call.
//!
//! A position's key is 128 bits (four independent 32-bit hash lanes of its
//! words): one lane picks the table's shard, one its bucket, and the other
//! two, 64 bits, are the fragment an entry keeps. Entries are compact at 1
//! to 3 plies from the leaves, where most positions of a deep count are:
//! 12 bytes (the fragment and a 30-bit count with the depth), and 16 bytes
//! deeper (the fragment and a 56-bit count with the depth). A bucket holds
//! two, the first kept for the deeper subtree (filled when empty, replaced
//! only by a deeper one), the second taking every other store. The fragment
//! is sealed with a mix of the count, so writers racing on an entry that mix
//! its words leave one that reads as a miss. A false hit needs a probed
//! position whose 64-bit fragment equals that of another position in its
//! bucket: at most 2 × 2^-64 a probe. docs/limits.md works out what that
//! comes to for the deepest counts, and why the fragment is not cut to 40
//! bits for 8-byte entries. A subtree count past 2^64 raises a
//! fault; the table is cleared and [`PerftEngine::perft_wide`] counts the
//! roots' children apart and adds them in 128 bits.

#[cfg(not(target_arch = "wasm32"))]
mod counter;
#[cfg(not(target_arch = "wasm32"))]
mod devices;
mod engine;
pub mod memory;
mod plan;
mod profile;
mod table;

#[cfg(not(target_arch = "wasm32"))]
pub use counter::{CountProgress, Counter};
#[cfg(not(target_arch = "wasm32"))]
pub use devices::{DevicePool, PoolProgress};
pub use engine::PerftEngine;
pub use memory::{DEEP_BUCKET_BYTES, MemoryLayout, SHALLOW_BUCKET_BYTES, memory_module};
pub use plan::{DeviceFacts, MemoryReport};
pub use profile::KernelTime;
#[cfg(not(target_arch = "wasm32"))]
pub use table::requested_table;
pub use table::{default_table_bytes, default_table_bytes_for, plan_for, plan_report};

use bytemuck::{Pod, Zeroable};

use super::composer;
use super::context::{GpuContext, GpuError};
use super::reflect::{ComposedShader, Kernels, RuntimeChecks};
use super::resources::{Staging, buffer, buffer_with, record_dispatch_with};
use super::runtime::LocalFuture;

/// A game's side of the engine: its record, kernels, data and bounds. The
/// position, its moves and children are the game's
/// ([`Game`](crate::game::Game)), so divide comes with every engine.
pub trait PerftGame: crate::game::Game {
    /// The arena record the kernels read and write (`PerftRecord` in WGSL).
    type Record: Pod;
    /// What the kernels are built with (chess: the slider algorithm and
    /// bitboard representation).
    type Build: Copy + std::fmt::Debug + Default + PartialEq;

    /// The most legal moves of any position reachable in a game.
    const REACHABLE_MAX_MOVES: u32;
    /// A proven bound on the legal moves of every position the game accepts.
    const MAX_LEGAL_MOVES: u32;
    /// What a kernel's FAULT_INVALID_POSITION means for this game.
    const INVALID_POSITION: &'static str;

    /// The record of a position, as the kernels of `build` read it.
    fn pack(build: Self::Build, position: &Self::Position) -> Self::Record;
    /// The perft module, composed: the engine's modules
    /// (shaders/common/perft_engine.wgsl and perft_moves.wgsl) with the
    /// game's hooks (`perft_move_count`, `perft_write_moves`,
    /// `perft_child_record`, `perft_pair_leaves`, the record's key, hash and
    /// equality, `perft_leaf_children`), with `memory` (what
    /// [`memory_module`] writes for the engine's layout) standing in as the
    /// `perft_memory` module.
    fn perft_shader(build: Self::Build, memory: &str) -> Result<ComposedShader, GpuError>;
    /// The read-only data at binding 0 (tables), as 32-bit words.
    fn table_words(build: Self::Build) -> Vec<u32>;
    /// A short description of the build for error messages.
    fn describe(build: Self::Build) -> String;
    /// Refuses a build the device cannot run.
    fn check_device(device: &wgpu::Device, build: Self::Build) -> Result<(), GpuError>;
    /// The self-test's known-answer checks of these kernels, which a device
    /// must pass before an engine is made on it (see `super::self_test`).
    /// `fused_leaves` is the engine's leaf shape: a game whose fused kernel
    /// is slow to compile checks only the shape that will run.
    fn known_answer_checks(build: Self::Build, fused_leaves: bool) -> Vec<super::self_test::Check>;

    /// Columns the game's statistics leaf kernel counts per root, nodes
    /// first; 0 for a game without one.
    const STATISTICS_COLUMNS: u32 = 0;
    /// The perft module with the statistics leaf kernel `count_leaf_statistics`
    /// added (see [`PerftOptions::leaf_statistics`]), `memory` standing in as
    /// `perft_memory`; `None` for a game without one.
    fn statistics_shader(_build: Self::Build, _memory: &str) -> Option<Result<ComposedShader, GpuError>> {
        None
    }
    /// The known-answer checks of the statistics kernel.
    fn statistics_checks(_build: Self::Build) -> Vec<super::self_test::Check> {
        Vec::new()
    }
}

/// Settings of a [`PerftEngine`]. The defaults suit real use; tests shrink
/// them to force every path of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerftOptions<Build> {
    /// Positions the arena holds; `None` sizes it from the device's limits
    /// and [`PerftOptions::memory_limit`]. Small values force levels to be split.
    pub arena_positions: Option<usize>,
    /// The most bytes of GPU memory the engine allocates, tables, arena,
    /// counters and staging together (`--gpu-memory`); `None`: no cap but the device's.
    pub memory_limit: Option<u64>,
    /// The most positions whose moves are counted and prefix-summed at once
    /// (at most [`MAX_COUNTED_AT_ONCE`], and fewer for games with many moves,
    /// which keeps the sums within u32).
    pub counted_at_once: u32,
    /// The most positions one dispatch of the last-ply kernels takes; the
    /// totals are read back (and progress reported) after each.
    pub leaf_positions_per_dispatch: usize,
    /// The most roots counted together; `None` picks a quarter of the room
    /// the arena has at that depth. Never more than [`MAX_ROOT_GROUP`].
    pub root_group_size: Option<usize>,
    /// The first bound on one position's children used to keep room for the
    /// levels below (see the module documentation); `None` takes the game's
    /// reachable maximum. Smaller values work, slower, because a group that
    /// meets a larger position runs again.
    pub reserve_moves: Option<u32>,
    /// Count the last two plies without storing the last level's positions
    /// (each child made and its moves counted at once), or store the last
    /// level too and count one ply per child. The default is the faster on
    /// lavapipe for every game (BENCHMARKS.md).
    pub fused_leaves: bool,
    /// How the fused last two plies are spread over invocations (see [`FusedShape`]).
    pub fused_shape: FusedShape,
    /// Runtime bounds checks in the kernels (see [`RuntimeChecks`]); off by
    /// default, on in the tests that also run them off.
    pub runtime_checks: RuntimeChecks,
    /// Merge equal positions of each stored level (same root, same whole
    /// position): each is expanded once and its count weighted by how many
    /// move sequences reach it. On by default; `--hash 0` turns it off.
    pub merge_transpositions: bool,
    /// Also build the game's statistics leaf kernel, for
    /// [`PerftEngine::perft_statistics`]; plain counts are unchanged either way.
    pub leaf_statistics: bool,
    /// Bytes of the transposition table in GPU memory (`--hash`), which keeps
    /// subtree counts between levels, root groups and calls (see
    /// [`table`](self#transposition-tables)); `Some(0)` runs without one,
    /// `None` sizes it by [`default_table_bytes`] for no particular depth
    /// (at most 256 MiB). The table is spread over as many storage bindings
    /// as it needs (see [`memory`]); on a device with only WebGPU's eight it
    /// shares one with the merge entries and holds at most a binding less
    /// twice the arena's slots in words. Rounded down to whole buckets; one
    /// that does not fit is refused by name.
    pub table_bytes: Option<u64>,
    /// The most bytes one storage binding holds; `None`: the device's limit.
    /// Tests shrink it so that the arena and the table span many bindings.
    pub binding_bytes: Option<u64>,
    /// Reach a table spread over several bindings through one binding array
    /// where the device can index one per invocation (the default), or
    /// through a `switch` over the bindings, as devices without them do
    /// (see [`memory`]); tests run both.
    pub table_binding_array: bool,
    /// The bits of a position's hash that choose its table bucket and its
    /// merge entry: 32 in real use; tests keep a few so that collisions and
    /// replacements happen all the time (keys stay 128 bits, so counts stay exact).
    pub index_bits: u32,
    /// With a table, a subtree count at or past 2^count_bits is treated as
    /// one past 2^64: the call fails, or [`PerftEngine::perft_wide`] counts
    /// the roots again by child. 64 in real use; tests lower it to run the
    /// 128-bit path on counts that finish in seconds.
    pub count_bits: u32,
    /// Time every dispatch on the device with timestamp queries, where the
    /// device has them (see [`PerftEngine::kernel_times`]); slower, for
    /// profiling only. Not in a browser.
    pub profile_kernels: bool,
    /// What the kernels are built with, fixed when the engine is made.
    pub build: Build,
}

impl<Build: Default> Default for PerftOptions<Build> {
    fn default() -> Self {
        PerftOptions {
            arena_positions: None,
            memory_limit: None,
            counted_at_once: MAX_COUNTED_AT_ONCE,
            leaf_positions_per_dispatch: 1 << 20,
            root_group_size: None,
            reserve_moves: None,
            runtime_checks: RuntimeChecks::Off,
            merge_transpositions: true,
            fused_leaves: true,
            fused_shape: FusedShape::Auto,
            leaf_statistics: false,
            table_bytes: None,
            binding_bytes: None,
            table_binding_array: true,
            index_bits: 32,
            count_bits: 64,
            profile_kernels: false,
            build: Build::default(),
        }
    }
}

impl<Build: Default> PerftOptions<Build> {
    /// The options a self-test check builds an engine with: `build`, the
    /// leaf shape, and a small table with merging ([`SELF_TEST_TABLE_BYTES`])
    /// or neither (`tables`).
    pub fn for_check(build: Build, fused_leaves: bool, fused_shape: FusedShape, tables: bool) -> Self {
        PerftOptions {
            build,
            fused_leaves,
            fused_shape,
            merge_transpositions: tables,
            table_bytes: Some(if tables { SELF_TEST_TABLE_BYTES } else { 0 }),
            ..Default::default()
        }
    }
}

/// How the fused last two plies are spread over invocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FusedShape {
    /// One invocation per move on a GPU, one per position on a software
    /// adapter (see the other two).
    #[default]
    Auto,
    /// One invocation per move of the last stored level (its move list):
    /// lean kernels, since no invocation holds move generation and counting
    /// at once, and equal work in every lane of a SIMD group. What a GPU's
    /// occupancy wants.
    PerMove,
    /// One invocation per position of the last stored level, playing its
    /// moves in a loop: no move list to count, scan and write, and each
    /// invocation's fixed cost shared by its moves. What a CPU running the
    /// kernels (lavapipe, SwiftShader) wants.
    PerPosition,
}

impl FusedShape {
    /// The shape `Auto` stands for on a device: per position on a software
    /// adapter, per move elsewhere.
    pub fn resolve(self, software: bool) -> FusedShape {
        match self {
            FusedShape::Auto if software => FusedShape::PerPosition,
            FusedShape::Auto => FusedShape::PerMove,
            shape => shape,
        }
    }
}

/// The most positions counted and prefix-summed at once. A game with a
/// larger move bound gets fewer (`u32::MAX / PerftGame::MAX_LEGAL_MOVES`), so
/// the sums always stay within u32.
pub const MAX_COUNTED_AT_ONCE: u32 = 1 << 23;
/// The transposition table of the self-test's perft checks: small, so that
/// checking a device allocates little.
pub const SELF_TEST_TABLE_BYTES: u64 = 1 << 20;
/// The most roots one group holds (their totals buffer is sized for this).
pub const MAX_ROOT_GROUP: usize = 1 << 16;
/// Invocations per workgroup of the per-position kernels.
pub const POSITION_WORKGROUP: u32 = 64;
/// `PerftParameters::leaves` of a `count_leaves_looped` dispatch whose slots
/// hold pairs (`LEAVES_OF_PAIRS` in perft_engine.wgsl).
pub(crate) const LEAVES_OF_PAIRS: u32 = 2;
/// Invocations per workgroup of the scan, and the values each block sums.
pub const SCAN_BLOCK: u32 = 256;
/// A kernel met a position it cannot handle (chess: no king for the side to move).
pub const FAULT_INVALID_POSITION: u32 = 1;
/// A kernel would have written a child past the arena.
pub const FAULT_ARENA_OVERFLOW: u32 = 2;
/// A subtree count passed 2^64: the host counts the roots' children apart.
pub const FAULT_COUNT_OVERFLOW: u32 = 4;
/// The most plies below a position whose count goes into a compact table
/// entry (generated into every perft module as SHALLOW_MAX_REMAINING).
pub const SHALLOW_MAX_REMAINING: u32 = 3;
/// The arena's default ceiling on a GPU: 2^25 positions, a few hundred
/// times what the largest GPU runs at once.
const DEFAULT_ARENA_CEILING: u64 = 1 << 25;
/// The arena's default ceiling on a software adapter: 2^22 positions. Its
/// buffers are the machine's memory, touched (and zeroed) page by page when
/// an engine starts, and its few cores are kept busy by far fewer positions.
const DEFAULT_SOFTWARE_ARENA_CEILING: u64 = 1 << 22;
/// The staging buffer for readbacks; offsets are read in pieces of this size.
const STAGING_BYTES: u64 = 1 << 20;
/// Status word, parameters and alignment slack.
const FIXED_BYTES: u64 = 4096;

/// The engine's constants as WGSL, for every game's composed perft module.
pub fn engine_constants() -> String {
    composer::constants(&[
        ("POSITION_WORKGROUP", POSITION_WORKGROUP),
        ("SCAN_BLOCK", SCAN_BLOCK),
        ("FAULT_INVALID_POSITION", FAULT_INVALID_POSITION),
        ("FAULT_ARENA_OVERFLOW", FAULT_ARENA_OVERFLOW),
        ("FAULT_COUNT_OVERFLOW", FAULT_COUNT_OVERFLOW),
        ("SHALLOW_MAX_REMAINING", SHALLOW_MAX_REMAINING),
    ])
}

/// `PerftParameters` in shaders/common/perft_engine.wgsl: what one dispatch works on.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct PerftParameters {
    /// The first arena slot of the level the dispatch works on.
    pub start: u32,
    /// Slots of that level.
    pub count: u32,
    /// `expand`: the slot the first child is written to.
    pub output_start: u32,
    /// `expand`: the scan offset of the first parent, subtracted from every parent's.
    pub base_offset: u32,
    /// Scans: the first word scanned.
    pub scan_start: u32,
    /// Scans: where the block sums go.
    pub scan_sums: u32,
    /// Merges: entries of the cleared merge table.
    pub merge_slots: u32,
    /// `count_moves`: 1 adds the counts to the roots' totals (with tables:
    /// stores them as subtree counts), 0 stores them for the scan.
    /// `count_leaves_looped`: 2 (`LEAVES_OF_PAIRS`) when its slots hold pairs.
    pub leaves: u32,
    /// 1 when the run keeps subtree counts per slot and a transposition table.
    pub tables: u32,
    /// `dedupe_level`, `reduce_level`: plies still to count below the level.
    pub remaining: u32,
    /// Shards of the transposition table in use.
    pub table_shards: u32,
    /// Buckets of compact entries in each shard.
    pub shallow_buckets: u32,
    /// Buckets of wide entries in each shard, after the compact ones.
    pub deep_buckets: u32,
    /// The hash bits that choose a shard, a bucket or a merge entry.
    pub index_mask: u32,
    /// With tables: counts at or past 2^count_bits fault as past 2^64.
    pub count_bits: u32,
    /// With tables: where the slots' states start in the roots buffer.
    pub state_base: u32,
    /// With a table inside the merge entries' binding: where it starts there, in words.
    pub table_base: u32,
    /// Slots of the arena.
    pub arena_capacity: u32,
    /// Leaf kernels: 1 when they read their slots from the live list.
    pub leaf_list: u32,
    /// The word of the merge buffer that holds the live list's length.
    pub list_total: u32,
}

const _: () = assert!(size_of::<PerftParameters>() == 80);

/// What the engine did since it was made: tests use it to show that a path
/// was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerftStatistics {
    /// Root groups counted to the end.
    pub root_groups: u64,
    /// Root groups discarded and run again with a larger reserve.
    pub restarted_groups: u64,
    /// Levels whose children did not fit at once and were split into chunks.
    pub split_levels: u64,
    /// Parts of levels larger than the counted-at-once cap.
    pub level_parts: u64,
    /// Dispatches of the last-ply kernels.
    pub leaf_dispatches: u64,
    /// Levels whose equal positions were merged.
    pub merged_levels: u64,
    /// Levels probed in the transposition table and merged, roots included.
    pub probed_levels: u64,
    /// Calls whose count passed 2^64 and were counted again by child.
    pub widened_groups: u64,
    /// With tables: leaves the leaf kernels counted (the rest came from the
    /// table or from equal positions).
    pub leaves_counted: u64,
    /// Leaf levels whose live slots were gathered into a list first.
    pub gathered_levels: u64,
    /// Positions probed in the transposition table at 1 to 3 plies from
    /// their leaves (compact entries), and deeper (wide entries): a bound on
    /// the chances a count had of a false hit (docs/limits.md).
    pub shallow_probes: u64,
    /// See [`PerftStatistics::shallow_probes`].
    pub deep_probes: u64,
}
