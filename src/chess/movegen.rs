//! Legal move generation on the CPU, full rules: pins, check evasions,
//! double check, castling, en passant (including the rank pin) and
//! promotions. This is the reference every GPU kernel is checked against.
//!
//! Moves come out per piece, as [`PieceMoves`] — a from-square and a bitboard
//! of destinations — which is the shape the GPU kernels return too.

use arrayvec::ArrayVec;

use crate::chess::board::castling::CASTLING_PATHS;
use crate::chess::board::{Bitboard, Color, Move, MoveKind, Piece, Square};
use crate::chess::position::Position;
use crate::chess::sliders::{bishop_attacks, queen_attacks, rook_attacks};
use crate::chess::tables;

/// The legal destinations of one piece. For a pawn reaching the last rank
/// each destination stands for four moves (one per promotion piece); a king
/// destination on one of its own castling rooks is castling (king takes
/// rook); a pawn destination equal to the en passant square is an en passant
/// capture. [`SpecialSquares`] tells these apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceMoves {
    /// The piece that moves.
    pub piece: Piece,
    /// Where it stands.
    pub from: Square,
    /// Every square it may go to.
    pub to: Bitboard,
}

/// What expanding destinations into moves needs from their position: the en
/// passant square and the side to move's castling rooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SpecialSquares {
    /// The en passant square, when a capture there is possible.
    pub en_passant: Option<Square>,
    /// The rooks the side to move may castle with.
    pub castling_rooks: Bitboard,
}

impl PieceMoves {
    /// The number of moves these destinations stand for.
    #[inline]
    pub fn len(&self) -> usize {
        let promotions = if self.piece == Piece::Pawn { self.to & PROMOTION_RANKS } else { Bitboard::EMPTY };
        (self.to.count() + 3 * promotions.count()) as usize
    }

    /// Whether the piece has no destination.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// Calls `visit` with each move these destinations stand for, in the
    /// order of [`PieceMoves::moves`], without building an iterator (perft's
    /// inner loop).
    #[inline(always)]
    pub fn for_each_move(&self, special: SpecialSquares, mut visit: impl FnMut(Move)) {
        let from = self.from;
        match self.piece {
            Piece::Pawn => {
                for to in self.to {
                    if PROMOTION_RANKS.contains(to) {
                        for promoted in Piece::PROMOTIONS {
                            visit(Move::new(from, to, MoveKind::Promotion(promoted)));
                        }
                    } else if Some(to) == special.en_passant && to.file() != from.file() {
                        visit(Move::new(from, to, MoveKind::EnPassant));
                    } else {
                        visit(Move::new(from, to, MoveKind::Normal));
                    }
                }
            }
            Piece::King => {
                for to in self.to {
                    let kind = if special.castling_rooks.contains(to) { MoveKind::Castling } else { MoveKind::Normal };
                    visit(Move::new(from, to, kind));
                }
            }
            _ => {
                for to in self.to {
                    visit(Move::new(from, to, MoveKind::Normal));
                }
            }
        }
    }

    /// Expands the destinations into moves; `special` comes from the position
    /// ([`Position::special_squares`]).
    pub fn moves(&self, special: SpecialSquares) -> impl Iterator<Item = Move> + '_ {
        let piece = self.piece;
        let from = self.from;
        self.to.squares().flat_map(move |to| {
            let mut moves: ArrayVec<Move, 4> = ArrayVec::new();
            match piece {
                Piece::Pawn if PROMOTION_RANKS.contains(to) => {
                    for promoted in Piece::PROMOTIONS {
                        moves.push(Move::new(from, to, MoveKind::Promotion(promoted)));
                    }
                }
                Piece::Pawn if Some(to) == special.en_passant && to.file() != from.file() => {
                    moves.push(Move::new(from, to, MoveKind::EnPassant));
                }
                Piece::King if special.castling_rooks.contains(to) => {
                    moves.push(Move::new(from, to, MoveKind::Castling));
                }
                _ => moves.push(Move::new(from, to, MoveKind::Normal)),
            }
            moves
        })
    }
}

const PROMOTION_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

