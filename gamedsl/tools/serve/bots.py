"""The bots of every table, thinking in worker processes: never on the server's event loop.

A bot's move is worked out by a worker process of a pool shared by all the tables (the searches'
pool has as many as the server-wide limit of searches at once; the quick bots have one of their
own, so they never wait behind a search, nor behind a greedy asked for more than its default
look), the tables taking their turns (FairShare). The worker rebuilds the table's game from its seed
and moves (keeping the last state of each table it saw, so usually only the newest moves are
replayed), makes the bot afresh from its spec and a seed of that moment (the table's seed, the
seat, the move number: a bot needs no memory between moves, so a restarted server has no search
to replay), and returns its move. A search that runs past the table's ceiling is stopped, and the
move made by the greedy bot instead (by a random one if even that is too slow). A bot that
searches answers a reaction window or race with the greedy bot's quick look (answering_spec): who
is asked there follows the cards, and a search would make the table wait exactly then.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import inspect
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from ...bots import LIMITS, BotSpecError, make_bot, parse_spec, within
from ...errors import GamedslError

FALLBACK = ("greedy", "random")  # what moves for a bot whose search ran out of time, in this order
QUICK_ANSWER = "greedy"  # what answers a reaction window or race for a bot that searches (answering_spec)
# A table's bots think within these (narrower than LIMITS): the quick bots share one worker, so a
# greedy with a thousand samples would delay every other table's greedy replies.
TABLE_LIMITS = {**LIMITS, "samples": (1, 32), "lookahead": (1, 4), "budget": (1, 2_000), "cut": (1, 1_000),
                "c": (0.0, 10.0), "iterations": (1, 20_000)}


def check_spec(spec: str, max_seconds: float) -> str | None:
    """Why a seat's bot spec is refused at a server whose bots think at most `max_seconds` a move, or None."""
    try:
        kind, kwargs = parse_spec(spec)
        for name, value in kwargs.items():
            if name in TABLE_LIMITS and name != "seconds":
                within(name, value, f"{value:g}" if isinstance(value, float) else str(value), TABLE_LIMITS)
    except BotSpecError as exc:
        return f"{exc} at a table here" if "must be from" in str(exc) else str(exc)
    seconds = kwargs.get("seconds")
    if seconds is not None and seconds > max_seconds:
        return (f"'{spec}' asks for {seconds:g} s a move; bots here think at most {max_seconds:g} s "
                "(the server's --max-bot-seconds)")
    return None


def answering_spec(spec: str, answering: bool) -> str:
    """The bot that moves for a seat whose spec is `spec`: in a reaction window or race
    (`answering`), a bot that searches answers with the greedy bot's quick look instead. Who is
    asked in a window follows the cards, so a search there would be a tell: the next player's move
    would wait seconds exactly when a bot could react (the issue measured 4.2-4.7 s, else at most
    26 ms). A quick look answers within the table's pace (Table.pace), which hides even that."""
    return QUICK_ANSWER if answering and parse_spec(spec)[0] == "ismcts" else spec


def heavier_than_default(spec: str) -> bool:
    """A quick bot asked to think more than its default (greedy:samples=32): it thinks in the
    searches' workers, so that the quick bots' worker only ever holds quick moves."""
    from ...bots.greedy import GreedyAgent

    kind, kwargs = parse_spec(spec)
    defaults = inspect.signature(GreedyAgent).parameters if kind == "greedy" else {}
    return any(name in defaults and value > defaults[name].default for name, value in kwargs.items())


def hand_over(table, seat: int, kind: str, why: str):
    """From now on `kind` plays the seat (a bot that failed, or a person gone away): said at the
    table (to every seat) and in its log and store, so that a restart keeps it."""
    table.seats[seat] = kind
    if table.writer is not None:
        table.writer.seat(table.state.moves, seat, kind, why)
    if table.store is not None:
        table.store.set_seats(table.id, table.seats)
    for k in range(len(table.seats)):
        table.notices[k] = why


def move_seed(table_seed: int, seat: int, move: int) -> int:
    """The seed of a bot's move: the same table, seat and moment give the same bot."""
    return (table_seed * 1_000_003 + seat) * 1_000_003 + move


class FairShare:
    """Jobs run on an executor of `slots` workers, at most `slots` at once; when a worker is free,
    the table with jobs waiting that has used the workers least of late goes next (its time, halved
    every HALF_LIFE seconds), its oldest job first. So a table whose bots ask for long looks, or for
    many at once (its bots in a reaction window), waits its turn behind the quick ones: another
    table's move waits behind the moves running, not behind theirs. The executor's own queue stays
    empty: it would be first come, first served."""

    HALF_LIFE = 10.0

    def __init__(self, executor, slots: int):
        self.executor, self.slots = executor, slots
        self.running = 0
        self.waiting: dict = {}  # table id -> its jobs waiting, oldest first
        self.used: dict = {}  # table id -> (worker seconds used, when last counted)

    async def run(self, table_id, fn, arg):
        """fn(arg) in a worker, in the table's turn."""
        done = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(table_id, collections.deque()).append((fn, arg, done))
        self._start()
        return await done

    def usage(self, table_id, now: float) -> float:
        seconds, then = self.used.get(table_id, (0.0, now))
        return seconds * 0.5 ** ((now - then) / self.HALF_LIFE)

    def _start(self):
        loop = asyncio.get_running_loop()
        while self.running < self.slots and self.waiting:
            now = time.monotonic()
            table_id = min(self.waiting, key=lambda t: self.usage(t, now))  # (of equals, the first to ask)
            jobs = self.waiting[table_id]
            fn, arg, done = jobs.popleft()
            if not jobs:
                del self.waiting[table_id]
            if done.cancelled():  # nobody waits for it now (its table closed)
                continue
            self.running += 1
            job = loop.run_in_executor(self.executor, fn, arg)
            job.add_done_callback(functools.partial(self._done, done, table_id, now))

    def _done(self, done, table_id, started: float, job):
        self.running -= 1
        now = time.monotonic()
        self.used[table_id] = (self.usage(table_id, now) + now - started, now)
        if len(self.used) > 4 * MAX_KEPT_TABLES:  # forget the tables that used least
            for t in sorted(self.used, key=lambda t: self.usage(t, now))[:MAX_KEPT_TABLES]:
                del self.used[t]
        if not done.cancelled():
            if job.cancelled():
                done.cancel()
            elif job.exception() is not None:
                done.set_exception(job.exception())
            else:
                done.set_result(job.result())
        self._start()


