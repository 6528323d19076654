// kernels/environment.wgsl — chess games kept on the device and stepped by
// actions (src/chess/gpu/env.rs), one invocation per game.
//
// Reads: the attack tables (binding 0), `actions` (binding 5), one per
// game (NO_ACTION: the game is not stepped), `parameters` (binding 4).
// Reads and writes: `games` (binding 1), each game's position;
// `action_masks` (binding 2), its legal-action mask (actions.wgsl);
// `game_states` (binding 7), its steps, end and rewards; `history`
// (binding 8), first the keys of each game's positions since its last pawn
// move or capture (HISTORY_KEYS a game), then each game's RECENT_POSITIONS
// last positions, whatever their run, with how often each has arisen
// (RECENT_WORDS a game): what the observation is drawn from. Writes:
// `results` (binding 6), one per game (RESULT_*); `status` (binding 3) on
// a fault. Dispatch: POSITION_WORKGROUP invocations per workgroup; global
// invocation x is the game, which no other invocation touches.
// A step is three or four dispatches: `play_actions` plays each game's
// action, when its mask holds it, `remember_positions` keeps its recent
// positions, `write_masks` writes the masks of the games it played and
// whether each has ended (apart, so that none holds one move walk's
// registers through another), and with auto-reset `reset_ended` puts a new
// game in place of each that ended. `reset_games` puts every game back at
// the start. The rules of the end are the CPU environment's
// (src/chess/env.rs): checkmate, stalemate, the fifty-move rule, threefold
// repetition, insufficient material, MAX_STEPS steps, and an action outside
// the mask, which the mover loses.

#import actions

// Rust twin: EnvironmentParameters in src/chess/gpu/env.rs.
struct EnvironmentParameters {
    // Games in the batch.
    count: u32,
    // 1: `reset_ended` replaces a game that ends by a new one at once.
    auto_reset: u32,
    padding: vec2<u32>,
    // The position a new game starts from (chess's start): its planes'
    // halves, two planes a vector (a uniform's arrays step by 16 bytes).
    start_planes: array<vec4<u32>, 2>,
    // Its state and counters words, then the square its last double push
    // passed (NO_SQUARE), then padding.
    start_words: vec4<u32>,
}

// What a step did to a game. Rust twins: RESULT_* in src/chess/gpu/env.rs.
const RESULT_NOT_STEPPED: u32 = 0u;
const RESULT_PLAYED: u32 = 1u;
// The action was not in the game's mask: the game ends, lost by the mover.
const RESULT_ILLEGAL: u32 = 2u;
// The game had ended before the step: nothing changed.
const RESULT_OVER: u32 = 3u;
// Set by the host when the batch is made: the mask is written, the end is
// not judged (a game's start is never over, as in the CPU environment).
const RESULT_SET_UP: u32 = 4u;
// The game ended in this step (its rewards stand in its state) and, with
// auto-reset, a new game from the start has taken its place, mask written.
const RESULT_RESET: u32 = 5u;

// Steps after which a game ends drawn. Rust twin: chess::env::MAX_STEPS.
const MAX_STEPS: u32 = 512u;
// Keys of one run of reversible moves: the fifty-move rule ends a game at
// its 101st position.
const HISTORY_KEYS: u32 = 101u;
// A key: the four planes' halves, then the state word with the square a
// double push passed in place of the en passant square.
const KEY_WORDS: u32 = 9u;
// Positions a game's observation shows. Rust twin: RECENT_POSITIONS in
// src/chess/gpu/env.rs (and HISTORY in src/chess/env.rs).
const RECENT_POSITIONS: u32 = 8u;
// A game's recent positions in `history`: RECENT_POSITIONS keys, the
// position now first, then how often each has arisen in the game (0: no
// position, before the game began).
const RECENT_WORDS: u32 = 80u;
// The dark squares (a1, c1, …, b2, …): (file + rank) even.
const DARK_SQUARES: u32 = 0xaa55aa55u;

// Rust twin: GameState in src/chess/gpu/env.rs.
struct GameState {
    // Actions played (an action outside the mask is not).
    steps: u32,
    // 1 once the game has ended.
    over: u32,
    // The square the last move's double push passed, NO_SQUARE when none:
    // repetition compares it, as pgx does, whether or not a pawn can take there.
    passed: u32,
    // Keys in `history` since the last pawn move or capture, the position's own last.
    run_length: u32,
    // Each colour's reward (white's, black's) for the last step.
    rewards: vec2<f32>,
    padding: vec2<u32>,
}

// A mask held an action no legal move has. Rust twin: FAULT_MASK_MISMATCH
// in src/chess/gpu/env.rs (beside the engine's FAULT_* bits), as the next.
const FAULT_MASK_MISMATCH: u32 = 8u;
// A run of reversible moves outgrew its HISTORY_KEYS keys. Rust twin:
// FAULT_HISTORY_FULL in src/chess/gpu/env.rs.
const FAULT_HISTORY_FULL: u32 = 16u;

