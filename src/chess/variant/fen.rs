//! Variant FEN in and out. The board fields are standard FEN (X-FEN and
//! Shredder-FEN castling); the variants add:
//!
//! - three-check: the checks each side still needs, `3+3` after the en
//!   passant field (python-chess, shakmaty), or lichess's checks given,
//!   `+0+0` after the move counters;
//! - crazyhouse: the pockets, `[Qn]` after the placement or as a ninth rank
//!   (`.../RNBQKBNR/Qn`), and `~` after a piece that was a pawn.
//!
//! Every field is checked against the variant: a pocket outside crazyhouse,
//! castling rights for a king a variant does not have, check counters no
//! game can reach, a horde without its pawns where it needs them, each is
//! refused with the field named.

use super::{Pocket, Variant, VariantPosition};
use crate::chess::board::{Bitboard, Color, Piece, Square};
use crate::chess::error::FenError;
use crate::chess::position::Position;

fn variant_error(field: &'static str, problem: impl Into<String>) -> FenError {
    FenError::Variant { field, problem: problem.into() }
}

/// The parts of a crazyhouse placement: the board with its `~` marks taken
/// out, the squares they marked, and the pocket's text.
struct Placement {
    board: String,
    promoted: Bitboard,
    pocket: Option<String>,
}

fn split_placement(field: &str) -> Result<Placement, FenError> {
    let (board, pocket) = if let Some(inside) = field.strip_suffix(']') {
        let Some((board, pocket)) = inside.split_once('[') else {
            return Err(variant_error("pocket", format!("'{field}' ends with ']' but has no '[' before it")));
        };
        (board, Some(pocket.to_owned()))
    } else if field.matches('/').count() == 8 {
        let (board, pocket) = field.rsplit_once('/').expect("eight slashes");
        (board, Some(pocket.to_owned()))
    } else {
        (field, None)
    };
    // `~` marks the piece before it; find the squares by walking the ranks
    // as the placement describes them (placement errors are left to the board's parser).
    let mut promoted = Bitboard::EMPTY;
    let mut cleaned = String::with_capacity(board.len());
    for (row, text) in board.split('/').enumerate() {
        if row > 0 {
            cleaned.push('/');
        }
        let rank = 7u8.saturating_sub(row as u8);
        let mut file = 0u32;
        let mut previous_piece = None;
        for character in text.chars() {
            if character == '~' {
                let Some(square) = previous_piece.take() else {
                    return Err(variant_error(
                        "piece placement",
                        format!("rank {}: '~' must follow a piece letter (it marks a promoted piece)", rank + 1),
                    ));
                };
                promoted |= Bitboard::from_square(square);
                continue;
            }
            cleaned.push(character);
            previous_piece = None;
            if let Some(digit) = character.to_digit(10) {
                file += digit;
            } else {
                if file < 8 && row < 8 {
                    previous_piece = Some(Square::new(file as u8, rank));
                }
                file += 1;
            }
        }
    }
    Ok(Placement { board: cleaned, promoted, pocket })
}

fn parse_pocket(text: &str) -> Result<[Pocket; 2], FenError> {
    let mut pockets = [Pocket::default(); 2];
    for character in text.chars() {
        let Some((color, piece)) = Piece::from_fen_letter(character) else {
            return Err(variant_error(
                "pocket",
                format!("'{character}' is not a piece letter; a pocket holds PNBRQ (white) and pnbrq (black)"),
            ));
        };
        if piece == Piece::King {
            return Err(variant_error("pocket", "a king cannot be in a pocket"));
        }
        let count = &mut pockets[color.index()].0[piece.index()];
        *count = count.saturating_add(1);
    }
    Ok(pockets)
}

/// Reads a check-counter field: two digits 0 to 3 around a `+`.
fn parse_counters(text: &str, field: &'static str) -> Result<[u8; 2], FenError> {
    let bad = || variant_error(field, format!("'{text}' is not two counts from 0 to 3 joined by '+', such as 3+3"));
    let (white, black) = text.split_once('+').ok_or_else(bad)?;
    let count = |part: &str| -> Result<u8, FenError> {
        match part.parse::<u8>() {
            Ok(value) if value <= 3 && part.len() == 1 => Ok(value),
            _ => Err(bad()),
        }
    };
    Ok([count(white)?, count(black)?])
}

