"""What the package's tests share: the repository's test data and known positions."""

import pathlib
import re

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
