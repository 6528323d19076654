//! Legal moves from a check mask and pins, and the last ply counted from
//! destination sets. Only the king's own moves are tried square by square
//! (against the other side's attackers, with the king lifted off the board);
//! every other move is legal by construction. A pawn drop straight in front
//! of the enemy king is the one move whose legality needs the reply:
//! uchifuzume forbids it when it mates, so the child is counted.

use arrayvec::ArrayVec;

use super::node::{DROP, FastMove, Node};
use super::tables::{
    ALL, GOLD_SHIFTS, KNIGHT_SHIFTS, LAST_RANK, LAST_TWO_RANKS, PAWN_SHIFTS, SILVER_SHIFTS, Shift, Tables, ZONE,
};
use crate::shogi::board::Piece;

/// More than any Shogi position has (the most known is 593).
pub(super) type MoveList = ArrayVec<FastMove, 1024>;

const PAWN: usize = Piece::Pawn as usize;
const LANCE: usize = Piece::Lance as usize;
const KNIGHT: usize = Piece::Knight as usize;
const SILVER: usize = Piece::Silver as usize;
const GOLD: usize = Piece::Gold as usize;
const BISHOP: usize = Piece::Bishop as usize;
const ROOK: usize = Piece::Rook as usize;
const KING: usize = Piece::King as usize;
const HORSE: usize = Piece::Horse as usize;
const DRAGON: usize = Piece::Dragon as usize;

/// The squares of each file's rank a, spread to all nine ranks by a multiply.
const FILE_SPREAD: u128 = {
    let mut spread = 0u128;
    let mut rank = 0;
    while rank < 9 {
        spread |= 1 << (rank * 9);
        rank += 1;
    }
    spread
};

#[inline(always)]
fn popcount(bits: u128) -> u32 {
    bits.count_ones()
}

/// Golds and the four kinds that move like one.
#[inline(always)]
fn gold_movers(node: &Node) -> u128 {
    node.kinds[GOLD] | node.kinds[8] | node.kinds[9] | node.kinds[10] | node.kinds[11]
}

/// What the side to move may do: its king, the checkers, where a piece or
/// a drop may go, and its pinned pieces with the lines they may move along.
pub(super) struct Masks {
    king: usize,
    checkers: u128,
    /// Not our own pieces; when in check, only the checker or a square between.
    targets: u128,
    /// Empty squares; when in check, only those between the checker and the king.
    drop_targets: u128,
    pinned: u128,
    pins: ArrayVec<(u8, u128), 8>,
}

impl Masks {
    #[inline(always)]
    pub fn of(node: &Node, tables: &Tables) -> Masks {
        let us = node.side;
        let theirs = node.colors[us ^ 1];
        let ours = node.colors[us];
        let occupied = ours | theirs;
        let king = node.king(us);
        let mut checkers = step_attackers(node, tables, king, us ^ 1);
        let straight = (node.kinds[ROOK] | node.kinds[DRAGON]) & theirs;
        let diagonal = (node.kinds[BISHOP] | node.kinds[HORSE]) & theirs;
        // Their lance attacks our king from the side it comes from: north
        // of a Black king, south of a White one (ray 0 or 1).
        let lances = node.kinds[LANCE] & theirs;
        let mut pinned = 0;
        let mut pins = ArrayVec::new();
        let candidates = (tables.rook_lines[king] & straight)
            | (tables.bishop_lines[king] & diagonal)
            | (tables.rays[us][king] & lances);
        if candidates != 0 {
            for direction in 0..8 {
                let sliders = match direction {
                    0..=3 if direction == us => straight | lances,
                    0..=3 => straight,
                    _ => diagonal,
                } & tables.rays[direction][king];
                if sliders == 0 {
                    continue;
                }
                let reach = tables.ray(king, direction, occupied);
                let first = reach & occupied;
                if first & sliders != 0 {
                    checkers |= first;
                } else if first & ours != 0 {
                    let square = first.trailing_zeros() as usize;
                    let beyond = tables.ray(square, direction, occupied);
                    if beyond & occupied & sliders != 0 {
                        pinned |= first;
                        pins.push((square as u8, reach | beyond));
                    }
                }
            }
        }
        let mut targets = !ours & ALL;
        let mut drop_targets = !occupied & ALL;
        if checkers != 0 && checkers & (checkers - 1) == 0 {
            let between = tables.between(king, checkers.trailing_zeros() as usize);
            targets &= between | checkers;
            drop_targets &= between;
        }
        Masks { king, checkers, targets, drop_targets, pinned, pins }
    }

