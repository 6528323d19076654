// position.wgsl — the Shogi position as it travels and as it is worked on.
//
// Reads: nothing. Writes: nothing. Library only. `PackedShogiPosition` is the
// 96-byte record in buffers (Rust twin: PackedShogiPosition in
// src/shogi/gpu/layout.rs): planes 0..3 hold the bits of each square's piece
// code (the Rust Piece index plus one: pawn 1 … dragon 14, 0 empty), plane 4
// marks White's pieces; each side's hand is one word (pawns in bits 0..4,
// lances, knights, silvers, golds three bits each from bit 5, bishops and
// rooks two bits each from bit 17); `state` is the side to move (1 = White).
// `ShogiPosition` is the unpacked form: a set per kind and per colour.

#import bitboard81

struct PackedShogiPosition {
    planes: array<Board81, 5>,
    hands: vec2<u32>,
    state: u32,
    move_number: u32,
}

const SHOGI_PAWN: u32 = 0u;
const SHOGI_LANCE: u32 = 1u;
const SHOGI_KNIGHT: u32 = 2u;
const SHOGI_SILVER: u32 = 3u;
const SHOGI_GOLD: u32 = 4u;
const SHOGI_BISHOP: u32 = 5u;
const SHOGI_ROOK: u32 = 6u;
const SHOGI_KING: u32 = 7u;
const SHOGI_PRO_PAWN: u32 = 8u;
const SHOGI_PRO_LANCE: u32 = 9u;
const SHOGI_PRO_KNIGHT: u32 = 10u;
const SHOGI_PRO_SILVER: u32 = 11u;
const SHOGI_HORSE: u32 = 12u;
const SHOGI_DRAGON: u32 = 13u;
const SHOGI_NO_PIECE: u32 = 14u;

const SHOGI_BLACK: u32 = 0u;
const SHOGI_WHITE: u32 = 1u;
const SHOGI_NO_SQUARE: u32 = 128u;

struct ShogiPosition {
    pieces: array<Board81, 14>,
    colors: array<Board81, 2>,
    // Pieces in hand by color * 7 + hand slot (pawn, lance, knight, silver, gold, bishop, rook).
    hands: array<u32, 14>,
    side_to_move: u32,
    move_number: u32,
}

var<private> HAND_SHIFTS: array<u32, 7> = array<u32, 7>(0u, 5u, 8u, 11u, 14u, 17u, 19u);
var<private> HAND_MASKS: array<u32, 7> = array<u32, 7>(31u, 7u, 7u, 7u, 7u, 3u, 3u);

fn shogi_unpack(packed: PackedShogiPosition) -> ShogiPosition {
    var position: ShogiPosition;
    let occupied = packed.planes[0] | packed.planes[1] | packed.planes[2] | packed.planes[3];
    for (var kind = 0u; kind < 14u; kind++) {
        let code = kind + 1u;
        var squares = occupied;
        for (var bit = 0u; bit < 4u; bit++) {
            squares = squares & select(board81_not(packed.planes[bit]), packed.planes[bit], ((code >> bit) & 1u) == 1u);
        }
        position.pieces[kind] = squares;
    }
    position.colors[1] = packed.planes[4];
    position.colors[0] = occupied & board81_not(packed.planes[4]);
    for (var slot = 0u; slot < 7u; slot++) {
        position.hands[slot] = (packed.hands.x >> HAND_SHIFTS[slot]) & HAND_MASKS[slot];
        position.hands[7u + slot] = (packed.hands.y >> HAND_SHIFTS[slot]) & HAND_MASKS[slot];
    }
    position.side_to_move = packed.state & 1u;
    position.move_number = packed.move_number;
    return position;
}

fn shogi_pack(position: ShogiPosition) -> PackedShogiPosition {
    var packed: PackedShogiPosition;
    for (var bit = 0u; bit < 5u; bit++) {
        packed.planes[bit] = BOARD81_EMPTY;
    }
    for (var kind = 0u; kind < 14u; kind++) {
        let code = kind + 1u;
        for (var bit = 0u; bit < 4u; bit++) {
            if ((code >> bit) & 1u) == 1u {
                packed.planes[bit] = packed.planes[bit] | position.pieces[kind];
            }
        }
    }
    packed.planes[4] = position.colors[1];
    var black = 0u;
    var white = 0u;
    for (var slot = 0u; slot < 7u; slot++) {
        black = black | (position.hands[slot] << HAND_SHIFTS[slot]);
        white = white | (position.hands[7u + slot] << HAND_SHIFTS[slot]);
    }
    packed.hands = vec2<u32>(black, white);
    packed.state = position.side_to_move;
    packed.move_number = position.move_number;
    return packed;
}

fn shogi_occupied(position: ShogiPosition) -> Board81 {
    return position.colors[0] | position.colors[1];
}

fn shogi_pieces_of(position: ShogiPosition, color: u32, kind: u32) -> Board81 {
    return position.pieces[kind] & position.colors[color];
}

// The kind on `square`, or SHOGI_NO_PIECE.
fn shogi_piece_on(position: ShogiPosition, square: u32) -> u32 {
    for (var kind = 0u; kind < 14u; kind++) {
        if board81_contains(position.pieces[kind], square) {
            return kind;
        }
    }
    return SHOGI_NO_PIECE;
}
