//! The position: piece sets, side to move, castling rights, en passant
//! square and move counters; FEN in and out; copy-make.

use std::fmt;
use std::str::FromStr;

use super::{Bitboard, Color, Move, MoveKind, Piece, Square};
use crate::chess::error::FenError;
use crate::chess::sliders::{bishop_attacks, rook_attacks};
use crate::chess::tables;

/// Castling rights as four bits: white king side, white queen side, black
/// king side, black queen side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CastlingRights(u8);

impl CastlingRights {
    pub const NONE: CastlingRights = CastlingRights(0);
    pub const WHITE_KING_SIDE: CastlingRights = CastlingRights(1);
    pub const WHITE_QUEEN_SIDE: CastlingRights = CastlingRights(2);
    pub const BLACK_KING_SIDE: CastlingRights = CastlingRights(4);
    pub const BLACK_QUEEN_SIDE: CastlingRights = CastlingRights(8);
    pub const ALL: CastlingRights = CastlingRights(15);

    /// The four rights with their FEN letters, in FEN order.
    pub(crate) const LETTERS: [(char, CastlingRights); 4] = [
        ('K', Self::WHITE_KING_SIDE),
        ('Q', Self::WHITE_QUEEN_SIDE),
        ('k', Self::BLACK_KING_SIDE),
        ('q', Self::BLACK_QUEEN_SIDE),
    ];

    #[inline]
    pub const fn bits(self) -> u8 {
        self.0
    }

    #[inline]
    pub const fn from_bits(bits: u8) -> CastlingRights {
        CastlingRights(bits & 15)
    }

    #[inline]
    pub const fn contains(self, rights: CastlingRights) -> bool {
        self.0 & rights.0 == rights.0
    }

    #[inline]
    pub const fn king_side(color: Color) -> CastlingRights {
        match color {
            Color::White => Self::WHITE_KING_SIDE,
            Color::Black => Self::BLACK_KING_SIDE,
        }
    }

    #[inline]
    pub const fn queen_side(color: Color) -> CastlingRights {
        match color {
            Color::White => Self::WHITE_QUEEN_SIDE,
            Color::Black => Self::BLACK_QUEEN_SIDE,
        }
    }
}

/// The rights that survive a move touching each square: moving from or
/// capturing on a king or rook home square drops the rights it carries.
const CASTLING_KEPT: [u8; 64] = {
    let mut kept = [15u8; 64];
    kept[Square::A1 as usize] = 15 & !2;
    kept[Square::E1 as usize] = 15 & !3;
    kept[Square::H1 as usize] = 15 & !1;
    kept[Square::A8 as usize] = 15 & !8;
    kept[Square::E8 as usize] = 15 & !12;
    kept[Square::H8 as usize] = 15 & !4;
    kept
};

/// A chess position. Always valid: it is built from a checked FEN or by
/// playing legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pieces: [Bitboard; 6],
    colors: [Bitboard; 2],
    side_to_move: Color,
    castling: CastlingRights,
    en_passant: Option<Square>,
    halfmove_clock: u16,
    fullmove_number: u16,
}

