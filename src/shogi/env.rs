//! Shogi as pgx's `shogi` environment (version v1) defines it, on this
//! crate's move generator, with the repetition rule pgx leaves out:
//! [`ShogiGame`] is the [`EnvGame`].
//!
//! - **Actions** are dlshogi's 2,187: 27 planes of 81 destinations, in the
//!   frame of the side to move (White's board turned half a turn), the
//!   squares numbered file by file from file 1 (1a 0, 1b 1, …, 9i 80).
//!   Planes 0–9 are a board move by its direction from the destination
//!   back to the piece (up, up-left, up-right, left, right, down, down-left,
//!   down-right, then the knight's two), planes 10–19 the same moves
//!   promoting, planes 20–26 drops of a pawn, lance, knight, silver,
//!   bishop, rook and gold.
//! - **The observation** is 9×9×119 booleans, rows from rank a (the
//!   mover's far side) and columns from file 9 in the mover's frame: for
//!   the mover, then the opponent, each kind's pieces (14 planes), the
//!   squares each kind attacks (14), and the squares attacked by at least
//!   one, two and three pieces (3); then the mover's hand, then the
//!   opponent's, as planes set when at least 1–8 pawns, 1–4 lances,
//!   knights, silvers and golds, 1–2 bishops and rooks are held (28 each);
//!   then whether the mover is in check. Kinds run pawn, lance, knight,
//!   silver, bishop, rook, gold, king, then the promoted pawn, lance,
//!   knight, silver, bishop (horse) and rook (dragon).
//! - **The game ends** when the side to move has no legal move (it loses:
//!   checkmate, as pawn-drop mate is not a legal move) and at 512 steps
//!   (drawn, `terminated` as in pgx). A move that leaves the king in check,
//!   a second pawn on a file, a pawn drop that mates and a piece left with
//!   no move are not legal, as in pgx.
//! - **Repetition (sennichite)**, which pgx does not have: the fourth time
//!   the same position (board, both hands, side to move) arises, the game
//!   ends drawn, unless every move one side made since the position first
//!   arose gave check, in which case that side loses (perpetual check).
//!   python/tests/test_env_pgx.py checks each such ending against pgx's
//!   own boards before it stops comparing that game.
//! - **Where pgx is wrong:** it allows some pawn drops that mate (seemingly
//!   when the mated king stands on an edge of the board); here they are not
//!   legal, as the rules say. The same test names each such game.

use crate::env::{EnvGame, Outcome};
use crate::game::Game;
use crate::shogi::movegen::{attacks, in_check};
use crate::shogi::{Color, Move, Piece, Position, ShogiGame};

/// Actions: 27 planes of 81 destinations.
pub const ACTIONS: usize = 27 * 81;
/// Steps after which a game ends drawn (pgx's, from AlphaZero).
pub const MAX_STEPS: u32 = 512;
/// Planes of the observation.
pub const PLANES: usize = 119;
/// Times a position arises that end the game (sennichite).
pub const REPETITIONS: usize = 4;

/// A position as repetition compares it: each square's piece (0 for none,
/// then pgx's kind plus one, plus 14 for White), both hands, the side to move.
type PositionKey = [u8; 81 + 14 + 1];

/// One Shogi game in an [`crate::env::Env`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShogiState {
    position: Position,
    /// Every position of the game, the start first.
    keys: Vec<PositionKey>,
    /// For each position, whether the move that made it gave check (false
    /// for the first).
    checks: Vec<bool>,
    /// How the game ended by repetition, once it has.
    repetition: Option<Repetition>,
}

/// A game ended by the fourth repetition of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repetition {
    /// Drawn (sennichite).
    Draw,
    /// The colour that gave check with every move of the cycle, and loses.
    PerpetualCheck(Color),
}

