// movegen.wgsl — legal and OpenCL-style pseudo-legal move generation for one position.
//
// Reads: the attack tables (tables.wgsl). Writes: nothing. Library only;
// every chess kernel (kernels/*.wgsl) and the public library (chess.wgsl)
// call it. Sliding attacks come from the `sliders` module, one of the
// sliders/*.wgsl files chosen when the pipeline is created; the pseudo-legal
// body keeps the OpenCL generator's own Kogge-Stone fill. Legal generation
// follows the CPU reference (src/chess/movegen.rs): checkers, pinned pieces
// and a check-evasion destination mask computed once, castling through
// unattacked squares, and en passant played out to catch discovered checks.
// Legal moves are enumerated in one place, the piece and move walks at the
// end of this file, which every kernel and the library use.

#import bitboard
#import kogge_stone
#import tables
#import position
#import sliders

fn slider_attacks(piece: u32, square: u32, occupied: Bitboard) -> Bitboard {
    if piece == PIECE_BISHOP {
        return slider_bishop_attacks(square, occupied);
    }
    if piece == PIECE_ROOK {
        return slider_rook_attacks(square, occupied);
    }
    return slider_queen_attacks(square, occupied);
}

// The pieces of colour `by` attacking `square`, with `occupied` as blockers.
fn attackers_to(board: Position, square: u32, by: u32, occupied: Bitboard) -> Bitboard {
    return packed_attackers_to(pack_position(board), square, by, occupied);
}

fn is_attacked(board: Position, square: u32, by: u32, occupied: Bitboard) -> bool {
    return !bitboard_is_empty(attackers_to(board, square, by, occupied));
}

struct MoveContext {
    us: u32,
    ours: Bitboard,
    theirs: Bitboard,
    occupied: Bitboard,
    king: u32,
    checkers: Bitboard,
    pinned: Bitboard,
    // Destinations that answer a single check; any non-own square otherwise.
    destination_mask: Bitboard,
    // What the other side attacks once our king has left its square: where
    // the king may not go.
    danger: Bitboard,
}

// The squares the other side (`them`) attacks once our king on `king` has
// left its square: where our king may not go. The steppers first and the
// sliders' fill last, and every set derived here from the planes, so that
// no set of the caller's waits in registers through the fill.
fn danger_squares(position: PackedPosition, them: u32, king: u32) -> Bitboard {
    let theirs = packed_color(position, them);
    var danger = pawn_attacks_setwise(packed_pawns(position) & theirs, them)
        | knight_attacks_setwise(packed_knights(position) & theirs);
    let their_king = bitboard_first(packed_kings(position) & theirs);
    if their_king != NO_SQUARE {
        danger = danger | table_king_attacks(their_king);
    }
    return danger | slider_attacks_setwise(packed_diagonal(position) & theirs, packed_orthogonal(position) & theirs,
        packed_occupied(position) & ~bitboard_from_square(king));
}

// `king` is NO_SQUARE when the side to move has no king (an invalid input).
// Checkers and pins come from one pass over their sliders on the king's
// lines (nothing between: a checker; one piece of ours between: a pin).
fn make_context(board: Position) -> MoveContext {
    var context: MoveContext;
    context.us = board.side_to_move;
    let them = 1u - context.us;
    context.ours = position_color(board, context.us);
    context.theirs = position_color(board, them);
    context.occupied = context.ours | context.theirs;
    context.king = bitboard_first(board.kings & context.ours);
    if context.king == NO_SQUARE {
        return context;
    }
    let king = context.king;
    let diagonal = (board.bishops | board.queens) & context.theirs;
    let orthogonal = (board.rooks | board.queens) & context.theirs;
    context.danger = danger_squares(pack_position(board), them, king);
    var checkers = ((table_pawn_attacks(context.us, king) & board.pawns)
        | (table_knight_attacks(king) & board.knights)) & context.theirs;
    var pinned = BITBOARD_EMPTY;
    var snipers = (table_rook_rays(king) & orthogonal) | (table_bishop_rays(king) & diagonal);
    while !bitboard_is_empty(snipers) {
        let sniper = bitboard_first(snipers);
        snipers = bitboard_without_first(snipers);
        let blockers = table_between(king, sniper) & context.occupied;
        if bitboard_is_empty(blockers) {
            checkers = checkers | bitboard_from_square(sniper);
        } else if !bitboard_has_several(blockers) {
            pinned = pinned | (blockers & context.ours);
        }
    }
    context.checkers = checkers;
    context.pinned = pinned;

    if bitboard_is_empty(context.checkers) {
        context.destination_mask = ~context.ours;
    } else {
        let checker = bitboard_first(context.checkers);
        context.destination_mask = table_between(context.king, checker) | context.checkers;
    }
    return context;
}

// The squares of the rank starting at square `base` from one file to
// another, both included.
fn rank_span(base: u32, first_file: u32, second_file: u32) -> Bitboard {
    let files = (2u << max(first_file, second_file)) - (1u << min(first_file, second_file));
    return bitboard_shift_left(bitboard_make(files, 0u), base);
}

// The files of the side to move's rooks that may castle (bit 0 = file a).
fn castling_files(board: Position, us: u32) -> u32 {
    return (board.castling >> (8u * us)) & 0xffu;
}

