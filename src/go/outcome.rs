//! How a playout ends: the area difference and the moves played, the
//! winner under a komi, and the move cap. Below both playout engines (the
//! plain bitmap twin in `playout` and the chains in `chains`), which share it.

/// The largest komi accepted, either way: past it the score of any board
/// up to 19×19 (361 points) is decided by komi alone.
pub const MAX_KOMI: f64 = 1000.0;

/// How one playout ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlayoutResult {
    /// Black's area minus white's at the end, before komi.
    pub area_difference: i32,
    /// Moves played, passes included.
    pub moves: u32,
}

impl PlayoutResult {
    /// +1 when black wins with this komi, -1 when white does, 0 for a draw.
    pub fn winner_sign(&self, komi: f64) -> i32 {
        let score = f64::from(self.area_difference) - komi;
        if score > 0.0 {
            1
        } else if score < 0.0 {
            -1
        } else {
            0
        }
    }
}

/// The move cap of a playout on a board of `size`.
pub fn move_cap(size: u32) -> u32 {
    3 * size * size
}
