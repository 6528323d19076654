// board.wgsl — the rules of Go on bitmaps, the twin of src/go/board.rs.
//
// Reads: nothing. Writes: nothing. Library only: legal points, the
// playout move set (rule 2/4 eyes), playing a stone with its captures and
// ko point, and area scoring, for the one board size the module is
// composed for. `PackedGoPosition` is the record the kernels read and
// write (Rust twin: src/go/gpu/layout.rs), sized for 19x19 whatever the
// size; `GoPosition` is its working form.

#import go_bitmap

const GO_BLACK: u32 = 0u;
const GO_WHITE: u32 = 1u;

// Rust twin: PackedGoPosition in src/go/gpu/layout.rs.
struct PackedGoPosition {
    black: array<u32, 12>,
    white: array<u32, 12>,
    // The bit the side to move may not play (a ko), or GO_NO_POINT.
    ko: u32,
    to_move: u32,
    // The board size, checked against GO_SIZE by the kernels.
    size: u32,
    reserved: u32,
}

struct GoPosition {
    black: GoBitmap,
    white: GoBitmap,
    ko: u32,
    to_move: u32,
}

fn go_unpack(packed: PackedGoPosition) -> GoPosition {
    var position: GoPosition;
    var record = packed;
    for (var index = 0u; index < GO_WORDS; index++) {
        position.black[index] = record.black[index];
        position.white[index] = record.white[index];
    }
    position.ko = record.ko;
    position.to_move = record.to_move;
    return position;
}

fn go_pack(position: GoPosition) -> PackedGoPosition {
    var packed: PackedGoPosition;
    var working = position;
    for (var index = 0u; index < 12u; index++) {
        packed.black[index] = 0u;
        packed.white[index] = 0u;
    }
    for (var index = 0u; index < GO_WORDS; index++) {
        packed.black[index] = working.black[index];
        packed.white[index] = working.white[index];
    }
    packed.ko = working.ko;
    packed.to_move = working.to_move;
    packed.size = GO_SIZE;
    packed.reserved = 0u;
    return packed;
}

fn go_stones(position: GoPosition, color: u32) -> GoBitmap {
    if color == GO_BLACK {
        return position.black;
    }
    return position.white;
}

fn go_empty_points(position: GoPosition) -> GoBitmap {
    return go_and_not(GO_BOARD, go_or(position.black, position.white));
}

// The ko point as a bitmap when it binds `color`.
fn go_ko_for(position: GoPosition, color: u32) -> GoBitmap {
    if position.ko != GO_NO_POINT && color == position.to_move {
        return go_from_bit(position.ko);
    }
    return go_empty_bitmap();
}

// The stones of the groups of `stones` that touch `near` and have exactly
// one liberty.
fn go_in_atari(stones: GoBitmap, empty: GoBitmap, near: GoBitmap) -> GoBitmap {
    var atari = go_empty_bitmap();
    var rest = go_and(stones, near);
    while !go_is_empty(rest) {
        let group = go_flood(go_from_bit(go_first(rest)), stones);
        rest = go_and_not(rest, group);
        if go_count(go_and(go_neighbours(group), empty)) == 1u {
            atari = go_or(atari, group);
        }
    }
    return atari;
}

// Every point `color` may legally play (Board::legal).
//
// A point with an empty neighbour is always legal, so only the groups
// touching a point surrounded by stones need their liberties counted: the
// set is Board::legal's, with far fewer groups flooded (none in an open
// position).
fn go_legal(position: GoPosition, color: u32) -> GoBitmap {
    let empty = go_empty_points(position);
    let surrounded = go_and_not(empty, go_neighbours(empty));
    let near = go_neighbours(surrounded);
    let atari = go_or(go_in_atari(position.black, empty, near), go_in_atari(position.white, empty, near));
    return go_legal_given_atari(position, color, atari);
}

// The points `color` may legally play, given `atari`, the stones whose chain
// has exactly one liberty (at least those next to a point surrounded by
// stones): a point next to an empty point, to one of its own chains with
// another liberty, or to an enemy chain whose last liberty it is
// (Chains::legal).
fn go_legal_given_atari(position: GoPosition, color: u32, atari: GoBitmap) -> GoBitmap {
    let empty = go_empty_points(position);
    let own = go_stones(position, color);
    let enemy = go_stones(position, 1u - color);
    let givers = go_or(go_or(empty, go_and_not(own, atari)), go_and(enemy, atari));
    return go_and_not(go_and(empty, go_neighbours(givers)), go_ko_for(position, color));
}

