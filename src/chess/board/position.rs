//! The position: piece sets, side to move, castling rights, en passant
//! square and move counters; FEN in and out; copy-make.

use std::fmt;
use std::str::FromStr;

use super::{Bitboard, Color, Move, MoveKind, Piece, Square};
use crate::chess::error::FenError;
use crate::chess::sliders::{bishop_attacks, rook_attacks};
use crate::chess::tables;

/// Castling rights: the rooks that may still castle, as their files on each
/// side's back rank (bit `f` of the low byte: a white rook on file `f`; the
/// high byte: black's). The side a right castles to follows from the king's
/// file: a rook on a higher file castles king side (king to g, rook to f), one
/// on a lower file queen side (king to c, rook to d). Standard chess has the
/// files a and h; Chess960 any two files with the king between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CastlingRights(u16);

/// The two ways to castle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file: the king ends on g, the rook on f.
    King,
    /// Towards the a-file: the king ends on c, the rook on d.
    Queen,
}

impl CastlingSide {
    /// The side a rook on `rook_file` castles to with the king on `king_file`.
    #[inline]
    pub const fn of(king_file: u8, rook_file: u8) -> CastlingSide {
        if rook_file > king_file { CastlingSide::King } else { CastlingSide::Queen }
    }

    /// The files the king and the rook end on.
    #[inline]
    pub const fn destination_files(self) -> (u8, u8) {
        match self {
            CastlingSide::King => (6, 5),
            CastlingSide::Queen => (2, 3),
        }
    }
}

impl fmt::Display for CastlingSide {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            CastlingSide::King => "king side",
            CastlingSide::Queen => "queen side",
        })
    }
}

/// How [`Position::to_fen_with`] writes the castling field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CastlingNotation {
    /// X-FEN: `K`/`Q` (`k`/`q`) for the outermost rook on that side, the rook's
    /// file letter only for an inner rook. Standard positions read `KQkq`.
    #[default]
    XFen,
    /// Shredder-FEN: always the rook's file letter (`HAha`).
    Shredder,
}

impl CastlingRights {
    pub const NONE: CastlingRights = CastlingRights(0);

    /// The rights as 16 bits: white's rook files in the low byte, black's in the high one.
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }

    #[inline]
    pub const fn from_bits(bits: u16) -> CastlingRights {
        CastlingRights(bits)
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The files of `color`'s rooks that may castle (bit 0 = file a).
    #[inline]
    pub const fn files(self, color: Color) -> u8 {
        (self.0 >> (8 * color as u32)) as u8
    }

    /// The squares of `color`'s rooks that may castle.
    #[inline]
    pub const fn rook_squares(self, color: Color) -> Bitboard {
        Bitboard((self.files(color) as u64) << (8 * color.back_rank() as u32))
    }

    /// The rights left once the squares in `touched` have been moved from or to.
    #[inline(always)]
    const fn without_squares(self, touched: u64) -> CastlingRights {
        let files = (touched & 0xff) as u16 | ((touched >> 48) & 0xff00) as u16;
        CastlingRights(self.0 & !files)
    }

    #[inline(always)]
    const fn without_color(self, color: Color) -> CastlingRights {
        CastlingRights(self.0 & !(0xff << (8 * color as u32)))
    }

    #[inline]
    const fn with_square(self, square: Square) -> CastlingRights {
        let bit = 1u16 << square.file();
        CastlingRights(self.0 | if square.rank() == 0 { bit } else { bit << 8 })
    }
}

