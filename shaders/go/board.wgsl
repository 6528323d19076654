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

// The group of the stone at `bit`. A flood per colour, each inlined on its
// own: one flood within a colour chosen at run time made the compiler hold
// the chosen bitmap through the loop, a bitmap of registers more.
fn go_group_of(position: GoPosition, bit: u32) -> GoBitmap {
    let seed = go_from_bit(bit);
    if go_contains(position.black, bit) {
        return go_flood(seed, position.black);
    }
    return go_flood(seed, position.white);
}

// Every point `color` may legally play (Board::legal).
//
// A point with an empty neighbour is always legal, so only the groups
// touching a point surrounded by stones need their liberties counted: the
// set is Board::legal's, with far fewer groups flooded (none in an open
// position). Both colours' groups are found in one loop.
fn go_legal(position: GoPosition, color: u32) -> GoBitmap {
    let empty = go_empty_points(position);
    let surrounded = go_and_not(empty, go_neighbours(empty));
    var rest = go_and(go_or(position.black, position.white), go_neighbours(surrounded));
    var atari = go_empty_bitmap();
    while !go_is_empty(rest) {
        let group = go_group_of(position, go_first(rest));
        rest = go_and_not(rest, group);
        if go_liberty_count(group, empty) == 1u {
            atari = go_or(atari, group);
        }
    }
    return go_legal_given_atari(position, color, atari);
}

// The points `color` may legally play, given `atari`, the stones whose chain
// has exactly one liberty (at least those next to a point surrounded by
// stones): a point next to an empty point, to one of its own chains with
// another liberty, or to an enemy chain whose last liberty it is
// (Chains::legal).
fn go_legal_given_atari(position: GoPosition, color: u32, atari: GoBitmap) -> GoBitmap {
    let ko = select(GO_NO_POINT, position.ko, color == position.to_move);
    return go_legal_points(go_stones(position, color), go_stones(position, 1u - color), atari, ko, GoBitmap());
}

// go_legal_given_atari for the stones of the side to play (`own`) and of the
// other (`enemy`), with `ko` the point it may not play (GO_NO_POINT for
// none), less the points of `excluded` (a playout's eyes, which it then
// need not hold beside the legal points). A point gives a liberty when it
// is empty, one of ours not in atari, or one of theirs in atari:
// `own ^ atari`, atari being stones.
fn go_legal_points(own: GoBitmap, enemy: GoBitmap, atari: GoBitmap, ko: u32, excluded: GoBitmap) -> GoBitmap {
    var own_words = own;
    var enemy_words = enemy;
    var atari_words = atari;
    var excluded_words = excluded;
    var givers: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        let empty = GO_BOARD[index] & ~(own_words[index] | enemy_words[index]);
        givers[index] = empty | (own_words[index] ^ atari_words[index]);
    }
    var legal: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        let empty = GO_BOARD[index] & ~(own_words[index] | enemy_words[index]);
        legal[index] = empty & go_spread_word(&givers, index) & ~(go_bit_word(ko, index) | excluded_words[index]);
    }
    return legal;
}

// The one-point eyes of `color` by rule 2/4, with virtual friendly stones
// beyond the corners (Board::eyes).
fn go_eyes(position: GoPosition, color: u32) -> GoBitmap {
    return go_eye_points(go_stones(position, color), go_stones(position, 1u - color));
}

// Word `index` of the points whose `diagonal` neighbour (0 to 3: up and
// left, up and right, down and left, down and right) is one of `own`, or
// off the board beyond a corner (which counts as ours for eyes).
fn go_diagonal_word(own: ptr<function, GoBitmap>, index: u32, diagonal: u32) -> u32 {
    switch diagonal {
        case 0u: { return go_shifted_down_word(own, index, GO_SIZE) | go_bit_word(GO_CORNER_TOP_LEFT, index); }
        case 1u: { return go_shifted_down_word(own, index, GO_SIZE + 2u) | go_bit_word(GO_CORNER_TOP_RIGHT, index); }
        case 2u: { return go_shifted_up_word(own, index, GO_SIZE + 2u) | go_bit_word(GO_CORNER_BOTTOM_LEFT, index); }
        default: { return go_shifted_up_word(own, index, GO_SIZE) | go_bit_word(GO_CORNER_BOTTOM_RIGHT, index); }
    }
}

