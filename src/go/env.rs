//! Go as pgx's `go_9x9` and `go_19x19` environments (version v2) define it,
//! on this crate's Go rules: [`GoEnv`] is the [`EnvGame`], one type a board size.
//!
//! - **Actions** are the points, row by row (`row * size + column`), then the
//!   pass (`size * size`), which is always legal. A point is legal when it
//!   is empty, not suicide and not the simple-ko point.
//! - **The observation** is size×size×17 booleans: for each of the last
//!   eight boards (the current first) the mover's stones, then the
//!   opponent's; then a plane that is true when white is to move. Boards
//!   before the game began are empty.
//! - **The game ends** after two passes in a row, after 2·size² steps, or at
//!   once when a stone recreates an earlier board (positional superko): the
//!   player who did so loses. Otherwise the winner is by area (stones plus
//!   the empty points no opponent stone reaches, as pgx counts them, so that
//!   an empty region reaching neither colour counts for both) with a komi of
//!   7.5 for white: +1 for the winner, -1 for the loser, never a draw.

use crate::env::{EnvGame, Outcome};
use crate::go::bitmap::{Bitmap, Geometry};
use crate::go::perft::GoGame;
use crate::go::position::MAX_WORDS;
use crate::go::{Color, Move, Point, Position};

/// Boards of history in an observation.
const HISTORY: usize = 8;
/// pgx's komi.
pub const KOMI: f32 = 7.5;

/// pgx's Go environment on a board of `SIZE`, 9 to 19 (pgx has 9 and 19; a
/// size outside them fails to compile where the environment's id is used).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GoEnv<const SIZE: usize>;

/// The stones of both colours, black first, in the position's bitmap words.
type Stones = [Bitmap<MAX_WORDS>; 2];

/// One Go game in an [`crate::env::Env`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoState {
    position: Position,
    /// The board after every step, the empty start first.
    boards: Vec<Stones>,
    /// A hash of each of `boards`: superko scans these, and compares the
    /// boards themselves only where a hash is equal (an eighth of the
    /// memory a scan of the boards reads).
    hashes: Vec<u64>,
    /// Passes in a row just played.
    passes: u32,
    /// The last stone recreated an earlier board.
    superko: bool,
}

impl GoState {
    /// The position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Steps played since the start.
    pub fn steps(&self) -> usize {
        self.boards.len() - 1
    }
}

/// A 64-bit hash of a board, for superko's first look.
fn hash_of(stones: &Stones) -> u64 {
    stones
        .iter()
        .flat_map(|bitmap| bitmap.0)
        .fold(0x9e37_79b9_7f4a_7c15, |hash, word| (hash ^ word).wrapping_mul(0x0100_0000_01b3).rotate_left(29))
}

fn stones_of(position: &Position) -> Stones {
    [Bitmap(position.stone_words(Color::Black)), Bitmap(position.stone_words(Color::White))]
}

/// The point of action `action` on a board of `size`.
fn point_of(action: usize, size: usize) -> Point {
    Point { x: (action % size) as u8, y: (action / size) as u8 }
}

/// The bit of point `index` (`row * size + column`) in the position's bitmap words.
fn bit_of(index: usize, size: usize) -> usize {
    index / size * (size + 1) + index % size
}

/// Each colour's area as pgx counts it: its stones, and the empty points
/// that no path of empty points joins to an opponent's stone (so a region
/// reaching neither colour counts for both, where Tromp–Taylor's
/// `Board::areas` counts it for neither).
fn areas(stones: &Stones, size: usize) -> [u32; 2] {
    let geometry = Geometry::<MAX_WORDS>::new(size as u32);
    let [black, white] = *stones;
    let empty = geometry.board & !(black | white);
    let reaches = |color: Bitmap<MAX_WORDS>| geometry.flood(geometry.neighbours(color) & empty, empty);
    [(black | (empty & !reaches(white))).count(), (white | (empty & !reaches(black))).count()]
}

