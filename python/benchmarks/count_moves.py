"""Legal-move counts of a batch of chess positions, side by side in one run:
gpu_movegen's Generator.count_moves on the GPU and on the CPU, python-chess's
legal_moves.count(), and pgx's chess on JAX's CPU backend where pgx is
installed. Every contestant's counts must equal python-chess's.

    python python/benchmarks/count_moves.py --positions 10000 --rounds 5

Prints the median seconds of each and its speed as a multiple of
python-chess's (BENCHMARKS.md records the figures).
"""

import argparse
import random
import statistics
import sys
import time

import chess
import numpy

import gpu_movegen


def random_play_fens(count, seed, longest=120):
    """`count` positions from seeded random games."""
    generator = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(generator.randrange(1, longest)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(generator.choice(moves))
            fens.append(board.fen())
            if len(fens) == count:
                break
    return fens


def timed(rounds, work):
    """The median seconds of `rounds` calls of `work`, and its last result."""
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def pgx_counter(fens):
    """pgx's legal-action masks of the positions, summed, as one jitted vmap
    on JAX's CPU backend (the states are built from the FENs beforehand, as
    pgx's from_fen does, and not timed); None when pgx is not installed."""
    try:
        import jax
        import jax.numpy as jnp
        from pgx._src.games.chess import GameState, _flip_pos, _legal_action_mask
    except ImportError:
        return None
    boards, colors, castlings, passants = [], [], [], []
    for fen in fens:
        board, color, castling, en_passant, *_ = fen.split()
        squares = []
        for line in board.split("/"):
            for character in line:
                if character.isdigit():
                    squares.extend([0] * int(character))
                else:
                    piece = "pnbrqk".index(character.lower()) + 1
                    squares.append(-piece if character.islower() else piece)
        matrix = numpy.array(squares, dtype=numpy.int32).reshape(8, 8)
        rights = numpy.array([["Q" in castling, "K" in castling], ["q" in castling, "k" in castling]])
        if color == "b":
            matrix = -numpy.flip(matrix, axis=0)
            rights = rights[::-1]
        passant = -1 if en_passant == "-" else "abcdefgh".index(en_passant[0]) * 8 + int(en_passant[1]) - 1
        if color == "b" and passant >= 0:
            passant = int(_flip_pos(passant))
        boards.append(numpy.rot90(matrix, k=3).flatten())
        colors.append(0 if color == "w" else 1)
        castlings.append(rights)
        passants.append(passant)
    default = GameState()
    count = len(fens)
    states = default._replace(
        board=jnp.asarray(numpy.stack(boards)),
        color=jnp.asarray(colors, dtype=jnp.int32),
        castling_rights=jnp.asarray(numpy.stack(castlings)),
        en_passant=jnp.asarray(passants, dtype=jnp.int32),
        halfmove_count=jnp.zeros(count, dtype=jnp.int32),
        fullmove_count=jnp.ones(count, dtype=jnp.int32),
        hash_history=jnp.broadcast_to(default.hash_history, (count,) + default.hash_history.shape),
        board_history=jnp.broadcast_to(default.board_history, (count,) + default.board_history.shape),
        legal_action_mask=jnp.broadcast_to(default.legal_action_mask, (count,) + default.legal_action_mask.shape),
        step_count=jnp.zeros(count, dtype=jnp.int32),
    )
    counter = jax.jit(jax.vmap(lambda state: _legal_action_mask(state).sum()))
    counter(states).block_until_ready()  # compiled once, before timing
    return lambda: numpy.asarray(counter(states).block_until_ready())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-pgx", action="store_true", help="leave pgx out even where it is installed")
    arguments = parser.parse_args()
    if arguments.positions < 1 or arguments.rounds < 1:
        parser.error("--positions and --rounds must be at least 1")

    fens = random_play_fens(arguments.positions, arguments.seed)
    boards = [chess.Board(fen) for fen in fens]
    expected = numpy.array([board.legal_moves.count() for board in boards], dtype=numpy.uint32)

    contestants = [
        ("python-chess, chess.Board(fen).legal_moves.count()",
         lambda: numpy.array([chess.Board(fen).legal_moves.count() for fen in fens], dtype=numpy.uint32)),
        ("python-chess, boards built beforehand",
         lambda: numpy.array([board.legal_moves.count() for board in boards], dtype=numpy.uint32)),
    ]
    for backend in ["gpu", "cpu"]:
        generator = gpu_movegen.Generator("chess", backend)
        contestants.append((f"gpu_movegen Generator.count_moves, {backend} ({generator.adapter or 'all cores'})",
                            lambda generator=generator: generator.count_moves(fens)))
    if not arguments.no_pgx:
        counter = pgx_counter(fens)
        if counter is None:
            print("pgx: not installed, left out", file=sys.stderr)
        else:
            contestants.append(("pgx chess, jit(vmap(legal_action_mask)) on JAX's CPU backend", counter))

    print(f"{len(fens)} positions from seeded random play (seed {arguments.seed}), median of {arguments.rounds} rounds")
    baseline = None
    failed = False
    for name, work in contestants:
        seconds, counts = timed(arguments.rounds, work)
        equal = numpy.array_equal(numpy.asarray(counts, dtype=numpy.int64), expected.astype(numpy.int64))
        failed |= not equal
        baseline = baseline or seconds
        print(f"{seconds:10.4f} s  {len(fens) / seconds:14,.0f} positions/s  {baseline / seconds:8.1f}x  {name}"
              + ("" if equal else "  COUNTS DIFFER"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
