//! Every game the crate has, in one list, and what a front end needs of
//! each: how its positions are read and written, how its moves are named,
//! the options its GPU engine suits a root with, seeded positions to verify
//! on, and its kernels for the catalog. A front end (Python, the browser,
//! the kernel catalog) chooses a game by name and hands the registry a
//! [`Visit`]or, whose one generic method then runs with the game as a type,
//! so it is written once for every game; a new game joins [`GameKind`] and
//! implements [`ListedGame`] in its own folder, and no front end changes.
//!
//! ```
//! use gpu_movegen::chess::variant::Variant;
//! use gpu_movegen::registry::{self, GameKind, ListedGame, Visit};
//!
//! /// The start position's moves, named as the command line names them.
//! struct StartMoves;
//!
//! impl Visit for StartMoves {
//!     type Output = usize;
//!     fn visit<G: ListedGame>(self, variant: Variant) -> usize {
//!         let start = G::read(None, variant, 9).expect("every game has a start");
//!         gpu_movegen::game::named_children::<G>(&start, |mv| G::move_text(&start, mv, false)).len()
//!     }
//! }
//!
//! assert_eq!(registry::visit(GameKind::Chess, Variant::Chess, StartMoves), 20);
//! assert_eq!(registry::visit(GameKind::Chess, Variant::Crazyhouse, StartMoves), 20);
//! assert_eq!(registry::visit(GameKind::Shogi, Variant::Chess, StartMoves), 30);
//! assert_eq!(registry::visit(GameKind::Go, Variant::Chess, StartMoves), 81);
//! ```

use crate::catalog::{Coverage, KernelChoice, KernelModule};
use crate::chess::gpu::ShaderBuild;
use crate::chess::variant::Variant;
use crate::gpu::perft::{PerftGame, PerftOptions};
use crate::gpu::{GpuContext, GpuError};

/// The games the crate has, as front ends name them. The chess variants
/// are chess with a [`Variant`] other than [`Variant::Chess`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// Chess and its lichess variants.
    Chess,
    /// Shogi.
    Shogi,
    /// Go on a board of 2x2 to 19x19.
    Go,
}

impl GameKind {
    /// Every game, in the order front ends list them.
    pub const ALL: [GameKind; 3] = [GameKind::Chess, GameKind::Shogi, GameKind::Go];

    /// The name front ends take: `chess`, `shogi`, `go`.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chess => "chess",
            GameKind::Shogi => "shogi",
            GameKind::Go => "go",
        }
    }

    /// The game called `name`, exactly as [`GameKind::name`] writes it.
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The names, quoted for a message: `"chess", "shogi" or "go"`.
    pub fn choices(quote: char) -> String {
        let names: Vec<String> = GameKind::ALL.iter().map(|kind| format!("{quote}{}{quote}", kind.name())).collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Why a position's text did not read, by the part of the request at fault,
/// so that each front end names it in its own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The board size (Go).
    Size(String),
    /// The position's text in the game's notation ([`ListedGame::NOTATION`]).
    Position(String),
    /// The moves played from the start (Go).
    Moves(String),
}

/// A position read from `text` by `parse`, or `start()` where there is no text.
pub fn read_or_start<P, E: std::fmt::Display>(
    text: Option<&str>,
    start: impl FnOnce() -> P,
    parse: impl FnOnce(&str) -> Result<P, E>,
) -> Result<P, ReadError> {
    match text {
        None => Ok(start()),
        Some(text) => parse(text).map_err(|error| ReadError::Position(error.to_string())),
    }
}

/// What a front end needs of a game beyond its rules and its GPU perft.
pub trait ListedGame: PerftGame + 'static {
    /// How a position of the game is written: `FEN`, `SFEN` or `moves`.
    const NOTATION: &'static str;
    /// The deepest perft the library's counters take.
    const MAX_DEPTH: u32;
    /// Whose row of the adapter table picks the slider build that
    /// `options_for` is given (the games off chess's boards ignore it).
    const KERNEL_FAMILY: crate::chess::gpu::KernelFamily = crate::chess::gpu::KernelFamily::Chess;

    /// The position `text` describes (`None`: the start of `variant` where
    /// the game has variants, the empty board of `size` for Go).
    fn read(text: Option<&str>, variant: Variant, size: u32) -> Result<Self::Position, ReadError>;

    /// `mv` as the command line prints it; chess castles as king takes rook
    /// where `chess960` is asked or `position` needs it.
    fn move_text(_position: &Self::Position, mv: Self::Move, _chess960: bool) -> String {
        mv.to_string()
    }

    /// `position` as text a caller can give back to [`ListedGame::read`]
    /// (for Go, which has no position notation, its description).
    fn position_text(position: &Self::Position) -> String;

    /// `count` positions from seeded random play of `variant` (Go: on a 9x9
    /// board), the same for the same seed everywhere: for `verify`.
    fn random_positions(variant: Variant, count: usize, seed: u64) -> Result<Vec<Self::Position>, String>;

    /// The engine options that suit `root` on `context`'s device: the
    /// kernels its variant or board size needs (`shaders`: the slider build
    /// of the games on chess's boards), and the leaf shape the device runs best.
    fn options_for(context: &GpuContext, root: &Self::Position, shaders: ShaderBuild) -> PerftOptions<Self::Build>;

    /// The game's kernel modules in every configuration `coverage` lists,
    /// for [`crate::catalog::kernel_modules`].
    fn kernel_modules(coverage: Coverage) -> Result<Vec<KernelModule>, GpuError>;

    /// What the game's perft engine runs on `context`'s device by default,
    /// and why, for [`crate::catalog::default_choices`].
    fn default_choice(context: &GpuContext) -> KernelChoice;
}

/// Code a front end writes once for every game: [`visit`] calls it with
/// the game chosen by name as `G`.
pub trait Visit {
    /// What the visit returns.
    type Output;
    /// The visit, with the game as `G` and the chess variant asked for
    /// ([`Variant::Chess`] for every other game).
    fn visit<G: ListedGame>(self, variant: Variant) -> Self::Output;
}

/// Calls `visitor` with `kind`'s game as a type: the chess variants'
/// when `kind` is chess and `variant` is not plain chess. A variant of
/// another game is the caller's to refuse (front ends word it their own way).
pub fn visit<V: Visit>(kind: GameKind, variant: Variant, visitor: V) -> V::Output {
    match kind {
        GameKind::Chess if variant == Variant::Chess => visitor.visit::<crate::chess::Chess>(variant),
        GameKind::Chess => visitor.visit::<crate::chess::variant::ChessVariants>(variant),
        GameKind::Shogi => visitor.visit::<crate::shogi::ShogiGame>(Variant::Chess),
        GameKind::Go => visitor.visit::<crate::go::GoGame>(Variant::Chess),
    }
}

/// Calls `visitor` once for each game type: chess, then the chess variants
/// (with the first of [`Variant::VARIANTS`]), then the others in the order
/// of [`GameKind::ALL`].
pub fn visit_each<V: Visit + Clone>(visitor: V) -> Vec<V::Output> {
    let mut outputs = Vec::new();
    for kind in GameKind::ALL {
        outputs.push(visit(kind, Variant::Chess, visitor.clone()));
        if kind == GameKind::Chess {
            outputs.push(visit(kind, Variant::VARIANTS[0], visitor.clone()));
        }
    }
    outputs
}