impl<const SIZE: usize> EnvGame for GoEnv<SIZE> {
    type Rules = GoGame;
    type State = GoState;
    type Cell = bool;
    // pgx has 9x9 and 19x19; the sizes between take the same form of id.
    const ID: &'static str = match SIZE {
        9 => "go_9x9",
        10 => "go_10x10",
        11 => "go_11x11",
        12 => "go_12x12",
        13 => "go_13x13",
        14 => "go_14x14",
        15 => "go_15x15",
        16 => "go_16x16",
        17 => "go_17x17",
        18 => "go_18x18",
        19 => "go_19x19",
        _ => panic!("the Go environments are 9x9 to 19x19"),
    };
    const ACTIONS: usize = SIZE * SIZE + 1;
    const OBSERVATION_SHAPE: [usize; 3] = [SIZE, SIZE, 2 * HISTORY + 1];

    fn start() -> GoState {
        let position = Position::new(SIZE as u32).expect("a supported board size");
        let stones = stones_of(&position);
        GoState { position, boards: vec![stones], hashes: vec![hash_of(&stones)], passes: 0, superko: false }
    }

    fn color(state: &GoState) -> usize {
        state.position.to_move().index()
    }

    fn legal_action_mask(state: &GoState, mask: &mut [bool]) {
        mask.fill(false);
        let legal = state.position.legal_words(state.position.to_move());
        for (index, slot) in mask.iter_mut().take(SIZE * SIZE).enumerate() {
            *slot = Bitmap(legal).contains(bit_of(index, SIZE));
        }
        mask[SIZE * SIZE] = true;
    }

    fn play_action(state: &mut GoState, action: usize) {
        let color = state.position.to_move();
        let point = (action < SIZE * SIZE).then(|| point_of(action, SIZE));
        state.position.play_move(Move { color, point }).expect("the action is legal");
        let stones = stones_of(&state.position);
        let hash = hash_of(&stones);
        match point {
            None => {
                state.passes += 1;
                state.superko = false;
            }
            Some(_) => {
                state.passes = 0;
                state.superko = (state.hashes.iter().zip(&state.boards))
                    .any(|(&earlier, board)| earlier == hash && *board == stones);
            }
        }
        state.boards.push(stones);
        state.hashes.push(hash);
    }

    fn outcome(state: &GoState, _: &[bool]) -> Outcome {
        let terminated = state.passes >= 2 || state.superko || state.steps() >= 2 * SIZE * SIZE;
        if !terminated {
            return Outcome::ONGOING;
        }
        let loser = if state.superko {
            // The player who recreated the board (not the one to move) loses.
            state.position.to_move().other().index()
        } else {
            let [black, white] = areas(&stones_of(&state.position), SIZE);
            if black as f32 - KOMI > white as f32 { Color::White.index() } else { Color::Black.index() }
        };
        let rewards = Outcome::loss_rewards(loser);
        Outcome { terminated, rewards }
    }

    fn observe(state: &GoState, observation: &mut [bool]) {
        observation.fill(false);
        let planes = 2 * HISTORY + 1;
        let us = state.position.to_move();
        for back in 0..HISTORY.min(state.boards.len()) {
            let stones = &state.boards[state.boards.len() - 1 - back];
            for (plane, color) in [(2 * back, us), (2 * back + 1, us.other())] {
                // The stones only, not every point: a board is mostly
                // empty, and this writer was most of a 19×19 step's time.
                for (word_index, &word) in stones[color.index()].0.iter().enumerate() {
                    let mut rest = word;
                    while rest != 0 {
                        let bit = word_index * 64 + rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let index = bit / (SIZE + 1) * SIZE + bit % (SIZE + 1);
                        observation[index * planes + plane] = true;
                    }
                }
            }
        }
        if us == Color::White {
            for index in 0..SIZE * SIZE {
                observation[index * planes + planes - 1] = true;
            }
        }
    }
}
