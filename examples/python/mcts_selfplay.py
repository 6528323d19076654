"""Batched Monte-Carlo tree search self-play on gpu_movegen.env.

Every game of a batch searches its own tree, and every simulation steps all
the trees together: each game walks down its tree by PUCT with a uniform
prior, the environment loads each game's leaf from its saved node
(`Env.load`), plays the chosen action in every game at once (`Env.step`),
saves the new nodes (`Env.save`) and, with `--rollout-steps`, plays random
legal actions from them to value them. Values go back up the paths. After
`--simulations` simulations each game plays its most visited action, and the
search begins again from the new position.

The tree's arrays follow mctx's layout (a leading batch axis, then nodes):
children, visit counts and value sums, so a researcher can swap the uniform
prior and rollouts for a network's policy and value.

    python examples/python/mcts_selfplay.py --env chess --batch 64 --simulations 32 --moves 20

prints (`--backend gpu` keeps the games on the GPU, the same
search step for step), for each game, the games finished, the moves played, the
environment steps the search took and the steps, moves and games a second.
Ctrl-C stops it with exit code 130, the rows already printed standing.
"""

import argparse
import sys
import time

import numpy

import gpu_movegen.env

GAMES = ("chess", "shogi", "go_9x9", "go_19x19")
# The most nodes a search keeps (each a saved game, whose history it copies)
# and the most bytes of its tree's arrays.
MAX_NODES = 1 << 18
MAX_TREE_BYTES = 4 << 30


class Tree:
    """The search trees of a batch of games: nodes numbered 0.. in each game,
    0 the root, each a slot of the environment's snapshots. With a uniform
    prior every action not yet tried at a node scores the same, so a node
    keeps the children it has (at most one a simulation) and the actions it
    has not tried; only the children are scored."""

    def __init__(self, batch, nodes, actions):
        self.nodes = nodes
        self.untried = numpy.zeros((batch, nodes, actions), dtype=bool)
        self.untried_count = numpy.zeros((batch, nodes), dtype=numpy.int32)
        self.legal_count = numpy.zeros((batch, nodes), dtype=numpy.int32)
        self.child = numpy.full((batch, nodes, nodes), -1, dtype=numpy.int32)
        self.child_action = numpy.zeros((batch, nodes, nodes), dtype=numpy.int32)
        self.child_count = numpy.zeros((batch, nodes), dtype=numpy.int32)
        self.visits = numpy.zeros((batch, nodes), dtype=numpy.int32)
        # Values from player 0's side, so a backup adds the same number all the way up.
        self.value = numpy.zeros((batch, nodes), dtype=numpy.float64)
        self.player = numpy.zeros((batch, nodes), dtype=numpy.int32)
        self.terminal = numpy.zeros((batch, nodes), dtype=bool)
        self.terminal_value = numpy.zeros((batch, nodes), dtype=numpy.float64)
        self.size = numpy.zeros(batch, dtype=numpy.int32)

    def clear(self):
        self.child.fill(-1)
        self.child_count.fill(0)
        self.visits.fill(0)
        self.value.fill(0.0)
        self.terminal.fill(False)
        self.size.fill(0)

    def slots(self, nodes, games):
        """Snapshot slots of `nodes` (one a game), -1 where `games` is false."""
        batch = len(nodes)
        return numpy.where(games, numpy.arange(batch) * self.nodes + nodes, -1)

    def record(self, nodes, state, games):
        """Fills node `nodes[b]` of each game in `games` from the state."""
        index = numpy.flatnonzero(games)
        at = nodes[index]
        over = state.terminated[index]
        self.untried[index, at] = state.legal_action_mask[index] & ~over[:, None]
        self.untried_count[index, at] = self.untried[index, at].sum(axis=1)
        self.legal_count[index, at] = self.untried_count[index, at]
        self.player[index, at] = state.current_player[index]
        self.terminal[index, at] = over
        self.terminal_value[index, at] = state.rewards[index, 0]

    def add_child(self, games, parents, actions, children):
        index = numpy.flatnonzero(games)
        parent, action = parents[index], actions[index]
        self.untried[index, parent, action] = False
        self.untried_count[index, parent] -= 1
        self.child[index, parent, self.child_count[index, parent]] = children[index]
        self.child_action[index, parent, self.child_count[index, parent]] = action
        self.child_count[index, parent] += 1


