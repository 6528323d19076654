"""GPU perft and batched legal move generation for chess, Shogi and Go.

Everything here is the compiled module `gpu_movegen._native`; this file only
re-exports it, so that the package can ship a typing stub for each of its
modules (`__init__.pyi`, `env.pyi`).
"""

from . import _native
from ._native import *  # noqa: F401,F403 (the compiled module's __all__)

__doc__ = _native.__doc__
__all__ = _native.__all__
__version__ = _native.__version__


def __getattr__(name):
    # Names outside __all__ (a test build's `_failpoint`) stay reachable.
    return getattr(_native, name)
