// batch_io.wgsl — the bindings every game's batch kernels share.
//
// Reads: `positions` (binding 1), one packed position of the kernel's game
// a record, and `parameters` (binding 4). Writes: `status` (binding 3), fault
// flags the host reads back with the records, a nonzero flag an error before
// any record is used. Library only: a kernel imports it, names its game's
// packed position `BatchPosition` (a WGSL alias), and adds its own output at
// binding 2; binding 0 holds the game's tables where it has some. The host's
// side is src/gpu/batch.rs.

// Rust twin: BatchParameters in src/gpu/batch.rs.
struct BatchParameters {
    // Invocations that do work: positions, or playouts in a playout batch.
    count: u32,
    // Playouts per position (Go's playouts; 1 elsewhere).
    per_position: u32,
    // The seed of every random stream (Go's playouts; 0 elsewhere).
    seed: u32,
    // The stream of the batch's first playout; the next ones follow.
    first_stream: u32,
}

@group(0) @binding(1) var<storage, read> positions: array<BatchPosition>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: BatchParameters;
