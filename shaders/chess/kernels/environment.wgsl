// kernels/environment.wgsl — chess games kept on the device and stepped by
// actions (src/chess/gpu/env.rs), one invocation per game.
//
// Reads: the attack tables (binding 0), `actions` (binding 5), one per
// game (NO_ACTION: the game is not stepped), `parameters` (binding 4).
// Reads and writes: `games` (binding 1), each game's position, and
// `action_masks` (binding 2), its legal-action mask (actions.wgsl). Writes:
// `results` (binding 6), one per game (RESULT_*); `status` (binding 3) on
// a fault. Dispatch: POSITION_WORKGROUP invocations per workgroup; global
// invocation x is the game, which no other invocation touches.
// A step is two dispatches: `play_actions` plays each game's action, when
// its mask holds it, and `write_masks` writes the masks of the games it
// played (apart, so that neither holds one move walk's registers through
// the other: on navi31, on u32 pairs, 84 and 96 VGPRs).

#import actions

// Rust twin: EnvironmentParameters in src/chess/gpu/env.rs.
struct EnvironmentParameters {
    // Games in the batch.
    count: u32,
}

// What a step did to a game. Rust twins: RESULT_* in src/chess/gpu/env.rs.
const RESULT_NOT_STEPPED: u32 = 0u;
const RESULT_PLAYED: u32 = 1u;
// The action was not in the game's mask: nothing changed.
const RESULT_ILLEGAL: u32 = 2u;
// A mask held an action no legal move has. Rust twin: FAULT_MASK_MISMATCH
// in src/chess/gpu/env.rs (beside the engine's FAULT_* bits).
const FAULT_MASK_MISMATCH: u32 = 8u;

@group(0) @binding(1) var<storage, read_write> games: array<PackedPosition>;
@group(0) @binding(2) var<storage, read_write> action_masks: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(4) var<uniform> parameters: EnvironmentParameters;
@group(0) @binding(5) var<storage, read> actions: array<u32>;
@group(0) @binding(6) var<storage, read_write> results: array<u32>;

// Writes the mask of game `index` from its position, with a fault for a
// side to move without a king.
fn write_mask(index: u32) {
    let base = index * ACTION_MASK_WORDS;
    for (var word = 0u; word < ACTION_MASK_WORDS; word++) {
        action_masks[base + word] = 0u;
    }
    let board = unpack_position(games[index]);
    if bitboard_is_empty(board.kings & position_color(board, board.side_to_move)) {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }
    walk_actions(board, base, NO_ACTION);
}

// The masks of the games whose result is RESULT_PLAYED (every game when
// the batch is made: the host sets every result so).
@compute @workgroup_size(POSITION_WORKGROUP)
fn write_masks(@builtin(global_invocation_id) invocation: vec3<u32>) {
    if invocation.x < parameters.count && results[invocation.x] == RESULT_PLAYED {
        write_mask(invocation.x);
    }
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn play_actions(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let action = actions[index];
    if action == NO_ACTION {
        results[index] = RESULT_NOT_STEPPED;
        return;
    }
    let base = index * ACTION_MASK_WORDS;
    if action >= ACTION_MASK_WORDS * 32u || ((action_masks[base + action / 32u] >> (action % 32u)) & 1u) == 0u {
        results[index] = RESULT_ILLEGAL;
        return;
    }
    let word = walk_actions(unpack_position(games[index]), base, action);
    if word == NO_MOVE {
        // The mask and the position disagree, which no correct step leaves behind.
        atomicOr(&status, FAULT_MASK_MISMATCH);
        return;
    }
    games[index] = play_move_word(games[index], word);
    results[index] = RESULT_PLAYED;
}
