// position.wgsl — the position as it travels between host and GPU.
//
// Reads: nothing (no bindings). Writes: nothing. Structs and unpacking only.
// A position is a quad-bitboard: planes 0..2 hold the three bits of each
// square's piece code (pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6;
// 0 is empty) and plane 3 marks black pieces. Rust twin: PackedPosition in
// src/chess/gpu/layout.rs (size and offsets checked by tests/gpu_shaders.rs).

#import bitboard

struct PackedPosition {
    planes: array<Bitboard, 4>,
    // Bit 0: side to move (1 = black). Bits 8..15: en passant square, 64
    // when there is none. Bits 16..31: castling rights as the files of the
    // rooks that may castle (16..23 white's, 24..31 black's; bit 0 = file a).
    state: u32,
    // Bits 0..15: halfmove clock. Bits 16..31: fullmove number.
    counters: u32,
}

const PIECE_NONE: u32 = 0u;
const PIECE_PAWN: u32 = 1u;
const PIECE_KNIGHT: u32 = 2u;
const PIECE_BISHOP: u32 = 3u;
const PIECE_ROOK: u32 = 4u;
const PIECE_QUEEN: u32 = 5u;
const PIECE_KING: u32 = 6u;

const WHITE: u32 = 0u;
const BLACK: u32 = 1u;
const NO_SQUARE: u32 = 64u;


// The position unpacked into the sets move generation works with.
struct Position {
    pawns: Bitboard,
    knights: Bitboard,
    bishops: Bitboard,
    rooks: Bitboard,
    queens: Bitboard,
    kings: Bitboard,
    white: Bitboard,
    black: Bitboard,
    side_to_move: u32,
    // The files of the rooks that may castle: white's in bits 0..7, black's in 8..15.
    castling: u32,
    en_passant: u32,
    halfmove_clock: u32,
    fullmove_number: u32,
}

fn unpack_position(position: PackedPosition) -> Position {
    let bit0 = position.planes[0];
    let bit1 = position.planes[1];
    let bit2 = position.planes[2];
    let occupied = bit0 | bit1 | bit2;
    var board: Position;
    board.pawns = bit0 & ~bit1 & ~bit2;
    board.knights = ~bit0 & bit1 & ~bit2;
    board.bishops = bit0 & bit1 & ~bit2;
    board.rooks = ~bit0 & ~bit1 & bit2;
    board.queens = bit0 & ~bit1 & bit2;
    board.kings = ~bit0 & bit1 & bit2;
    board.black = position.planes[3] & occupied;
    board.white = occupied & ~board.black;
    board.side_to_move = position.state & 1u;
    board.castling = position.state >> 16u;
    board.en_passant = (position.state >> 8u) & 255u;
    board.halfmove_clock = position.counters & 0xffffu;
    board.fullmove_number = position.counters >> 16u;
    return board;
}

// The inverse of unpack_position.
fn pack_position(board: Position) -> PackedPosition {
    var position: PackedPosition;
    // Piece-code bits: pawn 001, knight 010, bishop 011, rook 100, queen 101, king 110.
    position.planes[0] = board.pawns | board.bishops | board.queens;
    position.planes[1] = board.knights | board.bishops | board.kings;
    position.planes[2] = board.rooks | board.queens | board.kings;
    position.planes[3] = board.black;
    position.state = board.side_to_move | (board.en_passant << 8u) | (board.castling << 16u);
    position.counters = board.halfmove_clock | (board.fullmove_number << 16u);
    return position;
}

fn position_color(board: Position, color: u32) -> Bitboard {
    return select(board.white, board.black, color == BLACK);
}

fn position_occupied(board: Position) -> Bitboard {
    return board.white | board.black;
}

// Adds or removes the squares `bits` for the piece `piece` (no colour).
fn position_toggle(board: ptr<function, Position>, piece: u32, bits: Bitboard) {
    switch piece {
        case PIECE_PAWN: { (*board).pawns ^= bits; }
        case PIECE_KNIGHT: { (*board).knights ^= bits; }
        case PIECE_BISHOP: { (*board).bishops ^= bits; }
        case PIECE_ROOK: { (*board).rooks ^= bits; }
        case PIECE_QUEEN: { (*board).queens ^= bits; }
        case PIECE_KING: { (*board).kings ^= bits; }
        default: {}
    }
}

fn position_toggle_color(board: ptr<function, Position>, color: u32, bits: Bitboard) {
    if color == BLACK {
        (*board).black ^= bits;
    } else {
        (*board).white ^= bits;
    }
}

// The piece code on `square`, PIECE_NONE when empty.
fn position_piece_on(board: Position, square: u32) -> u32 {
    if bitboard_contains(board.pawns, square) { return PIECE_PAWN; }
    if bitboard_contains(board.knights, square) { return PIECE_KNIGHT; }
    if bitboard_contains(board.bishops, square) { return PIECE_BISHOP; }
    if bitboard_contains(board.rooks, square) { return PIECE_ROOK; }
    if bitboard_contains(board.queens, square) { return PIECE_QUEEN; }
    if bitboard_contains(board.kings, square) { return PIECE_KING; }
    return PIECE_NONE;
}
