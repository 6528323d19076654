// variant.wgsl — the lichess chess variants on the GPU: their position, its
// packing, their legal moves, playing one, and the end of a game by a
// variant's rule.
//
// Reads: the attack tables (tables.wgsl). Writes: nothing. Library only;
// kernels/variant_perft.wgsl runs it under the perft engine. The variant is
// fixed when the module is composed: `variant_selected`, written by
// src/chess/gpu/variant.rs, says `const VARIANT: u32 = ...;` with the
// variant numbers, so that one pipeline holds one variant's rules and
// compilers drop the others' branches. CPU twin: src/chess/variant/rules.rs.
//
// Moves come from one walk: the chess library's legal walk (movegen.wgsl)
// for a side with a royal king (standard, king of the hill, three-check,
// racing kings, crazyhouse, and horde's black), a pseudo-legal walk for the
// rest (antichess, atomic, horde's white), then crazyhouse's drops; each
// move passes the variant's filter (antichess: captures when there are any;
// atomic: played out, the mover's king must survive unchecked or the other
// king be gone; racing kings: no check given). A drop is a step whose from-
// and to-squares are the same.

#import movegen
#import variant_selected

// Rust twin: PackedVariantPosition in src/chess/gpu/layout.rs.
struct PackedVariantPosition {
    position: PackedPosition,
    // Crazyhouse pockets: five bits a count, pawn to queen from bit 0;
    // white's in x, black's in y.
    pockets: vec2<u32>,
    // Crazyhouse: the pieces that were pawns.
    promoted: Bitboard,
    // Three-check: the checks white still needs in bits 0..3, black's in 4..7.
    checks: u32,
    reserved: u32,
}

struct VariantPosition {
    board: Position,
    pockets: vec2<u32>,
    promoted: Bitboard,
    checks: u32,
}

fn unpack_variant(packed: PackedVariantPosition) -> VariantPosition {
    return VariantPosition(unpack_position(packed.position), packed.pockets, packed.promoted, packed.checks);
}

fn pack_variant(position: VariantPosition) -> PackedVariantPosition {
    return PackedVariantPosition(pack_position(position.board), position.pockets, position.promoted, position.checks, 0u);
}

// d4, e4, d5, e5.
fn hill() -> Bitboard {
    return bitboard_make(0x18000000u, 0x18u);
}

fn rank_eight() -> Bitboard {
    return bitboard_make(0u, 0xff000000u);
}

fn back_ranks() -> Bitboard {
    return bitboard_make(0xffu, 0xff000000u);
}

// How many of `piece` (PIECE_PAWN to PIECE_QUEEN) `color` has in its pocket.
fn pocket_count(pockets: vec2<u32>, color: u32, piece: u32) -> u32 {
    let word = select(pockets.x, pockets.y, color == BLACK);
    return (word >> (5u * (piece - 1u))) & 31u;
}

// The pockets with one `piece` more (`add`) or less in `color`'s.
fn pocket_changed(pockets: vec2<u32>, color: u32, piece: u32, add: bool) -> vec2<u32> {
    let unit = 1u << (5u * (piece - 1u));
    var changed = pockets;
    if color == BLACK {
        changed.y = select(changed.y - unit, changed.y + unit, add);
    } else {
        changed.x = select(changed.x - unit, changed.x + unit, add);
    }
    return changed;
}

fn remaining_checks(position: VariantPosition, color: u32) -> u32 {
    return (position.checks >> (4u * color)) & 15u;
}

// Whether the side to move has a king that must not be left in check.
fn variant_royal(position: VariantPosition) -> bool {
    if VARIANT == VARIANT_ANTICHESS || VARIANT == VARIANT_ATOMIC {
        return false;
    }
    if VARIANT == VARIANT_HORDE {
        return position.board.side_to_move == BLACK;
    }
    return true;
}

// The side to move's king is attacked (a side with a royal king).
fn side_in_check(board: Position) -> bool {
    let us = board.side_to_move;
    let king = bitboard_first(board.kings & position_color(board, us));
    if king == NO_SQUARE {
        return false;
    }
    return is_attacked(board, king, 1u - us, position_occupied(board));
}