@group(0) @binding(1) var<storage, read_write> games: array<PackedPosition>;
@group(0) @binding(2) var<storage, read_write> action_masks: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: EnvironmentParameters;
@group(0) @binding(5) var<storage, read> actions: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;
@group(0) @binding(7) var<storage, read_write> game_states: array<GameState>;
@group(0) @binding(8) var<storage, read_write> history: array<u32>;

// Word `word` of the key of `position`, whose last double push passed `passed`.
fn key_word(position: PackedPosition, passed: u32, word: u32) -> u32 {
    if word == 8u {
        return (position.state & ~0xff00u) | (passed << 8u);
    }
    let plane = position.planes[word / 2u];
    return select(bitboard_low(plane), bitboard_high(plane), (word & 1u) == 1u);
}

// The rewards (white's, black's) of a game lost by `loser`.
fn loss_rewards(loser: u32) -> vec2<f32> {
    return select(vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), loser == BLACK);
}

// pgx's insufficient material (OpenSpiel's test): the kings alone, or with
// one minor piece, or with bishops all on squares of one colour.
fn insufficient_material(board: Position) -> bool {
    let occupied = board.white | board.black;
    let pieces = bitboard_count(occupied);
    let heavy_or_pawns = bitboard_count(board.pawns | board.rooks | board.queens);
    let bishops = bitboard_count(board.bishops);
    let dark = bitboard_count(board.bishops & bitboard_make(DARK_SQUARES, DARK_SQUARES));
    return pieces <= 2u || (pieces == 3u && heavy_or_pawns == 0u)
        || (pieces == bishops + 2u && (dark == bishops || dark == 0u));
}

// How many keys of game `index`'s run equal its last: the times its position has arisen.
fn occurrences(index: u32, run_length: u32) -> u32 {
    let base = index * HISTORY_KEYS * KEY_WORDS;
    let last = base + (run_length - 1u) * KEY_WORDS;
    var count = 0u;
    for (var key = 0u; key < run_length; key++) {
        var equal = true;
        for (var word = 0u; word < KEY_WORDS; word++) {
            equal = equal && history[base + key * KEY_WORDS + word] == history[last + word];
        }
        count += select(0u, 1u, equal);
    }
    return count;
}

// Where game `index`'s recent positions begin in `history`, past every game's run.
fn recent_base(index: u32) -> u32 {
    return parameters.count * HISTORY_KEYS * KEY_WORDS + index * RECENT_WORDS;
}

// The position a new game starts from.
fn start_position() -> PackedPosition {
    var position: PackedPosition;
    for (var plane = 0u; plane < 4u; plane++) {
        let halves = parameters.start_planes[plane / 2u];
        position.planes[plane] = select(bitboard_make(halves.x, halves.y), bitboard_make(halves.z, halves.w), (plane & 1u) == 1u);
    }
    position.state = parameters.start_words.x;
    position.counters = parameters.start_words.y;
    return position;
}

// Game `index` anew from the start: its position, state, first key and
// recent positions, and its mask. The rewards of the step that ended the
// last game stay, for the host to read.
fn reset_game(index: u32) {
    let position = start_position();
    let passed = parameters.start_words.z;
    games[index] = position;
    var state: GameState;
    state.steps = 0u;
    state.over = 0u;
    state.passed = passed;
    state.run_length = 1u;
    state.rewards = game_states[index].rewards;
    game_states[index] = state;
    let key = index * HISTORY_KEYS * KEY_WORDS;
    let recent = recent_base(index);
    for (var word = 0u; word < KEY_WORDS; word++) {
        let value = key_word(position, passed, word);
        history[key + word] = value;
        history[recent + word] = value;
    }
    for (var slot = 0u; slot < RECENT_POSITIONS; slot++) {
        history[recent + RECENT_POSITIONS * KEY_WORDS + slot] = select(0u, 1u, slot == 0u);
    }
    write_action_mask(unpack_position(position), index * ACTION_MASK_WORDS);
}

// With auto-reset, a new game in place of each game that ended in this
// step (RESULT_RESET); it runs after `write_masks` has judged the ends.
@compute @workgroup_size(POSITION_WORKGROUP)
fn reset_ended(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count || parameters.auto_reset == 0u {
        return;
    }
    let result = results[index];
    if (result != RESULT_PLAYED && result != RESULT_ILLEGAL) || game_states[index].over == 0u {
        return;
    }
    reset_game(index);
    results[index] = RESULT_RESET;
}

// Every game back at the start, its rewards zero (RESULT_SET_UP).
@compute @workgroup_size(POSITION_WORKGROUP)
fn reset_games(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    game_states[index].rewards = vec2<f32>(0.0, 0.0);
    reset_game(index);
    results[index] = RESULT_SET_UP;
}

