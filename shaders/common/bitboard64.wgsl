// bitboard64.wgsl — 64-bit bitboards as vec2<u32>, the portable representation.
//
// Reads: nothing (no bindings). Writes: nothing. Library of functions only.
// A bitboard is vec2<u32>(lo, hi): bit i of lo is square i (a1 = 0), bit i
// of hi is square 32 + i. `&`, `|`, `^` and `~` work component-wise on
// vec2<u32>, so only shifts, counts, bit scans and arithmetic need helpers.
// WGSL takes a shift amount modulo 32, so every shift below splits the
// amount into the 0, 1..31 and 32..63 cases. bitboard_u64.wgsl offers the
// same functions on native u64 for adapters with SHADER_INT64; every other
// module uses only these functions, so either can stand in as `bitboard`.

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

fn bitboard_make(low: u32, high: u32) -> Bitboard {
    return vec2<u32>(low, high);
}

fn bitboard_low(board: Bitboard) -> u32 {
    return board.x;
}

fn bitboard_high(board: Bitboard) -> u32 {
    return board.y;
}

// The highest set square, or 64 for an empty board.
fn bitboard_last(board: Bitboard) -> u32 {
    if board.y != 0u {
        return 32u + firstLeadingBit(board.y);
    }
    if board.x != 0u {
        return firstLeadingBit(board.x);
    }
    return 64u;
}

// a - b modulo 2^64: the borrow of the low word goes into the high word.
fn bitboard_sub(a: Bitboard, b: Bitboard) -> Bitboard {
    let borrow = select(0u, 1u, a.x < b.x);
    return vec2<u32>(a.x - b.x, a.y - b.y - borrow);
}

// The high word of the 64-bit product of two u32s, from 16-bit halves.
fn multiply_high(a: u32, b: u32) -> u32 {
    let a_low = a & 0xffffu;
    let a_high = a >> 16u;
    let b_low = b & 0xffffu;
    let b_high = b >> 16u;
    let low_low = a_low * b_low;
    let high_low = a_high * b_low;
    let low_high = a_low * b_high;
    // At most 2^32 - 1: it cannot wrap.
    let middle = (low_low >> 16u) + (high_low & 0xffffu) + low_high;
    return a_high * b_high + (high_low >> 16u) + (middle >> 16u);
}

// a * b modulo 2^64.
fn bitboard_mul(a: Bitboard, b: Bitboard) -> Bitboard {
    return vec2<u32>(a.x * b.x, multiply_high(a.x, b.x) + a.x * b.y + a.y * b.x);
}

// All 64 bits in reverse order (h8 becomes a1).
fn bitboard_reverse(board: Bitboard) -> Bitboard {
    return vec2<u32>(reverseBits(board.y), reverseBits(board.x));
}

fn swap_bytes_u32(word: u32) -> u32 {
    return (word << 24u) | ((word & 0xff00u) << 8u) | ((word >> 8u) & 0xff00u) | (word >> 24u);
}

// The ranks in reverse order (a vertical flip: a1 becomes a8).
fn bitboard_swap_bytes(board: Bitboard) -> Bitboard {
    return vec2<u32>(swap_bytes_u32(board.y), swap_bytes_u32(board.x));
}

// Four bitboards side by side, one per Kogge-Stone direction: the low words
// in one vec4<u32>, the high words in another.
struct Lanes {
    lo: vec4<u32>,
    hi: vec4<u32>,
}

fn lanes_make(low: vec4<u32>, high: vec4<u32>) -> Lanes {
    return Lanes(low, high);
}

fn lanes_splat(board: Bitboard) -> Lanes {
    return Lanes(vec4<u32>(board.x), vec4<u32>(board.y));
}

// Lanes holding four different bitboards.
fn lanes_from(a: Bitboard, b: Bitboard, c: Bitboard, d: Bitboard) -> Lanes {
    return Lanes(vec4<u32>(a.x, b.x, c.x, d.x), vec4<u32>(a.y, b.y, c.y, d.y));
}

// Lanes holding `a`, `b`, `a`, `b`: one set for lanes 0 and 2, another for 1 and 3.
fn lanes_alternate(a: Bitboard, b: Bitboard) -> Lanes {
    return Lanes(vec4<u32>(a.x, b.x, a.x, b.x), vec4<u32>(a.y, b.y, a.y, b.y));
}

// The squares of all four lanes inside `mask`, counted with multiplicity.
fn lanes_count_within(lanes: Lanes, mask: Bitboard) -> u32 {
    let counts = countOneBits(lanes.lo & vec4<u32>(mask.x)) + countOneBits(lanes.hi & vec4<u32>(mask.y));
    return counts.x + counts.y + counts.z + counts.w;
}

fn lanes_and(left: Lanes, right: Lanes) -> Lanes {
    return Lanes(left.lo & right.lo, left.hi & right.hi);
}

fn lanes_or(left: Lanes, right: Lanes) -> Lanes {
    return Lanes(left.lo | right.lo, left.hi | right.hi);
}

fn lanes_union(lanes: Lanes) -> Bitboard {
    return vec2<u32>(
        lanes.lo.x | lanes.lo.y | lanes.lo.z | lanes.lo.w,
        lanes.hi.x | lanes.hi.y | lanes.hi.z | lanes.hi.w,
    );
}

// Each lane shifted towards higher squares by its own amount in 1..63.
fn lanes_shift_left(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    let big = amount >= vec4<u32>(32u);
    let small = amount & vec4<u32>(31u);
    // A shift of 32 would be a shift of 0 in WGSL: mask the carry instead.
    let carry = select(lanes.lo >> (vec4<u32>(32u) - small), vec4<u32>(0u), small == vec4<u32>(0u));
    let lo = select(lanes.lo << small, vec4<u32>(0u), big);
    let hi = select((lanes.hi << small) | carry, lanes.lo << small, big);
    return Lanes(lo, hi);
}

// Each lane shifted towards lower squares by its own amount in 1..63.
fn lanes_shift_right(lanes: Lanes, amount: vec4<u32>) -> Lanes {
    let big = amount >= vec4<u32>(32u);
    let small = amount & vec4<u32>(31u);
    let carry = select(lanes.hi << (vec4<u32>(32u) - small), vec4<u32>(0u), small == vec4<u32>(0u));
    let lo = select((lanes.lo >> small) | carry, lanes.hi >> small, big);
    let hi = select(lanes.hi >> small, vec4<u32>(0u), big);
    return Lanes(lo, hi);
}
