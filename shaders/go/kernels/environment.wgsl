// kernels/environment.wgsl — Go games kept on the device and stepped by
// actions (src/go/gpu/env.rs), one invocation per game, for the one board
// size the module is composed for.
//
// Reads: `actions` (binding 5), one per game (NO_ACTION: not stepped), and
// `parameters` (binding 4). Reads and writes: `games` (binding 1), each
// game's position; `legal` (binding 2), the points its side to move may
// play (GO_WORDS words a game); `game_states` (binding 7), its steps,
// passes, end and rewards; `history` (binding 8), first each game's board
// hashes and moves since its start (HISTORY_WORDS a game: what positional
// superko compares), then each game's RECENT_BOARDS last boards (what the
// observation shows). Writes: `results` (binding 6), one per game
// (RESULT_*), and `status` (binding 3) on a fault. Dispatch: GO_WORKGROUP
// invocations per workgroup; global invocation x is the game, which no
// other invocation touches.
// A step is three or four dispatches, as chess's environment takes it:
// `play_actions` plays each game's action when it is legal (a pass always
// is) and judges positional superko, `remember_boards` keeps its recent
// boards, `write_legal` writes the new legal points and judges each game's
// end, and with auto-reset `reset_ended` puts a new game in place of each
// that ended; `reset_games` puts every game back at the empty board. The
// rules are the CPU environment's (src/go/env.rs): two passes in a row,
// 2·size² steps, or a stone that recreates an earlier board, which loses;
// else area as pgx counts it, with 7.5 komi for white.

#import go_board

// Rust twin: EnvironmentParameters in src/gpu/env.rs.
struct GoEnvironmentParameters {
    // Games in the batch.
    count: u32,
    // 1: `reset_ended` replaces a game that ends by a new one at once.
    auto_reset: u32,
    padding: vec2<u32>,
}

// Rust twin: DeviceGameState in src/gpu/env.rs (its `details` are
// `passes` and `superko` here).
struct GoGameState {
    // Actions played, passes included (an action that is not legal is not).
    steps: u32,
    // 1 once the game has ended.
    over: u32,
    // Passes in a row just played.
    passes: u32,
    // 1 when the last stone recreated an earlier board.
    superko: u32,
    // Each colour's reward (black's, white's) for the last step.
    rewards: vec2<f32>,
    padding: vec2<u32>,
}

// What a step did to a game. Rust twins: RESULT_* in src/gpu/env.rs.
const RESULT_NOT_STEPPED: u32 = 0u;
const RESULT_PLAYED: u32 = 1u;
const RESULT_ILLEGAL: u32 = 2u;
const RESULT_OVER: u32 = 3u;
const RESULT_SET_UP: u32 = 4u;
const RESULT_RESET: u32 = 5u;

const NO_ACTION: u32 = 0xffffffffu;
// The pass: the action after the points.
const PASS: u32 = GO_SIZE * GO_SIZE;
// Steps after which a game ends, scored.
const MAX_STEPS: u32 = 2u * GO_SIZE * GO_SIZE;
// A game's hashes (two words a board) and moves (one a step), plies 0 to MAX_STEPS.
const HISTORY_WORDS: u32 = 3u * (MAX_STEPS + 1u);
// Boards an observation shows, and the words of one (black's, then white's).
const RECENT_BOARDS: u32 = 8u;
const BOARD_WORDS: u32 = 2u * GO_WORDS;
// A replay of a game's moves met a move its kernels call illegal, which no
// correct step leaves behind. Rust twin: FAULT_REPLAY in src/gpu/env.rs.
const FAULT_REPLAY: u32 = 8u;

@group(0) @binding(1) var<storage, read_write> games: array<PackedGoPosition>;
@group(0) @binding(2) var<storage, read_write> legal: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: GoEnvironmentParameters;
@group(0) @binding(5) var<storage, read> actions: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;
@group(0) @binding(7) var<storage, read_write> game_states: array<GoGameState>;
@group(0) @binding(8) var<storage, read_write> history: array<u32>;

