"""The Go environments' endings against GNU Go, a second peer beside pgx.

Seeded games are played in the environment to their end by a policy that
never fills its own one-point eyes, never recreates an earlier board (such a
move is taken back: here it would lose at once, and GNU Go's `play` knows
only simple ko), and passes only when nothing else is left, so that most
games end with every chain alive, where area scoring and GNU Go's Chinese
rules agree. Each game is then replayed in GNU Go over GTP:

- every move is legal to GNU Go, and its board at the end is ours;
- the test counts area on that board itself (stones plus empty regions that
  reach only one colour, komi 7.5), and the environment's rewards name the
  same winner;
- where GNU Go lists no stone dead and none in seki, its `final_score`
  equals that count exactly. Games with chains GNU Go calls dead are named
  and not scored by it (Tromp-Taylor counts such chains; Chinese rules take
  them off).

GNU Go is a
separate program (GPL-3.0), run over GTP: Debian's `gnugo` package, which
scripts/test and .ci/run install; without it this test fails.
"""

import os
import shutil
import subprocess

import numpy
import pytest

import gpu_movegen.env

KOMI = 7.5
# 9x9 games in CI (seconds), and an eighth as many on 19x19;
# GPU_MOVEGEN_GNUGO_GAMES sets the 9x9 games.
NINE_BY_NINE = int(os.environ.get("GPU_MOVEGEN_GNUGO_GAMES", "192"))
GAMES = {9: NINE_BY_NINE, 19: max(8, NINE_BY_NINE // 8)}
# Of those, at least this share must end with no chain dead and none in
# seki to GNU Go (at the CI seeds: 100 of 192 on 9x9, 7 of 24 on 19x19).
SCORED_SHARE = {9: 1 / 3, 19: 1 / 6}
COLUMNS = "ABCDEFGHJKLMNOPQRST"


class GnuGo:
    """GNU Go over GTP, one command at a time."""

    def __init__(self):
        program = shutil.which("gnugo") or shutil.which("/usr/games/gnugo")
        assert program, "GNU Go is not installed: apt-get install gnugo (scripts/test does this as root)"
        self.process = subprocess.Popen(
            [program, "--mode", "gtp", "--chinese-rules", "--level", "1", "--seed", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command):
        """The reply to `command` after '= '; a refusal ('? ...') fails the test."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            assert line, f"GNU Go stopped at {command!r}"
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line)
        reply = "".join(lines)
        assert reply.startswith("="), f"GNU Go refused {command!r}: {reply.strip()}"
        return reply[1:].strip()

    def close(self):
        self.process.stdin.write("quit\n")
        self.process.stdin.flush()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def gnugo():
    peer = GnuGo()
    yield peer
    peer.close()


def vertex(action, size):
    """A point's GTP vertex: row `action // size` as the number, column as the letter."""
    if action == size * size:
        return "pass"
    return f"{COLUMNS[action % size]}{action // size + 1}"


def point(text, size):
    """The action of a GTP vertex."""
    return (int(text[1:]) - 1) * size + COLUMNS.index(text[0].upper())


def neighbours(size):
    """Each point's neighbours, as a list of actions."""
    return [
        [
            (row + dr) * size + (column + dc)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= row + dr < size and 0 <= column + dc < size
        ]
        for row in range(size)
        for column in range(size)
    ]


def eye_keeping_actions(state, size, rng, barred):
    """A random legal point for each game that is neither one of the mover's
    own one-point eyes (empty, every neighbour the mover's) nor `barred`;
    the pass when none is left."""
    mine, theirs = state.observation[:, :, :, 0], state.observation[:, :, :, 1]
    # The mover's stones with the edge counted as theirs, so that an eye on
    # the edge needs only its neighbours on the board.
    walled = numpy.pad(mine, ((0, 0), (1, 1), (1, 1)), constant_values=True)
    surrounded = walled[:, :-2, 1:-1] & walled[:, 2:, 1:-1] & walled[:, 1:-1, :-2] & walled[:, 1:-1, 2:]
    own_eye = (surrounded & ~mine & ~theirs).reshape(len(mine), -1)
    points = size * size
    open_points = state.legal_action_mask[:, :points] & ~own_eye & ~barred[:, :points]
    actions = numpy.full(len(mine), points)
    for game in range(len(mine)):
        choices = numpy.flatnonzero(open_points[game])
        if len(choices):
            actions[game] = rng.choice(choices)
    return actions


def area_margin(black, white, size, adjacent):
    """Black's area less white's less komi: stones, and each empty region for
    the one colour it reaches (for both when it reaches neither, as pgx counts)."""
    owner = numpy.where(black, 1, numpy.where(white, 2, 0))
    seen = numpy.zeros(size * size, bool)
    area = [int(black.sum()), int(white.sum())]
    for start in range(size * size):
        if owner[start] or seen[start]:
            continue
        region, reaches, frontier = 0, set(), [start]
        seen[start] = True
        while frontier:
            here = frontier.pop()
            region += 1
            for there in adjacent[here]:
                if owner[there]:
                    reaches.add(owner[there])
                elif not seen[there]:
                    seen[there] = True
                    frontier.append(there)
        for colour in (1, 2):
            if reaches <= {colour}:
                area[colour - 1] += region
    return area[0] - area[1] - KOMI


def gtp_margin(score):
    """Black's margin from a GTP score (`B+3.5`, `W+12`, `0`)."""
    if score == "0":
        return 0.0
    winner, points = score.split("+")
    return float(points) if winner == "B" else -float(points)


def play_to_the_end(env_id, size, games, seed):
    """Plays `games` games with eye-keeping random moves; returns each game's
    actions, its final board (black, white) and black's reward, and the
    moves taken back. A stone that recreates an earlier board loses at once
    here (positional superko, which GNU Go's `play` does not know, and which
    random play on 19x19 nearly always meets), so such a move is taken
    back: the batch goes back to the boards saved before the step
    (`Env.load`), the move is barred, and the batch steps again."""
    env = gpu_movegen.env.make(env_id, batch_size=games, seed=seed)
    rng = numpy.random.default_rng(seed)
    state = env.reset(seed)
    store, everyone = env.snapshots(games), numpy.arange(games)
    pass_action, limit = size * size, 2 * size * size
    barred = numpy.zeros((games, pass_action + 1), bool)
    moves = [[] for _ in range(games)]
    boards = [None] * games
    taken_back = 0
    while not state.terminated.all():
        running = ~state.terminated
        env.save(store, everyone)
        barred[:] = False
        while True:
            actions = eye_keeping_actions(state, size, rng, barred)
            state = env.step(actions)
            # Only superko ends a game on a stone before the step limit.
            superko = running & state.terminated & (actions != pass_action) & (state._step_count < limit)
            if not superko.any():
                break
            barred[superko, actions[superko]] = True
            taken_back += int(superko.sum())
            state = env.load(store, everyone)
        for game in numpy.flatnonzero(running):
            moves[game].append(int(actions[game]))
            if state.terminated[game]:
                mover_stones = state.observation[game, :, :, 0].reshape(-1)
                other_stones = state.observation[game, :, :, 1].reshape(-1)
                white_to_move = bool(state.observation[game, 0, 0, 16])
                black, white = (other_stones, mover_stones) if white_to_move else (mover_stones, other_stones)
                black_player = env.players(int(game))[0]
                boards[game] = (black.copy(), white.copy(), float(state.rewards[game, black_player]))
    return moves, boards, taken_back


@pytest.mark.parametrize("env_id, size", [("go_9x9", 9), ("go_19x19", 19)])
def test_go_endings_equal_gnu_go_where_the_rules_agree(gnugo, env_id, size):
    games = GAMES[size]
    moves, boards, taken_back = play_to_the_end(env_id, size, games, seed=20261206 + size)
    adjacent = neighbours(size)
    endings = {"passes": 0, "step limit": 0}
    scored, dead = 0, []
    for game in range(games):
        black, white, black_reward = boards[game]
        margin = area_margin(black, white, size, adjacent)
        pass_action = size * size
        if moves[game][-2:] == [pass_action, pass_action]:
            endings["passes"] += 1
        else:
            assert len(moves[game]) == 2 * size * size, f"game {game} ended after {len(moves[game])} moves"
            endings["step limit"] += 1
        # The environment's verdict, by the test's own count.
        assert black_reward == (1.0 if margin > 0 else -1.0), f"game {game}: margin {margin}, reward {black_reward}"

        gnugo.ask(f"boardsize {size}")
        gnugo.ask("clear_board")
        gnugo.ask(f"komi {KOMI}")
        for ply, action in enumerate(moves[game]):
            gnugo.ask(f"play {'bw'[ply % 2]} {vertex(action, size)}")
        for colour, ours in (("black", black), ("white", white)):
            theirs = numpy.zeros(size * size, bool)
            theirs[[point(text, size) for text in gnugo.ask(f"list_stones {colour}").split()]] = True
            assert (theirs == ours).all(), f"game {game}: GNU Go's {colour} stones differ"
        if gnugo.ask("final_status_list dead") or gnugo.ask("final_status_list seki"):
            dead.append(game)
            continue
        score = gnugo.ask("final_score")
        assert gtp_margin(score) == margin, f"game {game}: GNU Go {score}, area count {margin}"
        scored += 1
    print(
        f"{env_id}: {games} games, endings {endings}, superko moves taken back {taken_back}, "
        f"scored by GNU Go {scored}, with dead stones or seki {dead}"
    )
    # The policy keeps most chains alive, so many games are scored by both.
    assert scored >= games * SCORED_SHARE[size], f"only {scored} of {games} games had no dead stones: {dead}"