impl VariantPosition {
    /// Parses and validates a FEN of `variant` (see the module documentation
    /// for the fields each variant adds).
    ///
    /// ```
    /// use gpu_movegen::chess::variant::{Variant, VariantPosition};
    /// let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1";
    /// let position = VariantPosition::from_fen(Variant::ThreeCheck, fen).unwrap();
    /// assert_eq!(position.to_fen(), fen);
    /// assert!(VariantPosition::from_fen(Variant::Atomic, "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1").is_err());
    /// ```
    pub fn from_fen(variant: Variant, fen: &str) -> Result<VariantPosition, FenError> {
        let mut fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.is_empty() {
            return Err(FenError::FieldCount { found: 0 });
        }
        // Check counters: lichess's checks given after the counters, or the
        // checks remaining after the en passant field.
        let mut remaining_checks = None;
        if fields.len() >= 7 && fields[6].starts_with('+') {
            let given = parse_counters(&fields[6][1..], "check counters")?;
            remaining_checks = Some([3 - given[0], 3 - given[1]]);
            fields.remove(6);
        } else if fields.len() >= 5 && fields[4].contains('+') {
            remaining_checks = Some(parse_counters(fields[4], "check counters")?);
            fields.remove(4);
        }
        if remaining_checks.is_some() && variant != Variant::ThreeCheck {
            return Err(variant_error(
                "check counters",
                format!("only three-check FENs count checks; this is a {variant} FEN"),
            ));
        }
        let placement = split_placement(fields[0])?;
        if variant != Variant::Crazyhouse {
            if placement.pocket.is_some() {
                return Err(variant_error(
                    "pocket",
                    format!("only crazyhouse positions have pockets; this is a {variant} FEN"),
                ));
            }
            if !placement.promoted.is_empty() {
                return Err(variant_error(
                    "piece placement",
                    format!("'~' marks a promoted piece, which only crazyhouse tracks; this is a {variant} FEN"),
                ));
            }
        }
        if fields.len() >= 3 {
            let castling = fields[2];
            match variant {
                Variant::Antichess | Variant::RacingKings if castling != "-" => {
                    return Err(variant_error(
                        "castling",
                        format!("'{castling}': nobody castles in {variant}; the field must be '-'"),
                    ));
                }
                Variant::Horde if castling.chars().any(|right| right.is_ascii_uppercase()) => {
                    return Err(variant_error(
                        "castling",
                        format!("'{castling}': in horde white has no king and cannot castle"),
                    ));
                }
                _ => {}
            }
        }
        let mut board_fields = fields.clone();
        board_fields[0] = &placement.board;
        // Kings each castling side needs are checked by the board's parser.
        let board = Position::from_fields_unchecked(&board_fields)?;
        let pockets = match &placement.pocket {
            Some(text) => parse_pocket(text)?,
            None => [Pocket::default(); 2],
        };
        let position = VariantPosition {
            variant,
            board,
            remaining_checks: remaining_checks.unwrap_or([3, 3]),
            pockets,
            promoted: placement.promoted,
        };
        position.validate()?;
        Ok(position)
    }