// Where the king and the rook end when the king on `king_square` castles with
// the rook on `rook_square`: g and f towards the h-file, c and d towards a.
fn castling_targets(king_square: u32, rook_square: u32) -> vec2<u32> {
    let base = king_square & 56u;
    return select(vec2<u32>(base + 2u, base + 3u), vec2<u32>(base + 6u, base + 5u), (rook_square & 7u) > (king_square & 7u));
}

// The rooks of the legal castlings of the side to move `us` (the caller has
// checked that the king is not in check; castling is the king taking its
// own rook): the squares king and rook cross empty, the king's path not in
// `danger` (their attacks with our king lifted), and the king's
// destination not seen along the back rank once the rook has left (the rook
// may shield it): the nearest piece on each side of it along the rank is
// not one of `their_orthogonal`. Standard chess and Chess960 alike. CPU
// twin: Context::castling_destinations in src/chess/movegen.rs.
fn castling_rooks(
    castling_rights: u32,
    us: u32,
    king: u32,
    occupied: Bitboard,
    danger: Bitboard,
    their_orthogonal: Bitboard,
) -> Bitboard {
    var files = (castling_rights >> (8u * us)) & 0xffu;
    var rooks = BITBOARD_EMPTY;
    while files != 0u {
        let rook_file = firstTrailingBit(files);
        files = files & (files - 1u);
        let base = king & 56u;
        let rook = base + rook_file;
        let targets = castling_targets(king, rook);
        let king_and_rook = bitboard_from_square(king) | bitboard_from_square(rook);
        let king_path = rank_span(base, king & 7u, targets.x & 7u);
        let crossed = (king_path | rank_span(base, rook_file, targets.y & 7u)) & ~king_and_rook;
        if !bitboard_is_empty(crossed & occupied) || !bitboard_is_empty(danger & king_path) {
            continue;
        }
        let left = occupied & ~king_and_rook;
        // Directions 1 and 5 of the ray table: east and west along the rank.
        let east = bitboard_first(table_ray(1u, targets.x) & left);
        let west = bitboard_last(table_ray(5u, targets.x) & left);
        let shielded = (east != NO_SQUARE && bitboard_contains(their_orthogonal, east))
            || (west != NO_SQUARE && bitboard_contains(their_orthogonal, west));
        if !shielded {
            rooks = rooks | bitboard_from_square(rook);
        }
    }
    return rooks;
}

fn king_destinations(board: Position, context: MoveContext) -> Bitboard {
    var destinations = table_king_attacks(context.king) & ~context.ours & ~context.danger;
    if bitboard_is_empty(context.checkers) {
        let their_orthogonal = (board.rooks | board.queens) & context.theirs;
        destinations = destinations | castling_rooks(board.castling, context.us, context.king, context.occupied,
            context.danger, their_orthogonal);
    }
    return destinations;
}

// En passant is played out: it can uncover a slider on the king's rank (both
// pawns leave it) or diagonal, and it can remove a checking pawn.
fn en_passant_is_legal(board: Position, context: MoveContext, from_square: u32, to_square: u32) -> bool {
    let victim = bitboard_from_square((from_square & 56u) | (to_square & 7u));
    let occupied = context.occupied ^ bitboard_from_square(from_square) ^ bitboard_from_square(to_square) ^ victim;
    let attackers = attackers_to(board, context.king, 1u - context.us, occupied) & ~victim;
    return bitboard_is_empty(attackers);
}

fn pawn_destinations(board: Position, context: MoveContext, from_square: u32) -> Bitboard {
    let from_bit = bitboard_from_square(from_square);
    let single = select(bitboard_shift_left(from_bit, 8u), bitboard_shift_right(from_bit, 8u), context.us == BLACK);
    var pushes = BITBOARD_EMPTY;
    // The table holds the single and double step; both need the single-step square empty.
    if bitboard_is_empty(single & context.occupied) {
        pushes = table_pawn_pushes(context.us, from_square) & ~context.occupied;
    }
    let captures = table_pawn_attacks(context.us, from_square) & context.theirs;
    var destinations = (pushes | captures) & context.destination_mask;
    if bitboard_contains(context.pinned, from_square) {
        destinations = destinations & table_line(context.king, from_square);
    }
    let en_passant = board.en_passant;
    if en_passant != NO_SQUARE && bitboard_contains(table_pawn_attacks(context.us, from_square), en_passant) {
        if en_passant_is_legal(board, context, from_square, en_passant) {
            destinations = destinations | bitboard_from_square(en_passant);
        }
    }
    return destinations;
}

// The legal destinations of the side to move's piece `piece` on `square`.
fn legal_destinations(board: Position, context: MoveContext, piece: u32, square: u32) -> Bitboard {
    if piece == PIECE_KING {
        return king_destinations(board, context);
    }
    // In double check only the king moves.
    if bitboard_has_several(context.checkers) {
        return BITBOARD_EMPTY;
    }
    if piece == PIECE_PAWN {
        return pawn_destinations(board, context, square);
    }
    let pinned = bitboard_contains(context.pinned, square);
    if piece == PIECE_KNIGHT {
        return select(table_knight_attacks(square) & context.destination_mask, BITBOARD_EMPTY, pinned);
    }
    var destinations = slider_attacks(piece, square, context.occupied) & context.destination_mask;
    if pinned {
        destinations = destinations & table_line(context.king, square);
    }
    return destinations;
}

