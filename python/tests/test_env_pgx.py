"""The environments against pgx, step by step: seeded random games played in
both, their legal-action masks, rewards, terminal flags, colour to move and
observations equal at every step. In Shogi, two kinds of game are checked
on pgx's boards and then left out, each named: those we end by sennichite,
a rule pgx does not have (`Sennichite`), and those where pgx allows a pawn
drop that mates (`missed_pawn_drop_mate`).

pgx (Apache-2.0) is a test-only dependency: scripts/python-test installs it
with jax[cpu]. pgx draws which player takes white from its own random keys,
so rewards and the player to move are compared by colour.
"""

import os

import jax
import numpy
import pgx
import pytest

import gpu_movegen.env
from common import random_legal_actions

# Games compared in CI; GPU_MOVEGEN_PGX_GAMES and the others raise them
# (the bar: 10,000 chess games, 2,000 of Shogi and of Go on each board).
GAMES = int(os.environ.get("GPU_MOVEGEN_PGX_GAMES", "128"))
BATCH = min(GAMES, 128)
# Chess games on the GPU backend (lavapipe in CI).
GPU_GAMES = int(os.environ.get("GPU_MOVEGEN_PGX_GPU_GAMES", "64"))
SHOGI_GAMES = int(os.environ.get("GPU_MOVEGEN_PGX_SHOGI_GAMES", "32"))
# Shogi games on the GPU backend.
SHOGI_GPU_GAMES = int(os.environ.get("GPU_MOVEGEN_PGX_SHOGI_GPU_GAMES", "16"))
GO_GAMES = {
    "go_9x9": int(os.environ.get("GPU_MOVEGEN_PGX_GO9_GAMES", "64")),
    "go_19x19": int(os.environ.get("GPU_MOVEGEN_PGX_GO19_GAMES", "16")),
}


def colour_order(rewards, player_of_colour):
    """Rewards indexed by colour (first mover, second) from rewards indexed by player."""
    rows = numpy.arange(len(rewards))
    return numpy.stack([rewards[rows, player_of_colour[:, 0]], rewards[rows, player_of_colour[:, 1]]], axis=1)


class Sennichite:
    """Where we differ from pgx by design: pgx's Shogi has no repetition
    rule. Ours ends a game the fourth time a position arises (drawn, or
    lost by the side whose every move since it first arose gave check).
    This follows each game on pgx's own boards, so that a game we end that
    way is checked against them before it stops being compared."""

    def __init__(self, size):
        self.seen = [[] for _ in range(size)]
        self.checks = [[] for _ in range(size)]
        self.ended = {}

    def record(self, theirs):
        x = theirs._x
        board, hand, colour = numpy.asarray(x.board), numpy.asarray(x.hand), numpy.asarray(x.color)
        in_check = numpy.asarray(theirs.observation)[:, 0, 0, 118]
        for game in range(len(self.seen)):
            self.seen[game].append((board[game].tobytes(), hand[game].tobytes(), int(colour[game])))
            self.checks[game].append(bool(in_check[game]))

    def verdict(self, game):
        """pgx's boards' verdict on game `game` now: None if its position has
        not arisen four times, else the colour that loses (None for a draw)."""
        seen = self.seen[game]
        earlier = [index for index, key in enumerate(seen[:-1]) if key == seen[-1]]
        if len(earlier) < 3:
            return None
        last = len(seen) - 1
        # The move into position i was made by the colour not to move there.
        movers = {colour: [seen[i][2] != colour for i in range(earlier[0] + 1, last + 1)] for colour in (0, 1)}
        checked = self.checks[game][earlier[0] + 1 : last + 1]
        perpetual = [colour for colour in (0, 1) if all(c for c, m in zip(checked, movers[colour]) if m)]
        return ("perpetual check", perpetual[0]) if len(perpetual) == 1 else ("draw", None)


def missed_pawn_drop_mate(step, theirs, our_mask, their_mask, game):
    """Where pgx is wrong: it misses some pawn drops that mate (uchifuzume,
    which the rules forbid), seemingly when the king stands on an edge of
    the board, where an off-board neighbour's index (-1) wraps round to the
    far corner. If the masks of `game` differ only by such a drop, it
    returns the action, after checking on pgx's own board that the drop
    mates: pgx, given it, finds no legal move for the other side."""
    extra = numpy.flatnonzero(their_mask[game] & ~our_mask[game])
    if numpy.flatnonzero(our_mask[game] & ~their_mask[game]).size or extra.size != 1 or extra[0] // 81 != 20:
        return None
    actions = numpy.argmax(their_mask, axis=1).astype(numpy.int32)
    actions[game] = extra[0]
    after = step(theirs, actions)
    mover = numpy.asarray(theirs.current_player)[game]
    mated = bool(numpy.asarray(after.terminated)[game]) and numpy.asarray(after.rewards)[game, mover] == 1.0
    return int(extra[0]) if mated else None


def random_actions(ply, mask, rng):
    """A random legal action a game (any action once it is over)."""
    return random_legal_actions(mask, rng)


