//! The Rust twins of the chess WGSL structs, one each and named as in the
//! WGSL, with `const` size checks. `tests/gpu_shaders.rs` parses the shaders
//! with naga and checks that every size and field offset here matches.

use bytemuck::{Pod, Zeroable};

use crate::chess::board::{Bitboard, Color, Piece, Square};
use crate::chess::position::Position;

/// `PackedPosition` in shaders/chess/position.wgsl: a quad-bitboard plus state words.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PackedPosition {
    /// Planes 0..2: the bits of each square's piece code (pawn 1 … king 6);
    /// plane 3: black pieces. Each bitboard is (squares 0..31, squares 32..63).
    pub planes: [[u32; 2]; 4],
    /// Bit 0: side to move (1 = black); bits 8..15: en passant square, 64
    /// when none; bits 16..31: castling rights as the files of the rooks that
    /// may castle (bits 16..23 white's, 24..31 black's), as [`CastlingRights`].
    ///
    /// [`CastlingRights`]: crate::CastlingRights
    pub state: u32,
    /// Bits 0..15: halfmove clock; bits 16..31: fullmove number.
    pub counters: u32,
}

/// `PackedVariantPosition` in shaders/chess/variant.wgsl: a chess variant's
/// position, the board as [`PackedPosition`] and the variant's extras.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PackedVariantPosition {
    /// The board.
    pub position: PackedPosition,
    /// Crazyhouse's pockets, five bits a count from pawn (bit 0) to queen;
    /// white's in the first word, black's in the second.
    pub pockets: [u32; 2],
    /// Crazyhouse's promoted pieces, as (squares 0..31, squares 32..63).
    pub promoted: [u32; 2],
    /// Three-check: the checks white still needs in bits 0..3, black's in 4..7.
    pub checks: u32,
    /// Padding; always 0.
    pub reserved: u32,
}

/// `PieceMovesRecord` in shaders/chess/kernels/per_piece.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PieceMovesRecord {
    /// Legal (or pseudo-legal) destinations, as two 32-bit halves.
    pub destinations: [u32; 2],
    /// The square the record is for.
    pub from_square: u32,
    /// Piece code 1..6 (0 for an empty square), plus 8 for a black piece.
    pub piece: u32,
}

/// `PositionMovesRecord` in shaders/chess/kernels/per_position.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct PositionMovesRecord {
    /// Legal destinations per from-square.
    pub destinations: [[u32; 2]; 64],
    /// Pawns whose destinations include an en passant capture.
    pub en_passant_from: [u32; 2],
    /// Legal moves, promotions counted four times.
    pub move_count: u32,
    /// Bit 0: castling king side is legal; bit 1: queen side.
    pub castling: u32,
}

/// `BatchParameters` in shaders/common/batch_io.wgsl, the uniform of the
/// move-generation kernels (every game's batch kernels share it).
pub use crate::gpu::batch::BatchParameters;

const _: () = assert!(size_of::<PackedPosition>() == 40);
const _: () = assert!(size_of::<PackedVariantPosition>() == 64);
const _: () = assert!(size_of::<PieceMovesRecord>() == 16);
const _: () = assert!(size_of::<PositionMovesRecord>() == 528);

/// A bitboard as the shaders store it: (squares 0..31, squares 32..63).
#[inline]
pub const fn split(bitboard: u64) -> [u32; 2] {
    [bitboard as u32, (bitboard >> 32) as u32]
}

/// The inverse of [`split`].
#[inline]
pub const fn join(halves: [u32; 2]) -> u64 {
    halves[0] as u64 | (halves[1] as u64) << 32
}

/// The shaders' piece code: pawn 1 … king 6.
#[inline]
pub const fn piece_code(piece: Piece) -> u32 {
    piece as u32 + 1
}

/// The piece for a shader piece code (the colour bit 8 is ignored).
#[inline]
pub const fn piece_from_code(code: u32) -> Option<Piece> {
    match code & 7 {
        0 => None,
        code => Piece::from_index(code as usize - 1),
    }
}

impl From<&Position> for PackedPosition {
    fn from(position: &Position) -> Self {
        let mut planes = [0u64; 4];
        for piece in Piece::ALL {
            let code = piece_code(piece);
            let squares = position.pieces(piece).0;
            for (bit, plane) in planes.iter_mut().take(3).enumerate() {
                if code >> bit & 1 == 1 {
                    *plane |= squares;
                }
            }
        }
        planes[3] = position.colored(Color::Black).0;
        let en_passant = position.en_passant().map_or(64, |square| square as u32);
        PackedPosition {
            planes: planes.map(split),
            state: position.side_to_move() as u32
                | en_passant << 8
                | u32::from(position.castling_rights().bits()) << 16,
            counters: u32::from(position.halfmove_clock()) | u32::from(position.fullmove_number()) << 16,
        }
    }
}

impl PackedPosition {
    /// The piece sets of the quad-bitboard, for checks on the host.
    pub fn piece_set(&self, piece: Piece) -> Bitboard {
        let [bit0, bit1, bit2, _] = self.planes.map(join);
        let code = piece_code(piece);
        let pick = |plane: u64, bit: u32| if code >> bit & 1 == 1 { plane } else { !plane };
        Bitboard(pick(bit0, 0) & pick(bit1, 1) & pick(bit2, 2))
    }

    /// The en passant square the state word carries.
    pub fn en_passant(&self) -> Option<Square> {
        Square::try_from_index((self.state >> 8 & 255) as u8)
    }
}

impl From<&crate::chess::variant::VariantPosition> for PackedVariantPosition {
    fn from(position: &crate::chess::variant::VariantPosition) -> Self {
        use crate::chess::variant::Pocket;
        let pocket_word = |color: Color| {
            let pocket = position.pocket(color);
            Pocket::PIECES
                .iter()
                .enumerate()
                .fold(0u32, |word, (index, &piece)| word | u32::from(pocket.count(piece).min(31)) << (5 * index))
        };
        PackedVariantPosition {
            position: PackedPosition::from(position.board()),
            pockets: [pocket_word(Color::White), pocket_word(Color::Black)],
            promoted: split(position.promoted().0),
            checks: u32::from(position.remaining_checks(Color::White))
                | u32::from(position.remaining_checks(Color::Black)) << 4,
            reserved: 0,
        }
    }
}