/// A chess position, standard or Chess960. Always valid: it is built from a
/// checked FEN or by playing legal moves.
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
/// the last word (bit 0 side, bits 1..16 the castling rook files, bits 17..24
/// the en passant square). Ordered, so that a level of positions can be sorted.
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

    /// Chess960 start position `number` (0..960) in Scharnagl's numbering,
    /// with both sides' castling rights; `None` for a number past 959. Number
    /// 518 is the standard start.
    ///
    /// ```
    /// use gpu_movegen::Position;
    /// assert_eq!(Position::chess960(518), Some(Position::start()));
    /// assert!(Position::chess960(0).unwrap().to_fen().starts_with("bbqnnrkr/"));
    /// assert_eq!(Position::chess960(960), None);
    /// ```
    pub fn chess960(number: u16) -> Option<Position> {
        if number >= 960 {
            return None;
        }
        let mut files: [Option<Piece>; 8] = [None; 8];
        let mut rest = usize::from(number);
        // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
        files[2 * (rest % 4) + 1] = Some(Piece::Bishop);
        rest /= 4;
        files[2 * (rest % 4)] = Some(Piece::Bishop);
        rest /= 4;
        let mut place = |piece: Piece, nth_free: usize| {
            let file = (0..8).filter(|&file| files[file].is_none()).nth(nth_free).expect("a free file is left");
            files[file] = Some(piece);
        };
        place(Piece::Queen, rest % 6);
        rest /= 6;
        // The two knights among the five files left, in Scharnagl's order.
        const KNIGHTS: [(usize, usize); 10] =
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
        let (first, second) = KNIGHTS[rest];
        place(Piece::Knight, second);
        place(Piece::Knight, first);
        // Rook, king, rook on the three files left.
        for piece in [Piece::Rook, Piece::King, Piece::Rook] {
            place(piece, 0);
        }
        let back_rank: String =
            files.iter().map(|piece| piece.map_or('?', |piece| piece.fen_letter(Color::White))).collect();
        let fen = format!("{}/pppppppp/8/8/8/8/PPPPPPPP/{back_rank} w KQkq - 0 1", back_rank.to_ascii_lowercase());
        Some(Position::from_fen(&fen).expect("every Chess960 start position is valid"))
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
        position.castling = position.parse_castling(fields[2])?;
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

    /// The FEN of this position (all six fields), castling in X-FEN: `KQkq`
    /// for the outermost rooks (so standard positions read as standard FEN),
    /// a file letter for an inner rook.
    pub fn to_fen(&self) -> String {
        self.to_fen_with(CastlingNotation::XFen)
    }

    /// The FEN of this position with the castling field in `notation`.
    ///
    /// ```
    /// use gpu_movegen::{CastlingNotation, Position};
    /// let position = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    /// assert!(position.to_fen().contains(" w KQkq - "));
    /// assert!(position.to_fen_with(CastlingNotation::Shredder).contains(" w HFhf - "));
    /// ```
    pub fn to_fen_with(&self, notation: CastlingNotation) -> String {
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
        if self.castling.is_empty() {
            fen.push('-');
        }
        for color in Color::ALL {
            for side in [CastlingSide::King, CastlingSide::Queen] {
                if let Some(rook) = self.castling_rook(color, side) {
                    fen.push(self.castling_letter(color, side, rook, notation));
                }
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

    /// The rook `color` may castle with towards `side`, if it still may.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let king_file = self.king(color).file();
        self.castling.rook_squares(color).squares().find(|rook| CastlingSide::of(king_file, rook.file()) == side)
    }

    /// Whether castling here needs Chess960 rules: a right whose king is off
    /// the e-file or whose rook is off the a- and h-files.
    pub fn is_chess960(&self) -> bool {
        Color::ALL.into_iter().any(|color| {
            !self.castling.rook_squares(color).is_empty()
                && (self.king(color).file() != 4 || self.castling.files(color) & !0x81 != 0)
        })
    }

    /// The letter of one castling right in `notation`.
    fn castling_letter(&self, color: Color, side: CastlingSide, rook: Square, notation: CastlingNotation) -> char {
        let rooks = self.pieces_of(color, Piece::Rook) & Bitboard::rank(color.back_rank());
        let outermost = match side {
            CastlingSide::King => rooks.squares().all(|other| other.file() <= rook.file()),
            CastlingSide::Queen => rooks.squares().all(|other| other.file() >= rook.file()),
        };
        let letter = match (notation, outermost, side) {
            (CastlingNotation::XFen, true, CastlingSide::King) => 'K',
            (CastlingNotation::XFen, true, CastlingSide::Queen) => 'Q',
            _ => char::from(b'A' + rook.file()),
        };
        match color {
            Color::White => letter,
            Color::Black => letter.to_ascii_lowercase(),
        }
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
            side | u64::from(self.castling.bits()) << 1 | en_passant << 17,
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
            u64::from(self.side_to_move == Color::Black) | u64::from(self.castling.bits()) << 1 | en_passant << 17;
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
            castling: CastlingRights::from_bits((state >> 1) as u16),
            en_passant: match state >> 17 & 0xff {
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
        let mut captured = None;

        match mv.kind() {
            MoveKind::Castling => {
                // King takes rook: both leave, both land; the squares may
                // overlap (a king already on g1, a rook on f1), which the
                // exclusive-ors handle.
                let (king_file, rook_file) = mv.castling_side().destination_files();
                let king_to = Bitboard::from_square(Square::new(king_file, from.rank()));
                let rook_to = Bitboard::from_square(Square::new(rook_file, from.rank()));
                self.pieces[Piece::King.index()] ^= from_bit ^ king_to;
                self.pieces[Piece::Rook.index()] ^= to_bit ^ rook_to;
                self.colors[us.index()] ^= from_bit ^ to_bit ^ king_to ^ rook_to;
            }
            kind => {
                captured = if self.colors[(!us).index()].contains(to) { self.piece_kind_on(to) } else { None };
                if let Some(captured) = captured {
                    self.pieces[captured.index()] ^= to_bit;
                    self.colors[(!us).index()] ^= to_bit;
                }
                self.pieces[piece.index()] ^= from_bit | to_bit;
                self.colors[us.index()] ^= from_bit | to_bit;
                match kind {
                    MoveKind::Promotion(promoted) => {
                        self.pieces[Piece::Pawn.index()] ^= to_bit;
                        self.pieces[promoted.index()] ^= to_bit;
                    }
                    MoveKind::EnPassant => {
                        let victim = Bitboard::from_square(Square::new(to.file(), from.rank()));
                        self.pieces[Piece::Pawn.index()] ^= victim;
                        self.colors[(!us).index()] ^= victim;
                    }
                    _ => {}
                }
            }
        }

        // Moving from or capturing on a castling rook's square drops its
        // right; any king move drops both of its side's.
        self.castling = self.castling.without_squares((from_bit | to_bit).0);
        if piece == Piece::King {
            self.castling = self.castling.without_color(us);
        }
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

    /// Reads the castling field (any mix of X-FEN and Shredder-FEN letters)
    /// against the placement already parsed.
    fn parse_castling(&self, field: &str) -> Result<CastlingRights, FenError> {
        if field == "-" {
            return Ok(CastlingRights::NONE);
        }
        let syntax = || FenError::CastlingSyntax { found: field.to_owned() };
        if field.is_empty() || field.len() > 4 {
            return Err(syntax());
        }
        let mut rights = CastlingRights::NONE;
        // The letter that claimed each colour's king side and queen side.
        let mut claimed: [[Option<char>; 2]; 2] = [[None; 2]; 2];
        for right in field.chars() {
            let color = match right {
                'A'..='H' | 'K' | 'Q' => Color::White,
                'a'..='h' | 'k' | 'q' => Color::Black,
                _ => return Err(syntax()),
            };
            let kings = self.pieces_of(color, Piece::King).count();
            if kings != 1 {
                return Err(FenError::KingCount { color, found: kings });
            }
            let rank = color.back_rank();
            let king = self.king(color);
            if king.rank() != rank {
                return Err(FenError::CastlingKingOffBackRank { right, color, king });
            }
            let rooks = self.pieces_of(color, Piece::Rook) & Bitboard::rank(rank);
            let beyond = |side: CastlingSide| {
                rooks.squares().filter(move |rook| CastlingSide::of(king.file(), rook.file()) == side)
            };
            let rook = match right.to_ascii_lowercase() {
                'k' => beyond(CastlingSide::King).last(),
                'q' => beyond(CastlingSide::Queen).next(),
                letter => {
                    let square = Square::new(letter as u8 - b'a', rank);
                    if !rooks.contains(square) {
                        return Err(FenError::CastlingWithoutRook { right, color, square });
                    }
                    Some(square)
                }
            };
            let Some(rook) = rook else {
                let side = if right.eq_ignore_ascii_case(&'k') { CastlingSide::King } else { CastlingSide::Queen };
                return Err(FenError::CastlingNoRookOnSide { right, color, side, king });
            };
            if rights.rook_squares(color).contains(rook) {
                return Err(FenError::CastlingRepeated { right, color, square: rook });
            }
            let side = CastlingSide::of(king.file(), rook.file());
            if let Some(first) = claimed[color.index()][side as usize].replace(right) {
                return Err(FenError::CastlingSameSide { first, second: right, color, side, king });
            }
            rights = rights.with_square(rook);
        }
        Ok(rights)
    }
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
