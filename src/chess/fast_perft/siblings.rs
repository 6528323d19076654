//! Leaf parents counted from what their parent already knows.
//!
//! The children of a node two plies above the leaves are leaf parents:
//! each is counted by popcount. Siblings differ by one move, and most of
//! what a leaf parent's count needs is the same for all of them. So the
//! parent looks at itself once from the other side, as if that side were to
//! move ([`Siblings::with`]). A child made by a plain move (one piece from one
//! square to another, capturing or not; a double push too) then starts from
//! that view ([`Siblings::count`]) when the move leaves and enters no square
//! of a line from that side's king that one of our sliders watches, and
//! lands where its piece neither checks that king nor may pin to it
//! ([`Siblings::covers`]):
//!
//! - the leaf parent is not in check, and its pins are the parent's;
//! - its knights' moves are the parent's unless the move captured;
//! - a slider's moves change only if the move left or entered its own
//!   square or one it reaches, and only those sliders are looked up again;
//! - its king's steps and castlings are the parent's unless the move
//!   touched a square from which one of them could be attacked or blocked;
//! - its pawns' moves are the parent's unless the move touched a pawn, a
//!   square ahead of one, or a square one captures on.
//!
//! Any other child (a promotion, a castling, en passant, a move near the
//! king) is counted whole. tests/fast_perft.rs holds the two equal on
//! thousands of parents.

use super::generate::{Masks, Move, en_passant_takers, king_moves, king_steps, pawn_count};
use super::node::{BISHOP, KING, KNIGHT, Node, PAWN, QUEEN, ROOK, Side, bits, square_of};
use super::sliders::Sliders;
use crate::chess::board::castling::CASTLING_PATHS;
use crate::chess::tables::{KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, RAY_DIRECTIONS, RAYS};

/// The most sliders of one kind of move a view keeps; a side with more
/// (after many promotions) has its leaf parents counted whole.
const MOST_SLIDERS: usize = 5;

/// One slider of the side to move at the leaf parents.
#[derive(Clone, Copy, Default)]
struct Slider {
    square: u32,
    /// Its square and every square it reaches in the parent, its own
    /// pieces' included: a change on none of them leaves its moves as they were.
    watched: u64,
    /// Where its pin lets it go (every square when it is not pinned).
    restrict: u64,
    moves: u32,
}

impl Slider {
    /// The slider on `from`, which `reach` looks up from a square; `pin`
    /// is the pin lines of its kind, `ours` its side's pieces.
    #[inline(always)]
    fn of(from: u64, pin: u64, ours: u64, reach: impl Fn(usize) -> u64) -> Slider {
        let restrict = if from & pin != 0 { pin } else { !0 };
        let square = square_of(from);
        let reached = reach(square);
        let moves = (reached & !ours & restrict).count_ones();
        Slider { square: square as u32, watched: reached | from, restrict, moves }
    }

    /// `total`, which counts this slider's moves in the parent, with them
    /// counted again in the child when `made` touched a square it watches:
    /// none when `made` captured it.
    #[inline(always)]
    fn recount(&self, total: u32, made: Move, ours: u64, reach: impl Fn(usize) -> u64) -> u32 {
        if self.watched & made.touched == 0 {
            return total;
        }
        let square = self.square as usize & 63;
        let moves = if 1u64 << square == made.to { 0 } else { (reach(square) & !ours & self.restrict).count_ones() };
        total - self.moves + moves
    }
}

/// The parent seen by the side to move at its children (type `C`).
pub(super) struct Siblings {
    masks: Masks,
    /// The lines from that side's king, each as far as its second piece,
    /// that have a slider of the other side somewhere along them: a move
    /// that leaves or enters none of them, and lands where its own piece
    /// neither checks nor pins ([`Siblings::landing`]), changes no check and no pin.
    exposed: u64,
    /// Per piece, the squares where it would check that king or may pin a
    /// piece to it: the leapers' checks, and a slider's lines of its own
    /// kind as far as their second piece.
    landing: [u64; 6],
    /// The rooks of the king's legal castlings in the parent, and the squares
    /// whose change may change them: every square a castling crosses, the
    /// castling rooks' own, and every square from which a piece could attack
    /// one the king crosses.
    castlings: u64,
    castling_region: u64,
    /// The king's safe steps in the parent, and the squares whose change may
    /// change them: the king's neighbours, and every square from which a
    /// piece could attack one.
    steps: u64,
    steps_region: u64,
    knight_moves: u32,
    /// The pawns' moves in the parent (en passant aside), and every square
    /// whose change may change them: the pawns' own, the one or two ahead
    /// of each, and those they capture on.
    pawn_moves: u32,
    pawn_region: u64,
    slider_moves: u32,
    /// Every square some slider watches.
    watched: u64,
    diagonal: [Slider; MOST_SLIDERS],
    diagonal_count: usize,
    straight: [Slider; MOST_SLIDERS],
    straight_count: usize,
}