    /// Checks what the variant asks of a position (see the module documentation).
    fn validate(&self) -> Result<(), FenError> {
        let board = &self.board;
        let kings = |color: Color| board.pieces_of(color, Piece::King).count();
        let one_king = |color: Color| match kings(color) {
            1 => Ok(()),
            found => Err(FenError::KingCount { color, found }),
        };
        let back_ranks = Bitboard::rank(0) | Bitboard::rank(7);
        let pawns = board.pieces(Piece::Pawn);
        match self.variant {
            Variant::Antichess => {
                if board.occupied().is_empty() {
                    return Err(variant_error("piece placement", "the board is empty"));
                }
                for color in Color::ALL {
                    // Kings are ordinary pieces: a side may have none, and kings past one count as promoted.
                    board.validate_material_with(color, true)?;
                }
            }
            Variant::Horde => {
                if kings(Color::White) != 0 {
                    return Err(variant_error("piece placement", "in horde white has no king"));
                }
                if kings(Color::Black) != 1 {
                    return Err(FenError::KingCount { color: Color::Black, found: kings(Color::Black) });
                }
                let white = board.colored(Color::White).count();
                if white > 36 {
                    return Err(variant_error(
                        "piece placement",
                        format!("white has {white} pieces; the horde starts with 36 pawns and never gains any"),
                    ));
                }
                board.validate_material(Color::Black)?;
                if let Some(square) = (pawns & Bitboard::rank(7)).first() {
                    return Err(FenError::PawnOnBackRank { square });
                }
                if let Some(square) = (board.pieces_of(Color::Black, Piece::Pawn) & Bitboard::rank(0)).first() {
                    return Err(FenError::PawnOnBackRank { square });
                }
            }
            Variant::Atomic => {
                for color in Color::ALL {
                    if kings(color) > 1 {
                        return Err(FenError::KingCount { color, found: kings(color) });
                    }
                    board.validate_material(color)?;
                }
                // The side to move may have lost its king (the game is over);
                // the side that just moved cannot have.
                let waiting = !board.side_to_move();
                if kings(waiting) == 0 {
                    return Err(variant_error(
                        "piece placement",
                        format!("{waiting} has no king but just moved; only the side to move can have lost its king"),
                    ));
                }
            }
            Variant::RacingKings => {
                for color in Color::ALL {
                    one_king(color)?;
                    let count = |piece: Piece| board.pieces_of(color, piece).count();
                    if count(Piece::Queen) > 1
                        || count(Piece::Rook) > 2
                        || count(Piece::Bishop) > 2
                        || count(Piece::Knight) > 2
                    {
                        return Err(variant_error(
                            "piece placement",
                            format!(
                                "{color} has more pieces of a kind than racing kings starts with (one queen, two rooks, bishops and knights)"
                            ),
                        ));
                    }
                }
                if let Some(square) = pawns.first() {
                    return Err(variant_error(
                        "piece placement",
                        format!("pawn on {square}; racing kings has no pawns"),
                    ));
                }
            }
            Variant::Crazyhouse => {
                for color in Color::ALL {
                    one_king(color)?;
                }
                let pocket_pawns: u32 = self.pockets.iter().map(|pocket| u32::from(pocket.count(Piece::Pawn))).sum();
                if pawns.count() + pocket_pawns > 16 {
                    return Err(variant_error(
                        "pocket",
                        format!(
                            "{} pawns on the board and in the pockets; a game has 16",
                            pawns.count() + pocket_pawns
                        ),
                    ));
                }
                let pocketed: u32 = self.pockets.iter().map(Pocket::total).sum();
                if board.occupied().count() + pocketed > 32 {
                    return Err(variant_error(
                        "pocket",
                        format!(
                            "{} pieces on the board and in the pockets; a game has 32",
                            board.occupied().count() + pocketed
                        ),
                    ));
                }
                let promotable = board.occupied() & !pawns & !board.pieces(Piece::King);
                if let Some(square) = (self.promoted & !promotable).first() {
                    return Err(variant_error(
                        "piece placement",
                        format!("'~' on {square}: only a knight, bishop, rook or queen can have been promoted"),
                    ));
                }
                if let Some(square) = (pawns & back_ranks).first() {
                    return Err(FenError::PawnOnBackRank { square });
                }
            }
            Variant::Chess | Variant::KingOfTheHill | Variant::ThreeCheck => {
                for color in Color::ALL {
                    one_king(color)?;
                    board.validate_material(color)?;
                }
            }
        }
        if !matches!(self.variant, Variant::Horde | Variant::Crazyhouse)
            && let Some(square) = (pawns & back_ranks).first()
        {
            return Err(FenError::PawnOnBackRank { square });
        }
        board.validate_en_passant()?;
        self.validate_checks()
    }

