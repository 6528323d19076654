//! The position: piece sets, side to move, castling rights, en passant
//! square and move counters; attacks on a square, the identity deep perft
//! compares, and copy-make. FEN in and out is in `fen`.

mod fen;

use crate::chess::board::{Bitboard, CastlingRights, CastlingSide, Color, Move, MoveKind, Piece, Square};
use crate::chess::sliders::{bishop_attacks, rook_attacks};
use crate::chess::tables;

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
    /// Removes whatever stands on `squares` (a variant's explosion).
    pub(crate) fn clear_squares(&mut self, squares: Bitboard) {
        for set in &mut self.pieces {
            *set &= !squares;
        }
        for set in &mut self.colors {
            *set &= !squares;
        }
        self.castling = self.castling.without_squares(squares.0);
    }

    /// Sets the castling rights (a variant that drops them).
    pub(crate) fn set_castling(&mut self, castling: CastlingRights) {
        self.castling = castling;
    }

    /// Sets the en passant square (a variant whose double pushes differ).
    pub(crate) fn set_en_passant(&mut self, en_passant: Option<Square>) {
        self.en_passant = en_passant;
    }

    /// The standard starting position.
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("the start position FEN is valid")
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// The rooks each side may still castle with.
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

    /// The en passant square as FEN gives it (set after every double push).
    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    /// The move number, from 1, raised after black moves.
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

    /// The squares of `color`'s pieces of kind `piece`.
    #[inline]
    pub fn pieces_of(&self, color: Color, piece: Piece) -> Bitboard {
        self.pieces[piece.index()] & self.colors[color.index()]
    }

    /// Every square with a piece.
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

    /// Whether the side to move is attacked.
    #[inline]
    pub fn in_check(&self) -> bool {
        !self.checkers().is_empty()
    }

    /// The position as deep perft tells positions apart ([`PositionIdentity`]):
    /// pieces, side to move, castling rights, and the en passant square only
    /// when an en passant capture is legal; no move counters.
    pub fn identity(&self) -> PositionIdentity {
        let planes = self.code_planes();
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

    /// The pieces as four words: the piece codes (pawn 1 to king 6) in three
    /// bit planes, then black's pieces. The first four words of
    /// [`Position::identity`].
    pub fn code_planes(&self) -> [u64; 4] {
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
        planes
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
    pub(crate) fn play_piece(&mut self, piece: Piece, mv: Move) {
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
            MoveKind::Drop(dropped) => {
                // Standard chess has no drops; a variant's make applies them
                // to its board through this same path.
                self.pieces[dropped.index()] |= to_bit;
                self.colors[us.index()] |= to_bit;
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
}
