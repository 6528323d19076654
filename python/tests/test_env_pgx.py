"""The environments against pgx, step by step: seeded random games played in
both, their legal-action masks, rewards, terminal flags, colour to move and
observations equal at every step.

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

# Games compared in CI; GPU_MOVEGEN_PGX_GAMES raises it (the bar:
# 10,000 chess games, 2,000 of Go on each board).
GAMES = int(os.environ.get("GPU_MOVEGEN_PGX_GAMES", "128"))
BATCH = min(GAMES, 128)
GO_GAMES = {
    "go_9x9": int(os.environ.get("GPU_MOVEGEN_PGX_GO9_GAMES", "64")),
    "go_19x19": int(os.environ.get("GPU_MOVEGEN_PGX_GO19_GAMES", "16")),
}


def colour_order(rewards, player_of_colour):
    """Rewards indexed by colour (first mover, second) from rewards indexed by player."""
    rows = numpy.arange(len(rewards))
    return numpy.stack([rewards[rows, player_of_colour[:, 0]], rewards[rows, player_of_colour[:, 1]]], axis=1)


def play_side_by_side(env_id, games, batch, seed):
    """Plays `games` random games in batches of `batch` in pgx and in ours; returns the steps compared."""
    reference = pgx.make(env_id)
    init = jax.jit(jax.vmap(reference.init))
    step = jax.jit(jax.vmap(reference.step))
    rng = numpy.random.default_rng(seed)
    compared = 0
    for first in range(0, games, batch):
        size = min(batch, games - first)
        theirs = init(jax.random.split(jax.random.PRNGKey(seed + first), size))
        ours_env = gpu_movegen.env.make(env_id, batch_size=size, backend="cpu", seed=seed + first)
        ours = ours_env.state
        their_players = numpy.asarray(theirs._player_order)
        our_players = numpy.array([ours_env.players(game) for game in range(size)])
        for ply in range(10_000):
            where = f"{env_id}, games {first}..{first + size}, step {ply}"
            their_mask = numpy.asarray(theirs.legal_action_mask)
            numpy.testing.assert_array_equal(ours.legal_action_mask, their_mask, err_msg=f"{where}: legal_action_mask")
            numpy.testing.assert_array_equal(ours.terminated, numpy.asarray(theirs.terminated), err_msg=f"{where}: terminated")
            numpy.testing.assert_array_equal(ours.truncated, numpy.asarray(theirs.truncated), err_msg=f"{where}: truncated")
            numpy.testing.assert_array_equal(
                colour_order(ours.rewards, our_players),
                colour_order(numpy.asarray(theirs.rewards), their_players),
                err_msg=f"{where}: rewards by colour",
            )
            their_colour = numpy.argmax(their_players == numpy.asarray(theirs.current_player)[:, None], axis=1)
            our_colour = numpy.argmax(our_players == ours.current_player[:, None], axis=1)
            numpy.testing.assert_array_equal(our_colour, their_colour, err_msg=f"{where}: colour to move")
            numpy.testing.assert_array_equal(ours.observation, numpy.asarray(theirs.observation), err_msg=f"{where}: observation")
            compared += int((~ours.terminated).sum())
            if ours.terminated.all():
                break
            # A random legal action a game (any action once it is over).
            running = numpy.cumsum(their_mask, axis=1)
            chosen = (rng.random(size) * running[:, -1]).astype(numpy.int64)
            actions = numpy.argmax(running > chosen[:, None], axis=1).astype(numpy.int32)
            theirs = step(theirs, actions)
            ours = ours_env.step(actions)
        else:
            pytest.fail(f"{env_id}: games {first}..{first + size} did not end")
    return compared


def test_chess_equals_pgx_at_every_step():
    steps = play_side_by_side("chess", GAMES, BATCH, seed=20261205)
    # Random chess games last a few hundred steps; far fewer means the loop stopped early.
    assert steps > GAMES * 50


@pytest.mark.parametrize("env_id", ["go_9x9", "go_19x19"])
def test_go_equals_pgx_at_every_step(env_id):
    games = GO_GAMES[env_id]
    steps = play_side_by_side(env_id, games, min(games, 64), seed=20261206)
    assert steps > games * 20
