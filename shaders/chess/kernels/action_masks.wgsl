// kernels/action_masks.wgsl — the legal-action masks of the chess
// environment (src/chess/env.rs), one invocation per position.
//
// Reads: `positions` (binding 1), the attack tables (binding 0), `parameters`
// (binding 4). Writes: `action_masks` (binding 2), ACTION_MASK_WORDS words
// per position: bit `action % 32` of word `action / 32` is set for each
// legal move's action in pgx's AlphaZero encoding (64 from-squares × 73
// planes, in the frame of the side to move); `status` (binding 3) on a
// fault (FAULT_INVALID_POSITION for a side to move without a king).
// Dispatch: POSITION_WORKGROUP invocations per workgroup; global invocation x
// is the position. One invocation writes only its own position's words.

#import movegen
#import movegen_io

// 4,672 actions, 32 a word. Rust twin: chess::gpu::ACTION_MASK_WORDS.
const ACTION_MASK_WORDS: u32 = 146u;

@group(0) @binding(2) var<storage, read_write> action_masks: array<u32>;

// A square in the frame of `us` as pgx numbers it: file by file (a1 0, a2
// 1, …), black's board mirrored rank for rank.
fn frame_index(square: u32, us: u32) -> u32 {
    let rank = select(square >> 3u, 7u - (square >> 3u), us == BLACK);
    return (square & 7u) * 8u + rank;
}

// The plane (9–72) of a queen-like or knight move of `rank_step` ranks and
// `file_step` files in the mover's frame, in pgx's order of the 64 steps:
// down, up, left, right, down-left, up-right, up-left, down-right (each the
// far step first for those towards lower indices), then the eight knight
// jumps. Twin of STEPS in src/chess/env.rs.
fn move_plane(rank_step: i32, file_step: i32) -> u32 {
    let distance = max(abs(rank_step), abs(file_step));
    var index: i32;
    if rank_step != 0 && file_step != 0 && abs(rank_step) + abs(file_step) == 3 {
        // (-1,-2) (1,-2) (-2,-1) (2,-1) (-1,2) (1,2) (-2,1) (2,1).
        index = 56 + select(0, 4, file_step > 0) + select(0, 2, abs(rank_step) == 2) + select(0, 1, rank_step > 0);
    } else if file_step == 0 {
        index = select(6 + distance, 7 - distance, rank_step < 0);
    } else if rank_step == 0 {
        index = select(20 + distance, 21 - distance, file_step < 0);
    } else if rank_step == file_step {
        index = select(34 + distance, 35 - distance, rank_step < 0);
    } else {
        index = select(48 + distance, 49 - distance, rank_step > 0);
    }
    return u32(9 + index);
}

// Sets the bit of the move from `from_square` to `to_square` (real squares)
// of the side `us`, promoting to `promotion` (PIECE_NONE when it does not).
fn set_action(base: u32, from_square: u32, to_square: u32, us: u32, promotion: u32) {
    let origin = frame_index(from_square, us);
    let destination = frame_index(to_square, us);
    let rank_step = i32(destination & 7u) - i32(origin & 7u);
    let file_step = i32(destination >> 3u) - i32(origin >> 3u);
    var plane = move_plane(rank_step, file_step);
    if promotion == PIECE_ROOK || promotion == PIECE_BISHOP || promotion == PIECE_KNIGHT {
        // Rook 0, bishop 1, knight 2; straight 0, towards the h-file 1, the a-file 2.
        plane = (PIECE_ROOK - promotion) * 3u + select(select(2u, 1u, file_step > 0), 0u, file_step == 0);
    }
    let action = origin * 73u + plane;
    action_masks[base + action / 32u] |= 1u << (action % 32u);
}

@compute @workgroup_size(POSITION_WORKGROUP)
fn legal_action_masks(@builtin(global_invocation_id) invocation: vec3<u32>) {
    let index = invocation.x;
    if index >= parameters.count {
        return;
    }
    let base = index * ACTION_MASK_WORDS;
    for (var word = 0u; word < ACTION_MASK_WORDS; word++) {
        action_masks[base + word] = 0u;
    }
    let board = unpack_position(positions[index]);
    var walk = piece_walk_begin(board);
    if walk.context.king == NO_SQUARE {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }
    let us = board.side_to_move;
    for (var step = piece_walk_next(board, &walk); step.from_square != NO_SQUARE; step = piece_walk_next(board, &walk)) {
        var remaining = step.destinations;
        while !bitboard_is_empty(remaining) {
            let to_square = bitboard_first(remaining);
            remaining = bitboard_without_first(remaining);
            if step.piece == PIECE_KING && bitboard_contains(walk.context.ours, to_square) {
                // Castling, king takes own rook: the action is the king's
                // two-square move, to the g-file or the c-file.
                let king_file = select(2u, 6u, (to_square & 7u) > (step.from_square & 7u));
                set_action(base, step.from_square, (step.from_square & 56u) | king_file, us, PIECE_NONE);
            } else if moves_per_destination(step.piece, to_square) == 4u {
                // A queen promotion is the plain pawn move's action.
                for (var promotion = PIECE_KNIGHT; promotion <= PIECE_QUEEN; promotion++) {
                    set_action(base, step.from_square, to_square, us, select(promotion, PIECE_NONE, promotion == PIECE_QUEEN));
                }
            } else {
                set_action(base, step.from_square, to_square, us, PIECE_NONE);
            }
        }
    }
}
