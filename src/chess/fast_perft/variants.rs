//! The fast engine for the chess variants whose moves are chess's, or
//! simpler: king of the hill and three-check (chess's legal moves, and a game
//! that ends on the hill or at the third check), racing kings (chess's legal
//! moves less those that give check) and antichess (every piece's moves, no
//! king safety, captures compulsory). The same compact node, side to move as
//! a type and slider look-ups as standard chess; `crate::chess::variant`
//! holds these equal to its general rules, which python-chess holds exact.

use super::generate::{Masks, count, for_each_child, pawn_targets};
use super::node::{BISHOP, Black, KING, KNIGHT, Node, PAWN, QUEEN, ROOK, Side, White, bits, square_of};
use super::sliders::{self, Sliders};
use crate::chess::board::castling::CASTLING_PATHS;
use crate::chess::board::{CastlingSide, Color};
use crate::chess::position::Position;
use crate::chess::tables::{BETWEEN, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS};

/// d4, e4, d5 and e5.
const HILL: u64 = 0x0000_0018_1800_0000;
const RANK_8: u64 = 0xff00_0000_0000_0000;

/// Which variant a count follows, with what it carries from node to node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastVariant {
    /// King of the hill.
    KingOfTheHill,
    /// Three-check, with the checks each side still needs (white, black).
    ThreeCheck([u8; 2]),
    /// Racing kings.
    RacingKings,
    /// Antichess.
    Antichess,
    /// Atomic.
    Atomic,
    /// Horde.
    Horde,
}

/// Leaf nodes `depth` plies below `position` in `variant`, on the calling
/// thread. The caller has checked that the game has not already ended at
/// the root by the variant's rule.
pub fn perft(position: &Position, variant: FastVariant, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let node = Node::of(position);
    let white = position.side_to_move() == Color::White;
    #[cfg(target_arch = "x86_64")]
    if super::SliderLookup::selected() == super::SliderLookup::Pext
        && let Some(pext) = sliders::Pext::detect()
    {
        // SAFETY: `Pext::detect` found BMI2, the one feature beyond the
        // build's baseline that the `_pext` functions are compiled for.
        return unsafe {
            if white {
                pext_entry::<White>(pext, &node, variant, depth)
            } else {
                pext_entry::<Black>(pext, &node, variant, depth)
            }
        };
    }
    if white {
        entry::<_, White>(sliders::Magic, &node, variant, depth)
    } else {
        entry::<_, Black>(sliders::Magic, &node, variant, depth)
    }
}

#[inline(always)]
fn entry<S: Sliders, C: Side>(sliders: S, node: &Node, variant: FastVariant, depth: u32) -> u64 {
    match variant {
        FastVariant::KingOfTheHill => hill::<S, C>(sliders, node, depth),
        FastVariant::ThreeCheck(remaining) => {
            // The root's own check is already in its counters.
            let masks = Masks::new::<S, C>(node);
            three_check_below::<S, C>(sliders, node, &masks, remaining, depth)
        }
        FastVariant::RacingKings => racing::<S, C>(sliders, node, depth),
        FastVariant::Antichess => antichess::<S, C>(sliders, node, depth),
        FastVariant::Atomic => atomic::<S, C>(sliders, node, depth),
        FastVariant::Horde => horde::<S, C>(sliders, node, depth),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
unsafe fn pext_entry<C: Side>(sliders: sliders::Pext, node: &Node, variant: FastVariant, depth: u32) -> u64 {
    entry::<_, C>(sliders, node, variant, depth)
}

/// King of the hill: a king on the hill has ended the game.
fn hill<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    if node.pieces[KING] & HILL != 0 {
        return 0;
    }
    let masks = Masks::new::<S, C>(node);
    if depth == 1 {
        return count::<S, C>(sliders, node, &masks);
    }
    let mut nodes = 0;
    for_each_child::<S, C>(sliders, node, &masks, &mut |child| nodes += hill::<S, C::Other>(sliders, child, depth - 1));
    nodes
}

/// Three-check below a node whose counters are settled: each child that
/// stands in check has cost its mover one of the checks it needs.
#[inline(always)]
fn three_check_below<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    masks: &Masks,
    remaining: [u8; 2],
    depth: u32,
) -> u64 {
    if remaining.contains(&0) {
        return 0;
    }
    if depth == 1 {
        return count::<S, C>(sliders, node, masks);
    }
    let mut nodes = 0;
    for_each_child::<S, C>(sliders, node, masks, &mut |child| {
        nodes += three_check::<S, C::Other>(sliders, child, remaining, depth - 1);
    });
    nodes
}

