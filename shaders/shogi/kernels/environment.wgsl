// kernels/environment.wgsl — Shogi games kept on the device and stepped by
// actions (src/shogi/gpu/env.rs, on the host of src/gpu/env.rs), one
// invocation per game.
//
// Reads: the Shogi tables (binding 0), `actions` (binding 5), one per game
// (NO_ACTION: not stepped), and `parameters` (binding 4). Reads and
// writes: `games` (binding 1), each game's position; `legal` (binding 2),
// the actions its side to move may play, as bits (MASK_WORDS words a
// game); `game_states` (binding 7), its steps, end, repetition and
// rewards; `history` (binding 8), each game's position hashes and actions
// since its start (HISTORY_WORDS a game), what repetition compares.
// Writes: `results` (binding 6), one per game (RESULT_*), and `status`
// (binding 3) on a fault. Dispatch: POSITION_WORKGROUP invocations per
// workgroup; global invocation x is the game, which no other invocation
// touches.
//
// A step is `play_actions`, which plays each game's action when its bit is
// set and judges repetition, then `write_masks`, which writes the legal
// actions of every game played into and judges its end. With auto-reset,
// `reset_ended` puts a new game in place of each that ended and
// `write_masks` runs again for those; `reset_games` puts every game at the
// start, `write_masks` after it. The rules are the CPU environment's
// (src/shogi/env.rs): no legal move loses; the fourth time a position
// (board, hands, side to move) arises the game is drawn, unless one side
// gave check with every move since it first arose, which loses; 512 steps
// draw. Actions are pgx's (dlshogi's): 27 planes of 81 destinations in
// the mover's frame.

#import shogi_movegen

// Rust twin: EnvironmentParameters in src/gpu/env.rs.
struct ShogiEnvironmentParameters {
    // Games in the batch.
    count: u32,
    // 1: `reset_ended` replaces a game that ends by a new one at once.
    auto_reset: u32,
    padding: vec2<u32>,
}

