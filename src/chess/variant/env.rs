//! Five lichess variants as batched environments ([`crate::env::Env`]), on
//! the chess environment's actions and observation: atomic, king of the
//! hill, three-check, horde and racing kings. pgx has no variants, so their
//! rules are lichess's as python-chess (`chess.variant`) implements them,
//! and tests hold the environments to python-chess step by step.
//! Antichess (a pawn may promote to a king) and crazyhouse (drops) need
//! actions AlphaZero's 4,672 do not have, and are not environments.
//!
//! - **Actions** are the chess environment's ([`crate::chess::env`]): a
//!   from-square times 73 planes in the mover's frame, castling as the
//!   king's two-square move, a horde's pawn on the first rank pushing two
//!   squares as any two-square step.
//! - **The observation** is the chess environment's 8×8×119 (the last eight
//!   boards, repetitions, colour, steps, castling, halfmove clock); a
//!   three-check game adds two planes, the checks the mover and then the
//!   opponent still need to give, over 3.
//! - **The game ends** by the variant's own rule (an exploded king, a king
//!   on the hill, a third check, a horde with no pieces, a king on the
//!   eighth rank, black given its one move to reach it too), checkmate,
//!   stalemate, the fifty-move rule, a threefold repetition (the en passant
//!   square counting only when a capture there is legal, three-check's
//!   counters counting too), insufficient material as python-chess judges it
//!   for atomic and three-check (king of the hill and racing kings have
//!   none), and at 512 steps, as chess in pgx. A horde game is not ended for
//!   insufficient material; python-chess's rule for it is not followed
//!   (the tests name each game where that differs).
//! - **Rewards**: +1 for the winner, -1 for the loser, 0 each for a draw.

use crate::chess::board::{Bitboard, Color, MoveKind, Piece};
use crate::chess::env::{ACTIONS, MAX_STEPS, ObservationView, PLANES, Repetitions, action_of, write_observation};
use crate::chess::variant::rules::HILL;
use crate::chess::variant::{ChessVariants, Variant, VariantPosition};
use crate::env::{EnvGame, Outcome};

/// A variant's environment: `VARIANT` is its [`Variant`] as a number
/// (`Variant::Atomic as u8`); the aliases below name the five.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VariantEnv<const VARIANT: u8>;

/// Atomic chess as an environment.
pub type AtomicEnv = VariantEnv<{ Variant::Atomic as u8 }>;
/// King of the hill as an environment.
pub type KingOfTheHillEnv = VariantEnv<{ Variant::KingOfTheHill as u8 }>;
/// Three-check as an environment.
pub type ThreeCheckEnv = VariantEnv<{ Variant::ThreeCheck as u8 }>;
/// Horde as an environment.
pub type HordeEnv = VariantEnv<{ Variant::Horde as u8 }>;
/// Racing kings as an environment.
pub type RacingKingsEnv = VariantEnv<{ Variant::RacingKings as u8 }>;

/// The variant numbered `code`; only the five environments' compile.
const fn variant_of(code: u8) -> Variant {
    let mut index = 0;
    while index < Variant::ALL.len() {
        let variant = Variant::ALL[index];
        if variant as u8 == code {
            match variant {
                Variant::Atomic
                | Variant::KingOfTheHill
                | Variant::ThreeCheck
                | Variant::Horde
                | Variant::RacingKings => return variant,
                _ => panic!("antichess, crazyhouse and standard chess are not variant environments"),
            }
        }
        index += 1;
    }
    panic!("no variant has this number")
}

/// A position as repetition compares it: the piece-code planes and black's
/// pieces, then side to move, castling rights and the en passant square
/// where a capture there is legal (64 when none), then three-check's counters.
type VariantKey = [u64; 6];

/// One variant game in an [`crate::env::Env`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantState {
    position: VariantPosition,
    /// Every position of the game, the start first, and how often each arises.
    history: Repetitions<VariantKey>,
    /// Steps played.
    steps: u32,
}

