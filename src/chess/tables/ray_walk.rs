//! The independent reference for sliding attacks: walk each ray square by
//! square until it leaves the board or hits a piece. Plain `u64` and `const
//! fn` so that the attack tables and build.rs can use the same code.

/// The four rook directions as (file step, rank step).
pub const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The four bishop directions as (file step, rank step).
pub const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
/// The rook's directions, then the bishop's.
pub const QUEEN_DIRECTIONS: [(i8, i8); 8] = {
    let mut directions = [(0, 0); 8];
    let mut index = 0;
    while index < 4 {
        directions[index] = ROOK_DIRECTIONS[index];
        directions[index + 4] = BISHOP_DIRECTIONS[index];
        index += 1;
    }
    directions
};

/// Squares attacked from `square` along one direction; the first occupied
/// square is included (it may be a capture), nothing beyond it.
pub const fn ray_attacks(square: u8, occupied: u64, file_step: i8, rank_step: i8) -> u64 {
    let mut attacks = 0;
    let mut file = (square & 7) as i8 + file_step;
    let mut rank = (square >> 3) as i8 + rank_step;
    while file >= 0 && file < 8 && rank >= 0 && rank < 8 {
        let bit = 1u64 << (rank * 8 + file);
        attacks |= bit;
        if occupied & bit != 0 {
            break;
        }
        file += file_step;
        rank += rank_step;
    }
    attacks
}

const fn attacks_along(square: u8, occupied: u64, directions: &[(i8, i8); 4]) -> u64 {
    let mut attacks = 0;
    let mut index = 0;
    while index < 4 {
        let (file_step, rank_step) = directions[index];
        attacks |= ray_attacks(square, occupied, file_step, rank_step);
        index += 1;
    }
    attacks
}

/// Rook attacks from `square` (0..64) given the occupied squares.
pub const fn rook_attacks(square: u8, occupied: u64) -> u64 {
    attacks_along(square, occupied, &ROOK_DIRECTIONS)
}

/// Bishop attacks from `square` (0..64) given the occupied squares.
pub const fn bishop_attacks(square: u8, occupied: u64) -> u64 {
    attacks_along(square, occupied, &BISHOP_DIRECTIONS)
}

/// Queen attacks: the union of rook and bishop attacks.
pub const fn queen_attacks(square: u8, occupied: u64) -> u64 {
    rook_attacks(square, occupied) | bishop_attacks(square, occupied)
}
