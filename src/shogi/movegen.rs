//! Shogi moves: attacks by ray walk, legal generation with drops and
//! promotions, and make-move. This is the full-rules reference: every rule
//! the counts depend on is here (promotion and non-promotion both counted,
//! no piece left without a move, nifu, uchifuzume, king safety); speed
//! comes second.

use std::fmt;
use std::sync::LazyLock;

use super::board::{Bitboard, Color, Piece, dead_zone, parse_square, square_name};
use super::position::Position;

/// A move: a piece from a square (optionally promoting) or a drop from the hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// `None` for a drop.
    pub from: Option<u8>,
    /// The destination square.
    pub to: u8,
    /// The moving or dropped piece, as it stands before the move.
    pub piece: Piece,
    /// Whether the piece promotes on arrival.
    pub promote: bool,
}

impl fmt::Display for Move {
    /// USI notation: `7g7f`, `7g7f+`, `P*5e`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from {
            Some(from) => {
                write!(
                    formatter,
                    "{}{}{}",
                    square_name(from),
                    square_name(self.to),
                    if self.promote { "+" } else { "" }
                )
            }
            None => write!(formatter, "{}*{}", self.piece.letter(), square_name(self.to)),
        }
    }
}

/// (file step, rank step) for Black; White's are the rank steps negated.
type Step = (i8, i8);