// The number of moves a destination set stands for: promotions count four times.
fn move_count_of(piece: u32, destinations: Bitboard) -> u32 {
    var count = bitboard_count(destinations);
    if piece == PIECE_PAWN {
        count = count + 3u * bitboard_count(destinations & bitboard_make(0xffu, 0xff000000u));
    }
    return count;
}

// The OpenCL generator's per-piece body: one eight-direction fill from the piece, masked
// by the piece's attack table. Pieces of the side to move get captures and
// quiet moves (pawn pushes from the push table, blocked by the fill); the
// other side's pieces get their attack sets. No castling, en passant,
// promotion or legality, exactly as the OpenCL generator.
fn kogge_stone_pseudo_legal_destinations(board: Position, square: u32) -> Bitboard {
    let piece = position_piece_on(board, square);
    if piece == PIECE_NONE {
        return BITBOARD_EMPTY;
    }
    let stm = board.side_to_move;
    let color = select(WHITE, BLACK, bitboard_contains(board.black, square));
    let occupied = position_occupied(board);
    var fill = kogge_stone_queen_attacks(bitboard_from_square(square), ~occupied);
    if piece == PIECE_KNIGHT {
        fill = BITBOARD_FULL;
    }
    var mask: Bitboard;
    switch piece {
        case PIECE_PAWN: { mask = table_pawn_attacks(color, square); }
        case PIECE_KNIGHT: { mask = table_knight_attacks(square); }
        case PIECE_BISHOP: { mask = table_bishop_rays(square); }
        case PIECE_ROOK: { mask = table_rook_rays(square); }
        case PIECE_QUEEN: { mask = table_queen_rays(square); }
        default: { mask = table_king_attacks(square); }
    }
    if color != stm {
        return mask & fill;
    }
    var moves = mask & fill & position_color(board, 1u - stm);
    if piece == PIECE_PAWN {
        mask = table_pawn_pushes(stm, square);
    }
    moves = moves | (mask & fill & ~occupied);
    return moves;
}

// ---- Counting without generating ----
// legal_move_count counts a position's legal moves without generating them,
// on the packed position (three piece-code planes and the black plane), so
// that a kernel keeps four bitboards alive instead of eight and derives each
// set where it is used. In the shape of Context::count in
// src/chess/movegen.rs: the other side's attacks with our king lifted give
// the king's moves and castling by masks; one pass over their sliders on
// the king's lines finds the sliders that check and the pieces pinned (a
// pinned slider's moves along its pin line are the squares between its king
// and the pinner, the pinner's included); pinned pawns and pawns that may
// capture en passant go one at a time, the other pawns, the knights and the
// unpinned sliders set-wise, sliders per direction in one fill. Where a
// GPU's costs differ from a CPU's, so do the two: the CPU tests each king
// destination and looks sliders up one by one in its magic tables, which is
// cheaper there; here two fills serve the whole count, and every loop is
// over the few pieces on the king's lines.

// The squares of the files whose bits are set in `files` (bit 0 = file a).
fn files_mask(files: u32) -> Bitboard {
    let word = files * 0x01010101u;
    return bitboard_make(word, word);
}

// Pawn captures of every pawn in `pawns` of colour `color`.
fn pawn_attacks_setwise(pawns: Bitboard, color: u32) -> Bitboard {
    let west = pawns & ~files_mask(0x01u);
    let east = pawns & ~files_mask(0x80u);
    if color == WHITE {
        return bitboard_shift_left(west, 7u) | bitboard_shift_left(east, 9u);
    }
    return bitboard_shift_right(west, 9u) | bitboard_shift_right(east, 7u);
}

// The knight jumps of a set, in eight lanes: towards higher squares by 17,
// 15, 10, 6 and towards lower ones by the same, each from the knights that
// stay on the board.
fn knight_lanes_left(knights: Bitboard) -> Lanes {
    let sources = lanes_and(
        lanes_splat(knights),
        lanes_from(~files_mask(0x80u), ~files_mask(0x01u), ~files_mask(0xc0u), ~files_mask(0x03u)),
    );
    return lanes_shift_left(sources, vec4<u32>(17u, 15u, 10u, 6u));
}

fn knight_lanes_right(knights: Bitboard) -> Lanes {
    let sources = lanes_and(
        lanes_splat(knights),
        lanes_from(~files_mask(0x01u), ~files_mask(0x80u), ~files_mask(0x03u), ~files_mask(0xc0u)),
    );
    return lanes_shift_right(sources, vec4<u32>(17u, 15u, 10u, 6u));
}

fn knight_attacks_setwise(knights: Bitboard) -> Bitboard {
    return lanes_union(knight_lanes_left(knights)) | lanes_union(knight_lanes_right(knights));
}

// Each jump lands on a different square per knight, so lanes count (knight, target) pairs.
fn knight_count_setwise(knights: Bitboard, targets: Bitboard) -> u32 {
    return lanes_count_within(knight_lanes_left(knights), targets)
        + lanes_count_within(knight_lanes_right(knights), targets);
}

