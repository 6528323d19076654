//! Legal moves from a check mask and two pin masks: no move is tried and
//! taken back. [`count`] counts a node's moves by popcount, set by set;
//! [`for_each_child`] makes each child.

use super::node::{BISHOP, KING, KNIGHT, Node, PAWN, QUEEN, ROOK, Side, bits, square_of};
use super::sliders::Sliders;
use crate::chess::board::castling::CASTLING_PATHS;
use crate::chess::tables::{BETWEEN, BISHOP_RAYS, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, ROOK_RAYS};

/// What every move of a node is checked against, computed once.
#[derive(Clone, Copy)]
pub(super) struct Masks {
    pub(super) king: usize,
    pub(super) ours: u64,
    pub(super) theirs: u64,
    pub(super) occupied: u64,
    pub(super) checkers: u64,
    /// The squares a move other than the king's must land on: the checker and
    /// the squares between it and the king in single check, every square
    /// otherwise.
    pub(super) check_mask: u64,
    /// The lines from the king to each pinning rook or queen (the pinner
    /// included), and to each pinning bishop or queen. A piece pinned on one
    /// line cannot reach any other pin line, so the union serves every pinned piece.
    pub(super) pin_straight: u64,
    pub(super) pin_diagonal: u64,
    pub(super) their_straight: u64,
    pub(super) their_diagonal: u64,
}

impl Masks {
    #[inline(always)]
    pub(super) fn new<S: Sliders, C: Side>(node: &Node) -> Masks {
        let ours = node.colors[C::US];
        let theirs = node.colors[C::THEM];
        let occupied = ours | theirs;
        let king = square_of(node.pieces[KING] & ours);
        let queens = node.pieces[QUEEN];
        let their_straight = (node.pieces[ROOK] | queens) & theirs;
        let their_diagonal = (node.pieces[BISHOP] | queens) & theirs;

        let mut checkers =
            (PAWN_ATTACKS[C::US][king] & node.pieces[PAWN] | KNIGHT_ATTACKS[king] & node.pieces[KNIGHT]) & theirs;
        let mut check_mask = checkers;
        let mut pins = [0u64; 2];
        let snipers = [ROOK_RAYS[king] & their_straight, BISHOP_RAYS[king] & their_diagonal];
        for (pin, snipers) in pins.iter_mut().zip(snipers) {
            for sniper in bits(snipers) {
                let between = BETWEEN[king][square_of(sniper)];
                let blockers = between & occupied;
                if blockers == 0 {
                    checkers |= sniper;
                    check_mask |= between | sniper;
                } else if blockers & (blockers - 1) == 0 && blockers & ours != 0 {
                    *pin |= between | sniper;
                }
            }
        }
        if checkers == 0 {
            check_mask = !0;
        }
        Masks {
            king,
            ours,
            theirs,
            occupied,
            checkers,
            check_mask,
            pin_straight: pins[0],
            pin_diagonal: pins[1],
            their_straight,
            their_diagonal,
        }
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub(super) fn in_check(&self) -> bool {
        self.checkers != 0
    }

    /// Where a move other than the king's must land (every square out of check).
    #[inline(always)]
    pub(super) fn check_mask(&self) -> u64 {
        self.check_mask
    }

    /// The pin lines along ranks and files, and along diagonals.
    #[inline(always)]
    pub(super) fn pins(&self) -> (u64, u64) {
        (self.pin_straight, self.pin_diagonal)
    }

    #[inline(always)]
    pub(super) fn double_check(&self) -> bool {
        self.checkers & self.checkers.wrapping_sub(1) != 0
    }
}

/// Whether the other side attacks `square` with `occupied` as the blockers:
/// the leapers first, a slider lookup only when one of theirs stands on the
/// square's lines.
#[inline(always)]
fn attacked<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks, square: usize, occupied: u64) -> bool {
    let leapers = PAWN_ATTACKS[C::US][square] & node.pieces[PAWN]
        | KNIGHT_ATTACKS[square] & node.pieces[KNIGHT]
        | KING_ATTACKS[square] & node.pieces[KING];
    leapers & masks.theirs != 0 || slider_attacked(sliders, masks, square, occupied)
}

