"""Steps per second of gpu_movegen.env against pgx, in one run, with random legal actions.

    python python/benchmarks/env_steps.py --batch 256 1024 --steps 64

For each batch size, ours on the CPU backend, ours on the GPU backend (chess
and Go: "ours-gpu") and pgx start from a reset and take the same
number of batched steps; only the step calls are timed (the random actions
are drawn outside the clock, the same way for both). A game that ends keeps
being stepped as pgx steps it, with zero rewards, so a batch's cost stays
that of its size. pgx runs on whatever jax finds (jax[cpu] here); its step is
compiled before the clock starts. Peak memory is the process's high-water
mark after each environment's run (ru_maxrss), so run one library per
process (--only) to read it for each alone.
"""

import argparse
import resource
import time

import numpy


def random_actions(rng, mask):
    running = numpy.cumsum(mask, axis=1)
    chosen = (rng.random(len(mask)) * running[:, -1]).astype(numpy.int64)
    return numpy.argmax(running > chosen[:, None], axis=1).astype(numpy.int32)


def ours(env_id, batch, steps, seed, backend="cpu"):
    import gpu_movegen.env

    env = gpu_movegen.env.make(env_id, batch_size=batch, backend=backend, seed=seed)
    state = env.reset(seed)
    rng = numpy.random.default_rng(seed)
    spent = 0.0
    for _ in range(steps):
        actions = random_actions(rng, state.legal_action_mask)
        started = time.perf_counter()
        state = env.step(actions)
        spent += time.perf_counter() - started
    return spent


def theirs(env_id, batch, steps, seed):
    import jax
    import pgx

    env = pgx.make(env_id)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    state = init(jax.random.split(jax.random.PRNGKey(seed), batch))
    rng = numpy.random.default_rng(seed)
    # Compile outside the clock.
    jax.block_until_ready(step(state, random_actions(rng, numpy.asarray(state.legal_action_mask))))
    spent = 0.0
    for _ in range(steps):
        actions = random_actions(rng, numpy.asarray(state.legal_action_mask))
        started = time.perf_counter()
        state = jax.block_until_ready(step(state, actions))
        spent += time.perf_counter() - started
    return spent


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="chess")
    parser.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--steps", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["ours", "ours-gpu", "pgx"], help="run one library only")
    arguments = parser.parse_args()
    runs = {"ours": ours, "pgx": theirs}
    if arguments.env in ("chess", "shogi", "go_9x9", "go_19x19"):
        runs["ours-gpu"] = lambda *run: ours(*run, backend="gpu")
    if arguments.only:
        runs = {arguments.only: runs[arguments.only]}
    print(f"{arguments.env}: {arguments.steps} batched steps, random legal actions")
    print(f"{'batch':>6} {'library':>12} {'steps/s':>12} {'peak MiB':>9}")
    for batch in arguments.batch:
        rates = {}
        for name, run in runs.items():
            spent = run(arguments.env, batch, arguments.steps, arguments.seed)
            rates[name] = batch * arguments.steps / spent
            print(f"{batch:>6} {name:>12} {rates[name]:>12,.0f} {peak_mib():>9,.0f}", flush=True)
        for name in ("ours", "ours-gpu"):
            if name in rates and "pgx" in rates:
                print(f"{batch:>6} {name + '/pgx':>12} {rates[name] / rates['pgx']:>11.1f}x")


if __name__ == "__main__":
    main()