fn three_check<S: Sliders, C: Side>(sliders: S, node: &Node, mut remaining: [u8; 2], depth: u32) -> u64 {
    let masks = Masks::new::<S, C>(node);
    if masks.in_check() {
        remaining[C::THEM] = remaining[C::THEM].saturating_sub(1);
    }
    three_check_below::<S, C>(sliders, node, &masks, remaining, depth)
}

/// Whether `color`'s pieces attack `square` with the board's own blockers.
#[inline(always)]
fn attacked_by<S: Sliders>(sliders: S, node: &Node, color: usize, square: usize) -> bool {
    attacked_through(sliders, node, color, square, node.colors[0] | node.colors[1])
}

/// Whether `color`'s pieces attack `square` with `occupied` as the blockers.
#[inline(always)]
fn attacked_through<S: Sliders>(sliders: S, node: &Node, color: usize, square: usize, occupied: u64) -> bool {
    let theirs = node.colors[color];
    let leapers = PAWN_ATTACKS[1 - color][square] & node.pieces[PAWN]
        | KNIGHT_ATTACKS[square] & node.pieces[KNIGHT]
        | KING_ATTACKS[square] & node.pieces[KING];
    if leapers & theirs != 0 {
        return true;
    }
    let queens = node.pieces[QUEEN];
    sliders.bishop(square, occupied) & (node.pieces[BISHOP] | queens) & theirs != 0
        || sliders.rook(square, occupied) & (node.pieces[ROOK] | queens) & theirs != 0
}

/// The squares a bishop, rook or queen on `square` reaches through `occupied`.
#[inline(always)]
fn slider_reach<S: Sliders>(sliders: S, piece: usize, square: usize, occupied: u64) -> u64 {
    match piece {
        BISHOP => sliders.bishop(square, occupied),
        ROOK => sliders.rook(square, occupied),
        _ => sliders.bishop(square, occupied) | sliders.rook(square, occupied),
    }
}

/// Racing kings' end, with `C` to move: a king on the eighth rank, unless
/// white's alone is there and black, to move, has a free and safe square
/// of the eighth rank next to its king to draw level.
#[inline(always)]
fn racing_ended<S: Sliders, C: Side>(sliders: S, node: &Node) -> bool {
    if node.pieces[KING] & RANK_8 == 0 {
        return false;
    }
    let black_king = node.pieces[KING] & node.colors[1];
    if black_king == 0 || C::US == 0 || black_king & RANK_8 != 0 {
        return true;
    }
    let targets = KING_ATTACKS[square_of(black_king)] & RANK_8 & !node.colors[1];
    bits(targets).all(|target| attacked_by(sliders, node, 0, square_of(target)))
}

/// Racing kings: chess's legal moves but those that check the other king.
fn racing<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    if racing_ended::<S, C>(sliders, node) {
        return 0;
    }
    let masks = Masks::new::<S, C>(node);
    let mut nodes = 0;
    for_each_child::<S, C>(sliders, node, &masks, &mut |child| {
        let their_king = child.pieces[KING] & child.colors[C::THEM];
        if attacked_by(sliders, child, C::US, square_of(their_king)) {
            return;
        }
        nodes += if depth == 1 { 1 } else { racing::<S, C::Other>(sliders, child, depth - 1) };
    });
    nodes
}

