"""GPU perft and batched legal move generation for chess, Shogi and Go.

`perft` counts a position's leaves to a depth on the GPU or the CPU;
`Generator` opens a device once and generates the legal moves of batches of
positions; `info` says what the machine offers. docs/python.md is the guide.
"""

from typing import Callable, Literal, Optional, Sequence, TypedDict, Union, final, overload

import numpy
import numpy.typing

__version__: str
__all__ = ["Generator", "GpuError", "MismatchError", "__version__", "close", "env", "info", "perft", "set_gpu_timeout"]

# Batched game environments with pgx's state (docs/python.md, "Environments").
from . import env as env

# Names for type checkers only (not in the compiled module).
_Game = Literal["chess", "shogi", "go"]
_Backend = Literal["auto", "gpu", "cpu"]

class GpuError(RuntimeError):
    """A GPU or driver failure: no adapter, a refused driver, a failed
    self-test, a lost device, out of memory or a stall. No count comes with it."""

class MismatchError(GpuError):
    """The GPU's count differed from the CPU's on a subtree the cross-check
    recounted: the GPU's total is not returned."""

class _Info(TypedDict):
    version: str
    adapters: list[str]
    adapter: Optional[str]
    software: Optional[bool]
    shaders: Optional[str]
    shader_int64: Optional[bool]
    device_memory: Optional[int]
    self_test: Optional[str]
    backend: Literal["gpu", "cpu"]
    reason: str
    error: Optional[str]

@overload
def perft(
    position: Optional[str],
    depth: int,
    *,
    game: _Game = "chess",
    backend: _Backend = "auto",
    divide: Literal[False] = False,
    hash_mib: Optional[int] = None,
    chess960: bool = False,
    variant: Optional[str] = None,
    size: int = 9,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int], object]] = None,
) -> int: ...
@overload
def perft(
    position: Optional[str],
    depth: int,
    *,
    game: _Game = "chess",
    backend: _Backend = "auto",
    divide: Literal[True],
    hash_mib: Optional[int] = None,
    chess960: bool = False,
    variant: Optional[str] = None,
    size: int = 9,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int], object]] = None,
) -> dict[str, int]: ...
@overload
def perft(
    position: Optional[str],
    depth: int,
    *,
    game: _Game = "chess",
    backend: _Backend = "auto",
    divide: bool = False,
    hash_mib: Optional[int] = None,
    chess960: bool = False,
    variant: Optional[str] = None,
    size: int = 9,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int], object]] = None,
) -> Union[int, dict[str, int]]:
    """Counts the leaves of `position`'s game tree `depth` plies deep.

    `position` is a FEN (chess and its variants), an SFEN (Shogi) or Go
    moves from the empty board such as "B E5 W D4 B pass"; None is the start
    (the empty board of `size` for Go). Returns an int, exact past 2**64, or
    with `divide` a dict from each root move (UCI, USI or GTP vertex) to its
    count. `progress` is called with the nodes counted so far, and with the
    total at the end.

    Raises ValueError for bad input, GpuError when the GPU fails,
    MismatchError when a deep GPU chess count fails the cross-check, and
    KeyboardInterrupt on Ctrl-C (the count stops; the device stays usable).
    """

def info() -> _Info:
    """The adapters, the one a GPU call opens, its self-test verdict, and
    where backend="auto" counts and why."""

def set_gpu_timeout(seconds: Optional[float]) -> None:
    """How long a GPU call waits for the device before a GpuError (a stall);
    None restores the default (60 s, or 600 s on a software adapter)."""

def close() -> None:
    """Releases the shared GPU device; the next GPU call opens it again."""

@final
class Generator:
    """Legal moves of batches of positions, on a device opened once.

    Opening builds the game's kernels and runs the self-test (seconds the
    first time on a driver); each call sends a whole batch in one dispatch.
    """

    def __new__(
        cls,
        game: _Game = "chess",
        backend: _Backend = "gpu",
        *,
        size: int = 9,
        threads: Optional[int] = None,
    ) -> "Generator": ...
    @property
    def backend(self) -> Literal["gpu", "cpu"]:
        """Where the moves are generated."""
    @property
    def adapter(self) -> Optional[str]:
        """The GPU adapter, or None on the CPU."""
    @property
    def game(self) -> _Game:
        """The game this generator serves."""
    def legal_moves(self, positions: Sequence[str], *, chess960: bool = False) -> list[list[str]]:
        """The legal moves of each position: UCI, USI or GTP vertices."""
    def count_moves(self, positions: Sequence[str]) -> numpy.typing.NDArray[numpy.uint32]:
        """The number of legal moves of each position."""
    def playouts(
        self,
        positions: Sequence[str],
        per_position: int = 64,
        *,
        seed: int = 0,
        komi: float = 7.5,
    ) -> numpy.typing.NDArray[numpy.float64]:
        """Go only: black's win rate over `per_position` random playouts from
        each position (a draw counts half)."""
