//! Go bitmaps: one bit per point, rows of `size + 1` bits (the extra bit of
//! each row is a guard that always stays clear), in `W` 64-bit words. A
//! 9×9 board is 90 bits, one 128-bit value as in the bitmap Go programs
//! this follows; 13×13 takes three words and 19×19 six, with carries across
//! words in every shift.
//!
//! Because of the guard bits, a neighbour is one shift away: ±1 along a row,
//! ±(size + 1) across rows, and a bit shifted off the edge of a row lands on
//! a guard, which the board mask clears. The GPU's bitmaps
//! (shaders/go/bitmap.wgsl) are the same bits in twice as many 32-bit words.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// A set of points of a board with `W` words.
#[derive(Debug, Clone, Copy, Eq)]
pub struct Bitmap<const W: usize>(pub [u64; W]);

/// Word by word without branches: the derived comparison calls memcmp,
/// which took a third of a playout's time.
impl<const W: usize> std::hash::Hash for Bitmap<W> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl<const W: usize> PartialEq for Bitmap<W> {
    #[inline(always)]
    fn eq(&self, other: &Bitmap<W>) -> bool {
        (0..W).fold(0, |difference, index| difference | (self.0[index] ^ other.0[index])) == 0
    }
}

impl<const W: usize> Bitmap<W> {
    /// No points.
    pub const EMPTY: Bitmap<W> = Bitmap([0; W]);

    /// Word by word, without indexing by `bit`, so the words stay in registers.
    #[inline(always)]
    pub fn from_bit(bit: usize) -> Bitmap<W> {
        Bitmap(std::array::from_fn(|index| u64::from(index == bit / 64) << (bit % 64)))
    }

    /// Whether no bit is set.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0.iter().fold(0, |any, word| any | word) == 0
    }

    /// Whether bit `bit` is set.
    #[inline(always)]
    pub fn contains(self, bit: usize) -> bool {
        !(self & Self::from_bit(bit)).is_empty()
    }

    /// Bits set.
    #[inline(always)]
    pub fn count(self) -> u32 {
        self.0.iter().map(|word| word.count_ones()).sum()
    }

    /// The lowest set bit, if any.
    #[inline(always)]
    pub fn first(self) -> Option<usize> {
        let mut index = 0;
        while index < W {
            if self.0[index] != 0 {
                return Some(index * 64 + self.0[index].trailing_zeros() as usize);
            }
            index += 1;
        }
        None
    }

    /// The `rank`-th set bit counted from the lowest (0-based); `None` when
    /// there are not that many.
    #[inline(always)]
    pub fn nth(self, mut rank: u32) -> Option<usize> {
        for (index, &word) in self.0.iter().enumerate() {
            let ones = word.count_ones();
            if rank < ones {
                return Some(index * 64 + select_in_word(word, rank) as usize);
            }
            rank -= ones;
        }
        None
    }

    /// Every bit moved `shift` places up (towards higher bits); 0 < `shift` < 64.
    #[inline(always)]
    pub fn shifted_up(self, shift: u32) -> Bitmap<W> {
        Bitmap(std::array::from_fn(|index| {
            let carry = if index > 0 { self.0[index - 1] >> (64 - shift) } else { 0 };
            self.0[index] << shift | carry
        }))
    }

    /// Every bit moved `shift` places down; 0 < `shift` < 64.
    #[inline(always)]
    pub fn shifted_down(self, shift: u32) -> Bitmap<W> {
        Bitmap(std::array::from_fn(|index| {
            let carry = if index + 1 < W { self.0[index + 1] << (64 - shift) } else { 0 };
            self.0[index] >> shift | carry
        }))
    }

    /// The set bits, lowest first.
    pub fn bits(self) -> impl Iterator<Item = usize> {
        let mut rest = self;
        std::iter::from_fn(move || {
            let bit = rest.first()?;
            rest.0[bit / 64] &= rest.0[bit / 64] - 1;
            Some(bit)
        })
    }
}