/// Whether one of their sliders attacks `square` through `occupied`; a
/// look-up only when one of them stands on the square's lines.
#[inline(always)]
fn slider_attacked<S: Sliders>(sliders: S, masks: &Masks, square: usize, occupied: u64) -> bool {
    let diagonal = BISHOP_RAYS[square] & masks.their_diagonal;
    if diagonal != 0 && sliders.bishop(square, occupied) & diagonal != 0 {
        return true;
    }
    let straight = ROOK_RAYS[square] & masks.their_straight;
    straight != 0 && sliders.rook(square, occupied) & straight != 0
}

/// The king's safe steps and the rooks of its legal castlings, as sets.
///
/// Castling is king takes rook: every square the king and the rook cross
/// or land on is empty but for the two of them, and no square the king
/// crosses or lands on is attacked once both have left. When a castling's
/// path is clear, everything the other side attacks is taken whole, once,
/// for the steps and the castlings alike. A rook in a corner cannot shield
/// any square of the king's path, so that set serves it; a Chess960 rook
/// elsewhere may, and its path is tested with the rook lifted.
#[inline(always)]
pub(super) fn king_moves<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> (u64, u64) {
    let candidates = KING_ATTACKS[masks.king] & !masks.ours;
    // The king does not shield the square behind it from a slider.
    let occupied = masks.occupied ^ 1u64 << masks.king;
    let rank_base = masks.king & !7;
    let back_rank = (masks.occupied >> rank_base) as u8;
    let king_file = masks.king & 7;
    let mut open = 0u8;
    if masks.checkers == 0 {
        let mut files = node.castling.files(C::COLOR);
        while files != 0 {
            let rook_file = files.trailing_zeros() as usize;
            files &= files - 1;
            if back_rank & CASTLING_PATHS[king_file][rook_file].crossed == 0 {
                open |= 1 << rook_file;
            }
        }
    }
    if open == 0 {
        return (king_steps_among::<S, C>(sliders, node, masks, candidates, occupied), 0);
    }
    let seen = leaper_attacks::<C>(node, masks) | slider_attacks(sliders, masks, occupied);
    let mut rooks = 0;
    while open != 0 {
        let rook_file = open.trailing_zeros() as usize;
        open &= open - 1;
        let tested = CASTLING_PATHS[king_file][rook_file].tested;
        let rook = 1u64 << (rank_base + rook_file);
        let safe = if rook_file == 0 || rook_file == 7 {
            u64::from(tested) << rank_base & seen == 0
        } else {
            let occupied = occupied ^ rook;
            bits(u64::from(tested) << rank_base)
                .all(|square| !attacked::<S, C>(sliders, node, masks, square_of(square), occupied))
        };
        if safe {
            rooks |= rook;
        }
    }
    (candidates & !seen, rooks)
}

/// The king's safe steps, castlings aside.
#[inline(always)]
pub(super) fn king_steps<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> u64 {
    let candidates = KING_ATTACKS[masks.king] & !masks.ours;
    king_steps_among::<S, C>(sliders, node, masks, candidates, masks.occupied ^ 1u64 << masks.king)
}

/// Every square their pawns, knights and king attack.
#[inline(always)]
fn leaper_attacks<C: Side>(node: &Node, masks: &Masks) -> u64 {
    let theirs = masks.theirs;
    let their_pawns = node.pieces[PAWN] & theirs;
    let mut seen = <C::Other as Side>::west(their_pawns)
        | <C::Other as Side>::east(their_pawns)
        | KING_ATTACKS[square_of(node.pieces[KING] & theirs)];
    for knight in bits(node.pieces[KNIGHT] & theirs) {
        seen |= KNIGHT_ATTACKS[square_of(knight)];
    }
    seen
}

