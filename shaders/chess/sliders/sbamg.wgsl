// sliders/sbamg.wgsl — slider attacks by SBAMG.
//
// Reads: the line masks and SBAMG outer squares (tables.wgsl). Writes:
// nothing. Library only: the `sliders` interface. With the line's ends set in
// the occupancy, the nearest blocker at or below the slider is b =
// msb(line & squares up to the slider), found with firstLeadingBit; then
// ((line - (3 << b)) ^ line) masked by the line is the attack set. Ranks and
// files as the SBAMG description gives them, diagonals the same way.
// CPU twin: src/chess/sliders/sbamg.rs.

#import bitboard
#import tables
#import sliders_by_piece

fn sbamg_line(square: u32, occupied: Bitboard, kind: u32) -> Bitboard {
    let mask = table_line_mask(kind, square);
    let line = (occupied & mask) | table_sbamg_outer(kind, square);
    let at_or_below = bitboard_sub(bitboard_shift_left(bitboard_from_square(square), 1u), bitboard_make(1u, 0u));
    let lower_blocker = bitboard_last(line & at_or_below);
    let three = bitboard_shift_left(bitboard_make(3u, 0u), lower_blocker);
    return (bitboard_sub(line, three) ^ line) & mask;
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return sbamg_line(square, occupied, 0u) | sbamg_line(square, occupied, 1u);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return sbamg_line(square, occupied, 2u) | sbamg_line(square, occupied, 3u);
}

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_rook_attacks(square, occupied) | slider_bishop_attacks(square, occupied);
}
