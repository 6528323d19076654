//! SFEN in and out: every field checked, and the position it describes
//! validated (piece counts, one king a side, no piece without a move, no two
//! pawns on a file, the side not to move not in check). It sits above move
//! generation, whose check test the last rule needs.

use super::board::{Bitboard, Color, Piece, dead_zone};
use super::movegen::in_check;
use super::position::Position;

/// The start position.
pub const START_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Why an SFEN string was rejected. Each message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SfenError {
    /// Too many or too few fields.
    #[error(
        "SFEN has {found} field{}; expected 4 (board, side to move, hands, move number) or the first 3",
        if *found == 1 { "" } else { "s" }
    )]
    FieldCount {
        /// How many there are.
        found: usize,
    },
    /// The board does not have nine ranks.
    #[error("board: {found} ranks separated by '/'; expected 9")]
    RankCount {
        /// How many there are.
        found: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    #[error(
        "board, rank {rank}: '{character}' is not a piece letter (PLNSGBRK, plnsgbrk, '+' before a promotable one) or a digit 1-9"
    )]
    BadPieceLetter {
        /// The rank, as the SFEN letters them (a to i from the top).
        rank: char,
        /// The character found.
        character: char,
    },
    /// A `+` before a piece that does not promote.
    #[error("board, rank {rank}: '+{character}' is not a piece that promotes")]
    BadPromotion {
        /// The rank, as the SFEN letters them (a to i from the top).
        rank: char,
        /// The character found.
        character: char,
    },
    /// A rank that describes more or fewer than nine squares.
    #[error("board, rank {rank}: describes {squares} squares; a rank must describe exactly 9")]
    RankWidth {
        /// The rank, as the SFEN letters them (a to i from the top).
        rank: char,
        /// How many squares the rank describes.
        squares: usize,
    },
    /// A side to move other than `b` or `w`.
    #[error("side to move is '{found}'; expected 'b' or 'w'")]
    SideToMove {
        /// What the text holds there.
        found: String,
    },
    /// A hands field that does not read.
    #[error("hands: '{found}' is not a list of counts and piece letters such as 2Pn3p, or '-'")]
    HandSyntax {
        /// What the text holds there.
        found: String,
    },
    /// More pieces of a kind, on the board and in hand, than a set holds.
    #[error("hands: {count} {piece} in all; a set has only {limit}")]
    TooMany {
        /// The piece letter.
        piece: char,
        /// How many there are.
        count: u32,
        /// How many a set holds.
        limit: u32,
    },
    /// A move number that is not a whole number of at least 1.
    #[error("move number is '{found}'; expected a whole number of at least 1")]
    MoveNumber {
        /// What the text holds there.
        found: String,
    },
    /// A side without exactly one king.
    #[error("board: {color} has {found} kings; each side needs exactly one")]
    KingCount {
        /// The side.
        color: Color,
        /// How many there are.
        found: u32,
    },
    /// A piece that could never move again where it stands.
    #[error(
        "board: {color}'s {piece} on {square} has no move (a pawn or lance on the last rank, a knight on the last two)"
    )]
    DeadPiece {
        /// The side.
        color: Color,
        /// The piece letter.
        piece: char,
        /// The square, in USI notation.
        square: String,
    },
    /// Two unpromoted pawns of one side on a file (nifu).
    #[error("board: {color} has two unpromoted pawns on file {file} (nifu)")]
    TwoPawns {
        /// The side.
        color: Color,
        /// The file, 1 to 9.
        file: u8,
    },
    /// The side not to move is in check.
    #[error("{color} is in check but it is {side_to_move} to move; the side not to move cannot be in check")]
    OpponentInCheck {
        /// The side.
        color: Color,
        /// The side to move.
        side_to_move: Color,
    },
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The start position.
    pub fn start() -> Position {
        Position::from_sfen(START_SFEN).expect("the start position is valid")
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
                let dead = dead_zone(color, ranks);
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
        if in_check(self, waiting) {
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
