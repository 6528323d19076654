// movegen.wgsl — Shogi legal moves for one position, the twin of the CPU
// engine in src/shogi/fast_perft/.
//
// Reads: the Shogi tables (`shogi_tables`, binding 0: step attacks per kind,
// colour and square; rays per direction and square; columns; the line
// from each square through each other), uploaded from Rust. Writes:
// nothing. Library only: the kernels call it, one position per invocation.
//
// Legality comes from masks, as on the CPU: the checks and the pinned
// pieces (`shogi_masks`) say where each piece may go, and only the king's
// own steps are tested square by square. The one move whose legality needs
// the reply is a pawn drop straight in front of the enemy king (uchifuzume
// forbids it when it mates); it is decided once per position.

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
    return board81_read(shogi_tables[SHOGI_TABLE_STEPS + (kind * 2u + color) * 81u + square]);
}

fn ray(direction: u32, square: u32) -> Board81 {
    return board81_read(shogi_tables[SHOGI_TABLE_RAYS + direction * 81u + square]);
}

fn column_mask(column: u32) -> Board81 {
    return board81_read(shogi_tables[SHOGI_TABLE_COLUMNS + column]);
}

// The last `ranks` (1, 2 or 3) ranks seen from `color`, by arithmetic
// rather than a table read.
fn dead_zone(color: u32, ranks: u32) -> Board81 {
    return select(board81_up_to(9u * ranks - 1u), board81_from(81u - 9u * ranks), color == SHOGI_WHITE);
}

// The ray from `origin` through `square` to the edge; empty off every line.
fn line_from(origin: u32, square: u32) -> Board81 {
    return board81_read(shogi_tables[SHOGI_TABLE_LINES + origin * 81u + square]);
}

// Directions 0..7: north, south, west, east, north-west, north-east,
// south-west, south-east (Black's frame); square indices grow along south,
// east, south-west and south-east, so there the nearest blocker is the
// lowest bit. Branch-free: it is inlined inside every loop that walks rays.
fn ray_attacks(square: u32, direction: u32, occupied: Board81) -> Board81 {
    let full = ray(direction, square);
    let blockers = full & occupied;
    let grows = direction == 1u || direction == 3u || direction == 6u || direction == 7u;
    // The nearest blocker (or past the board's end when there is none), and
    // every square on its near side of it, itself included: the squares up
    // to it where indices grow, from it where they shrink.
    let nearest = select(select(board81_last(blockers), 0u, board81_is_empty(blockers)), board81_first(blockers), grows);
    return full & select(board81_from(nearest), board81_up_to(nearest), grows);
}

// Whether `kind` of `color` slides along `direction`.
fn slides(kind: u32, color: u32, direction: u32) -> bool {
    let diagonal = direction >= 4u;
    let lance = kind == SHOGI_LANCE && direction == select(SOUTH, NORTH, color == SHOGI_BLACK);
    let bishop = (kind == SHOGI_BISHOP || kind == SHOGI_HORSE) && diagonal;
    let rook = (kind == SHOGI_ROOK || kind == SHOGI_DRAGON) && !diagonal;
    return lance || bishop || rook;
}

fn is_slider(kind: u32) -> bool {
    return kind == SHOGI_LANCE || kind == SHOGI_BISHOP || kind == SHOGI_ROOK || kind >= SHOGI_HORSE;
}

// What `kind` of `color` on `square` attacks: its steps, and its rays one
// direction a turn (one copy of the ray walk, however many directions).
fn shogi_attacks(kind: u32, color: u32, square: u32, occupied: Board81) -> Board81 {
    var attacks = step_attacks(kind, color, square);
    if is_slider(kind) {
        for (var direction = 0u; direction < shogi_loop_bound(8u); direction++) {
            if slides(kind, color, direction) {
                attacks = attacks | ray_attacks(square, direction, occupied);
            }
        }
    }
    return attacks;
}

