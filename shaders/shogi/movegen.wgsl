// movegen.wgsl — Shogi legal moves for one position, the twin of
// src/shogi/movegen.rs.
//
// Reads: the Shogi tables (`shogi_tables`, binding 0: step attacks per kind,
// colour and square; rays per direction and square; columns; the last one,
// two and three ranks per colour), uploaded from_square Rust. Writes: nothing.
// Library only: the perft kernels call it, one position per invocation.
// Attacks: steps from_square the tables, sliders by ray and nearest blocker;
// legality: pins, checks, promotion choices, pieces left without a move,
// nifu and uchifuzume, as the CPU reference.

#import bitboard81
#import shogi_position

@group(0) @binding(0) var<storage, read> shogi_tables: array<vec4<u32>>;

// `bound` as a value the compiler cannot see through (the table buffer's
// length is known only at run time, and is larger). Drivers unroll loops
// with a constant trip count, and unrolled Shogi loops, whose bodies play
// moves out and index the position's arrays, took lavapipe minutes to
// compile; the loops whose bodies are large take their bound from here.
fn shogi_loop_bound(bound: u32) -> u32 {
    return min(bound, arrayLength(&shogi_tables));
}

const NORTH: u32 = 0u;
const SOUTH: u32 = 1u;

fn step_attacks(kind: u32, color: u32, square: u32) -> Board81 {
    return shogi_tables[SHOGI_TABLE_STEPS + (kind * 2u + color) * 81u + square];
}

fn ray(direction: u32, square: u32) -> Board81 {
    return shogi_tables[SHOGI_TABLE_RAYS + direction * 81u + square];
}

fn column_mask(column: u32) -> Board81 {
    return shogi_tables[SHOGI_TABLE_COLUMNS + column];
}

// The last `ranks` (1, 2 or 3) ranks seen from_square `color`.
fn dead_zone(color: u32, ranks: u32) -> Board81 {
    return shogi_tables[SHOGI_TABLE_ZONES + color * 3u + ranks - 1u];
}

// Directions 0..7: north, south, west, east, north-west, north-east,
// south-west, south-east (Black's frame); square indices grow along south,
// east, south-west and south-east, so there the nearest blocker is the lowest bit.
fn ray_attacks(square: u32, direction: u32, occupied: Board81) -> Board81 {
    let full = ray(direction, square);
    let blockers = full & occupied;
    if board81_is_empty(blockers) {
        return full;
    }
    let grows = direction == 1u || direction == 3u || direction == 6u || direction == 7u;
    let nearest = select(board81_last(blockers), board81_first(blockers), grows);
    return full ^ ray(direction, nearest);
}

fn diagonal_attacks(square: u32, occupied: Board81) -> Board81 {
    return ray_attacks(square, 4u, occupied) | ray_attacks(square, 5u, occupied)
        | ray_attacks(square, 6u, occupied) | ray_attacks(square, 7u, occupied);
}

fn orthogonal_attacks(square: u32, occupied: Board81) -> Board81 {
    return ray_attacks(square, 0u, occupied) | ray_attacks(square, 1u, occupied)
        | ray_attacks(square, 2u, occupied) | ray_attacks(square, 3u, occupied);
}

fn shogi_attacks(kind: u32, color: u32, square: u32, occupied: Board81) -> Board81 {
    let stepped = step_attacks(kind, color, square);
    if kind == SHOGI_LANCE {
        return ray_attacks(square, select(SOUTH, NORTH, color == SHOGI_BLACK), occupied);
    }
    if kind == SHOGI_BISHOP || kind == SHOGI_HORSE {
        return stepped | diagonal_attacks(square, occupied);
    }
    if kind == SHOGI_ROOK || kind == SHOGI_DRAGON {
        return stepped | orthogonal_attacks(square, occupied);
    }
    return stepped;
}

