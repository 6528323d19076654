// kernels/per_piece.wgsl — the OpenCL generator's kernel shape: one invocation per
// (position, square).
//
// Reads: `positions` (binding 1), the attack tables (binding 0), `parameters`
// (binding 4). Writes: `piece_moves` (binding 2), 64 entries per position,
// one per square in a1..h8 order; `status` (binding 3) on a fault.
// Dispatch: one workgroup of 64 invocations per position; workgroup x is the
// position, the local invocation index is the square (as the OpenCL kernel's `lid`).
// Entry points: `per_piece_pseudo_legal` (the OpenCL generator's semantics: no castling,
// en passant, promotion or legality; the other side's pieces get their
// attack sets) and `per_piece_legal` (full rules; only the side to move's
// pieces get destinations).

#import movegen
#import movegen_io

// Rust twin: PieceMovesRecord in src/chess/gpu/layout.rs.
struct PieceMovesRecord {
    destinations: Bitboard,
    // The square, 0..63.
    from_square: u32,
    // Piece code 1..6 (0 for an empty square), plus 8 for a black piece.
    piece: u32,
}

@group(0) @binding(2) var<storage, read_write> piece_moves: array<PieceMovesRecord>;

fn piece_code(board: Position, square: u32) -> u32 {
    let piece = position_piece_on(board, square);
    return select(piece, piece | 8u, piece != PIECE_NONE && bitboard_contains(board.black, square));
}

// The record of `square` in position `index`: with `legal` the side to
// move's legal destinations, otherwise every piece's pseudo-legal ones.
fn per_piece(index: u32, square: u32, legal: bool) {
    if index >= parameters.count {
        return;
    }
    let board = unpack_position(positions[index]);
    var result: PieceMovesRecord;
    result.from_square = square;
    result.piece = piece_code(board, square);
    result.destinations = BITBOARD_EMPTY;
    if !legal {
        result.destinations = kogge_stone_pseudo_legal_destinations(board, square);
    } else if bitboard_contains(position_color(board, board.side_to_move), square) {
        let context = make_context(board);
        if context.king == NO_SQUARE {
            atomicOr(&status, FAULT_INVALID_POSITION);
        } else {
            result.destinations = legal_destinations(board, context, result.piece & 7u, square);
        }
    }
    piece_moves[index * 64u + square] = result;
}

@compute @workgroup_size(64)
fn per_piece_pseudo_legal(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) square: u32) {
    per_piece(workgroup.x, square, false);
}

@compute @workgroup_size(64)
fn per_piece_legal(@builtin(workgroup_id) workgroup: vec3<u32>, @builtin(local_invocation_index) square: u32) {
    per_piece(workgroup.x, square, true);
}