/// The position of the `rank`-th set bit of `word` (which has more than
/// `rank` set bits): halving down to a byte without branches (which half
/// holds the bit is a coin toss), then a table for the byte.
#[inline(always)]
fn select_in_word(word: u64, mut rank: u32) -> u32 {
    let mut word = word;
    let mut position = 0;
    for width in [32u32, 16, 8] {
        let low = (word & ((1u64 << width) - 1)).count_ones();
        let upper = u32::from(rank >= low);
        rank -= low * upper;
        word >>= width * upper;
        position += width * upper;
    }
    position + u32::from(SELECT_IN_BYTE[(word & 0xff) as usize][rank as usize & 7])
}

/// `SELECT_IN_BYTE[byte][rank]`: the position of the `rank`-th set bit of `byte`.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut rank = 0;
        let mut bit = 0;
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte][rank] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

impl<const W: usize> BitAnd for Bitmap<W> {
    type Output = Bitmap<W>;
    #[inline(always)]
    fn bitand(self, other: Bitmap<W>) -> Bitmap<W> {
        Bitmap(std::array::from_fn(|index| self.0[index] & other.0[index]))
    }
}

impl<const W: usize> BitOr for Bitmap<W> {
    type Output = Bitmap<W>;
    #[inline(always)]
    fn bitor(self, other: Bitmap<W>) -> Bitmap<W> {
        Bitmap(std::array::from_fn(|index| self.0[index] | other.0[index]))
    }
}

/// The complement of every word, guards and bits past the board included:
/// AND it with something inside the board.
impl<const W: usize> Not for Bitmap<W> {
    type Output = Bitmap<W>;
    #[inline(always)]
    fn not(self) -> Bitmap<W> {
        Bitmap(self.0.map(|word| !word))
    }
}

impl<const W: usize> BitAndAssign for Bitmap<W> {
    #[inline(always)]
    fn bitand_assign(&mut self, other: Bitmap<W>) {
        *self = *self & other;
    }
}

impl<const W: usize> BitOrAssign for Bitmap<W> {
    #[inline(always)]
    fn bitor_assign(&mut self, other: Bitmap<W>) {
        *self = *self | other;
    }
}

/// The masks of one board size, in `W` words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry<const W: usize> {
    /// Points per side.
    pub size: u32,
    /// Bits per row: `size + 1`.
    pub line: u32,
    /// Every point of the board.
    pub board: Bitmap<W>,
    /// The first column.
    pub left_column: Bitmap<W>,
    /// The last column.
    pub right_column: Bitmap<W>,
    /// The first row.
    pub bottom_row: Bitmap<W>,
    /// The last row.
    pub top_row: Bitmap<W>,
    /// The corner points: bottom left, bottom right, top left, top right.
    pub corners: [Bitmap<W>; 4],
}

impl<const W: usize> Geometry<W> {
    /// The geometry of a `size` × `size` board; panics when it does not fit `W` words.
    pub fn new(size: u32) -> Geometry<W> {
        let line = size + 1;
        assert!((size * line) as usize <= 64 * W, "a {size}x{size} board does not fit {W} words");
        let point = |x: u32, y: u32| Bitmap::from_bit((y * line + x) as usize);
        let mut geometry = Geometry {
            size,
            line,
            board: Bitmap::EMPTY,
            left_column: Bitmap::EMPTY,
            right_column: Bitmap::EMPTY,
            bottom_row: Bitmap::EMPTY,
            top_row: Bitmap::EMPTY,
            corners: [point(0, 0), point(size - 1, 0), point(0, size - 1), point(size - 1, size - 1)],
        };
        for y in 0..size {
            // A row's points are `size` bits in a run: set word by word
            // (every legality test builds a geometry, so this is hot).
            let (mut start, end) = ((y * line) as usize, (y * line + size) as usize);
            while start < end {
                let stop = end.min(start / 64 * 64 + 64);
                let run = stop - start;
                let bits = if run == 64 { u64::MAX } else { ((1u64 << run) - 1) << (start % 64) };
                geometry.board.0[start / 64] |= bits;
                start = stop;
            }
            geometry.left_column |= point(0, y);
            geometry.right_column |= point(size - 1, y);
            geometry.bottom_row |= point(y, 0);
            geometry.top_row |= point(y, size - 1);
        }
        geometry
    }

