// kogge_stone.wgsl — the vectorised Kogge-Stone fill of the OpenCL generator this crate ports.
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// Four lanes carry the four shift directions 9, 1, 7 and 8 at once, as the
// OpenCL original's ulong4 does; a lane's 64 bits are split over `lo` and `hi`
// vec4<u32>s. Each fill runs once with left shifts (towards higher squares)
// and once with right shifts, with the Kogge-Stone wrap masks keeping a shift
// from crossing the board edge. The CPU twin, line for line, is
// src/chess/sliders/kogge_stone.rs. The lanes come from the bitboard module (two
// vec4<u32> or one vec4<u64>); the wrap masks are generated from the Rust
// constants (kogge_stone_left_wraps, kogge_stone_right_wraps).

#import bitboard
#import kogge_stone_wraps

const KOGGE_STONE_SHIFTS = vec4<u32>(9u, 1u, 7u, 8u);

// Generators spread through the propagator in doubling steps 1, 2, 4; a
// last shift adds the squares the rays hit (bbGen4, bbPro4 in the OpenCL
// original). Each lane fills in its own direction from its own generators,
// and the lanes come back apart, so that a caller can count per direction.
fn kogge_stone_lanes_left(generators: Lanes, empty: Bitboard) -> Lanes {
    let wraps = kogge_stone_left_wraps();
    var generator = generators;
    var propagator = lanes_and(lanes_splat(empty), wraps);
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_left(propagator, KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, 2u * KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_left(propagator, 2u * KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, 4u * KOGGE_STONE_SHIFTS)));
    return lanes_and(wraps, lanes_shift_left(generator, KOGGE_STONE_SHIFTS));
}

fn kogge_stone_lanes_right(generators: Lanes, empty: Bitboard) -> Lanes {
    let wraps = kogge_stone_right_wraps();
    var generator = generators;
    var propagator = lanes_and(lanes_splat(empty), wraps);
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_right(propagator, KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, 2u * KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_right(propagator, 2u * KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, 4u * KOGGE_STONE_SHIFTS)));
    return lanes_and(wraps, lanes_shift_right(generator, KOGGE_STONE_SHIFTS));
}

fn kogge_stone_fill_left(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return lanes_union(kogge_stone_lanes_left(lanes_splat(sliders), empty));
}

fn kogge_stone_fill_right(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return lanes_union(kogge_stone_lanes_right(lanes_splat(sliders), empty));
}

// Attacks in all eight directions from every square of `sliders`, with the
// squares of `empty` letting rays through; mask with a ray table to get
// rook or bishop attacks.
fn kogge_stone_queen_attacks(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return kogge_stone_fill_left(sliders, empty) | kogge_stone_fill_right(sliders, empty);
}

// Set-wise slider moves: lanes 0 and 2 (shifts 9 and 7) are diagonal, lanes
// 1 and 3 (shifts 1 and 8) orthogonal, so the diagonal sliders go in the
// first and the orthogonal ones in the second. In one direction a square is
// reached from at most one slider (the nearest behind it blocks the rest),
// so counting each lane apart counts every (slider, destination) pair once.
fn kogge_stone_count_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard, targets: Bitboard) -> u32 {
    let generators = lanes_alternate(diagonal, orthogonal);
    let empty = ~occupied;
    return lanes_count_within(kogge_stone_lanes_left(generators, empty), targets)
        + lanes_count_within(kogge_stone_lanes_right(generators, empty), targets);
}

// The union of the attacks of the diagonal and orthogonal sliders.
fn kogge_stone_attacks_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard) -> Bitboard {
    let generators = lanes_alternate(diagonal, orthogonal);
    let empty = ~occupied;
    return lanes_union(kogge_stone_lanes_left(generators, empty)) | lanes_union(kogge_stone_lanes_right(generators, empty));
}