impl Siblings {
    /// Calls `then` with the view of `parent`, whose side to move is
    /// `C::Other`, and returns what it returns; `None` when the side `C` is
    /// in check there (an impossible position) or has more sliders than a
    /// view keeps. (A continuation, not a return value: the view is a few
    /// hundred bytes, and returning it cost a copy per node.)
    #[inline(always)]
    pub(super) fn with<S: Sliders, C: Side, R>(
        sliders: S,
        parent: &Node,
        then: impl FnOnce(&Siblings) -> R,
    ) -> Option<R> {
        let masks = Masks::new::<S, C>(parent);
        if masks.checkers != 0 {
            return None;
        }
        let (ours, occupied) = (masks.ours, masks.occupied);
        let queens = parent.pieces[QUEEN];
        let diagonal_movers = (parent.pieces[BISHOP] | queens) & ours & !masks.pin_straight;
        let straight_movers = (parent.pieces[ROOK] | queens) & ours & !masks.pin_diagonal;
        if diagonal_movers.count_ones() as usize > MOST_SLIDERS || straight_movers.count_ones() as usize > MOST_SLIDERS
        {
            return None;
        }
        // A pin or a check needs the king, at most one piece and the
        // slider, so squares past a line's second piece cannot make or
        // break one, nor can any square of a line without one of their sliders.
        let king = masks.king;
        let first = (sliders.rook(king, occupied) | sliders.bishop(king, occupied)) & occupied;
        let straight_lines = sliders.rook(king, occupied ^ first);
        let diagonal_lines = sliders.bishop(king, occupied ^ first);
        let mut exposed = 0;
        for (direction, rays) in RAYS.iter().enumerate() {
            let ray = rays[king];
            // Directions 0, 1, 4 and 5 run along ranks and files.
            let (lines, snipers) = if direction & 2 == 0 {
                (straight_lines, masks.their_straight)
            } else {
                (diagonal_lines, masks.their_diagonal)
            };
            if ray & snipers != 0 {
                exposed |= ray & lines;
            }
        }
        let (castlings, castling_region) = castlings::<S, C>(sliders, parent, &masks);
        let (steps, steps_region) = steps::<S, C>(sliders, parent, &masks);
        let mut view = Siblings {
            masks,
            exposed,
            landing: [
                PAWN_ATTACKS[C::US][king],
                KNIGHT_ATTACKS[king],
                diagonal_lines,
                straight_lines,
                diagonal_lines | straight_lines,
                0,
            ],
            castlings,
            castling_region,
            steps,
            steps_region,
            knight_moves: knight_moves(parent, &masks, ours),
            pawn_moves: pawn_count::<C>(parent, &masks),
            pawn_region: pawn_region::<C>(parent.pieces[PAWN] & ours),
            slider_moves: 0,
            watched: 0,
            diagonal: [Slider::default(); MOST_SLIDERS],
            diagonal_count: 0,
            straight: [Slider::default(); MOST_SLIDERS],
            straight_count: 0,
        };
        for from in bits(diagonal_movers) {
            let slider = Slider::of(from, masks.pin_diagonal, ours, |square| sliders.bishop(square, occupied));
            view.keep(slider);
            view.diagonal[view.diagonal_count] = slider;
            view.diagonal_count += 1;
        }
        for from in bits(straight_movers) {
            let slider = Slider::of(from, masks.pin_straight, ours, |square| sliders.rook(square, occupied));
            view.keep(slider);
            view.straight[view.straight_count] = slider;
            view.straight_count += 1;
        }
        Some(then(&view))
    }

    /// Adds a slider's moves and the squares it watches to the view's totals.
    #[inline(always)]
    fn keep(&mut self, slider: Slider) {
        self.slider_moves += slider.moves;
        self.watched |= slider.watched;
    }

    /// Whether the child `made` made can be counted from this view.
    #[inline(always)]
    pub(super) fn covers(&self, made: Move) -> bool {
        made.touched != 0 && made.touched & self.exposed == 0 && made.to & self.landing[made.piece] == 0
    }