def select(tree, live, exploration, random):
    """Walks each live game down its tree by PUCT with a uniform prior (an
    untried action's value taken as 0). Returns the path (nodes, -1 past
    its end), the leaf, and the action to try there (-1 where the leaf is a
    finished game)."""
    batch = len(live)
    index = numpy.arange(batch)
    node = numpy.zeros(batch, dtype=numpy.int32)
    walking = live.copy()
    path = [numpy.where(live, 0, -1)]
    expand = numpy.zeros(batch, dtype=bool)
    while True:
        walking &= ~tree.terminal[index, node]
        if not walking.any():
            break
        children = tree.child[index, node]
        visits = numpy.where(children >= 0, tree.visits[index[:, None], children], 0)
        value = numpy.where(children >= 0, tree.value[index[:, None], children], 0.0)
        side = numpy.where(tree.player[index, node] == 0, 1.0, -1.0)[:, None]
        prior = 1.0 / numpy.maximum(tree.legal_count[index, node], 1)
        reach = exploration * prior * numpy.sqrt(numpy.maximum(tree.visits[index, node], 1))
        score = side * value / numpy.maximum(visits, 1) + reach[:, None] / (1 + visits)
        score[children < 0] = -numpy.inf
        best = numpy.argmax(score, axis=1)
        untried_score = numpy.where(tree.untried_count[index, node] > 0, reach, -numpy.inf)
        try_here = walking & (untried_score >= score[index, best])
        expand |= try_here
        walking &= ~try_here
        node = numpy.where(walking, children[index, best], node)
        path.append(numpy.where(walking, node, -1))
    # An untried action at random: the largest random key among them.
    action = numpy.full(batch, -1, dtype=numpy.int32)
    if expand.any():
        games = numpy.flatnonzero(expand)
        keys = random.random((len(games), tree.untried.shape[2])) * tree.untried[games, node[games]]
        action[games] = numpy.argmax(keys, axis=1)
    return numpy.stack(path, axis=1), node, action


def rollout(env, state, steps, random, expanding):
    """Plays random legal actions for `steps` steps in every game; returns
    player 0's reward over them in each game (games already over add
    nothing), counting the steps of the games in `expanding`."""
    total = numpy.zeros(env.batch_size)
    played = 0
    for _ in range(steps):
        if state.terminated[expanding].all():
            break
        played += int((~state.terminated & expanding).sum())
        choice = numpy.argmax(random.random(state.legal_action_mask.shape) * state.legal_action_mask, axis=1)
        state = env.step(choice)
        total += state.rewards[:, 0]
    return total, played


def play(env_id, batch, simulations, moves, rollout_steps, exploration, seed, backend="cpu"):
    env = gpu_movegen.env.make(env_id, batch_size=batch, seed=seed, backend=backend)
    random = numpy.random.default_rng(seed)
    nodes = simulations + 1
    tree = Tree(batch, nodes, env.num_actions)
    roots = env.snapshots(batch * nodes)
    state = env.reset(seed)
    live = ~state.terminated
    zero = numpy.zeros(batch, dtype=numpy.int32)
    search_steps = 0
    moves_played = 0
    started = time.perf_counter()
    for _ in range(moves):
        if not live.any():
            break
        tree.clear()
        env.save(roots, tree.slots(zero, live))
        tree.record(zero, env.state, live)
        tree.size[live] = 1
        for _ in range(simulations):
            path, leaf, action = select(tree, live, exploration, random)
            expanding = action >= 0
            value = tree.terminal_value[numpy.arange(batch), leaf].copy()
            if expanding.any():
                env.load(roots, tree.slots(leaf, expanding))
                state = env.step(numpy.maximum(action, 0))
                search_steps += int(expanding.sum())
                new = tree.size.copy()
                env.save(roots, tree.slots(new, expanding))
                tree.record(new, state, expanding)
                tree.add_child(expanding, leaf, action, new)
                tree.size[expanding] += 1
                # Copies: a rollout's steps rewrite the state's arrays.
                over = state.terminated.copy()
                estimate = numpy.where(over, state.rewards[:, 0], 0.0)
                if rollout_steps:
                    finished, played = rollout(env, state, rollout_steps, random, expanding & ~over)
                    search_steps += played
                    estimate = numpy.where(over, estimate, finished)
                value[expanding] = estimate[expanding]
                path = numpy.concatenate([path, numpy.where(expanding, new, -1)[:, None]], axis=1)
            # Back up player 0's value along every searched game's path.
            games, depth = numpy.nonzero(path >= 0)
            on_path = path[games, depth]
            numpy.add.at(tree.visits, (games, on_path), 1)
            numpy.add.at(tree.value, (games, on_path), value[games])
        # Each live game plays its root's most visited action.
        index = numpy.arange(batch)
        root_children = tree.child[:, 0]
        visits = numpy.where(root_children >= 0, tree.visits[index[:, None], root_children], -1)
        chosen = tree.child_action[index, 0, numpy.argmax(visits, axis=1)]
        env.load(roots, tree.slots(zero, live))
        state = env.step(chosen)
        moves_played += int(live.sum())
        live &= ~state.terminated
    seconds = time.perf_counter() - started
    finished = int((~live).sum())
    return {
        "env": env_id,
        "games": batch,
        "finished": finished,
        "moves": moves_played,
        "search steps": search_steps,
        "seconds": seconds,
    }


