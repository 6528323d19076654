"""Errors as the command line has them, Ctrl-C, the GIL, and random input that must never crash."""

import random
import signal
import string
import threading
import time

import pytest

import gpu_movegen
from common import START_FEN


def test_a_bad_fen_is_a_value_error_naming_the_problem():
    with pytest.raises(ValueError, match="position: .*king"):
        gpu_movegen.perft("8/8/8/8/8/8/8/8 w - - 0 1", 1)
    with pytest.raises(ValueError, match="position"):
        gpu_movegen.perft("not a fen", 1)


def test_bad_sfen_moves_and_names():
    with pytest.raises(ValueError, match="position"):
        gpu_movegen.perft("lnsgkgsnl/9 b - 1", 1, game="shogi")
    with pytest.raises(ValueError, match="moves"):
        gpu_movegen.perft("B E5 B E5", 1, game="go")
    with pytest.raises(ValueError, match="size"):
        gpu_movegen.perft("", 1, game="go", size=1)
    with pytest.raises(ValueError, match="game"):
        gpu_movegen.perft(None, 1, game="checkers")
    with pytest.raises(ValueError, match="backend"):
        gpu_movegen.perft(None, 1, backend="tpu")
    with pytest.raises(ValueError, match="variant"):
        gpu_movegen.perft(None, 1, variant="bughouse")
    with pytest.raises(ValueError, match="depth"):
        gpu_movegen.perft(None, -1)
    with pytest.raises(ValueError, match="depth"):
        gpu_movegen.perft(None, 65)
    with pytest.raises(ValueError, match="hash_mib"):
        gpu_movegen.perft(None, 1, hash_mib=-5)
    with pytest.raises(ValueError, match="divide"):
        gpu_movegen.perft(None, 0, divide=True)
    with pytest.raises(ValueError, match=r"positions\[1\]"):
        gpu_movegen.Generator("chess", "cpu").count_moves([START_FEN, "x"])
    with pytest.raises(ValueError, match="playouts are Go's"):
        gpu_movegen.Generator("chess", "cpu").playouts([""])
    with pytest.raises(TypeError):
        gpu_movegen.perft(None, 1, progress=5)


def interrupt_after(seconds):
    timer = threading.Timer(seconds, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_ctrl_c_stops_a_long_count_and_leaves_the_backend_usable(backend):
    started = time.monotonic()
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        # Minutes of work on either backend here, without a table.
        gpu_movegen.perft(START_FEN, 9, backend=backend, hash_mib=0)
    timer.join()
    assert time.monotonic() - started < 60
    assert gpu_movegen.perft(START_FEN, 4, backend=backend) == 197_281


@pytest.mark.parametrize(
    "game, depth, options",
    [("shogi", 10, {}), ("go", 7, {"size": 19}), ("chess", 10, {"variant": "atomic"})],
)
def test_ctrl_c_stops_every_games_cpu_count_within_seconds(game, depth, options):
    started = time.monotonic()
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        # Each root move's subtree alone is hours of work: a stop that
        # waited for the next root move would take that long.
        gpu_movegen.perft(None, depth, game=game, backend="cpu", **options)
    timer.join()
    assert time.monotonic() - started < 15


def test_the_gil_is_released_while_counting():
    ticks = []
    done = threading.Event()

    def count():
        # About a second on two cores: perft(6) came to take 40 ms, too
        # short for the main thread to tick often enough to tell.
        gpu_movegen.perft(START_FEN, 7, backend="cpu", hash_mib=0)
        done.set()

    worker = threading.Thread(target=count)
    worker.start()
    while not done.is_set():
        ticks.append(time.monotonic())
        time.sleep(0.01)
    worker.join()
    # The main thread kept running while the other counted.
    assert len(ticks) > 5


def random_text(generator):
    alphabet = string.printable + "\u00e9\u2654\u0000"
    return "".join(generator.choice(alphabet) for _ in range(generator.randrange(0, 60)))


def random_value(generator):
    return generator.choice(
        [
            None,
            random_text(generator),
            generator.randrange(-(2**70), 2**70),
            generator.randrange(-5, 70),
            generator.random() * 1e9,
            True,
            [],
            b"bytes",
        ]
    )


def test_random_arguments_raise_clean_errors_and_never_crash():
    generator = random.Random(45)
    allowed = (ValueError, TypeError, OverflowError)
    for _ in range(600):
        arguments = {
            "game": generator.choice(["chess", "shogi", "go", random_value(generator)]),
            "backend": generator.choice(["cpu", "gpu", "auto", random_value(generator)]),
            "divide": generator.choice([True, False, random_value(generator)]),
            "hash_mib": generator.choice([None, 0, random_value(generator)]),
            "variant": generator.choice([None, "atomic", random_value(generator)]),
            "size": generator.choice([9, 5, random_value(generator)]),
            "threads": generator.choice([None, 1, random_value(generator)]),
        }
        position = random_text(generator) if generator.random() < 0.9 else random_value(generator)
        # A valid position with any depth could run for ages: random positions
        # here are almost never valid, and a valid one only gets depth 2.
        depth = random_value(generator)
        if type(depth) is int and 3 <= depth <= 64:
            depth = 2
        try:
            gpu_movegen.perft(position, depth, **arguments)
        except allowed:
            continue
        except gpu_movegen.GpuError as error:
            pytest.fail(f"a GPU error from random input {position!r} {depth!r} {arguments}: {error}")
    generators = {game: gpu_movegen.Generator(game, "cpu") for game in ["chess", "shogi", "go"]}
    for _ in range(200):
        batch = [random_text(generator) for _ in range(generator.randrange(0, 4))]
        for game, opened in generators.items():
            for call in [
                lambda: opened.count_moves(batch),
                lambda: opened.legal_moves(batch, chess960=random_value(generator)),
                lambda: opened.playouts(batch, random_value(generator), seed=random_value(generator),
                                        komi=random_value(generator)),
                lambda: gpu_movegen.Generator(random_value(generator), "cpu", size=random_value(generator),
                                              threads=random_value(generator)),
            ]:
                try:
                    call()
                except allowed:
                    pass
