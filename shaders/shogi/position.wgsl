// position.wgsl — the Shogi position as it travels and as it is worked on.
//
// Reads: nothing. Writes: nothing. Library only. `PackedShogiPosition` is the
// 96-byte record in buffers (Rust twin: PackedShogiPosition in
// src/shogi/gpu/layout.rs): planes 0..3 hold the bits of each square's piece
// code (the Rust Piece index plus one: pawn 1 … dragon 14, 0 empty), plane 4
// marks White's pieces; each side's hand is one word (pawns in bits 0..4,
// lances, knights, silvers, golds three bits each from bit 5, bishops and
// rooks two bits each from bit 17); `state` is the side to move (1 = White).
// `ShogiPosition` is the form kernels work on: the same planes, with a set per colour.

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

// The position as the kernels work on it: the packed record's planes kept
// as they are. A set per kind would be an array indexed by a run-time kind,
// which drivers lower to a chain of branches at every use (and a copy of
// all fourteen sets at every move); here a kind's set is four selects.
struct ShogiPosition {
    // Bits 0..3 of each square's piece code (the kind plus one; 0 empty).
    code0: Board81,
    code1: Board81,
    code2: Board81,
    code3: Board81,
    // White's pieces; Black's are the rest (four registers fewer than a
    // set of each kept through every loop).
    white: Board81,
    // Each side's hand, packed as in the record (see shogi_hand_shift).
    hands: vec2<u32>,
    side_to_move: u32,
    move_number: u32,
}

// Where the count of hand slot `slot` (pawn, lance, knight, silver, gold,
// bishop, rook) starts in a hand word: pawns 5 bits, the next four kinds 3,
// bishops and rooks 2.
fn shogi_hand_shift(slot: u32) -> u32 {
    if slot == 0u {
        return 0u;
    }
    return select(5u + 3u * (slot - 1u), 17u + 2u * (slot - 5u), slot >= 5u);
}

fn shogi_hand_mask(slot: u32) -> u32 {
    return select(select(7u, 3u, slot >= 5u), 31u, slot == 0u);
}

// How many of hand slot `slot` `color` holds.
fn shogi_hand(position: ShogiPosition, color: u32, slot: u32) -> u32 {
    let word = select(position.hands.x, position.hands.y, color == SHOGI_WHITE);
    return (word >> shogi_hand_shift(slot)) & shogi_hand_mask(slot);
}

// Adds `amount` (1 or the two's complement of 1) to `color`'s count of `slot`.
fn shogi_hand_add(position: ptr<function, ShogiPosition>, color: u32, slot: u32, amount: u32) {
    let step = amount << shogi_hand_shift(slot);
    (*position).hands += select(vec2<u32>(step, 0u), vec2<u32>(0u, step), color == SHOGI_WHITE);
}

fn shogi_unpack(packed: PackedShogiPosition) -> ShogiPosition {
    var position: ShogiPosition;
    position.code0 = board81_read(packed.planes[0]);
    position.code1 = board81_read(packed.planes[1]);
    position.code2 = board81_read(packed.planes[2]);
    position.code3 = board81_read(packed.planes[3]);
    position.white = board81_read(packed.planes[4]);
    position.hands = packed.hands;
    position.side_to_move = packed.state & 1u;
    position.move_number = packed.move_number;
    return position;
}

fn shogi_pack(position: ShogiPosition) -> PackedShogiPosition {
    var packed: PackedShogiPosition;
    packed.planes[0] = position.code0;
    packed.planes[1] = position.code1;
    packed.planes[2] = position.code2;
    packed.planes[3] = position.code3;
    packed.planes[4] = position.white;
    packed.hands = position.hands;
    packed.state = position.side_to_move;
    packed.move_number = position.move_number;
    return packed;
}

fn shogi_occupied(position: ShogiPosition) -> Board81 {
    return position.code0 | position.code1 | position.code2 | position.code3;
}

fn shogi_color_set(position: ShogiPosition, color: u32) -> Board81 {
    return select(shogi_occupied(position) & ~position.white, position.white, color == SHOGI_WHITE);
}

// The squares holding `kind`, either colour: each plane flipped where the
// code's bit is clear, by a mask that is one value for the whole subgroup
// when `kind` is (a scalar register on a GPU). The complement of each
// plane, the other way to write it, is a vector a GPU compiler computes
// once and holds through every loop that asks for a kind.
fn shogi_kind_set(position: ShogiPosition, kind: u32) -> Board81 {
    let code = kind + 1u;
    let flips = vec4<u32>(0xffffffffu) * (vec4<u32>(1u) - ((vec4<u32>(code) >> vec4<u32>(0u, 1u, 2u, 3u)) & vec4<u32>(1u)));
    return shogi_occupied(position) & (position.code0 ^ vec4<u32>(flips.x)) & (position.code1 ^ vec4<u32>(flips.y))
        & (position.code2 ^ vec4<u32>(flips.z)) & (position.code3 ^ vec4<u32>(flips.w));
}

fn shogi_pieces_of(position: ShogiPosition, color: u32, kind: u32) -> Board81 {
    return shogi_kind_set(position, kind) & shogi_color_set(position, color);
}

// Puts `kind` of `color` on the squares `bits` (empty before), or takes it
// off them: the code planes and the colour set flip together.
fn shogi_toggle(position: ptr<function, ShogiPosition>, kind: u32, color: u32, bits: Board81) {
    let code = kind + 1u;
    (*position).code0 ^= select(BOARD81_EMPTY, bits, (code & 1u) != 0u);
    (*position).code1 ^= select(BOARD81_EMPTY, bits, (code & 2u) != 0u);
    (*position).code2 ^= select(BOARD81_EMPTY, bits, (code & 4u) != 0u);
    (*position).code3 ^= select(BOARD81_EMPTY, bits, (code & 8u) != 0u);
    if color == SHOGI_WHITE {
        (*position).white ^= bits;
    }
}

// The kind on `square`, or SHOGI_NO_PIECE.
fn shogi_piece_on(position: ShogiPosition, square: u32) -> u32 {
    let code = u32(board81_contains(position.code0, square)) | (u32(board81_contains(position.code1, square)) << 1u)
        | (u32(board81_contains(position.code2, square)) << 2u) | (u32(board81_contains(position.code3, square)) << 3u);
    return select(code - 1u, SHOGI_NO_PIECE, code == 0u);
}
