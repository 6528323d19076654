"""gpu_movegen.env on its own: shapes and dtypes as pgx has them, arrays
reused from step to step, DLPack, seeded resets, clear errors that
leave every game as it was, and Ctrl-C that loses no step. test_env_pgx.py plays it against pgx."""

import signal
import threading
import time

import numpy
import pytest

import gpu_movegen.env
from common import random_legal_actions


FIELDS = ("current_player", "observation", "rewards", "terminated", "truncated", "legal_action_mask", "_step_count")


def first_legal(state):
    return numpy.argmax(state.legal_action_mask, axis=1).astype(numpy.int32)


def test_the_state_has_pgx_s_fields_shapes_and_dtypes():
    env = gpu_movegen.env.make("chess", batch_size=3)
    state = env.reset(1)
    assert (env.id, env.batch_size, env.num_actions, env.observation_shape, env.num_players) == (
        "chess",
        3,
        4672,
        (8, 8, 119),
        2,
    )
    expected = {
        "current_player": ((3,), numpy.int32),
        "observation": ((3, 8, 8, 119), numpy.float32),
        "rewards": ((3, 2), numpy.float32),
        "terminated": ((3,), numpy.bool_),
        "truncated": ((3,), numpy.bool_),
        "legal_action_mask": ((3, 4672), numpy.bool_),
    }
    for name, (shape, dtype) in expected.items():
        array = getattr(state, name)
        assert isinstance(array, numpy.ndarray), name
        assert (array.shape, array.dtype) == (shape, dtype), name
    assert (state.legal_action_mask.sum(axis=1) == 20).all()
    assert not state.terminated.any()


def test_shogi_has_pgx_s_shapes_and_a_boolean_observation():
    env = gpu_movegen.env.make("shogi", batch_size=2, seed=3)
    state = env.state
    assert (env.id, env.num_actions, env.observation_shape) == ("shogi", 2187, (9, 9, 119))
    assert state.observation.shape == (2, 9, 9, 119) and state.observation.dtype == numpy.bool_
    assert (state.legal_action_mask.sum(axis=1) == 30).all()
    # The mover's pawns on its third rank from the bottom (row 6), the opponent's on row 2.
    assert state.observation[:, 6, :, 0].all() and state.observation[:, 2, :, 31].all()
    assert not state.observation[..., 62:].any(), "empty hands, no check"
    state = env.step(first_legal(state))
    assert state._step_count.tolist() == [1, 1] and not state.terminated.any()


@pytest.mark.parametrize(("env_id", "size"), [("go_9x9", 9), ("go_19x19", 19)])
def test_go_has_pgx_s_shapes_and_a_boolean_observation(env_id, size):
    env = gpu_movegen.env.make(env_id, batch_size=2)
    state = env.state
    assert (env.num_actions, env.observation_shape) == (size * size + 1, (size, size, 17))
    assert state.observation.shape == (2, size, size, 17) and state.observation.dtype == numpy.bool_
    assert state.legal_action_mask.shape == (2, size * size + 1) and state.legal_action_mask.all()
    # Two passes end the empty board's game, white ahead by komi.
    env.step([size * size, size * size])
    state = env.step(numpy.full(2, size * size, dtype=numpy.int64))
    assert state.terminated.all()
    for game in range(2):
        black, white = env.players(game)
        assert (state.rewards[game, black], state.rewards[game, white]) == (-1.0, 1.0)
    with pytest.raises(ValueError, match=f"action {size * size + 1} is outside 0..{size * size + 1}"):
        env.step([size * size + 1, 0])


def test_arrays_are_reused_and_rewritten_by_each_step():
    env = gpu_movegen.env.make("chess", batch_size=2)
    state = env.reset(0)
    mask, observation = state.legal_action_mask, state.observation
    before = observation.copy()
    after = env.step(first_legal(state))
    assert after.legal_action_mask is mask and after.observation is observation
    assert not numpy.array_equal(before, observation)
    assert env.state.observation is observation


def test_arrays_go_to_other_frameworks_through_dlpack():
    env = gpu_movegen.env.make("chess", batch_size=2)
    state = env.reset(0)
    shared = numpy.from_dlpack(state.observation)
    assert shared.shape == (2, 8, 8, 119)
    env.step(first_legal(state))
    # No copy: the consumer sees the next step's values.
    numpy.testing.assert_array_equal(shared, state.observation)