def main(arguments=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", choices=GAMES + ("all",), default="all", help="the game (default: all four)")
    parser.add_argument("--batch", type=int, default=64, help="games searched side by side (default 64)")
    parser.add_argument("--simulations", type=int, default=32, help="simulations a move (default 32)")
    parser.add_argument("--moves", type=int, default=20, help="moves a game, at most (default 20)")
    parser.add_argument(
        "--rollout-steps",
        type=int,
        default=0,
        help="random steps from each new node to value it; 0 values it by its reward alone (default 0)",
    )
    parser.add_argument("--exploration", type=float, default=1.25, help="PUCT's exploration constant (default 1.25)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the players' colours and the random choices")
    parser.add_argument(
        "--backend",
        choices=("cpu", "gpu", "auto"),
        default="auto",
        help="where the games are kept: gpu keeps them on the GPU (default auto: the CPU)",
    )
    options = parser.parse_args(arguments)
    for name in ("batch", "simulations", "moves"):
        if getattr(options, name) < 1:
            parser.error(f"--{name}: expected a positive number, not {getattr(options, name)}")
    if options.rollout_steps < 0:
        parser.error(f"--rollout-steps: expected 0 or more, not {options.rollout_steps}")
    games = GAMES if options.env == "all" else (options.env,)
    # Every game keeps a saved game a node and its tree's arrays, dense over
    # actions and children: refuse what would not fit, before allocating it.
    nodes = options.batch * (options.simulations + 1)
    actions = max(gpu_movegen.env.make(env_id, batch_size=1).num_actions for env_id in games)
    tree_bytes = nodes * (actions + 8 * (options.simulations + 1) + 40)
    if nodes > MAX_NODES or tree_bytes > MAX_TREE_BYTES:
        parser.error(
            f"--batch {options.batch} with --simulations {options.simulations}: {nodes:,} nodes and "
            f"{tree_bytes / 2**30:.1f} GiB of tree; at most {MAX_NODES:,} nodes and "
            f"{MAX_TREE_BYTES / 2**30:.0f} GiB: fewer games or simulations"
        )
    header = f"{'env':<10} {'games':>6} {'finished':>8} {'moves':>7} {'search steps':>12} {'steps/s':>10} "
    # Flushed, so that a pipe shows each game's row as it comes.
    print(header + f"{'moves/s':>9} {'games/s':>8}", flush=True)
    for env_id in games:
        try:
            result = play(
                env_id,
                options.batch,
                options.simulations,
                options.moves,
                options.rollout_steps,
                options.exploration,
                options.seed,
                options.backend,
            )
        except KeyboardInterrupt:
            # The rows printed so far stand; the search that was cut short has none.
            print(f"mcts_selfplay: stopped (Ctrl-C) during {env_id}", file=sys.stderr)
            return 130
        seconds = result["seconds"]
        steps = result["search steps"] + result["moves"]
        print(
            f"{env_id:<10} {result['games']:>6} {result['finished']:>8} {result['moves']:>7} "
            f"{result['search steps']:>12} {steps / seconds:>10.0f} {result['moves'] / seconds:>9.1f} "
            f"{result['finished'] / seconds:>8.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
