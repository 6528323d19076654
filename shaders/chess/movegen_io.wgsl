// movegen_io.wgsl — what both move-generation kernels read and report.
//
// Reads: `positions` (binding 1) and `parameters` (binding 4). Writes:
// `status` (binding 3), fault flags the host checks after every dispatch.
// Library only: kernels/per_piece.wgsl and kernels/per_position.wgsl import
// it and add their own output at binding 2.

#import position

// Rust twin: BatchParameters in src/chess/gpu/layout.rs.
struct BatchParameters {
    position_count: u32,
    reserved_0: u32,
    reserved_1: u32,
    reserved_2: u32,
}


@group(0) @binding(1) var<storage, read> positions: array<PackedPosition>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: BatchParameters;