def play_side_by_side(env_id, games, batch, seed, choose=random_actions, backend="cpu"):
    """Plays `games` games in batches of `batch` in pgx and in ours (on
    `backend`), each step's actions chosen by `choose(ply, pgx's mask,
    rng)`; returns the steps compared and the games ended by sennichite."""
    reference = pgx.make(env_id)
    init = jax.jit(jax.vmap(reference.init))
    step = jax.jit(jax.vmap(reference.step))
    rng = numpy.random.default_rng(seed)
    compared = 0
    repeated = []
    for first in range(0, games, batch):
        size = min(batch, games - first)
        theirs = init(jax.random.split(jax.random.PRNGKey(seed + first), size))
        ours_env = gpu_movegen.env.make(env_id, batch_size=size, backend=backend, seed=seed + first)
        ours = ours_env.state
        their_players = numpy.asarray(theirs._player_order)
        our_players = numpy.array([ours_env.players(game) for game in range(size)])
        sennichite = Sennichite(size) if env_id == "shogi" else None
        alike = numpy.ones(size, dtype=bool)
        for ply in range(10_000):
            where = f"{env_id}, games {first}..{first + size}, step {ply}"
            if sennichite:
                sennichite.record(theirs)
                for game in numpy.flatnonzero(alike & ours.terminated & ~numpy.asarray(theirs.terminated)):
                    verdict = sennichite.verdict(game)
                    assert verdict is not None, f"{where}, game {game}: ended here, not in pgx, and not by repetition"
                    kind, loser = verdict
                    by_colour = colour_order(ours.rewards, our_players)[game]
                    expected = [0.0, 0.0] if loser is None else [-1.0 if colour == loser else 1.0 for colour in (0, 1)]
                    assert by_colour.tolist() == expected, f"{where}, game {game}: {kind}, rewards {by_colour}"
                    repeated.append((first + game, ply, kind))
                    alike[game] = False
            their_mask = numpy.asarray(theirs.legal_action_mask)
            if sennichite:
                for game in numpy.flatnonzero(alike & (ours.legal_action_mask != their_mask).any(axis=1)):
                    drop = missed_pawn_drop_mate(step, theirs, ours.legal_action_mask, their_mask, game)
                    assert drop is not None, f"{where}, game {game}: legal_action_mask differs"
                    repeated.append((first + game, ply, f"pgx allows the pawn drop {drop}, a mate"))
                    alike[game] = False
            rows = numpy.flatnonzero(alike)
            compare = lambda name, mine, other: numpy.testing.assert_array_equal(
                mine[rows], other[rows], err_msg=f"{where}: {name}"
            )
            compare("legal_action_mask", ours.legal_action_mask, their_mask)
            compare("terminated", ours.terminated, numpy.asarray(theirs.terminated))
            compare("truncated", ours.truncated, numpy.asarray(theirs.truncated))
            compare(
                "rewards by colour",
                colour_order(ours.rewards, our_players),
                colour_order(numpy.asarray(theirs.rewards), their_players),
            )
            their_colour = numpy.argmax(their_players == numpy.asarray(theirs.current_player)[:, None], axis=1)
            our_colour = numpy.argmax(our_players == ours.current_player[:, None], axis=1)
            compare("colour to move", our_colour, their_colour)
            compare("observation", ours.observation, numpy.asarray(theirs.observation))
            compared += int((~ours.terminated[rows]).sum())
            if (ours.terminated | ~alike).all():
                break
            actions = choose(ply, their_mask, rng)
            theirs = step(theirs, actions)
            ours = ours_env.step(actions)
        else:
            pytest.fail(f"{env_id}: games {first}..{first + size} did not end")
    return compared, repeated


def test_chess_equals_pgx_at_every_step():
    steps, _ = play_side_by_side("chess", GAMES, BATCH, seed=20261205)
    # Random chess games last a few hundred steps; far fewer means the loop stopped early.
    assert steps > GAMES * 50


def test_go_9x9_on_the_gpu_equals_pgx_at_every_step():
    steps, _ = play_side_by_side("go_9x9", GPU_GAMES // 2, GPU_GAMES // 2, seed=20261207, backend="gpu")
    assert steps > GPU_GAMES // 2 * 20


def test_chess_on_the_gpu_equals_pgx_at_every_step():
    steps, _ = play_side_by_side("chess", GPU_GAMES, min(GPU_GAMES, 128), seed=20261207, backend="gpu")
    assert steps > GPU_GAMES * 50


@pytest.mark.parametrize("env_id", ["go_9x9", "go_19x19"])
def test_go_equals_pgx_at_every_step(env_id):
    games = GO_GAMES[env_id]
    steps, _ = play_side_by_side(env_id, games, min(games, 64), seed=20261206)
    assert steps > games * 20


def test_shogi_equals_pgx_at_every_step_but_for_sennichite():
    steps, repeated = play_side_by_side("shogi", SHOGI_GAMES, min(SHOGI_GAMES, 64), seed=20261207)
    # Random Shogi games mostly run to the 512-step limit.
    assert steps > SHOGI_GAMES * 200
    # Each game left out was checked on pgx's boards; name them.
    for game, ply, kind in repeated:
        print(f"shogi game {game}, step {ply}: {kind}")


def test_shogi_on_the_gpu_equals_pgx_at_every_step_but_for_sennichite():
    steps, repeated = play_side_by_side(
        "shogi", SHOGI_GPU_GAMES, min(SHOGI_GPU_GAMES, 64), seed=20261208, backend="gpu"
    )
    assert steps > SHOGI_GPU_GAMES * 200
    for game, ply, kind in repeated:
        print(f"shogi game {game} on the gpu, step {ply}: {kind}")


def test_shogi_sennichite_is_checked_on_pgx_s_boards():
    # Both kings step aside and back three times (pgx's actions: 5i4h, 5a4b,
    # 4h5i, 4b5a in each side's frame), then random play: the start arises a
    # fourth time at step 12, where ours ends drawn and pgx plays on.
    shuffle = [196, 133, 530, 611]

    def kings_shuffle(ply, mask, rng):
        if ply < 12:
            return numpy.full(len(mask), shuffle[ply % 4], dtype=numpy.int32)
        return random_actions(ply, mask, rng)

    _, repeated = play_side_by_side("shogi", 4, 4, seed=5, choose=kings_shuffle)
    assert repeated == [(game, 12, "draw") for game in range(4)]
