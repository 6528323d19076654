//! Handicap placement as GTP version 2 specifies it (section 4.1.1): the
//! fixed points for `fixed_handicap`, and the engine's own choice for
//! `place_free_handicap` (the fixed points first, then the points farthest
//! from every stone placed, so the stones spread).

use super::position::Point;

/// Why a handicap was refused, as GTP words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandicapError {
    /// Fewer than 2 stones, or more than the board size allows.
    #[error("invalid number of stones")]
    InvalidNumber,
}

/// The most stones `fixed_handicap` places on a board of `size`: none below
/// 7×7, four on 7×7 and even sizes, nine on odd sizes from 9×9.
pub fn max_fixed_handicap(size: u32) -> u32 {
    match size {
        ..7 => 0,
        7 => 4,
        _ if size % 2 == 0 => 4,
        _ => 9,
    }
}

/// The fixed handicap points for `stones` (2 up to [`max_fixed_handicap`]):
/// on the third line of boards up to 12×12, the fourth from 13×13, in the
/// order the specification lists them (for 19×19: D4, Q16, D16, Q4, then
/// the middle points).
pub fn fixed_handicap(size: u32, stones: u32) -> Result<Vec<Point>, HandicapError> {
    if stones < 2 || stones > max_fixed_handicap(size) {
        return Err(HandicapError::InvalidNumber);
    }
    let edge = if size >= 13 { 3 } else { 2 };
    let line = [edge, (size - 1) / 2, size - 1 - edge];
    // (column, row) as low 0, middle 1, high 2; the middle stone goes last
    // for an odd count.
    let corners = [(0, 0), (2, 2), (0, 2), (2, 0)];
    let sides: &[(usize, usize)] = match stones {
        2..=5 => &[],
        6 | 7 => &[(0, 1), (2, 1)],
        _ => &[(0, 1), (2, 1), (1, 0), (1, 2)],
    };
    let mut points: Vec<(usize, usize)> = corners.iter().take(stones.min(4) as usize).copied().collect();
    points.extend_from_slice(sides);
    if stones % 2 == 1 && stones >= 5 {
        points.push((1, 1));
    }
    Ok(points.into_iter().map(|(x, y)| Point { x: line[x] as u8, y: line[y] as u8 }).collect())
}

/// The engine's free placement of `stones` (2 up to every point but one):
/// the fixed points as far as they go, then each next stone on the empty
/// point farthest from the stones placed (the lowest such point on ties).
pub fn free_handicap(size: u32, stones: u32) -> Result<Vec<Point>, HandicapError> {
    if stones < 2 || stones >= size * size {
        return Err(HandicapError::InvalidNumber);
    }
    let fixed = stones.min(max_fixed_handicap(size));
    let mut points = if fixed >= 2 { fixed_handicap(size, fixed)? } else { Vec::new() };
    while (points.len() as u32) < stones {
        let distance = |point: Point| {
            points
                .iter()
                .map(|placed| (placed.x.abs_diff(point.x) as u32).pow(2) + (placed.y.abs_diff(point.y) as u32).pow(2))
                .min()
                .unwrap_or(u32::MAX)
        };
        let next = (0..size * size)
            .map(|index| Point { x: (index % size) as u8, y: (index / size) as u8 })
            .filter(|point| !points.contains(point))
            // Farthest first, the lowest point on ties.
            .max_by_key(|&point| (distance(point), std::cmp::Reverse((point.y, point.x))))
            .expect("an empty point remains");
        points.push(next);
    }
    Ok(points)
}
