//! A Go position of any size from 2×2 to 19×19: points and GTP vertices,
//! moves from text, and the rules of [`super::board`] run in the compiled
//! code for the size's word count.

use std::fmt;

use super::bitmap::{Bitmap, Geometry, words_for};
use super::board::{Board, Color, NO_KO};

/// The largest board: 19×19 in six 64-bit words.
pub const MAX_SIZE: u32 = 19;
/// Words of the largest board; [`Position`] keeps this many whatever its size.
pub const MAX_WORDS: usize = words_for(MAX_SIZE);

/// Runs `$body` with `$board: Board<W>` and `$geometry: Geometry<W>` for
/// the word count `W` of `$position`'s size.
macro_rules! with_board {
    ($position:expr, |$board:ident, $geometry:ident| $body:expr) => {{
        let position: &$crate::go::Position = $position;
        // Every word count the sizes have: one to five, and six for the rest.
        $crate::go::position::with_board!(@words position, $board, $geometry, $body; 1 2 3 4 5; 6)
    }};
    (@words $position:ident, $board:ident, $geometry:ident, $body:expr; $($words:literal)*; $last:literal) => {
        match $position.words() {
            $(
                $words => {
                    let ($board, $geometry) = $position.board::<$words>();
                    $body
                }
            )*
            _ => {
                let ($board, $geometry) = $position.board::<$last>();
                $body
            }
        }
    };
}
pub(crate) use with_board;

/// A point: column `x` from the left and row `y` from the bottom, both from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// The column, from 0 at the left.
    pub x: u8,
    /// The row, from 0 at the bottom.
    pub y: u8,
}

/// The column letters of GTP vertices: A to T without I.
const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRST";

impl fmt::Display for Point {
    /// The GTP vertex: column letter (no I), then the row from 1 at the bottom.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}{}", COLUMNS[self.x as usize] as char, self.y + 1)
    }
}

/// A move of one colour: a point or a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Who plays it.
    pub color: Color,
    /// `None` is a pass.
    pub point: Option<Point>,
}

impl fmt::Display for Move {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.point {
            Some(point) => write!(formatter, "{} {point}", self.color.letter()),
            None => write!(formatter, "{} pass", self.color.letter()),
        }
    }
}

/// Why a size, a vertex, a colour or a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoError {
    /// A board size outside 2 to 19.
    #[error("board size {0} is not supported (2 to 19)")]
    Size(u32),
    /// Text that is not a GTP vertex.
    #[error("'{0}' is not a vertex (a column letter A-T without I, then a row number, or 'pass')")]
    Vertex(String),
    /// A vertex past the board's edge.
    #[error("vertex {vertex} is off the {size}x{size} board")]
    OffBoard {
        /// The vertex as given.
        vertex: String,
        /// The board's size.
        size: u32,
    },
    /// Text that is not a colour.
    #[error("'{0}' is not a colour (b, black, w or white)")]
    Color(String),
    /// A move onto a stone.
    #[error("{0} is occupied")]
    Occupied(Point),
    /// A move that retakes the ko at once.
    #[error("{0} is the ko point: the stone just captured cannot be taken back at once")]
    Ko(Point),
    /// A move that leaves its own chain without a liberty and captures nothing.
    #[error("{0} would be suicide")]
    Suicide(Point),
    /// A colour with no vertex after it in a move list.
    #[error("moves must come as colour and vertex pairs; '{0}' has no vertex after it")]
    UnpairedMove(String),
    /// A move of a move list that was refused, with where it stands.
    #[error("move {number} ({text}): {error}")]
    InMoves {
        /// The move's number in the list, from 1.
        number: usize,
        /// The move as given.
        text: String,
        /// Why it was refused.
        error: Box<GoError>,
    },
}

/// Parses a colour as GTP writes it.
pub fn parse_color(text: &str) -> Result<Color, GoError> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(GoError::Color(text.to_owned())),
    }
}

/// Stones, ko point, side to move and capture counts on a board of any supported size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    size: u32,
    /// Stones by colour, in the bitmap layout of [`super::bitmap`] for this size.
    stones: [[u64; MAX_WORDS]; 2],
    ko: u16,
    to_move: Color,
    /// Stones each colour has captured.
    captures: [u32; 2],
}

impl Position {
    /// The empty board of `size`, black to move.
    pub fn new(size: u32) -> Result<Position, GoError> {
        if !(2..=MAX_SIZE).contains(&size) {
            return Err(GoError::Size(size));
        }
        Ok(Position { size, stones: [[0; MAX_WORDS]; 2], ko: NO_KO, to_move: Color::Black, captures: [0; 2] })
    }