// The pieces of `by` attacking `square`: each kind seen from_square the square as
// the other colour's piece.
fn shogi_attackers_to(position: ShogiPosition, square: u32, by: u32, occupied: Board81) -> Board81 {
    let other = 1u - by;
    let golds = shogi_kind_set(position, SHOGI_GOLD) | shogi_kind_set(position, SHOGI_PRO_PAWN) | shogi_kind_set(position, SHOGI_PRO_LANCE)
        | shogi_kind_set(position, SHOGI_PRO_KNIGHT) | shogi_kind_set(position, SHOGI_PRO_SILVER);
    let kings = shogi_kind_set(position, SHOGI_KING) | shogi_kind_set(position, SHOGI_HORSE) | shogi_kind_set(position, SHOGI_DRAGON);
    var attackers = (step_attacks(SHOGI_PAWN, other, square) & shogi_kind_set(position, SHOGI_PAWN))
        | (step_attacks(SHOGI_KNIGHT, other, square) & shogi_kind_set(position, SHOGI_KNIGHT))
        | (step_attacks(SHOGI_SILVER, other, square) & shogi_kind_set(position, SHOGI_SILVER))
        | (step_attacks(SHOGI_GOLD, other, square) & golds)
        | (step_attacks(SHOGI_KING, other, square) & kings);
    // The sliders, one ray a turn: a lance of `by` attacks along the ray
    // that the other colour's lance would move along from `square`.
    let diagonal = shogi_kind_set(position, SHOGI_BISHOP) | shogi_kind_set(position, SHOGI_HORSE);
    let straight = shogi_kind_set(position, SHOGI_ROOK) | shogi_kind_set(position, SHOGI_DRAGON);
    let lance_direction = select(SOUTH, NORTH, other == SHOGI_BLACK);
    for (var direction = 0u; direction < shogi_loop_bound(8u); direction++) {
        var sliders = select(straight, diagonal, direction >= 4u);
        if direction == lance_direction {
            sliders = sliders | shogi_kind_set(position, SHOGI_LANCE);
        }
        attackers = attackers | (ray_attacks(square, direction, occupied) & sliders);
    }
    return attackers & shogi_color_set(position, by);
}

fn shogi_king(position: ShogiPosition, color: u32) -> u32 {
    return board81_first(shogi_pieces_of(position, color, SHOGI_KING));
}

fn shogi_in_check(position: ShogiPosition, color: u32) -> bool {
    let king = shogi_king(position, color);
    return king != SHOGI_NO_SQUARE
        && !board81_is_empty(shogi_attackers_to(position, king, 1u - color, shogi_occupied(position)));
}

// Pieces of `us` that are the only piece between `us`'s king and a slider
// of the other side moving along that line (a lance only forward).
fn shogi_pinned(position: ShogiPosition, king: u32, us: u32) -> Board81 {
    let occupied = shogi_occupied(position);
    let theirs = shogi_color_set(position, 1u - us);
    let diagonal = (shogi_kind_set(position, SHOGI_BISHOP) | shogi_kind_set(position, SHOGI_HORSE)) & theirs;
    let straight = (shogi_kind_set(position, SHOGI_ROOK) | shogi_kind_set(position, SHOGI_DRAGON)) & theirs;
    let lance_direction = select(SOUTH, NORTH, us == SHOGI_BLACK);
    let lances = shogi_kind_set(position, SHOGI_LANCE) & theirs;
    var pinned = BOARD81_EMPTY;
    for (var direction = 0u; direction < shogi_loop_bound(8u); direction++) {
        let first = ray_attacks(king, direction, occupied) & occupied;
        if board81_is_empty(first & shogi_color_set(position, us)) {
            continue;
        }
        let behind = ray_attacks(king, direction, occupied ^ first) & occupied & board81_not(first);
        var sliders = straight;
        if direction >= 4u {
            sliders = diagonal;
        } else if direction == lance_direction {
            sliders = straight | lances;
        }
        if !board81_is_empty(behind & sliders) {
            pinned = pinned | first;
        }
    }
    return pinned;
}

fn promoted_kind(kind: u32) -> u32 {
    if kind <= SHOGI_SILVER {
        return kind + 8u;
    }
    if kind == SHOGI_BISHOP || kind == SHOGI_ROOK {
        return kind + 7u;
    }
    return SHOGI_NO_PIECE;
}

fn unpromoted_kind(kind: u32) -> u32 {
    if kind >= SHOGI_PRO_PAWN && kind <= SHOGI_PRO_SILVER {
        return kind - 8u;
    }
    if kind == SHOGI_HORSE || kind == SHOGI_DRAGON {
        return kind - 7u;
    }
    return kind;
}

// The hand slot of an unpromoted kind (pawn 0 … rook 6).
fn hand_slot(kind: u32) -> u32 {
    return unpromoted_kind(kind);
}