// A 64-bit hash of a board, as two words; superko compares boards whose
// hashes are equal in full, so the hash only has to be quick.
fn board_hash(position: GoPosition) -> vec2<u32> {
    var black = position.black;
    var white = position.white;
    var first = 0x9e3779b9u;
    var second = 0x85ebca6bu;
    for (var index = 0u; index < GO_WORDS; index++) {
        first = (first ^ black[index]) * 0x01000193u;
        first ^= (first >> 15u) ^ (white[index] * 0x165667b1u);
        second = (second ^ white[index]) * 0x27d4eb2fu;
        second ^= (second >> 13u) ^ (black[index] * 0xc2b2ae3du);
    }
    return vec2<u32>(first, second);
}

// The empty board, black to move.
fn empty_position() -> GoPosition {
    var position: GoPosition;
    position.black = go_empty_bitmap();
    position.white = go_empty_bitmap();
    position.ko = GO_NO_POINT;
    position.to_move = GO_BLACK;
    return position;
}

// The bit of the point of action `action` (row by row, then the column).
fn action_bit(action: u32) -> u32 {
    return (action / GO_SIZE) * GO_LINE + action % GO_SIZE;
}

fn history_base(index: u32) -> u32 {
    return index * HISTORY_WORDS;
}

fn recent_base(index: u32) -> u32 {
    return parameters.count * HISTORY_WORDS + index * RECENT_BOARDS * BOARD_WORDS;
}

// Whether game `index`'s board after `ply` plies was its board now: its
// moves replayed from the empty board. The board now is read from `games`
// at the end rather than held through the replay, a board of registers less.
fn board_at_ply_is_now(index: u32, ply: u32) -> bool {
    let moves = history_base(index) + 2u * (MAX_STEPS + 1u);
    var replay = empty_position();
    for (var step = 1u; step <= ply; step++) {
        let action = history[moves + step];
        if action == PASS {
            go_pass(&replay);
        } else {
            let bit = action_bit(action);
            if !go_is_legal(replay, replay.to_move, bit) {
                atomicOr(&status, FAULT_REPLAY);
                return false;
            }
            go_play(&replay, replay.to_move, bit);
        }
    }
    let now = go_unpack(games[index]);
    return go_equal(replay.black, now.black) && go_equal(replay.white, now.white);
}

// pgx's areas' difference, black's less white's, doubled: each colour's
// stones and the empty points no path of empty points joins to the other
// colour's stones (a region reaching neither counts for both).
fn doubled_area_difference(position: GoPosition) -> i32 {
    let empty = go_empty_points(position);
    let reaches_black = go_flood(go_and(go_neighbours(position.black), empty), empty);
    let reaches_white = go_flood(go_and(go_neighbours(position.white), empty), empty);
    let black_area = go_count(position.black) + go_count(go_and_not(empty, reaches_white));
    let white_area = go_count(position.white) + go_count(go_and_not(empty, reaches_black));
    return 2 * (i32(black_area) - i32(white_area));
}

// The rewards (black's, white's) of a game lost by `loser`.
fn loss_rewards(loser: u32) -> vec2<f32> {
    return select(vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), loser == GO_WHITE);
}

