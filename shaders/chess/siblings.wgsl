// siblings.wgsl — leaf parents counted from what their parent already knows.
//
// Reads: the attack tables (tables.wgsl). Writes: nothing. Library only;
// the software adapters' looped leaf (kernels/perft.wgsl,
// `perft_leaf_children`) calls it. One invocation holds a position two
// plies above the leaves (the parent) and counts the legal moves of each of
// its children (the leaf parents). Siblings differ by one move, so the
// parent is looked at once from the other side, as if that side were to
// move (`sibling_view`): its king's moves, knights', sliders' and pawns'
// counts, and the squares whose change may change each. A child made by a
// plain move of the parent's side (one piece from one square to another,
// capturing or not, not a promotion, castling or en passant, and leaving no
// en passant square) that leaves and enters no square of a line from the
// other king holding one of the parent side's sliders, and lands where its
// piece neither checks that king nor may pin to it (`sibling_covers`), is
// not in check and keeps the view's pins; its count (`sibling_count`) takes
// each part from the view unless the move touched that part's squares.
// CPU twin: src/chess/fast_perft/siblings.rs, which recounts its sliders
// one by one; here they are recounted set-wise, with one fill, because the
// lanes of a SIMD group run a recount when any of them needs it.

#import movegen

struct SiblingView {
    // False when the view cannot count children: the side to move at the
    // children has no king or stands in check in the parent.
    usable: bool,
    // That side (the one to move at the children) and its king.
    side: u32,
    king: u32,
    // The lines from that king, each as far as its second piece, that hold
    // a slider of the parent's side: a move that leaves or enters none of
    // them, and lands where its own piece neither checks nor pins, changes
    // no check and no pin.
    exposed: Bitboard,
    // Where a pawn, a knight, a bishop or a rook of the parent's side
    // would check that king or may pin a piece to it (a queen: the last two).
    pawn_landing: Bitboard,
    knight_landing: Bitboard,
    diagonal_landing: Bitboard,
    straight_landing: Bitboard,
    // The pieces pinned to that king, and the moves of its pinned sliders
    // along their pin lines.
    pinned: Bitboard,
    pinned_slider_moves: u32,
    // The king's steps and castlings, and every square whose change may
    // change them.
    king_moves: u32,
    king_region: Bitboard,
    // The unpinned knights' moves (they change only when a piece of that
    // side is captured).
    knight_moves: u32,
    // The unpinned sliders' moves, and every square one of them stands on
    // or reaches.
    slider_moves: u32,
    watched: Bitboard,
    // The pawns' moves, and every square whose change may change them:
    // the pawns' own, the one or two ahead of each, and those they capture on.
    pawn_moves: u32,
    pawn_region: Bitboard,
}

// Every square from which a piece could attack a square of `squares` (a
// pawn: one of the side `side`'s enemies), the lines seen through
// `occupied`: one set-wise fill for them all.
fn sibling_attack_sources(squares: Bitboard, side: u32, occupied: Bitboard) -> Bitboard {
    let rank = squares | bitboard_shift_left(squares & ~files_mask(0x80u), 1u)
        | bitboard_shift_right(squares & ~files_mask(0x01u), 1u);
    let king_steps = rank | bitboard_shift_left(rank, 8u) | bitboard_shift_right(rank, 8u);
    return slider_attacks_setwise(squares, squares, occupied) | knight_attacks_setwise(squares) | king_steps
        | pawn_attacks_setwise(squares, side);
}

// The steps and castlings of the king of `side` on `king` (not in check)
// in `position`, whatever side is to move there.
fn sibling_king_moves(position: PackedPosition, side: u32, king: u32) -> u32 {
    let danger = danger_squares(position, 1u - side, king);
    let occupied = packed_occupied(position);
    let ours = packed_color(position, side);
    let theirs = occupied & ~ours;
    return bitboard_count(table_king_attacks(king) & ~ours & ~danger)
        + bitboard_count(castling_rooks(position.state >> 16u, side, king, occupied, danger,
            packed_orthogonal(position) & theirs));
}