// The two kings stand next to each other (atomic: neither is then in check).
fn kings_touch(board: Position) -> bool {
    let white_king = bitboard_first(board.kings & board.white);
    if white_king == NO_SQUARE {
        return false;
    }
    return !bitboard_is_empty(table_king_attacks(white_king) & board.kings & board.black);
}

// Racing kings: a king on the eighth rank ends the race, but black gets one
// move to reach it too while white alone is there.
fn racing_kings_end(board: Position) -> bool {
    if bitboard_is_empty(board.kings & rank_eight()) {
        return false;
    }
    let black_king = board.kings & board.black;
    if bitboard_is_empty(black_king) || board.side_to_move == WHITE || !bitboard_is_empty(black_king & rank_eight()) {
        return true;
    }
    var targets = table_king_attacks(bitboard_first(black_king)) & rank_eight() & ~board.black;
    let occupied = position_occupied(board);
    while !bitboard_is_empty(targets) {
        let goal = bitboard_first(targets);
        targets = bitboard_without_first(targets);
        if !is_attacked(board, goal, WHITE, occupied) {
            return false;
        }
    }
    return true;
}

// Whether the game is over by the variant's own rule; such a position has no moves.
fn variant_is_end(position: VariantPosition) -> bool {
    let board = position.board;
    if VARIANT == VARIANT_ANTICHESS || VARIANT == VARIANT_HORDE {
        return bitboard_is_empty(board.white) || bitboard_is_empty(board.black);
    }
    if VARIANT == VARIANT_ATOMIC {
        return bitboard_is_empty(board.kings & board.white) || bitboard_is_empty(board.kings & board.black);
    }
    if VARIANT == VARIANT_KING_OF_THE_HILL {
        return !bitboard_is_empty(board.kings & hill());
    }
    if VARIANT == VARIANT_THREE_CHECK {
        return remaining_checks(position, WHITE) == 0u || remaining_checks(position, BLACK) == 0u;
    }
    if VARIANT == VARIANT_RACING_KINGS {
        return racing_kings_end(board);
    }
    return false;
}

// Atomic castling: the paths empty but for king and rook, and the king's
// square, the squares it crosses and where it lands not attacked, squares
// next to the other king excepted. The rooks of the castlings allowed.
fn atomic_castling_rooks(board: Position) -> Bitboard {
    let us = board.side_to_move;
    let them = 1u - us;
    let base = select(0u, 56u, us == BLACK);
    let king = bitboard_first(board.kings & position_color(board, us) & bitboard_shift_left(bitboard_make(0xffu, 0u), base));
    if king == NO_SQUARE {
        return BITBOARD_EMPTY;
    }
    let occupied = position_occupied(board);
    var near = BITBOARD_EMPTY;
    let their_king = bitboard_first(board.kings & position_color(board, them));
    if their_king != NO_SQUARE {
        near = table_king_attacks(their_king);
    }
    var files = castling_files(board, us);
    var rooks = BITBOARD_EMPTY;
    while files != 0u {
        let rook_file = firstTrailingBit(files);
        files = files & (files - 1u);
        let rook = base + rook_file;
        let targets = castling_targets(king, rook);
        let king_and_rook = bitboard_from_square(king) | bitboard_from_square(rook);
        let crossed = (rank_span(base, king & 7u, targets.x & 7u) | rank_span(base, rook_file, targets.y & 7u)) & ~king_and_rook;
        if !bitboard_is_empty(crossed & occupied) {
            continue;
        }
        let without_king = occupied & ~bitboard_from_square(king);
        var path = (table_between(king, targets.x) | bitboard_from_square(king)) & ~near;
        var safe = true;
        while safe && !bitboard_is_empty(path) {
            safe = !is_attacked(board, bitboard_first(path), them, without_king);
            path = bitboard_without_first(path);
        }
        let after = without_king ^ bitboard_from_square(rook) ^ bitboard_from_square(targets.y);
        if safe && !bitboard_contains(near, targets.x) && is_attacked(board, targets.x, them, after) {
            safe = false;
        }
        if safe {
            rooks = rooks | bitboard_from_square(rook);
        }
    }
    return rooks;
}