// Pushes, double pushes and captures of the pawns `pawns` of the side to
// move, into `targets`; a move to the last rank counts four times.
fn pawn_count_setwise(pawns: Bitboard, color: u32, empty: Bitboard, theirs: Bitboard, targets: Bitboard) -> u32 {
    let west = pawns & ~files_mask(0x01u);
    let east = pawns & ~files_mask(0x80u);
    var single: Bitboard;
    var double: Bitboard;
    var west_captures: Bitboard;
    var east_captures: Bitboard;
    if color == WHITE {
        single = bitboard_shift_left(pawns, 8u) & empty;
        double = bitboard_shift_left(single & bitboard_make(0x00ff0000u, 0u), 8u) & empty;
        west_captures = bitboard_shift_left(west, 7u);
        east_captures = bitboard_shift_left(east, 9u);
    } else {
        single = bitboard_shift_right(pawns, 8u) & empty;
        double = bitboard_shift_right(single & bitboard_make(0u, 0x0000ff00u), 8u) & empty;
        west_captures = bitboard_shift_right(west, 9u);
        east_captures = bitboard_shift_right(east, 7u);
    }
    let last_ranks = bitboard_make(0xffu, 0xff000000u);
    single = single & targets;
    west_captures = west_captures & theirs & targets;
    east_captures = east_captures & theirs & targets;
    var count = bitboard_count(double & targets);
    count += bitboard_count(single) + 3u * bitboard_count(single & last_ranks);
    count += bitboard_count(west_captures) + 3u * bitboard_count(west_captures & last_ranks);
    count += bitboard_count(east_captures) + 3u * bitboard_count(east_captures & last_ranks);
    return count;
}

// Piece sets of a packed position, from its piece-code planes (pawn 001,
// knight 010, bishop 011, rook 100, queen 101, king 110).
fn packed_occupied(position: PackedPosition) -> Bitboard {
    return position.planes[0] | position.planes[1] | position.planes[2];
}

fn packed_pawns(position: PackedPosition) -> Bitboard {
    return position.planes[0] & ~(position.planes[1] | position.planes[2]);
}

fn packed_knights(position: PackedPosition) -> Bitboard {
    return position.planes[1] & ~(position.planes[0] | position.planes[2]);
}

// Bishops and queens.
fn packed_diagonal(position: PackedPosition) -> Bitboard {
    return position.planes[0] & (position.planes[1] ^ position.planes[2]);
}

// Rooks and queens.
fn packed_orthogonal(position: PackedPosition) -> Bitboard {
    return position.planes[2] & ~position.planes[1];
}

fn packed_kings(position: PackedPosition) -> Bitboard {
    return position.planes[1] & position.planes[2];
}

// The pieces of colour `color`.
fn packed_color(position: PackedPosition, color: u32) -> Bitboard {
    let black = position.planes[3] & packed_occupied(position);
    return select(packed_occupied(position) & ~black, black, color == BLACK);
}

// The pieces of colour `by` attacking `square` of a packed position, with
// `occupied` as blockers.
// The sliders are looked for along the square's lines and each kept when
// nothing stands between: a few table reads, where a fill from the square
// would hold a whole set of lanes in registers.
fn packed_attackers_to(position: PackedPosition, square: u32, by: u32, occupied: Bitboard) -> Bitboard {
    let pieces = packed_color(position, by);
    var attackers = ((table_pawn_attacks(1u - by, square) & packed_pawns(position))
        | (table_knight_attacks(square) & packed_knights(position))
        | (table_king_attacks(square) & packed_kings(position))) & pieces;
    var snipers = ((table_rook_rays(square) & packed_orthogonal(position))
        | (table_bishop_rays(square) & packed_diagonal(position))) & pieces;
    while !bitboard_is_empty(snipers) {
        let sniper = bitboard_first(snipers);
        snipers = bitboard_without_first(snipers);
        if bitboard_is_empty(table_between(square, sniper) & occupied) {
            attackers = attackers | bitboard_from_square(sniper);
        }
    }
    return attackers;
}

// Whether our king on `king` stands attacked by a slider once the board
// holds `occupied`: some sniper (their slider on one of its lines) sees it.
fn sniper_sees(king: u32, snipers: Bitboard, occupied: Bitboard) -> bool {
    var remaining = snipers;
    var seen = false;
    while !seen && !bitboard_is_empty(remaining) {
        seen = bitboard_is_empty(table_between(king, bitboard_first(remaining)) & occupied);
        remaining = bitboard_without_first(remaining);
    }
    return seen;
}

// The moves of one pawn of the side to move `us` on `from_square` (pinned
// or able to capture en passant; promotions count four times). En passant
// is played out on the occupancy: the capture must leave no sniper seeing
// the king and no other checker (`checkers_near`: pawns and knights giving
// check), which also allows taking a checking pawn that way.
fn pawn_count_one(
    from_square: u32,
    us: u32,
    occupied: Bitboard,
    theirs: Bitboard,
    targets: Bitboard,
    king: u32,
    pinned: Bitboard,
    en_passant: u32,
    snipers: Bitboard,
    checkers_near: Bitboard,
) -> u32 {
    let from_bit = bitboard_from_square(from_square);
    let single = select(bitboard_shift_left(from_bit, 8u), bitboard_shift_right(from_bit, 8u), us == BLACK);
    var pushes = BITBOARD_EMPTY;
    // The table holds the single and double step; both need the single-step square empty.
    if bitboard_is_empty(single & occupied) {
        pushes = table_pawn_pushes(us, from_square) & ~occupied;
    }
    let attacks = table_pawn_attacks(us, from_square);
    var destinations = (pushes | (attacks & theirs)) & targets;
    if bitboard_contains(pinned, from_square) {
        destinations = destinations & table_line(king, from_square);
    }
    var count = move_count_of(PIECE_PAWN, destinations);
    if en_passant != NO_SQUARE && bitboard_contains(attacks, en_passant) {
        let victim = bitboard_from_square((from_square & 56u) | (en_passant & 7u));
        let after = occupied ^ from_bit ^ bitboard_from_square(en_passant) ^ victim;
        if bitboard_is_empty(checkers_near & ~victim) && !sniper_sees(king, snipers, after) {
            count += 1u;
        }
    }
    return count;
}

