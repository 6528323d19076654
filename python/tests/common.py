"""What the package's tests share: the repository's test data, known positions
and random legal actions for the environments."""

import pathlib
import re

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
