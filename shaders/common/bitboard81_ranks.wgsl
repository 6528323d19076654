// bitboard81_ranks.wgsl — 81-square bitboards for Shogi, three ranks to a word.
//
// Reads: nothing. Writes: nothing. Library only: stands in for bitboard81.wgsl
// when a pipeline is built with BoardWords::ThreeRanks. Square i is bit
// i % 27 of word i / 27 (x: ranks a-c, y: d-f, z: g-i; w unused), so no rank
// straddles two words; the host packs the tables and positions the same way.
// The same functions and operators as bitboard81.wgsl.

alias Board81 = vec4<u32>;

const BOARD81_EMPTY = vec4<u32>(0u, 0u, 0u, 0u);
const BOARD81_ALL = vec4<u32>(0x7ffffffu, 0x7ffffffu, 0x7ffffffu, 0u);

fn board81_not(board: Board81) -> Board81 {
    return ~board & BOARD81_ALL;
}

fn board81_is_empty(board: Board81) -> bool {
    return all(board == BOARD81_EMPTY);
}

fn board81_from_square(square: u32) -> Board81 {
    var board = BOARD81_EMPTY;
    board[square / 27u] = 1u << (square % 27u);
    return board;
}

fn board81_contains(board: Board81, square: u32) -> bool {
    return ((board[square / 27u] >> (square % 27u)) & 1u) != 0u;
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
        return 27u + firstTrailingBit(board.y);
    }
    if board.z != 0u {
        return 54u + firstTrailingBit(board.z);
    }
    return 128u;
}

// The highest square, or 128 when empty.
fn board81_last(board: Board81) -> u32 {
    if board.z != 0u {
        return 54u + firstLeadingBit(board.z);
    }
    if board.y != 0u {
        return 27u + firstLeadingBit(board.y);
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