    #[inline(always)]
    fn double_check(&self) -> bool {
        self.checkers & self.checkers.wrapping_sub(1) != 0
    }

    /// The line a piece on `square` may move along: everywhere unless pinned.
    #[inline(always)]
    fn line(&self, square: usize) -> u128 {
        if self.pinned >> square & 1 == 0 {
            return ALL;
        }
        self.pins.iter().find(|(pinned, _)| *pinned as usize == square).map_or(ALL, |(_, line)| *line)
    }
}

/// The pieces of side `by` that step onto `square`: a piece attacks a
/// square when the same piece of the other side there would attack it. A
/// horse or dragon steps to all eight neighbours, as a king does.
#[inline(always)]
fn step_attackers(node: &Node, tables: &Tables, square: usize, by: usize) -> u128 {
    let other = by ^ 1;
    let steps = &tables.steps;
    ((steps[PAWN][other][square] & node.kinds[PAWN])
        | (steps[KNIGHT][other][square] & node.kinds[KNIGHT])
        | (steps[SILVER][other][square] & node.kinds[SILVER])
        | (steps[GOLD][other][square] & gold_movers(node))
        | (steps[KING][other][square] & (node.kinds[KING] | node.kinds[HORSE] | node.kinds[DRAGON])))
        & node.colors[by]
}

/// Whether a piece of side `them` attacks `square`, with `occupied` blocking.
#[inline(always)]
fn attacked(node: &Node, tables: &Tables, square: usize, them: usize, occupied: u128) -> bool {
    let us = them ^ 1;
    let theirs = node.colors[them];
    if step_attackers(node, tables, square, them) != 0 {
        return true;
    }
    let straight = (node.kinds[ROOK] | node.kinds[DRAGON]) & theirs;
    if tables.rook_lines[square] & straight != 0 && tables.rook(square, occupied) & straight != 0 {
        return true;
    }
    let diagonal = (node.kinds[BISHOP] | node.kinds[HORSE]) & theirs;
    if tables.bishop_lines[square] & diagonal != 0 && tables.bishop(square, occupied) & diagonal != 0 {
        return true;
    }
    let lances = node.kinds[LANCE] & theirs;
    tables.rays[us][square] & lances != 0 && tables.lance(us, square, occupied) & lances != 0
}

/// The king's legal destinations.
#[inline(always)]
fn king_moves(node: &Node, tables: &Tables, masks: &Masks) -> u128 {
    let us = node.side;
    let lifted = node.occupied() ^ (1u128 << masks.king);
    let mut safe = 0;
    let mut candidates = tables.steps[KING][us][masks.king] & !node.colors[us];
    while candidates != 0 {
        let to = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if !attacked(node, tables, to, us ^ 1, lifted) {
            safe |= 1u128 << to;
        }
    }
    safe
}

/// The files holding one of `us`'s unpromoted pawns, as every square of them.
#[inline(always)]
fn pawn_files(node: &Node, us: usize) -> u128 {
    let mut pawns = node.pieces(Piece::Pawn, us);
    let mut files = 0;
    for _ in 0..9 {
        files |= pawns & 0x1ff;
        pawns >>= 9;
    }
    files * FILE_SPREAD
}

/// The square where a pawn of `us` would check `them`'s king, if on the board.
#[inline(always)]
fn pawn_check_square(node: &Node, us: usize) -> Option<usize> {
    let their_king = node.king(us ^ 1);
    if us == 0 { (their_king < 72).then_some(their_king + 9) } else { their_king.checked_sub(9) }
}

