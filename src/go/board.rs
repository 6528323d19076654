//! The rules of Go on bitmaps, generic over the board's word count so that
//! each size runs as its own compiled code: legal points, the playout move
//! set (the rule-2/4 eye test), playing a stone with its captures and the
//! ko point, and area scoring. [`crate::go::Position`] is the runtime-sized
//! face of this module; the WGSL twin is shaders/go/board.wgsl.

use super::bitmap::{Bitmap, Geometry};

/// Black or white; black moves first.
pub use crate::game::BlackWhite as Color;

/// No ko point (as a bit index).
pub const NO_KO: u16 = u16::MAX;

/// Stones, the ko point and the side to move, in `W` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board<const W: usize> {
    /// Stones by colour.
    pub stones: [Bitmap<W>; 2],
    /// The point the side to move may not play because it would retake a
    /// ko at once, or [`NO_KO`].
    pub ko: u16,
    /// The side to move.
    pub to_move: Color,
}

impl<const W: usize> Board<W> {
    /// No stones, no ko, black to move.
    pub const EMPTY: Board<W> = Board { stones: [Bitmap::EMPTY; 2], ko: NO_KO, to_move: Color::Black };

    /// The points of the board with no stone.
    #[inline(always)]
    pub fn empty_points(&self, geometry: &Geometry<W>) -> Bitmap<W> {
        geometry.board & !(self.stones[0] | self.stones[1])
    }

    /// The ko point as a bitmap, when it binds `color`.
    #[inline(always)]
    fn ko_for(&self, color: Color) -> Bitmap<W> {
        if self.ko != NO_KO && color == self.to_move { Bitmap::from_bit(self.ko as usize) } else { Bitmap::EMPTY }
    }

    /// The stones of `stones` whose group has exactly one liberty.
    fn in_atari(geometry: &Geometry<W>, stones: Bitmap<W>, empty: Bitmap<W>) -> Bitmap<W> {
        let mut atari = Bitmap::EMPTY;
        let mut rest = stones;
        while let Some(stone) = rest.first() {
            let group = geometry.flood(Bitmap::from_bit(stone), stones);
            rest &= !group;
            if (geometry.neighbours(group) & empty).count() == 1 {
                atari |= group;
            }
        }
        atari
    }

    /// Every point `color` may legally play: an empty point (not the ko
    /// point) next to an empty point, to a friendly group with another
    /// liberty, or to an enemy group in atari, which the stone captures.
    /// Exact, unlike the seed's, which also left out one-point eyes: those
    /// are [`Board::eyes`], taken out only for playouts.
    pub fn legal(&self, geometry: &Geometry<W>, color: Color) -> Bitmap<W> {
        let empty = self.empty_points(geometry);
        let own = self.stones[color.index()];
        let enemy = self.stones[color.other().index()];
        let own_atari = Self::in_atari(geometry, own, empty);
        let enemy_atari = Self::in_atari(geometry, enemy, empty);
        let liberty_givers = empty | (own & !own_atari) | enemy_atari;
        empty & geometry.neighbours(liberty_givers) & !self.ko_for(color)
    }

    /// The one-point eyes of `color` by rule 2/4: every orthogonal
    /// neighbour is a friendly stone or off the board, and at least two of
    /// the four diagonals are friendly stones, counting a virtual friendly
    /// stone beyond each corner of the board, which makes the rule "all
    /// diagonals" on an edge and the one inner diagonal in a corner.
    #[inline(always)]
    pub fn eyes(&self, geometry: &Geometry<W>, color: Color) -> Bitmap<W> {
        self.eyes_among(geometry, color, self.empty_points(geometry))
    }

    /// [`Board::eyes`] with the empty points already at hand.
    #[inline(always)]
    pub fn eyes_among(&self, geometry: &Geometry<W>, color: Color, empty: Bitmap<W>) -> Bitmap<W> {
        let own = self.stones[color.index()];
        let size = geometry.size;
        let line = geometry.line;
        let eyelike = empty
            & (own.shifted_up(line) | geometry.bottom_row)
            & (own.shifted_down(line) | geometry.top_row)
            & (own.shifted_up(1) | geometry.left_column)
            & (own.shifted_down(1) | geometry.right_column);
        if eyelike.is_empty() {
            return eyelike;
        }
        // A friendly stone up-left, up-right, down-left, down-right of each point.
        let up_left = own.shifted_down(size) | geometry.corners[2];
        let up_right = own.shifted_down(size + 2) | geometry.corners[3];
        let down_left = own.shifted_up(size + 2) | geometry.corners[0];
        let down_right = own.shifted_up(size) | geometry.corners[1];
        let up = up_left | up_right;
        let down = down_left | down_right;
        let two_of_four = (up | down_left) & (up_left | down) & (up_right | down) & (up | down_right);
        eyelike & two_of_four & geometry.board
    }