// The squares whose change may change the king's steps and castlings:
// its neighbours, the rooks that may castle, every square a castling
// crosses, and every square from which a piece could attack a square the
// king may step to or cross, seen with the king and those rooks lifted
// (castling_rooks' test of the rank beside the king's destination looks
// no further than those lines). Every square when the king has more than
// three squares to step to: an open king's steps would cost more here
// than its children would save, and they count them themselves.
fn sibling_king_region(position: PackedPosition, side: u32, king: u32) -> Bitboard {
    let neighbours = table_king_attacks(king);
    let candidates = neighbours & ~packed_color(position, side);
    if bitboard_count(candidates) > 3u {
        return ~BITBOARD_EMPTY;
    }
    var files = (position.state >> (16u + 8u * side)) & 0xffu;
    let base = king & 56u;
    var lifted = packed_occupied(position) & ~bitboard_from_square(king);
    var region = neighbours;
    var tested = candidates;
    while files != 0u {
        let rook = base + firstTrailingBit(files);
        files = files & (files - 1u);
        let destinations = castling_targets(king, rook);
        let path = rank_span(base, king & 7u, destinations.x & 7u);
        lifted = lifted & ~bitboard_from_square(rook);
        region = region | bitboard_from_square(rook) | path | rank_span(base, rook & 7u, destinations.y & 7u);
        tested = tested | path;
    }
    return region | sibling_attack_sources(tested, side, lifted);
}

// The moves of the pawns of `side` in `position` with no en passant square:
// pinned ones one by one, the rest set-wise; `targets` is every square but
// that side's own pieces.
fn sibling_pawn_moves(position: PackedPosition, side: u32, king: u32, pinned: Bitboard) -> u32 {
    let occupied = packed_occupied(position);
    let ours = packed_color(position, side);
    let theirs = occupied & ~ours;
    let pawns = packed_pawns(position) & ours;
    var count = 0u;
    var remaining = pawns & pinned;
    while !bitboard_is_empty(remaining) {
        count += pawn_count_one(bitboard_first(remaining), side, occupied, theirs, ~ours, king, pinned, NO_SQUARE,
            BITBOARD_EMPTY, BITBOARD_EMPTY);
        remaining = bitboard_without_first(remaining);
    }
    return count + pawn_count_setwise(pawns & ~pinned, side, ~occupied, theirs, ~ours);
}

// The moves of the unpinned sliders of `side` in `position`.
fn sibling_slider_moves(position: PackedPosition, side: u32, pinned: Bitboard) -> u32 {
    let ours = packed_color(position, side);
    return slider_count_setwise(packed_diagonal(position) & ours & ~pinned,
        packed_orthogonal(position) & ours & ~pinned, packed_occupied(position), ~ours);
}

// `parent` seen by the side to move at its children.
fn sibling_view(parent: PackedPosition) -> SiblingView {
    var view: SiblingView;
    let mover = parent.state & 1u;
    let side = 1u - mover;
    view.side = side;
    let occupied = packed_occupied(parent);
    let ours = packed_color(parent, side);
    let theirs = occupied & ~ours;
    let king = bitboard_first(packed_kings(parent) & ours);
    view.king = king;
    view.usable = king != NO_SQUARE;
    if !view.usable {
        return view;
    }
    let their_straight = packed_orthogonal(parent) & theirs;
    let their_diagonal = packed_diagonal(parent) & theirs;
    // Checkers and pins, as legal_move_count_packed finds them.
    var checked = !bitboard_is_empty(((table_pawn_attacks(side, king) & packed_pawns(parent))
        | (table_knight_attacks(king) & packed_knights(parent))) & theirs);
    var pinned = BITBOARD_EMPTY;
    var pinned_slider_moves = 0u;
    var snipers = (table_rook_rays(king) & their_straight) | (table_bishop_rays(king) & their_diagonal);
    while !bitboard_is_empty(snipers) {
        let sniper = bitboard_first(snipers);
        snipers = bitboard_without_first(snipers);
        let between = table_between(king, sniper);
        let blockers = between & occupied;
        if bitboard_is_empty(blockers) {
            checked = true;
        } else if !bitboard_has_several(blockers) && !bitboard_is_empty(blockers & ours) {
            pinned = pinned | blockers;
            let movers = select(packed_orthogonal(parent), packed_diagonal(parent),
                bitboard_contains(table_bishop_rays(king), sniper));
            if !bitboard_is_empty(blockers & movers) {
                pinned_slider_moves += bitboard_count(between);
            }
        }
    }
    if checked {
        view.usable = false;
        return view;
    }
    view.pinned = pinned;
    view.pinned_slider_moves = pinned_slider_moves;

    // A pin or a check needs the king, at most one piece and the slider, so
    // squares past a line's second piece cannot make or break one, nor can
    // any square of a line without one of their sliders.
    let first = slider_queen_attacks(king, occupied) & occupied;
    let lines = slider_queen_attacks(king, occupied & ~first);
    let straight_lines = lines & table_rook_rays(king);
    let diagonal_lines = lines & table_bishop_rays(king);
    var exposed = BITBOARD_EMPTY;
    for (var direction = 0u; direction < 8u; direction++) {
        let ray = table_ray(direction, king);
        // Directions 0, 1, 4 and 5 run along ranks and files.
        let straight = (direction & 2u) == 0u;
        let watchers = select(their_diagonal, their_straight, straight);
        if !bitboard_is_empty(ray & watchers) {
            exposed = exposed | (ray & select(diagonal_lines, straight_lines, straight));
        }
    }
    view.exposed = exposed;
    view.pawn_landing = table_pawn_attacks(side, king);
    view.knight_landing = table_knight_attacks(king);
    view.diagonal_landing = diagonal_lines;
    view.straight_landing = straight_lines;

    view.king_moves = sibling_king_moves(parent, side, king);
    view.king_region = sibling_king_region(parent, side, king);

    view.knight_moves = knight_count_setwise(packed_knights(parent) & ours & ~pinned, ~ours);
    let diagonal = packed_diagonal(parent) & ours & ~pinned;
    let straight = packed_orthogonal(parent) & ours & ~pinned;
    view.slider_moves = slider_count_setwise(diagonal, straight, occupied, ~ours);
    view.watched = slider_attacks_setwise(diagonal, straight, occupied) | diagonal | straight;

    let pawns = packed_pawns(parent) & ours;
    view.pawn_moves = sibling_pawn_moves(parent, side, king, pinned);
    var ahead: Bitboard;
    var west: Bitboard;
    var east: Bitboard;
    let west_pawns = pawns & ~files_mask(0x01u);
    let east_pawns = pawns & ~files_mask(0x80u);
    if side == WHITE {
        ahead = bitboard_shift_left(pawns, 8u) | bitboard_shift_left(pawns, 16u);
        west = bitboard_shift_left(west_pawns, 7u);
        east = bitboard_shift_left(east_pawns, 9u);
    } else {
        ahead = bitboard_shift_right(pawns, 8u) | bitboard_shift_right(pawns, 16u);
        west = bitboard_shift_right(west_pawns, 9u);
        east = bitboard_shift_right(east_pawns, 7u);
    }
    view.pawn_region = pawns | ahead | west | east;
    return view;
}