/// Every square their sliders attack through `occupied`.
#[inline(always)]
fn slider_attacks<S: Sliders>(sliders: S, masks: &Masks, occupied: u64) -> u64 {
    let mut seen = 0;
    for slider in bits(masks.their_diagonal) {
        seen |= sliders.bishop(square_of(slider), occupied);
    }
    for slider in bits(masks.their_straight) {
        seen |= sliders.rook(square_of(slider), occupied);
    }
    seen
}

/// The king's safe steps among `candidates`, `occupied` without the king.
/// Two or fewer are tested one by one, each stopping at its first attacker.
/// Otherwise the leapers' attacks are taken set-wise, and the sliders'
/// either square by square or, when more squares are left than they have
/// sliders, whole: an exposed king in an endgame has many steps and few
/// enemies, a castled king in a middlegame the other way round.
#[inline(always)]
fn king_steps_among<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    masks: &Masks,
    candidates: u64,
    occupied: u64,
) -> u64 {
    if candidates.count_ones() <= 2 {
        let mut safe = 0;
        for step in bits(candidates) {
            if !attacked::<S, C>(sliders, node, masks, square_of(step), occupied) {
                safe |= step;
            }
        }
        return safe;
    }
    let left = candidates & !leaper_attacks::<C>(node, masks);
    if left.count_ones() > (masks.their_straight | masks.their_diagonal).count_ones() {
        return left & !slider_attacks(sliders, masks, occupied);
    }
    let mut safe = 0;
    for step in bits(left) {
        if !slider_attacked(sliders, masks, square_of(step), occupied) {
            safe |= step;
        }
    }
    safe
}

/// Whether our pawn on `from` may take en passant onto `to`: played out,
/// since the capture empties two squares of one rank and answers a check by
/// the pawn that just moved, and nothing else.
#[inline(always)]
fn en_passant_is_legal<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks, from: u64, to: u64) -> bool {
    let victim = C::behind(to, 8);
    if masks.checkers & !victim & (node.pieces[PAWN] | node.pieces[KNIGHT]) != 0 {
        return false;
    }
    !slider_attacked(sliders, masks, masks.king, masks.occupied ^ from ^ to ^ victim)
}

/// The pawns' destinations, set-wise: pushes of unpinned pawns and of pawns
/// pinned on their file, captures of unpinned pawns and of pawns pinned on
/// the capture's diagonal.
pub(super) struct PawnTargets {
    pub(super) single: u64,
    pub(super) double: u64,
    west: u64,
    east: u64,
}

#[inline(always)]
pub(super) fn pawn_targets<C: Side>(node: &Node, masks: &Masks) -> PawnTargets {
    let pawns = node.pieces[PAWN] & masks.ours;
    let empty = !masks.occupied;
    let pushers = pawns & !masks.pin_diagonal;
    let single_free = C::forward(pushers & !masks.pin_straight) & empty;
    let single_pinned = C::forward(pushers & masks.pin_straight) & empty & masks.pin_straight;
    let double = (C::forward(single_free & C::THIRD_RANK) & empty
        | C::forward(single_pinned & C::THIRD_RANK) & empty & masks.pin_straight)
        & masks.check_mask;
    let single = (single_free | single_pinned) & masks.check_mask;
    let capturers = pawns & !masks.pin_straight;
    let free = capturers & !masks.pin_diagonal;
    let pinned = capturers & masks.pin_diagonal;
    let targets = masks.theirs & masks.check_mask;
    let west = (C::west(free) | C::west(pinned) & masks.pin_diagonal) & targets;
    let east = (C::east(free) | C::east(pinned) & masks.pin_diagonal) & targets;
    PawnTargets { single, double, west, east }
}

