// search.wgsl — GPU-side search experiments written on the gpu-movegen WGSL
// library (`#import chess`), as a user of the library would write them.
//
// Reads: `roots` (group 0, binding 0: the positions of the level at work),
// `parameters` (binding 1), `offsets` and `child_scores` (bindings 4, 5), and
// the library's attack tables (group 1, binding 0, placed there by the host).
// Writes: `results` (binding 2) and `next_level` (binding 3).
// `playouts`: one invocation per (root, playout) plays seeded random legal
// moves until mate, stalemate, the fifty-move rule, insufficient material or
// the ply cap, and writes result | plies << 8.
// Negamax to `depth` plies (plain negamax, material evaluation, mates scored
// by distance), level by level: `count_children`, `expand_children`,
// `evaluate_leaves` and `reduce_level`, one position per invocation; the
// roots get their score and best move (the first best in the library's order).

#import chess

struct SearchParameters {
    root_count: u32,
    playouts_per_root: u32,
    seed: u32,
    ply_cap: u32,
    depth: u32,
    reserved_0: u32,
    reserved_1: u32,
    reserved_2: u32,
}

@group(0) @binding(0) var<storage, read> roots: array<PackedPosition>;
@group(0) @binding(1) var<uniform> parameters: SearchParameters;
@group(0) @binding(2) var<storage, read_write> results: array<u32>;

const RESULT_WHITE_WINS: u32 = 0u;
const RESULT_BLACK_WINS: u32 = 1u;
const RESULT_STALEMATE: u32 = 2u;
const RESULT_FIFTY_MOVES: u32 = 3u;
const RESULT_INSUFFICIENT_MATERIAL: u32 = 4u;
const RESULT_PLY_CAP: u32 = 5u;

fn invocation_index(workgroup: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * groups.x + workgroup.x) * 64u + local;
}

@compute @workgroup_size(64)
fn playouts(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = invocation_index(workgroup, groups, local);
    if index >= parameters.root_count * parameters.playouts_per_root {
        return;
    }
    var random = random_seed(parameters.seed, index);
    var board = chess_unpack(roots[index / parameters.playouts_per_root]);
    var plies = 0u;
    var result = RESULT_PLY_CAP;
    loop {
        let count = chess_count_legal(board);
        if count == 0u {
            if chess_in_check(board) {
                result = select(RESULT_WHITE_WINS, RESULT_BLACK_WINS, board.side_to_move == WHITE);
            } else {
                result = RESULT_STALEMATE;
            }
            break;
        }
        if board.halfmove_clock >= 100u {
            result = RESULT_FIFTY_MOVES;
            break;
        }
        if chess_is_insufficient_material(board) {
            result = RESULT_INSUFFICIENT_MATERIAL;
            break;
        }
        if plies >= parameters.ply_cap {
            break;
        }
        board = chess_make_move(board, chess_nth_legal_move(board, random_below(&random, count)));
        plies += 1u;
    }
    results[index] = result | (plies << 8u);
}

const MAX_DEPTH: u32 = 4u;
const MATE: i32 = 100000;
const INFINITY: i32 = 1000000;

// Material from the side to move's point of view, in centipawns.
fn material(board: Position) -> i32 {
    let white = board.white;
    var score = 0;
    score += 100 * (i32(bitboard_count(board.pawns & white)) - i32(bitboard_count(board.pawns & board.black)));
    score += 300 * (i32(bitboard_count(board.knights & white)) - i32(bitboard_count(board.knights & board.black)));
    score += 300 * (i32(bitboard_count(board.bishops & white)) - i32(bitboard_count(board.bishops & board.black)));
    score += 500 * (i32(bitboard_count(board.rooks & white)) - i32(bitboard_count(board.rooks & board.black)));
    score += 900 * (i32(bitboard_count(board.queens & white)) - i32(bitboard_count(board.queens & board.black)));
    return select(score, -score, board.side_to_move == BLACK);
}

// A position with no moves: mated (worse the sooner) or stalemate.
fn terminal_score(board: Position, ply: u32) -> i32 {
    return select(0, -(MATE - i32(ply)), chess_in_check(board));
}

fn leaf_score(board: Position, ply: u32) -> i32 {
    if chess_count_legal(board) == 0u {
        return terminal_score(board, ply);
    }
    return material(board);
}

// Negamax runs level by level, as the perft driver does: `count_children`
// and `expand_children` build the tree down to the leaves (the host sums the
// counts into offsets between them), `evaluate_leaves` scores the leaves and
// `reduce_level` takes each parent's best child, level by level back to the
// roots. Every kernel is shallow: one position per invocation, no nesting.
// (A recursive-style search, one invocation walking the whole tree through
// nested calls, gave wrong answers on lavapipe for deep call chains.)

@group(0) @binding(3) var<storage, read_write> next_level: array<PackedPosition>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>;
@group(0) @binding(5) var<storage, read> child_scores: array<u32>;

@compute @workgroup_size(64)
fn count_children(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = invocation_index(workgroup, groups, local);
    if index >= parameters.root_count {
        return;
    }
    results[index] = chess_count_legal(chess_unpack(roots[index]));
}

// Children of position i go to next_level[offsets[i]..offsets[i + 1]], in the library's move order.
@compute @workgroup_size(64)
fn expand_children(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = invocation_index(workgroup, groups, local);
    if index >= parameters.root_count {
        return;
    }
    let board = chess_unpack(roots[index]);
    var iterator = chess_moves_begin(board);
    var output = offsets[index];
    loop {
        let mv = chess_moves_next(board, &iterator);
        if mv == CHESS_NO_MOVE {
            break;
        }
        next_level[output] = chess_pack(chess_make_move(board, mv));
        output += 1u;
    }
}

// Leaves at ply `depth`: (score for the side to move, no move).
@compute @workgroup_size(64)
fn evaluate_leaves(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = invocation_index(workgroup, groups, local);
    if index >= parameters.root_count {
        return;
    }
    results[2u * index] = bitcast<u32>(leaf_score(chess_unpack(roots[index]), parameters.depth));
    results[2u * index + 1u] = CHESS_NO_MOVE;
}

// Parents at ply `depth`: (best of -child score, the first move reaching it).
@compute @workgroup_size(64)
fn reduce_level(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let index = invocation_index(workgroup, groups, local);
    if index >= parameters.root_count {
        return;
    }
    let board = chess_unpack(roots[index]);
    let first = offsets[index];
    let end = offsets[index + 1u];
    var best = -INFINITY;
    var best_child = 0u;
    for (var child = first; child < end; child++) {
        let value = -bitcast<i32>(child_scores[2u * child]);
        if value > best {
            best = value;
            best_child = child - first;
        }
    }
    if first == end {
        results[2u * index] = bitcast<u32>(terminal_score(board, parameters.depth));
        results[2u * index + 1u] = CHESS_NO_MOVE;
    } else {
        results[2u * index] = bitcast<u32>(best);
        results[2u * index + 1u] = chess_nth_legal_move(board, best_child);
    }
}
