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
// lanes of a SIMD group run a recount when any of them needs it. For that
// reason too the regions here are tighter than the twin's: only the
// parent's side moves, so the king's, pawns' and knights' regions leave
// out what no move of that side can change (`sibling_king_region`).

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
    // The king's steps and castlings. A child recounts them when the move
    // leaves a square of `king_departures` or lands on one of
    // `king_arrivals` or of the arrivals of its own piece (`king_near`
    // for a pawn or a king, `king_knight`, `king_diagonal`,
    // `king_straight`; a queen takes the last two).
    king_moves: u32,
    king_departures: Bitboard,
    king_arrivals: Bitboard,
    king_near: Bitboard,
    king_knight: Bitboard,
    king_diagonal: Bitboard,
    king_straight: Bitboard,
    // The unpinned knights' moves, and the pieces of that side whose
    // capture changes them: those knights and the pieces they reach (no
    // other move changes them).
    knight_moves: u32,
    knight_region: Bitboard,
    // The unpinned sliders' moves, and every square one of them stands on
    // or reaches.
    slider_moves: u32,
    watched: Bitboard,
    // The pawns' moves, and every square whose change may change them:
    // the pawns' own, those they capture on, the one ahead of each unless
    // a piece of ours stands there, and the second ahead of a pawn that
    // may push twice past an empty square, unless a piece of ours stands there.
    pawn_moves: u32,
    pawn_region: Bitboard,
    // A move that leaves no square of `pawn_region` and lands on none of
    // `pawn_fixed` changes the pawns' moves by what its landing square adds
    // and takes away: a capture for each unpinned pawn that attacks it from
    // the west and from the east (`pawn_west_attacks`, `pawn_east_attacks`),
    // less a push it blocks (`pawn_pushes`) and a double push it blocks, on
    // its way or at its end (`pawn_double_pushes`); four a move to the last
    // rank (`sibling_pawn_change`). `pawn_fixed`: the pawns themselves (a
    // capture of one changes its moves and frees the square ahead) and
    // what the pinned ones reach.
    pawn_fixed: Bitboard,
    pawn_west_attacks: Bitboard,
    pawn_east_attacks: Bitboard,
    pawn_pushes: Bitboard,
    pawn_double_pushes: Bitboard,
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

// Where a move of the other side must leave or land to change the steps
// and castlings of the king of `side` on `king`: the squares of
// `SiblingView`'s king fields. Only that side moves, so a square holding a
// piece of ours can only be captured, never emptied.
struct KingRegion {
    departures: Bitboard,
    arrivals: Bitboard,
    near: Bitboard,
    knight: Bitboard,
    diagonal: Bitboard,
    straight: Bitboard,
}

// Adds to `region` the pieces that attack `square` or shield it from one
// of their sliders alone, and the squares between it and the sliders that
// attack it, the lines seen through `occupied` (without the king, which
// shields nothing from itself). A square's attackers change when one of
// them leaves, when such a shield leaves, when a piece lands between it
// and a slider that attacks it, or when a piece lands where its kind
// attacks it (the lines sibling_king_region adds).
fn sibling_guard_square(region: ptr<function, KingRegion>, square: u32, side: u32, occupied: Bitboard,
    theirs: Bitboard, position: PackedPosition) {
    let near = table_king_attacks(square);
    let knight = table_knight_attacks(square);
    (*region).departures = (*region).departures | (near & packed_kings(position) & theirs)
        | (knight & packed_knights(position) & theirs)
        | (table_pawn_attacks(side, square) & packed_pawns(position) & theirs);
    (*region).near = (*region).near | near;
    (*region).knight = (*region).knight | knight;
    (*region).diagonal = (*region).diagonal | table_bishop_rays(square);
    (*region).straight = (*region).straight | table_rook_rays(square);
    var snipers = (table_bishop_rays(square) & packed_diagonal(position) & theirs)
        | (table_rook_rays(square) & packed_orthogonal(position) & theirs);
    while !bitboard_is_empty(snipers) {
        let sniper = bitboard_first(snipers);
        snipers = bitboard_without_first(snipers);
        let between = table_between(square, sniper);
        let blockers = between & occupied;
        if bitboard_is_empty(blockers) {
            (*region).departures = (*region).departures | bitboard_from_square(sniper);
            (*region).arrivals = (*region).arrivals | between;
        } else if !bitboard_has_several(blockers) {
            (*region).departures = (*region).departures | blockers;
        }
    }
}