// Destinations where `kind` must promote (it would have no move otherwise).
fn forced_promotions(kind: u32, color: u32) -> Board81 {
    if kind == SHOGI_PAWN || kind == SHOGI_LANCE {
        return dead_zone(color, 1u);
    }
    if kind == SHOGI_KNIGHT {
        return dead_zone(color, 2u);
    }
    return BOARD81_EMPTY;
}

// Whether moving `kind` of `color` from `from_square` to `to` may be played
// promoting (`promote`) or not: promotion needs a promotable kind and the
// zone at either end; declining it needs the piece to keep a move.
fn promotion_choice_allowed(kind: u32, color: u32, from_square: u32, to: u32, promote: bool) -> bool {
    if promote {
        let zone = dead_zone(color, 3u);
        return promoted_kind(kind) != SHOGI_NO_PIECE && (board81_contains(zone, from_square) || board81_contains(zone, to));
    }
    return !board81_contains(forced_promotions(kind, color), to);
}

// The one square (as a set) where a pawn drop by the side to move would
// check the other king, and so might mate; empty when it has no such king.
fn checking_pawn_drop(position: ShogiPosition) -> Board81 {
    let them = 1u - position.side_to_move;
    let their_king = shogi_king(position, them);
    if their_king == SHOGI_NO_SQUARE {
        return BOARD81_EMPTY;
    }
    return step_attacks(SHOGI_PAWN, them, their_king);
}

// Whether dropping `kind` on `to` (one of its drop targets) is legal: it must
// answer a check (`checked`), and a pawn must not mate (uchifuzume).
fn drop_is_legal(position: ShogiPosition, kind: u32, to: u32, checked: bool) -> bool {
    if checked && !keeps_king_safe(position, SHOGI_NO_SQUARE, to, kind, false) {
        return false;
    }
    return !(kind == SHOGI_PAWN && board81_contains(checking_pawn_drop(position), to) && pawn_drop_mates(position, to));
}

// A board move or a drop (from_square == SHOGI_NO_SQUARE) of `kind`.
fn shogi_make_move(position: ShogiPosition, from_square: u32, to: u32, kind: u32, promote: bool) -> ShogiPosition {
    var next = position;
    let us = position.side_to_move;
    let them = 1u - us;
    let to_bit = board81_from_square(to);
    if from_square == SHOGI_NO_SQUARE {
        shogi_hand_add(&next, us, hand_slot(kind), 0xffffffffu);
    } else {
        shogi_toggle(&next, kind, us, board81_from_square(from_square));
        if board81_contains(shogi_color_set(position, them), to) {
            let captured = shogi_piece_on(position, to);
            shogi_toggle(&next, captured, them, to_bit);
            shogi_hand_add(&next, us, hand_slot(captured), 1u);
        }
    }
    shogi_toggle(&next, select(kind, promoted_kind(kind), promote), us, to_bit);
    next.side_to_move = them;
    next.move_number += 1u;
    return next;
}

fn keeps_king_safe(position: ShogiPosition, from_square: u32, to: u32, kind: u32, promote: bool) -> bool {
    return !shogi_in_check(shogi_make_move(position, from_square, to, kind, promote), position.side_to_move);
}

// Squares `kind` may be dropped on by the side to move.
fn drop_targets(position: ShogiPosition, kind: u32) -> Board81 {
    let us = position.side_to_move;
    var targets = board81_not(shogi_occupied(position));
    if kind == SHOGI_PAWN || kind == SHOGI_LANCE {
        targets = targets & board81_not(dead_zone(us, 1u));
    }
    if kind == SHOGI_KNIGHT {
        targets = targets & board81_not(dead_zone(us, 2u));
    }
    if kind == SHOGI_PAWN {
        let pawns = shogi_pieces_of(position, us, SHOGI_PAWN);
        for (var column = 0u; column < shogi_loop_bound(9u); column++) {
            if !board81_is_empty(pawns & column_mask(column)) {
                targets = targets & board81_not(column_mask(column));
            }
        }
    }
    return targets;
}