// The pawns of `pawns` that go one by one (the rest move set-wise):
// the pinned ones and those that may capture en passant.
fn pawns_one_by_one(pawns: Bitboard, pinned: Bitboard, them: u32, en_passant: u32) -> Bitboard {
    var one_by_one = pawns & pinned;
    if en_passant != NO_SQUARE {
        one_by_one = one_by_one | (table_pawn_attacks(them, en_passant) & pawns);
    }
    return one_by_one;
}

// The number of legal moves of a packed position (promotions count four
// times); 0 when the side to move has no king, which the caller reports as
// a fault.
fn legal_move_count_packed(position: PackedPosition) -> u32 {
    let us = position.state & 1u;
    let them = 1u - us;
    // Our king from the planes alone: the sets the count needs later are
    // made after the fill inside danger_squares, not kept through it.
    let king = bitboard_first(packed_kings(position) & select(~position.planes[3], position.planes[3], us == BLACK));
    if king == NO_SQUARE {
        return 0u;
    }
    let danger = danger_squares(position, them, king);
    let occupied = packed_occupied(position);
    let ours = packed_color(position, us);
    let theirs = occupied & ~ours;
    var count = bitboard_count(table_king_attacks(king) & ~ours & ~danger);

    // Their sliders on the king's lines: checkers with nothing between,
    // pinners with one piece of ours between.
    let snipers = ((table_rook_rays(king) & packed_orthogonal(position))
        | (table_bishop_rays(king) & packed_diagonal(position))) & theirs;
    let checkers_near = ((table_pawn_attacks(us, king) & packed_pawns(position))
        | (table_knight_attacks(king) & packed_knights(position))) & theirs;
    var checkers = checkers_near;
    var pinned = BITBOARD_EMPTY;
    var pinned_slider_moves = 0u;
    var remaining = snipers;
    while !bitboard_is_empty(remaining) {
        let sniper = bitboard_first(remaining);
        remaining = bitboard_without_first(remaining);
        let between = table_between(king, sniper);
        let blockers = between & occupied;
        if bitboard_is_empty(blockers) {
            checkers = checkers | bitboard_from_square(sniper);
        } else if !bitboard_has_several(blockers) && !bitboard_is_empty(blockers & ours) {
            pinned = pinned | blockers;
            // A slider pinned along a line it moves on keeps the line's
            // squares: those between, less its own, and the pinner's.
            let movers = select(packed_orthogonal(position), packed_diagonal(position),
                bitboard_contains(table_bishop_rays(king), sniper));
            if !bitboard_is_empty(blockers & movers) {
                pinned_slider_moves += bitboard_count(between);
            }
        }
    }
    if bitboard_has_several(checkers) {
        return count;
    }
    var targets = ~ours;
    if bitboard_is_empty(checkers) {
        // A pinned piece cannot answer a check, so its moves count only here.
        count += pinned_slider_moves;
        count += bitboard_count(castling_rooks(position.state >> 16u, us, king, occupied, danger,
            packed_orthogonal(position) & theirs));
    } else {
        targets = table_between(king, bitboard_first(checkers)) | checkers;
    }
    let pawns = packed_pawns(position) & ours;
    let en_passant = (position.state >> 8u) & 255u;
    let one_by_one = pawns_one_by_one(pawns, pinned, them, en_passant);
    remaining = one_by_one;
    while !bitboard_is_empty(remaining) {
        count += pawn_count_one(bitboard_first(remaining), us, occupied, theirs, targets, king, pinned, en_passant,
            snipers, checkers_near);
        remaining = bitboard_without_first(remaining);
    }
    count += pawn_count_setwise(pawns & ~one_by_one, us, ~occupied, theirs, targets);
    // A pinned knight cannot move; pinned sliders were counted above.
    count += knight_count_setwise(packed_knights(position) & ours & ~pinned, targets);
    count += slider_count_setwise(packed_diagonal(position) & ours & ~pinned,
        packed_orthogonal(position) & ours & ~pinned, occupied, targets);
    return count;
}

// The number of legal moves (promotions count four times); 0 when the side
// to move has no king.
fn legal_move_count(board: Position) -> u32 {
    return legal_move_count_packed(pack_position(board));
}

// The castling-rights bit of a rook standing on `square` (0 off the back ranks).
fn castling_bit(square: u32) -> u32 {
    if square < 8u {
        return 1u << square;
    }
    if square >= 56u {
        return 1u << (square - 48u);
    }
    return 0u;
}