/// A proven bound on the legal moves of any position that passes FEN
/// validation. Validation limits a side to its king, one queen, two each of
/// rooks, bishops and knights, plus eight more men that are pawns or promoted
/// pieces. A king has at most 8 steps and 2 castlings, a queen 27 moves, a
/// rook 14, a bishop 13, a knight 8, a pawn 12 (three targets, four
/// promotions each). The most is therefore 10 + 27 + 2 * 14 + 2 * 13 + 2 * 8
/// + 8 * 27 = 323. Positions reachable in a real game have at most 218.
pub const MAX_LEGAL_MOVES: usize = 323;

/// Room for every legal move of any position this crate accepts.
pub type MoveList = ArrayVec<Move, MAX_LEGAL_MOVES>;

/// What every generator needs to know about the side to move, computed once.
struct Context {
    us: Color,
    ours: Bitboard,
    theirs: Bitboard,
    occupied: Bitboard,
    king: Square,
    checkers: Bitboard,
    pinned: Bitboard,
    /// Destinations that answer a single check (or any non-own square when not in check).
    destination_mask: Bitboard,
    /// The other side's bishops and queens, and rooks and queens.
    their_diagonal: Bitboard,
    their_straight: Bitboard,
}

impl Context {
    #[inline(always)]
    fn new(position: &Position) -> Context {
        let us = position.side_to_move();
        let them = !us;
        let ours = position.colored(us);
        let theirs = position.colored(them);
        let occupied = ours | theirs;
        let king = position.king(us);

        let queens = position.pieces(Piece::Queen);
        let their_diagonal = (position.pieces(Piece::Bishop) | queens) & theirs;
        let their_straight = (position.pieces(Piece::Rook) | queens) & theirs;
        let snipers = (Bitboard(tables::ROOK_RAYS[king.index()]) & their_straight)
            | (Bitboard(tables::BISHOP_RAYS[king.index()]) & their_diagonal);
        // Snipers with nothing between them and the king give check; with one
        // piece of ours between, they pin it.
        let mut pinned = Bitboard::EMPTY;
        let mut checkers = (tables::pawn_attacks(us, king) & position.pieces(Piece::Pawn)
            | tables::knight_attacks(king) & position.pieces(Piece::Knight))
            & theirs;
        for sniper in snipers {
            let blockers = tables::between(king, sniper) & occupied;
            if blockers.is_empty() {
                checkers |= Bitboard::from_square(sniper);
            } else if !blockers.has_several() {
                pinned |= blockers & ours;
            }
        }

        let destination_mask = match checkers.first() {
            None => !ours,
            Some(checker) => tables::between(king, checker) | checkers,
        };
        Context { us, ours, theirs, occupied, king, checkers, pinned, destination_mask, their_diagonal, their_straight }
    }

    /// Whether the other side attacks `square` with `occupied` as blockers:
    /// the cheap lookups first, and a slider lookup only when a slider of
    /// theirs stands on one of the square's lines.
    #[inline(always)]
    fn attacked(&self, position: &Position, square: Square, occupied: Bitboard) -> bool {
        let leapers = (tables::pawn_attacks(self.us, square) & position.pieces(Piece::Pawn))
            | (tables::knight_attacks(square) & position.pieces(Piece::Knight))
            | (tables::king_attacks(square) & position.pieces(Piece::King));
        if !(leapers & self.theirs).is_empty() {
            return true;
        }
        let diagonal = Bitboard(tables::BISHOP_RAYS[square.index()]) & self.their_diagonal;
        if !diagonal.is_empty() && !(bishop_attacks(square, occupied) & diagonal).is_empty() {
            return true;
        }
        let straight = Bitboard(tables::ROOK_RAYS[square.index()]) & self.their_straight;
        !straight.is_empty() && !(rook_attacks(square, occupied) & straight).is_empty()
    }

    /// Whether the king would be attacked on `square` once it has left its square.
    #[inline(always)]
    fn king_destination_attacked(&self, position: &Position, square: Square) -> bool {
        self.attacked(position, square, self.occupied ^ Bitboard::from_square(self.king))
    }

    #[inline(always)]
    fn king_destinations(&self, position: &Position) -> Bitboard {
        let mut safe = Bitboard::EMPTY;
        for square in tables::king_attacks(self.king) & !self.ours {
            if !self.king_destination_attacked(position, square) {
                safe |= Bitboard::from_square(square);
            }
        }
        if self.checkers.is_empty() {
            safe |= self.castling_destinations(position);
        }
        safe
    }

