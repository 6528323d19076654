// sliders/kogge_stone.wgsl — slider attacks by the vectorised Kogge-Stone fill.
//
// Reads: the ray tables (tables.wgsl). Writes: nothing. Library only: the
// `sliders` interface (slider_rook_attacks, slider_bishop_attacks,
// slider_queen_attacks) that movegen.wgsl calls. One eight-direction fill,
// masked by the rook or bishop rays. CPU twin: src/sliders/kogge_stone.rs.

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