// The squares whose change may change the king's steps and castlings:
// every move that captures a piece of ours beside the king (a new square
// to step to), and what sibling_guard_square says of each square the king
// may step to. Castlings: none for a rook whose path holds a piece of
// ours, which no move of theirs removes; for the others, the rook, every
// square the castling crosses, and what sibling_guard_square says of each
// square the king crosses, seen with the king and those rooks lifted (which
// covers castling_rooks' test of the rank beside the king's destination).
// Lifting a piece only adds squares to the region.
fn sibling_king_region(position: PackedPosition, side: u32, king: u32) -> KingRegion {
    var region: KingRegion;
    let ours = packed_color(position, side);
    let theirs = packed_occupied(position) & ~ours;
    let neighbours = table_king_attacks(king);
    let lifted = packed_occupied(position) & ~bitboard_from_square(king);
    var files = (position.state >> (16u + 8u * side)) & 0xffu;
    let base = king & 56u;
    var castling = BITBOARD_EMPTY;
    var tested = BITBOARD_EMPTY;
    var rooks_lifted = lifted;
    while files != 0u {
        let rook = base + firstTrailingBit(files);
        files = files & (files - 1u);
        let destinations = castling_targets(king, rook);
        let path = rank_span(base, king & 7u, destinations.x & 7u);
        let crossed = (path | rank_span(base, rook & 7u, destinations.y & 7u))
            & ~bitboard_from_square(king) & ~bitboard_from_square(rook);
        if !bitboard_is_empty(crossed & ours) {
            continue;
        }
        rooks_lifted = rooks_lifted & ~bitboard_from_square(rook);
        castling = castling | bitboard_from_square(rook) | crossed;
        tested = tested | path;
    }
    region.departures = castling;
    region.arrivals = castling | (neighbours & ours);
    let candidates = neighbours & ~ours;
    var remaining = candidates;
    while !bitboard_is_empty(remaining) {
        sibling_guard_square(&region, bitboard_first(remaining), side, lifted, theirs, position);
        remaining = bitboard_without_first(remaining);
    }
    remaining = tested;
    while !bitboard_is_empty(remaining) {
        sibling_guard_square(&region, bitboard_first(remaining), side, rooks_lifted, theirs, position);
        remaining = bitboard_without_first(remaining);
    }
    // Where a bishop, a rook or a queen attacks one of them: one fill for
    // all, seen with the castling rooks lifted too, and kept to the rays of
    // each kind (which takes in a few squares another one's lines cross:
    // they only recount more often).
    let lines = slider_attacks_setwise(candidates | tested, candidates | tested, rooks_lifted);
    region.diagonal = region.diagonal & lines;
    region.straight = region.straight & lines;
    return region;
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
    let region = sibling_king_region(parent, side, king);
    view.king_departures = region.departures;
    view.king_arrivals = region.arrivals;
    view.king_near = region.near;
    view.king_knight = region.knight;
    view.king_diagonal = region.diagonal;
    view.king_straight = region.straight;

    let knights = packed_knights(parent) & ours & ~pinned;
    view.knight_moves = knight_count_setwise(knights, ~ours);
    view.knight_region = (knights | knight_attacks_setwise(knights)) & ours;
    let diagonal = packed_diagonal(parent) & ours & ~pinned;
    let straight = packed_orthogonal(parent) & ours & ~pinned;
    view.slider_moves = slider_count_setwise(diagonal, straight, occupied, ~ours);
    view.watched = slider_attacks_setwise(diagonal, straight, occupied) | diagonal | straight;

    // Only their side moves: a square holding a piece of ours stays
    // occupied, so a pawn blocked by one of ours pushes in no child, and
    // a double push needs an empty square ahead of a pawn on its first rank.
    let pawns = packed_pawns(parent) & ours;
    view.pawn_moves = sibling_pawn_moves(parent, side, king, pinned);
    var ahead: Bitboard;
    var second: Bitboard;
    var west: Bitboard;
    var east: Bitboard;
    let west_pawns = pawns & ~files_mask(0x01u);
    let east_pawns = pawns & ~files_mask(0x80u);
    if side == WHITE {
        ahead = bitboard_shift_left(pawns, 8u);
        second = bitboard_shift_left(bitboard_shift_left(pawns & bitboard_make(0x0000ff00u, 0u), 8u) & ~occupied, 8u);
        west = bitboard_shift_left(west_pawns, 7u);
        east = bitboard_shift_left(east_pawns, 9u);
    } else {
        ahead = bitboard_shift_right(pawns, 8u);
        second = bitboard_shift_right(bitboard_shift_right(pawns & bitboard_make(0u, 0x00ff0000u), 8u) & ~occupied, 8u);
        west = bitboard_shift_right(west_pawns, 9u);
        east = bitboard_shift_right(east_pawns, 7u);
    }
    view.pawn_region = pawns | ((ahead | second) & ~ours) | west | east;

    // The unpinned pawns' moves square by square, as pawn_count_setwise
    // counts them, for the children whose moves only land among them.
    let free = pawns & ~pinned;
    let empty = ~occupied;
    let pinned_pawns = pawns & pinned;
    var fixed = pawns;
    if !bitboard_is_empty(pinned_pawns) {
        fixed = fixed | pawn_attacks_setwise(pinned_pawns, side);
        if side == WHITE {
            fixed = fixed | bitboard_shift_left(pinned_pawns, 8u) | bitboard_shift_left(pinned_pawns, 16u);
        } else {
            fixed = fixed | bitboard_shift_right(pinned_pawns, 8u) | bitboard_shift_right(pinned_pawns, 16u);
        }
    }
    view.pawn_fixed = fixed;
    let west_free = free & ~files_mask(0x01u);
    let east_free = free & ~files_mask(0x80u);
    if side == WHITE {
        let pushes = bitboard_shift_left(free, 8u) & empty;
        let doubles = bitboard_shift_left(pushes & bitboard_make(0x00ff0000u, 0u), 8u) & empty;
        view.pawn_pushes = pushes;
        view.pawn_double_pushes = doubles | bitboard_shift_right(doubles, 8u);
        view.pawn_west_attacks = bitboard_shift_left(west_free, 7u);
        view.pawn_east_attacks = bitboard_shift_left(east_free, 9u);
    } else {
        let pushes = bitboard_shift_right(free, 8u) & empty;
        let doubles = bitboard_shift_right(pushes & bitboard_make(0u, 0x0000ff00u), 8u) & empty;
        view.pawn_pushes = pushes;
        view.pawn_double_pushes = doubles | bitboard_shift_left(doubles, 8u);
        view.pawn_west_attacks = bitboard_shift_right(west_free, 9u);
        view.pawn_east_attacks = bitboard_shift_right(east_free, 7u);
    }
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
    return view.usable && plain && bitboard_is_empty(touched & view.exposed)
        && bitboard_is_empty(to_bit & sibling_landing(view, piece));
}