// The recent positions of each game played into: the new key (the last of
// its run) goes first, with how often it has arisen in its run, and every
// recent position equal to it has arisen once more. A position before the
// run began cannot equal it (pawns only advance, captures only remove).
@compute @workgroup_size(POSITION_WORKGROUP)
fn remember_positions(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count || results[index] != RESULT_PLAYED {
        return;
    }
    let run_length = game_states[index].run_length;
    let last = (index * HISTORY_KEYS + run_length - 1u) * KEY_WORDS;
    let recent = recent_base(index);
    let counts = recent + RECENT_POSITIONS * KEY_WORDS;
    for (var slot = RECENT_POSITIONS - 1u; slot > 0u; slot--) {
        var equal = history[counts + slot - 1u] != 0u;
        for (var word = 0u; word < KEY_WORDS; word++) {
            let value = history[recent + (slot - 1u) * KEY_WORDS + word];
            history[recent + slot * KEY_WORDS + word] = value;
            equal = equal && value == history[last + word];
        }
        history[counts + slot] = history[counts + slot - 1u] + select(0u, 1u, equal);
    }
    for (var word = 0u; word < KEY_WORDS; word++) {
        history[recent + word] = history[last + word];
    }
    history[counts] = occurrences(index, run_length);
}

// The masks of the games played into (RESULT_PLAYED) or just set up
// (RESULT_SET_UP), and for those played into, whether the game has ended.
@compute @workgroup_size(POSITION_WORKGROUP)
fn write_masks(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count || (results[index] != RESULT_PLAYED && results[index] != RESULT_SET_UP) {
        return;
    }
    let board = unpack_position(games[index]);
    let base = index * ACTION_MASK_WORDS;
    write_action_mask(board, base);
    if results[index] == RESULT_SET_UP {
        return;
    }
    var moves = 0u;
    for (var word = 0u; word < ACTION_MASK_WORDS; word++) {
        moves += countOneBits(action_masks[base + word]);
    }
    var state = game_states[index];
    // Only a side without a move needs to know whether it is in check.
    if moves == 0u {
        let king = bitboard_first(board.kings & position_color(board, board.side_to_move));
        if king != NO_SQUARE && is_attacked(board, king, 1u - board.side_to_move, board.white | board.black) {
            state.rewards = loss_rewards(board.side_to_move);
        }
    }
    let ended = moves == 0u || board.halfmove_clock >= 100u || insufficient_material(board)
        || history[recent_base(index) + RECENT_POSITIONS * KEY_WORDS] >= 3u || state.steps >= MAX_STEPS;
    state.over = select(0u, 1u, ended);
    game_states[index] = state;
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn play_actions(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    var state = game_states[index];
    state.rewards = vec2<f32>(0.0, 0.0);
    let action = actions[index];
    let position = games[index];
    let base = index * ACTION_MASK_WORDS;
    if action == NO_ACTION || state.over == 1u {
        results[index] = select(RESULT_OVER, RESULT_NOT_STEPPED, action == NO_ACTION);
    } else if action >= ACTION_MASK_WORDS * 32u || ((action_masks[base + action / 32u] >> (action % 32u)) & 1u) == 0u {
        // The mover loses; the board stays as it was.
        state.over = 1u;
        state.rewards = loss_rewards(position.state & 1u);
        results[index] = RESULT_ILLEGAL;
    } else {
        let word = walk_actions(unpack_position(position), base, action);
        if word == NO_MOVE {
            // The mask and the position disagree, which no correct step leaves behind.
            atomicOr(&status, FAULT_MASK_MISMATCH);
            return;
        }
        let child = play_move_word(position, word);
        games[index] = child;
        let from_square = word & 63u;
        let to_square = (word >> 6u) & 63u;
        let double_push = ((word >> 12u) & 7u) == PIECE_PAWN && max(from_square, to_square) - min(from_square, to_square) == 16u;
        state.passed = select(NO_SQUARE, (from_square + to_square) / 2u, double_push);
        state.steps += 1u;
        // A pawn move or a capture starts a new run: no earlier position can come back.
        if (child.counters & 0xffffu) == 0u {
            state.run_length = 0u;
        }
        if state.run_length == HISTORY_KEYS {
            // Only a game played past the fifty-move rule's end gets here.
            atomicOr(&status, FAULT_HISTORY_FULL);
            return;
        }
        let key = (index * HISTORY_KEYS + state.run_length) * KEY_WORDS;
        for (var word_index = 0u; word_index < KEY_WORDS; word_index++) {
            history[key + word_index] = key_word(child, state.passed, word_index);
        }
        state.run_length += 1u;
        results[index] = RESULT_PLAYED;
    }
    game_states[index] = state;
}