/// Every pseudo-legal move of an antichess node, as sets: what each piece
/// reaches, captures apart when there are any.
struct AntichessMoves {
    /// Whether any capture exists (then only captures are legal).
    captures: bool,
    /// The squares moves may land on: their pieces when capturing, else the empty squares.
    targets: u64,
}

#[inline(always)]
fn antichess_moves<S: Sliders, C: Side>(sliders: S, node: &Node) -> AntichessMoves {
    let ours = node.colors[C::US];
    let theirs = node.colors[C::THEM];
    let occupied = ours | theirs;
    let pawns = node.pieces[PAWN] & ours;
    let mut reach = C::west(pawns) | C::east(pawns);
    if reach & theirs != 0 || node.en_passant != 0 && reach & node.en_passant != 0 {
        return AntichessMoves { captures: true, targets: theirs };
    }
    for from in bits(node.pieces[KNIGHT] & ours) {
        reach |= KNIGHT_ATTACKS[square_of(from)];
    }
    for from in bits(node.pieces[KING] & ours) {
        reach |= KING_ATTACKS[square_of(from)];
    }
    let queens = node.pieces[QUEEN];
    for from in bits((node.pieces[BISHOP] | queens) & ours) {
        reach |= sliders.bishop(square_of(from), occupied);
    }
    for from in bits((node.pieces[ROOK] | queens) & ours) {
        reach |= sliders.rook(square_of(from), occupied);
    }
    if reach & theirs != 0 {
        AntichessMoves { captures: true, targets: theirs }
    } else {
        AntichessMoves { captures: false, targets: !occupied }
    }
}

/// The pieces a pawn may become in antichess: the king too.
const ANTICHESS_PROMOTIONS: [usize; 5] = [QUEEN, ROOK, BISHOP, KNIGHT, KING];

/// Antichess: captures compulsory, no check, a side without pieces has won.
fn antichess<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    if node.colors[C::US] == 0 || node.colors[C::THEM] == 0 {
        return 0;
    }
    let AntichessMoves { captures, targets } = antichess_moves::<S, C>(sliders, node);
    let rules = PseudoRules { captures_only: captures, promotions: &ANTICHESS_PROMOTIONS, first_rank_double: false };
    pseudo_legal::<S, C>(sliders, node, depth, targets, rules, &mut |child| {
        antichess::<S, C::Other>(sliders, child, depth - 1)
    })
}

/// Horde: white has no king, so every move of its pieces is legal, and its
/// pawns on the first rank may move two squares (without an en passant
/// square); black moves as in chess. A side without pieces has lost.
fn horde<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    if node.colors[0] == 0 || node.colors[1] == 0 {
        return 0;
    }
    if C::US == 0 {
        let rules = PseudoRules { captures_only: false, promotions: &CHESS_PROMOTIONS, first_rank_double: true };
        return pseudo_legal::<S, C>(sliders, node, depth, !node.colors[C::US], rules, &mut |child| {
            horde::<S, C::Other>(sliders, child, depth - 1)
        });
    }
    let masks = Masks::new::<S, C>(node);
    if depth == 1 {
        return count::<S, C>(sliders, node, &masks);
    }
    let mut nodes = 0;
    for_each_child::<S, C>(sliders, node, &masks, &mut |child| {
        nodes += horde::<S, C::Other>(sliders, child, depth - 1)
    });
    nodes
}

/// Chess's promotions.
const CHESS_PROMOTIONS: [usize; 4] = [QUEEN, ROOK, BISHOP, KNIGHT];

/// How [`pseudo_legal`] generates a side's moves.
#[derive(Clone, Copy)]
struct PseudoRules {
    /// Only captures (antichess, when there is one).
    captures_only: bool,
    /// What a pawn may become.
    promotions: &'static [usize],
    /// Pawns on the first rank may move two squares (a horde's white).
    first_rank_double: bool,
}

