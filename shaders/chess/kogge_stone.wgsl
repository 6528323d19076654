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

// The wrap masks and the shift of one fill: towards higher squares (left
// shifts) when `left`, towards lower ones otherwise. Every caller passes a
// constant, so after inlining the compiler keeps one side, as the CPU twin's
// `fill` does with its shift function.
fn kogge_stone_wraps(left: bool) -> Lanes {
    if left {
        return kogge_stone_left_wraps();
    }
    return kogge_stone_right_wraps();
}

fn lanes_shift_toward(lanes: Lanes, amount: vec4<u32>, left: bool) -> Lanes {
    if left {
        return lanes_shift_left(lanes, amount);
    }
    return lanes_shift_right(lanes, amount);
}

// Generators spread through the propagator in doubling steps 1, 2, 4; a
// last shift adds the squares the rays hit (bbGen4, bbPro4 in the OpenCL
// original). Each lane fills in its own direction from its own generators,
// and the lanes come back apart, so that a caller can count per direction.
fn kogge_stone_lanes(generators: Lanes, empty: Bitboard, left: bool) -> Lanes {
    let wraps = kogge_stone_wraps(left);
    var generator = generators;
    var propagator = lanes_and(lanes_splat(empty), wraps);
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_toward(generator, KOGGE_STONE_SHIFTS, left)));
    propagator = lanes_and(propagator, lanes_shift_toward(propagator, KOGGE_STONE_SHIFTS, left));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_toward(generator, 2u * KOGGE_STONE_SHIFTS, left)));
    propagator = lanes_and(propagator, lanes_shift_toward(propagator, 2u * KOGGE_STONE_SHIFTS, left));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_toward(generator, 4u * KOGGE_STONE_SHIFTS, left)));
    return lanes_and(wraps, lanes_shift_toward(generator, KOGGE_STONE_SHIFTS, left));
}

// Both fills of the same generators, their lanes joined or counted apart.
fn kogge_stone_union(generators: Lanes, empty: Bitboard) -> Bitboard {
    return lanes_union(kogge_stone_lanes(generators, empty, true)) | lanes_union(kogge_stone_lanes(generators, empty, false));
}

// Attacks in all eight directions from every square of `sliders`, with the
// squares of `empty` letting rays through; mask with a ray table to get
// rook or bishop attacks.
fn kogge_stone_queen_attacks(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return kogge_stone_union(lanes_splat(sliders), empty);
}

// Set-wise slider moves: lanes 0 and 2 (shifts 9 and 7) are diagonal, lanes
// 1 and 3 (shifts 1 and 8) orthogonal, so the diagonal sliders go in the
// first and the orthogonal ones in the second. In one direction a square is
// reached from at most one slider (the nearest behind it blocks the rest),
// so counting each lane apart counts every (slider, destination) pair once.
fn kogge_stone_count_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard, targets: Bitboard) -> u32 {
    let generators = lanes_alternate(diagonal, orthogonal);
    let empty = ~occupied;
    return lanes_count_within(kogge_stone_lanes(generators, empty, true), targets)
        + lanes_count_within(kogge_stone_lanes(generators, empty, false), targets);
}

// The union of the attacks of the diagonal and orthogonal sliders.
fn kogge_stone_attacks_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard) -> Bitboard {
    return kogge_stone_union(lanes_alternate(diagonal, orthogonal), ~occupied);
}
