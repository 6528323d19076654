// kernels/action_masks.wgsl — the legal-action masks of the chess
// environment (src/chess/env.rs) for a batch of positions, one invocation
// per position.
//
// Reads: `positions` (binding 1), the attack tables (binding 0), `parameters`
// (binding 4). Writes: `action_masks` (binding 2), ACTION_MASK_WORDS words
// per position: bit `action % 32` of word `action / 32` is set for each
// legal move's action (actions.wgsl); `status` (binding 3) on a fault
// (FAULT_INVALID_POSITION for a side to move without a king).
// Dispatch: POSITION_WORKGROUP invocations per workgroup; global invocation x
// is the position. One invocation writes only its own position's words.

#import actions
#import movegen_io

@group(0) @binding(2) var<storage, read_write> action_masks: array<u32>;

@compute @workgroup_size(POSITION_WORKGROUP)
fn legal_action_masks(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    write_action_mask(unpack_position(positions[index]), index * ACTION_MASK_WORDS);
}
