"""GPU failures injected at the runtime's fault points (a `failpoints` build of
the package, which scripts/test makes): each is a GpuError, never a count, and
the next call on a healthy device counts again."""

import pytest

import gpu_movegen

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

POINTS = ["gpu-device-request", "gpu-device-lost", "gpu-buffer-allocate", "gpu-map-read"]


@pytest.fixture(autouse=True)
def fresh_device_and_short_waits():
    """Each test opens its own device (the request point fires only then) and
    waits at most a few seconds for it, as the command line's tests give
    --gpu-timeout."""
    gpu_movegen.close()
    gpu_movegen.set_gpu_timeout(5)
    yield
    gpu_movegen.set_gpu_timeout(None)


def test_this_is_a_failpoints_build():
    assert hasattr(gpu_movegen, "_failpoint"), "run these tests against the failpoints build (scripts/test makes it)"


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("game", ["chess", "shogi", "go"])
def test_every_point_is_a_gpu_error_then_the_device_recovers(point, game):
    expected = {"chess": 197_281, "shogi": 719_731, "go": 511_920}[game]
    depth = 4 if game != "go" else 3
    # A fresh device for the request point: the package keeps one open otherwise.
    gpu_movegen._failpoint(point, "return")
    try:
        with pytest.raises(gpu_movegen.GpuError):
            gpu_movegen.perft(None, depth, game=game, backend="gpu", hash_mib=0)
    finally:
        gpu_movegen._failpoint(point, "")
    assert gpu_movegen.perft(None, depth, game=game, backend="gpu") == expected


@pytest.mark.parametrize("point", POINTS)
def test_the_generator_raises_gpu_errors(point):
    gpu_movegen._failpoint(point, "return")
    try:
        with pytest.raises(gpu_movegen.GpuError):
            gpu_movegen.Generator("chess", "gpu").count_moves([START_FEN] * 100)
    finally:
        gpu_movegen._failpoint(point, "")


def test_a_stalled_readback_is_a_gpu_error():
    gpu_movegen._failpoint("gpu-readback-stall", "return")
    try:
        with pytest.raises(gpu_movegen.GpuError):
            gpu_movegen.perft(None, 3, backend="gpu")
    finally:
        gpu_movegen._failpoint("gpu-readback-stall", "")


def test_auto_falls_back_to_the_cpu_when_the_gpu_cannot_be_opened():
    gpu_movegen._failpoint("gpu-device-request", "return")
    try:
        assert gpu_movegen.perft(START_FEN, 4, backend="auto") == 197_281
    finally:
        gpu_movegen._failpoint("gpu-device-request", "")


@pytest.mark.parametrize("env_id", ["chess", "shogi", "go_9x9"])
@pytest.mark.parametrize("point", ["gpu-map-read", "gpu-device-lost"])
def test_a_gpu_fault_in_an_environment_step_closes_it_with_no_partial_step(point, env_id):
    import numpy

    import gpu_movegen.env

    env = gpu_movegen.env.make(env_id, batch_size=4, backend="gpu", seed=2)
    state = env.step(numpy.argmax(env.state.legal_action_mask, axis=1))
    before = {name: getattr(state, name).copy() for name in ("observation", "legal_action_mask", "_step_count")}
    actions = numpy.argmax(state.legal_action_mask, axis=1)
    gpu_movegen._failpoint(point, "return")
    try:
        with pytest.raises(gpu_movegen.GpuError):
            env.step(actions)
    finally:
        gpu_movegen._failpoint(point, "")
    for name, values in before.items():
        numpy.testing.assert_array_equal(getattr(env.state, name), values, err_msg=name)
    # The environment is closed: it says so rather than step games it may have lost.
    with pytest.raises(gpu_movegen.GpuError, match="closed by an earlier GPU failure"):
        env.step(actions)
    # A new one opens a fresh device and plays.
    env = gpu_movegen.env.make(env_id, batch_size=4, backend="gpu", seed=2)
    assert (env.step(numpy.argmax(env.state.legal_action_mask, axis=1))._step_count == 1).all()
