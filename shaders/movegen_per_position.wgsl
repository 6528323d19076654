// movegen_per_position.wgsl — one invocation per position.
//
// Reads: `positions` (binding 1), the attack tables (binding 0), `parameters`
// (binding 4). Writes: `position_moves` (binding 2), one record per position:
// the legal destinations of every square (empty for squares without a piece
// of the side to move), the pawns that can capture en passant, the castling
// moves and the legal move count; `status` (binding 3) on a fault.
// Dispatch: workgroups of 64 invocations; global invocation x is the position.

#import movegen
#import movegen_io

// Rust twin: GpuPositionMoves in src/gpu/layout.rs.
struct PositionMoves {
    destinations: array<Bitboard, 64>,
    // Pawns whose destinations include an en passant capture.
    en_passant_from: Bitboard,
    // Legal moves; each promotion destination counts four times.
    move_count: u32,
    // Bit 0: king-side castling is legal; bit 1: queen-side.
    castling: u32,
}

@group(0) @binding(2) var<storage, read_write> position_moves: array<PositionMoves>;

@compute @workgroup_size(64)
fn per_position(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.position_count {
        return;
    }
    let board = unpack_position(positions[index]);
    let context = make_context(board);
    for (var square = 0u; square < 64u; square++) {
        position_moves[index].destinations[square] = BITBOARD_EMPTY;
    }
    position_moves[index].en_passant_from = BITBOARD_EMPTY;
    position_moves[index].move_count = 0u;
    position_moves[index].castling = 0u;
    if context.king == NO_SQUARE {
        atomicOr(&status, FAULT_NO_KING);
        return;
    }

    var count = 0u;
    var en_passant_from = BITBOARD_EMPTY;
    var pieces = context.ours;
    while !bitboard_is_empty(pieces) {
        let square = bitboard_first(pieces);
        pieces = bitboard_without_first(pieces);
        let piece = board_piece_on(board, square);
        let destinations = legal_destinations(board, context, piece, square);
        position_moves[index].destinations[square] = destinations;
        count += move_count_of(piece, destinations);
        if piece == PIECE_PAWN && board.en_passant != NO_SQUARE && bitboard_contains(destinations, board.en_passant) {
            en_passant_from = en_passant_from | bitboard_from_square(square);
        }
        if piece == PIECE_KING {
            let base = select(0u, 56u, context.us == BLACK);
            let king_moves = select(BITBOARD_EMPTY, destinations, square == base + 4u);
            let king_side = u32(bitboard_contains(king_moves, base + 6u));
            let queen_side = u32(bitboard_contains(king_moves, base + 2u));
            position_moves[index].castling = king_side | (queen_side << 1u);
        }
    }
    position_moves[index].en_passant_from = en_passant_from;
    position_moves[index].move_count = count;
}