// The sets the attack tests look for (either colour), each derived from the
// four code planes where a test asks for it (code = kind + 1): a set kept
// for the whole count would hold four registers a thread through every
// loop, and ten of them held the count to 120 VGPRs on a GPU compiler.
// Steppers of one pattern count as one kind: golds with the four kinds that
// move like one, kings with horses and dragons (all eight neighbours).
const SHOGI_ATTACK_PAWNS: u32 = 0u;
const SHOGI_ATTACK_KNIGHTS: u32 = 1u;
const SHOGI_ATTACK_SILVERS: u32 = 2u;
const SHOGI_ATTACK_GOLDS: u32 = 3u;
const SHOGI_ATTACK_KINGS: u32 = 4u;
const SHOGI_ATTACK_LANCES: u32 = 5u;
// Bishops and horses; rooks and dragons.
const SHOGI_ATTACK_DIAGONAL: u32 = 6u;
const SHOGI_ATTACK_STRAIGHT: u32 = 7u;

// The squares of one of those sets, by Boolean formulas over the planes
// (c3 c2 c1 c0, the code's bits): pawn 0001, knight 0011, silver 0100,
// gold 0101 with promoted pawn to silver 1001..1100, king 1000 with horse
// 1101 and dragon 1110, lance 0010, bishop 0110, rook 0111.
fn shogi_attack_set(position: ShogiPosition, which: u32) -> Board81 {
    let c0 = position.code0;
    let c1 = position.code1;
    let c2 = position.code2;
    let c3 = position.code3;
    // `a & ~b` with `a` on the board needs no mask of the board's squares,
    // and a GPU makes it one instruction; a complement on its own is a set
    // the compiler computes once and holds through the loops.
    switch which {
        case 0u: { return c0 & ~(c3 | c2 | c1); }
        case 1u: { return c1 & c0 & ~(c3 | c2); }
        case 2u: { return c2 & ~(c3 | c1 | c0); }
        case 3u: {
            return (c2 & c0 & ~(c3 | c1)) | (c3 & (c1 | c0) & ~c2) | (c3 & c2 & ~(c1 | c0));
        }
        case 4u: { return c3 & (~(c2 | c1 | c0) | (c2 & (c1 ^ c0))); }
        case 5u: { return c1 & ~(c3 | c2 | c0); }
        case 6u: { return (c2 & c1 & ~(c3 | c0)) | (c3 & c2 & c0 & ~c1); }
        default: { return (c2 & c1 & c0 & ~c3) | (c3 & c2 & c1 & ~c0); }
    }
}

// The pieces of `by` that step onto `square`: each kind seen from the
// square as the other colour's piece. One table read in a loop over the
// five stepping kinds: every read site inlined is dear to compile.
fn step_attackers_to(position: ShogiPosition, square: u32, by: u32) -> Board81 {
    let other = 1u - by;
    var attackers = BOARD81_EMPTY;
    for (var index = 0u; index < shogi_loop_bound(5u); index++) {
        // Pawn, knight, silver, gold, king: kinds 0, 2, 3, 4, 7, and the
        // attack sets of the same index.
        let kind = select(select(index + 1u, SHOGI_KING, index == 4u), SHOGI_PAWN, index == 0u);
        attackers = attackers | (step_attacks(kind, other, square) & shogi_attack_set(position, index));
    }
    return attackers & shogi_color_set(position, by);
}

// The sliders of `by` that attack a square along `direction` from it: a
// lance of `by` along the ray the other colour's lance would move along.
fn sliders_along(position: ShogiPosition, direction: u32, by: u32) -> Board81 {
    let lance_direction = select(NORTH, SOUTH, by == SHOGI_BLACK);
    var sliders = shogi_attack_set(position, select(SHOGI_ATTACK_STRAIGHT, SHOGI_ATTACK_DIAGONAL, direction >= 4u));
    if direction == lance_direction {
        sliders = sliders | shogi_attack_set(position, SHOGI_ATTACK_LANCES);
    }
    return sliders & shogi_color_set(position, by);
}

// The pieces of `by` attacking `square`, with `occupied` blocking sliders.
fn shogi_attackers_to(position: ShogiPosition, square: u32, by: u32, occupied: Board81) -> Board81 {
    var attackers = step_attackers_to(position, square, by);
    for (var direction = 0u; direction < shogi_loop_bound(8u); direction++) {
        attackers = attackers | (ray_attacks(square, direction, occupied) & sliders_along(position, direction, by));
    }
    return attackers;
}

fn shogi_king(position: ShogiPosition, color: u32) -> u32 {
    return board81_first(shogi_pieces_of(position, color, SHOGI_KING));
}

