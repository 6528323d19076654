//! The ray walk, the independent reference every slider algorithm is tested
//! against. It lives with the attack tables, which are built from it
//! (src/chess/tables/ray_walk.rs); this module names it among the sliders.

pub use crate::chess::tables::ray_walk::{
    BISHOP_DIRECTIONS, ROOK_DIRECTIONS, bishop_attacks, queen_attacks, ray_attacks, rook_attacks,
};
