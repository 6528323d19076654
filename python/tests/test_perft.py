"""Published perft counts for chess, its variants, Shogi and Go, on both backends."""

import pytest

import gpu_movegen
from common import DATA, KIWIPETE, START_FEN, suite

BACKENDS = ["cpu", "gpu"]

# The first 24 positions of the classic suite, counts up to 100,000 nodes:
# a few seconds on lavapipe.
CHESS = suite("perftsuite.epd", 100_000)[:24] + suite("edge_cases.epd", 100_000)[:10]
SHOGI = suite("shogi.epd", 100_000)


def go_counts(most_nodes):
    cases = []
    for line in (DATA / "go_perft.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            size, depth, nodes = (int(field) for field in line.split())
            if nodes <= most_nodes:
                cases.append((size, depth, nodes))
    assert cases
    return cases


def variant_counts(name, most_nodes):
    cases, fen = [], None
    for line in (DATA / "variants" / f"{name}.perft").read_text().splitlines():
        if line.startswith("epd "):
            fen = line[4:]
        elif line.startswith("perft "):
            _, depth, nodes = line.split()
            if int(nodes) <= most_nodes:
                cases.append((fen, int(depth), int(nodes)))
    assert cases
    return cases[:4]


def test_start_perft_5_on_the_gpu_is_published_count():
    # The acceptance command.
    assert gpu_movegen.perft(START_FEN, 5, backend="gpu") == 4_865_609


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fen,depth,nodes", CHESS)
def test_chess_suite(fen, depth, nodes, backend):
    assert gpu_movegen.perft(fen, depth, backend=backend) == nodes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sfen,depth,nodes", SHOGI)
def test_shogi_suite(sfen, depth, nodes, backend):
    assert gpu_movegen.perft(sfen, depth, game="shogi", backend=backend) == nodes


# Each board size builds and self-tests its own GPU kernels (seconds on
# lavapipe): the GPU counts the sizes up to 9, the CPU all of them.
GO_CASES = [(size, depth, nodes, backend) for size, depth, nodes in go_counts(400_000) for backend in BACKENDS
            if backend == "cpu" or size <= 9]


@pytest.mark.parametrize("size,depth,nodes,backend", GO_CASES)
def test_go_counts(size, depth, nodes, backend):
    assert gpu_movegen.perft("", depth, game="go", size=size, backend=backend) == nodes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", ["atomic", "antichess", "crazyhouse", "horde", "racingkings", "3check"])
def test_variant_counts(variant, backend):
    for fen, depth, nodes in variant_counts(variant, 50_000):
        assert gpu_movegen.perft(fen, depth, variant=variant, backend=backend) == nodes, (fen, depth)


@pytest.mark.parametrize("backend", BACKENDS)
def test_divide_sums_to_the_total_in_uci_order(backend):
    divided = gpu_movegen.perft(KIWIPETE, 3, divide=True, backend=backend)
    assert isinstance(divided, dict)
    assert len(divided) == 48
    assert sum(divided.values()) == 97_862
    assert list(divided) == sorted(divided)
    assert divided["e1g1"] > 0 and divided["e1c1"] > 0


def test_divide_writes_chess960_castling_as_king_takes_rook():
    divided = gpu_movegen.perft(KIWIPETE, 2, divide=True, chess960=True, backend="cpu")
    assert "e1h1" in divided and "e1a1" in divided and "e1g1" not in divided


@pytest.mark.parametrize("backend", BACKENDS)
def test_shogi_and_go_divide(backend):
    shogi = gpu_movegen.perft(None, 2, game="shogi", divide=True, backend=backend)
    assert len(shogi) == 30 and sum(shogi.values()) == 900 and "7g7f" in shogi
    go = gpu_movegen.perft("B E5", 2, game="go", divide=True, backend=backend)
    assert len(go) == 80 and sum(go.values()) == 80 * 79 and "D4" in go and "E5" not in go


def test_depth_zero_is_the_root_alone():
    assert gpu_movegen.perft(None, 0) == 1
    assert gpu_movegen.perft(None, 0, game="go") == 1


def test_counts_past_two_to_the_64_are_exact_python_ints():
    # perft(1) of a position is exact; this checks the type is an unbounded int.
    count = gpu_movegen.perft(KIWIPETE, 1, backend="cpu")
    assert type(count) is int and count == 48


@pytest.mark.parametrize("backend", BACKENDS)
def test_progress_hears_the_total_at_the_end(backend):
    heard = []
    total = gpu_movegen.perft(START_FEN, 4, backend=backend, progress=heard.append)
    assert total == 197_281
    assert heard and heard[-1] == total
    assert heard == sorted(heard)


def test_an_exception_from_progress_stops_the_count():
    def fail(_nodes):
        raise RuntimeError("stop here")

    # perft(6) on the CPU takes long enough for the callback to be called
    # before the end; either way the exception must come out, not a count.
    with pytest.raises(RuntimeError, match="stop here"):
        gpu_movegen.perft(START_FEN, 6, backend="cpu", hash_mib=0, progress=fail)


def test_auto_counts_where_info_says():
    report = gpu_movegen.info()
    assert report["backend"] in ("cpu", "gpu")
    assert gpu_movegen.perft(START_FEN, 3) == 8902
