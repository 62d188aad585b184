"""The reaction windows and races of a table (a mixin of table.Table): who is asked what when one
opens, its clock (and, after a restart, its clock waiting for people to be back), the decision after
it as it comes if nobody reacts (Ahead: shown at once to everyone not asked), and its deadline."""
from __future__ import annotations

import asyncio
import time

from ...errors import GamedslError
from .views import SPECTATOR, public_view

class Ahead:
    """The decision a reaction window was opened before, as it comes if nobody reacts: its player,
    their legal moves (in display order), the state at it, and each seat's view of it."""

    def __init__(self, state, player: int, legal: list[int]):
        self.state, self.player, self.legal = state, player, legal
        self.views: dict[int, dict] = {}

    def view(self, seat: int) -> dict:
        if seat not in self.views:
            if seat == SPECTATOR:
                self.views[seat] = public_view(self.state)
            else:
                view = self.state.observation(seat)
                view.pop("legal", None)
                view.pop("window", None)
                self.views[seat] = view
        return self.views[seat]


class Windows:
    """The open reaction window or race of a Table (its attributes are set by Table.__init__)."""

    def ahead_asks(self, seat: int) -> bool:
        """Whether a seat may already answer the decision that comes after the open reaction window
        (it is that decision's player, is not asked in the window or has let it pass, and has not
        answered the decision yet). A seat that reacted in the window has changed what comes next
        itself (reactions to its reaction, then that decision or another): it waits like the rest."""
        a = self.ahead
        return a is not None and seat == a.player and self.early is None and \
            (seat not in self.asked or (self.answered(seat) and self._let_pass(seat)))

    def _let_pass(self, seat: int) -> bool:
        """Whether a seat's answer in the open window is no reaction (held, or already played)."""
        if seat in self.buffer:
            return self.buffer[seat][0] == self.no_reaction
        return any(a[2] == seat and a[3] == self.no_reaction for a in self.state.window[3])

    def _sync_window(self):
        """Notice a reaction window that opened: work out who is asked what, and start its clock."""
        s = self.state
        if s.window is None:
            if self.window_key is not None:
                self._window_closed()
            return
        if s.window_start == self.window_key:
            return
        if self.window_key is not None:
            self._window_closed()
        self.window_key = s.window_start
        self.window_opened = time.monotonic()
        self.frozen = {seat: self._view(seat) for seat in [SPECTATOR, *range(s.np)]}
        self.asked, self.ahead = self._window_questions()
        self.buffer = {}
        self.held_since = 0.0
        if self.store is not None:  # answers received before a restart, not yet played
            for seat, (action, seconds) in self.store.answers(self.id, s.window_start).items():
                if seat in self.asked and seat in s.window[2] and action in self.asked[seat][0]:
                    self.buffer[seat] = (action, seconds)
                    self.saved = True
            if self.buffer:  # those who answered before the restart stay faster than those after it
                self.held_since = max(seconds for _, seconds in self.buffer.values())
        for seat, (_, _, moment) in list(self.asked.items()):  # nothing new to them: not asked
            if self.human(seat) and seat not in self.buffer and \
                    not moment.window_matters(seat, self.passed.get(seat, ())):
                self.buffer[seat] = (self.no_reaction, 0.0)
                del self.asked[seat]
        if not any(self.human(p) for p in self.asked) or s.window[0] == "simultaneous":
            return  # a secret choice has no clock: the table waits for everyone (a host may seat a bot)
        if self.resumed:  # a window open when the server stopped: its clock waits for the people asked
            self.paused = True
            self.clock = time.time_ns()
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(self.settings.window_seconds, self._resume_clock, s.window_start)
            self._resume_clock(s.window_start, only_if_back=True)
        else:
            self._start_clock(self.settings.window_seconds)
        self.resumed = False

    def _start_clock(self, seconds: float):
        """The window's clock runs from now, `seconds` left to its deadline (less what answers held
        from before a restart took: they stay faster)."""
        self.paused = False
        self.window_opened = time.monotonic() - self.held_since
        self.clock = time.time_ns()  # (a page starts its countdown anew when this changes: after a restart too)
        loop = asyncio.get_running_loop()
        if self.timer is not None:
            self.timer.cancel()
        self.timer = loop.call_later(max(0.0, seconds - self.held_since), self._deadline, self.window_key)

    def _resume_clock(self, window: int, only_if_back: bool = False):
        """After a restart: the window's clock starts once every person asked who has not answered is
        back (or after a grace of --window-seconds), so nobody loses the time the server was down."""
        if not self.paused or window != self.window_key:
            return
        back = all(any(c.seat == p for c in self.conns) for p in self.asked if self.human(p) and not self.answered(p))
        if back or not only_if_back:
            self._start_clock(self.settings.window_seconds)
            for conn in self.conns:
                conn.window = None  # the time left is told anew
            if not only_if_back:
                asyncio.ensure_future(self._tell())

    async def _tell(self):
        async with self.lock:
            await self.broadcast()

    def _window_closed(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.saved and self.store is not None:
            self.store.drop_answers(self.id)
        self.window_key, self.asked, self.buffer, self.saved, self.frozen = None, {}, {}, False, {}
        self.ahead = None

    def _window_questions(self) -> tuple[dict, Ahead | None]:
        """Every seat the open window will ask, with its legal answers and its view at that moment;
        and, for a reaction window before a decision, that decision as it comes if nobody reacts.

        The engine asks them one after the other and nothing changes between the questions, so a
        copy of the state, answered for each seat in turn (by letting the moment pass where
        possible), reaches each seat's question; people see theirs all at once. Answered on to the
        window's end, the copy reaches the decision the window was opened before: what the table
        shows everyone not asked (nothing of the window: no pause, no changed header), and a
        question its player may answer at once."""
        s = self.state.clone()
        start, kind = s.window_start, s.window[0]
        out = {}
        while s.window is not None and s.window_start == start and not s.is_terminal():
            p = s.current_player()
            legal = s.legal_actions()
            out[p] = (self.game.display_order(legal), s.observation(p), s.clone())
            try:
                s.apply_action(self.no_reaction if self.no_reaction in legal else legal[0], 0.0)
            except GamedslError:  # the copy's window closed and a rule failed: the real game will say so
                return out, None
        if kind != "react" or s.is_terminal() or s.window is not None or s.pending is None:
            return out, None
        return out, Ahead(s, s.current_player(), self.game.display_order(s.legal_actions()))


    def _note_answer(self, seat: int, action: int):
        """Remember what a person let pass in a reaction window (State.window_matters): they are not
        asked again until a window offers something new, or comes before their own decision."""
        s = self.state
        if s.window is not None and s.window[0] == "react" and self.human(seat):
            self.passed[seat] = frozenset(s.legal_actions()) if action == self.no_reaction else frozenset()

    def answered(self, seat: int) -> bool:
        """Whether a seat asked in the open window has answered it."""
        return seat in self.asked and (seat in self.buffer or seat not in self.state.window[2])

    def _deadline(self, window: int):
        """The window's time is up: people who have not answered let the moment pass (in a race, its
        default, the last answer it lists, is theirs), timed at the deadline."""
        async def run():
            async with self.lock:
                if self.window_key != window or self.state.window is None:
                    return
                for seat, (legal, _, moment) in self.asked.items():
                    if self.human(seat) and not self.answered(seat):
                        action = moment.default_answer()
                        action = action if action in legal else legal[0]
                        self.buffer[seat] = (action, round(self.settings.window_seconds, 3))
                await self._settle()
            self.wake.set()
        asyncio.ensure_future(run())
