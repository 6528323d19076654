// bitboard81.wgsl — 81-square bitboards for Shogi as vec4<u32>.
//
// Reads: nothing. Writes: nothing. Library only: square i is bit
// i % BOARD81_WORD_BITS of word i / BOARD81_WORD_BITS, the last word unused.
// The composing host generates BOARD81_WORD_BITS and BOARD81_ALL for its
// layout (src/shogi/gpu/layout.rs, BoardWords): 32 for the u128's bits in
// order, 27 for three ranks to a word. The vector operators &, |, ^ work on
// it directly. `a & ~b` takes `b` out of a set `a` on the board (the
// unused bits stay clear); board81_not is the complement on the board.

alias Board81 = vec4<u32>;

const BOARD81_EMPTY = vec4<u32>(0u, 0u, 0u, 0u);

// A bitboard read from memory with its unused fourth word cleared: a
// compiler then knows that word is zero in every set made from it, and
// holds three registers a set instead of four.
fn board81_read(board: Board81) -> Board81 {
    return vec4<u32>(board.xyz, 0u);
}

fn board81_not(board: Board81) -> Board81 {
    return ~board & BOARD81_ALL;
}

fn board81_is_empty(board: Board81) -> bool {
    return all(board == BOARD81_EMPTY);
}

// The helpers below are branch-free: they are inlined at every use, and
// branches inside the Shogi kernels' loops cost drivers' compilers dearly.
fn board81_from_square(square: u32) -> Board81 {
    let word = square / BOARD81_WORD_BITS;
    return select(BOARD81_EMPTY, vec4<u32>(1u << (square % BOARD81_WORD_BITS)), vec4<u32>(word) == vec4<u32>(0u, 1u, 2u, 3u));
}

fn board81_contains(board: Board81, square: u32) -> bool {
    return !board81_is_empty(board & board81_from_square(square));
}

fn board81_count(board: Board81) -> u32 {
    let counts = countOneBits(board);
    return counts.x + counts.y + counts.z + counts.w;
}

// The lowest square, or 128 when empty.
fn board81_first(board: Board81) -> u32 {
    let bits = firstTrailingBit(board) + vec4<u32>(0u, 1u, 2u, 0u) * BOARD81_WORD_BITS;
    return select(select(select(128u, bits.z, board.z != 0u), bits.y, board.y != 0u), bits.x, board.x != 0u);
}

// The highest square, or 128 when empty.
fn board81_last(board: Board81) -> u32 {
    let bits = firstLeadingBit(board) + vec4<u32>(0u, 1u, 2u, 0u) * BOARD81_WORD_BITS;
    return select(select(select(128u, bits.x, board.x != 0u), bits.y, board.y != 0u), bits.z, board.z != 0u);
}

// Squares 0..=square (every square when `square` is past the board).
fn board81_up_to(square: u32) -> Board81 {
    let offsets = i32(square) - vec4<i32>(0, 1, 2, 3) * i32(BOARD81_WORD_BITS);
    let partial = (vec4<u32>(2u) << vec4<u32>(clamp(offsets, vec4<i32>(0), vec4<i32>(30)))) - vec4<u32>(1u);
    let full = select(partial, vec4<u32>(0xffffffffu), offsets >= vec4<i32>(31));
    return select(full, BOARD81_EMPTY, offsets < vec4<i32>(0)) & BOARD81_ALL;
}

// Squares square..=80 (none when `square` is past the board).
fn board81_from(square: u32) -> Board81 {
    return select(board81_not(board81_up_to(square - 1u)), BOARD81_EMPTY, square > 80u);
}

fn board81_without_first(board: Board81) -> Board81 {
    let cleared = board & (board - vec4<u32>(1u));
    return vec4<u32>(
        cleared.x,
        select(cleared.y, board.y, board.x != 0u),
        select(cleared.z, board.z, board.x != 0u || board.y != 0u),
        board.w,
    );
}
