// bitboard64_native.wgsl — 64-bit bitboards as native u64.
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// The same functions as bitboard.wgsl on u64, for adapters with the
// SHADER_INT64 feature; the memory layout is the same (low word first), so
// buffers and structs do not change. Bit counts and scans go through the
// 32-bit halves, which every backend supports.

alias Bitboard = u64;

const BITBOARD_EMPTY: u64 = 0lu;
const BITBOARD_FULL: u64 = 0xfffffffffffffffflu;

fn bitboard_make(low: u32, high: u32) -> Bitboard {
    return u64(low) | (u64(high) << 32u);
}

fn bitboard_low(board: Bitboard) -> u32 {
    return u32(board & 0xfffffffflu);
}

fn bitboard_high(board: Bitboard) -> u32 {
    return u32(board >> 32u);
}

fn bitboard_is_empty(board: Bitboard) -> bool {
    return board == 0lu;
}

fn bitboard_from_square(square: u32) -> Bitboard {
    return 1lu << square;
}

fn bitboard_contains(board: Bitboard, square: u32) -> bool {
    return ((board >> square) & 1lu) != 0lu;
}

// Shift towards higher squares by 0..63.
fn bitboard_shift_left(board: Bitboard, amount: u32) -> Bitboard {
    return board << amount;
}

// Shift towards lower squares by 0..63.
fn bitboard_shift_right(board: Bitboard, amount: u32) -> Bitboard {
    return board >> amount;
}

fn bitboard_count(board: Bitboard) -> u32 {
    return countOneBits(bitboard_low(board)) + countOneBits(bitboard_high(board));
}

// The lowest set square, or 64 for an empty board.
fn bitboard_first(board: Bitboard) -> u32 {
    let low = bitboard_low(board);
    if low != 0u {
        return firstTrailingBit(low);
    }
    let high = bitboard_high(board);
    if high != 0u {
        return 32u + firstTrailingBit(high);
    }
    return 64u;
}

fn bitboard_without_first(board: Bitboard) -> Bitboard {
    return board & (board - 1lu);
}

fn bitboard_has_several(board: Bitboard) -> bool {
    return (board & (board - 1lu)) != 0lu;
}

// The highest set square, or 64 for an empty board.
fn bitboard_last(board: Bitboard) -> u32 {
    let high = bitboard_high(board);
    if high != 0u {
        return 32u + firstLeadingBit(high);
    }
    let low = bitboard_low(board);
    if low != 0u {
        return firstLeadingBit(low);
    }
    return 64u;
}

fn bitboard_sub(a: Bitboard, b: Bitboard) -> Bitboard {
    return a - b;
}

fn bitboard_mul(a: Bitboard, b: Bitboard) -> Bitboard {
    return a * b;
}

fn bitboard_reverse(board: Bitboard) -> Bitboard {
    return bitboard_make(reverseBits(bitboard_high(board)), reverseBits(bitboard_low(board)));
}

fn swap_bytes_u32(word: u32) -> u32 {
    return (word << 24u) | ((word & 0xff00u) << 8u) | ((word >> 8u) & 0xff00u) | (word >> 24u);
}

fn bitboard_swap_bytes(board: Bitboard) -> Bitboard {
    return bitboard_make(swap_bytes_u32(bitboard_high(board)), swap_bytes_u32(bitboard_low(board)));
}

// Four bitboards side by side, one per Kogge-Stone direction.
alias Lanes = vec4<u64>;

fn lanes_make(low: vec4<u32>, high: vec4<u32>) -> Lanes {
    return vec4<u64>(low) | (vec4<u64>(high) << vec4<u32>(32u));
}

fn lanes_splat(board: Bitboard) -> Lanes {
    return vec4<u64>(board);
}

// Lanes holding four different bitboards.
fn lanes_from(a: Bitboard, b: Bitboard, c: Bitboard, d: Bitboard) -> Lanes {
    return vec4<u64>(a, b, c, d);
}

// Lanes holding `a`, `b`, `a`, `b`: one set for lanes 0 and 2, another for 1 and 3.
fn lanes_alternate(a: Bitboard, b: Bitboard) -> Lanes {
    return vec4<u64>(a, b, a, b);
}

// The squares of all four lanes inside `mask`, counted with multiplicity.
fn lanes_count_within(lanes: Lanes, mask: Bitboard) -> u32 {
    let inside = lanes & vec4<u64>(mask);
    let counts = countOneBits(vec4<u32>(inside & vec4<u64>(0xfffffffflu))) + countOneBits(vec4<u32>(inside >> vec4<u32>(32u)));
    return counts.x + counts.y + counts.z + counts.w;
}

fn lanes_and(left: Lanes, right: Lanes) -> Lanes {
    return left & right;
}

fn lanes_or(left: Lanes, right: Lanes) -> Lanes {
    return left | right;
}

fn lanes_union(lanes: Lanes) -> Bitboard {
    return lanes.x | lanes.y | lanes.z | lanes.w;
}

fn lanes_shift_left(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    return lanes << amount;
}

fn lanes_shift_right(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    return lanes >> amount;
}
