// sliders/dumb7fill.wgsl — slider attacks by Dumb7Fill.
//
// Reads: the ray tables (tables.wgsl). Writes: nothing. Library only: the
// `sliders` interface, set-wise functions included. The Kogge-Stone lanes and
// wrap masks, filled by seven plain steps instead of three doubling ones. CPU twin: src/chess/sliders/dumb7fill.rs.

#import bitboard
#import kogge_stone
#import tables

// One fill towards higher squares when `left`, lower ones otherwise (a
// constant at every call, as in kogge_stone_lanes).
fn dumb7fill_lanes(generators: Lanes, empty: Bitboard, left: bool) -> Lanes {
    let wraps = kogge_stone_wraps(left);
    let propagator = lanes_and(lanes_splat(empty), wraps);
    var flood = generators;
    for (var step = 0u; step < 6u; step++) {
        flood = lanes_or(flood, lanes_and(propagator, lanes_shift_toward(flood, KOGGE_STONE_SHIFTS, left)));
    }
    return lanes_and(wraps, lanes_shift_toward(flood, KOGGE_STONE_SHIFTS, left));
}

fn dumb7fill_union(generators: Lanes, empty: Bitboard) -> Bitboard {
    return lanes_union(dumb7fill_lanes(generators, empty, true)) | lanes_union(dumb7fill_lanes(generators, empty, false));
}

// Set-wise: attacks of every square in `sliders`.
fn dumb7fill_queen_attacks(sliders: Bitboard, empty: Bitboard) -> Bitboard {
    return dumb7fill_union(lanes_splat(sliders), empty);
}

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return dumb7fill_queen_attacks(bitboard_from_square(square), ~occupied);
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_queen_attacks(square, occupied) & table_rook_rays(square);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_queen_attacks(square, occupied) & table_bishop_rays(square);
}

// Set-wise, as kogge_stone_count_setwise: diagonal sliders in lanes 0 and 2,
// orthogonal ones in lanes 1 and 3, each lane counted apart.
fn slider_attacks_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard) -> Bitboard {
    return dumb7fill_union(lanes_alternate(diagonal, orthogonal), ~occupied);
}

fn slider_count_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard, targets: Bitboard) -> u32 {
    let generators = lanes_alternate(diagonal, orthogonal);
    return lanes_count_within(dumb7fill_lanes(generators, ~occupied, true), targets)
        + lanes_count_within(dumb7fill_lanes(generators, ~occupied, false), targets);
}
