//! A Shogi position and its SFEN, with validation that names the field and
//! the problem.

use super::board::{Bitboard, Color, Piece};

/// The start position.
pub const START_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Why an SFEN string was rejected. Each message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SfenError {
    #[error("SFEN has {found} fields; expected 4 (board, side to move, hands, move number) or the first 3")]
    FieldCount { found: usize },
    #[error("board: {found} ranks separated by '/'; expected 9")]
    RankCount { found: usize },
    #[error(
        "board, rank {rank}: '{character}' is not a piece letter (PLNSGBRK, plnsgbrk, '+' before a promotable one) or a digit 1-9"
    )]
    BadPieceLetter { rank: char, character: char },
    #[error("board, rank {rank}: '+{character}' is not a piece that promotes")]
    BadPromotion { rank: char, character: char },
    #[error("board, rank {rank}: describes {squares} squares; a rank must describe exactly 9")]
    RankWidth { rank: char, squares: usize },
    #[error("side to move is '{found}'; expected 'b' or 'w'")]
    SideToMove { found: String },
    #[error("hands: '{found}' is not a list of counts and piece letters such as 2Pn3p, or '-'")]
    HandSyntax { found: String },
    #[error("hands: {count} {piece} in all; a set has only {limit}")]
    TooMany { piece: char, count: u32, limit: u32 },
    #[error("move number is '{found}'; expected a whole number of at least 1")]
    MoveNumber { found: String },
    #[error("board: {color} has {found} kings; each side needs exactly one")]
    KingCount { color: Color, found: u32 },
    #[error(
        "board: {color}'s {piece} on {square} has no move (a pawn or lance on the last rank, a knight on the last two)"
    )]
    DeadPiece { color: Color, piece: char, square: String },
    #[error("board: {color} has two unpromoted pawns on file {file} (nifu)")]
    TwoPawns { color: Color, file: u8 },
    #[error("{color} is in check but it is {side_to_move} to move; the side not to move cannot be in check")]
    OpponentInCheck { color: Color, side_to_move: Color },
}

