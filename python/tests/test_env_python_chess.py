"""The chess environment against python-chess, a second peer beside pgx:
seeded random games stepped in the environment and mirrored on python-chess
boards. At every step the legal-action mask must be exactly python-chess's
legal moves (encoded here, apart from the library, as AlphaZero's actions),
and every ending must be python-chess's, but where pgx's rules, which the
environment follows, differ from FIDE's. Those cases are named and each is
checked against pgx's rule, written out here:

- "insufficient material": pgx (OpenSpiel) ends a game as soon as the
  pieces left are two kings, one minor piece besides, or bishops all on
  one colour; python-chess follows FIDE's "no sequence of legal moves can
  mate", which can differ.
- "repetition by passed square": pgx counts the square a double push just
  passed as part of the position whether or not a pawn can take on it;
  python-chess (FIDE) only when an en passant capture is legal.
"""

import os

import chess
import numpy

import gpu_movegen.env
from common import action

# Games in CI; GPU_MOVEGEN_PYTHON_CHESS_GAMES asks for more.
GAMES = int(os.environ.get("GPU_MOVEGEN_PYTHON_CHESS_GAMES", "64"))

def openspiel_insufficient(board):
    pieces = chess.popcount(board.occupied)
    bishops = board.bishops
    heavy_or_pawns = chess.popcount(board.pawns | board.rooks | board.queens)
    light = chess.popcount(bishops & chess.BB_LIGHT_SQUARES)
    return (
        pieces <= 2
        or (pieces == 3 and heavy_or_pawns == 0)
        or (pieces == chess.popcount(bishops) + 2 and light in (0, chess.popcount(bishops)))
    )


def pgx_key(board, passed):
    return (board.board_fen(), board.turn, board.castling_rights, passed)


def test_chess_equals_python_chess_but_where_pgx_s_rules_differ():
    env = gpu_movegen.env.make("chess", batch_size=GAMES, seed=11)
    state = env.reset(11)
    boards = [chess.Board() for _ in range(GAMES)]
    history = [[pgx_key(board, None)] for board in boards]
    over = numpy.zeros(GAMES, dtype=bool)
    differences = {"insufficient material": 0, "repetition by passed square": 0}
    endings = {}
    rng = numpy.random.default_rng(11)
    for step in range(1, 600):
        actions = numpy.zeros(GAMES, dtype=numpy.int64)
        for game, board in enumerate(boards):
            if over[game]:
                continue
            expected = sorted(action(board, move) for move in board.legal_moves)
            assert numpy.flatnonzero(state.legal_action_mask[game]).tolist() == expected, (game, board.fen())
            actions[game] = expected[rng.integers(len(expected))]
        moves = {}
        for game, board in enumerate(boards):
            if not over[game]:
                moves[game] = next(move for move in board.legal_moves if action(board, move) == actions[game])
        state = env.step(actions)
        for game, move in moves.items():
            board = boards[game]
            double_push = board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16
            board.push(move)
            passed = (move.from_square + move.to_square) // 2 if double_push else None
            history[game].append(pgx_key(board, passed))
            players = env.players(game)
            by_colour = [state.rewards[game, players[0]], state.rewards[game, players[1]]]
            pgx_repetition = history[game].count(history[game][-1]) >= 3
            fide = {
                "checkmate": board.is_checkmate(),
                "stalemate": board.is_stalemate(),
                "fifty moves": board.halfmove_clock >= 100,
                "repetition": board.is_repetition(3),
                "insufficient material": board.is_insufficient_material(),
                "512 steps": step >= 512,
            }
            pgx_rules = dict(fide, **{"repetition": pgx_repetition, "insufficient material": openspiel_insufficient(board)})
            where = f"game {game}, step {step}, {board.fen()}"
            assert bool(state.terminated[game]) == any(pgx_rules.values()), (where, pgx_rules)
            if fide["insufficient material"] != pgx_rules["insufficient material"]:
                differences["insufficient material"] += 1
            if fide["repetition"] != pgx_rules["repetition"]:
                differences["repetition by passed square"] += 1
            if state.terminated[game]:
                over[game] = True
                cause = next(name for name, ended in pgx_rules.items() if ended)
                endings[cause] = endings.get(cause, 0) + 1
                if fide["checkmate"]:
                    winner = 0 if board.turn == chess.BLACK else 1
                    assert by_colour == [1.0 if colour == winner else -1.0 for colour in (0, 1)], where
                else:
                    assert by_colour == [0.0, 0.0], where
            else:
                assert by_colour == [0.0, 0.0], where
        if over.all():
            break
    assert over.all(), "every game ends within 512 steps"
    # Random games end every way but the rarest; the run must have seen some.
    assert sum(endings.values()) == GAMES and len(endings) >= 2, endings
    print(f"endings {endings}; pgx's rules differed from FIDE's {differences}")
