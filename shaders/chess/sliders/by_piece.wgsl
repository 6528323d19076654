// sliders/by_piece.wgsl — the set-wise half of the `sliders` interface for
// the table-based algorithms, one slider at a time.
//
// Reads: the tables, through the importing module's slider_rook_attacks and
// slider_bishop_attacks. Writes: nothing. Library only: hyperbola, sbamg,
// subtraction and magic import it; a queen is in both sets and so counts
// as a rook plus a bishop.

#import bitboard

// The union of the attacks of the diagonal and orthogonal sliders.
fn slider_attacks_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard) -> Bitboard {
    var attacks = BITBOARD_EMPTY;
    var remaining = diagonal;
    while !bitboard_is_empty(remaining) {
        attacks = attacks | slider_bishop_attacks(bitboard_first(remaining), occupied);
        remaining = bitboard_without_first(remaining);
    }
    remaining = orthogonal;
    while !bitboard_is_empty(remaining) {
        attacks = attacks | slider_rook_attacks(bitboard_first(remaining), occupied);
        remaining = bitboard_without_first(remaining);
    }
    return attacks;
}

// The (slider, target) pairs with the target in `targets`.
fn slider_count_setwise(diagonal: Bitboard, orthogonal: Bitboard, occupied: Bitboard, targets: Bitboard) -> u32 {
    var count = 0u;
    var remaining = diagonal;
    while !bitboard_is_empty(remaining) {
        count += bitboard_count(slider_bishop_attacks(bitboard_first(remaining), occupied) & targets);
        remaining = bitboard_without_first(remaining);
    }
    remaining = orthogonal;
    while !bitboard_is_empty(remaining) {
        count += bitboard_count(slider_rook_attacks(bitboard_first(remaining), occupied) & targets);
        remaining = bitboard_without_first(remaining);
    }
    return count;
}
