"""One table: a game in progress, its seats (people and bots), the moves it receives and its log.

The state changes only here, one move at a time under the table's lock, and every move is
written to the table's JSON-lines log (the same log `gamedsl play` writes) before anyone is
told of it. A reaction window or race asks everyone at once: each person's answer is timed from
the moment the window opened to the moment the server received it, and the answers go to the
engine in the order it asks them, with those times, so the fastest counts exactly as in the
terminal. Bots answer with the reaction time the game's seeded generator draws for them, before
anyone is shown the moment, and at a table where a bot may be asked every move is shown the same
time after it came (Table.pace): the time tells nobody whether a bot was asked.
"""
from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

from ...errors import GamedslError, IllegalAction
from .bots import hand_over
from .views import SPECTATOR, SeatLog, public_view
from .windows import Ahead, Windows

MAX_FRAME = 4096  # the longest message a client may send, in characters
MAX_NAME = 24  # the longest name a person may give themselves at a seat
# The logs' writes and syncs to disk have threads of their own: never queued behind anything else.
LOG_WRITER = ThreadPoolExecutor(2, thread_name_prefix="gamedsl-log")


class Settings:
    """How tables play: the pause before a bot's move (so people can follow), how long a reaction
    window or race waits for a person before answering for them, and what bots and idle tables may
    cost the server."""

    def __init__(self, bot_delay: float = 0.6, window_seconds: float = 10.0, stats: bool = False,
                 max_bot_seconds: float = 2.0, bot_workers: int = 2, idle_minutes: float = 120.0,
                 absent_seconds: float = 60.0, answer_seconds: float = 0.25, max_tables: int = 200,
                 tables_per_minute: int = 20, keep_days: float = 30.0, reaction_seconds: float = 2.0):
        self.bot_delay = bot_delay
        self.window_seconds = window_seconds
        # a bot whose decision comes after a reaction window makes it no sooner than this after the
        # window opened: every window alike, whoever is asked (a tell else), and people have the time
        self.reaction_seconds = reaction_seconds
        # a bot asked in a reaction window or race answers within this (else it lets the moment pass),
        # and a table where one may be asked shows what a move led to this long after it came (Table.pace)
        self.answer_seconds = answer_seconds
        self.stats = stats  # serve /api/stats (the load figures)
        self.max_bot_seconds = max_bot_seconds  # the most a bot may think for a move
        self.bot_workers = bot_workers  # bots thinking at once, server-wide (worker processes)
        self.idle_minutes = idle_minutes  # a table with no move and nobody connected this long is closed
        self.absent_seconds = absent_seconds  # a person away this long may be replaced by a bot
        self.max_tables = max_tables  # tables being played at once
        self.tables_per_minute = tables_per_minute  # tables one address may create in a minute
        self.keep_days = keep_days  # the log of a table no longer played is deleted after this (0: never)


class Conn:
    """One open WebSocket: the seat it plays (or SPECTATOR), and how much of the log it has."""

    def __init__(self, ws, seat: int):
        self.ws, self.seat = ws, seat
        self.log_sent = 0
        self.last: dict | None = None  # the last frame sent (without its log): an unchanged one is not sent again
        self.window: tuple | None = None  # (window, the time left as this client was first told it)


