//! The OpenCL generator's pseudo-legal semantics (its per-piece kernel body), on
//! the CPU with the fast sliders: the reference for the GPU kernel's
//! `pseudo_legal` mode, written independently of the Kogge-Stone fill.
//!
//! For a piece of the side to move: its captures plus its quiet moves (a
//! pawn pushes one square, or two from its start rank through an empty
//! square). For a piece of the other side: every square it attacks, own
//! pieces included (what check detection needs). No castling, en passant,
//! promotion or legality: exactly what the OpenCL generator leaves out.

use crate::chess::board::{Bitboard, Piece, Square};
use crate::chess::position::Position;
use crate::chess::sliders::{bishop_attacks, queen_attacks, rook_attacks};
use crate::chess::tables;

/// The destinations of the piece on `square` in the OpenCL generator's
/// pseudo-legal sense (see the module documentation); empty for an empty square.
pub fn seed_destinations(position: &Position, square: Square) -> Bitboard {
    let Some((color, piece)) = position.piece_on(square) else {
        return Bitboard::EMPTY;
    };
    let occupied = position.occupied();
    let attacks = match piece {
        Piece::Pawn => tables::pawn_attacks(color, square),
        Piece::Knight => tables::knight_attacks(square),
        Piece::Bishop => bishop_attacks(square, occupied),
        Piece::Rook => rook_attacks(square, occupied),
        Piece::Queen => queen_attacks(square, occupied),
        Piece::King => tables::king_attacks(square),
    };
    let side_to_move = position.side_to_move();
    if color != side_to_move {
        return attacks;
    }
    let captures = attacks & position.colored(!side_to_move);
    let quiet = if piece == Piece::Pawn {
        let step: i8 = if color == crate::Color::White { 8 } else { -8 };
        let start_rank = if color == crate::Color::White { 1 } else { 6 };
        match square.offset(step).filter(|single| !occupied.contains(*single)) {
            None => Bitboard::EMPTY,
            Some(single) => {
                let double =
                    square.offset(2 * step).filter(|double| square.rank() == start_rank && !occupied.contains(*double));
                double.into_iter().chain([single]).collect()
            }
        }
    } else {
        attacks & !occupied
    };
    captures | quiet
}