impl VariantState {
    /// A game that begins at `position`: no history before it, no steps played.
    pub fn from_position(position: VariantPosition) -> VariantState {
        VariantState { position, history: Repetitions::new(key_of(&position)), steps: 0 }
    }

    /// The position now.
    pub fn position(&self) -> &VariantPosition {
        &self.position
    }

    /// Steps played since the start.
    pub fn steps(&self) -> u32 {
        self.steps
    }
}

fn key_of(position: &VariantPosition) -> VariantKey {
    let board = position.board();
    let planes = board.code_planes();
    let side = u64::from(board.side_to_move() == Color::Black);
    let en_passant = board
        .en_passant()
        .filter(|_| position.legal_moves().iter().any(|mv| mv.kind() == MoveKind::EnPassant))
        .map_or(64, |square| square as u64);
    let checks =
        u64::from(position.remaining_checks(Color::White)) | u64::from(position.remaining_checks(Color::Black)) << 8;
    [
        planes[0],
        planes[1],
        planes[2],
        planes[3],
        side | u64::from(board.castling_rights().bits()) << 1 | en_passant << 17,
        checks,
    ]
}

/// The game's end by its variant's rule, when it has one: `Some(winner)`,
/// `None` inside for a draw (two kings on the eighth rank).
fn variant_result(position: &VariantPosition) -> Option<Option<Color>> {
    if !position.is_variant_end() {
        return None;
    }
    let board = position.board();
    let kings = |color: Color| board.pieces_of(color, Piece::King);
    Some(match position.variant() {
        // The side whose king is gone has lost.
        Variant::Atomic => Color::ALL.into_iter().find(|&color| !kings(color).is_empty()),
        Variant::KingOfTheHill => Color::ALL.into_iter().find(|&color| !(kings(color) & HILL).is_empty()),
        Variant::ThreeCheck => Color::ALL.into_iter().find(|&color| position.remaining_checks(color) == 0),
        Variant::Horde => Color::ALL.into_iter().find(|&color| !board.colored(color).is_empty()),
        Variant::RacingKings => {
            let eighth = Bitboard::rank(7);
            match (!(kings(Color::White) & eighth).is_empty(), !(kings(Color::Black) & eighth).is_empty()) {
                (true, true) => None,
                (true, false) => Some(Color::White),
                _ => Some(Color::Black),
            }
        }
        _ => None,
    })
}

/// Whether neither side can win by any sequence of legal moves, as
/// python-chess judges it for atomic and three-check; never in king of the
/// hill and racing kings (a king can always walk), and not judged for a
/// horde (see the module documentation).
fn insufficient_material(position: &VariantPosition) -> bool {
    let board = position.board();
    let alone = |color: Color| (board.colored(color) & !board.pieces(Piece::King)).is_empty();
    match position.variant() {
        // A piece besides the king can always give check.
        Variant::ThreeCheck => alone(Color::White) && alone(Color::Black),
        Variant::Atomic => Color::ALL.into_iter().all(|color| atomic_cannot_win(position, color)),
        _ => false,
    }
}

/// Whether `color` cannot explode the other king, whatever is played.
fn atomic_cannot_win(position: &VariantPosition, color: Color) -> bool {
    let board = position.board();
    let them = !color;
    if board.pieces_of(them, Piece::King).is_empty() {
        return false;
    }
    let besides_kings = |side: Color| board.colored(side) & !board.pieces(Piece::King);
    if besides_kings(color).is_empty() {
        // A king cannot capture, so it cannot explode anything.
        return true;
    }
    if !besides_kings(them).is_empty() {
        // Their pieces can be captured next to their king, unless every
        // piece left is a bishop and no bishop of one side shares a colour
        // of square with one of the other's.
        if board.occupied() == board.pieces(Piece::Bishop) | board.pieces(Piece::King) {
            let light = Bitboard(0x55aa_55aa_55aa_55aa);
            let bishops = |side: Color, squares: Bitboard| !(board.pieces_of(side, Piece::Bishop) & squares).is_empty();
            let (white, black) = (Color::White, Color::Black);
            if !bishops(white, !light) {
                return !bishops(black, light);
            }
            if !bishops(white, light) {
                return !bishops(black, !light);
            }
        }
        return false;
    }
    // Against a bare king: a queen or a pawn (a queen to be) can mate.
    if !(board.pieces(Piece::Queen) | board.pieces(Piece::Pawn)).is_empty() {
        return false;
    }
    let minors_and_rooks = board.pieces(Piece::Knight) | board.pieces(Piece::Bishop) | board.pieces(Piece::Rook);
    if minors_and_rooks.count() == 1 {
        return true;
    }
    if board.occupied() == board.pieces(Piece::Knight) | board.pieces(Piece::King) {
        return board.pieces(Piece::Knight).count() <= 2;
    }
    false
}