// Whether dropping a pawn on `to` mates (uchifuzume, illegal). The check is
// adjacent and cannot be blocked, so the defender escapes only by a king
// step to a safe square (taking the pawn among them) or by another piece
// taking the pawn. Both kinds of answer are tried in one loop with one
// king-safety test: every copy of that test costs the driver's compiler.
fn pawn_drop_mates(position: ShogiPosition, to: u32) -> bool {
    let after = shogi_make_move(position, SHOGI_NO_SQUARE, to, SHOGI_PAWN, false);
    let them = after.side_to_move;
    let king = shogi_king(after, them);
    let steps = step_attacks(SHOGI_KING, them, king) & board81_not(shogi_color_set(after, them));
    // The defender's own pieces, so never a square of `steps`.
    let capturers = shogi_attackers_to(after, to, them, shogi_occupied(after)) & board81_not(board81_from_square(king));
    var answers = steps | capturers;
    while !board81_is_empty(answers) {
        let square = board81_first(answers);
        answers = board81_without_first(answers);
        let captures = board81_contains(capturers, square);
        let from_square = select(king, square, captures);
        let kind = select(SHOGI_KING, shogi_piece_on(after, square), captures);
        if keeps_king_safe(after, from_square, select(square, to, captures), kind, false) {
            return false;
        }
    }
    return true;
}

// The number of moves a piece's destinations stand for: a promotion and a
// non-promotion wherever both are legal.
fn destination_count(kind: u32, color: u32, from_square: u32, targets: Board81) -> u32 {
    if promoted_kind(kind) == SHOGI_NO_PIECE {
        return board81_count(targets);
    }
    let zone = dead_zone(color, 3u);
    let promoting = select(targets & zone, targets, board81_contains(zone, from_square));
    let forced = targets & forced_promotions(kind, color);
    return board81_count(promoting) + board81_count(targets & board81_not(forced));
}

// The legal moves of `kind` on `from_square` to `targets`, each played out to test the king.
fn tested_count(position: ShogiPosition, kind: u32, from_square: u32, targets: Board81) -> u32 {
    let us = position.side_to_move;
    var count = 0u;
    var remaining = targets;
    while !board81_is_empty(remaining) {
        let to = board81_first(remaining);
        remaining = board81_without_first(remaining);
        // Promoting or not leaves our king as safe, so one test serves both choices.
        if keeps_king_safe(position, from_square, to, kind, false) {
            count += u32(promotion_choice_allowed(kind, us, from_square, to, true))
                + u32(promotion_choice_allowed(kind, us, from_square, to, false));
        }
    }
    return count;
}

// The number of legal moves, the twin of Position::legal_move_count: out of
// check, pieces that are not pinned are counted from_square their destination sets
// (promotion choices by masks) and drops by a popcount, with the one square
// where a pawn drop could mate tested; the king, pinned pieces and every
// move in check are played out.
fn shogi_legal_move_count(position: ShogiPosition) -> u32 {
    let us = position.side_to_move;
    let them = 1u - us;
    let king = shogi_king(position, us);
    if king == SHOGI_NO_SQUARE {
        return 0u;
    }
    let occupied = shogi_occupied(position);
    let ours = shogi_color_set(position, us);
    let checked = !board81_is_empty(shogi_attackers_to(position, king, them, occupied));
    let pinned = shogi_pinned(position, king, us);
    var count = 0u;
    for (var kind = 0u; kind < shogi_loop_bound(14u); kind++) {
        var pieces = shogi_pieces_of(position, us, kind);
        while !board81_is_empty(pieces) {
            let from_square = board81_first(pieces);
            pieces = board81_without_first(pieces);
            let targets = shogi_attacks(kind, us, from_square, occupied) & board81_not(ours);
            if checked || kind == SHOGI_KING || board81_contains(pinned, from_square) {
                count += tested_count(position, kind, from_square, targets);
            } else {
                count += destination_count(kind, us, from_square, targets);
            }
        }
    }
    for (var kind = 0u; kind < shogi_loop_bound(7u); kind++) {
        if shogi_hand(position, us, kind) == 0u {
            continue;
        }
        let targets = drop_targets(position, kind);
        // The one square where a pawn drop checks, and may mate.
        let front = targets & select(BOARD81_EMPTY, checking_pawn_drop(position), kind == SHOGI_PAWN);
        // Out of check every drop is legal, but for the pawn's on `front`.
        var front_legal = !checked;
        if checked {
            var remaining = targets;
            while !board81_is_empty(remaining) {
                let to = board81_first(remaining);
                remaining = board81_without_first(remaining);
                let safe = keeps_king_safe(position, SHOGI_NO_SQUARE, to, kind, false);
                count += u32(safe);
                front_legal = front_legal || (safe && board81_contains(front, to));
            }
        } else {
            count += board81_count(targets);
        }
        if front_legal && !board81_is_empty(front) && pawn_drop_mates(position, board81_first(front)) {
            count -= 1u;
        }
    }
    return count;
}