// Where a piece of the parent's side of kind `piece` would check the
// view's king or may pin a piece to it.
fn sibling_landing(view: SiblingView, piece: u32) -> Bitboard {
    switch piece {
        case PIECE_PAWN: { return view.pawn_landing; }
        case PIECE_KNIGHT: { return view.knight_landing; }
        case PIECE_BISHOP: { return view.diagonal_landing; }
        case PIECE_ROOK: { return view.straight_landing; }
        case PIECE_QUEEN: { return view.diagonal_landing | view.straight_landing; }
        default: { return BITBOARD_EMPTY; }
    }
}

// Where a piece of the parent's side of kind `piece` may land to change
// the king's steps or castlings.
fn sibling_king_arrivals(view: SiblingView, piece: u32) -> Bitboard {
    switch piece {
        case PIECE_KNIGHT: { return view.king_arrivals | view.king_knight; }
        case PIECE_BISHOP: { return view.king_arrivals | view.king_diagonal; }
        case PIECE_ROOK: { return view.king_arrivals | view.king_straight; }
        case PIECE_QUEEN: { return view.king_arrivals | view.king_diagonal | view.king_straight; }
        default: { return view.king_arrivals | view.king_near; }
    }
}

// The count of a child that the view covers and whose move touches none
// of its parts' regions: every part as the view counted it.
fn sibling_whole(view: SiblingView) -> u32 {
    return view.pinned_slider_moves + view.king_moves + view.knight_moves + view.slider_moves + view.pawn_moves;
}

// Of the legal `destinations` of the parent's `piece` on `from_square`,
// those whose children the view covers with no part recounted but the
// pawns' by their landing square: each of those children counts
// `sibling_whole(view)` and what its landing adds to the pawns' moves, so
// the leaf adds them up by popcount (`sibling_pawn_change`) without making
// them. A destination is left out when `sibling_covers` or a part of
// `sibling_count` other than the pawns' would look at it, or when it holds
// one of the view's pawns or a square its pinned pawns reach
// (`pawn_fixed`); so are castling (onto our own rook), en passant,
// promotions and a double push that leaves an en passant square, which
// are not plain moves.
fn sibling_untouched(view: SiblingView, parent: PackedPosition, piece: u32, from_square: u32, destinations: Bitboard) -> Bitboard {
    if !view.usable || bitboard_contains(sibling_departures(view), from_square) {
        return BITBOARD_EMPTY;
    }
    let mover = 1u - view.side;
    var left_out = sibling_left_out(view, parent, piece);
    let first_rank = select(6u, 1u, mover == WHITE);
    if piece == PIECE_PAWN && (from_square >> 3u) == first_rank {
        let jump = select(from_square - 16u, from_square + 16u, mover == WHITE);
        left_out = left_out | (bitboard_from_square(jump) & sibling_passant_landings(view, parent));
    }
    return destinations & ~left_out;
}