/// Every move of a side with no king to keep safe, each landing on
/// `targets` (pawn pushes on empty squares), counted by sets at the last
/// ply, else each child handed to `below`.
#[inline(always)]
fn pseudo_legal<S: Sliders, C: Side>(
    sliders: S,
    node: &Node,
    depth: u32,
    targets: u64,
    rules: PseudoRules,
    below: &mut dyn FnMut(&Node) -> u64,
) -> u64 {
    let ours = node.colors[C::US];
    let theirs = node.colors[C::THEM];
    let occupied = ours | theirs;
    let pawns = node.pieces[PAWN] & ours;
    let (single, double, west, east) = if rules.captures_only {
        (0, 0, C::west(pawns) & theirs, C::east(pawns) & theirs)
    } else {
        let single = C::forward(pawns) & !occupied;
        (single, C::forward(single & C::THIRD_RANK) & !occupied, C::west(pawns) & theirs, C::east(pawns) & theirs)
    };
    // From the first rank: two squares up, through an empty second rank.
    let first_rank_double = if rules.first_rank_double && !rules.captures_only {
        C::forward(C::forward(pawns & C::FIRST_RANK) & !occupied) & !occupied
    } else {
        0
    };
    let en_passant = if node.en_passant != 0 { PAWN_ATTACKS[C::THEM][square_of(node.en_passant)] & pawns } else { 0 };
    let queens = node.pieces[QUEEN];
    let choices = rules.promotions.len() as u32;
    if depth == 1 {
        let mut total = 0;
        for from in bits(node.pieces[KNIGHT] & ours) {
            total += (KNIGHT_ATTACKS[square_of(from)] & targets).count_ones();
        }
        for from in bits(node.pieces[KING] & ours) {
            total += (KING_ATTACKS[square_of(from)] & targets).count_ones();
        }
        for from in bits((node.pieces[BISHOP] | queens) & ours) {
            total += (sliders.bishop(square_of(from), occupied) & targets).count_ones();
        }
        for from in bits((node.pieces[ROOK] | queens) & ours) {
            total += (sliders.rook(square_of(from), occupied) & targets).count_ones();
        }
        // Each set apart: two pawns may take on one square.
        for set in [single, west, east] {
            total += (set & !C::LAST_RANK).count_ones() + choices * (set & C::LAST_RANK).count_ones();
        }
        total += double.count_ones() + first_rank_double.count_ones() + en_passant.count_ones();
        return u64::from(total);
    }
    let mut nodes = 0;
    for (piece, set) in [(KNIGHT, node.pieces[KNIGHT]), (KING, node.pieces[KING])] {
        for from in bits(set & ours) {
            let steps = if piece == KNIGHT { KNIGHT_ATTACKS[square_of(from)] } else { KING_ATTACKS[square_of(from)] };
            for to in bits(steps & targets) {
                nodes += below(&node.moved::<C>(piece, from, to));
            }
        }
    }
    for piece in [BISHOP, ROOK, QUEEN] {
        for from in bits(node.pieces[piece] & ours) {
            let square = square_of(from);
            let reach = slider_reach(sliders, piece, square, occupied);
            for to in bits(reach & targets) {
                nodes += below(&node.moved::<C>(piece, from, to));
            }
        }
    }
    for (set, distance) in [(single, 8), (west, C::WEST), (east, C::EAST)] {
        for to in bits(set) {
            let from = C::behind(to, distance);
            if to & C::LAST_RANK != 0 {
                for &piece in rules.promotions {
                    nodes += below(&node.promoted::<C>(from, to, piece));
                }
            } else {
                nodes += below(&node.moved::<C>(PAWN, from, to));
            }
        }
    }
    for to in bits(double) {
        nodes += below(&node.double_pushed::<C>(C::behind(to, 16), to));
    }
    for to in bits(first_rank_double) {
        nodes += below(&node.moved_quietly::<C>(PAWN, C::behind(to, 16), to));
    }
    for from in bits(en_passant) {
        nodes += below(&node.captured_en_passant::<C>(from, node.en_passant));
    }
    nodes
}

