//! Chess as pgx's `chess` environment (version v2) defines it, on this
//! crate's move generator: [`Chess`] is the [`EnvGame`].
//!
//! - **Actions** are AlphaZero's 4,672: a from-square times 73 planes, in the
//!   frame of the side to move (black's board mirrored rank for rank), the
//!   squares numbered file by file (a1 0, a2 1, …, h8 63). Planes 0–8 are
//!   the underpromotions (rook, bishop, knight; straight, towards the
//!   h-file, towards the a-file); planes 9–72 the queen-like and knight
//!   moves, a pawn's move to the last rank promoting to a queen. Castling is
//!   the king's two-square move.
//! - **The observation** is 8×8×119: for each of the last eight positions
//!   (the current first), the mover's six piece kinds, the opponent's six,
//!   and whether the position had been seen before (one plane for never,
//!   one for at least once); then the colour to move, the steps taken over
//!   512, the four castling rights (mover's queen and king side, then the
//!   opponent's) and the halfmove clock over 100. Rows run from the mover's
//!   eighth rank down, columns from the a-file. Positions before the game
//!   began read as empty boards never seen before.
//! - **The game ends** by checkmate (the mated side -1, the other +1),
//!   stalemate, the fifty-move rule (100 halfmoves), a threefold
//!   repetition, pgx's insufficient material (OpenSpiel's test: king
//!   against king, a lone minor piece, or nothing but bishops on squares of
//!   one colour) and at 512 steps, all but checkmate drawn. As in pgx, the
//!   step limit sets `terminated`, not `truncated`.
//! - **Repetition** compares the pieces, the side to move, the castling
//!   rights and, as pgx does, the square a double push just passed, whether
//!   or not a pawn can take on it. Positions are compared whole, not by hash.

use crate::chess::Chess;
use crate::chess::board::{Color, Move, MoveKind, Piece, Square};
use crate::chess::position::Position;
use crate::env::{EnvGame, Outcome};
use crate::game::Game;

/// Actions: 64 from-squares times 73 planes.
pub const ACTIONS: usize = 64 * 73;
/// Steps after which a game ends drawn (AlphaZero's, pgx's).
pub const MAX_STEPS: u32 = 512;
/// Positions of history in an observation.
const HISTORY: usize = 8;
/// Planes of one position of history: twelve piece kinds, two repetition planes.
const PLANES_PER_POSITION: usize = 14;
/// Planes of the observation.
pub const PLANES: usize = HISTORY * PLANES_PER_POSITION + 7;

/// A position as repetition compares it: the three piece-code planes and
/// black's pieces, then side to move, castling rights and the square a
/// double push just passed (64 when none).
type PositionKey = [u64; 5];

/// One chess game in an [`crate::env::Env`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChessState {
    position: Position,
    /// Every position of the game, the start first, and how often each arises.
    history: Repetitions<PositionKey>,
    /// Steps played.
    steps: u32,
}

/// Every position of a game as repetition compares it (its key), the start
/// first, with how often each arises in the whole game, kept as each
/// position comes: a new key is compared with the keys of its run of
/// reversible moves only (no position before a pawn move or a capture can
/// come back), once, and the equal ones count it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repetitions<Key> {
    keys: Vec<Key>,
    counts: Vec<u16>,
}

impl<Key: PartialEq> Repetitions<Key> {
    /// A game's first position.
    pub(crate) fn new(first: Key) -> Repetitions<Key> {
        Repetitions { keys: vec![first], counts: vec![1] }
    }

    /// The next position, `halfmove_clock` halfmoves after the last pawn
    /// move or capture (a game set up mid-way has no history before its
    /// first position).
    pub(crate) fn push(&mut self, key: Key, halfmove_clock: usize) {
        let run_start = self.keys.len().saturating_sub(halfmove_clock);
        let mut count = 1;
        for (earlier, times) in self.keys[run_start..].iter().zip(&mut self.counts[run_start..]) {
            if *earlier == key {
                *times += 1;
                count += 1;
            }
        }
        self.keys.push(key);
        self.counts.push(count);
    }