// Every square the side to move's piece `piece` on `square` may go to,
// without protecting any king: captures and quiet moves, pawn pushes (two
// squares from the first or second rank, as a horde's pawns may) and en
// passant, and in atomic the castling rooks.
fn pseudo_destinations(board: Position, piece: u32, square: u32) -> Bitboard {
    let us = board.side_to_move;
    let ours = position_color(board, us);
    let theirs = position_color(board, 1u - us);
    let occupied = ours | theirs;
    if piece == PIECE_PAWN {
        var destinations = table_pawn_attacks(us, square) & theirs;
        let single = select(square + 8u, square - 8u, us == BLACK);
        if !bitboard_contains(occupied, single) {
            destinations = destinations | bitboard_from_square(single);
            let single_rank = single >> 3u;
            let may_double = select(single_rank <= 2u, single_rank >= 5u, us == BLACK);
            if may_double {
                let double = select(single + 8u, single - 8u, us == BLACK);
                let double_rank = double >> 3u;
                let landing = select(double_rank == 2u || double_rank == 3u, double_rank == 5u || double_rank == 4u, us == BLACK);
                if landing && !bitboard_contains(occupied, double) {
                    destinations = destinations | bitboard_from_square(double);
                }
            }
        }
        let en_passant = board.en_passant;
        if en_passant != NO_SQUARE && bitboard_contains(table_pawn_attacks(us, square), en_passant) && !bitboard_contains(occupied, en_passant) {
            destinations = destinations | bitboard_from_square(en_passant);
        }
        return destinations;
    }
    if piece == PIECE_KNIGHT {
        return table_knight_attacks(square) & ~ours;
    }
    if piece == PIECE_KING {
        var destinations = table_king_attacks(square) & ~ours;
        if VARIANT == VARIANT_ATOMIC {
            destinations = destinations | atomic_castling_rooks(board);
        }
        return destinations;
    }
    return slider_attacks(piece, square, occupied) & ~ours;
}

// A walk over pseudo-legal moves, as MoveWalk walks legal ones.
struct PseudoWalk {
    pieces: Bitboard,
    from_square: u32,
    piece: u32,
    destinations: Bitboard,
    to_square: u32,
    // Promotions left at the current destination.
    promotions_left: u32,
}

fn pseudo_walk_begin(board: Position) -> PseudoWalk {
    return PseudoWalk(position_color(board, board.side_to_move), NO_SQUARE, PIECE_NONE, BITBOARD_EMPTY, NO_SQUARE, 0u);
}

// Promotions a pawn reaching the last rank has: queen, rook, bishop,
// knight, and in antichess a king.
fn promotion_choices() -> u32 {
    return select(4u, 5u, VARIANT == VARIANT_ANTICHESS);
}

// The `index`th promotion piece (0: queen … 3: knight, 4: king).
fn promotion_piece(index: u32) -> u32 {
    return select(PIECE_QUEEN - index, PIECE_KING, index == 4u);
}

fn pseudo_walk_next(board: Position, walk: ptr<function, PseudoWalk>) -> MoveStep {
    if (*walk).promotions_left > 0u {
        let index = promotion_choices() - (*walk).promotions_left;
        (*walk).promotions_left -= 1u;
        return move_step((*walk).from_square, (*walk).to_square, PIECE_PAWN, promotion_piece(index));
    }
    loop {
        if !bitboard_is_empty((*walk).destinations) || bitboard_is_empty((*walk).pieces) {
            break;
        }
        let from_square = bitboard_first((*walk).pieces);
        (*walk).pieces = bitboard_without_first((*walk).pieces);
        let piece = position_piece_on(board, from_square);
        (*walk).from_square = from_square;
        (*walk).piece = piece;
        (*walk).destinations = pseudo_destinations(board, piece, from_square);
    }
    if bitboard_is_empty((*walk).destinations) {
        return move_step(NO_SQUARE, NO_SQUARE, PIECE_NONE, PIECE_NONE);
    }
    let to_square = bitboard_first((*walk).destinations);
    (*walk).destinations = bitboard_without_first((*walk).destinations);
    (*walk).to_square = to_square;
    if (*walk).piece == PIECE_PAWN && bitboard_contains(back_ranks(), to_square) {
        (*walk).promotions_left = promotion_choices() - 1u;
        return move_step((*walk).from_square, to_square, PIECE_PAWN, PIECE_QUEEN);
    }
    return move_step((*walk).from_square, to_square, (*walk).piece, PIECE_NONE);
}

