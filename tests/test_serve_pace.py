"""Time tells nobody whether a bot was asked in a reaction window.

Who is asked in a window follows the cards. A bot asked there answers before anyone is shown the
moment, within the table's answer time (else it lets the moment pass), and at a table where a bot
may be asked every move is shown the same time after it came: the pace. So a person cannot time
their move's answer, nor a move sent the instant their turn shows, against a bot's thinking."""
from __future__ import annotations

import asyncio
import json
import statistics
import time

import gamedsl
from gamedsl.tools.serve.table import Conn, Settings, Table
from test_serve_window import TELL  # P1 may shout before each of P2's decisions when `react` is on

PACE = 0.2


class _Socket:
    def __init__(self):
        self.frames: list[tuple[float, dict]] = []

    async def send_text(self, text: str):
        self.frames.append((time.monotonic(), json.loads(text)))


class _Bots:
    """The bot pool: a bot's turn is its first move, at once; its answer in a window takes `think`
    seconds and lets the moment pass. Notes, at each frame sent, whether a window was open in which
    only bots were asked."""

    def __init__(self, think: float):
        self.think, self.asked = think, 0

    def draw(self, table, seat, state=None):
        return None

    async def choose(self, table, seat, state=None):
        s = table.state if state is None else state
        if s.window is not None:
            self.asked += 1
            await asyncio.sleep(self.think)
            return table.no_reaction
        return s.legal_actions()[0]


def _play(tmp_path, react: bool, think: float, early: bool = False):
    """P1 a bot, P2 a person who plays their first card as soon as their turn shows. Returns P2's
    frames (time, frame), per move of P2 the seconds from sending it to being shown the next turn,
    the table and the pool."""
    path = tmp_path / "tell.game"
    path.write_text(TELL, encoding="utf-8")
    game = gamedsl.load_game(path)
    options = {"react": react}
    state = game.new_state(players=2, seed=3, options=options)
    bots = _Bots(think)
    table = Table("t", game, state, ["greedy", "human"], None, None,
                  Settings(bot_delay=0, answer_seconds=PACE), [], bots, 3, options)
    socket = _Socket()
    waits, while_open = [], []
    broadcast = table.broadcast

    async def noting(conns=None):
        s = table.state
        while_open.append(s.window is not None and not any(table.human(p) for p in table.asked))
        await broadcast(conns)
    table.broadcast = noting

    async def run():
        await table.join(Conn(socket, 1))
        await table.start()
        deadline = time.monotonic() + 30
        seen = 0
        while not table.state.is_terminal() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
            if len(socket.frames) == seen:
                continue
            seen = len(socket.frames)
            sent, frame = socket.frames[-1]
            if frame["legal"]:
                moves = len(table.state.history)
                asked = time.monotonic()
                await table.receive(1, {"move": frame["legal"][0]["move"], "turn": frame["turn"]}, asked)
                if early:  # played at once: nothing waited on a bot
                    assert len(table.state.history) > moves, "the move waited for a bot's answer"
                waits.append(asked)
        await table.stop()
    asyncio.run(run())
    shown = [t for t, f in socket.frames if f["legal"]]
    gaps = [next(t for t in shown if t > w) - w for w in waits if any(t > w for t in shown)]
    return socket.frames, gaps, table, bots, while_open


def test_nobody_is_shown_a_moment_while_a_bot_alone_may_still_react(tmp_path):
    """On the main before, P2 was shown their turn while the bot was still asked, and a move sent at
    once waited for the bot's answer: the wait told that a bot could react."""
    frames, _, table, bots, while_open = _play(tmp_path, react=True, think=0.05, early=True)
    assert bots.asked == 3 and table.state.is_terminal()  # before each of P2's turns
    assert not any(while_open)


def test_every_move_is_shown_the_same_time_after_it_came_whether_a_bot_was_asked_or_not(tmp_path):
    _, asked, _, bots, _ = _play(tmp_path, react=True, think=0.05)
    assert bots.asked == 3
    _, alone, _, bots, _ = _play(tmp_path, react=False, think=0.05)
    assert bots.asked == 0
    # P2's move is shown at the pace, then the bot's turn at the pace: P2's next turn two paces on
    for gap in asked + alone:
        assert 2 * PACE <= gap < 2 * PACE + 0.15, (asked, alone)
    assert abs(statistics.median(asked) - statistics.median(alone)) < 0.05, (asked, alone)


def test_a_bot_that_thinks_past_the_answer_time_lets_the_moment_pass(tmp_path):
    frames, gaps, table, bots, _ = _play(tmp_path, react=True, think=5.0)
    assert table.state.is_terminal() and bots.asked == 3
    assert all(gap < 2 * PACE + 0.15 for gap in gaps), gaps
    assert "shout!" not in json.dumps([f for _, f in frames])