/// The pieces of side `by` attacking `square`, with `occupied` blocking.
#[inline(always)]
fn attackers_to(node: &Node, tables: &Tables, square: usize, by: usize, occupied: u128) -> u128 {
    let straight = node.kinds[ROOK] | node.kinds[DRAGON];
    let diagonal = node.kinds[BISHOP] | node.kinds[HORSE];
    let sliders = (tables.rook(square, occupied) & straight)
        | (tables.bishop(square, occupied) & diagonal)
        | (tables.lance(by ^ 1, square, occupied) & node.kinds[LANCE]);
    step_attackers(node, tables, square, by) | (sliders & node.colors[by])
}

/// Whether dropping a pawn on `square`, straight in front of the enemy
/// king, mates (uchifuzume, so illegal). The check is adjacent, so it
/// cannot be blocked: the defender escapes by a king step to a square we
/// do not attack (the pawn's among them), or by another piece taking the
/// pawn without uncovering its king. The pawn is not put on the node: it
/// only blocks, and attacks nothing but the king's square.
#[inline(never)]
fn pawn_drop_mates(node: &Node, tables: &Tables, square: usize) -> bool {
    let us = node.side;
    let them = us ^ 1;
    let king = node.king(them);
    let occupied = node.occupied() | 1u128 << square;
    let lifted = occupied ^ (1u128 << king);
    let mut steps = tables.steps[KING][them][king] & !node.colors[them];
    while steps != 0 {
        let step = steps.trailing_zeros() as usize;
        steps &= steps - 1;
        if !attacked(node, tables, step, us, lifted) {
            return false;
        }
    }
    let mut capturers = attackers_to(node, tables, square, them, occupied) & !(1u128 << king);
    while capturers != 0 {
        let capturer = capturers.trailing_zeros() as usize;
        capturers &= capturers - 1;
        if !attacked(node, tables, king, us, occupied ^ (1u128 << capturer)) {
            return false;
        }
    }
    true
}

/// Moves of one piece to `destinations`, counting promotion and not.
#[inline(always)]
fn piece_count(piece: usize, from: usize, destinations: u128, us: usize) -> u32 {
    let zone = ZONE[us];
    match piece {
        PAWN | LANCE => popcount(destinations & !LAST_RANK[us]) + popcount(destinations & zone),
        KNIGHT => popcount(destinations & !LAST_TWO_RANKS[us]) + popcount(destinations & zone),
        SILVER | BISHOP | ROOK if zone >> from & 1 != 0 => 2 * popcount(destinations),
        SILVER | BISHOP | ROOK => popcount(destinations) + popcount(destinations & zone),
        _ => popcount(destinations),
    }
}

/// Moves of the pieces of `set` by `shifts`, each shift moving every piece
/// to a different square, so the destinations are counted by popcount.
#[inline(always)]
fn shifted<const N: usize>(set: u128, shifts: &[Shift; N], targets: u128, count: impl Fn(u128) -> u32) -> u32 {
    shifts.iter().map(|shift| count(shift.apply(set) & targets)).sum()
}

/// The number of legal moves of the side to move.
pub(super) fn count(node: &Node, tables: &Tables) -> u32 {
    let masks = Masks::of(node, tables);
    let mut total = popcount(king_moves(node, tables, &masks));
    if masks.double_check() {
        return total;
    }
    let us = node.side;
    let occupied = node.occupied();
    let (zone, last, last_two) = (ZONE[us], LAST_RANK[us], LAST_TWO_RANKS[us]);
    let targets = masks.targets;
    let free = node.colors[us] & !masks.pinned;
    let promoting_or_not =
        |last: u128| move |destinations: u128| popcount(destinations & !last) + popcount(destinations & zone);
    total += shifted(node.kinds[PAWN] & free, &PAWN_SHIFTS[us], targets, promoting_or_not(last));
    total += shifted(node.kinds[KNIGHT] & free, &KNIGHT_SHIFTS[us], targets, promoting_or_not(last_two));
    let silvers = node.kinds[SILVER] & free;
    for shift in &SILVER_SHIFTS[us] {
        let destinations = shift.apply(silvers) & targets;
        total += popcount(destinations) + popcount((shift.apply(silvers & zone) & targets) | (destinations & zone));
    }
    total += shifted(gold_movers(node) & free, &GOLD_SHIFTS[us], targets, popcount);
    for piece in [LANCE, BISHOP, ROOK, HORSE, DRAGON] {
        let mut pieces = node.kinds[piece] & free;
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            total += piece_count(piece, from, tables.attacks(piece, us, from, occupied) & targets, us);
        }
    }
    for &(square, line) in &masks.pins {
        let (from, piece) = (square as usize, node.board[square as usize] as usize);
        total += piece_count(piece, from, tables.attacks(piece, us, from, occupied) & targets & line, us);
    }
    total + drop_count(node, tables, &masks)
}

