"""Generator: batched legal moves against python-chess, the GPU against the CPU."""

import random

import chess
import numpy
import pytest

import gpu_movegen
from common import KIWIPETE, suite

BACKENDS = ["cpu", "gpu"]


def random_play_fens(count, seed, longest=120):
    """`count` positions from seeded random games (python-chess plays them), the start excluded."""
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


# Held-out positions: a seed no other test uses.
HELD_OUT = random_play_fens(1000, seed=20261203)


def peer_moves(fen):
    return sorted(move.uci() for move in chess.Board(fen).legal_moves)


@pytest.mark.parametrize("backend", BACKENDS)
def test_legal_moves_equal_python_chess_on_1000_positions(generators, backend):
    moves = generators("chess", backend).legal_moves(HELD_OUT)
    assert len(moves) == len(HELD_OUT)
    differences = [fen for fen, ours in zip(HELD_OUT, moves) if sorted(ours) != peer_moves(fen)]
    assert differences == [], f"{len(differences)} positions differ, the first: {differences[:1]}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_moves_is_a_uint32_array_equal_to_python_chess(generators, backend):
    counts = generators("chess", backend).count_moves(HELD_OUT)
    assert isinstance(counts, numpy.ndarray) and counts.dtype == numpy.uint32 and counts.shape == (1000,)
    expected = numpy.array([chess.Board(fen).legal_moves.count() for fen in HELD_OUT], dtype=numpy.uint32)
    assert numpy.array_equal(counts, expected)


def test_a_batch_of_4096_in_one_call(generators):
    fens = random_play_fens(4096, seed=7)
    gpu = generators("chess", "gpu").count_moves(fens)
    cpu = generators("chess", "cpu").count_moves(fens)
    assert numpy.array_equal(gpu, cpu) and gpu.sum() > 4096


def test_empty_batches(generators):
    assert generators("chess", "gpu").legal_moves([]) == []
    assert generators("chess", "gpu").count_moves([]).shape == (0,)


def test_chess960_notation(generators):
    moves = generators("chess", "gpu").legal_moves([KIWIPETE], chess960=True)[0]
    assert "e1h1" in moves and "e1g1" not in moves


@pytest.mark.parametrize("backend", BACKENDS)
def test_shogi_moves_match_the_published_first_ply(generators, backend):
    cases = [(sfen, nodes) for sfen, depth, nodes in suite("shogi.epd", 10_000_000) if depth == 1]
    sfens = [sfen for sfen, _ in cases]
    generator = generators("shogi", backend)
    counts = generator.count_moves(sfens)
    moves = generator.legal_moves(sfens)
    assert list(counts) == [nodes for _, nodes in cases]
    assert [len(listed) for listed in moves] == [nodes for _, nodes in cases]


def go_random_play(count, seed, size=9):
    """Go move strings of seeded random games, chosen from the CPU's legal points."""
    generator = random.Random(seed)
    cpu = gpu_movegen.Generator("go", "cpu", size=size)
    games, positions = [""] * 16, []
    color = ["B"] * 16
    while len(positions) < count:
        options = cpu.legal_moves(games)
        for index, points in enumerate(options):
            if not points or generator.random() < 0.02:
                games[index], color[index] = "", "B"
                continue
            games[index] = f"{games[index]} {color[index]} {generator.choice(points)}".strip()
            color[index] = "W" if color[index] == "B" else "B"
            positions.append(games[index])
    return positions[:count]


def test_go_gpu_equals_cpu_on_random_play(generators):
    positions = go_random_play(300, seed=3)
    gpu, cpu = generators("go", "gpu"), generators("go", "cpu")
    assert gpu.legal_moves(positions) == cpu.legal_moves(positions)
    assert numpy.array_equal(gpu.count_moves(positions), cpu.count_moves(positions))
    assert cpu.count_moves([""])[0] == 81


def test_go_playouts_are_the_same_on_both_backends(generators):
    positions = ["", "B E5", "B E5 W D4"]
    gpu = generators("go", "gpu").playouts(positions, 64, seed=11, komi=7.5)
    cpu = generators("go", "cpu").playouts(positions, 64, seed=11, komi=7.5)
    assert gpu.dtype == numpy.float64 and gpu.shape == (3,)
    assert numpy.array_equal(gpu, cpu)
    assert ((gpu >= 0) & (gpu <= 1)).all()


def test_generator_describes_itself(generators):
    generator = generators("chess", "gpu")
    assert generator.backend == "gpu" and generator.game == "chess" and generator.adapter
    assert "gpu" in repr(generator)
    assert generators("chess", "cpu").adapter is None