// What the side to move may do: its king, the pieces checking it, the
// squares that answer a check, and its pinned pieces (each may move only
// along `line_from(king, it)`).
struct ShogiMasks {
    king: u32,
    // How many pieces give check (the set itself is not kept: four
    // registers through every loop of the count).
    checks: u32,
    // Every square out of check; in single check the squares between the
    // king and its checker, and the checker's. One set serves board moves
    // (less our own pieces) and drops (less every piece, which takes the
    // checker's square off): two sets held through the move loop cost a
    // GPU compiler four more registers.
    evasions: Board81,
    pinned: Board81,
}

// One walk of the eight rays from the king finds the sliding checkers and
// the pins: a slider of theirs first on a ray checks, one behind a single
// piece of ours pins it.
fn shogi_masks(position: ShogiPosition) -> ShogiMasks {
    let us = position.side_to_move;
    let them = 1u - us;
    let occupied = shogi_occupied(position);
    let ours = shogi_color_set(position, us);
    var masks: ShogiMasks;
    masks.king = shogi_king(position, us);
    var checkers = step_attackers_to(position, masks.king, them);
    masks.pinned = BOARD81_EMPTY;
    for (var direction = 0u; direction < shogi_loop_bound(8u); direction++) {
        let sliders = sliders_along(position, direction, them);
        let first = ray_attacks(masks.king, direction, occupied) & occupied;
        let beyond = ray_attacks(min(board81_first(first), 80u), direction, occupied) & occupied;
        let shielded = !board81_is_empty(first & ours) && !board81_is_empty(beyond & sliders);
        checkers = checkers | (first & sliders);
        masks.pinned = masks.pinned | select(BOARD81_EMPTY, first, shielded);
    }
    masks.evasions = BOARD81_ALL;
    masks.checks = board81_count(checkers);
    if masks.checks == 1u {
        let checker = board81_first(checkers);
        masks.evasions = (line_from(masks.king, checker) & line_from(checker, masks.king)) | checkers;
    }
    return masks;
}

fn double_check(masks: ShogiMasks) -> bool {
    return masks.checks > 1u;
}

// Where a piece of the side to move on `square` may go (the king apart):
// off its own pieces, within the evasions and its pin line.
fn piece_targets(position: ShogiPosition, masks: ShogiMasks, square: u32) -> Board81 {
    let line = select(BOARD81_ALL, line_from(masks.king, square), board81_contains(masks.pinned, square));
    let targets = masks.evasions & line & ~shogi_color_set(position, position.side_to_move);
    return select(targets, BOARD81_EMPTY, double_check(masks));
}

