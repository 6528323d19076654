// bitboard81.wgsl — 81-square bitboards for Shogi as vec4<u32>.
//
// Reads: nothing. Writes: nothing. Library only: square i is bit
// i % BOARD81_WORD_BITS of word i / BOARD81_WORD_BITS, the last word unused.
// The composing host generates BOARD81_WORD_BITS and BOARD81_ALL for its
// layout (src/shogi/gpu/layout.rs, BoardWords): 32 for the u128's bits in
// order, 27 for three ranks to a word. The vector operators &, |, ^ work on
// it directly; complement with board81_not.

alias Board81 = vec4<u32>;

const BOARD81_EMPTY = vec4<u32>(0u, 0u, 0u, 0u);

fn board81_not(board: Board81) -> Board81 {
    return ~board & BOARD81_ALL;
}

fn board81_is_empty(board: Board81) -> bool {
    return all(board == BOARD81_EMPTY);
}

fn board81_from_square(square: u32) -> Board81 {
    var board = BOARD81_EMPTY;
    board[square / BOARD81_WORD_BITS] = 1u << (square % BOARD81_WORD_BITS);
    return board;
}

fn board81_contains(board: Board81, square: u32) -> bool {
    return ((board[square / BOARD81_WORD_BITS] >> (square % BOARD81_WORD_BITS)) & 1u) != 0u;
}

fn board81_count(board: Board81) -> u32 {
    let counts = countOneBits(board);
    return counts.x + counts.y + counts.z + counts.w;
}

// The lowest square, or 128 when empty.
fn board81_first(board: Board81) -> u32 {
    if board.x != 0u {
        return firstTrailingBit(board.x);
    }
    if board.y != 0u {
        return BOARD81_WORD_BITS + firstTrailingBit(board.y);
    }
    if board.z != 0u {
        return 2u * BOARD81_WORD_BITS + firstTrailingBit(board.z);
    }
    return 128u;
}

// The highest square, or 128 when empty.
fn board81_last(board: Board81) -> u32 {
    if board.z != 0u {
        return 2u * BOARD81_WORD_BITS + firstLeadingBit(board.z);
    }
    if board.y != 0u {
        return BOARD81_WORD_BITS + firstLeadingBit(board.y);
    }
    if board.x != 0u {
        return firstLeadingBit(board.x);
    }
    return 128u;
}

fn board81_without_first(board: Board81) -> Board81 {
    var result = board;
    if board.x != 0u {
        result.x = board.x & (board.x - 1u);
    } else if board.y != 0u {
        result.y = board.y & (board.y - 1u);
    } else if board.z != 0u {
        result.z = board.z & (board.z - 1u);
    }
    return result;
}
