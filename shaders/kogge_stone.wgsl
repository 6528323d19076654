// kogge_stone.wgsl — the seed's vectorised Kogge-Stone fill (seed 002).
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// Four lanes carry the four shift directions 9, 1, 7 and 8 at once, as the
// seed's ulong4 does; a lane's 64 bits are split over `lo` and `hi`
// vec4<u32>s. Each fill runs once with left shifts (towards higher squares)
// and once with right shifts, with the seed's wrap masks keeping a shift
// from crossing the board edge. The CPU twin, line for line, is
// src/sliders/kogge_stone.rs. Needs bitboard.wgsl and the generated
// constants KOGGE_STONE_LEFT_WRAPS_* and KOGGE_STONE_RIGHT_WRAPS_*.

#import bitboard

struct Lanes {
    lo: vec4<u32>,
    hi: vec4<u32>,
}

const KOGGE_STONE_SHIFTS = vec4<u32>(9u, 1u, 7u, 8u);

fn lanes_splat(board: Bitboard) -> Lanes {
    return Lanes(vec4<u32>(board.x), vec4<u32>(board.y));
}

fn lanes_and(left: Lanes, right: Lanes) -> Lanes {
    return Lanes(left.lo & right.lo, left.hi & right.hi);
}

fn lanes_or(left: Lanes, right: Lanes) -> Lanes {
    return Lanes(left.lo | right.lo, left.hi | right.hi);
}

fn lanes_union(lanes: Lanes) -> Bitboard {
    return vec2<u32>(
        lanes.lo.x | lanes.lo.y | lanes.lo.z | lanes.lo.w,
        lanes.hi.x | lanes.hi.y | lanes.hi.z | lanes.hi.w,
    );
}

// Each lane shifted towards higher squares by its own amount in 1..63.
fn lanes_shift_left(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    let big = amount >= vec4<u32>(32u);
    let small = amount & vec4<u32>(31u);
    // A shift of 32 would be a shift of 0 in WGSL: mask the carry instead.
    let carry = select(lanes.lo >> (vec4<u32>(32u) - small), vec4<u32>(0u), small == vec4<u32>(0u));
    let lo = select(lanes.lo << small, vec4<u32>(0u), big);
    let hi = select((lanes.hi << small) | carry, lanes.lo << small, big);
    return Lanes(lo, hi);
}

// Each lane shifted towards lower squares by its own amount in 1..63.
fn lanes_shift_right(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    let big = amount >= vec4<u32>(32u);
    let small = amount & vec4<u32>(31u);
    let carry = select(lanes.hi << (vec4<u32>(32u) - small), vec4<u32>(0u), small == vec4<u32>(0u));
    let lo = select((lanes.lo >> small) | carry, lanes.hi >> small, big);
    let hi = select(lanes.hi >> small, vec4<u32>(0u), big);
    return Lanes(lo, hi);
}

// Generator spreads through the propagator in doubling steps 1, 2, 4; a
// last shift adds the squares the rays hit (seed: bbGen4, bbPro4).
fn kogge_stone_fill_left(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    let wraps = Lanes(KOGGE_STONE_LEFT_WRAPS_LO, KOGGE_STONE_LEFT_WRAPS_HI);
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
    let wraps = Lanes(KOGGE_STONE_RIGHT_WRAPS_LO, KOGGE_STONE_RIGHT_WRAPS_HI);
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