/// The number of legal drops.
#[inline(always)]
fn drop_count(node: &Node, tables: &Tables, masks: &Masks) -> u32 {
    let us = node.side;
    let hand = node.hands[us];
    let empty = masks.drop_targets;
    if empty == 0 {
        return 0;
    }
    let mut total = 0;
    if hand[PAWN] > 0 {
        let squares = empty & !LAST_RANK[us] & !pawn_files(node, us);
        total += popcount(squares);
        if let Some(check) = pawn_check_square(node, us)
            && squares >> check & 1 != 0
            && pawn_drop_mates(node, tables, check)
        {
            total -= 1;
        }
    }
    if hand[LANCE] > 0 {
        total += popcount(empty & !LAST_RANK[us]);
    }
    if hand[KNIGHT] > 0 {
        total += popcount(empty & !LAST_TWO_RANKS[us]);
    }
    let anywhere = [SILVER, GOLD, BISHOP, ROOK].iter().filter(|&&piece| hand[piece] > 0).count() as u32;
    total + anywhere * popcount(empty)
}

/// Appends every legal move of the side to move.
pub(super) fn generate(node: &Node, tables: &Tables, moves: &mut MoveList) {
    let masks = Masks::of(node, tables);
    let us = node.side;
    let mut king_targets = king_moves(node, tables, &masks);
    while king_targets != 0 {
        let to = king_targets.trailing_zeros() as u8;
        king_targets &= king_targets - 1;
        moves.push(FastMove { from: masks.king as u8, to, piece: KING as u8, promote: false });
    }
    if masks.double_check() {
        return;
    }
    let occupied = node.occupied();
    let zone = ZONE[us];
    let mut pieces = node.colors[us] & !(1u128 << masks.king);
    while pieces != 0 {
        let from = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let piece = node.board[from] as usize;
        let mut destinations = tables.attacks(piece, us, from, occupied) & masks.targets & masks.line(from);
        let promotes = matches!(piece, PAWN | LANCE | KNIGHT | SILVER | BISHOP | ROOK);
        let forced = match piece {
            PAWN | LANCE => LAST_RANK[us],
            KNIGHT => LAST_TWO_RANKS[us],
            _ => 0,
        };
        let from_zone = zone >> from & 1 != 0;
        while destinations != 0 {
            let to = destinations.trailing_zeros() as usize;
            destinations &= destinations - 1;
            let mv = FastMove { from: from as u8, to: to as u8, piece: piece as u8, promote: false };
            if promotes && (from_zone || zone >> to & 1 != 0) {
                moves.push(FastMove { promote: true, ..mv });
            }
            if forced >> to & 1 == 0 {
                moves.push(mv);
            }
        }
    }
    generate_drops(node, tables, &masks, moves);
}

fn generate_drops(node: &Node, tables: &Tables, masks: &Masks, moves: &mut MoveList) {
    let us = node.side;
    let empty = masks.drop_targets;
    for piece in [PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK] {
        if node.hands[us][piece] == 0 {
            continue;
        }
        let mut squares = match piece {
            PAWN => empty & !LAST_RANK[us] & !pawn_files(node, us),
            LANCE => empty & !LAST_RANK[us],
            KNIGHT => empty & !LAST_TWO_RANKS[us],
            _ => empty,
        };
        if piece == PAWN
            && let Some(check) = pawn_check_square(node, us)
            && squares >> check & 1 != 0
            && pawn_drop_mates(node, tables, check)
        {
            squares &= !(1u128 << check);
        }
        while squares != 0 {
            let to = squares.trailing_zeros() as u8;
            squares &= squares - 1;
            moves.push(FastMove { from: DROP, to, piece: piece as u8, promote: false });
        }
    }
}
