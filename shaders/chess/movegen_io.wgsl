// movegen_io.wgsl — what both move-generation kernels read and report.
//
// Reads: `positions` (binding 1) and `parameters` (binding 4). Writes:
// `status` (binding 3), fault flags the host checks after every dispatch.
// Library only: kernels/per_piece.wgsl and kernels/per_position.wgsl import
// it and add their own output at binding 2. The bindings are every game's
// (common/batch_io.wgsl); a record of `positions` is a `PackedPosition`.

#import position
#import batch_io

alias BatchPosition = PackedPosition;