// Whether `view` counts the child that the move `word` made, `child`.
fn sibling_covers(view: SiblingView, parent: PackedPosition, child: PackedPosition, word: u32) -> bool {
    let from_square = word & 63u;
    let to_square = (word >> 6u) & 63u;
    let piece = (word >> 12u) & 7u;
    let promotion = (word >> 15u) & 7u;
    let to_bit = bitboard_from_square(to_square);
    let touched = bitboard_from_square(from_square) | to_bit;
    // Castling (the king onto its own rook), en passant (a pawn's diagonal
    // move to an empty square) and promotions are counted whole, as is a
    // child with an en passant square.
    let castles = piece == PIECE_KING && !bitboard_is_empty(to_bit & packed_color(parent, 1u - view.side));
    let passant = piece == PIECE_PAWN && ((from_square ^ to_square) & 7u) != 0u
        && bitboard_is_empty(to_bit & packed_occupied(parent));
    let plain = !castles && !passant && promotion == PIECE_NONE && ((child.state >> 8u) & 255u) == NO_SQUARE;
    var landing = BITBOARD_EMPTY;
    switch piece {
        case PIECE_PAWN: { landing = view.pawn_landing; }
        case PIECE_KNIGHT: { landing = view.knight_landing; }
        case PIECE_BISHOP: { landing = view.diagonal_landing; }
        case PIECE_ROOK: { landing = view.straight_landing; }
        case PIECE_QUEEN: { landing = view.diagonal_landing | view.straight_landing; }
        default: {}
    }
    return view.usable && plain && bitboard_is_empty(touched & view.exposed) && bitboard_is_empty(to_bit & landing);
}

// The legal moves of `child`, which the move `word` made and `view` covers.
fn sibling_count(view: SiblingView, parent: PackedPosition, child: PackedPosition, word: u32) -> u32 {
    let from_square = word & 63u;
    let to_square = (word >> 6u) & 63u;
    let touched = bitboard_from_square(from_square) | bitboard_from_square(to_square);
    var total = view.pinned_slider_moves;
    if bitboard_is_empty(touched & view.king_region) {
        total += view.king_moves;
    } else {
        total += sibling_king_moves(child, view.side, view.king);
    }
    // A capture frees its square for every piece that reached it.
    let ours = packed_color(child, view.side);
    if bitboard_contains(packed_occupied(parent), to_square) {
        total += knight_count_setwise(packed_knights(child) & ours & ~view.pinned, ~ours);
    } else {
        total += view.knight_moves;
    }
    if bitboard_is_empty(touched & view.watched) {
        total += view.slider_moves;
    } else {
        total += sibling_slider_moves(child, view.side, view.pinned);
    }
    if bitboard_is_empty(touched & view.pawn_region) {
        total += view.pawn_moves;
    } else {
        total += sibling_pawn_moves(child, view.side, view.king, view.pinned);
    }
    return total;
}