    /// Positions of the game.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The key of the position `back` steps ago.
    pub(crate) fn key(&self, back: usize) -> &Key {
        &self.keys[self.keys.len() - 1 - back]
    }

    /// How many times the position `back` steps ago arises in the game, itself included.
    pub(crate) fn occurrences(&self, back: usize) -> usize {
        usize::from(self.counts[self.counts.len() - 1 - back])
    }
}

impl ChessState {
    /// A game that begins at `position` (pgx's `from_fen`): no history
    /// before it, no steps played.
    pub fn from_position(position: Position) -> ChessState {
        let passed = position.en_passant();
        ChessState { position, history: Repetitions::new(key_of(&position, passed)), steps: 0 }
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Steps played since the start.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The legal move that `action` names, if any.
    pub fn move_of(&self, action: usize) -> Option<Move> {
        let us = self.position.side_to_move();
        self.position.legal_moves().into_iter().find(|&mv| action_of(mv, us) == action)
    }

    /// The move that `action` names, read from the action and the board
    /// without generating moves: the caller knows it legal (it is in the
    /// mask). A step used to generate the legal moves twice, once for the
    /// mask and once to find the action's move.
    fn legal_move_of(&self, action: usize) -> Move {
        let us = self.position.side_to_move();
        let (from, plane) = (action / 73, action % 73);
        let real = |index: usize| {
            let (file, rank) = ((index / 8) as u8, (index % 8) as u8);
            Square::new(file, if us == Color::White { rank } else { 7 - rank })
        };
        let (from_file, from_rank) = ((from / 8) as i8, (from % 8) as i8);
        let (to, promotion) = if plane < 9 {
            let file_step = [0, 1, -1][plane % 3];
            let piece = [Piece::Rook, Piece::Bishop, Piece::Knight][plane / 3];
            (((from_file + file_step) * 8 + from_rank + 1) as usize, Some(piece))
        } else {
            let (rank_step, file_step) = STEPS[plane - 9];
            (((from_file + file_step) * 8 + from_rank + rank_step) as usize, None)
        };
        let (from, to) = (real(from), real(to));
        let kind = match self.position.piece_kind_on(from) {
            // Castling is the king's two-square move, its `to` the rook's
            // square: rare enough to find among the legal moves.
            Some(Piece::King) if from.file().abs_diff(to.file()) == 2 => {
                return self.move_of(action).expect("the action is legal");
            }
            Some(Piece::Pawn) if promotion.is_some() => MoveKind::Promotion(promotion.unwrap()),
            Some(Piece::Pawn) if to.rank() == 0 || to.rank() == 7 => MoveKind::Promotion(Piece::Queen),
            Some(Piece::Pawn) if from.file() != to.file() && self.position.piece_on(to).is_none() => {
                MoveKind::EnPassant
            }
            _ => MoveKind::Normal,
        };
        Move::new(from, to, kind)
    }
}

/// A square in the frame of `us` as pgx numbers it: file by file, black's
/// board mirrored rank for rank.
fn frame_index(square: Square, us: Color) -> usize {
    let rank = if us == Color::White { square.rank() } else { 7 - square.rank() };
    usize::from(square.file()) * 8 + usize::from(rank)
}

/// The (rank, file) step of each of the 64 queen-like and knight planes, in
/// pgx's order: down, up, left, right, down-left, up-right, up-left (far
/// first), down-right, then the eight knight moves.
const STEPS: [(i8, i8); 64] = {
    let mut steps = [(0i8, 0i8); 64];
    let mut index = 0;
    while index < 7 {
        let near = index as i8 + 1;
        let far = index as i8 - 7;
        steps[index] = (far, 0);
        steps[7 + index] = (near, 0);
        steps[14 + index] = (0, far);
        steps[21 + index] = (0, near);
        steps[28 + index] = (far, far);
        steps[35 + index] = (near, near);
        steps[42 + index] = (-far, far);
        steps[49 + index] = (-near, near);
        index += 1;
    }
    let knight_ranks = [-1, 1, -2, 2, -1, 1, -2, 2];
    let knight_files = [-2, -2, -1, -1, 2, 2, 1, 1];
    let mut knight = 0;
    while knight < 8 {
        steps[56 + knight] = (knight_ranks[knight], knight_files[knight]);
        knight += 1;
    }
    steps
};

/// The plane of a move from one square to another (pgx frame indices)
/// that is not an underpromotion; 0 where no queen or knight step joins them.
const MOVE_PLANES: [[u8; 64]; 64] = {
    let mut planes = [[0u8; 64]; 64];
    let mut from = 0;
    while from < 64 {
        let mut index = 0;
        while index < 64 {
            let (rank_step, file_step) = STEPS[index];
            let rank = (from % 8) as i8 + rank_step;
            let file = (from / 8) as i8 + file_step;
            if rank >= 0 && rank < 8 && file >= 0 && file < 8 {
                planes[from][(file * 8 + rank) as usize] = 9 + index as u8;
            }
            index += 1;
        }
        from += 1;
    }
    planes
};

fn move_plane(from: usize, to: usize) -> usize {
    let plane = MOVE_PLANES[from][to];
    debug_assert!(plane >= 9, "a move is a queen or knight step");
    usize::from(plane)
}

/// pgx's action for a legal move of the side `us`.
pub fn action_of(mv: Move, us: Color) -> usize {
    let from = frame_index(mv.from(), us);
    let to = frame_index(mv.king_destination(), us);
    let plane = match mv.kind() {
        MoveKind::Promotion(piece @ (Piece::Rook | Piece::Bishop | Piece::Knight)) => {
            let kind = match piece {
                Piece::Rook => 0,
                Piece::Bishop => 1,
                _ => 2,
            };
            let direction = match (to / 8).cmp(&(from / 8)) {
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => 2,
            };
            kind * 3 + direction
        }
        _ => move_plane(from, to),
    };
    from * 73 + plane
}

fn key_of(position: &Position, passed: Option<Square>) -> PositionKey {
    let planes = position.code_planes();
    let side = u64::from(position.side_to_move() == Color::Black);
    let passed = passed.map_or(64, |square| square as u64);
    [
        planes[0],
        planes[1],
        planes[2],
        planes[3],
        side | u64::from(position.castling_rights().bits()) << 1 | passed << 17,
    ]
}

/// pgx's test of insufficient material (OpenSpiel's): no more than the two
/// kings, or one minor piece besides, or nothing but bishops all on squares
/// of one colour.
fn insufficient_material(position: &Position) -> bool {
    let pieces = position.occupied().count();
    let heavy_or_pawns =
        (position.pieces(Piece::Pawn) | position.pieces(Piece::Rook) | position.pieces(Piece::Queen)).count();
    let bishops = position.pieces(Piece::Bishop);
    let dark = bishops.squares().filter(|square| (square.file() + square.rank()) % 2 == 0).count() as u32;
    pieces <= 2
        || (pieces == 3 && heavy_or_pawns == 0)
        || (pieces == bishops.count() + 2 && (dark == bishops.count() || dark == 0))
}

impl EnvGame for Chess {
    type Rules = Chess;
    type State = ChessState;
    type Cell = f32;
    const ID: &'static str = "chess";
    const ACTIONS: usize = ACTIONS;
    const OBSERVATION_SHAPE: [usize; 3] = [8, 8, PLANES];