/// A Shogi position: the pieces, both hands, the side to move, the move number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) pieces: [Bitboard; 14],
    pub(crate) colors: [Bitboard; 2],
    /// Pieces in hand per side, by [`Piece::hand_index`] (P, L, N, S, G, B, R).
    pub(crate) hands: [[u8; 7]; 2],
    pub(crate) side_to_move: Color,
    pub(crate) move_number: u32,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    pub fn start() -> Position {
        Position::from_sfen(START_SFEN).expect("the start position is valid")
    }

    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    pub fn pieces(&self, piece: Piece) -> Bitboard {
        self.pieces[piece.index()]
    }

    pub fn colored(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    pub fn pieces_of(&self, color: Color, piece: Piece) -> Bitboard {
        self.pieces[piece.index()] & self.colors[color.index()]
    }

    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// How many of `piece` (unpromoted kind) `color` holds in hand.
    pub fn in_hand(&self, color: Color, piece: Piece) -> u8 {
        self.hands[color.index()][piece.hand_index()]
    }

    pub fn piece_on(&self, square: u8) -> Option<(Color, Piece)> {
        let color = Color::ALL.into_iter().find(|color| self.colors[color.index()].contains(square))?;
        let piece = Piece::ALL.into_iter().find(|piece| self.pieces[piece.index()].contains(square))?;
        Some((color, piece))
    }

    pub(crate) fn put(&mut self, color: Color, piece: Piece, square: u8) {
        let bit = Bitboard::from_square(square);
        self.pieces[piece.index()] |= bit;
        self.colors[color.index()] |= bit;
    }

    /// The king of `color`'s square, if it has one.
    pub fn king(&self, color: Color) -> Option<u8> {
        self.pieces_of(color, Piece::King).next()
    }

    /// Parses and validates an SFEN string.
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        let fields: Vec<&str> = sfen.split_whitespace().collect();
        if !(3..=4).contains(&fields.len()) {
            return Err(SfenError::FieldCount { found: fields.len() });
        }
        let mut position = Position {
            pieces: [Bitboard::EMPTY; 14],
            colors: [Bitboard::EMPTY; 2],
            hands: [[0; 7]; 2],
            side_to_move: Color::Black,
            move_number: 1,
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 9 {
            return Err(SfenError::RankCount { found: ranks.len() });
        }
        for (rank_index, text) in ranks.iter().enumerate() {
            let rank = (b'a' + rank_index as u8) as char;
            let mut column = 0usize;
            let mut promoted = false;
            for character in text.chars() {
                if let Some(digit) =
                    character.to_digit(10).filter(|digit| (1..=9).contains(digit)).filter(|_| !promoted)
                {
                    column += digit as usize;
                    continue;
                }
                if character == '+' && !promoted {
                    promoted = true;
                    continue;
                }
                let Some(kind) = Piece::from_letter(character) else {
                    return Err(SfenError::BadPieceLetter { rank, character });
                };
                let piece =
                    if promoted { kind.promoted().ok_or(SfenError::BadPromotion { rank, character })? } else { kind };
                promoted = false;
                if column < 9 {
                    let color = if character.is_ascii_uppercase() { Color::Black } else { Color::White };
                    position.put(color, piece, (rank_index * 9 + column) as u8);
                }
                column += 1;
            }
            if promoted {
                return Err(SfenError::BadPieceLetter { rank, character: '+' });
            }
            if column != 9 {
                return Err(SfenError::RankWidth { rank, squares: column });
            }
        }
        position.side_to_move = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(SfenError::SideToMove { found: other.to_owned() }),
        };
        if fields[2] != "-" {
            let syntax = || SfenError::HandSyntax { found: fields[2].to_owned() };
            let mut count: Option<u32> = None;
            for character in fields[2].chars() {
                if let Some(digit) = character.to_digit(10) {
                    let value = count.unwrap_or(0) * 10 + digit;
                    if value == 0 || value > 18 {
                        return Err(syntax());
                    }
                    count = Some(value);
                    continue;
                }
                let piece = Piece::from_letter(character).filter(|piece| *piece != Piece::King).ok_or_else(syntax)?;
                let color = if character.is_ascii_uppercase() { Color::Black } else { Color::White };
                let slot = &mut position.hands[color.index()][piece.hand_index()];
                *slot = slot.saturating_add(count.take().unwrap_or(1) as u8);
            }
            if count.is_some() {
                return Err(syntax());
            }
        }
        if let Some(number) = fields.get(3) {
            position.move_number = number
                .parse()
                .ok()
                .filter(|number| *number >= 1)
                .ok_or_else(|| SfenError::MoveNumber { found: (*number).to_owned() })?;
        }
        position.validate()?;
        Ok(position)
    }

    fn validate(&self) -> Result<(), SfenError> {
        for kind in [Piece::Pawn, Piece::Lance, Piece::Knight, Piece::Silver, Piece::Gold, Piece::Bishop, Piece::Rook] {
            let mut count = Color::ALL.iter().map(|color| u32::from(self.in_hand(*color, kind))).sum::<u32>();
            count += self.pieces(kind).count();
            if let Some(promoted) = kind.promoted() {
                count += self.pieces(promoted).count();
            }
            if count > kind.in_set() {
                return Err(SfenError::TooMany { piece: kind.letter(), count, limit: kind.in_set() });
            }
        }
        for color in Color::ALL {
            let kings = self.pieces_of(color, Piece::King).count();
            if kings != 1 {
                return Err(SfenError::KingCount { color, found: kings });
            }
            for (piece, ranks) in [(Piece::Pawn, 1), (Piece::Lance, 1), (Piece::Knight, 2)] {
                let dead = super::movegen::dead_zone(color, ranks);
                if let Some(square) = (self.pieces_of(color, piece) & dead).next() {
                    return Err(SfenError::DeadPiece {
                        color,
                        piece: piece.letter(),
                        square: super::board::square_name(square),
                    });
                }
            }
            let pawns = self.pieces_of(color, Piece::Pawn);
            for column in 0..9 {
                if (pawns & Bitboard::column(column)).count() > 1 {
                    return Err(SfenError::TwoPawns { color, file: 9 - column });
                }
            }
        }
        let waiting = !self.side_to_move;
        if super::movegen::in_check(self, waiting) {
            return Err(SfenError::OpponentInCheck { color: waiting, side_to_move: self.side_to_move });
        }
        Ok(())
    }

    /// The SFEN of this position (all four fields).
    pub fn to_sfen(&self) -> String {
        let mut sfen = String::with_capacity(90);
        for rank in 0..9u8 {
            let mut empty = 0;
            for column in 0..9u8 {
                match self.piece_on(rank * 9 + column) {
                    Some((color, piece)) => {
                        if empty > 0 {
                            sfen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        if piece.promoted().is_none() && piece.unpromoted() != piece {
                            sfen.push('+');
                        }
                        let letter = piece.letter();
                        sfen.push(if color == Color::Black { letter } else { letter.to_ascii_lowercase() });
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                sfen.push(char::from(b'0' + empty));
            }
            if rank < 8 {
                sfen.push('/');
            }
        }
        sfen.push_str(if self.side_to_move == Color::Black { " b " } else { " w " });
        let mut hands = String::new();
        for color in Color::ALL {
            for piece in Piece::HAND {
                let count = self.in_hand(color, piece);
                if count > 1 {
                    hands.push_str(&count.to_string());
                }
                if count > 0 {
                    let letter = piece.letter();
                    hands.push(if color == Color::Black { letter } else { letter.to_ascii_lowercase() });
                }
            }
        }
        sfen.push_str(if hands.is_empty() { "-" } else { &hands });
        sfen.push_str(&format!(" {}", self.move_number));
        sfen
    }
}