    /// The points a playout may choose for `color`: legal and not one of its own eyes.
    pub fn playout_moves(&self, geometry: &Geometry<W>, color: Color) -> Bitmap<W> {
        self.legal(geometry, color) & !self.eyes(geometry, color)
    }

    /// Whether `color` may play at `bit` (a point of the board).
    pub fn is_legal(&self, geometry: &Geometry<W>, color: Color, bit: usize) -> bool {
        let empty = self.empty_points(geometry);
        if !empty.contains(bit) || self.ko_for(color).contains(bit) {
            return false;
        }
        let point = Bitmap::from_bit(bit);
        let around = geometry.neighbours(point);
        if !(around & empty).is_empty() {
            return true;
        }
        // A friendly group with another liberty, or an enemy group whose last liberty this is.
        let other_empty = empty & !point;
        let own = self.stones[color.index()];
        let enemy = self.stones[color.other().index()];
        // One fill for all the friendly groups: if any reaches another liberty, the move is legal.
        let friends = around & own;
        if !friends.is_empty() && geometry.touches(friends, own, other_empty) {
            return true;
        }
        let mut enemies = around & enemy;
        while let Some(stone) = enemies.first() {
            if !geometry.touches(Bitmap::from_bit(stone), enemy, other_empty) {
                return true;
            }
            enemies &= !Bitmap::from_bit(stone);
        }
        false
    }

    /// Plays a legal stone of `color` at `bit`: removes the enemy groups it
    /// leaves without liberties, sets the ko point, hands the move over.
    /// Returns the number of stones captured.
    #[inline(always)]
    pub fn play(&mut self, geometry: &Geometry<W>, color: Color, bit: usize) -> u32 {
        let point = Bitmap::from_bit(bit);
        let us = color.index();
        let them = color.other().index();
        self.stones[us] |= point;
        let mut empty = self.empty_points(geometry);
        let mut captured = Bitmap::EMPTY;
        let mut candidates = geometry.neighbours(point) & self.stones[them];
        while let Some(stone) = candidates.first() {
            let single = Bitmap::from_bit(stone);
            candidates &= !single;
            if !geometry.touches(single, self.stones[them], empty) {
                let group = geometry.flood(single, self.stones[them]);
                candidates &= !group;
                captured |= group;
            }
        }
        let captured_count = captured.count();
        self.stones[them] &= !captured;
        empty |= captured;
        self.ko = NO_KO;
        // A lone stone that took one stone and has that point as its only
        // liberty could be taken back at once: that point is the ko.
        if captured_count == 1
            && (geometry.neighbours(point) & self.stones[us]).is_empty()
            && (geometry.neighbours(point) & empty) == captured
        {
            self.ko = captured.first().unwrap_or(0) as u16;
        }
        self.to_move = color.other();
        captured_count
    }

    /// A pass: the ko point lapses and the move goes over.
    pub fn pass(&mut self) {
        self.ko = NO_KO;
        self.to_move = self.to_move.other();
    }

    /// Black's area minus white's (Tromp–Taylor): stones, plus the empty
    /// points that reach only that colour's stones. Komi is the caller's.
    pub fn area_difference(&self, geometry: &Geometry<W>) -> i32 {
        let [black_area, white_area] = self.areas(geometry);
        black_area.count() as i32 - white_area.count() as i32
    }

    /// Each colour's area (Tromp–Taylor): its stones, and the empty points
    /// that reach only its stones.
    pub fn areas(&self, geometry: &Geometry<W>) -> [Bitmap<W>; 2] {
        let empty = self.empty_points(geometry);
        let [black, white] = self.stones;
        let reaches_black = geometry.flood(geometry.neighbours(black) & empty, empty);
        let reaches_white = geometry.flood(geometry.neighbours(white) & empty, empty);
        [black | (reaches_black & !reaches_white), white | (reaches_white & !reaches_black)]
    }
}