def test_the_same_seed_gives_the_same_games():
    def players(seed):
        env = gpu_movegen.env.make("chess", batch_size=32, seed=seed)
        return [env.players(game) for game in range(32)], env.state.current_player.copy()

    assert players(5)[0] == players(5)[0]
    assert players(5)[0] != players(6)[0]
    env = gpu_movegen.env.make("chess", batch_size=32, seed=5)
    env.step(first_legal(env.state))
    env.reset(5)
    numpy.testing.assert_array_equal(env.state.current_player, players(5)[1])
    assert not env.state._step_count.any()


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (numpy.zeros(3, dtype=numpy.int32), r"actions: expected shape \(2,\)"),
        (numpy.zeros((2, 1), dtype=numpy.int32), r"actions: expected shape \(2,\)"),
        (numpy.zeros(2, dtype=numpy.float32), "actions: expected integers, not dtype float32"),
        (numpy.array([True, False]), "actions: expected integers, not dtype bool"),
        (numpy.array([0, 4672]), r"actions: game 1: action 4672 is outside 0\.\.4672"),
        ([-1, 0], r"actions: game 0: action -1 is outside 0\.\.4672"),
        (["a", "b"], "actions: expected integers"),
    ],
)
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_bad_actions_raise_value_error_and_change_no_game(actions, message, backend):
    env = gpu_movegen.env.make("chess", batch_size=2, backend=backend)
    state = env.reset(3)
    before = {name: getattr(state, name).copy() for name in ["observation", "legal_action_mask", "current_player"]}
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    for name, values in before.items():
        numpy.testing.assert_array_equal(getattr(env.state, name), values, err_msg=name)
    # The games play on from where they were.
    env.step(first_legal(env.state))
    assert (env.state._step_count == 1).all()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"env_id": "checkers", "batch_size": 1},
            'env_id: expected one of chess, shogi, go_9x9, go_19x19, atomic, kingofthehill, 3check, horde, racingkings, not "checkers"',
        ),
        ({"env_id": "horde", "batch_size": 1, "backend": "gpu"}, "backend: the gpu backend steps chess, shogi, go_9x9, go_19x19"),
        ({"env_id": "chess", "batch_size": 0}, "batch_size: expected 1 to 65536, not 0"),
        ({"env_id": "chess", "batch_size": 1 << 30}, "batch_size: expected 1 to 65536"),
        ({"env_id": "chess", "batch_size": 1, "backend": "tpu"}, "backend: expected 'auto', 'gpu' or 'cpu'"),
        ({"env_id": "shogi", "batch_size": 9000, "backend": "gpu"}, "batch_size: the gpu backend holds 1 to 8192 shogi"),
        ({"env_id": "chess", "batch_size": 40_000, "backend": "gpu"}, "batch_size: the gpu backend holds 1 to 32768 chess"),
        ({"env_id": "go_19x19", "batch_size": 9000, "backend": "gpu"}, "batch_size: the gpu backend holds 1 to 8192 go"),
    ],
)
def test_bad_arguments_raise_value_error(arguments, message):
    with pytest.raises(ValueError, match=message):
        gpu_movegen.env.make(**arguments)


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_an_illegal_action_loses_as_in_pgx(backend):
    env = gpu_movegen.env.make("chess", batch_size=2, seed=4, backend=backend)
    state = env.state
    mover = int(state.current_player[0])
    actions = first_legal(state)
    actions[0] = 0  # never legal at the start
    state = env.step(actions)
    assert state.terminated.tolist() == [True, False]
    assert state.rewards[0, mover] == -1.0 and state.rewards[0, 1 - mover] == 1.0
    assert state.legal_action_mask[0].all()


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_auto_reset_starts_new_games(backend):
    env = gpu_movegen.env.make("chess", batch_size=1, seed=3, auto_reset=True, backend=backend)
    # Fool's mate: f3, e5, g4, Qh4#.
    for uci in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        state = env.step([uci_action(env, uci)])
    assert state.terminated[0] and abs(state.rewards[0]).sum() == 2.0
    assert state.legal_action_mask[0].sum() == 20 and state._step_count[0] == 0