impl<const VARIANT: u8> EnvGame for VariantEnv<VARIANT> {
    type Rules = ChessVariants;
    type State = VariantState;
    type Cell = f32;
    const ID: &'static str = variant_of(VARIANT).uci_name();
    const ACTIONS: usize = ACTIONS;
    const OBSERVATION_SHAPE: [usize; 3] =
        [8, 8, if matches!(variant_of(VARIANT), Variant::ThreeCheck) { PLANES + 2 } else { PLANES }];

    fn start() -> VariantState {
        VariantState::from_position(VariantPosition::start(variant_of(VARIANT)))
    }

    fn color(state: &VariantState) -> usize {
        state.position.side_to_move().index()
    }

    fn legal_action_mask(state: &VariantState, mask: &mut [bool]) {
        mask.fill(false);
        let us = state.position.side_to_move();
        for mv in state.position.legal_moves() {
            mask[action_of(mv, us)] = true;
        }
    }

    fn play_action(state: &mut VariantState, action: usize) {
        let us = state.position.side_to_move();
        let mv = state
            .position
            .legal_moves()
            .into_iter()
            .find(|&mv| action_of(mv, us) == action)
            .expect("the action is in the mask");
        state.position = state.position.make_move(mv);
        state.history.push(key_of(&state.position), usize::from(state.position.board().halfmove_clock()));
        state.steps += 1;
    }

    fn outcome(state: &VariantState, mask: &[bool]) -> Outcome {
        let position = &state.position;
        if let Some(winner) = variant_result(position) {
            let rewards = winner.map_or([0.0; 2], |winner| Outcome::loss_rewards((!winner).index()));
            return Outcome { terminated: true, rewards };
        }
        let no_moves = !mask.iter().any(|&legal| legal);
        let checkmate = no_moves && position.is_check();
        let terminated = no_moves
            || position.board().halfmove_clock() >= 100
            || insufficient_material(position)
            || state.history.occurrences(0) >= 3
            || state.steps >= MAX_STEPS;
        let rewards = if checkmate { Outcome::loss_rewards(position.side_to_move().index()) } else { [0.0; 2] };
        Outcome { terminated, rewards }
    }

    fn observe(state: &VariantState, observation: &mut [f32]) {
        let board = state.position.board();
        let history = &state.history;
        let recent = std::array::from_fn(|back| {
            (back < history.len()).then(|| {
                let key = history.key(back);
                ([key[0], key[1], key[2], key[3]], history.occurrences(back) > 1)
            })
        });
        let rights = board.castling_rights();
        let us = board.side_to_move();
        let view = ObservationView {
            us,
            recent,
            steps: state.steps,
            castling_files: [rights.files(Color::White), rights.files(Color::Black)],
            halfmove_clock: u32::from(board.halfmove_clock()),
        };
        write_observation(&view, observation);
        if state.position.variant() == Variant::ThreeCheck {
            let planes = Self::OBSERVATION_SHAPE[2];
            for square in 0..64 {
                for (offset, color) in [(0, us), (1, !us)] {
                    let remaining = f32::from(state.position.remaining_checks(color));
                    observation[square * planes + PLANES + offset] = remaining * (1.0 / 3.0);
                }
            }
        }
    }
}
