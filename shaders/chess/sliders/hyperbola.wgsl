// sliders/hyperbola.wgsl — slider attacks by Hyperbola Quintessence.
//
// Reads: the line masks (tables.wgsl). Writes: nothing. Library only: the
// `sliders` interface. Along a line, `o - 2r` gives the attacks towards
// higher squares and the same on the mirrored board those towards lower
// ones: files and diagonals mirror by a byte swap, ranks by reverseBits.
// CPU twin: src/chess/sliders/hyperbola.rs.

#import bitboard
#import tables
#import sliders_by_piece

fn hyperbola_line(square: u32, occupied: Bitboard, kind: u32) -> Bitboard {
    let mask = table_line_mask(kind, square);
    let slider = bitboard_from_square(square);
    let line = occupied & mask;
    let forward = bitboard_sub(line, bitboard_shift_left(slider, 1u));
    var reverse: Bitboard;
    if kind == 0u {
        let mirrored = bitboard_sub(bitboard_reverse(line), bitboard_shift_left(bitboard_reverse(slider), 1u));
        reverse = bitboard_reverse(mirrored);
    } else {
        let mirrored = bitboard_sub(bitboard_swap_bytes(line), bitboard_shift_left(bitboard_swap_bytes(slider), 1u));
        reverse = bitboard_swap_bytes(mirrored);
    }
    return (forward ^ reverse) & mask;
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return hyperbola_line(square, occupied, 0u) | hyperbola_line(square, occupied, 1u);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return hyperbola_line(square, occupied, 2u) | hyperbola_line(square, occupied, 3u);
}

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_rook_attacks(square, occupied) | slider_bishop_attacks(square, occupied);
}
