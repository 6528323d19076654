// sliders/kogge_stone.wgsl — slider attacks by the vectorised Kogge-Stone fill.
//
// Reads: the ray tables (tables.wgsl). Writes: nothing. Library only: the
// `sliders` interface (slider_rook_attacks, slider_bishop_attacks,
// slider_queen_attacks, and the set-wise slider_attacks_setwise and
// slider_count_setwise) that movegen.wgsl calls. One eight-direction fill,
// masked by the rook or bishop rays; set-wise, one fill for every slider at once. CPU twin: src/chess/sliders/kogge_stone.rs.

#import kogge_stone
#import tables

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return kogge_stone_queen_attacks(bitboard_from_square(square), ~occupied);
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_queen_attacks(square, occupied) & table_rook_rays(square);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_queen_attacks(square, occupied) & table_bishop_rays(square);
}

fn slider_attacks_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard) -> Bitboard {
    return kogge_stone_attacks_setwise(diagonal, orthogonal, occupied);
}

fn slider_count_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard, targets: Bitboard) -> u32 {
    return kogge_stone_count_setwise(diagonal, orthogonal, occupied, targets);
}