class Table(Windows):
    """A game being played by connected people and by bots (its reaction windows: windows.py)."""

    def __init__(self, table_id: str, game, state, seats: list[str], writer, store,
                 settings: Settings, metrics: list, bots, seed: int, options: dict):
        self.id, self.game, self.state, self.seats = table_id, game, state, seats
        self.bots, self.seed, self.options = bots, seed, options  # the pool bots think in; what rebuilds the game
        self.writer, self.store, self.settings, self.metrics = writer, store, settings, metrics
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self.logs: dict[int, SeatLog] = {}
        self.stopped: str | None = None  # why the game cannot go on (a rule failed)
        no_reaction = game.prog.no_reaction
        self.no_reaction = no_reaction.first_id if no_reaction is not None else -1
        # the open reaction window: its first move index, when it opened, what each seat asked may
        # answer (moves in display order, its observation, a copy of the state at its question),
        # and the answers received from people not yet at the head of the engine's queue
        self.window_key: int | None = None
        self.window_opened = 0.0
        self.clock = 0  # when the open window's clock was last started or paused (time_ns): told to the pages
        self.asked: dict[int, tuple] = {}
        self.frozen: dict[int, dict] = {}  # each seat's view when the window opened
        self.buffer: dict[int, tuple[int, float]] = {}
        self.passed: dict[int, frozenset] = {}  # per person: the anytime moves of the last window they let pass
        self.resumed = False  # set by a restarted server: a window found open then waits for people to be back
        self.joined: set = set()  # the seats someone has opened (a restarted server counts them all: Server)
        self.first_seats = list(seats)  # who sat where when the table was made (a restart reads its log's)
        self.paused = False  # that window's clock waits
        self.held_since = 0.0  # the slowest answer held from before a restart (its seconds)
        self.ahead: Ahead | None = None  # the decision after the open reaction window, if nobody reacts
        # that decision's move, made while the window was still open: (player, move, window, the
        # state it was made at); played if the window ends with the game at that state
        self.early: tuple | None = None
        self.notices: dict[int, str] = {}  # per seat: a message for it alone, sent with its next frame
        self.saved = False  # some of them are in the store (they would count after a restart)
        self.timer: asyncio.TimerHandle | None = None
        self.wake = asyncio.Event()
        self.driver: asyncio.Task | None = None
        self.moves_applied = 0  # moves played since the server started (for the load figures)
        self.active = time.monotonic()  # when a move was last played or someone last came or went
        self.left = {k: self.active for k in range(len(seats))}  # per seat: since when nobody plays it
        self.names: list[str | None] = [None] * len(seats)  # the names people gave themselves at their seats
        self.option_texts = {name: game.option_text(name, value) if name in game.prog.option_choices
                             else str(value).lower() if isinstance(value, bool) else value
                             for name, value in options.items()}  # shown on the table page
        self.rematch: dict[int, dict] = {}  # per seat (and spectators): its links to the rematch, once asked

    # ---- what is asked now
    def turn(self, seat: int) -> int | None:
        """The decision a seat is asked now, as the seat counts moves (the moves it knows of: the
        others' letting a moment pass is not among them), or None. A client sends it back with its
        move, so a move meant for a moment that has passed is refused."""
        s = self.state
        if s.window is not None:
            if seat in self.asked and not self.answered(seat):
                return self.asked[seat][1]["move"]
            return self.ahead.view(seat)["move"] if self.ahead_asks(seat) else None
        if not s.is_terminal() and s.current_player() == seat:
            return s.observation(seat)["move"]
        return None

    def human(self, seat: int) -> bool:
        return self.seats[seat] == "human"

    # ---- moves
    async def receive(self, seat: int, message: dict, received: float) -> str | None:
        """A move sent by a person: played (or held, in a window), or the reason it was refused."""
        move, turn = message.get("move"), message.get("turn")
        if not isinstance(move, int) or isinstance(move, bool):
            return "a move is sent as {\"type\": \"move\", \"move\": NUMBER, \"turn\": NUMBER}"
        if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
            return "'turn' should be the number of the decision the move answers"
        async with self.lock:
            error = self._check(seat, move, turn)
            if error:
                return error
            s = self.state
            if s.window is not None and self.ahead_asks(seat):
                self._move_on(move)
            elif s.window is not None:
                # an answer after a restart comes after those held from before it: they stay faster
                seconds = 0.0 if self.paused else round(max(0.0, time.monotonic() - self.window_opened), 3)
                if self.held_since:
                    seconds = max(seconds, round(self.held_since + 0.001, 3))
                self.buffer[seat] = (move, seconds)
                if self.store is not None and s.current_player() != seat:
                    self.store.save_answer(self.id, s.window_start, seat, move, seconds)
                    self.saved = True
            else:
                self._apply(seat, move, None)
            await self._settle(received)
        self.wake.set()
        return None

    def _move_on(self, move: int):
        """The player of the decision after a reaction window made their move: the moment to react
        is over (as at a table, where nobody may jump in once the next player has played). Whoever
        asked has not answered lets it pass, timed now; the move is played once the window closes,
        if nobody's reaction changed the game meanwhile (settle)."""
        self.early = (self.ahead.player, move, self.window_key, self.ahead.state)
        now = round(max(0.0, time.monotonic() - self.window_opened), 3)
        for seat, (legal, *_) in self.asked.items():
            if self.human(seat) and not self.answered(seat):
                self.buffer[seat] = (self.no_reaction if self.no_reaction in legal else legal[0], now)

    def _check(self, seat: int, move: int, turn) -> str | None:
        s = self.state
        if self.stopped:
            return f"the game has stopped: {self.stopped}"
        if s.is_terminal():
            return "the game is over"
        if seat == SPECTATOR:
            return "a spectator cannot play: open a seat's link to play"
        if turn is not None and turn != self.turn(seat):
            return "the game has moved on since that move was chosen: it was not played"
        if s.window is not None:
            self._sync_window()
            if self.ahead_asks(seat):  # the decision after the window, answered at once
                return None if move in self.ahead.legal else _why(self.ahead.state, move)
            if seat not in self.asked:
                return "it is not your move"
            if self.answered(seat):
                return "you have already answered this moment"
            legal, _, at = self.asked[seat]
            if move not in legal:
                return _why(at, move)
            return None
        if s.current_player() != seat:
            return f"it is not your move: {self.game.player_name(s.current_player())} is to move"
        if move not in s.legal_actions():
            return _why(s, move)
        return None

    def _apply(self, seat: int, action: int, seconds: float | None):
        """Play one move and log it; a rule that fails stops the table (the log keeps every move before)."""
        s = self.state
        text = s.action_to_string(action)
        self._note_answer(seat, action)
        try:
            s.apply_action(action, seconds)
        except GamedslError as exc:
            self._stop(str(exc))
            return
        self.moves_applied += 1
        self.active = time.monotonic()
        if self.writer is not None:
            self.writer.move(s.moves, seat, action, text, s.times.get(s.moves - 1))
            if s.is_terminal():
                self.writer.end(s)

    def _stop(self, why: str):
        """The game cannot go on (a rule failed): the table stops, its log keeps every move before."""
        self.stopped = why
        if self.store is not None:
            self.store.set_status(self.id, "stopped")

    async def _commit(self):
        """Write the moves played to the log (in a thread: the other tables go on meanwhile)."""
        writer = self.writer
        if writer is None or not writer.pending:
            return
        await asyncio.get_running_loop().run_in_executor(LOG_WRITER, writer.commit)
        if self.state.is_terminal():
            writer.close()
            self.writer = None
            if self.store is not None:
                self.store.set_status(self.id, "over")

    def pace(self) -> float:
        """How long after a move comes the table shows what it led to (0: at once). Who is asked in a
        reaction window or race follows the cards, and a bot asked answers before anyone is shown the
        move (a person could otherwise time their own move's answer, or a move sent at once, against
        the bot's thinking): so at a table where a bot may be asked, every move is shown the same time
        after it came, the bots' answers inside that time, whether any bot was asked or none."""
        prog = self.game.prog
        windows = bool(prog.reactions) or prog.races
        return self.settings.answer_seconds if windows and any(not self.human(k) for k in range(len(self.seats))) \
            else 0.0

    async def _bot_answer(self, seat: int, deadline: float) -> int | None:
        """A bot's answer in the open window or race, worked out by `deadline` (else it lets the moment
        pass, as a person who does not answer in time does); None when the bot could not move (the
        table stops)."""
        drawn = self.bots.draw(self, seat)
        if drawn is not None:
            return drawn  # a random bot's answer: a dice roll, at once
        try:
            return await asyncio.wait_for(self.bots.choose(self, seat), max(0.0, deadline - time.monotonic()))
        except (asyncio.TimeoutError, TimeoutError):
            legal = self.state.legal_actions()
            action = self.state.default_answer()
            return action if action in legal else legal[0]
        except Exception as exc:  # noqa: BLE001 - as in drive
            self._stop(f"the bot at {self.game.player_name(seat)} could not move: {exc}")
            return None

    async def _settle(self, received: float | None = None, started: float | None = None):
        """Play the window answers held for the players the engine asks now and the bots' answers
        (worked out now, within the table's pace), then tell every client, the table's pace after
        `started` (when this began); `received`: when the move that started this arrived (for the
        figures)."""
        s = self.state
        started = time.monotonic() if started is None else started
        deadline = started + self.settings.answer_seconds
        while not self.stopped and not s.is_terminal():
            self._sync_window()
            if s.window is None:
                break
            p = s.current_player()
            if p in self.buffer:
                action, seconds = self.buffer.pop(p)
                self._apply(p, action, seconds)
            elif not self.human(p) and self.bots is not None and s.window[0] != "simultaneous":
                action = await self._bot_answer(p, deadline)
                if action is not None:
                    self._apply(p, action, None)
            elif not self.human(p) and self.bots is not None and (drawn := self.bots.draw(self, p)) is not None:
                self._apply(p, drawn, None)  # a random bot's secret choice: a dice roll, at once
            else:  # (a bot's secret choice is worked out by the driver: nobody's time tells anything there)
                break
        self._sync_window()
        if self.early is not None and (s.window is None or s.window_start != self.early[2]):
            player, move, _, at = self.early
            self.early = None
            if not s.is_terminal() and s.window is None and s.history == at.history and \
                    s.current_player() == player and move in s.pending[1]:
                self._apply(player, move, None)  # nobody reacted: the move made early stands
                await self._settle(received, started)
                return
            self.notices[player] = "the game changed before your move could be played: choose again"
        pace = self.pace()
        if pace:
            await asyncio.sleep(max(0.0, started + pace - time.monotonic()))
        await self._commit()
        await self.broadcast()
        if received is not None:
            self.metrics.append(time.monotonic() - received)
        if self.bot_to_move() is not None or self.bot_ahead() is not None:
            self.wake.set()

    def bot_to_move(self) -> int | None:
        """The bot the engine asks now (for its turn, or its answer in a window or race), or None."""
        s = self.state
        if self.stopped or s.is_terminal():
            return None
        p = s.current_player()
        return None if self.human(p) else p

    def bot_ahead(self) -> int | None:
        """The bot whose decision comes after the open reaction window, if it may make it now."""
        a = self.ahead
        return a.player if a is not None and not self.human(a.player) and self.ahead_asks(a.player) else None

    def _moment(self) -> tuple:
        return self.state.moves, self.window_key, self.early

    async def drive(self):
        """Play the bots' moves: a turn after the bot delay, a secret choice at once (a bot's answer in
        a reaction window or race is worked out in _settle, before anyone is shown the moment), the
        decision after a reaction window after the bot delay too (as a person makes it while the
        window is open: the moment to react ends when the next player has played). Each is worked out
        by the bot pool, outside the table's lock (people's answers and every other table go on
        meanwhile), and played only if the game has not moved on."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            while True:
                async with self.lock:
                    p = self.bot_to_move()
                    ahead = self.bot_ahead() if p is None else None
                    moment = self._moment()
                    delay = self.settings.bot_delay if (ahead is not None or self.state.window is None) else 0
                    if ahead is not None and not self.paused:  # people asked have reaction_seconds to react
                        delay = max(delay, self.settings.reaction_seconds - (time.monotonic() - self.window_opened))
                if p is None and ahead is None:
                    break
                if delay:
                    await asyncio.sleep(delay)
                async with self.lock:
                    if self._moment() != moment or (p is not None and self.bot_to_move() != p) or \
                            (ahead is not None and self.bot_ahead() != ahead):
                        continue
                    seat = p if p is not None else ahead
                    at = self.ahead.state if ahead is not None else None
                    thinking = asyncio.ensure_future(self.bots.choose(self, seat, at))  # the state is read now
                try:
                    action = await thinking
                except Exception as exc:  # noqa: BLE001 - the table says why it stopped, never stalls silently
                    async with self.lock:
                        self._stop(f"the bot at {self.game.player_name(seat)} could not move: {exc}")
                        await self.broadcast()
                    break
                async with self.lock:
                    if self._moment() != moment:
                        continue  # the game moved on while it thought (a deadline passed, say)
                    if ahead is not None:
                        self._move_on(action)
                    else:
                        self._apply(seat, action, None)
                    await self._settle()

    async def start(self):
        """Begin playing: the answers and bot moves that can go now, then the bots' turns."""
        async with self.lock:
            await self._settle()
            self.resumed = False  # only a window open at the restart waits for its people
        self.driver = asyncio.ensure_future(self.drive())
        self.wake.set()

    def away_for(self, seat: int) -> float:
        """How long nobody has been connected at a seat (0 while someone is)."""
        if any(c.seat == seat for c in self.conns):
            return 0.0
        return time.monotonic() - self.left.get(seat, self.active)

    async def replace(self, seat: int, spec: str):
        """The seat is played by a bot from now on (the host's choice, for a person gone away)."""
        async with self.lock:
            hand_over(self, seat, spec, f"the host gave {self.game.player_name(seat)} to the bot '{spec}'")
            self.buffer.pop(seat, None)
            await self._settle()
        self.wake.set()

    async def drop_seat(self, seat: int, why: str):
        """Close every connection of the seat's link, telling it why (the host gave the seat a new link)."""
        async with self.lock:
            gone = [c for c in self.conns if c.seat == seat]
            for conn in gone:
                self.conns.discard(conn)
                await self.send(conn, {"type": "closed", "message": why})
                try:
                    await conn.ws.close(code=1000)
                except Exception:  # noqa: BLE001 - already closed by its client
                    pass
            self.left[seat] = time.monotonic()
            await self.broadcast()

    async def set_name(self, seat: int, name) -> str | None:
        """A person's name for their seat, shown to everyone (None, or why it was refused)."""
        if seat == SPECTATOR:
            return "a spectator has no seat to name"
        if not isinstance(name, str):
            return "a name is a text"
        name = " ".join(name.split())[:MAX_NAME]
        if not name or not name.isprintable():
            return f"a name is 1 to {MAX_NAME} printable characters"
        async with self.lock:
            self.names[seat] = name
            if self.store is not None:
                self.store.set_names(self.id, self.names)
            await self.broadcast()
        return None

    async def close(self, why: str):
        """Nothing more is played here: every client is told why; the log keeps every move."""
        async with self.lock:
            self.stopped = why
            await self.stop()
            await self.broadcast()

    async def stop(self):
        if self.timer is not None:
            self.timer.cancel()
        if self.driver is not None:
            self.driver.cancel()
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    # ---- what each client is sent
    def frame(self, conn: Conn) -> dict | None:
        """Everything one client is shown now: its seat's view only (a spectator's: the public one).
        None when nothing changed for it since the last frame it was sent.

        While a reaction window is open, a seat sees the table as it was when the window opened
        (and, if asked, its own question, with the time left as it was first told): the others'
        answers, even how many there are, stay unseen until the window closes."""
        s, seat, game = self.state, conn.seat, self.game
        legal: list[int] = []
        window = None
        if s.window is not None and seat in self.asked and not self.answered(seat):
            legal, view, *_ = self.asked[seat]
            if conn.window is None or conn.window[0] != self.window_key:
                elapsed = self.held_since if self.paused else time.monotonic() - self.window_opened
                total = self.settings.window_seconds
                if self.bot_ahead() is not None:
                    total = min(total, self.settings.reaction_seconds)  # the bot next to move ends it then
                left = total - elapsed
                conn.window = (self.window_key, {"kind": s.window[0], "left": round(max(0.0, left), 2),
                                                 "total": total, "paused": self.paused, "clock": self.clock})
            window = conn.window[1]
        elif s.window is not None and self.ahead is not None:  # the table as it will be if nobody reacts
            view = self.ahead.view(seat)
            if self.ahead_asks(seat):
                legal = self.ahead.legal
        elif s.window is not None:
            view = self.frozen[seat] if seat in self.frozen else self._view(seat)
        else:
            view = self._view(seat)
            if s.current_player() == seat and not s.is_terminal() and not self.stopped:
                legal = game.display_order(s.pending[1])
        log = self.logs.setdefault(seat, SeatLog(seat))
        log.update(s)
        entries = log.entries[conn.log_sent:]
        answered = seat in self.asked and self.answered(seat) and not self.ahead_asks(seat)  # (then: its decision)
        frame = {"type": "state", "table": self.id, "game": game.name, "turn": view["move"] if legal else None,
                 "seat": None if seat == SPECTATOR else game.player_name(seat),
                 "seats": [{"name": game.player_name(k), "kind": kind, "nickname": self.names[k],
                            "online": any(c.seat == k for c in self.conns)} for k, kind in enumerate(self.seats)],
                 "options": self.option_texts, "rematch": self.rematch.get(seat),
                 "view": view, "legal": [{"move": a, "text": game.action_to_string(a)} for a in legal],
                 "window": window, "answered": answered,
                 "over": s.is_terminal(), "stopped": self.stopped}
        notice = self.notices.pop(seat, None) if seat != SPECTATOR else None
        if notice:
            frame["notice"] = notice
        same = frame == conn.last and not entries
        conn.last = dict(frame)
        frame["log_from"], frame["log"] = conn.log_sent, entries
        conn.log_sent += len(entries)
        return None if same else frame

    def _view(self, seat: int) -> dict:
        """A seat's observation (a spectator's: the public view), without its question."""
        if seat == SPECTATOR:
            return public_view(self.state)
        view = self.state.observation(seat)
        view.pop("legal", None)
        view.pop("window", None)
        return view

    async def send(self, conn: Conn, frame: dict):
        try:
            await conn.ws.send_text(json.dumps(frame, ensure_ascii=False))
        except Exception:  # the client went away: its socket handler removes it
            self.conns.discard(conn)

    async def broadcast(self, conns=None):
        """Tell every client (or those of `conns`) what changed for it (a client whose view did not
        change is sent nothing: even the number of frames tells nothing it may not know)."""
        frames = [(c, self.frame(c)) for c in list(self.conns if conns is None else conns)]
        await asyncio.gather(*(self.send(c, f) for c, f in frames if f is not None))

    async def join(self, conn: Conn):
        """A new client: it is sent its frame; the others only when the seat comes online (or a window
        opened meanwhile), the one thing a join changes for them. So a join costs one frame, not one
        per client."""
        async with self.lock:
            self.active = time.monotonic()
            came_online = conn.seat != SPECTATOR and all(c.seat != conn.seat for c in self.conns)
            self.joined.add(conn.seat)
            window = self.window_key
            self.conns.add(conn)
            self._sync_window()
            if self.paused:
                self._resume_clock(self.window_key, only_if_back=True)
            await self.broadcast(None if came_online or self.window_key != window else [conn])

    async def leave(self, conn: Conn):
        """A client went away: the others are told only when its seat goes offline."""
        async with self.lock:
            self.conns.discard(conn)
            self.active = time.monotonic()
            if conn.seat != SPECTATOR and all(c.seat != conn.seat for c in self.conns):  # it went offline
                self.left[conn.seat] = self.active
                await self.broadcast()


def _why(state, move: int) -> str:
    """Why a move is refused, from the state at the seat's own question."""
    if move < 0 or move >= state.game.num_distinct_actions():
        return f"there is no move number {move}"
    try:
        return state.explain(move)
    except (IllegalAction, GamedslError) as exc:
        return str(exc)