/// Our pawns that may take en passant, as a set.
#[inline(always)]
pub(super) fn en_passant_takers<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> u64 {
    if node.en_passant == 0 {
        return 0;
    }
    let candidates = PAWN_ATTACKS[C::THEM][square_of(node.en_passant)] & node.pieces[PAWN] & masks.ours;
    let mut takers = 0;
    for from in bits(candidates) {
        if en_passant_is_legal::<S, C>(sliders, node, masks, from, node.en_passant) {
            takers |= from;
        }
    }
    takers
}

/// The number of legal moves of the node.
#[inline(always)]
pub(super) fn count<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> u64 {
    let (steps, castlings) = king_moves::<S, C>(sliders, node, masks);
    let mut total = steps.count_ones() + castlings.count_ones();
    if masks.double_check() {
        return u64::from(total);
    }
    let movable = !masks.ours & masks.check_mask;
    let (ours, occupied) = (masks.ours, masks.occupied);
    let pinned = masks.pin_straight | masks.pin_diagonal;
    for from in bits(node.pieces[KNIGHT] & ours & !pinned) {
        total += (KNIGHT_ATTACKS[square_of(from)] & movable).count_ones();
    }
    let queens = node.pieces[QUEEN];
    let diagonal = (node.pieces[BISHOP] | queens) & ours & !masks.pin_straight;
    for from in bits(diagonal & !masks.pin_diagonal) {
        total += (sliders.bishop(square_of(from), occupied) & movable).count_ones();
    }
    for from in bits(diagonal & masks.pin_diagonal) {
        total += (sliders.bishop(square_of(from), occupied) & movable & masks.pin_diagonal).count_ones();
    }
    let straight = (node.pieces[ROOK] | queens) & ours & !masks.pin_diagonal;
    for from in bits(straight & !masks.pin_straight) {
        total += (sliders.rook(square_of(from), occupied) & movable).count_ones();
    }
    for from in bits(straight & masks.pin_straight) {
        total += (sliders.rook(square_of(from), occupied) & movable & masks.pin_straight).count_ones();
    }
    total += pawn_count::<C>(node, masks);
    total += en_passant_takers::<S, C>(sliders, node, masks).count_ones();
    u64::from(total)
}

/// The pawns' moves but en passant; a promotion is four moves.
#[inline(always)]
pub(super) fn pawn_count<C: Side>(node: &Node, masks: &Masks) -> u32 {
    let pawns = pawn_targets::<C>(node, masks);
    let promotions = (pawns.single & C::LAST_RANK).count_ones()
        + (pawns.west & C::LAST_RANK).count_ones()
        + (pawns.east & C::LAST_RANK).count_ones();
    pawns.single.count_ones()
        + pawns.double.count_ones()
        + pawns.west.count_ones()
        + pawns.east.count_ones()
        + 3 * promotions
}

/// Calls `visit` with every legal child of the node.
#[inline(always)]
pub(super) fn for_each_child<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    masks: &Masks,
    visit: &mut impl FnMut(&Node),
) {
    for_each_move::<S, C>(sliders, node, masks, &mut |child, _| visit(child));
}

/// A move as [`for_each_move`] describes it to its visitor: a plain move
/// goes from one square to another, taking what stands there or not (a
/// double push is one); a promotion, a castling and en passant are
/// [`Move::OTHER`].
#[derive(Clone, Copy)]
pub(super) struct Move {
    /// The squares left and entered, for a plain move; 0 otherwise.
    pub(super) touched: u64,
    pub(super) to: u64,
    pub(super) piece: usize,
    pub(super) captures: bool,
}

impl Move {
    pub(super) const OTHER: Move = Move { touched: 0, to: 0, piece: KING, captures: false };

    #[inline(always)]
    fn plain(piece: usize, from: u64, to: u64, captures: bool) -> Move {
        Move { touched: from | to, to, piece, captures }
    }
}

