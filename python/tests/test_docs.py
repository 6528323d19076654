"""The guide's examples (docs/python.md), run as written, and the benchmark program at a small size."""

import pathlib
import re
import subprocess
import sys

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
    assert "ours" in result.stdout and "pgx" in result.stdout and "ratio" in result.stdout
