//! The games as every front end sees them: a position, a move that prints
//! in the game's notation, legal moves, play, and perft on the CPU that can
//! be stopped. Chess ([`crate::chess::Chess`]), the chess variants
//! ([`crate::chess::variant::ChessVariants`]), Shogi
//! ([`crate::shogi::ShogiGame`]) and Go ([`crate::go::GoGame`]) implement
//! [`Game`]; the GPU's `PerftGame` builds on it, so children and divide come
//! from here for every engine, CPU and GPU.
//!
//! A divide is written once: [`root_children`] makes the roots a divide
//! counts, any counter counts them (the CPU's threads, a GPU engine, several
//! devices), and [`by_move`] puts the counts in the game's order.
//!
//! ```
//! use gpu_movegen::Position;
//! use gpu_movegen::chess::Chess;
//! use gpu_movegen::game::{self, Game};
//!
//! let rows = game::divide::<Chess>(&Position::start(), 3);
//! assert_eq!(rows.len(), 20);
//! assert_eq!(rows[0].0.to_string(), "a2a3");
//! assert_eq!(rows.iter().map(|(_, nodes)| nodes).sum::<u64>(), Chess::perft(&Position::start(), 3));
//! ```

use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

/// A game: its positions, its moves and their rules, and its CPU perft.
pub trait Game {
    /// A position with everything the rules need (side to move, hands, ko).
    type Position: Clone + Send + Sync + 'static;
    /// One move, printed in the game's notation (UCI, USI, a GTP vertex).
    type Move: Copy + std::fmt::Display + Send + Sync;

    /// The game's name in messages.
    const NAME: &'static str;
    /// Whether a divide lists its rows by the text of their moves (chess's
    /// and Shogi's tools do), or in the order [`Game::legal_moves`] gives
    /// them (Go: points from the lowest, as GNU Go's tools list them).
    const DIVIDE_BY_TEXT: bool = true;

    /// The legal moves of `position`, in the generator's order.
    fn legal_moves(position: &Self::Position) -> Vec<Self::Move>;
    /// The position after `mv`, a legal move of `position`.
    fn play(position: &Self::Position, mv: Self::Move) -> Self::Position;
    /// Leaf nodes `depth` plies below `position`, by the game's fastest CPU
    /// engine, spread over the current rayon pool.
    fn perft(position: &Self::Position, depth: u32) -> u64;
    /// [`Game::perft`] that gives up with `None` once `stop` is set, within
    /// milliseconds (see [`crate::threads::perft_until`]).
    fn perft_until(position: &Self::Position, depth: u32, stop: &AtomicBool) -> Option<u64>;

    /// The positions one legal move from `position`.
    fn children(position: &Self::Position) -> Vec<Self::Position> {
        Self::legal_moves(position).into_iter().map(|mv| Self::play(position, mv)).collect()
    }
}

/// A divide's rows: each root move with the count below it.
pub type Rows<G> = Vec<(<G as Game>::Move, u64)>;

/// The legal moves of `position` and the positions they lead to, in the
/// same order: the roots a divide counts.
pub fn root_children<G: Game>(position: &G::Position) -> (Vec<G::Move>, Vec<G::Position>) {
    let moves = G::legal_moves(position);
    let children = moves.iter().map(|&mv| G::play(position, mv)).collect();
    (moves, children)
}

/// Each move with its count, in the game's divide order
/// ([`Game::DIVIDE_BY_TEXT`]): a divide's rows.
pub fn by_move<G: Game, T>(moves: Vec<G::Move>, counts: Vec<T>) -> Vec<(G::Move, T)> {
    let mut rows: Vec<(G::Move, T)> = moves.into_iter().zip(counts).collect();
    if G::DIVIDE_BY_TEXT {
        rows.sort_by_cached_key(|(mv, _)| mv.to_string());
    }
    rows
}

/// The root moves, named by `name` (a front end's notation), with their
/// children, in the game's divide order: for a front end that counts them
/// one at a time.
pub fn named_children<G: Game>(position: &G::Position, name: impl Fn(G::Move) -> String) -> Vec<(String, G::Position)> {
    let (moves, children) = root_children::<G>(position);
    by_move::<G, G::Position>(moves, children).into_iter().map(|(mv, child)| (name(mv), child)).collect()
}

