// kernels/perft.wgsl — the chess kernels of the breadth-first perft engine.
//
// Reads: the attack tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl: the arena of packed positions, their roots,
// the parameters). Writes: move counts (`scan_data`), move lists and
// children in the arena, 64-bit totals per root, fault flags
// (FAULT_INVALID_POSITION for a side to move without a king,
// FAULT_ARENA_OVERFLOW for a child past the arena).
// The engine's move lists (common/perft_moves.wgsl) bring the kernels that
// expand a level (`expand_moves`, one invocation per position: its legal
// moves as words, from the move walk; `write_children`, one per move: the
// child, played on the packed planes) and count the last two plies
// (`count_leaves_fused`, one per move of the last stored level: the child's
// legal moves). On a software adapter the last two plies are counted by
// `count_leaves_looped` instead: one invocation per position of the last
// stored level, playing each of its moves in turn. The engine module brings
// `count_moves` and the scan, which ask `perft_move_count` here for a
// position's legal move count.

#import movegen
#import perft_moves
#import siblings

alias PerftRecord = PackedPosition;

// The position of `record`, with a fault raised when its side to move has no king.
fn record_position(record: PerftRecord) -> Position {
    let board = unpack_position(record);
    if bitboard_is_empty(board.kings & position_color(board, board.side_to_move)) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return board;
}

// The words of a record that make the position (perft_engine.wgsl): the
// four planes' halves, then the state (the move counters aside).
const RECORD_CHUNKS: u32 = 3u;
const RECORD_SEED: u32 = 0u;

fn perft_record_chunk(record: PackedPosition, index: u32) -> vec4<u32> {
    if index == 2u {
        return vec4<u32>(record.state, 0u, 0u, 0u);
    }
    let first = record.planes[2u * index];
    let second = record.planes[2u * index + 1u];
    return vec4<u32>(bitboard_low(first), bitboard_high(first), bitboard_low(second), bitboard_high(second));
}

