// bitboard.wgsl — 64-bit bitboards as vec2<u32>.
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// A bitboard is vec2<u32>(lo, hi): bit i of lo is square i (a1 = 0), bit i
// of hi is square 32 + i. `&`, `|`, `^` and `~` work component-wise on
// vec2<u32>, so only shifts, counts and bit scans need helpers here.
// WGSL takes a shift amount modulo 32, so every shift below splits the
// amount into the 0, 1..31 and 32..63 cases.

alias Bitboard = vec2<u32>;

const BITBOARD_EMPTY = vec2<u32>(0u, 0u);
const BITBOARD_FULL = vec2<u32>(0xffffffffu, 0xffffffffu);

fn bitboard_is_empty(board: Bitboard) -> bool {
    return (board.x | board.y) == 0u;
}

fn bitboard_from_square(square: u32) -> Bitboard {
    let bit = 1u << (square & 31u);
    return select(vec2<u32>(0u, bit), vec2<u32>(bit, 0u), square < 32u);
}

fn bitboard_contains(board: Bitboard, square: u32) -> bool {
    let word = select(board.y, board.x, square < 32u);
    return ((word >> (square & 31u)) & 1u) != 0u;
}

// Shift towards higher squares by 0..63.
fn bitboard_shift_left(board: Bitboard, amount: u32) -> Bitboard {
    if amount == 0u {
        return board;
    }
    if amount < 32u {
        return vec2<u32>(board.x << amount, (board.y << amount) | (board.x >> (32u - amount)));
    }
    return vec2<u32>(0u, board.x << (amount - 32u));
}

// Shift towards lower squares by 0..63.
fn bitboard_shift_right(board: Bitboard, amount: u32) -> Bitboard {
    if amount == 0u {
        return board;
    }
    if amount < 32u {
        return vec2<u32>((board.x >> amount) | (board.y << (32u - amount)), board.y >> amount);
    }
    return vec2<u32>(board.y >> (amount - 32u), 0u);
}

fn bitboard_count(board: Bitboard) -> u32 {
    return countOneBits(board.x) + countOneBits(board.y);
}

// The lowest set square, or 64 for an empty board.
fn bitboard_first(board: Bitboard) -> u32 {
    if board.x != 0u {
        return firstTrailingBit(board.x);
    }
    if board.y != 0u {
        return 32u + firstTrailingBit(board.y);
    }
    return 64u;
}

// The board without its lowest set square (pop-lowest).
fn bitboard_without_first(board: Bitboard) -> Bitboard {
    if board.x != 0u {
        return vec2<u32>(board.x & (board.x - 1u), board.y);
    }
    return vec2<u32>(0u, board.y & (board.y - 1u));
}

fn bitboard_has_several(board: Bitboard) -> bool {
    return !bitboard_is_empty(bitboard_without_first(board));
}