    /// The rooks of the castling moves that are legal, castling being king
    /// takes rook (not being in check is the caller's test). Standard chess
    /// and Chess960 alike: every square the king and the rook cross or land
    /// on is empty but for the two of them, and no square the king crosses or
    /// lands on is attacked once both have left their squares, which catches
    /// the castling rook shielding the king along the back rank.
    #[inline(always)]
    fn castling_destinations(&self, position: &Position) -> Bitboard {
        let mut files = position.castling_rights().files(self.us);
        if files == 0 {
            return Bitboard::EMPTY;
        }
        let rank = self.king.rank();
        let king_file = self.king.file();
        // The back rank's occupancy as one byte, so the usual early out
        // (pieces still between king and rook) costs a table load and an and.
        let back_rank = (self.occupied.0 >> (8 * rank)) as u8;
        let mut destinations = Bitboard::EMPTY;
        while files != 0 {
            let rook_file = files.trailing_zeros() as u8;
            files &= files - 1;
            let paths = CASTLING_PATHS[usize::from(king_file)][usize::from(rook_file)];
            if back_rank & paths.crossed != 0 {
                continue;
            }
            let rook = Square::new(rook_file, rank);
            let occupied = self.occupied ^ Bitboard::from_square(self.king) ^ Bitboard::from_square(rook);
            let mut tested = paths.tested;
            let mut safe = true;
            while safe && tested != 0 {
                let file = tested.trailing_zeros() as u8;
                tested &= tested - 1;
                safe = !self.attacked(position, Square::new(file, rank), occupied);
            }
            if safe {
                destinations |= Bitboard::from_square(rook);
            }
        }
        destinations
    }

    /// Pawn destinations from `from`: pushes, captures and a legal en passant.
    #[inline(always)]
    fn pawn_destinations(&self, position: &Position, from: Square) -> Bitboard {
        let from_bit = 1u64 << from as u8;
        let single = match self.us {
            Color::White => from_bit << 8,
            Color::Black => from_bit >> 8,
        };
        // The table holds the single and the double step; both need the single-step square empty.
        let pushes = if self.occupied.0 & single != 0 {
            Bitboard::EMPTY
        } else {
            Bitboard(tables::PAWN_PUSHES[self.us.index()][from.index()]) & !self.occupied
        };
        let mut destinations = (pushes | (tables::pawn_attacks(self.us, from) & self.theirs)) & self.destination_mask;
        if self.pinned.contains(from) {
            destinations &= tables::line(self.king, from);
        }
        if let Some(square) = position.en_passant()
            && tables::pawn_attacks(self.us, from).contains(square)
            && self.en_passant_is_legal(position, from, square)
        {
            destinations |= Bitboard::from_square(square);
        }
        destinations
    }

    /// En passant is checked by playing it out: the capture can uncover a
    /// slider on the king's rank (both pawns leave it) or a diagonal, and it
    /// can answer a check by the pawn that just moved.
    #[inline(never)]
    fn en_passant_is_legal(&self, position: &Position, from: Square, to: Square) -> bool {
        let victim = Square::new(to.file(), from.rank());
        let victim_bit = Bitboard::from_square(victim);
        let occupied = self.occupied ^ Bitboard::from_square(from) ^ Bitboard::from_square(to) ^ victim_bit;
        let attackers = position.attackers(self.king, !self.us, occupied) & !victim_bit;
        attackers.is_empty()
    }

    /// Calls `visit` for every piece that has at least one legal move.
    #[inline(always)]
    fn generate(&self, position: &Position, visit: &mut impl FnMut(PieceMoves)) {
        let king_moves = self.king_destinations(position);
        if !king_moves.is_empty() {
            visit(PieceMoves { piece: Piece::King, from: self.king, to: king_moves });
        }
        if self.checkers.has_several() {
            return;
        }
        for from in position.pieces(Piece::Pawn) & self.ours {
            let to = self.pawn_destinations(position, from);
            if !to.is_empty() {
                visit(PieceMoves { piece: Piece::Pawn, from, to });
            }
        }
        for from in position.pieces(Piece::Knight) & self.ours & !self.pinned {
            let to = tables::knight_attacks(from) & self.destination_mask;
            if !to.is_empty() {
                visit(PieceMoves { piece: Piece::Knight, from, to });
            }
        }
        for piece in [Piece::Bishop, Piece::Rook, Piece::Queen] {
            for from in position.pieces(piece) & self.ours {
                let mut to = slider_attacks(piece, from, self.occupied) & self.destination_mask;
                if self.pinned.contains(from) {
                    to &= tables::line(self.king, from);
                }
                if !to.is_empty() {
                    visit(PieceMoves { piece, from, to });
                }
            }
        }
    }