// Rust twin: DeviceGameState in src/gpu/env.rs (its `details` are
// `repetition` and a pad here).
struct ShogiGameState {
    // Actions played (an action that is not legal is not).
    steps: u32,
    // 1 once the game has ended.
    over: u32,
    // REPETITION_*: how the last move repeated a position, if it ended the game.
    repetition: u32,
    padding_0: u32,
    // Each colour's reward (Black's, White's) for the last step.
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

const REPETITION_NONE: u32 = 0u;
const REPETITION_DRAW: u32 = 1u;
// Perpetual check: the colour (REPETITION_CHECKED_BY + colour) that gave
// check with every move of the cycle, and loses.
const REPETITION_CHECKED_BY: u32 = 2u;

const NO_ACTION: u32 = 0xffffffffu;
const ACTIONS: u32 = 27u * 81u;
const MASK_WORDS: u32 = (ACTIONS + 31u) / 32u;
// Steps after which a game ends drawn.
const MAX_STEPS: u32 = 512u;
// A game's position hashes (two words a ply), then its actions (one word
// a ply, GAVE_CHECK set when the move gave check), plies 0 to MAX_STEPS.
// Rust twin: HISTORY_WORDS of ShogiDevice in src/shogi/gpu/env.rs.
const HISTORY_WORDS: u32 = 3u * (MAX_STEPS + 1u);
const GAVE_CHECK: u32 = 0x80000000u;
// Times a position arises that end the game.
const REPETITIONS: u32 = 4u;
// A replay of a game's actions met one that names no piece, which no
// correct step leaves behind. Rust twin: FAULT_REPLAY in src/gpu/env.rs.
const FAULT_REPLAY: u32 = 8u;

@group(0) @binding(1) var<storage, read_write> games: array<PackedShogiPosition>;
@group(0) @binding(2) var<storage, read_write> legal: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: ShogiEnvironmentParameters;
@group(0) @binding(5) var<storage, read> actions: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;
@group(0) @binding(7) var<storage, read_write> game_states: array<ShogiGameState>;
@group(0) @binding(8) var<storage, read_write> history: array<u32>;

// A 64-bit hash of what repetition compares: the pieces, both hands and the
// side to move (not the move number). Positions whose hashes are equal are
// compared in full, so the hash only has to be quick.
fn position_hash(position: ShogiPosition) -> vec2<u32> {
    var hash = vec2<u32>(0x9e3779b9u ^ position.side_to_move, 0x85ebca6bu ^ (position.side_to_move * 0x27d4eb2fu));
    hash = mix_words(hash, position.code0);
    hash = mix_words(hash, position.code1);
    hash = mix_words(hash, position.code2);
    hash = mix_words(hash, position.code3);
    hash = mix_words(hash, position.white);
    return mix_words(hash, vec4<u32>(position.hands, 0u, 0u));
}

fn mix_words(hash: vec2<u32>, words: vec4<u32>) -> vec2<u32> {
    var first = hash.x;
    var second = hash.y;
    for (var word = 0u; word < 4u; word++) {
        first = (first ^ words[word]) * 0x01000193u;
        first ^= first >> 15u;
        second = (second ^ words[word]) * 0xc2b2ae3du;
        second ^= second >> 13u;
    }
    return vec2<u32>(first, second);
}

// Whether two positions are one as repetition compares them.
fn same_position(a: ShogiPosition, b: ShogiPosition) -> bool {
    return all(a.code0 == b.code0) && all(a.code1 == b.code1) && all(a.code2 == b.code2) && all(a.code3 == b.code3)
        && all(a.white == b.white) && all(a.hands == b.hands) && a.side_to_move == b.side_to_move;
}

// A square (rank by rank from 9a: rank * 9 + column, column 0 file 9) as
// pgx's (column, row) in the frame of `us`: column 0 is file 1, row 0 the
// far rank.
fn frame(square: u32, us: u32) -> vec2<i32> {
    let rank = i32(square / 9u);
    let column = i32(square % 9u);
    return select(vec2<i32>(8 - column, rank), vec2<i32>(column, 8 - rank), us == SHOGI_WHITE);
}

// The square at pgx's (column, row) in the frame of `us`: `frame`'s inverse.
fn square_of(at: vec2<i32>, us: u32) -> u32 {
    let rank_column = select(vec2<i32>(at.y, 8 - at.x), vec2<i32>(8 - at.y, at.x), us == SHOGI_WHITE);
    return u32(rank_column.x * 9 + rank_column.y);
}

// The (columns, rows) step of a direction plane: up, up-left, up-right,
// left, right, down, down-left, down-right in pgx's frame (rows fall
// towards the far rank, columns towards file 9), then the knight's two.
fn direction_step(direction: u32) -> vec2<i32> {
    switch direction {
        case 0u: { return vec2<i32>(0, -1); }
        case 1u: { return vec2<i32>(1, -1); }
        case 2u: { return vec2<i32>(-1, -1); }
        case 3u: { return vec2<i32>(1, 0); }
        case 4u: { return vec2<i32>(-1, 0); }
        case 5u: { return vec2<i32>(0, 1); }
        case 6u: { return vec2<i32>(1, 1); }
        case 7u: { return vec2<i32>(-1, 1); }
        case 8u: { return vec2<i32>(1, -2); }
        default: { return vec2<i32>(-1, -2); }
    }
}

// The direction plane of a board move by `delta` (columns, rows): the
// knight's jump itself, else its step's: entry (columns + 1) + 3 (rows
// + 1) of the step, three bits each, holds 2 0 1 / 4 - 3 / 7 5 6.
fn direction_of(delta: vec2<i32>) -> u32 {
    if delta.y == -2 && abs(delta.x) == 1 {
        return select(9u, 8u, delta.x == 1);
    }
    let step = sign(delta);
    let entry = u32(step.x + 1 + 3 * (step.y + 1));
    return (0x6bd8842u >> (3u * entry)) & 7u;
}

// The droppable kind of drop plane `20 + index` (pawn, lance, knight,
// silver, bishop, rook, gold), and the index of a kind.
fn drop_kind(index: u32) -> u32 {
    return select(index, select(SHOGI_GOLD, index + 1u, index < 6u), index >= 4u);
}

fn drop_index(kind: u32) -> u32 {
    return select(kind, select(kind - 1u, 6u, kind == SHOGI_GOLD), kind >= SHOGI_GOLD);
}

// A board move's action for the side `us`.
fn board_action(from_square: u32, to: u32, promote: bool, us: u32) -> u32 {
    let destination = frame(to, us);
    let plane = direction_of(destination - frame(from_square, us)) + select(0u, 10u, promote);
    return plane * 81u + u32(destination.x * 9 + destination.y);
}

fn drop_action(kind: u32, to: u32, us: u32) -> u32 {
    let destination = frame(to, us);
    return (20u + drop_index(kind)) * 81u + u32(destination.x * 9 + destination.y);
}

// The move an action names, read from the action and the board: the piece
// is the first met walking back from the destination along the plane's
// direction (a legal move's path is empty), or the knight's square.
// `kind` is SHOGI_NO_PIECE when the action names none.
struct ActionMove {
    from_square: u32,
    to: u32,
    kind: u32,
    promote: bool,
}

fn action_move(position: ShogiPosition, action: u32) -> ActionMove {
    let us = position.side_to_move;
    let plane = action / 81u;
    let destination = vec2<i32>(i32((action % 81u) / 9u), i32(action % 9u));
    var named: ActionMove;
    named.to = square_of(destination, us);
    named.promote = plane >= 10u && plane < 20u;
    if plane >= 20u {
        named.from_square = SHOGI_NO_SQUARE;
        named.kind = drop_kind(plane - 20u);
        return named;
    }
    let direction = plane % 10u;
    let step = direction_step(direction);
    var from_at = destination - step;
    named.kind = SHOGI_NO_PIECE;
    for (var walked = 0u; walked < shogi_loop_bound(8u); walked++) {
        if any(from_at < vec2<i32>(0)) || any(from_at > vec2<i32>(8)) {
            break;
        }
        named.from_square = square_of(from_at, us);
        named.kind = shogi_piece_on(position, named.from_square);
        if named.kind != SHOGI_NO_PIECE || direction >= 8u {
            break;
        }
        from_at -= step;
    }
    return named;
}

fn play(position: ShogiPosition, named: ActionMove) -> ShogiPosition {
    return shogi_make_move(position, named.from_square, named.to, named.kind, named.promote);
}

// The start, Black to move, no piece in hand (its planes generated from Rust).
fn shogi_start_position() -> ShogiPosition {
    var position: ShogiPosition;
    position.code0 = SHOGI_START_PLANE_0;
    position.code1 = SHOGI_START_PLANE_1;
    position.code2 = SHOGI_START_PLANE_2;
    position.code3 = SHOGI_START_PLANE_3;
    position.white = SHOGI_START_PLANE_4;
    position.hands = vec2<u32>(0u, 0u);
    position.side_to_move = SHOGI_BLACK;
    position.move_number = 1u;
    return position;
}

fn history_base(index: u32) -> u32 {
    return index * HISTORY_WORDS;
}

fn action_slot(index: u32, ply: u32) -> u32 {
    return history_base(index) + 2u * (MAX_STEPS + 1u) + ply;
}

// The rewards (Black's, White's) of a game lost by `loser`.
fn loss_rewards(loser: u32) -> vec2<f32> {
    return select(vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), loser == SHOGI_WHITE);
}