// Where a double push of the parent's side leaves an en passant square
// (play_move_word): beside a pawn of the view's side, which could take it.
fn sibling_passant_landings(view: SiblingView, parent: PackedPosition) -> Bitboard {
    let side_pawns = packed_pawns(parent) & packed_color(parent, view.side);
    return bitboard_shift_right(side_pawns & ~files_mask(0x01u), 1u)
        | bitboard_shift_left(side_pawns & ~files_mask(0x80u), 1u);
}

// The squares a move of sibling_untouched's children may not leave.
fn sibling_departures(view: SiblingView) -> Bitboard {
    return view.exposed | view.watched | view.pawn_region | view.king_departures;
}

// The squares a move of `piece` in sibling_untouched's children may not
// land on, whatever square it leaves: the view's regions but the pawns'
// changes, the mover's own pieces, checks and pins, the king's arrivals,
// and for a pawn the last ranks (promotions) and the en passant square.
fn sibling_left_out(view: SiblingView, parent: PackedPosition, piece: u32) -> Bitboard {
    var left_out = view.exposed | view.watched | view.pawn_fixed | view.knight_region
        | packed_color(parent, 1u - view.side) | sibling_landing(view, piece) | sibling_king_arrivals(view, piece);
    if piece == PIECE_PAWN {
        left_out = left_out | bitboard_make(0xffu, 0xff000000u);
        let passant = (parent.state >> 8u) & 255u;
        if passant != NO_SQUARE {
            left_out = left_out | bitboard_from_square(passant);
        }
    }
    return left_out;
}

// sibling_untouched for the pawns of one direction (pawn_direction_moves):
// `destinations`, each from the square `back` before it (a u32 that wraps).
fn sibling_untouched_pawns(view: SiblingView, parent: PackedPosition, destinations: Bitboard, back: u32) -> Bitboard {
    if !view.usable || bitboard_is_empty(destinations) {
        return BITBOARD_EMPTY;
    }
    // The destinations whose pawn leaves a square of sibling_departures.
    let departures = sibling_departures(view);
    var departed: Bitboard;
    if back < 64u {
        departed = bitboard_shift_left(departures, back);
    } else {
        departed = bitboard_shift_right(departures, 0u - back);
    }
    var left_out = departed | sibling_left_out(view, parent, PIECE_PAWN);
    if back == 16u || back == 0u - 16u {
        left_out = left_out | sibling_passant_landings(view, parent);
    }
    return destinations & ~left_out;
}

// What the children of `untouched` (sibling_untouched) add to the pawns'
// moves the view counted, all together: for each landing square, a capture
// for each unpinned pawn that attacks it, less the push and the double push
// it blocks, four for a move to the last rank. In wrapping arithmetic: the
// sum may be less than zero, the count it is added to never is.
fn sibling_pawn_change(view: SiblingView, untouched: Bitboard) -> u32 {
    let landing = untouched
        & (view.pawn_west_attacks | view.pawn_east_attacks | view.pawn_pushes | view.pawn_double_pushes);
    if bitboard_is_empty(landing) {
        return 0u;
    }
    var gained = bitboard_count(landing & view.pawn_west_attacks) + bitboard_count(landing & view.pawn_east_attacks);
    var lost = bitboard_count(landing & view.pawn_pushes) + bitboard_count(landing & view.pawn_double_pushes);
    let last = landing & bitboard_make(0xffu, 0xff000000u);
    if !bitboard_is_empty(last) {
        gained += 3u * (bitboard_count(last & view.pawn_west_attacks) + bitboard_count(last & view.pawn_east_attacks));
        lost += 3u * bitboard_count(last & view.pawn_pushes);
    }
    return gained - lost;
}

// Whether the move `word` may change the king's steps or castlings.
fn sibling_king_touched(view: SiblingView, word: u32) -> bool {
    return bitboard_contains(view.king_departures, word & 63u)
        || bitboard_contains(sibling_king_arrivals(view, (word >> 12u) & 7u), (word >> 6u) & 63u);
}

// The legal moves of `child`, which the move `word` made and `view` covers.
fn sibling_count(view: SiblingView, parent: PackedPosition, child: PackedPosition, word: u32) -> u32 {
    let from_square = word & 63u;
    let to_square = (word >> 6u) & 63u;
    let touched = bitboard_from_square(from_square) | bitboard_from_square(to_square);
    var total = view.pinned_slider_moves;
    if !sibling_king_touched(view, word) {
        total += view.king_moves;
    } else {
        total += sibling_king_moves(child, view.side, view.king);
    }
    // A capture frees its square for every piece that reached it.
    let ours = packed_color(child, view.side);
    if bitboard_contains(view.knight_region, to_square) {
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
