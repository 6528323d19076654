"""Batched game environments with pgx's state: chess, Shogi and Go stepped
a batch at a time, their arrays numpy's with a leading batch axis.

docs/python.md ("Environments") is the guide; code written for pgx's
`jax.vmap(env.step)` runs with `make`'s batch in its place.
"""

from typing import Literal, Union, final

import numpy
import numpy.typing

__all__ = ["Env", "Snapshots", "State", "make"]

# pgx's ids of the games `make` knows (a name for type checkers only).
_EnvId = Literal["chess", "shogi", "go_9x9", "go_19x19", "atomic", "kingofthehill", "3check", "horde", "racingkings"]

@final
class State:
    """pgx's arrays, owned by Python and rewritten in place by every
    `reset`, `step` and `load` (copy one to keep it)."""

    @property
    def current_player(self) -> numpy.typing.NDArray[numpy.int32]:
        """The player (0 or 1) to move in each game: (batch,)."""
    @property
    def observation(self) -> Union[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.bool_]]:
        """Each game's observation for the player to move:
        (batch, *observation_shape), float32 for chess, bool for Shogi and Go."""
    @property
    def rewards(self) -> numpy.typing.NDArray[numpy.float32]:
        """Each player's reward for the last step: (batch, 2)."""
    @property
    def terminated(self) -> numpy.typing.NDArray[numpy.bool_]:
        """Whether each game is over: (batch,)."""
    @property
    def truncated(self) -> numpy.typing.NDArray[numpy.bool_]:
        """Whether each game was cut short (always false, as in pgx): (batch,)."""
    @property
    def legal_action_mask(self) -> numpy.typing.NDArray[numpy.bool_]:
        """The legal actions of each game, all true once it is over:
        (batch, num_actions)."""
    @property
    def _step_count(self) -> numpy.typing.NDArray[numpy.int32]:
        """Steps taken in each game since its start: (batch,)."""

@final
class Snapshots:
    """Saved games of one environment's game, each in a numbered slot: the
    states of a tree search's nodes. `Env.save` fills slots, `Env.load` puts
    them back in any game of a batch of the same game."""

    @property
    def id(self) -> _EnvId:
        """pgx's id of the game the slots hold."""
    def __len__(self) -> int: ...

@final
class Env:
    """A batch of games stepped together, as pgx's `jax.vmap(env.step)`
    steps them."""

    def reset(self, seed: int = 0) -> State:
        """Every game back to its start; the players' colours are drawn from
        `seed` (the same seed, the same games)."""
    def step(self, actions: numpy.typing.ArrayLike) -> State:
        """Plays `actions[i]` in game `i` (a game already over stays as it
        is). Wrong shapes, dtypes and actions outside `0..num_actions` raise
        ValueError before any game changes. On the gpu backend a GPU failure
        raises GpuError with no array changed, and closes the environment:
        later calls raise GpuError too."""
    def snapshots(self, capacity: int) -> Snapshots:
        """Room for `capacity` saved games of this environment's game."""
    def save(self, snapshots: Snapshots, slots: numpy.typing.ArrayLike) -> None:
        """Saves game `i` into slot `slots[i]` of `snapshots` (-1: not saved)."""
    def load(self, snapshots: Snapshots, slots: numpy.typing.ArrayLike) -> State:
        """Puts the game saved in slot `slots[i]` in place of game `i` (-1:
        game `i` stays as it is). A slot never saved into raises ValueError
        before any game changes."""
    @property
    def state(self) -> State:
        """The state the last `reset`, `step` or `load` returned."""
    @property
    def id(self) -> _EnvId:
        """pgx's id of the environment."""
    @property
    def backend(self) -> Literal["cpu", "gpu"]:
        """Where the games are kept."""
    @property
    def batch_size(self) -> int:
        """Games in the batch."""
    @property
    def num_actions(self) -> int:
        """Size of the action space."""
    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """The shape of one observation."""
    @property
    def num_players(self) -> int:
        """Players a game: 2."""
    def players(self, game: int) -> tuple[int, int]:
        """Which player (0 or 1) plays each colour in game `game`:
        (first, second)."""

def make(
    env_id: _EnvId,
    *,
    batch_size: int,
    backend: Literal["auto", "cpu", "gpu"] = "auto",
    seed: int = 0,
    auto_reset: bool = False,
) -> Env:
    """A batch of `batch_size` games of `env_id` (pgx's ids, and five chess
    variants by their UCI names) at their start, the players' colours drawn
    from `seed`. `backend` is where the games run: "cpu" (every core);
    "gpu", for chess, Shogi and Go, keeps the games on the GPU (GpuError
    when none opens or its self-test fails; ValueError for the variants,
    which step on the CPU only); "auto" is the CPU, the faster of the two
    wherever it has been measured. `auto_reset` replaces a game that ends
    by a new one at once, as pgx's wrapper does."""