/// A position as deep perft (`unique`, work units, the transposition
/// table's equality) tells positions apart: the piece codes in three bit
/// planes, black's pieces, and side to move, castling rights and the en
/// passant square (64 when none or when no en passant capture is legal) in
/// the last word. Ordered, so that a level of positions can be sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionIdentity(pub [u64; 5]);

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The standard starting position.
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("the start position FEN is valid")
    }

    /// Parses and validates a FEN. The two move counters may be left out.
    ///
    /// ```
    /// use gpu_movegen::Position;
    /// let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    /// assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
    /// assert!(Position::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    /// ```
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(fields.len() == 4 || fields.len() == 6) {
            return Err(FenError::FieldCount { found: fields.len() });
        }
        let mut position = Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            side_to_move: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        };
        position.parse_placement(fields[0])?;
        position.side_to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::SideToMove { found: other.to_owned() }),
        };
        position.castling = parse_castling(fields[2])?;
        position.en_passant = match fields[3] {
            "-" => None,
            text => Some(text.parse().map_err(|_| FenError::EnPassantSyntax { found: text.to_owned() })?),
        };
        if fields.len() == 6 {
            position.halfmove_clock = fields[4]
                .parse()
                .ok()
                .filter(|_| fields[4].bytes().all(|byte| byte.is_ascii_digit()))
                .ok_or_else(|| FenError::HalfmoveClock { found: fields[4].to_owned() })?;
            position.fullmove_number = fields[5]
                .parse()
                .ok()
                .filter(|&number| number >= 1 && fields[5].bytes().all(|byte| byte.is_ascii_digit()))
                .ok_or_else(|| FenError::FullmoveNumber { found: fields[5].to_owned() })?;
        }
        position.validate()?;
        Ok(position)
    }

    fn parse_placement(&mut self, placement: &str) -> Result<(), FenError> {
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(FenError::RankCount { found: ranks.len() });
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 7 - row as u8;
            let rank_number = rank + 1;
            let mut file = 0usize;
            let mut previous_was_digit = false;
            for character in text.chars() {
                if let Some(digit) = character.to_digit(10).filter(|digit| (1..=8).contains(digit)) {
                    if previous_was_digit {
                        return Err(FenError::AdjacentDigits { rank: rank_number });
                    }
                    previous_was_digit = true;
                    file += digit as usize;
                } else if let Some((color, piece)) = Piece::from_fen_letter(character) {
                    previous_was_digit = false;
                    if file < 8 {
                        self.put(color, piece, Square::new(file as u8, rank));
                    }
                    file += 1;
                } else {
                    return Err(FenError::BadPieceLetter { rank: rank_number, character });
                }
            }
            if file != 8 {
                return Err(FenError::RankLength { rank: rank_number, squares: file });
            }
        }
        Ok(())
    }

    fn put(&mut self, color: Color, piece: Piece, square: Square) {
        let bit = Bitboard::from_square(square);
        self.pieces[piece.index()] |= bit;
        self.colors[color.index()] |= bit;
    }

    /// Checks everything a FEN cannot express by syntax alone.
    fn validate(&self) -> Result<(), FenError> {
        for color in Color::ALL {
            let kings = self.pieces_of(color, Piece::King).count();
            if kings != 1 {
                return Err(FenError::KingCount { color, found: kings });
            }
        }
        for color in Color::ALL {
            self.validate_material(color)?;
        }
        let back_ranks = Bitboard::rank(0) | Bitboard::rank(7);
        if let Some(square) = (self.pieces[Piece::Pawn.index()] & back_ranks).first() {
            return Err(FenError::PawnOnBackRank { square });
        }
        for (letter, right) in CastlingRights::LETTERS {
            if !self.castling.contains(right) {
                continue;
            }
            let color = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
            let rank = color.back_rank();
            let king_square = Square::new(4, rank);
            let rook_square = Square::new(if letter.eq_ignore_ascii_case(&'k') { 7 } else { 0 }, rank);
            if !self.pieces_of(color, Piece::King).contains(king_square) {
                return Err(FenError::CastlingWithoutKing { right: letter, color, square: king_square });
            }
            if !self.pieces_of(color, Piece::Rook).contains(rook_square) {
                return Err(FenError::CastlingWithoutRook { right: letter, color, square: rook_square });
            }
        }
        if let Some(square) = self.en_passant {
            // The side that just moved pushed a pawn past `square`.
            let mover = !self.side_to_move;
            let (expected_rank, pawn_square, origin) = match mover {
                Color::White => (2, square.offset(8), square.offset(-8)),
                Color::Black => (5, square.offset(-8), square.offset(8)),
            };
            if square.rank() != expected_rank {
                return Err(FenError::EnPassantRank {
                    square,
                    expected_rank: expected_rank + 1,
                    side_to_move: self.side_to_move,
                });
            }
            let (Some(pawn_square), Some(origin)) = (pawn_square, origin) else {
                unreachable!("rank 3 and rank 6 squares have neighbours on both sides");
            };
            if !self.pieces_of(mover, Piece::Pawn).contains(pawn_square) {
                return Err(FenError::EnPassantNoPawn { square, color: mover, pawn_square });
            }
            if self.occupied().contains(square) || self.occupied().contains(origin) {
                return Err(FenError::EnPassantBlocked { square, origin });
            }
        }
        let waiting = !self.side_to_move;
        if self.is_attacked(self.king(waiting), self.side_to_move, self.occupied()) {
            return Err(FenError::OpponentInCheck { color: waiting, side_to_move: self.side_to_move });
        }
        Ok(())
    }

    /// Rejects material no game can reach, as shakmaty does: more than 16
    /// pieces or 8 pawns, or more pieces beyond the starting set than pawns
    /// missing to have promoted from. Every position reached from one that
    /// passes also passes (captures remove pieces; a promotion trades a pawn
    /// for one extra piece), and this bounds the legal moves of every
    /// position this crate handles by [`crate::chess::movegen::MAX_LEGAL_MOVES`].
    fn validate_material(&self, color: Color) -> Result<(), FenError> {
        let count = |piece: Piece| self.pieces_of(color, piece).count();
        let pawns = count(Piece::Pawn);
        if pawns > 8 {
            return Err(FenError::TooManyPawns { color, found: pawns });
        }
        let pieces = self.colored(color).count();
        if pieces > 16 {
            return Err(FenError::TooManyPieces { color, found: pieces });
        }
        let beyond = |piece: Piece, start: u32| count(piece).saturating_sub(start);
        let promoted =
            beyond(Piece::Queen, 1) + beyond(Piece::Rook, 2) + beyond(Piece::Bishop, 2) + beyond(Piece::Knight, 2);
        if promoted > 8 - pawns {
            return Err(FenError::TooManyPromoted { color, promoted, missing_pawns: 8 - pawns });
        }
        Ok(())
    }

    /// The FEN of this position (all six fields).
    pub fn to_fen(&self) -> String {
        let mut fen = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_on(Square::new(file, rank)) {
                    Some((color, piece)) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(piece.fen_letter(color));
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(match self.side_to_move {
            Color::White => " w ",
            Color::Black => " b ",
        });
        if self.castling == CastlingRights::NONE {
            fen.push('-');
        }
        for (letter, right) in CastlingRights::LETTERS {
            if self.castling.contains(right) {
                fen.push(letter);
            }
        }
        match self.en_passant {
            Some(square) => fen.push_str(&format!(" {square}")),
            None => fen.push_str(" -"),
        }
        fen.push_str(&format!(" {} {}", self.halfmove_clock, self.fullmove_number));
        fen
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    #[inline]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The en passant square as FEN gives it (set after every double push).
    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    #[inline]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }

    /// All pieces of one kind, both colours.
    #[inline]
    pub fn pieces(&self, piece: Piece) -> Bitboard {
        self.pieces[piece.index()]
    }

    /// All pieces of one colour.
    #[inline]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    #[inline]
    pub fn pieces_of(&self, color: Color, piece: Piece) -> Bitboard {
        self.pieces[piece.index()] & self.colors[color.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// The square of `color`'s king.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        // A valid position has exactly one king per side.
        Square::from_index(self.pieces_of(color, Piece::King).0.trailing_zeros() as u8)
    }

    /// The piece kind on `square`, if any.
    #[inline]
    pub fn piece_kind_on(&self, square: Square) -> Option<Piece> {
        let bit = Bitboard::from_square(square);
        Piece::ALL.into_iter().find(|piece| !(self.pieces[piece.index()] & bit).is_empty())
    }

    /// The piece and its colour on `square`, if any.
    pub fn piece_on(&self, square: Square) -> Option<(Color, Piece)> {
        let piece = self.piece_kind_on(square)?;
        let color = if self.colors[0].contains(square) { Color::White } else { Color::Black };
        Some((color, piece))
    }

    /// The pieces of colour `by` that attack `square`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers(&self, square: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let queens = self.pieces[Piece::Queen.index()];
        let diagonal = self.pieces[Piece::Bishop.index()] | queens;
        let straight = self.pieces[Piece::Rook.index()] | queens;
        let attackers = (tables::pawn_attacks(!by, square) & self.pieces[Piece::Pawn.index()])
            | (tables::knight_attacks(square) & self.pieces[Piece::Knight.index()])
            | (tables::king_attacks(square) & self.pieces[Piece::King.index()])
            | (bishop_attacks(square, occupied) & diagonal)
            | (rook_attacks(square, occupied) & straight);
        attackers & self.colors[by.index()]
    }

    /// Whether colour `by` attacks `square`, with `occupied` as the blockers.
    #[inline]
    pub fn is_attacked(&self, square: Square, by: Color, occupied: Bitboard) -> bool {
        !self.attackers(square, by, occupied).is_empty()
    }

    /// The pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.attackers(self.king(self.side_to_move), !self.side_to_move, self.occupied())
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        !self.checkers().is_empty()
    }

    /// The position as deep perft tells positions apart ([`PositionIdentity`]):
    /// pieces, side to move, castling rights, and the en passant square only
    /// when an en passant capture is legal; no move counters.
    pub fn identity(&self) -> PositionIdentity {
        let mut planes = [0u64; 4];
        for piece in Piece::ALL {
            let code = piece as u64 + 1;
            for (plane, words) in planes.iter_mut().take(3).enumerate() {
                if code >> plane & 1 == 1 {
                    *words |= self.pieces[piece as usize].0;
                }
            }
        }
        planes[3] = self.colors[Color::Black.index()].0;
        let en_passant = match self.en_passant {
            Some(square) if self.legal_moves().iter().any(|mv| mv.kind() == MoveKind::EnPassant) => square as u64,
            _ => 64,
        };
        let side = u64::from(self.side_to_move == Color::Black);
        PositionIdentity([
            planes[0],
            planes[1],
            planes[2],
            planes[3],
            side | u64::from(self.castling.bits()) << 1 | en_passant << 8,
        ])
    }

    /// Everything but the move counters, as nine words: the six piece
    /// bitboards, the two colours, and side, castling rights and the en
    /// passant square in the last. What the transposition table hashes. The
    /// en passant square is left out when no pawn of the side to move
    /// attacks it: it cannot change a move then, and the same position
    /// reached without a double push then has the same words.
    #[inline]
    pub fn state_words(&self) -> [u64; 9] {
        let us = self.side_to_move;
        let en_passant = match self.en_passant {
            Some(square) if !(tables::pawn_attacks(!us, square) & self.pieces_of(us, Piece::Pawn)).is_empty() => {
                square as u64
            }
            _ => 64,
        };
        let state =
            u64::from(self.side_to_move == Color::Black) | u64::from(self.castling.bits()) << 1 | en_passant << 8;
        let [pawns, knights, bishops, rooks, queens, kings] = self.pieces.map(|bitboard| bitboard.0);
        [pawns, knights, bishops, rooks, queens, kings, self.colors[0].0, self.colors[1].0, state]
    }

    /// The position an identity stands for, with the move counters at 0 and 1.
    pub fn from_identity(identity: &PositionIdentity) -> Position {
        let [first, second, third, black, state] = identity.0;
        let mut position = Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            side_to_move: if state & 1 == 1 { Color::Black } else { Color::White },
            castling: CastlingRights::from_bits((state >> 1) as u8),
            en_passant: match state >> 8 & 0xff {
                64 => None,
                square => Square::ALL.get(square as usize).copied(),
            },
            halfmove_clock: 0,
            fullmove_number: 1,
        };
        for piece in Piece::ALL {
            let code = piece as u64 + 1;
            let mut bits = u64::MAX;
            for (plane, words) in [first, second, third].into_iter().enumerate() {
                bits &= if code >> plane & 1 == 1 { words } else { !words };
            }
            position.pieces[piece as usize] = Bitboard(bits & (first | second | third));
        }
        let occupied = first | second | third;
        position.colors[Color::Black.index()] = Bitboard(black);
        position.colors[Color::White.index()] = Bitboard(occupied & !black);
        position
    }

    /// Plays a legal move (from this position's legal moves) and returns the
    /// new position. The move is not checked: use [`Position::parse_uci_move`]
    /// for moves from outside.
    #[inline]
    pub fn make_move(&self, mv: Move) -> Position {
        let mut next = *self;
        next.play(mv);
        next
    }

    /// Plays a legal move in place (copy-make's in-place half).
    pub fn play(&mut self, mv: Move) {
        let Some(piece) = self.piece_kind_on(mv.from()) else {
            debug_assert!(false, "make_move from an empty square: {mv}");
            return;
        };
        self.play_piece(piece, mv);
    }

    /// [`Position::make_move`] when the caller knows which piece moves (as
    /// move generation does), saving the look-up.
    #[inline]
    pub fn make_move_of(&self, piece: Piece, mv: Move) -> Position {
        let mut next = *self;
        next.play_piece(piece, mv);
        next
    }

    #[inline]
    fn play_piece(&mut self, piece: Piece, mv: Move) {
        let us = self.side_to_move;
        let (from, to) = (mv.from(), mv.to());
        let from_bit = Bitboard::from_square(from);
        let to_bit = Bitboard::from_square(to);
        let captured = if self.colors[(!us).index()].contains(to) { self.piece_kind_on(to) } else { None };

        if let Some(captured) = captured {
            self.pieces[captured.index()] ^= to_bit;
            self.colors[(!us).index()] ^= to_bit;
        }
        self.pieces[piece.index()] ^= from_bit | to_bit;
        self.colors[us.index()] ^= from_bit | to_bit;

        match mv.kind() {
            MoveKind::Normal => {}
            MoveKind::Promotion(promoted) => {
                self.pieces[Piece::Pawn.index()] ^= to_bit;
                self.pieces[promoted.index()] ^= to_bit;
            }
            MoveKind::EnPassant => {
                let victim = Bitboard::from_square(Square::new(to.file(), from.rank()));
                self.pieces[Piece::Pawn.index()] ^= victim;
                self.colors[(!us).index()] ^= victim;
            }
            MoveKind::Castling => {
                let rank = from.rank();
                let (rook_from, rook_to) = if to.file() == 6 { (7, 5) } else { (0, 3) };
                let rook_bits = Bitboard::from_square(Square::new(rook_from, rank))
                    | Bitboard::from_square(Square::new(rook_to, rank));
                self.pieces[Piece::Rook.index()] ^= rook_bits;
                self.colors[us.index()] ^= rook_bits;
            }
        }

        self.castling = CastlingRights(self.castling.0 & CASTLING_KEPT[from.index()] & CASTLING_KEPT[to.index()]);
        self.en_passant = None;
        if piece == Piece::Pawn && from.index().abs_diff(to.index()) == 16 {
            self.en_passant = Some(Square::from_index((from as u8 + to as u8) / 2));
        }
        self.halfmove_clock =
            if piece == Piece::Pawn || captured.is_some() { 0 } else { self.halfmove_clock.saturating_add(1) };
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.side_to_move = !us;
    }
}

fn parse_castling(field: &str) -> Result<CastlingRights, FenError> {
    if field == "-" {
        return Ok(CastlingRights::NONE);
    }
    let error = || FenError::CastlingSyntax { found: field.to_owned() };
    let mut rights = 0u8;
    let mut next_letter = 0;
    for character in field.chars() {
        let offset = CastlingRights::LETTERS[next_letter..]
            .iter()
            .position(|(letter, _)| *letter == character)
            .ok_or_else(error)?;
        rights |= CastlingRights::LETTERS[next_letter + offset].1.0;
        next_letter += offset + 1;
    }
    if rights == 0 {
        return Err(error());
    }
    Ok(CastlingRights(rights))
}

impl FromStr for Position {
    type Err = FenError;

    fn from_str(fen: &str) -> Result<Self, Self::Err> {
        Position::from_fen(fen)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.to_fen())
    }
}
