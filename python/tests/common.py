"""What the package's tests share: the repository's test data, known positions
and random legal actions for the environments."""

import pathlib
import re

import chess
import numpy

# The repository's test data (copied there from the reference material, with its source line).
DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def suite(name, most_nodes):
    """(position, depth, count) of a `;D1 20 ;D2 400` suite in tests/data, counts up to `most_nodes`."""
    cases = []
    for line in (DATA / name).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        position, *counts = line.split(";")
        for count in counts:
            match = re.fullmatch(r"\s*D(\d+)\s+(\d+)\s*", count)
            assert match, f"{name}: cannot read {count!r}"
            depth, nodes = int(match.group(1)), int(match.group(2))
            if nodes <= most_nodes:
                cases.append((position.strip(), depth, nodes))
    assert cases, f"{name}: no counts up to {most_nodes}"
    return cases


def random_legal_actions(mask, rng):
    """A random legal action for each game of a batch's legal-action mask
    (any action once a game is over, its mask all true)."""
    running = numpy.cumsum(mask, axis=1)
    chosen = (rng.random(len(mask)) * running[:, -1]).astype(numpy.int64)
    return numpy.argmax(running > chosen[:, None], axis=1).astype(numpy.int32)


# AlphaZero's queen-like and knight steps, (rank, file) in the mover's frame, in plane order.
STEPS = (
    [(distance - 7, 0) for distance in range(7)]
    + [(distance + 1, 0) for distance in range(7)]
    + [(0, distance - 7) for distance in range(7)]
    + [(0, distance + 1) for distance in range(7)]
    + [(distance - 7, distance - 7) for distance in range(7)]
    + [(distance + 1, distance + 1) for distance in range(7)]
    + [(7 - distance, distance - 7) for distance in range(7)]
    + [(-(distance + 1), distance + 1) for distance in range(7)]
    + list(zip([-1, 1, -2, 2, -1, 1, -2, 2], [-2, -2, -1, -1, 2, 2, 1, 1]))
)
UNDERPROMOTIONS = {chess.ROOK: 0, chess.BISHOP: 1, chess.KNIGHT: 2}


def action(board, move):
    """AlphaZero's action (pgx's chess) of a legal move of the side to move."""

    def frame(square):
        rank = chess.square_rank(square) if board.turn == chess.WHITE else 7 - chess.square_rank(square)
        return chess.square_file(square), rank

    (from_file, from_rank), (to_file, to_rank) = frame(move.from_square), frame(move.to_square)
    if move.promotion in UNDERPROMOTIONS:
        direction = 0 if to_file == from_file else 1 if to_file > from_file else 2
        plane = UNDERPROMOTIONS[move.promotion] * 3 + direction
    else:
        plane = 9 + STEPS.index((to_rank - from_rank, to_file - from_file))
    return (from_file * 8 + from_rank) * 73 + plane
