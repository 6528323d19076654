// kernels/per_position.wgsl — one invocation per position.
//
// Reads: `positions` (binding 1), the attack tables (binding 0), `parameters`
// (binding 4). Writes: `position_moves` (binding 2), one record per position:
// the legal destinations of every square (empty for squares without a piece
// of the side to move), the pawns that can capture en passant, the castling
// moves and the legal move count; `status` (binding 3) on a fault.
// Dispatch: POSITION_WORKGROUP invocations per workgroup; global invocation x
// is the position.

#import movegen
#import movegen_io

// Rust twin: PositionMovesRecord in src/chess/gpu/layout.rs.
struct PositionMovesRecord {
    destinations: array<Bitboard, 64>,
    // Pawns whose destinations include an en passant capture.
    en_passant_from: Bitboard,
    // Legal moves; each promotion destination counts four times.
    move_count: u32,
    // Bit 0: king-side castling is legal; bit 1: queen-side.
    castling: u32,
}

@group(0) @binding(2) var<storage, read_write> position_moves: array<PositionMovesRecord>;

@compute @workgroup_size(POSITION_WORKGROUP)
fn per_position(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let board = unpack_position(positions[index]);
    var walk = piece_walk_begin(board);
    for (var square = 0u; square < 64u; square++) {
        position_moves[index].destinations[square] = BITBOARD_EMPTY;
    }
    position_moves[index].en_passant_from = BITBOARD_EMPTY;
    position_moves[index].move_count = 0u;
    position_moves[index].castling = 0u;
    if walk.context.king == NO_SQUARE {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }

    var count = 0u;
    var en_passant_from = BITBOARD_EMPTY;
    for (var step = piece_walk_next(board, &walk); step.from_square != NO_SQUARE; step = piece_walk_next(board, &walk)) {
        position_moves[index].destinations[step.from_square] = step.destinations;
        count += move_count_of(step.piece, step.destinations);
        en_passant_from = en_passant_from | en_passant_origin(board, step);
        position_moves[index].castling |= castling_bits(board, walk.context, step);
    }
    position_moves[index].en_passant_from = en_passant_from;
    position_moves[index].move_count = count;
}