def uci_action(env, uci):
    """pgx's action for a UCI move of the side to move (white's frame, or black's mirrored)."""
    files, ranks = "abcdefgh", "12345678"
    black = env.state.observation[0, 0, 0, 112] == 1.0
    squares = []
    for text in (uci[:2], uci[2:4]):
        rank = ranks.index(text[1])
        squares.append(files.index(text[0]) * 8 + (7 - rank if black else rank))
    source, target = squares
    steps = {}
    for index in range(7):
        near, far = index + 1, index - 7
        for offset, step in enumerate(
            [(far, 0), (near, 0), (0, far), (0, near), (far, far), (near, near), (-far, far), (-near, near)]
        ):
            steps[step] = 9 + offset * 7 + index
    step = (target % 8 - source % 8, target // 8 - source // 8)
    return source * 73 + steps[step]


def test_saved_games_come_back_whole_in_any_game_of_the_batch():
    env = gpu_movegen.env.make("chess", batch_size=3, seed=4)
    state = env.reset(4)
    for _ in range(3):
        state = env.step(first_legal(state))
    snapshots = env.snapshots(8)
    assert (len(snapshots), snapshots.id) == (8, "chess")
    env.save(snapshots, [5, -1, 0])
    saved = {name: getattr(state, name).copy() for name in FIELDS}
    for _ in range(2):
        state = env.step(first_legal(state))
    assert not numpy.array_equal(state.observation[0], saved["observation"][2])
    # Game 0 takes game 2's saved game (slot 0), game 1 stays, game 2 takes game 0's (slot 5).
    moved_on = {name: getattr(state, name)[1].copy() for name in FIELDS}
    returned = env.load(snapshots, numpy.array([0, -1, 5]))
    assert returned is env.state
    for name in FIELDS:
        numpy.testing.assert_array_equal(getattr(state, name)[0], saved[name][2], err_msg=name)
        numpy.testing.assert_array_equal(getattr(state, name)[1], moved_on[name], err_msg=name)
        numpy.testing.assert_array_equal(getattr(state, name)[2], saved[name][0], err_msg=name)
    assert env.players(0) == gpu_movegen.env.make("chess", batch_size=3, seed=4).players(2)


def test_bad_slots_are_refused_before_any_game_changes():
    env = gpu_movegen.env.make("go_9x9", batch_size=2)
    snapshots = env.snapshots(4)
    env.save(snapshots, [1, -1])
    state = env.step([0, 1])
    before = {name: getattr(state, name).copy() for name in FIELDS}
    with pytest.raises(ValueError, match="slot 2 holds no saved game"):
        env.load(snapshots, [1, 2])
    with pytest.raises(ValueError, match="slot 4 is outside 0..4"):
        env.load(snapshots, [4, -1])
    with pytest.raises(ValueError, match="games 0 and 1 both name slot 3"):
        env.save(snapshots, [3, 3])
    with pytest.raises(ValueError, match=r"slots: expected shape \(2,\)"):
        env.load(snapshots, [1])
    with pytest.raises(ValueError, match="expected integers"):
        env.load(snapshots, [1.0, 1.0])
    with pytest.raises(ValueError, match='they hold "chess" games, not "go_9x9"'):
        env.load(gpu_movegen.env.make("chess", batch_size=2).snapshots(4), [0, 0])
    with pytest.raises(ValueError, match="capacity: expected 1 to"):
        env.snapshots(0)
    for name in FIELDS:
        numpy.testing.assert_array_equal(getattr(env.state, name), before[name], err_msg=name)
    # The empty slot raised; game 0's own saved game still loads.
    state = env.load(snapshots, [1, -1])
    assert state._step_count.tolist() == [0, 1]


def test_ctrl_c_in_a_long_run_of_steps_leaves_every_game_whole():
    # The step runs with the GIL released, so the interrupt lands once it
    # returns: the environment holds every step it was given but perhaps
    # the one whose call it cut short, and plays on.
    env = gpu_movegen.env.make("go_19x19", batch_size=2048, seed=3)
    rng = numpy.random.default_rng(3)
    given = []
    timer = threading.Timer(0.5, lambda: signal.raise_signal(signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        while time.monotonic() - started < 60:
            given.append(random_legal_actions(env.state.legal_action_mask, rng))
            env.step(given[-1])
    timer.join()
    steps = int(env.state._step_count.max())
    assert steps >= 1 and steps in (len(given) - 1, len(given)), (steps, len(given))
    replay = gpu_movegen.env.make("go_19x19", batch_size=2048, seed=3)
    for actions in given[:steps]:
        replay.step(actions)
    for field in FIELDS:
        numpy.testing.assert_array_equal(getattr(env.state, field), getattr(replay.state, field), err_msg=field)
    actions = random_legal_actions(env.state.legal_action_mask, rng)
    numpy.testing.assert_array_equal(env.step(actions).observation, replay.step(actions).observation)


def test_the_gpu_backend_equals_the_cpu_backend_at_every_step():
    """Chess on both backends, the same seed and actions (some outside the
    mask), with auto-reset, every array equal at every step, past the
    512-step limit so that games end and begin again."""
    size = 32
    rng = numpy.random.default_rng(20261207)
    environments = [
        gpu_movegen.env.make("chess", batch_size=size, seed=9, auto_reset=True, backend=backend)
        for backend in ("cpu", "gpu")
    ]
    assert [env.backend for env in environments] == ["cpu", "gpu"]
    assert repr(environments[1]) == "gpu_movegen.env.Env('chess', batch_size=32, backend='gpu')"
    cpu, gpu = (env.state for env in environments)
    ended = 0
    for step in range(560):
        for name in FIELDS:
            numpy.testing.assert_array_equal(getattr(gpu, name), getattr(cpu, name), err_msg=f"step {step}: {name}")
        for game in range(size):
            assert environments[0].players(game) == environments[1].players(game)
        actions = random_legal_actions(cpu.legal_action_mask, rng)
        actions[rng.random(size) < 0.004] = 7  # mostly outside the mask
        cpu, gpu = (env.step(actions) for env in environments)
        ended += int(cpu.terminated.sum())
    assert ended > size
    cpu, gpu = (env.reset(31) for env in environments)
    for name in FIELDS:
        numpy.testing.assert_array_equal(getattr(gpu, name), getattr(cpu, name), err_msg=f"after the reset: {name}")


def test_gpu_snapshots_come_back_as_the_cpu_s_do():
    """Games saved on both backends at the same steps and loaded into other
    games of the batch: every array equal after each load and each step."""
    size = 16
    rng = numpy.random.default_rng(7)
    environments = [gpu_movegen.env.make("chess", batch_size=size, seed=5, backend=b) for b in ("cpu", "gpu")]
    slots = [env.snapshots(64) for env in environments]
    saved = 0
    for round in range(4):
        for step in range(40):
            actions = random_legal_actions(environments[0].state.legal_action_mask, rng)
            states = [env.step(actions) for env in environments]
            if step % 13 == 3:
                chosen = numpy.full(size, -1)
                for game in numpy.flatnonzero(rng.random(size) < 0.5):
                    if saved < 64:
                        chosen[game] = saved
                        saved += 1
                for env, slot in zip(environments, slots):
                    env.save(slot, chosen)
        picks = numpy.where(rng.random(size) < 0.5, rng.integers(0, saved, size), -1)
        states = [env.load(slot, picks) for env, slot in zip(environments, slots)]
        for name in FIELDS:
            numpy.testing.assert_array_equal(getattr(states[1], name), getattr(states[0], name), err_msg=f"{round}: {name}")
    with pytest.raises(ValueError, match="snapshots: they hold games of the cpu backend, not the gpu backend"):
        environments[1].save(slots[0], numpy.full(size, -1))
    empty = numpy.full(size, -1)
    empty[3] = 2
    with pytest.raises(ValueError, match="slots: slot 2 holds no saved game"):
        environments[1].load(environments[1].snapshots(4), empty)
    assert saved > 32


def unique_slots(picks):
    """`picks` with every slot after its first use replaced by -1: a slot
    may go back into one game only."""
    seen, slots = set(), picks.copy()
    for game, slot in enumerate(slots):
        if slot >= 0 and slot in seen:
            slots[game] = -1
        seen.add(int(slot))
    return slots


@pytest.mark.parametrize("env_id", ["go_9x9", "go_19x19"])
def test_go_on_the_gpu_backend_equals_the_cpu_backend_at_every_step(env_id):
    size = 16
    rng = numpy.random.default_rng(5)
    environments = [
        gpu_movegen.env.make(env_id, batch_size=size, seed=3, auto_reset=True, backend=backend)
        for backend in ("cpu", "gpu")
    ]
    states = [env.state for env in environments]
    passes = 0
    for step in range(160 if env_id == "go_9x9" else 60):
        for name in FIELDS:
            numpy.testing.assert_array_equal(getattr(states[1], name), getattr(states[0], name), err_msg=f"{step}: {name}")
        actions = random_legal_actions(states[0].legal_action_mask, rng)
        passing = rng.random(size) < 0.05
        actions[passing] = environments[0].num_actions - 1
        passes += int(passing.sum())
        states = [env.step(actions) for env in environments]
        if step % 20 == 7:
            # Half the games saved, then put back in other games.
            slots = [env.snapshots(size) for env in environments]
            chosen = numpy.where(rng.random(size) < 0.5, numpy.arange(size), -1)
            for env, slot in zip(environments, slots):
                env.save(slot, chosen)
            saved = numpy.flatnonzero(chosen >= 0)
            picks = numpy.where(rng.random(size) < 0.5, rng.choice(saved, size), -1)
            states = [env.load(slot, unique_slots(picks)) for env, slot in zip(environments, slots)]
    assert passes > 0