    fn start() -> ChessState {
        ChessState::from_position(Position::start())
    }

    fn color(state: &ChessState) -> usize {
        state.position.side_to_move().index()
    }

    fn legal_action_mask(state: &ChessState, mask: &mut [bool]) {
        mask.fill(false);
        let us = state.position.side_to_move();
        for mv in state.position.legal_moves() {
            mask[action_of(mv, us)] = true;
        }
    }

    fn play_action(state: &mut ChessState, action: usize) {
        let mv = state.legal_move_of(action);
        debug_assert_eq!(Some(mv), state.move_of(action), "action {action}");
        let passed = match mv.kind() {
            MoveKind::Normal
                if state.position.piece_kind_on(mv.from()) == Some(Piece::Pawn)
                    && mv.from().rank().abs_diff(mv.to().rank()) == 2 =>
            {
                Some(Square::new(mv.from().file(), (mv.from().rank() + mv.to().rank()) / 2))
            }
            _ => None,
        };
        state.position = <Chess as Game>::play(&state.position, mv);
        state.history.push(key_of(&state.position, passed), usize::from(state.position.halfmove_clock()));
        state.steps += 1;
    }

    fn outcome(state: &ChessState, mask: &[bool]) -> Outcome {
        let no_moves = !mask.iter().any(|&legal| legal);
        let checkmate = no_moves && state.position.in_check();
        let terminated = no_moves
            || state.position.halfmove_clock() >= 100
            || insufficient_material(&state.position)
            || state.history.occurrences(0) >= 3
            || state.steps >= MAX_STEPS;
        let rewards = if checkmate { Outcome::loss_rewards(state.position.side_to_move().index()) } else { [0.0; 2] };
        Outcome { terminated, rewards }
    }