// Plays a legal move of `piece` from `from_square` to `to_square` (copy-make).
// `promotion` is the new piece for a pawn reaching the last rank, else
// PIECE_NONE. Castling is the king taking its own rook; a pawn's diagonal move
// to the en passant square is the en passant capture. The child keeps an en
// passant square only where one of its side to move's pawns attacks it.
// CPU twin: Position::play (src/chess/position/mod.rs), which always keeps it.
fn position_make_move(board: Position, from_square: u32, to_square: u32, piece: u32, promotion: u32) -> Position {
    var next = board;
    let us = board.side_to_move;
    let them = 1u - us;
    let from_bit = bitboard_from_square(from_square);
    let to_bit = bitboard_from_square(to_square);
    var captured = PIECE_NONE;
    if piece == PIECE_KING && bitboard_contains(position_color(board, us), to_square) {
        // Both leave and both land; the squares may overlap (a king already
        // on g1, a rook on f1), which the exclusive-ors handle.
        let targets = castling_targets(from_square, to_square);
        let king_to = bitboard_from_square(targets.x);
        let rook_to = bitboard_from_square(targets.y);
        position_toggle(&next, PIECE_KING, from_bit ^ king_to);
        position_toggle(&next, PIECE_ROOK, to_bit ^ rook_to);
        position_toggle_color(&next, us, from_bit ^ to_bit ^ king_to ^ rook_to);
    } else {
        if bitboard_contains(position_color(board, them), to_square) {
            captured = position_piece_on(board, to_square);
            position_toggle(&next, captured, to_bit);
            position_toggle_color(&next, them, to_bit);
        }
        position_toggle(&next, piece, from_bit | to_bit);
        position_toggle_color(&next, us, from_bit | to_bit);
    }

    if piece == PIECE_PAWN {
        if to_square == board.en_passant && ((from_square ^ to_square) & 7u) != 0u {
            let victim = bitboard_from_square((from_square & 56u) | (to_square & 7u));
            position_toggle(&next, PIECE_PAWN, victim);
            position_toggle_color(&next, them, victim);
            captured = PIECE_PAWN;
        }
        if promotion != PIECE_NONE {
            position_toggle(&next, PIECE_PAWN, to_bit);
            position_toggle(&next, promotion, to_bit);
        }
    }

    // Moving from or capturing on a castling rook's square drops its right;
    // any king move drops both of its side's.
    next.castling = board.castling & ~(castling_bit(from_square) | castling_bit(to_square));
    if piece == PIECE_KING {
        next.castling = next.castling & ~(0xffu << (8u * us));
    }
    // The en passant square only where a pawn of theirs could take there:
    // the same position reached without the double push is then the same
    // record, which the perft engine's merging and table rely on.
    next.en_passant = NO_SQUARE;
    if piece == PIECE_PAWN && max(from_square, to_square) - min(from_square, to_square) == 16u {
        let passed = (from_square + to_square) / 2u;
        if !bitboard_is_empty(table_pawn_attacks(us, passed) & next.pawns & position_color(next, them)) {
            next.en_passant = passed;
        }
    }
    if piece == PIECE_PAWN || captured != PIECE_NONE {
        next.halfmove_clock = 0u;
    } else {
        next.halfmove_clock = min(board.halfmove_clock + 1u, 0xffffu);
    }
    if us == BLACK {
        next.fullmove_number = min(board.fullmove_number + 1u, 0xffffu);
    }
    next.side_to_move = them;
    return next;
}

// ---- Moves as words, played on the packed position ----
// A move word: from-square (bits 0-5), to-square (6-11), the moving piece
// (12-14) and the promotion piece (15-17; PIECE_NONE when none). Castling
// is the king taking its own rook, en passant a pawn's diagonal step to the
// en passant square, as everywhere in this library.

fn move_word(from_square: u32, to_square: u32, piece: u32, promotion: u32) -> u32 {
    return from_square | (to_square << 6u) | (piece << 12u) | (promotion << 15u);
}