// The engine's hook: the legal move count of the position in `slot`, with
// a fault when its side to move has no king.
fn perft_move_count(slot: u32) -> u32 {
    let record = perft_record(slot);
    if bitboard_is_empty(packed_kings(record) & packed_color(record, record.state & 1u)) {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return legal_move_count_packed(record);
}

// The move lists' hooks (common/perft_moves.wgsl).

// The piece code on `square` of a packed position (PIECE_NONE when empty).
fn packed_piece_on(position: PackedPosition, square: u32) -> u32 {
    let low = square & 31u;
    let word = select(0u, 1u, square >= 32u);
    var code = 0u;
    for (var plane = 0u; plane < 3u; plane++) {
        let bits = select(bitboard_low(position.planes[plane]), bitboard_high(position.planes[plane]), word == 1u);
        code = code | (((bits >> low) & 1u) << plane);
    }
    return code;
}

// Stores a move of `piece` from `from_square` to each square of
// `destinations` for `slot`, from child slot `output` on; returns the slot
// after them. A pawn's move to the last rank is four, one per promotion.
fn store_moves(output: u32, slot: u32, from_square: u32, piece: u32, destinations: Bitboard) -> u32 {
    var next = output;
    var remaining = destinations;
    while !bitboard_is_empty(remaining) {
        let to_square = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        if piece == PIECE_PAWN && (to_square < 8u || to_square >= 56u) {
            for (var promotion = PIECE_KNIGHT; promotion <= PIECE_QUEEN; promotion++) {
                perft_store_move(next, slot, move_word(from_square, to_square, PIECE_PAWN, promotion));
                next += 1u;
            }
        } else {
            perft_store_move(next, slot, move_word(from_square, to_square, piece, PIECE_NONE));
            next += 1u;
        }
    }
    return next;
}

// Stores the pawn moves landing on `destinations`, each from the square
// `shift` squares back towards the side's own ranks (`forward`: white's).
fn store_pawn_steps(output: u32, slot: u32, destinations: Bitboard, shift: u32, forward: bool) -> u32 {
    var next = output;
    var remaining = destinations;
    while !bitboard_is_empty(remaining) {
        let to_square = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        let from_square = select(to_square + shift, to_square - shift, forward);
        next = store_moves(next, slot, from_square, PIECE_PAWN, bitboard_from_square(to_square));
    }
    return next;
}

// The move lists' hook: every legal move of the position in `slot`,
// stored from child slot `first` on: set-wise by kind of piece, so that
// the lanes of a SIMD group run the same code together, in the count's
// order (legal_move_count_packed): the king, checks and pins, castling,
// pawns one by one where pinned or able to take en passant, the other pawns
// by direction, knights, sliders. The order of the moves does not matter
// to the engine. Faults for a side to move without a king.
fn perft_write_moves(slot: u32, first: u32) {
    let position = perft_record(slot);
    let us = position.state & 1u;
    let them = 1u - us;
    let king = bitboard_first(packed_kings(position) & select(~position.planes[3], position.planes[3], us == BLACK));
    if king == NO_SQUARE {
        perft_fault(FAULT_INVALID_POSITION);
        return;
    }
    let danger = danger_squares(position, them, king);
    let occupied = packed_occupied(position);
    let ours = packed_color(position, us);
    let theirs = occupied & ~ours;
    var output = store_moves(first, slot, king, PIECE_KING, table_king_attacks(king) & ~ours & ~danger);

    // Their sliders on the king's lines: checkers with nothing between,
    // pinners with one piece of ours between.
    let snipers = ((table_rook_rays(king) & packed_orthogonal(position))
        | (table_bishop_rays(king) & packed_diagonal(position))) & theirs;
    let checkers_near = ((table_pawn_attacks(us, king) & packed_pawns(position))
        | (table_knight_attacks(king) & packed_knights(position))) & theirs;
    var checkers = checkers_near;
    var pinned = BITBOARD_EMPTY;
    var remaining = snipers;
    while !bitboard_is_empty(remaining) {
        let sniper = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        let blockers = table_between(king, sniper) & occupied;
        if bitboard_is_empty(blockers) {
            checkers = checkers | bitboard_from_square(sniper);
        } else if !bitboard_has_several(blockers) {
            pinned = pinned | (blockers & ours);
        }
    }
    if bitboard_has_several(checkers) {
        return;
    }
    var targets = ~ours;
    if bitboard_is_empty(checkers) {
        let rooks = castling_rooks(position.state >> 16u, us, king, occupied, danger,
            packed_orthogonal(position) & theirs);
        output = store_moves(output, slot, king, PIECE_KING, rooks);
    } else {
        targets = table_between(king, bitboard_first(checkers)) | checkers;
    }

    let pawns = packed_pawns(position) & ours;
    let en_passant = (position.state >> 8u) & 255u;
    let one_by_one = pawns_one_by_one(pawns, pinned, them, en_passant);
    remaining = one_by_one;
    while !bitboard_is_empty(remaining) {
        let from_square = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        let from_bit = bitboard_from_square(from_square);
        let single = select(bitboard_shift_left(from_bit, 8u), bitboard_shift_right(from_bit, 8u), us == BLACK);
        var destinations = BITBOARD_EMPTY;
        if bitboard_is_empty(single & occupied) {
            destinations = table_pawn_pushes(us, from_square) & ~occupied;
        }
        let attacks = table_pawn_attacks(us, from_square);
        destinations = (destinations | (attacks & theirs)) & targets;
        if bitboard_contains(pinned, from_square) {
            destinations = destinations & table_line(king, from_square);
        }
        if en_passant != NO_SQUARE && bitboard_contains(attacks, en_passant) {
            let victim = bitboard_from_square((from_square & 56u) | (en_passant & 7u));
            let after = occupied ^ from_bit ^ bitboard_from_square(en_passant) ^ victim;
            if bitboard_is_empty(checkers_near & ~victim) && !sniper_sees(king, snipers, after) {
                destinations = destinations | bitboard_from_square(en_passant);
            }
        }
        output = store_moves(output, slot, from_square, PIECE_PAWN, destinations);
    }
    // The other pawns by direction: white's move towards higher squares.
    let free = pawns & ~one_by_one;
    let forward = us == WHITE;
    let empty = ~occupied;
    var single = select(bitboard_shift_right(free, 8u), bitboard_shift_left(free, 8u), forward) & empty;
    let start_rank = select(bitboard_make(0u, 0x0000ff00u), bitboard_make(0x00ff0000u, 0u), forward);
    let double = select(bitboard_shift_right(single & start_rank, 8u), bitboard_shift_left(single & start_rank, 8u),
        forward) & empty;
    output = store_pawn_steps(output, slot, single & targets, 8u, forward);
    output = store_pawn_steps(output, slot, double & targets, 16u, forward);
    // Captures towards the a-file (white: +7, black: -9) and the h-file (white: +9, black: -7).
    let west = free & ~files_mask(0x01u);
    let east = free & ~files_mask(0x80u);
    let west_captures = select(bitboard_shift_right(west, 9u), bitboard_shift_left(west, 7u), forward);
    let east_captures = select(bitboard_shift_right(east, 7u), bitboard_shift_left(east, 9u), forward);
    output = store_pawn_steps(output, slot, west_captures & theirs & targets, select(9u, 7u, forward), forward);
    output = store_pawn_steps(output, slot, east_captures & theirs & targets, select(7u, 9u, forward), forward);

    // Knights (a pinned one cannot move), then sliders, pinned ones along the line to their king.
    remaining = packed_knights(position) & ours & ~pinned;
    while !bitboard_is_empty(remaining) {
        let from_square = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        output = store_moves(output, slot, from_square, PIECE_KNIGHT, table_knight_attacks(from_square) & targets);
    }
    remaining = (packed_diagonal(position) | packed_orthogonal(position)) & ours;
    while !bitboard_is_empty(remaining) {
        let from_square = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        let piece = packed_piece_on(position, from_square);
        var destinations = slider_attacks(piece, from_square, occupied) & targets;
        if bitboard_contains(pinned, from_square) {
            destinations = destinations & table_line(king, from_square);
        }
        output = store_moves(output, slot, from_square, piece, destinations);
    }
}

fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord {
    return play_move_word(perft_record(parent), move_word);
}

fn perft_pair_leaves(parent: u32, move_word: u32) -> u32 {
    return legal_move_count_packed(play_move_word(perft_record(parent), move_word));
}

// The moves a looped leaf lists at once to walk one by one; with more, it
// walks those first, and then goes on listing.
const LISTED_MOVES: u32 = 16u;

// The children's moves of the position `record`, from its legal moves.
// Most children the siblings' view (siblings.wgsl) counts untouched: their
// moves touch no square the view watches, so each has the same count but
// for what its landing square adds to the pawns' moves, and a piece's such
// children are added up by popcounts, without being made or walked
// (`sibling_untouched`, `sibling_pawn_change`). The leaf goes in rounds: it
// takes the unpinned pawns set-wise, a direction at a time (four steps
// instead of one a pawn: `pawn_direction_moves`, `sibling_untouched_pawns`),
// then the other pieces one by one, adding up their untouched children and
// listing their other moves, until the list is full or no step is left;
// then it makes the listed children, counts those the view covers from it,
// and counts the others whole. So
// the lanes of a SIMD group, each on its own position, take their pieces
// together, and run the whole count together, rather than whenever one of
// them needs to. Each of the three counts is called from one place, which
// keeps the kernel small enough for lavapipe to compile quickly.
fn perft_leaf_children(record: PerftRecord) -> u32 {
    let board = record_position(record);
    let view = sibling_view(record);
    let whole = sibling_whole(view);
    var pieces = piece_walk_begin(board);
    // The pawns that move set-wise, one direction a step (pawn_direction_moves);
    // the pinned ones and those that may take en passant are walked as pieces.
    let free_pawns = walk_pieces(pieces.context) & board.pawns
        & ~pawns_one_by_one(board.pawns, pieces.context.pinned, 1u - board.side_to_move, board.en_passant);
    pieces.pieces = pieces.pieces & ~free_pawns;
    var direction = 0u;
    // The moves listed, and then those the view does not cover.
    var listed: array<u32, LISTED_MOVES>;
    // The piece being listed: its square (or, for a direction of pawns, the
    // squares back from each destination to its pawn) and kind, and the
    // moves left to list.
    var from_square = NO_SQUARE;
    var back = 0u;
    var piece = PIECE_NONE;
    var pending = BITBOARD_EMPTY;
    var pieces_left = true;
    var count = 0u;
    loop {
        var listed_count = 0u;
        loop {
            if bitboard_is_empty(pending) {
                var step: PieceStep;
                var untouched: Bitboard;
                if direction < 4u {
                    let moves = pawn_direction_moves(pieces.context, free_pawns, direction);
                    direction += 1u;
                    step.from_square = NO_SQUARE;
                    step.piece = PIECE_PAWN;
                    step.destinations = moves.destinations;
                    back = moves.back;
                    untouched = sibling_untouched_pawns(view, record, moves.destinations, moves.back);
                } else {
                    step = piece_walk_next(board, &pieces);
                    if step.from_square == NO_SQUARE {
                        pieces_left = false;
                        break;
                    }
                    back = 0u;
                    untouched = sibling_untouched(view, record, step.piece, step.from_square, step.destinations);
                }
                count += bitboard_count(untouched) * whole + sibling_pawn_change(view, untouched);
                from_square = step.from_square;
                piece = step.piece;
                pending = step.destinations & ~untouched;
            }
            // A promotion lists four moves at once, so the list keeps room for them.
            while !bitboard_is_empty(pending) && listed_count <= LISTED_MOVES - 4u {
                let to_square = bitboard_first(pending);
                pending = bitboard_without_first(pending);
                // `back` is signed, as a u32 that wraps: the pawn stands `back` squares before.
                let origin = select(from_square, to_square - back, back != 0u);
                if moves_per_destination(piece, to_square) == 4u {
                    for (var order = 0u; order < 4u; order++) {
                        listed[listed_count + order] = move_word(origin, to_square, PIECE_PAWN, PIECE_QUEEN - order);
                    }
                    listed_count += 4u;
                } else {
                    listed[listed_count] = move_word(origin, to_square, piece, PIECE_NONE);
                    listed_count += 1u;
                }
            }
            if !bitboard_is_empty(pending) {
                break;
            }
        }
        // The children the view does not cover move to the front of the list.
        var uncovered = 0u;
        for (var index = 0u; index < listed_count; index++) {
            let word = listed[index];
            let child = play_move_word(record, word);
            if sibling_covers(view, record, child, word) {
                count += sibling_count(view, record, child, word);
            } else {
                listed[uncovered] = word;
                uncovered += 1u;
            }
        }
        for (var index = 0u; index < uncovered; index++) {
            count += legal_move_count_packed(play_move_word(record, listed[index]));
        }
        if !pieces_left && bitboard_is_empty(pending) {
            break;
        }
    }
    return count;
}
