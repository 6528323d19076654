"""The guide's examples (docs/python.md), run as written, and the benchmark program at a small size."""

import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
GUIDE = REPOSITORY / "docs" / "python.md"


def examples():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 5, "the guide's examples went missing"
    return blocks


@pytest.mark.parametrize("index", range(len(examples())))
def test_the_guides_example_runs(index):
    exec(compile(examples()[index], f"docs/python.md example {index + 1}", "exec"), {})


def test_the_count_moves_benchmark_runs_and_agrees_with_python_chess():
    benchmark = REPOSITORY / "python" / "benchmarks" / "count_moves.py"
    result = subprocess.run(
        [sys.executable, str(benchmark), "--positions", "300", "--rounds", "1", "--no-pgx"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "count_moves, gpu" in result.stdout and "count_moves, cpu" in result.stdout
    assert "DIFFER" not in result.stdout


def test_the_environment_benchmark_runs_against_pgx():
    benchmark = REPOSITORY / "python" / "benchmarks" / "env_steps.py"
    result = subprocess.run(
        [sys.executable, str(benchmark), "--batch", "8", "--steps", "4"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ours" in result.stdout and "ours-gpu" in result.stdout and "ours/pgx" in result.stdout


MCTS = REPOSITORY / "examples" / "python" / "mcts_selfplay.py"


def run_mcts(*arguments):
    return subprocess.run(
        [sys.executable, str(MCTS), *arguments], capture_output=True, text=True, timeout=600
    )


def test_the_mcts_example_searches_every_game():
    result = run_mcts("--batch", "4", "--simulations", "8", "--moves", "3", "--rollout-steps", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[1:]}
    assert sorted(rows) == ["chess", "go_19x19", "go_9x9", "shogi"]
    for game, row in rows.items():
        games, finished, moves, search_steps = map(int, row[1:5])
        assert games == 4 and moves == 12, (game, row)
        # Eight simulations a move, each a step, and two rollout steps from each new node.
        assert 8 * moves <= search_steps <= 3 * 8 * moves, (game, row)


@pytest.mark.parametrize("game", ["chess", "shogi", "go_9x9"])
def test_the_mcts_example_searches_the_same_on_the_gpu_backend(game):
    rows = []
    for backend in ("cpu", "gpu"):
        arguments = ("--env", game, "--batch", "4", "--simulations", "8", "--moves", "3", "--rollout-steps", "2")
        result = run_mcts(*arguments, "--backend", backend)
        assert result.returncode == 0, result.stdout + result.stderr
        rows.append(result.stdout.splitlines()[1].split()[:5])
    # The same games, moves and search steps: the backends' arrays are equal.
    assert rows[0] == rows[1], rows


def test_the_mcts_example_plays_9x9_games_to_their_end():
    # 9x9 games end within 2 * 81 steps.
    result = run_mcts("--env", "go_9x9", "--batch", "4", "--simulations", "4", "--moves", "200")
    assert result.returncode == 0, result.stdout + result.stderr
    games, finished = map(int, result.stdout.splitlines()[1].split()[1:3])
    assert games == finished == 4


def test_ctrl_c_stops_the_mcts_example_with_exit_code_130_and_no_traceback():
    process = subprocess.Popen(
        [sys.executable, str(MCTS), "--env", "go_19x19", "--batch", "256", "--moves", "400"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The header is printed once the module is imported and the search begun.
    assert process.stdout.readline().startswith("env")
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    output, errors = process.communicate(timeout=60)
    assert process.returncode == 130, output + errors
    assert "stopped (Ctrl-C) during go_19x19" in errors and "Traceback" not in errors, errors


def test_the_mcts_example_refuses_a_bad_argument():
    result = run_mcts("--simulations", "0")
    assert result.returncode == 2
    assert "--simulations: expected a positive number, not 0" in result.stderr
    result = run_mcts("--env", "chess", "--batch", "65536", "--simulations", "100")
    assert result.returncode == 2
    assert "6,619,136 nodes and 34.0 GiB of tree; at most 262,144 nodes and 4 GiB" in result.stderr