// How game `index`'s last position (after `steps` plies) repeats, once it
// has arisen REPETITIONS times: the hashes find the candidates, a replay of
// the actions from the start confirms each. Positions with the same side to
// move lie an even number of plies apart.
fn repetition_now(index: u32, steps: u32, now: ShogiPosition) -> u32 {
    let base = history_base(index);
    let hash = vec2<u32>(history[base + 2u * steps], history[base + 2u * steps + 1u]);
    var candidates = 0u;
    for (var ply = steps % 2u; ply < steps; ply += 2u) {
        candidates += u32(all(vec2<u32>(history[base + 2u * ply], history[base + 2u * ply + 1u]) == hash));
    }
    if candidates + 1u < REPETITIONS {
        return REPETITION_NONE;
    }
    var replay = shogi_start_position();
    var first = steps;
    var earlier = 0u;
    for (var ply = 0u; ply < shogi_loop_bound(steps); ply++) {
        if ply > 0u {
            let named = action_move(replay, history[action_slot(index, ply)] & ~GAVE_CHECK);
            if named.kind == SHOGI_NO_PIECE {
                atomicOr(&status, FAULT_REPLAY);
                return REPETITION_NONE;
            }
            replay = play(replay, named);
        }
        let hashed = vec2<u32>(history[base + 2u * ply], history[base + 2u * ply + 1u]);
        if ply % 2u == steps % 2u && all(hashed == hash) && same_position(replay, now) {
            first = min(first, ply);
            earlier += 1u;
        }
    }
    if earlier + 1u < REPETITIONS {
        return REPETITION_NONE;
    }
    // Whether each side gave check with every move it made since the
    // position first arose: the move into ply p was made by the side to
    // move at ply p - 1, the last mover at p = steps.
    let last_mover = 1u - now.side_to_move;
    var always_checked = vec2<bool>(true, true);
    for (var ply = first + 1u; ply <= steps; ply++) {
        let mover = select(1u - last_mover, last_mover, (steps - ply) % 2u == 0u);
        let checked = (history[action_slot(index, ply)] & GAVE_CHECK) != 0u;
        if !checked {
            always_checked[mover] = false;
        }
    }
    if always_checked.x != always_checked.y {
        return REPETITION_CHECKED_BY + select(SHOGI_WHITE, SHOGI_BLACK, always_checked.x);
    }
    return REPETITION_DRAW;
}

