"""Fixtures of the package's tests."""

import pytest


@pytest.fixture(scope="session")
def generators():
    """One generator per (game, backend), opened once for the session."""
    import gpu_movegen

    opened = {}

    def get(game, backend, **options):
        key = (game, backend, tuple(sorted(options.items())))
        if key not in opened:
            opened[key] = gpu_movegen.Generator(game, backend, **options)
        return opened[key]

    return get