// `position` after the legal move `word`, on the planes: every square the
// move changes is cleared, then the arriving pieces are set, so no case
// needs a switch over piece kinds. The same child as position_make_move
// (its CPU twin is Position::play), counters included.
fn play_move_word(position: PackedPosition, word: u32) -> PackedPosition {
    let from_square = word & 63u;
    let to_square = (word >> 6u) & 63u;
    let piece = (word >> 12u) & 7u;
    let promotion = (word >> 15u) & 7u;
    let us = position.state & 1u;
    let them = 1u - us;
    let from_bit = bitboard_from_square(from_square);
    let to_bit = bitboard_from_square(to_square);
    let theirs = packed_color(position, them);
    let en_passant = (position.state >> 8u) & 255u;
    // What leaves (cleared) and what arrives: `first` on `first_squares`,
    // `second` on `second_squares` (the rook, when castling).
    var cleared = from_bit | to_bit;
    var first = select(piece, promotion, promotion != PIECE_NONE);
    var first_squares = to_bit;
    var second = PIECE_NONE;
    var second_squares = BITBOARD_EMPTY;
    var captured = bitboard_contains(theirs, to_square);
    if piece == PIECE_KING && bitboard_contains(packed_color(position, us), to_square) {
        let targets = castling_targets(from_square, to_square);
        first_squares = bitboard_from_square(targets.x);
        second = PIECE_ROOK;
        second_squares = bitboard_from_square(targets.y);
    } else if piece == PIECE_PAWN && to_square == en_passant && ((from_square ^ to_square) & 7u) != 0u {
        cleared = cleared | bitboard_from_square((from_square & 56u) | (to_square & 7u));
        captured = true;
    }
    var child = position;
    for (var plane = 0u; plane < 3u; plane++) {
        let bit = 1u << plane;
        child.planes[plane] = (position.planes[plane] & ~cleared)
            | select(BITBOARD_EMPTY, first_squares, (first & bit) != 0u)
            | select(BITBOARD_EMPTY, second_squares, (second & bit) != 0u);
    }
    child.planes[3] = (position.planes[3] & ~cleared)
        | select(BITBOARD_EMPTY, first_squares | second_squares, us == BLACK);
    // Moving from or capturing on a castling rook's square drops its right;
    // any king move drops both of its side's.
    var rights = (position.state >> 16u) & ~(castling_bit(from_square) | castling_bit(to_square));
    if piece == PIECE_KING {
        rights = rights & ~(0xffu << (8u * us));
    }
    // The en passant square only where a pawn of theirs could take there.
    var passed = NO_SQUARE;
    if piece == PIECE_PAWN && max(from_square, to_square) - min(from_square, to_square) == 16u {
        let square = (from_square + to_square) / 2u;
        if !bitboard_is_empty(table_pawn_attacks(us, square) & packed_pawns(position) & theirs) {
            passed = square;
        }
    }
    child.state = them | (passed << 8u) | (rights << 16u);
    var halfmove = min((position.counters & 0xffffu) + 1u, 0xffffu);
    if piece == PIECE_PAWN || captured {
        halfmove = 0u;
    }
    var fullmove = position.counters >> 16u;
    if us == BLACK {
        fullmove = min(fullmove + 1u, 0xffffu);
    }
    child.counters = halfmove | (fullmove << 16u);
    return child;
}

// How many moves one destination stands for: 4 for a promotion, else 1.
fn moves_per_destination(piece: u32, to_square: u32) -> u32 {
    return select(1u, 4u, piece == PIECE_PAWN && (to_square < 8u || to_square >= 56u));
}

// ---- The one enumerator of legal moves ----
// Pieces first: a `PieceWalk` visits the pieces of the side to move (none
// without a king), each with its legal destinations:
//     var walk = piece_walk_begin(board);
//     for (var step = piece_walk_next(board, &walk); step.from_square != NO_SQUARE;
//          step = piece_walk_next(board, &walk)) { ... }
// Moves second: a `MoveWalk` visits every legal move in the fixed order (by
// from-square, then to-square, promotions queen, rook, bishop, knight), the
// order of Position::legal_moves_in_order on the CPU. Both take the next
// piece with `next_piece`, which returns its step by value (WGSL cannot pass
// a pointer to a struct member to a function).

struct PieceStep {
    // NO_SQUARE when no piece is left.
    from_square: u32,
    piece: u32,
    destinations: Bitboard,
    // The pieces still to visit.
    remaining: Bitboard,
}

fn walk_pieces(context: MoveContext) -> Bitboard {
    return select(BITBOARD_EMPTY, context.ours, context.king != NO_SQUARE);
}

struct PieceWalk {
    context: MoveContext,
    // Pieces of the side to move not yet visited.
    pieces: Bitboard,
}

fn piece_walk_begin(board: Position) -> PieceWalk {
    let context = make_context(board);
    return PieceWalk(context, walk_pieces(context));
}

// The next piece of `board` with its legal destinations (pass the same board every time).
fn piece_walk_next(board: Position, walk: ptr<function, PieceWalk>) -> PieceStep {
    let step = next_piece(board, (*walk).context, (*walk).pieces);
    (*walk).pieces = step.remaining;
    return step;
}

fn next_piece(board: Position, context: MoveContext, pieces: Bitboard) -> PieceStep {
    var step: PieceStep;
    step.from_square = NO_SQUARE;
    step.piece = PIECE_NONE;
    step.destinations = BITBOARD_EMPTY;
    step.remaining = BITBOARD_EMPTY;
    if bitboard_is_empty(pieces) {
        return step;
    }
    step.from_square = bitboard_first(pieces);
    step.remaining = bitboard_without_first(pieces);
    step.piece = position_piece_on(board, step.from_square);
    step.destinations = legal_destinations(board, context, step.piece, step.from_square);
    return step;
}

// One direction of the set-wise pawn moves of `pawns` (unpinned, none
// able to take en passant) of the side to move: 0 single pushes, 1 double
// pushes, 2 captures towards the a-file, 3 towards the h-file; legal
// destinations (none in double check), and how many squares back each
// one's pawn stands, as a u32 that wraps (negative for black).
struct PawnDirection {
    destinations: Bitboard,
    back: u32,
}