    /// The empty board of `size` after `moves`: colour and vertex pairs such
    /// as "B E5 W D4 B pass". The side to move is the colour after the last move.
    pub fn from_moves(size: u32, moves: &str) -> Result<Position, GoError> {
        let mut position = Position::new(size)?;
        for (index, mv) in position.parse_moves(moves)?.into_iter().enumerate() {
            position.play_move(mv).map_err(|error| GoError::InMoves {
                number: index + 1,
                text: mv.to_string(),
                error: Box::new(error),
            })?;
        }
        Ok(position)
    }

    /// Colour and vertex pairs, checked against this board's size (not played).
    pub fn parse_moves(&self, moves: &str) -> Result<Vec<Move>, GoError> {
        let words: Vec<&str> = moves.split_whitespace().collect();
        let mut parsed = Vec::with_capacity(words.len() / 2);
        for (index, pair) in words.chunks(2).enumerate() {
            let [color, vertex] = pair else {
                return Err(GoError::UnpairedMove(pair[0].to_owned()));
            };
            let within = |error| GoError::InMoves {
                number: index + 1,
                text: format!("{color} {vertex}"),
                error: Box::new(error),
            };
            let color = parse_color(color).map_err(within)?;
            let point = self.parse_vertex(vertex).map_err(within)?;
            parsed.push(Move { color, point });
        }
        Ok(parsed)
    }

    /// A GTP vertex on this board; `None` for "pass".
    pub fn parse_vertex(&self, text: &str) -> Result<Option<Point>, GoError> {
        if text.eq_ignore_ascii_case("pass") {
            return Ok(None);
        }
        let upper = text.to_ascii_uppercase();
        let mut characters = upper.chars();
        let column = characters.next().ok_or_else(|| GoError::Vertex(text.to_owned()))?;
        let row: &str = characters.as_str();
        let x = COLUMNS.iter().position(|&letter| letter as char == column);
        let digits = !row.is_empty() && row.len() <= 2 && row.bytes().all(|byte| byte.is_ascii_digit());
        let y = row.parse::<u32>().ok().filter(|row| digits && *row >= 1);
        let (Some(x), Some(y)) = (x, y) else {
            return Err(GoError::Vertex(text.to_owned()));
        };
        if x as u32 >= self.size || y > self.size {
            return Err(GoError::OffBoard { vertex: upper, size: self.size });
        }
        Ok(Some(Point { x: x as u8, y: (y - 1) as u8 }))
    }

