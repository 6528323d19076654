// kogge_stone.wgsl — the vectorised Kogge-Stone fill of the OpenCL generator this crate ports.
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// Four lanes carry the four shift directions 9, 1, 7 and 8 at once, as the
// OpenCL original's ulong4 does; a lane's 64 bits are split over `lo` and `hi`
// vec4<u32>s. Each fill runs once with left shifts (towards higher squares)
// and once with right shifts, with the Kogge-Stone wrap masks keeping a shift
// from crossing the board edge. The CPU twin, line for line, is
// src/sliders/kogge_stone.rs. The lanes come from the bitboard module (two
// vec4<u32> or one vec4<u64>); the wrap masks are generated from the Rust
// constants (kogge_stone_left_wraps, kogge_stone_right_wraps).

#import bitboard
#import kogge_stone_wraps

const KOGGE_STONE_SHIFTS = vec4<u32>(9u, 1u, 7u, 8u);

// Generator spreads through the propagator in doubling steps 1, 2, 4; a
// last shift adds the squares the rays hit (seed: bbGen4, bbPro4).
fn kogge_stone_fill_left(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    let wraps = kogge_stone_left_wraps();
    var generator = lanes_splat(sliders);
    var propagator = lanes_and(lanes_splat(empty), wraps);
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_left(propagator, KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, 2u * KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_left(propagator, 2u * KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_left(generator, 4u * KOGGE_STONE_SHIFTS)));
    generator = lanes_and(wraps, lanes_shift_left(generator, KOGGE_STONE_SHIFTS));
    return lanes_union(generator);
}

fn kogge_stone_fill_right(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    let wraps = kogge_stone_right_wraps();
    var generator = lanes_splat(sliders);
    var propagator = lanes_and(lanes_splat(empty), wraps);
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_right(propagator, KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, 2u * KOGGE_STONE_SHIFTS)));
    propagator = lanes_and(propagator, lanes_shift_right(propagator, 2u * KOGGE_STONE_SHIFTS));
    generator = lanes_or(generator, lanes_and(propagator, lanes_shift_right(generator, 4u * KOGGE_STONE_SHIFTS)));
    generator = lanes_and(wraps, lanes_shift_right(generator, KOGGE_STONE_SHIFTS));
    return lanes_union(generator);
}

// Attacks in all eight directions from every square of `sliders`, with the
// squares of `empty` letting rays through; mask with a ray table to get
// rook or bishop attacks.
fn kogge_stone_queen_attacks(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return kogge_stone_fill_left(sliders, empty) | kogge_stone_fill_right(sliders, empty);
}