const GOLD_STEPS: &[Step] = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const SILVER_STEPS: &[Step] = &[(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)];
const KING_STEPS: &[Step] = &[(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
const DIAGONALS: &[Step] = &[(-1, -1), (1, -1), (-1, 1), (1, 1)];
const ORTHOGONALS: &[Step] = &[(0, -1), (-1, 0), (1, 0), (0, 1)];

fn offset(square: u8, (file_step, rank_step): Step, color: Color) -> Option<u8> {
    let rank_step = if color == Color::White { -rank_step } else { rank_step };
    let column = (square % 9) as i8 + file_step;
    let rank = (square / 9) as i8 + rank_step;
    ((0..9).contains(&column) && (0..9).contains(&rank)).then_some((rank * 9 + column) as u8)
}

fn steps(square: u8, color: Color, steps: &[Step]) -> Bitboard {
    let mut attacks = Bitboard::EMPTY;
    for &step in steps {
        if let Some(target) = offset(square, step, color) {
            attacks |= Bitboard::from_square(target);
        }
    }
    attacks
}

/// The non-sliding part of each piece's attacks, per piece, colour and square.
pub(crate) static STEP_ATTACKS: LazyLock<Vec<Bitboard>> = LazyLock::new(|| {
    let mut table = Vec::with_capacity(14 * 2 * 81);
    for piece in Piece::ALL {
        for color in Color::ALL {
            for square in 0..81u8 {
                table.push(match piece {
                    Piece::Pawn => steps(square, color, &[(0, -1)]),
                    Piece::Knight => steps(square, color, &[(-1, -2), (1, -2)]),
                    Piece::Silver => steps(square, color, SILVER_STEPS),
                    Piece::Gold | Piece::ProPawn | Piece::ProLance | Piece::ProKnight | Piece::ProSilver => {
                        steps(square, color, GOLD_STEPS)
                    }
                    Piece::King => steps(square, color, KING_STEPS),
                    Piece::Horse => steps(square, color, ORTHOGONALS),
                    Piece::Dragon => steps(square, color, DIAGONALS),
                    Piece::Lance | Piece::Bishop | Piece::Rook => Bitboard::EMPTY,
                });
            }
        }
    }
    table
});

/// The squares from each square to the edge in each of eight directions,
/// in Black's frame: north, south, west, east, north-west, north-east,
/// south-west, south-east. The last four of the squares' indices grow along
/// south, east, south-west and south-east; shrink along the others.
const DIRECTIONS: [Step; 8] = [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (1, -1), (-1, 1), (1, 1)];
const NORTH: usize = 0;
const SOUTH: usize = 1;

pub(crate) static RAYS: LazyLock<Vec<[Bitboard; 81]>> = LazyLock::new(|| {
    DIRECTIONS
        .iter()
        .map(|&direction| {
            let mut rays = [Bitboard::EMPTY; 81];
            for (square, ray) in rays.iter_mut().enumerate() {
                let mut current = square as u8;
                while let Some(next) = offset(current, direction, Color::Black) {
                    *ray |= Bitboard::from_square(next);
                    current = next;
                }
            }
            rays
        })
        .collect()
});

/// Attacks along one direction: the ray up to and including the first
/// occupied square. The nearest blocker is the lowest set bit along
/// directions whose indices grow, the highest along the others.
#[inline]
fn ray_attacks(square: u8, direction: usize, occupied: Bitboard) -> Bitboard {
    let rays = &RAYS[direction];
    let ray = rays[square as usize];
    let blockers = (ray & occupied).0;
    if blockers == 0 {
        return ray;
    }
    let grows = matches!(direction, 1 | 3 | 6 | 7);
    let nearest = if grows { blockers.trailing_zeros() } else { 127 - blockers.leading_zeros() };
    ray ^ rays[nearest as usize]
}

/// Attacks in several directions by the ray tables, each up to and
/// including its nearest blocker.
pub fn slide(square: u8, directions: &[usize], occupied: Bitboard) -> Bitboard {
    let mut attacks = Bitboard::EMPTY;
    for &direction in directions {
        attacks |= ray_attacks(square, direction, occupied);
    }
    attacks
}

/// The indices of the diagonal directions in the ray tables.
pub const DIAGONAL_DIRECTIONS: [usize; 4] = [4, 5, 6, 7];
/// The indices of the orthogonal directions in the ray tables.
pub const ORTHOGONAL_DIRECTIONS: [usize; 4] = [0, 1, 2, 3];

/// The squares `piece` of `color` on `square` attacks, with `occupied` blocking sliders.
pub fn attacks(piece: Piece, color: Color, square: u8, occupied: Bitboard) -> Bitboard {
    let stepped = STEP_ATTACKS[(piece.index() * 2 + color.index()) * 81 + square as usize];
    match piece {
        Piece::Lance => ray_attacks(square, if color == Color::Black { NORTH } else { SOUTH }, occupied),
        Piece::Bishop | Piece::Horse => stepped | super::sliders::bishop_attacks(square, occupied),
        Piece::Rook | Piece::Dragon => stepped | super::sliders::rook_attacks(square, occupied),
        _ => stepped,
    }
}

/// The pieces of `by` attacking `square`. A piece of one colour attacks a
/// square exactly when the same piece of the other colour, standing on that
/// square, attacks the piece's own square.
pub fn attackers_to(position: &Position, square: u8, by: Color, occupied: Bitboard) -> Bitboard {
    let step = |piece: Piece| STEP_ATTACKS[(piece.index() * 2 + (!by).index()) * 81 + square as usize];
    let pieces = |kinds: &[Piece]| kinds.iter().fold(Bitboard::EMPTY, |set, kind| set | position.pieces(*kind));
    let golds = pieces(&[Piece::Gold, Piece::ProPawn, Piece::ProLance, Piece::ProKnight, Piece::ProSilver]);
    // A horse or dragon attacks all eight neighbours, like a king.
    let kings = pieces(&[Piece::King, Piece::Horse, Piece::Dragon]);
    let attackers = (step(Piece::Pawn) & position.pieces(Piece::Pawn))
        | (step(Piece::Knight) & position.pieces(Piece::Knight))
        | (step(Piece::Silver) & position.pieces(Piece::Silver))
        | (step(Piece::Gold) & golds)
        | (step(Piece::King) & kings)
        | (attacks(Piece::Lance, !by, square, occupied) & position.pieces(Piece::Lance))
        | (super::sliders::bishop_attacks(square, occupied) & pieces(&[Piece::Bishop, Piece::Horse]))
        | (super::sliders::rook_attacks(square, occupied) & pieces(&[Piece::Rook, Piece::Dragon]));
    attackers & position.colored(by)
}

/// Whether `color`'s king is attacked.
pub fn in_check(position: &Position, color: Color) -> bool {
    position.king(color).is_some_and(|king| !attackers_to(position, king, !color, position.occupied()).is_empty())
}

/// Whether `piece` of `color` moving from `from` to `to` may be played
/// promoting (`promote`) or not: promotion needs a promotable kind and the
/// promotion zone at either end; declining it needs the piece to keep a move
/// (a pawn or lance short of the last rank, a knight of the last two).
fn promotion_choice_allowed(piece: Piece, color: Color, from: u8, to: u8, promote: bool) -> bool {
    if promote {
        let zone = dead_zone(color, 3);
        return piece.promoted().is_some() && (zone.contains(from) || zone.contains(to));
    }
    match piece {
        Piece::Pawn | Piece::Lance => !dead_zone(color, 1).contains(to),
        Piece::Knight => !dead_zone(color, 2).contains(to),
        _ => true,
    }
}

/// The pieces of `us` that are the only piece between one of `us`'s sliders
/// and the enemy king on `their_king`: moving one off that line gives check.
fn discoverers(position: &Position, their_king: u8, us: Color) -> Bitboard {
    lone_blockers(position, their_king, position.colored(us), us)
}

/// The ray from `origin` through `square` to the edge (empty if they share no line).
fn line_from(origin: u8, square: u8) -> Bitboard {
    (0..8).map(|direction| RAYS[direction][origin as usize]).find(|ray| ray.contains(square)).unwrap_or(Bitboard::EMPTY)
}

/// The square a pawn of `color` must stand on to attack `square` (as a set).
fn attackers_to_square_by_pawn(square: u8, color: Color) -> Bitboard {
    attacks(Piece::Pawn, !color, square, Bitboard::EMPTY)
}

/// The pieces of `us` pinned to their king: each the only piece between
/// the king and a slider of the other side that moves along that line (a
/// lance only along its own forward direction).
fn pinned(position: &Position, king: u8, us: Color) -> Bitboard {
    lone_blockers(position, king, position.colored(us), !us)
}

/// The pieces of `blockers` that each stand alone between the king on
/// `king` and a slider of `attacker` that moves along their line (a lance
/// only along its own forward direction).
fn lone_blockers(position: &Position, king: u8, blockers: Bitboard, attacker: Color) -> Bitboard {
    let occupied = position.occupied();
    let theirs = position.colored(attacker);
    let diagonal = (position.pieces(Piece::Bishop) | position.pieces(Piece::Horse)) & theirs;
    let straight = (position.pieces(Piece::Rook) | position.pieces(Piece::Dragon)) & theirs;
    // The attacker's lance reaches the king from the side it comes from.
    let lance_direction = if attacker == Color::Black { SOUTH } else { NORTH };
    let lances = position.pieces(Piece::Lance) & theirs;
    let mut found = Bitboard::EMPTY;
    for direction in 0..8 {
        let first = ray_attacks(king, direction, occupied) & occupied;
        if (first & blockers).is_empty() {
            continue;
        }
        let behind = ray_attacks(king, direction, occupied ^ first) & occupied & !first;
        let sliders = match direction {
            4..=7 => diagonal,
            _ if direction == lance_direction => straight | lances,
            _ => straight,
        };
        if !(behind & sliders).is_empty() {
            found |= first;
        }
    }
    found
}

impl Position {
    /// Plays a legal move (copy-make).
    pub fn make_move(&self, mv: Move) -> Position {
        let mut next = *self;
        let us = self.side_to_move;
        match mv.from {
            None => {
                next.hands[us.index()][mv.piece.hand_index()] -= 1;
                next.put(us, mv.piece, mv.to);
            }
            Some(from) => {
                let from_bit = Bitboard::from_square(from);
                next.pieces[mv.piece.index()] ^= from_bit;
                next.colors[us.index()] ^= from_bit;
                if let Some((_, captured)) = self.piece_on(mv.to) {
                    let to_bit = Bitboard::from_square(mv.to);
                    next.pieces[captured.index()] ^= to_bit;
                    next.colors[(!us).index()] ^= to_bit;
                    next.hands[us.index()][captured.unpromoted().hand_index()] += 1;
                }
                let placed = if mv.promote { mv.piece.promoted().unwrap_or(mv.piece) } else { mv.piece };
                next.put(us, placed, mv.to);
            }
        }
        next.side_to_move = !us;
        next.move_number = next.move_number.saturating_add(1);
        next
    }

    /// Every legal move, in a fixed order: board moves by piece kind, then
    /// from-square and destination (promotion first), then drops by kind
    /// and square.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(128);
        self.generate(&mut |mv| moves.push(mv), true);
        moves
    }

    /// The number of legal moves (perft's last ply). Out of check, pieces
    /// that are not pinned are counted from their destination sets without
    /// playing anything, promotions by masks; drops by a popcount, with the
    /// one square where a pawn drop could mate tested.
    pub fn legal_move_count(&self) -> u32 {
        let us = self.side_to_move;
        let ours = self.colored(us);
        let occupied = self.occupied();
        let Some(king) = self.king(us) else { return 0 };
        if !attackers_to(self, king, !us, occupied).is_empty() {
            let mut count = 0;
            self.generate(&mut |_| count += 1, true);
            return count;
        }
        let pinned = pinned(self, king, us);
        let zone = dead_zone(us, 3);
        let mut count = 0;
        for piece in Piece::ALL {
            for from in self.pieces_of(us, piece) {
                let targets = attacks(piece, us, from, occupied) & !ours;
                if piece == Piece::King || pinned.contains(from) {
                    self.board_moves(from, piece, true, &mut |_| count += 1);
                    continue;
                }
                if piece.promoted().is_none() {
                    count += targets.count();
                    continue;
                }
                let promoting = if zone.contains(from) { targets } else { targets & zone };
                let forced = match piece {
                    Piece::Pawn | Piece::Lance => targets & dead_zone(us, 1),
                    Piece::Knight => targets & dead_zone(us, 2),
                    _ => Bitboard::EMPTY,
                };
                count += promoting.count() + (targets & !forced).count();
            }
        }
        for piece in [Piece::Pawn, Piece::Lance, Piece::Knight, Piece::Silver, Piece::Gold, Piece::Bishop, Piece::Rook]
        {
            if self.in_hand(us, piece) == 0 {
                continue;
            }
            let targets = self.drop_targets(piece);
            count += targets.count();
            if piece == Piece::Pawn
                && let Some(their_king) = self.king(!us)
            {
                // Only a drop right in front of their king gives check, and may mate.
                for to in targets & attackers_to_square_by_pawn(their_king, us) {
                    if !self.make_move(Move { from: None, to, piece, promote: false }).has_legal_move() {
                        count -= 1;
                    }
                }
            }
        }
        count
    }

    /// Whether the side to move has any legal move (stops at the first).
    fn has_legal_move(&self) -> bool {
        let mut found = false;
        self.generate(&mut |_| found = true, false);
        found
    }

    /// Whether `mv` leaves the mover's king safe.
    fn keeps_king_safe(&self, mv: Move) -> bool {
        !in_check(&self.make_move(mv), self.side_to_move)
    }

    /// The squares `piece` may be dropped on: empty, not where it would
    /// have no move, and for a pawn not on a file with one of ours (nifu).
    fn drop_targets(&self, piece: Piece) -> Bitboard {
        let us = self.side_to_move;
        let mut targets = !self.occupied();
        match piece {
            Piece::Pawn => {
                targets = targets & !dead_zone(us, 1);
                for column in 0..9 {
                    if !(self.pieces_of(us, Piece::Pawn) & Bitboard::column(column)).is_empty() {
                        targets = targets & !Bitboard::column(column);
                    }
                }
            }
            Piece::Lance => targets = targets & !dead_zone(us, 1),
            Piece::Knight => targets = targets & !dead_zone(us, 2),
            _ => {}
        }
        targets
    }

    /// The legal moves of `piece` on `from`; with `test` each is played out
    /// to check that the king stays safe.
    fn board_moves(&self, from: u8, piece: Piece, test: bool, visit: &mut dyn FnMut(Move)) {
        let us = self.side_to_move;
        for to in attacks(piece, us, from, self.occupied()) & !self.colored(us) {
            for promote in [true, false] {
                if !promotion_choice_allowed(piece, us, from, to, promote) {
                    continue;
                }
                let mv = Move { from: Some(from), to, piece, promote };
                if !test || self.keeps_king_safe(mv) {
                    visit(mv);
                }
            }
        }
    }

    /// Calls `visit` with every legal move; with `all` false it may stop
    /// after the first (for the uchifuzume test).
    fn generate(&self, visit: &mut dyn FnMut(Move), all: bool) {
        let us = self.side_to_move;
        let occupied = self.occupied();
        let Some(king) = self.king(us) else { return };
        let checked = !attackers_to(self, king, !us, occupied).is_empty();
        // Only a king move, a move of a pinned piece or any move in check can
        // leave the king attacked; the rest are legal at once.
        let pinned = pinned(self, king, us);
        let mut emitted = false;
        for piece in Piece::ALL {
            for from in self.pieces_of(us, piece) {
                if !all && emitted {
                    return;
                }
                let test = checked || piece == Piece::King || pinned.contains(from);
                self.board_moves(from, piece, test, &mut |mv| {
                    visit(mv);
                    emitted = true;
                });
            }
        }
        for piece in [Piece::Pawn, Piece::Lance, Piece::Knight, Piece::Silver, Piece::Gold, Piece::Bishop, Piece::Rook]
        {
            if self.in_hand(us, piece) == 0 || (!all && emitted) {
                continue;
            }
            for to in self.drop_targets(piece) {
                let mv = Move { from: None, to, piece, promote: false };
                if checked && !self.keeps_king_safe(mv) {
                    continue;
                }
                // A pawn drop that gives check must leave the opponent a move (no uchifuzume).
                if piece == Piece::Pawn
                    && self
                        .king(!us)
                        .is_some_and(|their_king| attacks(Piece::Pawn, us, to, occupied).contains(their_king))
                    && !self.make_move(mv).has_legal_move()
                {
                    continue;
                }
                visit(mv);
                emitted = true;
            }
        }
    }

    /// Every legal move that gives check, generated directly rather than
    /// by filtering: the squares from which each kind of piece would attack
    /// the enemy king are its attacks seen from that king (a piece attacks a
    /// square exactly when the same piece of the other colour there attacks
    /// back), so a piece's checking moves are its destinations AND those
    /// squares, for the kind it becomes; drops the same. Discovered checks
    /// come from a piece of ours that is the only one between one of our
    /// sliders and the enemy king, moving off that line.
    pub fn generate_checks(&self) -> Vec<Move> {
        let us = self.side_to_move;
        let them = !us;
        let mut checks = Vec::new();
        let (Some(king), Some(their_king)) = (self.king(us), self.king(them)) else { return checks };
        let occupied = self.occupied();
        let ours = self.colored(us);
        let checked = !attackers_to(self, king, them, occupied).is_empty();
        let pinned = pinned(self, king, us);
        let discoverers = discoverers(self, their_king, us);
        for piece in Piece::ALL {
            for from in self.pieces_of(us, piece) {
                let vacated = occupied ^ Bitboard::from_square(from);
                let targets = attacks(piece, us, from, occupied) & !ours;
                // Moving off the line between a slider of ours and their king uncovers it.
                let uncovering =
                    if discoverers.contains(from) { targets & !line_from(their_king, from) } else { Bitboard::EMPTY };
                let test = checked || piece == Piece::King || pinned.contains(from);
                for promote in [true, false] {
                    let placed = if promote {
                        match piece.promoted() {
                            Some(promoted) => promoted,
                            None => continue,
                        }
                    } else {
                        piece
                    };
                    let direct = attacks(placed, them, their_king, vacated);
                    for to in targets & (direct | uncovering) {
                        if !promotion_choice_allowed(piece, us, from, to, promote) {
                            continue;
                        }
                        let mv = Move { from: Some(from), to, piece, promote };
                        if !test || self.keeps_king_safe(mv) {
                            checks.push(mv);
                        }
                    }
                }
            }
        }
        for piece in [Piece::Pawn, Piece::Lance, Piece::Knight, Piece::Silver, Piece::Gold, Piece::Bishop, Piece::Rook]
        {
            if self.in_hand(us, piece) == 0 {
                continue;
            }
            for to in self.drop_targets(piece) & attacks(piece, them, their_king, occupied) {
                let mv = Move { from: None, to, piece, promote: false };
                if checked && !self.keeps_king_safe(mv) {
                    continue;
                }
                // A checking pawn drop must leave the opponent a move (no uchifuzume).
                if piece == Piece::Pawn && !self.make_move(mv).has_legal_move() {
                    continue;
                }
                checks.push(mv);
            }
        }
        checks
    }

    /// Whether `mv` (legal here) gives check.
    pub fn gives_check(&self, mv: Move) -> bool {
        in_check(&self.make_move(mv), !self.side_to_move)
    }

    /// Parses a USI move (`7g7f`, `7g7f+`, `P*5e`) and checks it is legal here.
    pub fn parse_usi_move(&self, text: &str) -> Result<Move, UsiMoveError> {
        let syntax = || UsiMoveError::Syntax { found: text.to_owned() };
        let candidate = if let Some((piece, square)) = text.split_once('*') {
            let mut letters = piece.chars();
            let (Some(letter), None) = (letters.next(), letters.next()) else { return Err(syntax()) };
            let piece = Piece::from_letter(letter).filter(|piece| *piece != Piece::King).ok_or_else(syntax)?;
            let to = parse_square(square).ok_or_else(syntax)?;
            Move { from: None, to, piece, promote: false }
        } else {
            let (body, promote) = match text.strip_suffix('+') {
                Some(body) => (body, true),
                None => (text, false),
            };
            if body.len() != 4 {
                return Err(syntax());
            }
            let from = parse_square(&body[..2]).ok_or_else(syntax)?;
            let to = parse_square(&body[2..]).ok_or_else(syntax)?;
            let piece = self.piece_on(from).map_or(Piece::King, |(_, piece)| piece);
            Move { from: Some(from), to, piece, promote }
        };
        if self.legal_moves().contains(&candidate) {
            Ok(candidate)
        } else {
            Err(UsiMoveError::Illegal { usi: text.to_owned(), sfen: self.to_sfen() })
        }
    }
}

/// Why a USI move string was rejected.
/// Why a USI move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UsiMoveError {
    /// The text is not a USI move at all.
    #[error("'{found}' is not a USI move (such as 7g7f, 7g7f+ or P*5e)")]
    Syntax {
        /// The text given.
        found: String,
    },
    /// A well-formed move that is not legal in the position.
    #[error("'{usi}' is not a legal move in {sfen}")]
    Illegal {
        /// The move given.
        usi: String,
        /// The position, as SFEN.
        sfen: String,
    },
}