// The king's legal steps: each tested against the other side's attackers
// with the king lifted off the board.
fn king_destinations(position: ShogiPosition, masks: ShogiMasks) -> Board81 {
    let us = position.side_to_move;
    let lifted = shogi_occupied(position) & ~board81_from_square(masks.king);
    var candidates = step_attacks(SHOGI_KING, us, masks.king) & ~shogi_color_set(position, us);
    var safe = BOARD81_EMPTY;
    while !board81_is_empty(candidates) {
        let square = board81_first(candidates);
        candidates = board81_without_first(candidates);
        if board81_is_empty(shogi_attackers_to(position, square, 1u - us, lifted)) {
            safe = safe | board81_from_square(square);
        }
    }
    return safe;
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

// Squares `kind` may be dropped on by the side to move, before checks:
// empty, not where it would have no move, a pawn not on a file with one
// of ours (nifu).
fn drop_targets(position: ShogiPosition, kind: u32) -> Board81 {
    let us = position.side_to_move;
    var targets = board81_not(shogi_occupied(position));
    if kind == SHOGI_PAWN || kind == SHOGI_LANCE {
        targets = targets & ~dead_zone(us, 1u);
    }
    if kind == SHOGI_KNIGHT {
        targets = targets & ~dead_zone(us, 2u);
    }
    if kind == SHOGI_PAWN {
        let pawns = shogi_pieces_of(position, us, SHOGI_PAWN);
        for (var column = 0u; column < shogi_loop_bound(9u); column++) {
            if !board81_is_empty(pawns & column_mask(column)) {
                targets = targets & ~column_mask(column);
            }
        }
    }
    return targets;
}

// Whether dropping a pawn on `to`, straight in front of the enemy king,
// mates (uchifuzume, illegal). The check is adjacent and cannot be blocked,
// so the defender escapes only by a king step to a safe square (taking the
// pawn among them) or by another piece taking the pawn and leaving its king
// safe. The dropped pawn stays out of the record's planes: it only blocks
// (it attacks nothing but the king's square). Both kinds of answer share
// one loop and one attack test.
fn pawn_drop_mates(position: ShogiPosition, to: u32) -> bool {
    let us = position.side_to_move;
    let them = 1u - us;
    let king = shogi_king(position, them);
    let occupied = shogi_occupied(position) | board81_from_square(to);
    let king_bit = board81_from_square(king);
    let steps = step_attacks(SHOGI_KING, them, king) & ~shogi_color_set(position, them);
    // One attack test serves both questions, so a driver inlines it once:
    // the first pass finds the pieces that could take the pawn, every later
    // pass tests one answer.
    var capturers = BOARD81_EMPTY;
    var answers = steps;
    var finding_capturers = true;
    loop {
        var square = to;
        var by = them;
        var blockers = occupied;
        if !finding_capturers {
            if board81_is_empty(answers) {
                break;
            }
            let answer = board81_first(answers);
            answers = board81_without_first(answers);
            let captures = board81_contains(capturers, answer);
            // A capturer leaves `answer` for `to`; a king step leaves the king's square.
            square = select(answer, king, captures);
            by = us;
            blockers = occupied & ~(select(king_bit, board81_from_square(answer), captures));
        }
        let attackers = shogi_attackers_to(position, square, by, blockers);
        if finding_capturers {
            capturers = attackers & ~king_bit;
            answers = answers | capturers;
            finding_capturers = false;
        } else if board81_is_empty(attackers) {
            return false;
        }
    }
    return true;
}

// Where a pawn drop would check the other king, as a set (one square or none).
fn checking_pawn_drop(position: ShogiPosition) -> Board81 {
    let them = 1u - position.side_to_move;
    return step_attacks(SHOGI_PAWN, them, shogi_king(position, them));
}

// The square (as a set) where a pawn drop would mate, or none: decided
// once per position, before any drop is counted or played.
fn mating_pawn_drop(position: ShogiPosition, masks: ShogiMasks) -> Board81 {
    let front = drop_targets(position, SHOGI_PAWN) & masks.evasions & checking_pawn_drop(position);
    let live = shogi_hand(position, position.side_to_move, SHOGI_PAWN) != 0u && !board81_is_empty(front);
    if live && pawn_drop_mates(position, board81_first(front)) {
        return front;
    }
    return BOARD81_EMPTY;
}

// The drop squares of `kind` for the side to move: its targets, within
// the check mask, less the square where a pawn drop would mate.
fn legal_drop_squares(position: ShogiPosition, masks: ShogiMasks, kind: u32, mating_pawn: Board81) -> Board81 {
    if shogi_hand(position, position.side_to_move, kind) == 0u || double_check(masks) {
        return BOARD81_EMPTY;
    }
    let squares = drop_targets(position, kind) & masks.evasions;
    return select(squares, squares & ~mating_pawn, kind == SHOGI_PAWN);
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
    return board81_count(promoting) + board81_count(targets & ~forced);
}

// The number of legal moves, the twin of the CPU engine's count: every
// piece's destinations within the masks, promotion choices by zone masks,
// the king's tested steps, drops by a popcount.
fn shogi_legal_move_count(position: ShogiPosition) -> u32 {
    let us = position.side_to_move;
    let masks = shogi_masks(position);
    var count = board81_count(king_destinations(position, masks));
    let occupied = shogi_occupied(position);
    var pieces = shogi_color_set(position, us) & ~board81_from_square(masks.king);
    if double_check(masks) {
        pieces = BOARD81_EMPTY;
    }
    while !board81_is_empty(pieces) {
        let from_square = board81_first(pieces);
        pieces = board81_without_first(pieces);
        let kind = shogi_piece_on(position, from_square);
        let targets = shogi_attacks(kind, us, from_square, occupied) & piece_targets(position, masks, from_square);
        count += destination_count(kind, us, from_square, targets);
    }
    let mating_pawn = mating_pawn_drop(position, masks);
    for (var kind = 0u; kind < shogi_loop_bound(7u); kind++) {
        count += board81_count(legal_drop_squares(position, masks, kind, mating_pawn));
    }
    return count;
}