fn pawn_direction_moves(context: MoveContext, pawns: Bitboard, direction: u32) -> PawnDirection {
    var moves: PawnDirection;
    moves.destinations = BITBOARD_EMPTY;
    moves.back = 0u;
    if bitboard_has_several(context.checkers) {
        return moves;
    }
    let empty = ~context.occupied;
    let white = context.us == WHITE;
    var targets: Bitboard;
    var shift: u32;
    switch direction {
        case 0u: {
            shift = 8u;
            targets = empty;
            moves.destinations = select(bitboard_shift_right(pawns, 8u), bitboard_shift_left(pawns, 8u), white);
        }
        case 1u: {
            shift = 16u;
            targets = empty;
            let start = pawns & select(bitboard_make(0u, 0x00ff0000u), bitboard_make(0x0000ff00u, 0u), white);
            let single = select(bitboard_shift_right(start, 8u), bitboard_shift_left(start, 8u), white) & empty;
            moves.destinations = select(bitboard_shift_right(single, 8u), bitboard_shift_left(single, 8u), white);
        }
        case 2u: {
            // Towards the a-file: white +7, black -9.
            shift = select(9u, 7u, white);
            targets = context.theirs;
            let west = pawns & ~files_mask(0x01u);
            moves.destinations = select(bitboard_shift_right(west, 9u), bitboard_shift_left(west, 7u), white);
        }
        default: {
            // Towards the h-file: white +9, black -7.
            shift = select(7u, 9u, white);
            targets = context.theirs;
            let east = pawns & ~files_mask(0x80u);
            moves.destinations = select(bitboard_shift_right(east, 7u), bitboard_shift_left(east, 9u), white);
        }
    }
    moves.destinations = moves.destinations & targets & context.destination_mask;
    moves.back = select(0u - shift, shift, white);
    return moves;
}

// The step's square, when it is a pawn that can capture en passant.
fn en_passant_origin(board: Position, step: PieceStep) -> Bitboard {
    let captures = step.piece == PIECE_PAWN && board.en_passant != NO_SQUARE && bitboard_contains(step.destinations, board.en_passant);
    return select(BITBOARD_EMPTY, bitboard_from_square(step.from_square), captures);
}

// For the king's step: bit 0 when castling king side is legal, bit 1 queen
// side (castling destinations are the king's own rooks).
fn castling_bits(board: Position, context: MoveContext, step: PieceStep) -> u32 {
    if step.piece != PIECE_KING {
        return 0u;
    }
    var rooks = step.destinations & context.ours;
    var bits = 0u;
    while !bitboard_is_empty(rooks) {
        bits = bits | select(2u, 1u, (bitboard_first(rooks) & 7u) > (step.from_square & 7u));
        rooks = bitboard_without_first(rooks);
    }
    return bits;
}

struct MoveWalk {
    context: MoveContext,
    // Pieces of the side to move not yet visited.
    pieces: Bitboard,
    from_square: u32,
    piece: u32,
    // Destinations of the current piece not yet visited.
    destinations: Bitboard,
    to_square: u32,
    // Promotion moves left at the current destination (3, 2, 1), or 0.
    promotions_left: u32,
}

struct MoveStep {
    // NO_SQUARE when the walk is over.
    from_square: u32,
    to_square: u32,
    piece: u32,
    // The promotion piece, or PIECE_NONE.
    promotion: u32,
}

fn move_walk_begin(board: Position) -> MoveWalk {
    var walk: MoveWalk;
    walk.context = make_context(board);
    walk.pieces = walk_pieces(walk.context);
    walk.from_square = NO_SQUARE;
    walk.piece = PIECE_NONE;
    walk.destinations = BITBOARD_EMPTY;
    walk.to_square = NO_SQUARE;
    walk.promotions_left = 0u;
    return walk;
}

fn move_step(from_square: u32, to_square: u32, piece: u32, promotion: u32) -> MoveStep {
    return MoveStep(from_square, to_square, piece, promotion);
}

// The next legal move of `board` (pass the same board every time).
fn move_walk_next(board: Position, walk: ptr<function, MoveWalk>) -> MoveStep {
    if (*walk).promotions_left > 0u {
        let k = 4u - (*walk).promotions_left;
        (*walk).promotions_left -= 1u;
        return move_step((*walk).from_square, (*walk).to_square, PIECE_PAWN, PIECE_QUEEN - k);
    }
    // Advance to the next piece that has destinations, or run out of pieces.
    loop {
        if !bitboard_is_empty((*walk).destinations) || bitboard_is_empty((*walk).pieces) {
            break;
        }
        let step = next_piece(board, (*walk).context, (*walk).pieces);
        (*walk).pieces = step.remaining;
        (*walk).from_square = step.from_square;
        (*walk).piece = step.piece;
        (*walk).destinations = step.destinations;
    }
    if bitboard_is_empty((*walk).destinations) {
        return move_step(NO_SQUARE, NO_SQUARE, PIECE_NONE, PIECE_NONE);
    }
    let to_square = bitboard_first((*walk).destinations);
    (*walk).destinations = bitboard_without_first((*walk).destinations);
    (*walk).to_square = to_square;
    if moves_per_destination((*walk).piece, to_square) == 4u {
        (*walk).promotions_left = 3u;
        return move_step((*walk).from_square, to_square, PIECE_PAWN, PIECE_QUEEN);
    }
    return move_step((*walk).from_square, to_square, (*walk).piece, PIECE_NONE);
}

// The position after a step of a walk.
fn play_step(board: Position, step: MoveStep) -> Position {
    return position_make_move(board, step.from_square, step.to_square, step.piece, step.promotion);
}
