// kernels/perft.wgsl — the Shogi kernels of the breadth-first perft engine.
//
// Reads: the Shogi tables (binding 0) and the engine's bindings
// (common/perft_engine.wgsl: the arena of packed positions, their roots, the
// parameters). Writes: move counts (`scan_data`), children in the arena,
// 64-bit totals per root, fault flags (FAULT_INVALID_POSITION for a side to
// move without a king, FAULT_ARENA_OVERFLOW for a child past the arena).
// The engine's move lists (common/perft_moves.wgsl) bring the kernels that
// expand a level (`expand_moves`, one invocation per position: its legal
// moves as words; `write_children`, one per move: the child) and count the
// last two plies one invocation per move (`count_leaves_fused`: the child's
// legal moves). `count_leaves_looped` counts them one invocation per
// position instead: `for_each_move` hands each move to `emit`, which adds
// the child's legal move count instead of storing the move. The engine
// module brings `count_moves` (stored counts or last-ply totals) and the
// scan, which ask `perft_move_count` here for a position's legal move count.

#import shogi_movegen
#import perft_moves

alias PerftRecord = PackedShogiPosition;

// Where `for_each_move` puts its moves, per invocation; or, when counting,
// the sum of their children's legal move counts.
var<private> emit_slot: u32;
var<private> emit_parent: u32;
var<private> emit_count: u32;

// A move word of the move lists: from-square (bits 0-6; SHOGI_DROP for a
// drop from the hand), to-square (7-13), kind (14-17), promotion (18).
const SHOGI_DROP: u32 = 127u;

fn shogi_move_word(from_square: u32, to: u32, kind: u32, promote: bool) -> u32 {
    let from_bits = select(from_square, SHOGI_DROP, from_square == SHOGI_NO_SQUARE);
    return from_bits | (to << 7u) | (kind << 14u) | (select(0u, 1u, promote) << 18u);
}

// The child of `position` after the move `word`.
fn shogi_play_word(position: ShogiPosition, word: u32) -> ShogiPosition {
    let from_bits = word & 127u;
    let from_square = select(from_bits, SHOGI_NO_SQUARE, from_bits == SHOGI_DROP);
    return shogi_make_move(position, from_square, (word >> 7u) & 127u, (word >> 14u) & 15u, ((word >> 18u) & 1u) != 0u);
}

// `counting` is a constant at each call, so a driver keeps one kind of
// emit in each kernel.
fn emit(position: ShogiPosition, from_square: u32, to: u32, kind: u32, promote: bool, counting: bool) {
    if counting {
        emit_count += shogi_legal_move_count(shogi_make_move(position, from_square, to, kind, promote));
        return;
    }
    perft_store_move(emit_slot, emit_parent, shogi_move_word(from_square, to, kind, promote));
    emit_slot += 1u;
}

// Every legal move of `position`, in the order of Position::legal_moves on
// the CPU (board moves by kind, from-square, destination, promotion first;
// then drops by kind and square), handed to `emit`. Every move is legal by
// the masks (`shogi_masks`, the king's tested steps, the mating pawn drop
// decided once), so none is played out to test it. Board moves and drops
// share one loop nest with one call of `emit`: a driver inlines `emit` (and
// in `count_leaves_looped` the legal move count inside it) at every call
// site, and two sites took lavapipe minutes to compile where one takes a
// second.
fn for_each_move(position: ShogiPosition, counting: bool) {
    let us = position.side_to_move;
    let occupied = shogi_occupied(position);
    let masks = shogi_masks(position);
    let king_moves = king_destinations(position, masks);
    let mating_pawn = mating_pawn_drop(position, masks);
    // Kinds 0..13 move on the board; 14..20 are the seven hand kinds dropped.
    for (var slot = 0u; slot < shogi_loop_bound(21u); slot++) {
        let dropping = slot >= 14u;
        let kind = select(slot, slot - 14u, dropping);
        // A drop has one source, the hand, when it holds the kind.
        var sources = shogi_pieces_of(position, us, kind);
        if dropping {
            sources = select(BOARD81_EMPTY, board81_from_square(0u), shogi_hand(position, us, kind) != 0u);
        }
        while !board81_is_empty(sources) {
            let from_square = select(board81_first(sources), SHOGI_NO_SQUARE, dropping);
            sources = board81_without_first(sources);
            var targets: Board81;
            if dropping {
                targets = legal_drop_squares(position, masks, kind, mating_pawn);
            } else if kind == SHOGI_KING {
                targets = king_moves;
            } else {
                targets = shogi_attacks(kind, us, from_square, occupied) & piece_targets(position, masks, from_square);
            }
            while !board81_is_empty(targets) {
                let to = board81_first(targets);
                targets = board81_without_first(targets);
                for (var choice = 0u; choice < shogi_loop_bound(2u); choice++) {
                    let promote = choice == 0u;
                    // A drop never promotes; a board move promotes or not where the rules allow.
                    let allowed = select(promotion_choice_allowed(kind, us, from_square, to, promote), !promote, dropping);
                    if allowed {
                        emit(position, from_square, to, kind, promote, counting);
                    }
                }
            }
        }
    }
}

// The words of a record that make the position (perft_engine.wgsl; the
// move number aside): the five planes, then the state and the two hands.
const RECORD_CHUNKS: u32 = 6u;
const RECORD_SEED: u32 = 0u;

fn perft_record_chunk(record: PackedShogiPosition, index: u32) -> vec4<u32> {
    if index == 5u {
        return vec4<u32>(record.state, record.hands.x, record.hands.y, 0u);
    }
    return record.planes[index];
}

// The position in `slot`, with a fault raised when its side to move has no king.
fn arena_position(slot: u32) -> ShogiPosition {
    return record_position(perft_record(slot));
}

// The position of `record`, with a fault raised when its side to move has no king.
fn record_position(record: PerftRecord) -> ShogiPosition {
    let position = shogi_unpack(record);
    if shogi_king(position, position.side_to_move) == SHOGI_NO_SQUARE {
        perft_fault(FAULT_INVALID_POSITION);
    }
    return position;
}

// The engine's hook: the legal move count of the position in `slot`.
fn perft_move_count(slot: u32) -> u32 {
    return shogi_legal_move_count(arena_position(slot));
}

// The move lists' hooks (common/perft_moves.wgsl).
fn perft_write_moves(slot: u32, first: u32) {
    let position = arena_position(slot);
    if shogi_king(position, position.side_to_move) == SHOGI_NO_SQUARE {
        return;
    }
    emit_slot = first;
    emit_parent = slot;
    for_each_move(position, false);
}

fn perft_child_record(parent: u32, move_word: u32) -> PerftRecord {
    return shogi_pack(shogi_play_word(shogi_unpack(perft_record(parent)), move_word));
}

fn perft_pair_leaves(parent: u32, move_word: u32) -> u32 {
    return shogi_legal_move_count(shogi_play_word(shogi_unpack(perft_record(parent)), move_word));
}

fn perft_leaf_children(record: PerftRecord) -> u32 {
    let position = record_position(record);
    emit_count = 0u;
    if shogi_king(position, position.side_to_move) != SHOGI_NO_SQUARE {
        for_each_move(position, true);
    }
    return emit_count;
}
