// sliders/subtraction.wgsl — slider attacks by fill by subtraction.
//
// Reads: the ray tables (tables.wgsl). Writes: nothing. Library only: the
// `sliders` interface, plus set-wise east attacks for many rooks at once. Towards higher
// squares a ray's attacks are ray & (o ^ (o - 2r)); towards lower squares
// the nearest blocker is the ray's highest occupied square (firstLeadingBit)
// and the attacks are the ray without the blocker's own ray.
// CPU twin: src/chess/sliders/subtraction.rs.

#import bitboard
#import tables
#import sliders_by_piece

fn subtraction_positive_ray(square: u32, occupied: Bitboard, direction: u32) -> Bitboard {
    let ray = table_ray(direction, square);
    let blockers = occupied & ray;
    let twice_slider = bitboard_shift_left(bitboard_from_square(square), 1u);
    return ray & (blockers ^ bitboard_sub(blockers, twice_slider));
}

fn subtraction_negative_ray(square: u32, occupied: Bitboard, direction: u32) -> Bitboard {
    let ray = table_ray(direction, square);
    let blockers = occupied & ray;
    if bitboard_is_empty(blockers) {
        return ray;
    }
    return ray ^ table_ray(direction, bitboard_last(blockers));
}

fn slider_rook_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return subtraction_positive_ray(square, occupied, 0u) | subtraction_positive_ray(square, occupied, 1u)
        | subtraction_negative_ray(square, occupied, 4u) | subtraction_negative_ray(square, occupied, 5u);
}

fn slider_bishop_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return subtraction_positive_ray(square, occupied, 2u) | subtraction_positive_ray(square, occupied, 3u)
        | subtraction_negative_ray(square, occupied, 6u) | subtraction_negative_ray(square, occupied, 7u);
}

fn slider_queen_attacks(square: u32, occupied: Bitboard) -> Bitboard {
    return slider_rook_attacks(square, occupied) | slider_bishop_attacks(square, occupied);
}

// East attacks of every rook in `rooks` at once: the h-file squares stop each
// rank's borrow, so one subtraction serves all ranks (the SWAR form of fill by subtraction).
fn subtraction_east_attacks(rooks: Bitboard, empty: Bitboard) -> Bitboard {
    let file_h = bitboard_make(0x80808080u, 0x80808080u);
    let occupied_with_rooks = rooks | ~empty | file_h;
    let movable = rooks & ~file_h;
    let occupied_without_rooks = movable ^ occupied_with_rooks;
    return bitboard_sub(occupied_without_rooks, movable) ^ occupied_with_rooks;
}