impl ShogiState {
    /// A game that begins at `position`: no history before it.
    pub fn from_position(position: Position) -> ShogiState {
        ShogiState { position, keys: vec![key_of(&position)], checks: vec![false], repetition: None }
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Steps played since the start.
    pub fn steps(&self) -> u32 {
        (self.keys.len() - 1) as u32
    }

    /// How the game ended by repetition, if it did.
    pub fn repetition(&self) -> Option<Repetition> {
        self.repetition
    }

    /// The legal move that `action` names, if any.
    pub fn move_of(&self, action: usize) -> Option<Move> {
        let us = self.position.side_to_move();
        self.position.legal_moves().into_iter().find(|&mv| action_of(mv, us) == action)
    }

    /// The move that `action` names, read from the action and the board
    /// without generating moves: the caller knows it legal (it is in the
    /// mask), so the mask's move generation is not repeated for the step.
    /// A drop names its kind; a board move names its destination and the
    /// direction it came from, and the moving piece is the first one met
    /// walking back that way (a legal move's path is empty), or the
    /// knight's square.
    fn legal_move_of(&self, action: usize) -> Move {
        let us = self.position.side_to_move();
        let (plane, to_index) = (action / 81, action % 81);
        let (column, row) = ((to_index / 9) as i8, (to_index % 9) as i8);
        let to = square_of(column, row, us);
        if plane >= 20 {
            return Move { from: None, to, piece: DROPS[plane - 20], promote: false };
        }
        let (column_step, row_step) = DIRECTION_STEPS[plane % 10];
        let (mut from_column, mut from_row) = (column - column_step, row - row_step);
        // Only sliders go more than one step; the knight's planes never walk.
        while plane % 10 < 8 && self.position.piece_on(square_of(from_column, from_row, us)).is_none() {
            from_column -= column_step;
            from_row -= row_step;
        }
        let from = square_of(from_column, from_row, us);
        let (_, piece) = self.position.piece_on(from).expect("a legal action's piece stands on its square");
        Move { from: Some(from), to, piece, promote: plane >= 10 }
    }

    /// The repetition the last position completes, if it is the fourth time
    /// it arose.
    fn repetition_now(&self) -> Option<Repetition> {
        let last = self.keys.len() - 1;
        let key = &self.keys[last];
        let earlier: Vec<usize> = (0..last).filter(|&index| self.keys[index] == *key).collect();
        if earlier.len() + 1 < REPETITIONS {
            return None;
        }
        // Every move since the position first arose, by the side that made it:
        // the move into position `index` was made by the side not to move there.
        let first = earlier[0];
        let to_move_last = self.position.side_to_move();
        let checking = |side: Color| {
            (first + 1..=last)
                .filter(|index| mover_into(*index, last, to_move_last) == side)
                .all(|index| self.checks[index])
        };
        Some(match (checking(Color::Black), checking(Color::White)) {
            (true, false) => Repetition::PerpetualCheck(Color::Black),
            (false, true) => Repetition::PerpetualCheck(Color::White),
            _ => Repetition::Draw,
        })
    }
}

/// The side that made the move into position `index`, the side to move in
/// position `last` being `to_move_last`: sides alternate every step.
fn mover_into(index: usize, last: usize, to_move_last: Color) -> Color {
    if (last - index) % 2 == 0 { !to_move_last } else { to_move_last }
}

/// pgx's kind number of a piece: pawn, lance, knight, silver, bishop, rook,
/// gold, king, then the promoted kinds in the crate's order.
const fn pgx_kind(piece: Piece) -> usize {
    match piece {
        Piece::Gold => 6,
        Piece::Bishop => 4,
        Piece::Rook => 5,
        other => other.index(),
    }
}

/// The droppable kinds in pgx's order (drop planes 20–26).
const DROPS: [Piece; 7] =
    [Piece::Pawn, Piece::Lance, Piece::Knight, Piece::Silver, Piece::Bishop, Piece::Rook, Piece::Gold];

/// A square (the crate's: rank by rank from 9a) as pgx's (column, row) in
/// the frame of `us`: column 0 is file 1, row 0 the far rank.
fn frame(square: u8, us: Color) -> (i8, i8) {
    let (rank, column) = ((square / 9) as i8, (square % 9) as i8);
    match us {
        Color::Black => (8 - column, rank),
        Color::White => (column, 8 - rank),
    }
}

/// The observation cell (row by row from the mover's far rank, columns from
/// file 9 in the mover's frame) of a square.
fn cell_of(square: u8, us: Color) -> usize {
    match us {
        Color::Black => usize::from(square),
        Color::White => 80 - usize::from(square),
    }
}

/// The square at pgx's (column, row) in the frame of `us`, the inverse of [`frame`].
fn square_of(column: i8, row: i8, us: Color) -> u8 {
    debug_assert!((0..9).contains(&column) && (0..9).contains(&row), "({column}, {row}) is off the board");
    let (rank, file_column) = match us {
        Color::Black => (row, 8 - column),
        Color::White => (8 - row, column),
    };
    (rank * 9 + file_column) as u8
}

/// The (columns, rows) step of each direction plane (see [`direction`]):
/// one square for planes 0–7, the knight's jump for 8 and 9.
const DIRECTION_STEPS: [(i8, i8); 10] =
    [(0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (1, 1), (-1, 1), (1, -2), (-1, -2)];

/// pgx's direction plane of a board move by `(columns, rows)` in the
/// mover's frame (rows decrease towards the far rank): the knight's jump
/// itself, else the step of its direction, in [`DIRECTION_STEPS`].
fn direction(columns: i8, rows: i8) -> usize {
    let step = if rows == -2 && columns.abs() == 1 { (columns, rows) } else { (columns.signum(), rows.signum()) };
    DIRECTION_STEPS.iter().position(|&known| known == step).expect("a move changes its square")
}

/// pgx's action for a legal move of the side `us`.
pub fn action_of(mv: Move, us: Color) -> usize {
    let (column, row) = frame(mv.to, us);
    let to = column as usize * 9 + row as usize;
    let plane = match mv.from {
        None => 20 + DROPS.iter().position(|&piece| piece == mv.piece).expect("a droppable kind"),
        Some(from) => {
            let (from_column, from_row) = frame(from, us);
            direction(column - from_column, row - from_row) + if mv.promote { 10 } else { 0 }
        }
    };
    plane * 81 + to
}

fn key_of(position: &Position) -> PositionKey {
    let mut key = [0u8; 96];
    for color in Color::ALL {
        for piece in Piece::ALL {
            for square in position.pieces_of(color, piece) {
                key[usize::from(square)] = (pgx_kind(piece) + 1 + 14 * color.index()) as u8;
            }
        }
        for (slot, piece) in DROPS.iter().enumerate() {
            key[81 + 7 * color.index() + slot] = position.in_hand(color, *piece);
        }
    }
    key[95] = position.side_to_move().index() as u8;
    key
}

/// The thresholds of the hand planes, per kind in the observation's order
/// (pawn, lance, knight, silver, gold, bishop, rook): planes for 1 to n held.
const HAND_PLANES: [(Piece, u8); 7] = [
    (Piece::Pawn, 8),
    (Piece::Lance, 4),
    (Piece::Knight, 4),
    (Piece::Silver, 4),
    (Piece::Gold, 4),
    (Piece::Bishop, 2),
    (Piece::Rook, 2),
];

impl EnvGame for ShogiGame {
    type Rules = ShogiGame;
    type State = ShogiState;
    type Cell = bool;
    const ID: &'static str = "shogi";
    const ACTIONS: usize = ACTIONS;
    const OBSERVATION_SHAPE: [usize; 3] = [9, 9, PLANES];

    fn start() -> ShogiState {
        ShogiState::from_position(Position::start())
    }

    fn color(state: &ShogiState) -> usize {
        state.position.side_to_move().index()
    }

    fn legal_action_mask(state: &ShogiState, mask: &mut [bool]) {
        mask.fill(false);
        let us = state.position.side_to_move();
        for mv in state.position.legal_moves() {
            mask[action_of(mv, us)] = true;
        }
    }

    fn play_action(state: &mut ShogiState, action: usize) {
        let mv = state.legal_move_of(action);
        debug_assert_eq!(state.move_of(action), Some(mv), "action {action} names a legal move");
        let mover = state.position.side_to_move();
        state.position = <ShogiGame as Game>::play(&state.position, mv);
        state.keys.push(key_of(&state.position));
        state.checks.push(in_check(&state.position, !mover));
        state.repetition = state.repetition_now();
    }

    fn outcome(state: &ShogiState, mask: &[bool]) -> Outcome {
        let to_move = state.position.side_to_move();
        let loser = if !mask.iter().any(|&legal| legal) {
            Some(to_move)
        } else {
            match state.repetition {
                Some(Repetition::PerpetualCheck(checker)) => Some(checker),
                _ => None,
            }
        };
        let rewards = loser.map_or([0.0; 2], |loser| Outcome::loss_rewards(loser.index()));
        let terminated = loser.is_some() || state.repetition.is_some() || state.steps() >= MAX_STEPS;
        Outcome { terminated, rewards }
    }

    fn observe(state: &ShogiState, observation: &mut [bool]) {
        observe_position(&state.position, observation);
    }
}

/// pgx's observation of `position` (9×9×[`PLANES`], see the module
/// documentation): what the environment shows, from the position alone.
pub fn observe_position(position: &Position, observation: &mut [bool]) {
    observation.fill(false);
    let us = position.side_to_move();
    let occupied = position.occupied();
    let mut set = |square: u8, plane: usize| observation[cell_of(square, us) * PLANES + plane] = true;
    for (side, color) in [(0, us), (1, !us)] {
        let first = side * 31;
        let mut attackers = [0u8; 81];
        for piece in Piece::ALL {
            let kind = pgx_kind(piece);
            for square in position.pieces_of(color, piece) {
                set(square, first + kind);
                for target in attacks(piece, color, square, occupied) {
                    set(target, first + 14 + kind);
                    attackers[usize::from(target)] += 1;
                }
            }
        }
        for (square, &count) in attackers.iter().enumerate() {
            for at_least in 1..=count.min(3) {
                set(square as u8, first + 27 + usize::from(at_least));
            }
        }
    }
    let mut fill = |plane: usize| {
        for cell in 0..81 {
            observation[cell * PLANES + plane] = true;
        }
    };
    let mut plane = 62;
    for color in [us, !us] {
        for (piece, planes) in HAND_PLANES {
            let held = position.in_hand(color, piece);
            for at_least in 1..=planes {
                if held >= at_least {
                    fill(plane);
                }
                plane += 1;
            }
        }
    }
    if in_check(position, us) {
        fill(118);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_has_pgx_s_thirty_actions() {
        // pgx's INIT_LEGAL_ACTION_MASK.
        let expected = [
            5, 7, 14, 23, 25, 32, 34, 41, 43, 50, 52, 59, 61, 68, 77, 79, 115, 124, 133, 142, 187, 196, 205, 214, 268,
            277, 286, 295, 304, 331,
        ];
        let mut mask = vec![false; ACTIONS];
        <ShogiGame as EnvGame>::legal_action_mask(&<ShogiGame as EnvGame>::start(), &mut mask);
        let actions: Vec<usize> = (0..ACTIONS).filter(|&action| mask[action]).collect();
        assert_eq!(actions, expected);
    }

    /// Every legal move of seeded random games and of positions with drops,
    /// promotions and long slides read back from its action.
    #[test]
    fn an_action_reads_as_the_legal_move_it_names() {
        let mut positions = crate::shogi::perft::random_positions(300, 11);
        for sfen in [
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "lnsgk2nl/1r4gs1/p1pppp1pp/1p4p2/7P1/2P6/PP1PPPP1P/1SG4R1/LN2KGSNL b Bb 1",
            "lnsgk2nl/1r4gs1/p1pppp1pp/1p4p2/7P1/2P6/PP1PPPP1P/1SG4R1/LN2KGSNL w Bb 1",
        ] {
            positions.push(Position::from_sfen(sfen).unwrap());
        }
        let (mut drops, mut promotions, mut slides) = (0, 0, 0);
        for position in positions {
            let state = ShogiState::from_position(position);
            let us = position.side_to_move();
            for mv in position.legal_moves() {
                assert_eq!(state.legal_move_of(action_of(mv, us)), mv, "{}", position.to_sfen());
                drops += usize::from(mv.from.is_none());
                promotions += usize::from(mv.promote);
                if let Some(from) = mv.from {
                    let ((from_column, from_row), (column, row)) = (frame(from, us), frame(mv.to, us));
                    let (columns, rows) = ((column - from_column).abs(), (row - from_row).abs());
                    slides += usize::from(columns.max(rows) > 1 && (columns == 0 || rows == 0 || columns == rows));
                }
            }
        }
        assert!(drops > 0 && promotions > 0 && slides > 0, "drops {drops}, promotions {promotions}, slides {slides}");
    }

    #[test]
    fn every_legal_move_has_its_own_action() {
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "lnsgk2nl/1r4gs1/p1pppp1pp/1p4p2/7P1/2P6/PP1PPPP1P/1SG4R1/LN2KGSNL b Bb 1",
        ] {
            let position = Position::from_sfen(sfen).unwrap();
            let us = position.side_to_move();
            let mut actions: Vec<usize> = position.legal_moves().into_iter().map(|mv| action_of(mv, us)).collect();
            let moves = actions.len();
            actions.sort_unstable();
            actions.dedup();
            assert_eq!(actions.len(), moves, "{sfen}");
            assert!(actions.iter().all(|&action| action < ACTIONS));
        }
    }
}
