// chess.wgsl — the public WGSL API for user shaders (docs/wgsl-api.md).
//
// Reads: the attack tables, bound where the host puts them (by default
// @group(0) @binding(0); gpu_movegen::gpu::embed moves them). Writes: nothing.
// Library only: every function works on one position inside one invocation.
// Positions travel as `Position` (40 bytes, Rust twin GpuPosition) and are
// worked on as `Board`. Moves are u32 in the Rust `Move` encoding: bits 0..5
// from, 6..11 to, 12..15 kind (0 normal, 1..4 promotion to knight, bishop,
// rook, queen, 5 en passant, 6 castling, written as the king's move).
// Legal moves come in one fixed order, the same as Position::legal_moves_in_order
// on the CPU: by from-square, then to-square, promotions queen, rook, bishop, knight.

#import movegen
#import random

const CHESS_NO_MOVE: u32 = 0xffffffffu;
const CHESS_MOVE_EN_PASSANT: u32 = 5u;
const CHESS_MOVE_CASTLING: u32 = 6u;

fn chess_board(position: Position) -> Board {
    return unpack_position(position);
}

fn chess_position(board: Board) -> Position {
    return pack_board(board);
}

fn chess_count_legal(board: Board) -> u32 {
    return legal_move_count(board);
}

fn chess_in_check(board: Board) -> bool {
    let king = bitboard_first(board.kings & board_color(board, board.side_to_move));
    if king == NO_SQUARE {
        return false;
    }
    return is_attacked(board, king, 1u - board.side_to_move, board_occupied(board));
}

fn chess_is_checkmate(board: Board) -> bool {
    return chess_in_check(board) && chess_count_legal(board) == 0u;
}

fn chess_is_stalemate(board: Board) -> bool {
    return !chess_in_check(board) && chess_count_legal(board) == 0u;
}

// Neither side can ever mate: kings alone, one minor piece, or bishops all on
// squares of one colour.
fn chess_is_insufficient_material(board: Board) -> bool {
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
fn chess_make_move(board: Board, mv: u32) -> Board {
    let from_square = chess_move_from(mv);
    return board_make_move(board, from_square, chess_move_to(mv), board_piece_on(board, from_square), chess_move_promotion(mv));
}

// Walks the legal moves of one position in the fixed order.
struct MoveIterator {
    context: MoveContext,
    // Pieces of the side to move not yet visited.
    pieces: Bitboard,
    from_square: u32,
    piece: u32,
    // Destinations of the current piece not yet visited.
    destinations: Bitboard,
    to_square: u32,
    // Promotion moves left at the current destination (4, 3, 2, 1), or 0.
    promotions_left: u32,
}

fn chess_moves_begin(board: Board) -> MoveIterator {
    var iterator: MoveIterator;
    iterator.context = make_context(board);
    iterator.pieces = select(BITBOARD_EMPTY, iterator.context.ours, iterator.context.king != NO_SQUARE);
    iterator.destinations = BITBOARD_EMPTY;
    iterator.promotions_left = 0u;
    return iterator;
}

fn encode_move(board: Board, from_square: u32, to_square: u32, piece: u32, promotion: u32) -> u32 {
    var kind = 0u;
    if promotion != PIECE_NONE {
        kind = promotion - 1u;
    } else if piece == PIECE_PAWN && to_square == board.en_passant && ((from_square ^ to_square) & 7u) != 0u {
        kind = CHESS_MOVE_EN_PASSANT;
    } else if piece == PIECE_KING && max(from_square & 7u, to_square & 7u) - min(from_square & 7u, to_square & 7u) == 2u {
        kind = CHESS_MOVE_CASTLING;
    }
    return from_square | (to_square << 6u) | (kind << 12u);
}

// The next legal move, or CHESS_NO_MOVE when all have been visited.
fn chess_moves_next(board: Board, iterator: ptr<function, MoveIterator>) -> u32 {
    if (*iterator).promotions_left > 0u {
        let k = 4u - (*iterator).promotions_left;
        (*iterator).promotions_left -= 1u;
        return encode_move(board, (*iterator).from_square, (*iterator).to_square, PIECE_PAWN, PIECE_QUEEN - k);
    }
    // Advance to the next piece that has destinations, or run out of pieces.
    loop {
        if !bitboard_is_empty((*iterator).destinations) || bitboard_is_empty((*iterator).pieces) {
            break;
        }
        let from_square = bitboard_first((*iterator).pieces);
        (*iterator).pieces = bitboard_without_first((*iterator).pieces);
        (*iterator).from_square = from_square;
        (*iterator).piece = board_piece_on(board, from_square);
        (*iterator).destinations = legal_destinations(board, (*iterator).context, (*iterator).piece, from_square);
    }
    if bitboard_is_empty((*iterator).destinations) {
        return CHESS_NO_MOVE;
    }
    let to_square = bitboard_first((*iterator).destinations);
    (*iterator).destinations = bitboard_without_first((*iterator).destinations);
    (*iterator).to_square = to_square;
    if moves_per_destination((*iterator).piece, to_square) == 4u {
        (*iterator).promotions_left = 3u;
        return encode_move(board, (*iterator).from_square, to_square, PIECE_PAWN, PIECE_QUEEN);
    }
    return encode_move(board, (*iterator).from_square, to_square, (*iterator).piece, PIECE_NONE);
}

// The n-th legal move (from 0) in the fixed order, or CHESS_NO_MOVE.
fn chess_nth_legal_move(board: Board, n: u32) -> u32 {
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

fn chess_generate_legal(board: Board) -> LegalMoves {
    var moves: LegalMoves;
    for (var square = 0u; square < 64u; square++) {
        moves.destinations[square] = BITBOARD_EMPTY;
    }
    moves.en_passant_from = BITBOARD_EMPTY;
    moves.castling = 0u;
    moves.count = 0u;
    let context = make_context(board);
    if context.king == NO_SQUARE {
        return moves;
    }
    var pieces = context.ours;
    while !bitboard_is_empty(pieces) {
        let square = bitboard_first(pieces);
        pieces = bitboard_without_first(pieces);
        let piece = board_piece_on(board, square);
        let destinations = legal_destinations(board, context, piece, square);
        moves.destinations[square] = destinations;
        moves.count += move_count_of(piece, destinations);
        if piece == PIECE_PAWN && board.en_passant != NO_SQUARE && bitboard_contains(destinations, board.en_passant) {
            moves.en_passant_from = moves.en_passant_from | bitboard_from_square(square);
        }
        if piece == PIECE_KING {
            let base = select(0u, 56u, context.us == BLACK);
            let king_moves = select(BITBOARD_EMPTY, destinations, square == base + 4u);
            moves.castling = u32(bitboard_contains(king_moves, base + 6u)) | (u32(bitboard_contains(king_moves, base + 2u)) << 1u);
        }
    }
    return moves;
}
