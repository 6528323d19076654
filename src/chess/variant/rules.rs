//! The variants' rules: legal moves, playing a move, and the end of a game
//! by a variant's rule.
//!
//! The variants whose kings are royal (standard, king of the hill,
//! three-check, racing kings, crazyhouse, and horde when black moves) take
//! the board's moves from the chess generator (`crate::chess::movegen`:
//! check and pin masks, nothing tried), which the chess suites hold exact;
//! racing kings then drops the moves that give check, and crazyhouse adds
//! its drops. The others start from pseudo-legal moves: a horde's white
//! pieces (no king, so every move is legal), antichess (captures compulsory),
//! atomic (each move played out, explosion and all, and kept if the mover's
//! king survives unchecked or the other king is gone).

use arrayvec::ArrayVec;

use super::{Pocket, Variant, VariantPosition};
use crate::chess::board::castling::CASTLING_PATHS;
use crate::chess::board::{Bitboard, CastlingSide, Color, Move, MoveKind, Piece, Square};
use crate::chess::error::MoveError;
use crate::chess::position::Position;
use crate::chess::sliders::{bishop_attacks, queen_attacks, rook_attacks};
use crate::chess::tables;

/// A proven bound on the legal moves of every variant position this crate
/// accepts. The board moves: at most 30 pieces besides the kings ever exist
/// (crazyhouse drops captured ones back, so one side may hold them all; a
/// horde has at most 36 men, none of them a king, and its black side is
/// chess's), each with at most 27 moves as a queen, and a king's 8 steps and
/// 2 castlings: 36 × 27 = 972 for a horde, 30 × 27 + 10 = 820 otherwise.
/// Crazyhouse's drops: five kinds on at most 64 squares, 320. So at most
/// 820 + 320 = 1,140 moves, and 972 for a horde.
pub const MAX_VARIANT_MOVES: usize = 1152;

/// Room for every legal move of any variant position.
pub type VariantMoveList = ArrayVec<Move, MAX_VARIANT_MOVES>;

/// d4, e4, d5 and e5: a king there wins king of the hill.
pub const HILL: Bitboard = Bitboard(0x0000_0018_1800_0000);

const RANK_8: Bitboard = Bitboard::rank(7);
const BACK_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

/// What a pseudo-legal generation includes beyond every piece's moves.
#[derive(Clone, Copy)]
struct Pseudo {
    /// Pawns may promote to a king (antichess).
    king_promotions: bool,
    /// Castling, with atomic's rule that a square next to the other king is
    /// safe for ours.
    atomic_castling: bool,
}

impl VariantPosition {
    /// Whether the game is over by the variant's own rule (not by mate or
    /// stalemate, which standard chess has too): a king on the hill, a
    /// third check, an exploded king, a side with no pieces, a king on the
    /// eighth rank. Such a position has no legal moves.
    pub fn is_variant_end(&self) -> bool {
        let board = &self.board;
        match self.variant {
            Variant::Chess | Variant::Crazyhouse => false,
            Variant::Antichess | Variant::Horde => {
                board.colored(Color::White).is_empty() || board.colored(Color::Black).is_empty()
            }
            Variant::Atomic => Color::ALL.into_iter().any(|color| board.pieces_of(color, Piece::King).is_empty()),
            Variant::KingOfTheHill => !(board.pieces(Piece::King) & HILL).is_empty(),
            Variant::ThreeCheck => self.remaining_checks.contains(&0),
            Variant::RacingKings => self.racing_kings_end(),
        }
    }

    /// A king on the eighth rank ends the race, but black, moving second,
    /// gets one move to reach it too: the game goes on while white alone is
    /// there, black is to move and some square of the eighth rank next to
    /// black's king is free of black's pieces and unattacked by white's.
    fn racing_kings_end(&self) -> bool {
        let board = &self.board;
        if (board.pieces(Piece::King) & RANK_8).is_empty() {
            return false;
        }
        let black_king = board.pieces_of(Color::Black, Piece::King);
        let Some(king) = black_king.first() else {
            return true;
        };
        if board.side_to_move() == Color::White || !(black_king & RANK_8).is_empty() {
            return true;
        }
        let targets = tables::king_attacks(king) & RANK_8 & !board.colored(Color::Black);
        targets.squares().all(|target| board.is_attacked(target, Color::White, board.occupied()))
    }

    /// Whether the side to move is in check, as the variant has it: never in
    /// antichess or for a horde's white; in atomic not when the kings touch.
    pub fn is_check(&self) -> bool {
        let board = &self.board;
        let us = board.side_to_move();
        match self.variant {
            Variant::Antichess => false,
            Variant::Horde if us == Color::White => false,
            Variant::Atomic => {
                let Some(king) = board.pieces_of(us, Piece::King).first() else {
                    return false;
                };
                !self.kings_touch() && board.is_attacked(king, !us, board.occupied())
            }
            _ => board.in_check(),
        }
    }