// One step of go_eye_points's count of missing diagonals (`diagonal` a
// constant at each call, so each call is its own small loop).
fn go_count_missing_diagonal(eyes: ptr<function, GoBitmap>, counted: ptr<function, GoBitmap>, own: ptr<function, GoBitmap>, diagonal: u32) {
    for (var index = 0u; index < GO_WORDS; index++) {
        let missing = ~go_diagonal_word(own, index, diagonal);
        let alive = (*eyes)[index];
        let seen = (*counted)[index];
        (*eyes)[index] = alive & ~(seen & missing);
        (*counted)[index] = (alive & (seen | missing)) | (seen & ~alive & ~missing);
    }
}

// go_eyes for the stones `own` against `enemy`: the empty points whose
// four neighbours are ours and at least two of whose four diagonals are.
// Each step is a small loop over the words, small enough for a driver to
// unroll over 19x19's twelve: one loop doing all eight shifts of a word
// was left rolled on lavapipe, its words went through memory, and 19x19
// playouts ran at a third of their speed or less.
fn go_eye_points(own: GoBitmap, enemy: GoBitmap) -> GoBitmap {
    var own_words = own;
    var enemy_words = enemy;
    var eyes: GoBitmap;
    for (var index = 0u; index < GO_WORDS; index++) {
        let empty = GO_BOARD[index] & ~(own_words[index] | enemy_words[index]);
        eyes[index] = empty & (go_shifted_up_word(&own_words, index, GO_LINE) | GO_BOTTOM_ROW[index]);
    }
    for (var index = 0u; index < GO_WORDS; index++) {
        eyes[index] &= go_shifted_down_word(&own_words, index, GO_LINE) | GO_TOP_ROW[index];
    }
    for (var index = 0u; index < GO_WORDS; index++) {
        eyes[index] &= go_shifted_up_word(&own_words, index, 1u) | GO_LEFT_COLUMN[index];
    }
    for (var index = 0u; index < GO_WORDS; index++) {
        eyes[index] &= go_shifted_down_word(&own_words, index, 1u) | GO_RIGHT_COLUMN[index];
    }
    // Diagonals that are not ours (beyond a corner counts as ours): a point
    // missing three of the four is no eye. They are counted one diagonal a
    // loop, in two sets (`eyes`, `counted`) that hold four states: no eye
    // (neither), none missing yet (`eyes` only), one (both), two
    // (`counted` only).
    var counted = GoBitmap();
    go_count_missing_diagonal(&eyes, &counted, &own_words, 0u);
    go_count_missing_diagonal(&eyes, &counted, &own_words, 1u);
    go_count_missing_diagonal(&eyes, &counted, &own_words, 2u);
    // The last diagonal: an eye is missing at most one so far, or two and
    // not this one.
    for (var index = 0u; index < GO_WORDS; index++) {
        eyes[index] |= counted[index] & go_diagonal_word(&own_words, index, 3u);
    }
    return eyes;
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
// handed over (Board::play). Returns the stones captured. The point is a
// ko when it takes one stone and every neighbour was an enemy stone
// (Board::play's test). The enemy stones next to the point are four bits,
// one a direction, and a chain taken leaves `enemy` at once: no bitmap of
// the neighbourhood or of the captures is held through the floods (each
// is twelve registers on 19x19). Taking a chain first changes no other
// chain's test: two enemy chains are never next to each other.
fn go_play(position: ptr<function, GoPosition>, color: u32, bit: u32) -> u32 {
    var own = go_or(go_stones(*position, color), go_from_bit(bit));
    var enemy = go_stones(*position, 1u - color);
    var candidates = 0u;
    var surrounded_by_enemy = true;
    for (var direction = 0u; direction < 4u; direction++) {
        let neighbour = go_neighbour_bit(bit, direction);
        if go_contains(enemy, neighbour) {
            candidates |= 1u << direction;
        } else if go_contains(GO_BOARD, neighbour) {
            surrounded_by_enemy = false;
        }
    }
    var captured_count = 0u;
    var captured_point = GO_NO_POINT;
    while candidates != 0u {
        let neighbour = go_neighbour_bit(bit, firstTrailingBit(candidates));
        candidates &= candidates - 1u;
        // A stone of a chain taken from another side is gone already.
        if go_contains(enemy, neighbour) {
            let single = go_from_bit_again(neighbour);
            if !go_touches(single, enemy, go_and_not(GO_BOARD, go_or(own, enemy))) {
                let group = go_flood(single, enemy);
                captured_count += go_count(group);
                captured_point = neighbour;
                enemy = go_and_not(enemy, group);
            }
        }
    }
    (*position).ko = GO_NO_POINT;
    if captured_count == 1u && surrounded_by_enemy {
        (*position).ko = captured_point;
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