// The one-point eyes of `color` by rule 2/4, with virtual friendly stones
// beyond the corners (Board::eyes).
fn go_eyes(position: GoPosition, color: u32) -> GoBitmap {
    let own = go_stones(position, color);
    var eyelike = go_empty_points(position);
    eyelike = go_and(eyelike, go_or(go_shifted_up(own, GO_LINE), GO_BOTTOM_ROW));
    eyelike = go_and(eyelike, go_or(go_shifted_down(own, GO_LINE), GO_TOP_ROW));
    eyelike = go_and(eyelike, go_or(go_shifted_up(own, 1u), GO_LEFT_COLUMN));
    eyelike = go_and(eyelike, go_or(go_shifted_down(own, 1u), GO_RIGHT_COLUMN));
    let up_left = go_or(go_shifted_down(own, GO_SIZE), go_from_bit(GO_CORNER_TOP_LEFT));
    let up_right = go_or(go_shifted_down(own, GO_SIZE + 2u), go_from_bit(GO_CORNER_TOP_RIGHT));
    let down_left = go_or(go_shifted_up(own, GO_SIZE + 2u), go_from_bit(GO_CORNER_BOTTOM_LEFT));
    let down_right = go_or(go_shifted_up(own, GO_SIZE), go_from_bit(GO_CORNER_BOTTOM_RIGHT));
    let up = go_or(up_left, up_right);
    let down = go_or(down_left, down_right);
    let two_of_four = go_and(go_and(go_or(up, down_left), go_or(up_left, down)),
                             go_and(go_or(up_right, down), go_or(up, down_right)));
    return go_and(go_and(eyelike, two_of_four), GO_BOARD);
}

fn go_playout_moves(position: GoPosition, color: u32) -> GoBitmap {
    return go_and_not(go_legal(position, color), go_eyes(position, color));
}

// Whether `color` may play at `bit` (Board::is_legal).
fn go_is_legal(position: GoPosition, color: u32, bit: u32) -> bool {
    let empty = go_empty_points(position);
    if !go_contains(empty, bit) || go_contains(go_ko_for(position, color), bit) {
        return false;
    }
    let point = go_from_bit(bit);
    let around = go_neighbours(point);
    if !go_is_empty(go_and(around, empty)) {
        return true;
    }
    let other_empty = go_and_not(empty, point);
    let own = go_stones(position, color);
    let enemy = go_stones(position, 1u - color);
    let friends = go_and(around, own);
    if !go_is_empty(friends) && go_touches(friends, own, other_empty) {
        return true;
    }
    var enemies = go_and(around, enemy);
    while !go_is_empty(enemies) {
        let stone = go_from_bit(go_first(enemies));
        if !go_touches(stone, enemy, other_empty) {
            return true;
        }
        enemies = go_and_not(enemies, stone);
    }
    return false;
}

// Stores the stones after a move of `color` and hands the move over.
fn go_finish_move(position: ptr<function, GoPosition>, color: u32, own: GoBitmap, enemy: GoBitmap) {
    if color == GO_BLACK {
        (*position).black = own;
        (*position).white = enemy;
    } else {
        (*position).white = own;
        (*position).black = enemy;
    }
    (*position).to_move = 1u - color;
}

// Plays a legal stone of `color` at `bit`: captures, the ko point, the move
// handed over (Board::play). Returns the stones captured.
fn go_play(position: ptr<function, GoPosition>, color: u32, bit: u32) -> u32 {
    let point = go_from_bit(bit);
    var own = go_or(go_stones(*position, color), point);
    var enemy = go_stones(*position, 1u - color);
    var empty = go_and_not(GO_BOARD, go_or(own, enemy));
    var captured = go_empty_bitmap();
    var candidates = go_and(go_neighbours(point), enemy);
    while !go_is_empty(candidates) {
        let single = go_from_bit(go_first(candidates));
        candidates = go_and_not(candidates, single);
        if !go_touches(single, enemy, empty) {
            let group = go_flood(single, enemy);
            candidates = go_and_not(candidates, group);
            captured = go_or(captured, group);
        }
    }
    let captured_count = go_count(captured);
    enemy = go_and_not(enemy, captured);
    empty = go_or(empty, captured);
    (*position).ko = GO_NO_POINT;
    if captured_count == 1u && go_is_empty(go_and(go_neighbours(point), own))
        && go_equal(go_and(go_neighbours(point), empty), captured) {
        (*position).ko = go_first(captured);
    }
    go_finish_move(position, color, own, enemy);
    return captured_count;
}

fn go_pass(position: ptr<function, GoPosition>) {
    (*position).ko = GO_NO_POINT;
    (*position).to_move = 1u - (*position).to_move;
}

// Black's area minus white's (Board::area_difference).
fn go_area_difference(position: GoPosition) -> i32 {
    let empty = go_empty_points(position);
    let reaches_black = go_flood(go_and(go_neighbours(position.black), empty), empty);
    let reaches_white = go_flood(go_and(go_neighbours(position.white), empty), empty);
    let black_area = go_count(position.black) + go_count(go_and_not(reaches_black, reaches_white));
    let white_area = go_count(position.white) + go_count(go_and_not(reaches_white, reaches_black));
    return i32(black_area) - i32(white_area);
}