    fn observe(state: &ChessState, observation: &mut [f32]) {
        let history = &state.history;
        let recent = std::array::from_fn(|back| {
            (back < history.len()).then(|| {
                let key = history.key(back);
                ([key[0], key[1], key[2], key[3]], history.occurrences(back) > 1)
            })
        });
        let rights = state.position.castling_rights();
        let view = ObservationView {
            us: state.position.side_to_move(),
            recent,
            steps: state.steps,
            castling_files: [rights.files(Color::White), rights.files(Color::Black)],
            halfmove_clock: u32::from(state.position.halfmove_clock()),
        };
        write_observation(&view, observation);
    }
}

/// What an observation shows of a game, wherever the game is kept: the CPU
/// environment draws it from a [`ChessState`], the GPU backend from what
/// its kernels keep ([`crate::chess::gpu::env`]); one writer lays out both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ObservationView {
    /// The side to move, whose frame the observation is drawn in.
    pub us: Color,
    /// The last [`HISTORY`] positions, the current first, as the key's
    /// four planes (piece-code bits, black's pieces) and whether the
    /// position arises more than once in the game; `None` before the game began.
    pub recent: [Option<([u64; 4], bool)>; HISTORY],
    /// Steps played.
    pub steps: u32,
    /// The files of the rooks that may castle, white's then black's.
    pub castling_files: [u8; 2],
    /// Halfmoves since the last pawn move or capture.
    pub halfmove_clock: u32,
}

/// Positions an observation shows (`RECENT_POSITIONS` in the GPU backend).
pub(crate) const RECENT_POSITIONS: usize = HISTORY;