    /// Every point next to a point of `set` (the seed's `gather`): four
    /// shifts, with the guards and the bits past the board cleared.
    #[inline(always)]
    pub fn neighbours(&self, set: Bitmap<W>) -> Bitmap<W> {
        (set.shifted_up(1) | set.shifted_down(1) | set.shifted_up(self.line) | set.shifted_down(self.line)) & self.board
    }

    /// The points of `within` connected to `seed` through `within` (seed
    /// included when it lies in `within`): dilate, AND, until stable.
    #[inline(always)]
    pub fn flood(&self, seed: Bitmap<W>, within: Bitmap<W>) -> Bitmap<W> {
        let mut region = seed & within;
        loop {
            let grown = (region | self.neighbours(region)) & within;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// Whether the group of `seed` in `stones` touches a point of `targets`
    /// (a liberty, say): the flood of [`Geometry::flood`], stopped as soon
    /// as it answers.
    #[inline(always)]
    pub fn touches(&self, seed: Bitmap<W>, stones: Bitmap<W>, targets: Bitmap<W>) -> bool {
        let mut region = seed;
        loop {
            let around = self.neighbours(region);
            if !(around & targets).is_empty() {
                return true;
            }
            let grown = region | (around & stones);
            if grown == region {
                return false;
            }
            region = grown;
        }
    }

    /// The bit of point (x, y), x the column from the left and y the row
    /// from the bottom, both from 0.
    pub fn bit(&self, x: u32, y: u32) -> usize {
        (y * self.line + x) as usize
    }

    /// The column and row of a bit.
    pub fn point(&self, bit: usize) -> (u32, u32) {
        (bit as u32 % self.line, bit as u32 / self.line)
    }
}

/// 64-bit words a board of `size` needs.
pub const fn words_for(size: u32) -> usize {
    (size * (size + 1)).div_ceil(64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_carry_across_words() {
        let bitmap = Bitmap::<3>::from_bit(63);
        assert_eq!(bitmap.shifted_up(1), Bitmap::from_bit(64));
        assert_eq!(bitmap.shifted_up(20), Bitmap::from_bit(83));
        assert_eq!(Bitmap::<3>::from_bit(130).shifted_down(20), Bitmap::from_bit(110));
        assert_eq!(Bitmap::<3>::from_bit(191).shifted_up(1), Bitmap::EMPTY);
    }

    #[test]
    fn nth_walks_the_set_bits_in_order() {
        let bitmap = Bitmap::<2>([0b1011_0000, 1 << 5 | 1 << 63]);
        let all: Vec<usize> = bitmap.bits().collect();
        assert_eq!(all, vec![4, 5, 7, 69, 127]);
        for (rank, bit) in all.iter().enumerate() {
            assert_eq!(bitmap.nth(rank as u32), Some(*bit));
        }
        assert_eq!(bitmap.nth(5), None);
    }

    /// The board built a row at a time is every point, and only those, on
    /// every size (rows that cross a word's end included).
    #[test]
    fn the_board_is_every_point_of_every_size() {
        for size in 2..=19 {
            let geometry = Geometry::<6>::new(size);
            let mut points = Bitmap::<6>::EMPTY;
            for y in 0..size {
                for x in 0..size {
                    points |= Bitmap::from_bit((y * (size + 1) + x) as usize);
                }
            }
            assert_eq!(geometry.board, points, "{size}x{size}");
        }
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        let geometry = Geometry::<2>::new(9);
        assert_eq!(geometry.board.count(), 81);
        // The corner a1 has two neighbours, an edge point three, the centre four.
        assert_eq!(geometry.neighbours(Bitmap::from_bit(geometry.bit(0, 0))).count(), 2);
        assert_eq!(geometry.neighbours(Bitmap::from_bit(geometry.bit(8, 4))).count(), 3);
        assert_eq!(geometry.neighbours(Bitmap::from_bit(geometry.bit(4, 4))).count(), 4);
        let geometry = Geometry::<6>::new(19);
        assert_eq!(geometry.board.count(), 361);
        assert_eq!(geometry.neighbours(Bitmap::from_bit(geometry.bit(18, 18))).count(), 2);
    }
}
