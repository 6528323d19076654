// actions.wgsl — the chess environment's actions (src/chess/env.rs): pgx's
// AlphaZero encoding, 64 from-squares × 73 planes in the frame of the side
// to move, and the walk that turns a position's legal moves into actions.
//
// Reads: the attack tables, through movegen. Writes: `action_masks`, which
// the importing kernel declares (array<u32>, read_write), ACTION_MASK_WORDS
// words a position, and `status` (atomic<u32>), also the kernel's, on a
// fault. Library only: kernels/action_masks.wgsl and
// kernels/environment.wgsl import it.

#import movegen

// 4,672 actions, 32 a word. Rust twin: chess::gpu::ACTION_MASK_WORDS.
const ACTION_MASK_WORDS: u32 = 146u;
// No action: a game not stepped.
const NO_ACTION: u32 = 0xffffffffu;
// No move: an action no legal move has.
const NO_MOVE: u32 = 0xffffffffu;

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

// The action of the move from `from_square` to `to_square` (real squares)
// of the side `us`, promoting to `promotion` (PIECE_NONE when it does not;
// a queen promotion is the plain move's action).
fn action_of_move(from_square: u32, to_square: u32, us: u32, promotion: u32) -> u32 {
    let origin = frame_index(from_square, us);
    let destination = frame_index(to_square, us);
    let rank_step = i32(destination & 7u) - i32(origin & 7u);
    let file_step = i32(destination >> 3u) - i32(origin >> 3u);
    var plane = move_plane(rank_step, file_step);
    if promotion == PIECE_ROOK || promotion == PIECE_BISHOP || promotion == PIECE_KNIGHT {
        // Rook 0, bishop 1, knight 2; straight 0, towards the h-file 1, the a-file 2.
        plane = (PIECE_ROOK - promotion) * 3u + select(select(2u, 1u, file_step > 0), 0u, file_step == 0);
    }
    return origin * 73u + plane;
}

// Walks the legal moves of `board`. With `wanted` NO_ACTION it sets each
// move's bit in the mask at word `base` of `action_masks` (cleared first by
// the caller) and returns NO_MOVE; otherwise it writes nothing and returns
// the move word (movegen's: castling as the king taking its own rook) of
// the legal move whose action is `wanted`, or NO_MOVE when none has it.
fn walk_actions(board: Position, base: u32, wanted: u32) -> u32 {
    var walk = piece_walk_begin(board);
    let us = board.side_to_move;
    for (var step = piece_walk_next(board, &walk); step.from_square != NO_SQUARE; step = piece_walk_next(board, &walk)) {
        var remaining = step.destinations;
        while !bitboard_is_empty(remaining) {
            let to_square = bitboard_first(remaining);
            remaining = bitboard_without_first(remaining);
            // A promotion is four moves, the queen's last: PIECE_KNIGHT up to PIECE_QUEEN.
            var promotion = PIECE_NONE;
            var last = PIECE_NONE;
            if moves_per_destination(step.piece, to_square) == 4u {
                promotion = PIECE_KNIGHT;
                last = PIECE_QUEEN;
            }
            // Castling, the king taking its own rook, is the king's
            // two-square move to the g-file or the c-file.
            var landing = to_square;
            if step.piece == PIECE_KING && bitboard_contains(walk.context.ours, to_square) {
                landing = (step.from_square & 56u) | select(2u, 6u, (to_square & 7u) > (step.from_square & 7u));
            }
            loop {
                let action = action_of_move(step.from_square, landing, us, promotion);
                if wanted == NO_ACTION {
                    action_masks[base + action / 32u] |= 1u << (action % 32u);
                } else if action == wanted {
                    return move_word(step.from_square, to_square, step.piece, promotion);
                }
                if promotion == last {
                    break;
                }
                promotion += 1u;
            }
        }
    }
    return NO_MOVE;
}

// Writes the mask of `board` at word `base` of `action_masks`, with a
// fault for a side to move without a king (its mask left empty).
fn write_action_mask(board: Position, base: u32) {
    for (var word = 0u; word < ACTION_MASK_WORDS; word++) {
        action_masks[base + word] = 0u;
    }
    if bitboard_is_empty(board.kings & position_color(board, board.side_to_move)) {
        atomicOr(&status, FAULT_INVALID_POSITION);
        return;
    }
    walk_actions(board, base, NO_ACTION);
}
