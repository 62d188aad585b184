"""Laus in plain Python behind the engine's interface: a state you ask for its legal moves, give a
move, copy; the second yardstick of the benchmarks.

`plain_laus.py` drives a whole game in one loop that calls the players back; nothing stops
between two moves, so it pays for no interface at all. A search bot cannot use that shape: it
needs a game in progress it can stop at a decision, copy and continue from any move, which is
what gamedsl's `State` (and OpenSpiel's) offers. This file is Laus written by hand in that shape,
with the same rules and the same shuffles as `plain_laus.py` (tests/test_oracle.py proves that
both play the same games), so that the benchmarks can tell apart what the interface costs and
what running a game from its .game file costs.

Moves: a card id 0..31 (put back, play), LOOK and PASS.
"""
from __future__ import annotations

import random

from bench.plain_laus import BONUS, DEAL_POSITIONS, FAMILY, POINTS, PUTBACK_OK, QUEEN_OF_DIAMONDS, STRENGTH

LOOK, PASS = 32, 33
_LOOK, _PUT, _PLAY = range(3)


class LausState:
    """One game of Laus in progress, stopped at the decision of `seat`."""

    __slots__ = ("n", "rng", "target", "scores", "dealer", "deck", "hands", "skat", "won", "tricks",
                 "passes", "phase", "order", "step", "seat", "legal", "led", "best", "winner",
                 "trick", "terminal", "moves")

    def __init__(self, n: int, seed: int, target: int = 1500, _copy: bool = False):
        if _copy:
            return
        self.n, self.target = n, target
        self.rng = random.Random(seed)
        self.dealer = self.rng.randrange(n)
        self.scores = [0] * n
        self.deck = list(range(32))
        self.terminal = False
        self.moves = self.step = self.led = self.best = self.winner = 0
        self.trick = []
        self._deal()

    # ---- the interface
    def legal_actions(self) -> list[int]:
        return list(self.legal)

    def is_terminal(self) -> bool:
        return self.terminal

    def apply_action(self, action: int) -> None:
        if self.terminal or action not in self.legal:
            raise ValueError(f"move {action} is not legal now")
        self.moves += 1
        if self.phase == _PLAY:
            self._play(action)
        elif self.phase == _PUT:
            hand = self.hands[self.seat]
            hand.remove(action)
            self.skat.append(action)
            self.step -= 1
            if self.step:
                self.legal = [c for c in hand if PUTBACK_OK[c]]
            else:
                self._next_look(self.order.index(self.seat) + 1)
        elif action == LOOK:
            hand = self.hands[self.seat]
            hand += self.skat
            hand.sort()
            self.skat = []
            self.phase, self.step = _PUT, 2
            self.legal = [c for c in hand if PUTBACK_OK[c]]
        else:
            self.passes += 1
            self._next_look(self.order.index(self.seat) + 1)

    def clone(self) -> LausState:
        c = LausState(0, 0, _copy=True)
        for name in ("n", "target", "dealer", "led", "best", "winner", "phase", "step", "seat",
                     "passes", "terminal", "moves", "order"):
            setattr(c, name, getattr(self, name))
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        c.scores, c.deck, c.skat, c.tricks = list(self.scores), list(self.deck), list(self.skat), list(self.tricks)
        c.hands, c.won = [list(h) for h in self.hands], [list(w) for w in self.won]
        c.trick, c.legal = list(self.trick), list(self.legal)
        return c

    # ---- the rules (plain_laus.play_game and play_deal, stopped at each decision)
    def _deal(self) -> None:
        n, deck = self.n, self.deck
        self.rng.shuffle(deck)
        positions, skat_positions = DEAL_POSITIONS[n]
        self.hands = [[] for _ in range(n)]
        for k, where in enumerate(positions):
            self.hands[(self.dealer + 1 + k) % n] = sorted([deck[i] for i in where])
        self.skat = [deck[i] for i in skat_positions]
        self.order = [(self.dealer + 1 + k) % n for k in range(n)]
        self.won = [[] for _ in range(n)]
        self.tricks = [0] * n
        self.passes = 0
        if self.skat:
            self._next_look(0)
        else:
            self._lead(self.order[0])

    def _next_look(self, k: int) -> None:
        if k < self.n:
            self.phase, self.seat, self.legal = _LOOK, self.order[k], [LOOK, PASS]
        else:
            self._lead(self.order[0])

    def _lead(self, seat: int) -> None:
        self.phase, self.seat, self.trick = _PLAY, seat, []
        self.legal = list(self.hands[seat])

    def _play(self, c: int) -> None:
        seat, n = self.seat, self.n
        self.hands[seat].remove(c)
        trick = self.trick
        trick.append(c)
        if len(trick) == 1:
            self.led = FAMILY[c]
            self.winner, self.best = seat, STRENGTH[self.led][c]
        elif STRENGTH[self.led][c] > self.best:
            self.winner, self.best = seat, STRENGTH[self.led][c]
        if len(trick) < n:
            seat = seat + 1 if seat + 1 < n else 0
            self.seat = seat
            hand = self.hands[seat]
            led = self.led
            self.legal = [x for x in hand if FAMILY[x] == led] or list(hand)
            return
        winner = self.winner
        self.won[winner] += trick
        self.tricks[winner] += 1
        if self.hands[winner]:
            self._lead(winner)
            return
        self.won[winner] += self.skat  # the last trick takes the skat
        self._score()

    def _score(self) -> None:
        factor = 2 ** self.passes * 2 ** self.tricks.count(0)
        n_tricks = sum(self.tricks)
        for seat, (pile, taken) in enumerate(zip(self.won, self.tricks)):
            if taken == n_tricks:
                self.scores[seat] += -120 * 2 ** self.passes
            else:
                bonus = 0 if QUEEN_OF_DIAMONDS in pile else sum(BONUS[c] for c in pile)
                self.scores[seat] += (sum(POINTS[c] for c in pile) + bonus) * factor
        if max(self.scores) >= self.target:
            self.terminal, self.legal = True, []
            return
        self.dealer = (self.dealer + 1) % self.n
        self._deal()


def play_random_game(n_players: int, seed: int) -> int:
    """A uniformly random game through the interface, as bench/run.py plays gamedsl's: its moves."""
    state = LausState(n_players, seed)
    choice = random.Random(seed).choice
    while not state.is_terminal():
        state.apply_action(choice(state.legal_actions()))
    return state.moves