/// [`for_each_child`], telling the visitor which plain move made each child.
#[inline(always)]
pub(super) fn for_each_move<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    masks: &Masks,
    visit: &mut impl FnMut(&Node, Move),
) {
    let king = 1u64 << masks.king;
    let (steps, castlings) = king_moves::<S, C>(sliders, node, masks);
    for to in bits(steps) {
        visit(&node.king_moved::<C>(king, to), Move::plain(KING, king, to, to & masks.theirs != 0));
    }
    for rook in bits(castlings) {
        visit(&node.castled::<C>(masks.king, square_of(rook)), Move::OTHER);
    }
    if masks.double_check() {
        return;
    }
    let movable = !masks.ours & masks.check_mask;
    let (ours, occupied) = (masks.ours, masks.occupied);
    let pinned = masks.pin_straight | masks.pin_diagonal;
    // One loop over quiet moves and captures alike: `moved` takes a capture
    // without a branch, and a second loop's exit would cost a misprediction.
    let theirs = masks.theirs;
    let mut piece_moves = |piece: usize, from: u64, targets: u64| {
        for to in bits(targets) {
            visit(&node.moved::<C>(piece, from, to), Move::plain(piece, from, to, to & theirs != 0));
        }
    };
    for from in bits(node.pieces[KNIGHT] & ours & !pinned) {
        piece_moves(KNIGHT, from, KNIGHT_ATTACKS[square_of(from)] & movable);
    }
    for from in bits(node.pieces[BISHOP] & ours & !masks.pin_straight) {
        let restrict = if from & masks.pin_diagonal != 0 { masks.pin_diagonal } else { !0 };
        piece_moves(BISHOP, from, sliders.bishop(square_of(from), occupied) & movable & restrict);
    }
    for from in bits(node.pieces[ROOK] & ours & !masks.pin_diagonal) {
        let restrict = if from & masks.pin_straight != 0 { masks.pin_straight } else { !0 };
        piece_moves(ROOK, from, sliders.rook(square_of(from), occupied) & movable & restrict);
    }
    for from in bits(node.pieces[QUEEN] & ours) {
        let square = square_of(from);
        let targets = if from & masks.pin_diagonal != 0 {
            sliders.bishop(square, occupied) & masks.pin_diagonal
        } else if from & masks.pin_straight != 0 {
            sliders.rook(square, occupied) & masks.pin_straight
        } else {
            sliders.bishop(square, occupied) | sliders.rook(square, occupied)
        };
        piece_moves(QUEEN, from, targets & movable);
    }

    let pawns = pawn_targets::<C>(node, masks);
    for to in bits(pawns.single & !C::LAST_RANK) {
        let from = C::behind(to, 8);
        visit(&node.moved_quietly::<C>(PAWN, from, to), Move::plain(PAWN, from, to, false));
    }
    for to in bits(pawns.double) {
        let from = C::behind(to, 16);
        visit(&node.double_pushed::<C>(from, to), Move::plain(PAWN, from, to, false));
    }
    for (targets, distance) in [(pawns.west, C::WEST), (pawns.east, C::EAST)] {
        for to in bits(targets & !C::LAST_RANK) {
            let from = C::behind(to, distance);
            visit(&node.moved::<C>(PAWN, from, to), Move::plain(PAWN, from, to, true));
        }
    }
    for (targets, distance) in
        [(pawns.single, 8), (pawns.west, C::WEST), (pawns.east, C::EAST)].map(|(set, at)| (set & C::LAST_RANK, at))
    {
        for to in bits(targets) {
            let from = C::behind(to, distance);
            for piece in [QUEEN, ROOK, BISHOP, KNIGHT] {
                visit(&node.promoted::<C>(from, to, piece), Move::OTHER);
            }
        }
    }
    for from in bits(en_passant_takers::<S, C>(sliders, node, masks)) {
        visit(&node.captured_en_passant::<C>(from, node.en_passant), Move::OTHER);
    }
}
