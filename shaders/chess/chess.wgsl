// chess.wgsl — the public WGSL API for user shaders (docs/wgsl-api.md).
//
// Reads: the attack tables, bound where the host puts them (by default
// @group(0) @binding(0); gpu_movegen::chess::gpu::embed moves them). Writes: nothing.
// Library only: every function works on one position inside one invocation.
// Positions travel as `PackedPosition` (40 bytes, Rust twin PackedPosition) and are
// worked on as `Position`. Moves are u32 in the Rust `Move` encoding: bits 0..5
// from, 6..11 to, 12..15 kind (0 normal, 1..4 promotion to knight, bishop,
// rook, queen, 5 en passant, 6 castling, written as the king taking its own
// rook, so that Chess960 castling is unambiguous).
// Legal moves come in one fixed order, the same as Position::legal_moves_in_order
// on the CPU: by from-square, then to-square, promotions queen, rook, bishop, knight.

#import movegen
#import random

const CHESS_NO_MOVE: u32 = 0xffffffffu;
const CHESS_MOVE_EN_PASSANT: u32 = 5u;
const CHESS_MOVE_CASTLING: u32 = 6u;

fn chess_unpack(position: PackedPosition) -> Position {
    return unpack_position(position);
}

fn chess_pack(board: Position) -> PackedPosition {
    return pack_position(board);
}

fn chess_count_legal(board: Position) -> u32 {
    return legal_move_count(board);
}

fn chess_in_check(board: Position) -> bool {
    let king = bitboard_first(board.kings & position_color(board, board.side_to_move));
    if king == NO_SQUARE {
        return false;
    }
    return is_attacked(board, king, 1u - board.side_to_move, position_occupied(board));
}

fn chess_is_checkmate(board: Position) -> bool {
    return chess_in_check(board) && chess_count_legal(board) == 0u;
}

fn chess_is_stalemate(board: Position) -> bool {
    return !chess_in_check(board) && chess_count_legal(board) == 0u;
}

// Neither side can ever mate: kings alone, one minor piece, or bishops all on
// squares of one colour.
fn chess_is_insufficient_material(board: Position) -> bool {
    if !bitboard_is_empty(board.pawns | board.rooks | board.queens) {
        return false;
    }
    if bitboard_count(board.knights | board.bishops) <= 1u {
        return true;
    }
    let dark_squares = bitboard_make(0xaa55aa55u, 0xaa55aa55u);
    return bitboard_is_empty(board.knights)
        && (bitboard_is_empty(board.bishops & dark_squares) || bitboard_is_empty(board.bishops & ~dark_squares));
}

fn chess_move_from(mv: u32) -> u32 {
    return mv & 63u;
}

fn chess_move_to(mv: u32) -> u32 {
    return (mv >> 6u) & 63u;
}

fn chess_move_kind(mv: u32) -> u32 {
    return (mv >> 12u) & 15u;
}

// The promotion piece code (PIECE_KNIGHT..PIECE_QUEEN), or PIECE_NONE.
fn chess_move_promotion(mv: u32) -> u32 {
    let kind = chess_move_kind(mv);
    return select(PIECE_NONE, kind + 1u, kind >= 1u && kind <= 4u);
}

// Plays a legal move (copy-make).
fn chess_make_move(board: Position, mv: u32) -> Position {
    let from_square = chess_move_from(mv);
    return position_make_move(board, from_square, chess_move_to(mv), position_piece_on(board, from_square), chess_move_promotion(mv));
}

// Walks the legal moves of one position in the fixed order: the move walk
// of movegen.wgsl, which every kernel uses too.
alias MoveIterator = MoveWalk;

fn chess_moves_begin(board: Position) -> MoveIterator {
    return move_walk_begin(board);
}

fn encode_move(board: Position, step: MoveStep) -> u32 {
    var kind = 0u;
    if step.promotion != PIECE_NONE {
        kind = step.promotion - 1u;
    } else if step.piece == PIECE_PAWN && step.to_square == board.en_passant && ((step.from_square ^ step.to_square) & 7u) != 0u {
        kind = CHESS_MOVE_EN_PASSANT;
    } else if step.piece == PIECE_KING && bitboard_contains(position_color(board, board.side_to_move), step.to_square) {
        kind = CHESS_MOVE_CASTLING;
    }
    return step.from_square | (step.to_square << 6u) | (kind << 12u);
}

// The next legal move, or CHESS_NO_MOVE when all have been visited.
fn chess_moves_next(board: Position, iterator: ptr<function, MoveIterator>) -> u32 {
    let step = move_walk_next(board, iterator);
    if step.from_square == NO_SQUARE {
        return CHESS_NO_MOVE;
    }
    return encode_move(board, step);
}

// The n-th legal move (from 0) in the fixed order, or CHESS_NO_MOVE.
fn chess_nth_legal_move(board: Position, n: u32) -> u32 {
    var iterator = chess_moves_begin(board);
    var mv = chess_moves_next(board, &iterator);
    for (var index = 0u; index < n && mv != CHESS_NO_MOVE; index++) {
        mv = chess_moves_next(board, &iterator);
    }
    return mv;
}

// All legal moves at once, as move bitboards per from-square.
struct LegalMoves {
    destinations: array<Bitboard, 64>,
    // Pawns that can capture en passant.
    en_passant_from: Bitboard,
    // Bit 0: king-side castling is legal; bit 1: queen-side.
    castling: u32,
    // Legal moves, each promotion destination counted four times.
    count: u32,
}

fn chess_generate_legal(board: Position) -> LegalMoves {
    var moves: LegalMoves;
    for (var square = 0u; square < 64u; square++) {
        moves.destinations[square] = BITBOARD_EMPTY;
    }
    moves.en_passant_from = BITBOARD_EMPTY;
    moves.castling = 0u;
    moves.count = 0u;
    var walk = piece_walk_begin(board);
    for (var step = piece_walk_next(board, &walk); step.from_square != NO_SQUARE; step = piece_walk_next(board, &walk)) {
        moves.destinations[step.from_square] = step.destinations;
        moves.count += move_count_of(step.piece, step.destinations);
        moves.en_passant_from = moves.en_passant_from | en_passant_origin(board, step);
        moves.castling = moves.castling | castling_bits(board, walk.context, step);
    }
    return moves;
}