MAX_KEPT_TABLES = 256  # FairShare keeps the usage of some four times as many tables


class BotPool:
    """The worker processes that think for bots: `workers` for searches (the server-wide limit of
    searches at once), and one for the quick bots (greedy), so that a quick bot never waits behind
    a search; each shared by the tables in turn (FairShare). The random bot draws its move at
    once, in the server: it does not think."""

    def __init__(self, workers: int, max_seconds: float):
        self.max_seconds = max_seconds
        spawn = multiprocessing.get_context("spawn")
        self.searches = FairShare(ProcessPoolExecutor(max(1, workers), mp_context=spawn,
                                                      initializer=_start_worker), max(1, workers))
        self.quick = FairShare(ProcessPoolExecutor(1, mp_context=spawn, initializer=_start_worker), 1)

    async def choose(self, table, seat: int, state=None) -> int:
        """The move of the bot at `seat` of `table`, now (the state is read at once; the caller checks
        that the game did not move on before playing it); at `state`, a copy, if given (the decision
        after a reaction window, as it comes if nobody reacts)."""
        s = table.state if state is None else state
        drawn = self.draw(table, seat, s)
        if drawn is not None:
            return drawn
        spec = answering_spec(table.seats[seat], s.window is not None)
        seed = move_seed(table.seed, seat, s.moves)
        kind = parse_spec(spec)[0]
        moves = [(a, s.times.get(k)) for k, a in enumerate(s.history)]
        task = (table.id, table.game.text, table.game.prog.filename, s.np, table.seed, table.options, moves,
                spec, seed, self.max_seconds)
        pool = self.quick if kind != "ismcts" and not heavier_than_default(spec) else self.searches
        action, error, failed = await pool.run(table.id, think, task)
        if error:
            raise GamedslError(error)
        if failed:
            why, kind = failed
            hand_over(table, seat, kind, f"{why}: {kind} plays {table.game.player_name(seat)} from now on")
        return action

    def draw(self, table, seat: int, state=None) -> int | None:
        """The move of a random bot, drawn at once (None for a bot that thinks)."""
        spec = table.seats[seat]
        if parse_spec(spec)[0] != "random":
            return None
        state = table.state if state is None else state
        return make_bot(spec, move_seed(table.seed, seat, state.moves)).choose(state)

    def close(self):
        for pool in (self.searches, self.quick):
            pool.executor.shutdown(wait=False, cancel_futures=True)


# ---- in a worker process

_GAMES: dict = {}  # (filename, text) -> Game
_STATES: dict = {}  # table id -> the last state rebuilt for it
_LIMIT = 64  # tables whose state a worker keeps


class _TimeUp(BaseException):  # not an Exception: no `except Exception` of the engine or a bot catches it
    pass


def _start_worker():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()
    try:
        os.nice(10)  # people's moves first: the server's own process answers before a bot thinks
    except OSError:
        pass

    def time_up(*_):
        raise _TimeUp
    signal.signal(signal.SIGALRM, time_up)


def _orphaned(server: int):
    """End the worker once its server is gone (killed with -9, it could not stop its workers)."""
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


def think(task) -> tuple[int | None, str | None, tuple | None]:
    """(the bot's move, None, None), (None, why it could not move, None), or (a move, None, (why the
    seat's own bot failed, the bot of FALLBACK that moved instead)): run in a worker process."""
    table_id, text, filename, players, seed, options, moves, spec, bot_seed, max_seconds = task
    try:
        state = _rebuilt(table_id, text, filename, players, seed, options, moves)
    except GamedslError as exc:
        return None, str(exc), None
    failed = None
    for kind in (spec, *FALLBACK):
        try:
            signal.setitimer(signal.ITIMER_REAL, max_seconds * 1.5 + 0.5)
            return make_bot(kind, bot_seed).choose(state.clone()), None, failed and (failed, kind)
        except _TimeUp:
            continue
        except Exception as exc:  # noqa: BLE001 - a bot's own failure: the next one moves, and the table is told
            failed = failed or f"the bot '{kind}' failed ({type(exc).__name__}: {exc})"
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return None, failed or "no bot could choose a move in time", None


def _rebuilt(table_id, text, filename, players, seed, options, moves):
    """The table's state after `moves` ((action, reaction time)): the kept one moved on, or a new one."""
    from ...engine import load_source

    key = (filename, text)
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_source(text, filename)
    state = _STATES.get(table_id)
    if state is None or state.game is not game or len(state.history) > len(moves) or \
            state.history != [a for a, _ in moves[:len(state.history)]]:
        state = game.new_state(players=players, seed=seed, options=options)
    for action, seconds in moves[len(state.history):]:
        state.apply_action(action, seconds)
    if len(_STATES) >= _LIMIT and table_id not in _STATES:
        _STATES.pop(next(iter(_STATES)))
    _STATES[table_id] = state
    return state