    /// Every legal move, in no particular order (board moves, then drops).
    pub fn legal_moves(&self) -> VariantMoveList {
        let mut list = VariantMoveList::new();
        if self.is_variant_end() {
            return list;
        }
        let board = &self.board;
        let us = board.side_to_move();
        match self.variant {
            Variant::Antichess => {
                let mut quiet = VariantMoveList::new();
                let theirs = board.colored(!us);
                pseudo_legal(board, Pseudo { king_promotions: true, atomic_castling: false }, |mv| {
                    if mv.kind() == MoveKind::EnPassant || theirs.contains(mv.to()) {
                        list.push(mv);
                    } else {
                        quiet.push(mv);
                    }
                });
                if list.is_empty() {
                    return quiet;
                }
            }
            Variant::Atomic => {
                pseudo_legal(board, Pseudo { king_promotions: false, atomic_castling: true }, |mv| {
                    if self.atomic_is_legal(mv) {
                        list.push(mv);
                    }
                });
            }
            Variant::Horde if us == Color::White => {
                pseudo_legal(board, Pseudo { king_promotions: false, atomic_castling: false }, |mv| list.push(mv));
            }
            Variant::RacingKings => {
                self.royal_moves(&mut |mv| {
                    if !self.board.make_move(mv).in_check() {
                        list.push(mv);
                    }
                });
            }
            _ => {
                self.royal_moves(&mut |mv| list.push(mv));
                if self.variant == Variant::Crazyhouse {
                    self.drops(|mv| list.push(mv));
                }
            }
        }
        list
    }

    /// The number of legal moves, counted without listing them where the
    /// variant allows (perft's last ply).
    pub fn legal_move_count(&self) -> u64 {
        if self.is_variant_end() {
            return 0;
        }
        match self.variant {
            Variant::Chess | Variant::KingOfTheHill | Variant::ThreeCheck => u64::from(self.board.legal_move_count()),
            Variant::Horde if self.board.side_to_move() == Color::Black => u64::from(self.board.legal_move_count()),
            Variant::Crazyhouse => u64::from(self.board.legal_move_count()) + self.drop_count(),
            _ => self.legal_moves().len() as u64,
        }
    }

    /// The board moves of a position whose side to move has one royal king,
    /// from the chess generator.
    fn royal_moves(&self, visit: &mut impl FnMut(Move)) {
        let special = self.board.special_squares();
        self.board.generate_piece_moves(|moves| moves.for_each_move(special, &mut *visit));
    }

    /// Where the side to move may drop: any empty square out of check; only
    /// between the king and a single checker in check; nowhere in double check.
    fn drop_squares(&self) -> Bitboard {
        let board = &self.board;
        let empty = !board.occupied();
        let checkers = board.checkers();
        match checkers.first() {
            None => empty,
            Some(_) if checkers.has_several() => Bitboard::EMPTY,
            Some(checker) => tables::between(board.king(board.side_to_move()), checker) & empty,
        }
    }

    /// Calls `visit` with each legal drop.
    fn drops(&self, mut visit: impl FnMut(Move)) {
        let pocket = self.pockets[self.board.side_to_move().index()];
        if pocket.is_empty() {
            return;
        }
        let squares = self.drop_squares();
        for piece in Pocket::PIECES {
            if pocket.count(piece) == 0 {
                continue;
            }
            let allowed = if piece == Piece::Pawn { squares & !BACK_RANKS } else { squares };
            for square in allowed {
                visit(Move::drop(piece, square));
            }
        }
    }

    /// The number of legal drops.
    fn drop_count(&self) -> u64 {
        let pocket = self.pockets[self.board.side_to_move().index()];
        if pocket.is_empty() {
            return 0;
        }
        let squares = self.drop_squares();
        Pocket::PIECES
            .into_iter()
            .filter(|&piece| pocket.count(piece) > 0)
            .map(|piece| {
                u64::from(if piece == Piece::Pawn { (squares & !BACK_RANKS).count() } else { squares.count() })
            })
            .sum()
    }

    /// Atomic: `mv` is legal when, played out with its explosion, the
    /// mover's king survives and the other king is gone or ours is not in
    /// check (which it never is next to the other king).
    fn atomic_is_legal(&self, mv: Move) -> bool {
        let us = self.board.side_to_move();
        let child = self.make_move(mv);
        let board = &child.board;
        let Some(ours) = board.pieces_of(us, Piece::King).first() else {
            return false;
        };
        if board.pieces_of(!us, Piece::King).is_empty() {
            return true;
        }
        child.kings_touch() || !board.is_attacked(ours, !us, board.occupied())
    }

