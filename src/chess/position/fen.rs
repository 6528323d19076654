//! FEN in and out: parsing with every field checked, validation of the
//! position it describes, X-FEN and Shredder-FEN castling, and Chess960's
//! numbered start positions.

use std::fmt;
use std::str::FromStr;

use super::Position;
use crate::chess::board::{Bitboard, CastlingNotation, CastlingRights, CastlingSide, Color, Piece, Square};
use crate::chess::error::FenError;

impl Position {
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
        let position = Position::from_fields_unchecked(&fields)?;
        position.validate()?;
        Ok(position)
    }

    /// A position from FEN's fields (4 or 6), every field checked on its own
    /// and against the placement (castling rooks, the en passant square's
    /// rank), but not the position's legality: the variants check theirs.
    pub(crate) fn from_fields_unchecked(fields: &[&str]) -> Result<Position, FenError> {
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
    pub(crate) fn validate(&self) -> Result<(), FenError> {
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
        self.validate_en_passant()?;
        let waiting = !self.side_to_move;
        if self.is_attacked(self.king(waiting), self.side_to_move, self.occupied()) {
            return Err(FenError::OpponentInCheck { color: waiting, side_to_move: self.side_to_move });
        }
        Ok(())
    }

    /// The en passant square, if any, is where a pawn of the side that just
    /// moved passed, and it and the square the pawn came from are empty.
    pub(crate) fn validate_en_passant(&self) -> Result<(), FenError> {
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
        Ok(())
    }

    /// Rejects material no game can reach, as shakmaty does: more than 16
    /// pieces or 8 pawns, or more pieces beyond the starting set than pawns
    /// missing to have promoted from. Every position reached from one that
    /// passes also passes (captures remove pieces; a promotion trades a pawn
    /// for one extra piece), and this bounds the legal moves of every
    /// position this crate handles by [`crate::chess::movegen::MAX_LEGAL_MOVES`].
    pub(crate) fn validate_material(&self, color: Color) -> Result<(), FenError> {
        self.validate_material_with(color, false)
    }

    /// [`Self::validate_material`], with kings past one counted as promoted
    /// pieces where `kings_promote` (antichess, whose pawns may promote to
    /// kings and whose sides may have none).
    pub(crate) fn validate_material_with(&self, color: Color, kings_promote: bool) -> Result<(), FenError> {
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
        let kings = if kings_promote { beyond(Piece::King, 1) } else { 0 };
        let promoted = beyond(Piece::Queen, 1)
            + beyond(Piece::Rook, 2)
            + beyond(Piece::Bishop, 2)
            + beyond(Piece::Knight, 2)
            + kings;
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