    /// The legal moves of `child`, which a move this view [covers](Siblings::covers) made.
    #[inline(always)]
    pub(super) fn count<S: Sliders, C: Side>(&self, sliders: S, child: &Node, made: Move) -> u64 {
        let mut masks = self.masks;
        let ours = child.colors[C::US];
        let theirs = child.colors[C::THEM];
        let queens = child.pieces[QUEEN];
        masks.ours = ours;
        masks.theirs = theirs;
        masks.occupied = ours | theirs;
        masks.their_straight = (child.pieces[ROOK] | queens) & theirs;
        masks.their_diagonal = (child.pieces[BISHOP] | queens) & theirs;
        let masks = &masks;
        let (steps, castlings) = if made.touched & self.castling_region != 0 {
            king_moves::<S, C>(sliders, child, masks)
        } else if made.touched & self.steps_region != 0 {
            (king_steps::<S, C>(sliders, child, masks), self.castlings)
        } else {
            (self.steps, self.castlings)
        };
        // A capture frees its square for every piece that reached it.
        let knights = if made.captures { knight_moves(child, masks, ours) } else { self.knight_moves };
        let mut total = steps.count_ones() + castlings.count_ones() + knights + self.slider_moves;
        if made.touched & self.watched != 0 {
            let occupied = masks.occupied;
            for slider in &self.diagonal[..self.diagonal_count] {
                total = slider.recount(total, made, ours, |square| sliders.bishop(square, occupied));
            }
            for slider in &self.straight[..self.straight_count] {
                total = slider.recount(total, made, ours, |square| sliders.rook(square, occupied));
            }
        }
        total += if made.touched & self.pawn_region == 0 { self.pawn_moves } else { pawn_count::<C>(child, masks) };
        // After a double push.
        if child.en_passant != 0 {
            total += en_passant_takers::<S, C>(sliders, child, masks).count_ones();
        }
        u64::from(total)
    }
}

/// The squares whose change may change the moves of `pawns` (the side
/// `C`'s): their own, the one or two ahead of each, and those they capture on.
#[inline(always)]
fn pawn_region<C: Side>(pawns: u64) -> u64 {
    let ahead = C::forward(pawns);
    pawns | ahead | C::forward(ahead) | C::west(pawns) | C::east(pawns)
}

/// The moves of the unpinned knights of `node` (which `masks` sees).
#[inline(always)]
fn knight_moves(node: &Node, masks: &Masks, ours: u64) -> u32 {
    let pinned = masks.pin_straight | masks.pin_diagonal;
    let mut moves = 0;
    for from in bits(node.pieces[KNIGHT] & ours & !pinned) {
        moves += (KNIGHT_ATTACKS[square_of(from)] & !ours).count_ones();
    }
    moves
}

/// Every square from which a piece could attack `square`, the lines seen
/// through `occupied`.
#[inline(always)]
fn attack_sources<S: Sliders, C: Side>(sliders: S, square: usize, occupied: u64) -> u64 {
    sliders.rook(square, occupied)
        | sliders.bishop(square, occupied)
        | KNIGHT_ATTACKS[square]
        | KING_ATTACKS[square]
        | PAWN_ATTACKS[C::US][square]
}

/// The king's safe steps, and the squares whose change may change them
/// ([`Siblings::steps`]).
#[inline(always)]
fn steps<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> (u64, u64) {
    let neighbours = KING_ATTACKS[masks.king];
    // Without the king: it does not shield the square behind it.
    let occupied = masks.occupied ^ 1u64 << masks.king;
    let candidates = neighbours & !masks.ours;
    // An open king's many steps would cost more look-ups here than the
    // children would save: those children test the steps themselves.
    if candidates.count_ones() > 3 {
        return (0, !0);
    }
    let mut region = neighbours;
    for square in bits(candidates) {
        region |= attack_sources::<S, C>(sliders, square_of(square), occupied);
    }
    (king_steps::<S, C>(sliders, node, masks), region)
}

/// The rooks of the king's legal castlings, and the squares whose change may
/// change them ([`Siblings::castlings`]).
#[inline(always)]
fn castlings<S: Sliders, C: Side>(sliders: S, node: &Node, masks: &Masks) -> (u64, u64) {
    let files = node.castling.files(C::COLOR);
    if files == 0 {
        return (0, 0);
    }
    let (_, rooks) = king_moves::<S, C>(sliders, node, masks);
    let rank_base = masks.king & !7;
    let king_file = masks.king & 7;
    // Without the king and the castling rooks, the lines reach at least as
    // far as any test of the king's path looks.
    let mut lifted = masks.occupied ^ 1u64 << masks.king;
    let mut region = 0;
    for rook_file in bits(u64::from(files)) {
        let rook_file = square_of(rook_file);
        let rook = 1u64 << (rank_base + rook_file);
        lifted &= !rook;
        region |= rook | u64::from(CASTLING_PATHS[king_file][rook_file].crossed) << rank_base;
    }
    for rook_file in bits(u64::from(files)) {
        let tested = u64::from(CASTLING_PATHS[king_file][square_of(rook_file)].tested) << rank_base;
        for square in bits(tested) {
            let square = square_of(square);
            region |= attack_sources::<S, C>(sliders, square, lifted);
        }
    }
    (rooks, region)
}

// `landing` is indexed by piece, and the direction test by the order of RAYS.
const _: () = assert!(PAWN == 0 && KNIGHT == 1 && BISHOP == 2 && ROOK == 3 && QUEEN == 4 && KING == 5);
const _: () = {
    let mut direction = 0;
    while direction < 8 {
        let (file_step, rank_step) = RAY_DIRECTIONS[direction];
        assert!((direction & 2 == 0) == (file_step == 0 || rank_step == 0));
        direction += 1;
    }
};