    /// The number of legal moves, with the pawns counted set-wise.
    #[inline(always)]
    fn count(&self, position: &Position) -> u32 {
        let mut count = self.king_destinations(position).count();
        if self.checkers.has_several() {
            return count;
        }
        let pawns = position.pieces(Piece::Pawn) & self.ours;
        // Pinned pawns and pawns that may capture en passant go one by one.
        let mut one_by_one = pawns & self.pinned;
        if let Some(square) = position.en_passant() {
            one_by_one |= tables::pawn_attacks(!self.us, square) & pawns;
        }
        for from in one_by_one {
            count += PieceMoves { piece: Piece::Pawn, from, to: self.pawn_destinations(position, from) }.len() as u32;
        }
        let free = (pawns & !one_by_one).0;
        let empty = !self.occupied.0;
        let (theirs, mask) = (self.theirs.0, self.destination_mask.0);
        let (single, double, west, east) = match self.us {
            Color::White => {
                let single = free << 8 & empty;
                let double = (single & 0xff_0000) << 8 & empty;
                (single, double, (free & !FILE_A) << 7 & theirs, (free & !FILE_H) << 9 & theirs)
            }
            Color::Black => {
                let single = free >> 8 & empty;
                let double = (single & 0xff00_0000_0000) >> 8 & empty;
                (single, double, (free & !FILE_A) >> 9 & theirs, (free & !FILE_H) >> 7 & theirs)
            }
        };
        for destinations in [single, west, east] {
            let destinations = destinations & mask;
            count += destinations.count_ones() + 3 * (destinations & PROMOTION_RANKS.0).count_ones();
        }
        count += (double & mask).count_ones();

        for from in position.pieces(Piece::Knight) & self.ours & !self.pinned {
            count += (tables::knight_attacks(from) & self.destination_mask).count();
        }
        for piece in [Piece::Bishop, Piece::Rook, Piece::Queen] {
            for from in position.pieces(piece) & self.ours {
                let mut to = slider_attacks(piece, from, self.occupied) & self.destination_mask;
                if self.pinned.contains(from) {
                    to &= tables::line(self.king, from);
                }
                count += to.count();
            }
        }
        count
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn slider_attacks(piece: Piece, from: Square, occupied: Bitboard) -> Bitboard {
    match piece {
        Piece::Bishop => bishop_attacks(from, occupied),
        Piece::Rook => rook_attacks(from, occupied),
        _ => queen_attacks(from, occupied),
    }
}

impl Position {
    /// Calls `visit` with the legal moves of each piece that has any.
    ///
    /// ```
    /// use gpu_movegen::{Piece, Position};
    /// let mut knight_moves = 0;
    /// Position::start().generate_piece_moves(|moves| {
    ///     if moves.piece == Piece::Knight {
    ///         knight_moves += moves.len();
    ///     }
    /// });
    /// assert_eq!(knight_moves, 4);
    /// ```
    #[inline]
    pub fn generate_piece_moves(&self, mut visit: impl FnMut(PieceMoves)) {
        Context::new(self).generate(self, &mut visit);
    }

    /// The sum of `count` over every child (a position one legal move
    /// away), from the reference generator: the walk of every perft that
    /// recurses through it.
    #[inline]
    pub fn sum_over_children<T: std::ops::AddAssign + Default>(&self, mut count: impl FnMut(&Position) -> T) -> T {
        let mut sum = T::default();
        let special = self.special_squares();
        self.generate_piece_moves(|piece_moves| {
            piece_moves.for_each_move(special, |mv| sum += count(&self.make_move_of(piece_moves.piece, mv)));
        });
        sum
    }

    /// The legal moves of each piece that has any.
    pub fn piece_moves(&self) -> Vec<PieceMoves> {
        let mut all = Vec::with_capacity(16);
        self.generate_piece_moves(|moves| all.push(moves));
        all
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let special = self.special_squares();
        self.generate_piece_moves(|moves| list.extend(moves.moves(special)));
        list
    }

    /// All legal moves in the fixed order the WGSL library's move iterator
    /// uses: by from-square, then to-square, promotions queen, rook, bishop, knight.
    pub fn legal_moves_in_order(&self) -> MoveList {
        let mut moves = self.legal_moves();
        let promotion_rank = |mv: &Move| match mv.promotion() {
            Some(Piece::Queen) => 0,
            Some(Piece::Rook) => 1,
            Some(Piece::Bishop) => 2,
            Some(_) => 3,
            None => 0,
        };
        moves.sort_unstable_by_key(|mv| (mv.from(), mv.to(), promotion_rank(mv)));
        moves
    }

    /// Neither side can ever mate: kings alone, one minor piece, or bishops
    /// all on squares of one colour (the WGSL library's rule, too).
    pub fn is_insufficient_material(&self) -> bool {
        if !(self.pieces(Piece::Pawn) | self.pieces(Piece::Rook) | self.pieces(Piece::Queen)).is_empty() {
            return false;
        }
        if (self.pieces(Piece::Knight) | self.pieces(Piece::Bishop)).count() <= 1 {
            return true;
        }
        const DARK_SQUARES: u64 = 0xaa55_aa55_aa55_aa55;
        let bishops = self.pieces(Piece::Bishop).0;
        self.pieces(Piece::Knight).is_empty() && (bishops & DARK_SQUARES == 0 || bishops & !DARK_SQUARES == 0)
    }

    /// What [`PieceMoves::moves`] needs to tell special moves apart.
    #[inline]
    pub fn special_squares(&self) -> SpecialSquares {
        SpecialSquares {
            en_passant: self.en_passant(),
            castling_rooks: self.castling_rights().rook_squares(self.side_to_move()),
        }
    }

    /// The number of legal moves, without listing them (perft's last ply).
    #[inline]
    pub fn legal_move_count(&self) -> u32 {
        Context::new(self).count(self)
    }

    /// No legal move, in check.
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && self.legal_move_count() == 0
    }

    /// No legal move, not in check.
    pub fn is_stalemate(&self) -> bool {
        !self.in_check() && self.legal_move_count() == 0
    }
}

impl Position {
    /// Parses a UCI move (`e2e4`, `e7e8q`) and checks that it is legal here.
    /// Castling may be written as king takes rook (`e1h1`, UCI_Chess960) or as
    /// the king's move (`e1g1`); the king's move is read as castling only
    /// when no other legal move has those squares (in Chess960 a king on f1
    /// may also step to g1).
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, crate::chess::error::MoveError> {
        use crate::chess::error::MoveError;
        let syntax = || MoveError::Syntax { found: text.to_owned() };
        let (from, to, promotion) =
            uci_board_move(text, |piece| Piece::PROMOTIONS.contains(&piece)).ok_or_else(syntax)?;
        find_uci_move(&self.legal_moves(), from, to, promotion)
            .ok_or_else(|| MoveError::Illegal { uci: text.to_owned(), fen: self.to_fen() })
    }
}

/// The squares and promotion piece a UCI board move (`e2e4`, `e7e8q`)
/// names, the promotion written in lower case and one that `promotes_to`
/// allows; None for any other text.
pub(crate) fn uci_board_move(
    text: &str,
    promotes_to: impl Fn(Piece) -> bool,
) -> Option<(Square, Square, Option<Piece>)> {
    if !(text.len() == 4 || text.len() == 5) || !text.is_ascii() {
        return None;
    }
    let from = text[0..2].parse().ok()?;
    let to = text[2..4].parse().ok()?;
    let promotion = match text.as_bytes().get(4) {
        None => None,
        Some(letter) => match Piece::from_fen_letter(char::from(*letter)) {
            Some((Color::Black, piece)) if promotes_to(piece) => Some(piece),
            _ => return None,
        },
    };
    Some((from, to, promotion))
}

/// The move of `legal` that UCI's `from`, `to` and `promotion` name: the
/// board move with those squares, else a castling written as the king's
/// move (so the king's move is castling only when no other move has those
/// squares). Drops are never board moves.
pub(crate) fn find_uci_move(legal: &[Move], from: Square, to: Square, promotion: Option<Piece>) -> Option<Move> {
    legal
        .iter()
        .find(|mv| mv.dropped().is_none() && mv.from() == from && mv.to() == to && mv.promotion() == promotion)
        .or_else(|| {
            legal.iter().find(|mv| {
                mv.kind() == MoveKind::Castling
                    && mv.from() == from
                    && mv.king_destination() == to
                    && promotion.is_none()
            })
        })
        .copied()
}
