// kernels/perft_statistics.wgsl — chess perft with the published table's
// columns counted at the leaves: the perft kernels plus one leaf kernel.
//
// Reads: what kernels/perft.wgsl reads (tables, arena, roots, parameters,
// multiplicities) and the move list of the last stored level. Writes: what
// it writes, and in `count_leaf_statistics` STATISTICS_COLUMNS 64-bit totals
// per root, counter `root * STATISTICS_COLUMNS + column`, in the order of
// PerftStats::NAMES (nodes, captures, en passant, castles, promotions,
// checks, discovered checks, double checks, checkmates).
// One invocation per move of the last stored level's move list (a leaf):
// it sorts the move into the columns from its parent and the child,
// weighted by the parent's multiplicity. A separate module, so that plain
// perft does not compile this kernel. CPU twin: PerftStats::of_leaf
// (src/chess/stats.rs).

#import perft

const STATISTICS_COLUMNS: u32 = 9u;

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaf_statistics(invocation: GridInvocation) {
    let leaf = dispatch_slot(invocation);
    var root = NO_ROOT;
    var parent = 0u;
    // Each leaf adds 0 or 1 to a column.
    var columns: array<u32, STATISTICS_COLUMNS>;
    if leaf != NO_ROOT {
        let pair = perft_pair(leaf);
        parent = pair.x;
        root = root_of[parent];
        let position = perft_record(parent);
        let word = pair.y;
        let from_square = word & 63u;
        let to_square = (word >> 6u) & 63u;
        let piece = (word >> 12u) & 7u;
        let us = position.state & 1u;
        // Castling is the king taking its own rook; en passant a pawn's diagonal step to the square.
        let castling = piece == PIECE_KING && bitboard_contains(packed_color(position, us), to_square);
        let en_passant = piece == PIECE_PAWN && to_square == ((position.state >> 8u) & 255u)
            && ((from_square ^ to_square) & 7u) != 0u;
        let capture = en_passant || (!castling && bitboard_contains(packed_color(position, 1u - us), to_square));
        columns[0] = 1u;
        columns[1] = u32(capture);
        columns[2] = u32(en_passant);
        columns[3] = u32(castling);
        columns[4] = u32(((word >> 15u) & 7u) != PIECE_NONE);
        let child = play_move_word(position, word);
        let king = bitboard_first(packed_kings(child) & packed_color(child, 1u - us));
        if king != NO_SQUARE {
            let checkers = packed_attackers_to(child, king, us, packed_occupied(child));
            if !bitboard_is_empty(checkers) {
                // The square the checking piece that moved stands on: for castling, the rook's.
                let arrived = select(to_square, castling_targets(from_square, to_square).y, castling);
                columns[5] = 1u;
                columns[6] = u32(!bitboard_contains(checkers, arrived));
                columns[7] = u32(bitboard_has_several(checkers));
                columns[8] = u32(legal_move_count_packed(child) == 0u);
            }
        }
    }
    // Every invocation takes part in every column's sum (each has barriers).
    for (var column = 0u; column < STATISTICS_COLUMNS; column++) {
        var counter = NO_ROOT;
        var value = vec2<u32>(0u, 0u);
        if root != NO_ROOT {
            counter = root * STATISTICS_COLUMNS + column;
            value = perft_weight(parent, columns[column]);
        }
        accumulate_by_root(invocation.local, counter, value);
        workgroupBarrier();
    }
}