fn is_legal_action(index: u32, action: u32) -> bool {
    return action < ACTIONS && ((legal[index * MASK_WORDS + action / 32u] >> (action % 32u)) & 1u) == 1u;
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
    let position = shogi_unpack(games[index]);
    let mover = position.side_to_move;
    if action == NO_ACTION || state.over == 1u {
        results[index] = select(RESULT_OVER, RESULT_NOT_STEPPED, action == NO_ACTION);
    } else if !is_legal_action(index, action) {
        // The mover loses; the board stays as it was.
        state.over = 1u;
        state.rewards = loss_rewards(mover);
        results[index] = RESULT_ILLEGAL;
    } else {
        let named = action_move(position, action);
        if named.kind == SHOGI_NO_PIECE {
            atomicOr(&status, FAULT_INVALID_POSITION);
            return;
        }
        let next = play(position, named);
        state.steps += 1u;
        let king = shogi_king(next, next.side_to_move);
        let gave_check = !board81_is_empty(shogi_attackers_to(next, king, mover, shogi_occupied(next)));
        let hash = position_hash(next);
        games[index] = shogi_pack(next);
        let base = history_base(index);
        history[base + 2u * state.steps] = hash.x;
        history[base + 2u * state.steps + 1u] = hash.y;
        history[action_slot(index, state.steps)] = action | select(0u, GAVE_CHECK, gave_check);
        state.repetition = repetition_now(index, state.steps, next);
        results[index] = RESULT_PLAYED;
    }
    game_states[index] = state;
}

fn set_action(base: u32, action: u32) {
    legal[base + action / 32u] |= 1u << (action % 32u);
}

// The legal actions of the games played into, just set up or reset; for
// those played into, whether the game has ended.
@compute @workgroup_size(POSITION_WORKGROUP)
fn write_masks(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let result = results[index];
    if result != RESULT_PLAYED && result != RESULT_SET_UP && result != RESULT_RESET {
        return;
    }
    let base = index * MASK_WORDS;
    for (var word = 0u; word < MASK_WORDS; word++) {
        legal[base + word] = 0u;
    }
    let position = shogi_unpack(games[index]);
    let us = position.side_to_move;
    let king = shogi_king(position, us);
    if king == SHOGI_NO_SQUARE {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }
    let occupied = shogi_occupied(position);
    let masks = shogi_masks(position);
    let king_moves = king_destinations(position, masks);
    var count = 0u;
    var pieces = shogi_color_set(position, us);
    while !board81_is_empty(pieces) {
        let from_square = board81_first(pieces);
        pieces = board81_without_first(pieces);
        let kind = shogi_piece_on(position, from_square);
        var targets = king_moves;
        if kind != SHOGI_KING {
            targets = shogi_attacks(kind, us, from_square, occupied) & piece_targets(position, masks, from_square);
        }
        while !board81_is_empty(targets) {
            let to = board81_first(targets);
            targets = board81_without_first(targets);
            for (var promote = 0u; promote < 2u; promote++) {
                if promotion_choice_allowed(kind, us, from_square, to, promote == 1u) {
                    set_action(base, board_action(from_square, to, promote == 1u, us));
                    count += 1u;
                }
            }
        }
    }
    let mating_pawn = mating_pawn_drop(position, masks);
    for (var kind = 0u; kind < shogi_loop_bound(7u); kind++) {
        var squares = legal_drop_squares(position, masks, kind, mating_pawn);
        while !board81_is_empty(squares) {
            let to = board81_first(squares);
            squares = board81_without_first(squares);
            set_action(base, drop_action(kind, to, us));
            count += 1u;
        }
    }
    if result != RESULT_PLAYED {
        return;
    }
    var state = game_states[index];
    if count == 0u {
        // No legal move (checkmate; a pawn drop that mates is not legal): the side to move loses.
        state.over = 1u;
        state.rewards = loss_rewards(us);
    } else if state.repetition >= REPETITION_CHECKED_BY {
        state.over = 1u;
        state.rewards = loss_rewards(state.repetition - REPETITION_CHECKED_BY);
    } else if state.repetition == REPETITION_DRAW || state.steps >= MAX_STEPS {
        state.over = 1u;
    }
    game_states[index] = state;
}

// Game `index` anew at the start; the rewards of the step that ended the
// last one stay, for the host to read. `write_masks` writes its actions.
fn reset_game(index: u32) {
    let position = shogi_start_position();
    games[index] = shogi_pack(position);
    var state: ShogiGameState;
    state.rewards = game_states[index].rewards;
    game_states[index] = state;
    let hash = position_hash(position);
    history[history_base(index)] = hash.x;
    history[history_base(index) + 1u] = hash.y;
    history[action_slot(index, 0u)] = 0u;
}

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