/// Perft split by root move with any counter: `count(children, depth - 1)`
/// returns the count below each child (a GPU engine counts them in one
/// batch; statistics are counts too). `depth` counts the root move, so the
/// rows of perft add up to perft(depth). Depth 0 has no rows.
pub fn divide_with<G: Game, T, E>(
    position: &G::Position,
    depth: u32,
    count: impl FnOnce(&[G::Position], u32) -> Result<Vec<T>, E>,
) -> Result<Vec<(G::Move, T)>, E> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let (moves, children) = root_children::<G>(position);
    let counts = count(&children, depth - 1)?;
    Ok(by_move::<G, T>(moves, counts))
}

/// Perft split by root move on the CPU, the children shared among the
/// current rayon pool's threads.
pub fn divide<G: Game>(position: &G::Position, depth: u32) -> Vec<(G::Move, u64)> {
    divide_by::<G>(position, depth, true, G::perft)
}

/// Perft split by root move with each child counted by `count`: the
/// children shared among the current rayon pool's threads (`parallel`),
/// or one after another on this one.
pub fn divide_by<G: Game>(
    position: &G::Position,
    depth: u32,
    parallel: bool,
    count: impl Fn(&G::Position, u32) -> u64 + Sync,
) -> Vec<(G::Move, u64)> {
    let counted: Result<_, std::convert::Infallible> = divide_with::<G, _, _>(position, depth, |children, below| {
        let each = |child: &G::Position| count(child, below);
        Ok(if parallel { children.par_iter().map(each).collect() } else { children.iter().map(each).collect() })
    });
    match counted {
        Ok(rows) => rows,
        Err(never) => match never {},
    }
}

/// `plies` random legal moves from `position`, fewer where the game ends
/// first, each drawn uniformly from the legal moves by `random`; `passing`
/// sees the position after each. The seeded random positions of every
/// game's tests and `verify` come from here.
pub fn random_game<G: Game>(
    mut position: G::Position,
    plies: usize,
    random: &mut impl rand::Rng,
    mut passing: impl FnMut(&G::Position),
) -> G::Position {
    for _ in 0..plies {
        let moves = G::legal_moves(&position);
        if moves.is_empty() {
            break;
        }
        position = G::play(&position, moves[random.random_range(0..moves.len())]);
        passing(&position);
    }
    position
}

/// [`divide`] on `pool` that gives up with `None` once `stop` is set.
pub fn divide_until<G: Game>(
    pool: &rayon::ThreadPool,
    position: &G::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Option<Vec<(G::Move, u64)>> {
    divide_with::<G, _, _>(position, depth, |children, below| {
        pool.install(|| children.iter().map(|child| G::perft_until(child, below, stop)).collect::<Option<Vec<u64>>>())
            .ok_or(())
    })
    .ok()
}

/// The two sides of the games where Black moves first: Go, and Shogi
/// (Black is sente). Each game names it `Color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlackWhite {
    /// The side that moves first.
    Black = 0,
    /// The side that moves second.
    White = 1,
}

impl BlackWhite {
    /// Both sides, Black first.
    pub const ALL: [BlackWhite; 2] = [BlackWhite::Black, BlackWhite::White];

    /// 0 for Black, 1 for White: the index of per-side arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent (also `!side`).
    pub const fn other(self) -> BlackWhite {
        match self {
            BlackWhite::Black => BlackWhite::White,
            BlackWhite::White => BlackWhite::Black,
        }
    }

    /// "B" or "W", as GTP and SGF write it.
    pub const fn letter(self) -> char {
        match self {
            BlackWhite::Black => 'B',
            BlackWhite::White => 'W',
        }
    }
}

impl std::ops::Not for BlackWhite {
    type Output = BlackWhite;
    fn not(self) -> BlackWhite {
        self.other()
    }
}

impl std::fmt::Display for BlackWhite {
    /// "black" or "white".
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            BlackWhite::Black => "black",
            BlackWhite::White => "white",
        })
    }
}