/// Writes pgx's 8×8×119 observation of `view` (see the module documentation)
/// in the first 119 planes of an observation of `observation.len() / 64`
/// planes a square (a variant's has more), clearing the rest.
pub(crate) fn write_observation(view: &ObservationView, observation: &mut [f32]) {
    let stride = observation.len() / 64;
    let us = view.us;
    // The planes that hold one value on every square, as one square's row
    // (the rest zero), copied to all 64; then the pieces, square by square.
    let mut row = [0.0f32; 2 * PLANES];
    let row = &mut row[..stride];
    for (back, position) in view.recent.iter().enumerate() {
        // Never seen before (plane 12; so too a board before the game
        // began, which is empty), or seen (plane 13).
        let seen_before = position.is_some_and(|(_, seen_before)| seen_before);
        row[back * PLANES_PER_POSITION + if seen_before { 13 } else { 12 }] = 1.0;
    }
    let base = HISTORY * PLANES_PER_POSITION;
    row[base] = us.index() as f32;
    row[base + 1] = view.steps as f32 / MAX_STEPS as f32;
    for (offset, color) in [(0, us), (2, !us)] {
        let files = view.castling_files[color.index()];
        row[base + 2 + offset] = f32::from(u8::from(files & 1 != 0));
        row[base + 3 + offset] = f32::from(u8::from(files & 0x80 != 0));
    }
    // XLA divides by multiplying with the reciprocal; so does this, to the last bit.
    row[base + 6] = view.halfmove_clock as f32 * (1.0 / 100.0);
    for cell in observation.chunks_exact_mut(stride) {
        cell.copy_from_slice(row);
    }
    // Rows run from the mover's eighth rank down: white's board turned over.
    let flip = if us == Color::White { 56 } else { 0 };
    let black_is_us = us == Color::Black;
    for (back, position) in view.recent.iter().enumerate() {
        let Some((planes, _)) = position else { continue };
        let mut occupied = planes[0] | planes[1] | planes[2];
        while occupied != 0 {
            let index = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            let code = (planes[0] >> index & 1) | (planes[1] >> index & 1) << 1 | (planes[2] >> index & 1) << 2;
            let black = planes[3] >> index & 1 == 1;
            let kind = code as usize - 1 + if black == black_is_us { 0 } else { 6 };
            observation[(index ^ flip) * stride + back * PLANES_PER_POSITION + kind] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_has_pgx_s_twenty_actions() {
        // pgx's INIT_LEGAL_ACTION_MASK.
        let expected = [
            89, 90, 652, 656, 673, 674, 1257, 1258, 1841, 1842, 2425, 2426, 3009, 3010, 3572, 3576, 3593, 3594, 4177,
            4178,
        ];
        let mut mask = vec![false; ACTIONS];
        <Chess as EnvGame>::legal_action_mask(&<Chess as EnvGame>::start(), &mut mask);
        let actions: Vec<usize> = (0..ACTIONS).filter(|&action| mask[action]).collect();
        assert_eq!(actions, expected);
    }

    #[test]
    fn castling_is_pgx_s_two_labels() {
        let position = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let king_side = position.parse_uci_move("e1g1").unwrap();
        let queen_side = position.parse_uci_move("e1c1").unwrap();
        assert_eq!(action_of(king_side, Color::White), 2367);
        assert_eq!(action_of(queen_side, Color::White), 2364);
        // Black's castling is the same label in its mirrored frame.
        let position = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1").unwrap();
        assert_eq!(action_of(position.parse_uci_move("e8g8").unwrap(), Color::Black), 2367);
    }

    /// Reading a move from its action alone gives the move generation's
    /// move, on every legal move of the positions of seeded random games
    /// (castling, en passant and promotions included) and of positions
    /// built for the rare moves.
    #[test]
    fn an_action_reads_as_the_legal_move_it_names() {
        let mut positions = crate::chess::random_play::random_positions(&Position::start(), 400, 200, 7);
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
            "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3",
            "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
        ] {
            positions.push(Position::from_fen(fen).unwrap());
        }
        let mut kinds = [0usize; 4];
        for position in positions {
            let state = ChessState::from_position(position);
            let us = position.side_to_move();
            for mv in position.legal_moves() {
                assert_eq!(state.legal_move_of(action_of(mv, us)), mv, "{}", position.to_fen());
                kinds[match mv.kind() {
                    MoveKind::Castling => 1,
                    MoveKind::EnPassant => 2,
                    MoveKind::Promotion(_) => 3,
                    _ => 0,
                }] += 1;
            }
        }
        assert!(kinds.iter().all(|&count| count > 0), "moves of each kind: {kinds:?}");
    }

    #[test]
    fn every_legal_move_has_its_own_action() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let position = Position::from_fen(fen).unwrap();
            let us = position.side_to_move();
            let mut actions: Vec<usize> = position.legal_moves().into_iter().map(|mv| action_of(mv, us)).collect();
            let moves = actions.len();
            actions.sort_unstable();
            actions.dedup();
            assert_eq!(actions.len(), moves, "{fen}");
            assert!(actions.iter().all(|&action| action < ACTIONS));
        }
    }
}
