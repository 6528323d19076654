// kernels/perft_statistics.wgsl — chess perft with the published table's
// columns counted at the leaves: the perft kernels plus one leaf kernel.
//
// Reads: what kernels/perft.wgsl reads (tables, arena, roots, parameters,
// multiplicities). Writes: what it writes, and in `count_leaf_statistics`
// STATISTICS_COLUMNS 64-bit totals per root, counter `root *
// STATISTICS_COLUMNS + column`, in the order of PerftStats::NAMES (nodes,
// captures, en passant, castles, promotions, checks, discovered checks,
// double checks, checkmates).
// One invocation per arena position of the last stored level: it plays
// each legal move and sorts the child into the columns, weighted by the
// position's multiplicity. A separate module, so that plain perft does not
// compile this kernel. CPU twin: PerftStats::of_leaf (src/chess/stats.rs).

#import perft

const STATISTICS_COLUMNS: u32 = 9u;

@compute @workgroup_size(POSITION_WORKGROUP)
fn count_leaf_statistics(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let leaf = leaf_slot(workgroup, groups, local);
    var root = NO_ROOT;
    var slot = 0u;
    // Per position at most MAX_LEGAL_MOVES leaves, so u32 holds each column.
    var columns: array<u32, STATISTICS_COLUMNS>;
    if leaf != NO_ROOT {
        slot = leaf;
        let board = arena_position(slot);
        root = root_of[slot];
        let us = board.side_to_move;
        let ours = position_color(board, us);
        let theirs = position_color(board, 1u - us);
        var walk = move_walk_begin(board);
        loop {
            let step = move_walk_next(board, &walk);
            if step.from_square == NO_SQUARE {
                break;
            }
            // Castling is the king taking its own rook; en passant a pawn's diagonal step to the square.
            let castling = step.piece == PIECE_KING && bitboard_contains(ours, step.to_square);
            let en_passant = step.piece == PIECE_PAWN && step.to_square == board.en_passant
                && ((step.from_square ^ step.to_square) & 7u) != 0u;
            let capture = en_passant || (!castling && bitboard_contains(theirs, step.to_square));
            columns[0] += 1u;
            columns[1] += u32(capture);
            columns[2] += u32(en_passant);
            columns[3] += u32(castling);
            columns[4] += u32(step.promotion != PIECE_NONE);
            let child = play_step(board, step);
            let king = bitboard_first(child.kings & position_color(child, 1u - us));
            if king == NO_SQUARE {
                continue;
            }
            let checkers = attackers_to(child, king, us, position_occupied(child));
            if bitboard_is_empty(checkers) {
                continue;
            }
            // The square the checking piece that moved stands on: for castling, the rook's.
            let arrived = select(step.to_square, castling_targets(step.from_square, step.to_square).y, castling);
            columns[5] += 1u;
            columns[6] += u32(!bitboard_contains(checkers, arrived));
            columns[7] += u32(bitboard_count(checkers) > 1u);
            columns[8] += u32(legal_move_count(child) == 0u);
        }
    }
    // Every invocation takes part in every column's sum (each has barriers).
    for (var column = 0u; column < STATISTICS_COLUMNS; column++) {
        var counter = NO_ROOT;
        var value = vec2<u32>(0u, 0u);
        if root != NO_ROOT {
            counter = root * STATISTICS_COLUMNS + column;
            value = perft_weight(slot, columns[column]);
        }
        accumulate_by_root(local, counter, value);
        workgroupBarrier();
    }
}