// Whether a step takes a piece (en passant included).
fn step_captures(board: Position, step: MoveStep) -> bool {
    let theirs = position_color(board, 1u - board.side_to_move);
    if bitboard_contains(theirs, step.to_square) {
        return true;
    }
    return step.piece == PIECE_PAWN && step.to_square == board.en_passant && ((step.from_square ^ step.to_square) & 7u) != 0u;
}

// Antichess: whether the side to move has a capture (which it must then take).
fn antichess_has_capture(board: Position) -> bool {
    // Loops end by `break` and the function by one return: Tint warns of a
    // return after a loop that only returns from inside.
    var walk = pseudo_walk_begin(board);
    var found = false;
    loop {
        let step = pseudo_walk_next(board, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        if step_captures(board, step) {
            found = true;
            break;
        }
    }
    return found;
}

// Crazyhouse: where the side to move may drop (any empty square out of
// check, between king and checker in check, nowhere in double check).
fn drop_squares(board: Position) -> Bitboard {
    let us = board.side_to_move;
    let empty = ~position_occupied(board);
    let king = bitboard_first(board.kings & position_color(board, us));
    if king == NO_SQUARE {
        return empty;
    }
    let checkers = attackers_to(board, king, 1u - us, position_occupied(board));
    if bitboard_is_empty(checkers) {
        return empty;
    }
    if bitboard_has_several(checkers) {
        return BITBOARD_EMPTY;
    }
    return table_between(king, bitboard_first(checkers)) & empty;
}

fn drop_targets(squares: Bitboard, piece: u32) -> Bitboard {
    return select(squares, squares & ~back_ranks(), piece == PIECE_PAWN);
}

// Crazyhouse: the number of legal drops.
fn drop_count(position: VariantPosition) -> u32 {
    let us = position.board.side_to_move;
    let word = select(position.pockets.x, position.pockets.y, us == BLACK);
    if word == 0u {
        return 0u;
    }
    let squares = drop_squares(position.board);
    var count = 0u;
    for (var piece = PIECE_PAWN; piece <= PIECE_QUEEN; piece++) {
        if pocket_count(position.pockets, us, piece) > 0u {
            count += bitboard_count(drop_targets(squares, piece));
        }
    }
    return count;
}

// Plays a move of a walk (a drop when its squares are the same) and
// returns the new position, with the variant's extras: crazyhouse's pockets
// and promoted pieces, atomic's explosion, three-check's counters, and no
// en passant square after a horde pawn's push from the first rank.
fn variant_make_move(position: VariantPosition, step: MoveStep) -> VariantPosition {
    var next = position;
    let board = position.board;
    let us = board.side_to_move;
    let them = 1u - us;
    if step.from_square == step.to_square {
        let bit = bitboard_from_square(step.to_square);
        var dropped = board;
        position_toggle(&dropped, step.piece, bit);
        position_toggle_color(&dropped, us, bit);
        dropped.en_passant = NO_SQUARE;
        dropped.halfmove_clock = select(min(board.halfmove_clock + 1u, 0xffffu), 0u, step.piece == PIECE_PAWN);
        if us == BLACK {
            dropped.fullmove_number = min(board.fullmove_number + 1u, 0xffffu);
        }
        dropped.side_to_move = them;
        next.board = dropped;
        next.pockets = pocket_changed(position.pockets, us, step.piece, false);
        return next;
    }
    let castling = step.piece == PIECE_KING && bitboard_contains(position_color(board, us), step.to_square);
    var captured = PIECE_NONE;
    var captured_square = step.to_square;
    if !castling {
        captured = position_piece_on(board, step.to_square);
        if captured != PIECE_NONE && !bitboard_contains(position_color(board, them), step.to_square) {
            captured = PIECE_NONE;
        }
        if step.piece == PIECE_PAWN && step.to_square == board.en_passant && ((step.from_square ^ step.to_square) & 7u) != 0u {
            captured = PIECE_PAWN;
            captured_square = (step.from_square & 56u) | (step.to_square & 7u);
        }
    }
    next.board = position_make_move(board, step.from_square, step.to_square, step.piece, step.promotion);
    if step.piece == PIECE_PAWN && (step.from_square < 8u || step.from_square >= 56u) {
        next.board.en_passant = NO_SQUARE;
    }
    if VARIANT == VARIANT_CRAZYHOUSE {
        var promoted = position.promoted;
        if captured != PIECE_NONE {
            let back = select(captured, PIECE_PAWN, bitboard_contains(promoted, captured_square));
            next.pockets = pocket_changed(position.pockets, us, back, true);
            promoted = promoted & ~bitboard_from_square(captured_square);
        }
        if !castling && bitboard_contains(promoted, step.from_square) {
            promoted = (promoted & ~bitboard_from_square(step.from_square)) | bitboard_from_square(step.to_square);
        }
        if step.promotion != PIECE_NONE {
            promoted = promoted | bitboard_from_square(step.to_square);
        }
        next.promoted = promoted;
    }
    if VARIANT == VARIANT_ATOMIC && captured != PIECE_NONE {
        // The capturer explodes on its square, and every piece but pawns next to it.
        let exploded = (table_king_attacks(step.to_square) & ~next.board.pawns & position_occupied(next.board))
            | bitboard_from_square(step.to_square);
        var rights = next.board.castling;
        rights = rights & ~((bitboard_low(exploded) & 0xffu) | ((bitboard_high(exploded) >> 24u) << 8u));
        if !bitboard_is_empty(exploded & next.board.kings & next.board.white) {
            rights = rights & ~0xffu;
        }
        if !bitboard_is_empty(exploded & next.board.kings & next.board.black) {
            rights = rights & ~0xff00u;
        }
        let kept = ~exploded;
        next.board.pawns = next.board.pawns & kept;
        next.board.knights = next.board.knights & kept;
        next.board.bishops = next.board.bishops & kept;
        next.board.rooks = next.board.rooks & kept;
        next.board.queens = next.board.queens & kept;
        next.board.kings = next.board.kings & kept;
        next.board.white = next.board.white & kept;
        next.board.black = next.board.black & kept;
        next.board.castling = rights;
    }
    if VARIANT == VARIANT_THREE_CHECK && side_in_check(next.board) && remaining_checks(position, us) > 0u {
        next.checks = position.checks - (1u << (4u * us));
    }
    return next;
}

// Atomic: a move stands when, played out, the mover's king survives and the
// other king is gone or ours is not in check (never next to the other king).
fn atomic_is_legal(position: VariantPosition, step: MoveStep) -> bool {
    let us = position.board.side_to_move;
    let child = variant_make_move(position, step).board;
    let ours = bitboard_first(child.kings & position_color(child, us));
    if ours == NO_SQUARE {
        return false;
    }
    if bitboard_is_empty(child.kings & position_color(child, 1u - us)) {
        return true;
    }
    return kings_touch(child) || !is_attacked(child, ours, 1u - us, position_occupied(child));
}

// Whether the variant keeps a board move the walk found.
fn variant_keeps(position: VariantPosition, step: MoveStep, captures_only: bool) -> bool {
    if VARIANT == VARIANT_ANTICHESS {
        return !captures_only || step_captures(position.board, step);
    }
    if VARIANT == VARIANT_ATOMIC {
        return atomic_is_legal(position, step);
    }
    if VARIANT == VARIANT_RACING_KINGS {
        // Played on the packed planes: the child's side to move, the other
        // side, must not be in check.
        let child = play_move_word(pack_position(position.board),
            move_word(step.from_square, step.to_square, step.piece, step.promotion));
        let them = child.state & 1u;
        let king = bitboard_first(packed_kings(child) & packed_color(child, them));
        return king == NO_SQUARE
            || bitboard_is_empty(packed_attackers_to(child, king, 1u - them, packed_occupied(child)));
    }
    return true;
}

// The walk over a variant position's legal moves: the board's (legal or
// pseudo-legal, filtered), then the drops.
struct VariantWalk {
    legal: MoveWalk,
    pseudo: PseudoWalk,
    royal: bool,
    ended: bool,
    captures_only: bool,
    board_done: bool,
    // Drops: the squares allowed, the kind being dropped (PIECE_NONE
    // before the first), and its squares not yet visited.
    drop_squares: Bitboard,
    drop_piece: u32,
    drop_left: Bitboard,
}

fn variant_walk_begin(position: VariantPosition) -> VariantWalk {
    var walk: VariantWalk;
    walk.ended = variant_is_end(position);
    walk.royal = variant_royal(position);
    walk.board_done = walk.ended;
    walk.captures_only = false;
    walk.drop_squares = BITBOARD_EMPTY;
    walk.drop_piece = PIECE_NONE;
    walk.drop_left = BITBOARD_EMPTY;
    walk.legal = move_walk_begin(position.board);
    walk.pseudo = pseudo_walk_begin(position.board);
    if walk.royal {
        walk.pseudo.pieces = BITBOARD_EMPTY;
    } else {
        walk.legal.pieces = BITBOARD_EMPTY;
    }
    if VARIANT == VARIANT_ANTICHESS && !walk.ended {
        walk.captures_only = antichess_has_capture(position.board);
    }
    if VARIANT == VARIANT_CRAZYHOUSE && !walk.ended {
        walk.drop_squares = drop_squares(position.board);
    }
    return walk;
}

// The next legal move, or a step from NO_SQUARE when there is none left.
fn variant_walk_next(position: VariantPosition, walk: ptr<function, VariantWalk>) -> MoveStep {
    let none = move_step(NO_SQUARE, NO_SQUARE, PIECE_NONE, PIECE_NONE);
    if (*walk).ended {
        return none;
    }
    loop {
        if (*walk).board_done {
            break;
        }
        var step: MoveStep;
        if (*walk).royal {
            var legal = (*walk).legal;
            step = move_walk_next(position.board, &legal);
            (*walk).legal = legal;
        } else {
            var pseudo = (*walk).pseudo;
            step = pseudo_walk_next(position.board, &pseudo);
            (*walk).pseudo = pseudo;
        }
        if step.from_square == NO_SQUARE {
            (*walk).board_done = true;
            break;
        }
        if variant_keeps(position, step, (*walk).captures_only) {
            return step;
        }
    }
    if VARIANT != VARIANT_CRAZYHOUSE {
        return none;
    }
    let us = position.board.side_to_move;
    var dropped = none;
    loop {
        if !bitboard_is_empty((*walk).drop_left) {
            let square = bitboard_first((*walk).drop_left);
            (*walk).drop_left = bitboard_without_first((*walk).drop_left);
            dropped = move_step(square, square, (*walk).drop_piece, PIECE_NONE);
            break;
        }
        if (*walk).drop_piece == PIECE_QUEEN {
            break;
        }
        (*walk).drop_piece = select((*walk).drop_piece + 1u, PIECE_PAWN, (*walk).drop_piece == PIECE_NONE);
        if pocket_count(position.pockets, us, (*walk).drop_piece) > 0u {
            (*walk).drop_left = drop_targets((*walk).drop_squares, (*walk).drop_piece);
        }
    }
    return dropped;
}

// The number of legal moves: counted set-wise where the chess library can
// (a royal side without drops or filters, crazyhouse with its drops added),
// else by walking them.
fn variant_move_count(position: VariantPosition) -> u32 {
    if variant_is_end(position) {
        return 0u;
    }
    let plain = VARIANT == VARIANT_CHESS || VARIANT == VARIANT_KING_OF_THE_HILL || VARIANT == VARIANT_THREE_CHECK
        || VARIANT == VARIANT_CRAZYHOUSE || (VARIANT == VARIANT_HORDE && position.board.side_to_move == BLACK);
    if plain {
        var count = legal_move_count(position.board);
        if VARIANT == VARIANT_CRAZYHOUSE {
            count += drop_count(position);
        }
        return count;
    }
    var walk = variant_walk_begin(position);
    var count = 0u;
    loop {
        let step = variant_walk_next(position, &walk);
        if step.from_square == NO_SQUARE {
            break;
        }
        count += 1u;
    }
    return count;
}

// Whether a position breaks what its variant's kernels rely on: a side
// with a royal king must have one.
fn variant_invalid(position: VariantPosition) -> bool {
    if !variant_royal(position) || variant_is_end(position) {
        return false;
    }
    let us = position.board.side_to_move;
    return bitboard_is_empty(position.board.kings & position_color(position.board, us));
}