@compute @workgroup_size(GO_WORKGROUP)
fn play_actions(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    var state = game_states[index];
    state.rewards = vec2<f32>(0.0, 0.0);
    let action = actions[index];
    var position = go_unpack(games[index]);
    let mover = position.to_move;
    var legal_points: GoBitmap;
    for (var word = 0u; word < GO_WORDS; word++) {
        legal_points[word] = legal[index * GO_WORDS + word];
    }
    if action == NO_ACTION || state.over == 1u {
        results[index] = select(RESULT_OVER, RESULT_NOT_STEPPED, action == NO_ACTION);
    } else if action > PASS || (action < PASS && !go_contains(legal_points, action_bit(action))) {
        // The mover loses; the board stays as it was.
        state.over = 1u;
        state.rewards = loss_rewards(mover);
        results[index] = RESULT_ILLEGAL;
    } else {
        state.steps += 1u;
        state.superko = 0u;
        if action == PASS {
            go_pass(&position);
            state.passes += 1u;
        } else {
            go_play(&position, mover, action_bit(action));
            state.passes = 0u;
        }
        let hash = board_hash(position);
        games[index] = go_pack(position);
        let base = history_base(index);
        if action != PASS {
            // Positional superko: the board after a stone against every earlier one.
            for (var ply = 0u; ply < state.steps; ply++) {
                let earlier = vec2<u32>(history[base + 2u * ply], history[base + 2u * ply + 1u]);
                if all(earlier == hash) && board_at_ply_is_now(index, ply) {
                    state.superko = 1u;
                    break;
                }
            }
        }
        history[base + 2u * state.steps] = hash.x;
        history[base + 2u * state.steps + 1u] = hash.y;
        history[base + 2u * (MAX_STEPS + 1u) + state.steps] = action;
        results[index] = RESULT_PLAYED;
    }
    game_states[index] = state;
}

// The recent boards of each game played into: the new board first.
@compute @workgroup_size(GO_WORKGROUP)
fn remember_boards(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count || results[index] != RESULT_PLAYED {
        return;
    }
    let recent = recent_base(index);
    for (var word = RECENT_BOARDS * BOARD_WORDS - 1u; word >= BOARD_WORDS; word--) {
        history[recent + word] = history[recent + word - BOARD_WORDS];
    }
    var position = games[index];
    for (var word = 0u; word < GO_WORDS; word++) {
        history[recent + word] = position.black[word];
        history[recent + GO_WORDS + word] = position.white[word];
    }
}

// The legal points of the games played into (RESULT_PLAYED) or just set up
// (RESULT_SET_UP), and for those played into, whether the game has ended.
@compute @workgroup_size(GO_WORKGROUP)
fn write_legal(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count || (results[index] != RESULT_PLAYED && results[index] != RESULT_SET_UP) {
        return;
    }
    let position = go_unpack(games[index]);
    var points = go_legal(position, position.to_move);
    for (var word = 0u; word < GO_WORDS; word++) {
        legal[index * GO_WORDS + word] = points[word];
    }
    if results[index] == RESULT_SET_UP {
        return;
    }
    var state = game_states[index];
    if state.passes >= 2u || state.superko == 1u || state.steps >= MAX_STEPS {
        state.over = 1u;
        if state.superko == 1u {
            // The player who recreated the board, not the one to move, loses.
            state.rewards = loss_rewards(1u - position.to_move);
        } else {
            // Komi 7.5, doubled: black wins by more than 15 half-points.
            state.rewards = loss_rewards(select(GO_BLACK, GO_WHITE, doubled_area_difference(position) > 15));
        }
    }
    game_states[index] = state;
}

// Game `index` anew at the empty board; the rewards of the step that ended
// the last one stay, for the host to read.
fn reset_game(index: u32) {
    let position = empty_position();
    games[index] = go_pack(position);
    var state: GoGameState;
    state.rewards = game_states[index].rewards;
    game_states[index] = state;
    let hash = board_hash(position);
    history[history_base(index)] = hash.x;
    history[history_base(index) + 1u] = hash.y;
    let recent = recent_base(index);
    for (var word = 0u; word < BOARD_WORDS; word++) {
        history[recent + word] = 0u;
    }
    var points = go_legal(position, GO_BLACK);
    for (var word = 0u; word < GO_WORDS; word++) {
        legal[index * GO_WORDS + word] = points[word];
    }
}

@compute @workgroup_size(GO_WORKGROUP)
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

@compute @workgroup_size(GO_WORKGROUP)
fn reset_games(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    game_states[index].rewards = vec2<f32>(0.0, 0.0);
    reset_game(index);
    results[index] = RESULT_SET_UP;
}