    /// Plays a legal move (from [`VariantPosition::legal_moves`]) and returns
    /// the new position. The move is not checked: use
    /// [`VariantPosition::parse_uci_move`] for moves from outside.
    pub fn make_move(&self, mv: Move) -> VariantPosition {
        let mut next = *self;
        let us = self.board.side_to_move();
        if let MoveKind::Drop(piece) = mv.kind() {
            next.board.play_piece(piece, mv);
            let count = &mut next.pockets[us.index()].0[piece.index()];
            *count = count.saturating_sub(1);
            return next;
        }
        let Some(piece) = self.board.piece_kind_on(mv.from()) else {
            debug_assert!(false, "a move from an empty square: {mv}");
            return next;
        };
        let (from, to) = (mv.from(), mv.to());
        let captured = match mv.kind() {
            MoveKind::EnPassant => Some((Square::new(to.file(), from.rank()), Piece::Pawn)),
            MoveKind::Castling => None,
            _ if self.board.colored(!us).contains(to) => self.board.piece_kind_on(to).map(|kind| (to, kind)),
            _ => None,
        };
        next.board.play_piece(piece, mv);
        // Only a push from the second rank sets an en passant square (a
        // horde's pawns also push two from the first).
        if piece == Piece::Pawn && matches!(from.rank(), 0 | 7) {
            next.board.set_en_passant(None);
        }
        match self.variant {
            Variant::Crazyhouse => {
                let mut promoted = self.promoted;
                if let Some((square, kind)) = captured {
                    let back = if promoted.contains(square) { Piece::Pawn } else { kind };
                    let count = &mut next.pockets[us.index()].0[back.index()];
                    *count = count.saturating_add(1);
                    promoted = promoted.without(square);
                }
                if mv.kind() != MoveKind::Castling && promoted.contains(from) {
                    promoted = promoted.without(from).with(to);
                }
                if mv.promotion().is_some() {
                    promoted = promoted.with(to);
                }
                next.promoted = promoted;
            }
            Variant::Atomic if captured.is_some() => {
                // The capturer explodes on `to`, and every piece but pawns next to it.
                let board = &next.board;
                let blast = (tables::king_attacks(to) & !board.pieces(Piece::Pawn) & board.occupied())
                    | Bitboard::from_square(to);
                let mut castling = board.castling_rights();
                for color in Color::ALL {
                    if !(board.pieces_of(color, Piece::King) & blast).is_empty() {
                        castling = castling.without_color(color);
                    }
                }
                next.board.clear_squares(blast);
                let remaining = next.board.castling_rights();
                next.board
                    .set_castling(crate::chess::board::CastlingRights::from_bits(remaining.bits() & castling.bits()));
            }
            Variant::ThreeCheck if next.board.in_check() => {
                let count = &mut next.remaining_checks[us.index()];
                *count = count.saturating_sub(1);
            }
            _ => {}
        }
        next
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`, antichess's `e7e8k`, crazyhouse's
    /// drop `N@f3`) and checks that it is legal here. Castling may be written
    /// as king takes rook or as the king's move, as for standard chess.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveError> {
        let syntax = || MoveError::Syntax { found: text.to_owned() };
        if !text.is_ascii() {
            return Err(syntax());
        }
        let legal = self.legal_moves();
        let illegal = || MoveError::Illegal { uci: text.to_owned(), fen: self.to_fen() };
        if let Some((piece, square)) = text.split_once('@') {
            let piece = match piece {
                "" | "P" | "p" => Piece::Pawn,
                letter if letter.len() == 1 => match Piece::from_fen_letter(letter.chars().next().unwrap_or(' ')) {
                    Some((_, piece)) if piece != Piece::King => piece,
                    _ => return Err(syntax()),
                },
                _ => return Err(syntax()),
            };
            let square: Square = square.parse().map_err(|_| syntax())?;
            let drop = Move::drop(piece, square);
            return legal.iter().find(|mv| **mv == drop).copied().ok_or_else(illegal);
        }
        let (from, to, promotion) =
            crate::chess::movegen::uci_board_move(text, |piece| piece != Piece::Pawn).ok_or_else(syntax)?;
        crate::chess::movegen::find_uci_move(&legal, from, to, promotion).ok_or_else(illegal)
    }
}

/// Calls `visit` with every pseudo-legal move of the side to move: each
/// piece to every square it attacks but its own pieces' (a king too: in
/// antichess it is an ordinary piece, in atomic a capture by it explodes it
/// and is refused by the legality test), pawn pushes (two squares from the
/// first or second rank, as a horde's pawns may) and captures, en passant,
/// promotions, and where asked atomic's castling. No king is protected here.
fn pseudo_legal(board: &Position, rules: Pseudo, mut visit: impl FnMut(Move)) {
    let us = board.side_to_move();
    let ours = board.colored(us);
    let theirs = board.colored(!us);
    let occupied = ours | theirs;
    for piece in [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen, Piece::King] {
        for from in board.pieces_of(us, piece) {
            let attacks = match piece {
                Piece::Knight => tables::knight_attacks(from),
                Piece::Bishop => bishop_attacks(from, occupied),
                Piece::Rook => rook_attacks(from, occupied),
                Piece::Queen => queen_attacks(from, occupied),
                _ => tables::king_attacks(from),
            };
            for to in attacks & !ours {
                visit(Move::new(from, to, MoveKind::Normal));
            }
        }
    }
    let promote = |from: Square, to: Square, visit: &mut dyn FnMut(Move)| {
        if BACK_RANKS.contains(to) {
            if rules.king_promotions {
                visit(Move::new(from, to, MoveKind::Promotion(Piece::King)));
            }
            for promoted in Piece::PROMOTIONS {
                visit(Move::new(from, to, MoveKind::Promotion(promoted)));
            }
        } else {
            visit(Move::new(from, to, MoveKind::Normal));
        }
    };
    let (step, double_landing): (i8, Bitboard) = match us {
        Color::White => (8, Bitboard::rank(2) | Bitboard::rank(3)),
        Color::Black => (-8, Bitboard::rank(5) | Bitboard::rank(4)),
    };
    for from in board.pieces_of(us, Piece::Pawn) {
        for to in tables::pawn_attacks(us, from) & theirs {
            promote(from, to, &mut visit);
        }
        let Some(single) = from.offset(step).filter(|square| !occupied.contains(*square)) else {
            continue;
        };
        promote(from, single, &mut visit);
        if let Some(double) = single.offset(step).filter(|square| !occupied.contains(*square))
            && double_landing.contains(double)
        {
            visit(Move::new(from, double, MoveKind::Normal));
        }
    }
    if let Some(square) = board.en_passant()
        && !occupied.contains(square)
    {
        for from in tables::pawn_attacks(!us, square) & board.pieces_of(us, Piece::Pawn) {
            visit(Move::new(from, square, MoveKind::EnPassant));
        }
    }
    if rules.atomic_castling {
        atomic_castling(board, &mut visit);
    }
}

/// Atomic's castling, as lichess and python-chess have it: the king and
/// rook's paths empty but for the two of them, and the king's square, the
/// squares it crosses and where it lands not attacked, squares next to the
/// other king excepted (a capture there would explode the capturer's king).
fn atomic_castling(board: &Position, visit: &mut impl FnMut(Move)) {
    let us = board.side_to_move();
    let rank = us.back_rank();
    let Some(king) = (board.pieces_of(us, Piece::King) & Bitboard::rank(rank)).first() else {
        return;
    };
    let mut files = board.castling_rights().files(us);
    let occupied = board.occupied();
    let near_their_king = board
        .pieces_of(!us, Piece::King)
        .squares()
        .fold(Bitboard::EMPTY, |near, square| near | tables::king_attacks(square));
    let attacked = |path: Bitboard, occupied: Bitboard| {
        (path & !near_their_king).squares().any(|square| board.is_attacked(square, !us, occupied))
    };
    while files != 0 {
        let rook_file = files.trailing_zeros() as u8;
        files &= files - 1;
        let rook = Square::new(rook_file, rank);
        let side = CastlingSide::of(king.file(), rook_file);
        let (king_file, rook_to_file) = side.destination_files();
        let king_to = Square::new(king_file, rank);
        let rook_to = Square::new(rook_to_file, rank);
        let paths = CASTLING_PATHS[usize::from(king.file())][usize::from(rook_file)];
        let crossed = Bitboard(u64::from(paths.crossed) << (8 * rank));
        let others = occupied ^ Bitboard::from_square(king) ^ Bitboard::from_square(rook);
        if !(others & crossed).is_empty() {
            continue;
        }
        let king_path = tables::between(king, king_to) | Bitboard::from_square(king);
        let without_king = occupied ^ Bitboard::from_square(king);
        let after = without_king ^ Bitboard::from_square(rook) ^ Bitboard::from_square(rook_to);
        if attacked(king_path, without_king) || attacked(Bitboard::from_square(king_to), after) {
            continue;
        }
        visit(Move::new(king, rook, MoveKind::Castling));
    }
}