/// Atomic: a capture explodes the capturer and every piece but pawns next
/// to the capture square; kings never capture; a move may not explode its
/// own king, and leaves it unchecked unless it explodes the other king or
/// the kings touch (a king next to the other is never in check).
///
/// Quiet moves of pieces other than the king follow chess's check and pin
/// masks, which count only pawns, knights and sliders as attackers, as
/// atomic does (kings never capture), and when the kings touch every one of
/// them is legal. King steps, captures and castlings are played and tested.
fn atomic<S: Sliders, C: Side>(sliders: S, node: &Node, depth: u32) -> u64 {
    let ours = node.colors[C::US];
    let theirs = node.colors[C::THEM];
    let our_king = node.pieces[KING] & ours;
    let their_king = node.pieces[KING] & theirs;
    if our_king == 0 || their_king == 0 {
        return 0;
    }
    let occupied = ours | theirs;
    let empty = !occupied;
    let king_square = square_of(our_king);
    let touching = KING_ATTACKS[king_square] & their_king != 0;
    let masks = Masks::new::<S, C>(node);
    let mut nodes = 0u64;
    let mut visit = |child: &Node| {
        nodes += if depth == 1 { 1 } else { atomic::<S, C::Other>(sliders, child, depth - 1) };
    };

    // Quiet moves of the other pieces: counted by sets at the last ply.
    let (check_mask, pin_straight, pin_diagonal) = if touching {
        (!0, 0, 0)
    } else if masks.double_check() {
        (0, 0, 0)
    } else {
        let (straight, diagonal) = masks.pins();
        (masks.check_mask(), straight, diagonal)
    };
    let quiet = empty & check_mask;
    let pinned = pin_straight | pin_diagonal;
    let piece_quiet = |piece: usize, from: u64, targets: u64, visit: &mut dyn FnMut(&Node)| -> u32 {
        if depth == 1 {
            return targets.count_ones();
        }
        for to in bits(targets) {
            visit(&node.moved_quietly::<C>(piece, from, to));
        }
        0
    };
    let mut counted = 0u32;
    for from in bits(node.pieces[KNIGHT] & ours & !pinned) {
        counted += piece_quiet(KNIGHT, from, KNIGHT_ATTACKS[square_of(from)] & quiet, &mut visit);
    }
    for piece in [BISHOP, ROOK, QUEEN] {
        for from in bits(node.pieces[piece] & ours) {
            let square = square_of(from);
            let reach = if from & pin_diagonal != 0 {
                if piece == ROOK { 0 } else { sliders.bishop(square, occupied) & pin_diagonal }
            } else if from & pin_straight != 0 {
                if piece == BISHOP { 0 } else { sliders.rook(square, occupied) & pin_straight }
            } else {
                slider_reach(sliders, piece, square, occupied)
            };
            counted += piece_quiet(piece, from, reach & quiet, &mut visit);
        }
    }
    let (single, double) = if touching {
        let pawns = node.pieces[PAWN] & ours;
        let single = C::forward(pawns) & empty;
        (single, C::forward(single & C::THIRD_RANK) & empty)
    } else if check_mask == 0 {
        (0, 0)
    } else {
        let targets = pawn_targets::<C>(node, &masks);
        (targets.single, targets.double)
    };
    if depth == 1 {
        counted += (single & !C::LAST_RANK).count_ones() + 4 * (single & C::LAST_RANK).count_ones();
        counted += double.count_ones();
    } else {
        for to in bits(single) {
            let from = C::behind(to, 8);
            if to & C::LAST_RANK != 0 {
                for piece in [QUEEN, ROOK, BISHOP, KNIGHT] {
                    visit(&node.promoted::<C>(from, to, piece));
                }
            } else {
                visit(&node.moved_quietly::<C>(PAWN, from, to));
            }
        }
        for to in bits(double) {
            visit(&node.double_pushed::<C>(C::behind(to, 16), to));
        }
    }

    // King steps onto empty squares: safe, or next to the other king.
    let their_king_square = square_of(their_king);
    let near_their_king = KING_ATTACKS[their_king_square];
    for to in bits(KING_ATTACKS[king_square] & empty) {
        let child = node.king_moved::<C>(our_king, to);
        if to & near_their_king != 0 || !attacked_by(sliders, &child, C::THEM, square_of(to)) {
            visit(&child);
        }
    }

    // Captures by every piece but the king, each exploded and tested.
    let mut capture = |mut child: Node, to: u64, times: u32| {
        let after = child.colors[0] | child.colors[1];
        let blast = (KING_ATTACKS[square_of(to)] & after & !child.pieces[PAWN]) | to;
        if blast & our_king != 0 {
            return;
        }
        for set in &mut child.pieces {
            *set &= !blast;
        }
        child.colors[0] &= !blast;
        child.colors[1] &= !blast;
        child.castling = child.castling.without_squares(blast);
        if blast & their_king == 0 && !touching && attacked_by(sliders, &child, C::THEM, king_square) {
            return;
        }
        for _ in 0..times {
            visit(&child);
        }
    };
    for from in bits(node.pieces[KNIGHT] & ours) {
        for to in bits(KNIGHT_ATTACKS[square_of(from)] & theirs) {
            capture(node.moved::<C>(KNIGHT, from, to), to, 1);
        }
    }
    for piece in [BISHOP, ROOK, QUEEN] {
        for from in bits(node.pieces[piece] & ours) {
            let square = square_of(from);
            let reach = slider_reach(sliders, piece, square, occupied);
            for to in bits(reach & theirs) {
                capture(node.moved::<C>(piece, from, to), to, 1);
            }
        }
    }
    let pawns = node.pieces[PAWN] & ours;
    for (set, distance) in [(C::west(pawns) & theirs, C::WEST), (C::east(pawns) & theirs, C::EAST)] {
        for to in bits(set) {
            let from = C::behind(to, distance);
            // The four promotions explode alike: four moves, one board.
            let times = if to & C::LAST_RANK != 0 { 4 } else { 1 };
            capture(node.moved::<C>(PAWN, from, to), to, times);
        }
    }
    if node.en_passant != 0 {
        for from in bits(PAWN_ATTACKS[C::THEM][square_of(node.en_passant)] & pawns) {
            capture(node.captured_en_passant::<C>(from, node.en_passant), node.en_passant, 1);
        }
    }

    // Castling: the paths empty, and the squares the king stands on, crosses
    // and lands on unattacked, those next to the other king excepted.
    let rank_shift = if C::US == 0 { 0 } else { 56 };
    let mut files = node.castling.files(C::COLOR);
    if files != 0 && our_king >> rank_shift & 0xff != 0 {
        let king_file = king_square & 7;
        let attacked_on = |path: u64, occupied: u64| {
            bits(path & !near_their_king)
                .any(|square| attacked_through(sliders, node, C::THEM, square_of(square), occupied))
        };
        while files != 0 {
            let rook_file = files.trailing_zeros() as usize;
            files &= files - 1;
            let rook_square = rook_file + rank_shift;
            let rook = 1u64 << rook_square;
            let paths = CASTLING_PATHS[king_file][rook_file];
            let crossed = u64::from(paths.crossed) << rank_shift;
            if (occupied ^ our_king ^ rook) & crossed != 0 {
                continue;
            }
            let (king_to_file, rook_to_file) = CastlingSide::of(king_file as u8, rook_file as u8).destination_files();
            let king_to = 1u64 << (usize::from(king_to_file) + rank_shift);
            let rook_to = 1u64 << (usize::from(rook_to_file) + rank_shift);
            let king_path = BETWEEN[king_square][square_of(king_to)] | our_king;
            let without_king = occupied ^ our_king;
            let after = without_king ^ rook ^ rook_to;
            if attacked_on(king_path, without_king) || attacked_on(king_to, after) {
                continue;
            }
            visit(&node.castled::<C>(king_square, rook_square));
        }
    }
    nodes + u64::from(counted)
}