    /// Who may be in check, and the end a position's counters and kings can show.
    fn validate_checks(&self) -> Result<(), FenError> {
        let board = &self.board;
        let us = board.side_to_move();
        let waiting = !us;
        let king_attacked = |color: Color| {
            board.pieces_of(color, Piece::King).squares().any(|king| board.is_attacked(king, !color, board.occupied()))
        };
        match self.variant {
            Variant::Antichess => Ok(()),
            Variant::Atomic => {
                // Adjacent kings cannot give check: a capture would explode both.
                if !self.kings_touch() && king_attacked(waiting) {
                    return Err(FenError::OpponentInCheck { color: waiting, side_to_move: us });
                }
                Ok(())
            }
            Variant::Horde => {
                if us == Color::White && king_attacked(Color::Black) {
                    return Err(FenError::OpponentInCheck { color: Color::Black, side_to_move: us });
                }
                Ok(())
            }
            Variant::RacingKings => {
                for color in Color::ALL {
                    if king_attacked(color) {
                        return Err(variant_error(
                            "piece placement",
                            format!("{color} is in check; in racing kings no move may give check"),
                        ));
                    }
                }
                if us == Color::Black
                    && Color::ALL
                        .iter()
                        .all(|&color| !(board.pieces_of(color, Piece::King) & Bitboard::rank(7)).is_empty())
                {
                    return Err(variant_error(
                        "piece placement",
                        "both kings are on the eighth rank with black to move; the race ended when black reached it",
                    ));
                }
                Ok(())
            }
            Variant::ThreeCheck => {
                if king_attacked(waiting) {
                    return Err(FenError::OpponentInCheck { color: waiting, side_to_move: us });
                }
                let [white, black] = self.remaining_checks;
                let (ours, theirs) = if us == Color::White { (white, black) } else { (black, white) };
                if ours == 0 {
                    return Err(variant_error(
                        "check counters",
                        format!(
                            "{us} is to move but has no checks left to give: the game ended when it gave its third"
                        ),
                    ));
                }
                if theirs == 0 && !king_attacked(us) {
                    return Err(variant_error(
                        "check counters",
                        format!("{waiting} gave its third check with its last move, but {us} is not in check"),
                    ));
                }
                Ok(())
            }
            Variant::KingOfTheHill => {
                if king_attacked(waiting) {
                    return Err(FenError::OpponentInCheck { color: waiting, side_to_move: us });
                }
                if !(board.pieces_of(us, Piece::King) & super::rules::HILL).is_empty() {
                    return Err(variant_error(
                        "piece placement",
                        format!("{us}'s king is on the hill but {us} is to move: the game ended when it got there"),
                    ));
                }
                Ok(())
            }
            Variant::Chess | Variant::Crazyhouse => {
                if king_attacked(waiting) {
                    return Err(FenError::OpponentInCheck { color: waiting, side_to_move: us });
                }
                Ok(())
            }
        }
    }

    /// The FEN of this position: the board fields as standard FEN writes
    /// them (X-FEN castling), crazyhouse's pocket in brackets with `~` after
    /// promoted pieces, three-check's remaining checks after the en passant
    /// field, as python-chess writes them.
    pub fn to_fen(&self) -> String {
        let fen = self.board.to_fen();
        let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
        if self.variant == Variant::Crazyhouse {
            let mut placement = String::with_capacity(fields[0].len() + 16);
            let mut square_index = 56i32;
            for character in fields[0].chars() {
                placement.push(character);
                match character {
                    '/' => square_index -= 16,
                    '1'..='8' => square_index += character as i32 - '0' as i32,
                    _ => {
                        if self.promoted.contains(Square::from_index(square_index as u8)) {
                            placement.push('~');
                        }
                        square_index += 1;
                    }
                }
            }
            placement.push('[');
            for color in Color::ALL {
                for piece in Pocket::PIECES.iter().rev() {
                    for _ in 0..self.pockets[color.index()].count(*piece) {
                        placement.push(piece.fen_letter(color));
                    }
                }
            }
            placement.push(']');
            fields[0] = placement;
        }
        if self.variant == Variant::ThreeCheck {
            fields.insert(4, format!("{}+{}", self.remaining_checks[0], self.remaining_checks[1]));
        }
        fields.join(" ")
    }

    /// Whether the two kings stand next to each other (atomic: neither is then in check).
    pub(super) fn kings_touch(&self) -> bool {
        let board = &self.board;
        let white = board.pieces_of(Color::White, Piece::King);
        let black = board.pieces_of(Color::Black, Piece::King);
        white.squares().any(|king| !(crate::chess::tables::king_attacks(king) & black).is_empty())
    }
}