    /// The board's size (its side, 2 to 19).
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The side to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Hands the move to `color` without playing (GTP's `play` lets either colour move).
    pub fn set_to_move(&mut self, color: Color) {
        if color != self.to_move {
            self.ko = NO_KO;
            self.to_move = color;
        }
    }

    /// Stones `color` has captured since the empty board.
    pub fn captures(&self, color: Color) -> u32 {
        self.captures[color.index()]
    }

    /// The ko point that binds the side to move.
    pub fn ko(&self) -> Option<Point> {
        (self.ko != NO_KO).then(|| self.point_of(self.ko as usize))
    }

    /// 64-bit words this size's bitmaps take.
    pub fn words(&self) -> usize {
        words_for(self.size)
    }

    /// The stones of `color` as bitmap words (rows of `size + 1` bits).
    pub fn stone_words(&self, color: Color) -> [u64; MAX_WORDS] {
        self.stones[color.index()]
    }

    /// The ko point as a bit index, or `None`.
    pub fn ko_bit(&self) -> Option<u32> {
        (self.ko != NO_KO).then_some(u32::from(self.ko))
    }

    pub(crate) fn board<const W: usize>(&self) -> (Board<W>, Geometry<W>) {
        let board = Board {
            stones: self.stones.map(|words| Bitmap(std::array::from_fn(|index| words[index]))),
            ko: self.ko,
            to_move: self.to_move,
        };
        (board, Geometry::new(self.size))
    }

    pub(crate) fn store<const W: usize>(&mut self, board: &Board<W>) {
        for (color, bitmap) in board.stones.iter().enumerate() {
            self.stones[color] = [0; MAX_WORDS];
            self.stones[color][..W].copy_from_slice(&bitmap.0);
        }
        self.ko = board.ko;
        self.to_move = board.to_move;
    }

    pub(crate) fn bit(&self, point: Point) -> usize {
        (u32::from(point.y) * (self.size + 1) + u32::from(point.x)) as usize
    }

    pub(crate) fn point_of(&self, bit: usize) -> Point {
        let line = self.size as usize + 1;
        Point { x: (bit % line) as u8, y: (bit / line) as u8 }
    }

    fn points_of(&self, words: &[u64]) -> Vec<Point> {
        let mut points = Vec::new();
        for (index, &word) in words.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                points.push(self.point_of(index * 64 + rest.trailing_zeros() as usize));
                rest &= rest - 1;
            }
        }
        points
    }

    /// The stone on `point`, if any.
    pub fn stone(&self, point: Point) -> Option<Color> {
        let bit = self.bit(point);
        Color::ALL.into_iter().find(|color| self.stones[color.index()][bit / 64] >> (bit % 64) & 1 != 0)
    }

    /// The stones of `color`, lowest bit first.
    pub fn stones(&self, color: Color) -> Vec<Point> {
        self.points_of(&self.stones[color.index()][..self.words()])
    }

    /// Every point `color` may play, as bitmap words.
    pub fn legal_words(&self, color: Color) -> [u64; MAX_WORDS] {
        with_board!(self, |board, geometry| widen(board.legal(&geometry, color)))
    }

    /// The points a playout of `color` may choose, as bitmap words.
    pub fn playout_words(&self, color: Color) -> [u64; MAX_WORDS] {
        with_board!(self, |board, geometry| widen(board.playout_moves(&geometry, color)))
    }

    /// [`Position::legal_words`] and [`Position::playout_words`] together,
    /// the legal points computed once.
    pub fn move_words(&self, color: Color) -> ([u64; MAX_WORDS], [u64; MAX_WORDS]) {
        with_board!(self, |board, geometry| {
            let legal = board.legal(&geometry, color);
            (widen(legal), widen(legal & !board.eyes(&geometry, color)))
        })
    }

    /// The one-point eyes of `color` (rule 2/4), as bitmap words.
    pub fn eye_words(&self, color: Color) -> [u64; MAX_WORDS] {
        with_board!(self, |board, geometry| widen(board.eyes(&geometry, color)))
    }

    /// Every point `color` may play, lowest bit first (rows from the bottom).
    pub fn legal_points(&self, color: Color) -> Vec<Point> {
        self.points_of(&self.legal_words(color))
    }

    /// The points a playout of `color` may choose.
    pub fn playout_points(&self, color: Color) -> Vec<Point> {
        self.points_of(&self.playout_words(color))
    }

    /// The one-point eyes of `color`.
    pub fn eye_points(&self, color: Color) -> Vec<Point> {
        self.points_of(&self.eye_words(color))
    }

    /// Why `color` may not play `point`, or nothing when it may.
    pub fn check_move(&self, color: Color, point: Point) -> Result<(), GoError> {
        if self.stone(point).is_some() {
            return Err(GoError::Occupied(point));
        }
        if color == self.to_move && self.ko() == Some(point) {
            return Err(GoError::Ko(point));
        }
        let bit = self.bit(point);
        if with_board!(self, |board, geometry| board.is_legal(&geometry, color, bit)) {
            Ok(())
        } else {
            Err(GoError::Suicide(point))
        }
    }

    /// Whether `color` may play on `point` (empty, not suicide, not the ko).
    pub fn is_legal(&self, color: Color, point: Point) -> bool {
        self.check_move(color, point).is_ok()
    }

    /// Plays `mv` (either colour may move, as GTP allows); returns the
    /// stones it captured. An illegal move changes nothing.
    pub fn play_move(&mut self, mv: Move) -> Result<u32, GoError> {
        self.set_to_move(mv.color);
        let Some(point) = mv.point else {
            self.ko = NO_KO;
            self.to_move = mv.color.other();
            return Ok(0);
        };
        self.check_move(mv.color, point)?;
        let bit = self.bit(point);
        let mut copy = *self;
        let captured = with_board!(self, |board, geometry| {
            let mut board = board;
            let captured = board.play(&geometry, mv.color, bit);
            copy.store(&board);
            captured
        });
        *self = copy;
        self.captures[mv.color.index()] += captured;
        Ok(captured)
    }

    /// Puts a stone of `stone` on `point`, or empties it, outside the rules
    /// (SGF setup); the ko point lapses. [`Position::first_dead_stone`]
    /// checks the result.
    pub fn set_stone(&mut self, point: Point, stone: Option<Color>) {
        let bit = self.bit(point);
        for words in &mut self.stones {
            words[bit / 64] &= !(1 << (bit % 64));
        }
        if let Some(color) = stone {
            self.stones[color.index()][bit / 64] |= 1 << (bit % 64);
        }
        self.ko = NO_KO;
    }

    /// A stone whose group has no liberty, which no game can reach.
    pub fn first_dead_stone(&self) -> Option<Point> {
        Color::ALL.into_iter().flat_map(|color| self.stones(color)).find(|&point| self.liberties(point) == 0)
    }

    /// The liberties of the group on `point` (0 for an empty point).
    pub fn liberties(&self, point: Point) -> u32 {
        let Some(color) = self.stone(point) else {
            return 0;
        };
        let bit = self.bit(point);
        with_board!(self, |board, geometry| {
            let group = geometry.flood(Bitmap::from_bit(bit), board.stones[color.index()]);
            (geometry.neighbours(group) & board.empty_points(&geometry)).count()
        })
    }

    /// A legal move of `color` that captures, taking the largest chain
    /// (of the other colour, with one liberty) that can be taken.
    pub fn capture_point(&self, color: Color) -> Option<Point> {
        let other = if color == Color::Black { Color::White } else { Color::Black };
        let mut seen = std::collections::HashSet::new();
        let mut best: Option<(usize, Point)> = None;
        for stone in self.stones(other) {
            if seen.contains(&stone) {
                continue;
            }
            let chain = self.chain(stone);
            seen.extend(chain.iter().copied());
            if self.liberties(stone) != 1 || best.is_some_and(|(size, _)| size >= chain.len()) {
                continue;
            }
            let liberty =
                chain.iter().flat_map(|point| self.neighbour_points(*point)).find(|point| self.stone(*point).is_none());
            if let Some(point) = liberty.filter(|point| self.is_legal(color, *point)) {
                best = Some((chain.len(), point));
            }
        }
        best.map(|(_, point)| point)
    }

    /// The points next to `point` on the board.
    fn neighbour_points(&self, point: Point) -> impl Iterator<Item = Point> + use<> {
        let size = self.size as u8;
        let Point { x, y } = point;
        [
            (x > 0).then(|| Point { x: x - 1, y }),
            (x + 1 < size).then(|| Point { x: x + 1, y }),
            (y > 0).then(|| Point { x, y: y - 1 }),
            (y + 1 < size).then(|| Point { x, y: y + 1 }),
        ]
        .into_iter()
        .flatten()
    }

    /// The points with no stone.
    pub fn empty_point_count(&self) -> u32 {
        let stones: u32 = self.stones.iter().flatten().map(|word| word.count_ones()).sum();
        self.size * self.size - stones
    }

    /// The stones of the chain on `point` (none for an empty point).
    pub fn chain(&self, point: Point) -> Vec<Point> {
        let Some(color) = self.stone(point) else {
            return Vec::new();
        };
        let bit = self.bit(point);
        let chain = with_board!(self, |board, geometry| {
            widen(geometry.flood(Bitmap::from_bit(bit), board.stones[color.index()]))
        });
        self.points_of(&chain)
    }

    /// Black's area minus white's (Tromp–Taylor), before komi.
    pub fn area_difference(&self) -> i32 {
        with_board!(self, |board, geometry| board.area_difference(&geometry))
    }

    /// The board as text, black `X`, white `O`, top row first, with GTP coordinates.
    pub fn diagram(&self) -> String {
        let letters: String =
            COLUMNS[..self.size as usize].iter().map(|&letter| format!(" {}", letter as char)).collect();
        let mut text = format!("   {letters}\n");
        for y in (0..self.size).rev() {
            text += &format!("{:>2} ", y + 1);
            for x in 0..self.size {
                let point = Point { x: x as u8, y: y as u8 };
                let mark = match self.stone(point) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None if self.ko() == Some(point) => '*',
                    None => '.',
                };
                text += &format!(" {mark}");
            }
            text += &format!(" {:>2}\n", y + 1);
        }
        text += &format!("   {letters}\n");
        text += &format!(
            "{} to move; captures: black {}, white {}",
            if self.to_move == Color::Black { "black" } else { "white" },
            self.captures[0],
            self.captures[1]
        );
        text
    }
}

fn widen<const W: usize>(bitmap: Bitmap<W>) -> [u64; MAX_WORDS] {
    let mut words = [0; MAX_WORDS];
    words[..W].copy_from_slice(&bitmap.0);
    words
}
