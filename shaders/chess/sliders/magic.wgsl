// sliders/magic.wgsl — slider attacks by fancy magic bitboards.
//
// Reads: the magic entries and the shared attack table (tables.wgsl; built
// by build.rs for the CPU and uploaded as they are). Writes: nothing.
// Library only: the `sliders` interface. index = offset + ((occupied & mask)
// * magic) >> shift; on vec2<u32> bitboards the 64-bit product is put
// together from 16-bit partial products (bitboard_mul).
// CPU twin: src/chess/sliders/magic.rs.

#import bitboard
#import tables
#import sliders_by_piece

fn magic_attacks(bishop: bool, square: u32, occupied: Bitboard) -> Bitboard {
    let mask = table_magic_word(bishop, square, 0u);
    let multiplier = table_magic_word(bishop, square, 1u);
    let placement = table_magic_word(bishop, square, 2u);
    let product = bitboard_mul(occupied & mask, multiplier);
    let index = bitboard_low(bitboard_shift_right(product, bitboard_low(placement)));
    return table_magic_attacks(bitboard_high(placement) + index);
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return magic_attacks(false, square, occupied);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return magic_attacks(true, square, occupied);
}

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return magic_attacks(false, square, occupied) | magic_attacks(true, square, occupied);
}
