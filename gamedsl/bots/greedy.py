"""The greedy bot: the move after which the game's declared heuristic is best, on average over
worlds consistent with what it knows."""
from __future__ import annotations

import random

from ..engine.knowledge import SEARCH, Redealer


class GreedyAgent:
    """Plays the move after which the game's `heuristic` is best for it; ties are broken at random.

    It looks one move ahead, and plays fair: it never reads cards it cannot see. It samples
    worlds consistent with what it knows (the unseen cards dealt again among their places, with
    the same backs, and a fresh future for shuffles), applies each legal move in each world, and
    plays the move with the best average heuristic. The cards it was shown count as known, so a
    peek at a hidden card sharpens its play. When a move leads to another decision of its own
    (keep a card, then choose what to discard; pass three cards one by one), it plays those on
    as it would, each the best one step ahead, up to `lookahead` decisions (into a reaction window
    it is asked in, whose other answers are settled, but not into a race or simultaneous choice,
    whose outcome is a matter of random reaction times or secret choices), and counts where they
    lead: their cost adds up instead of multiplying. It samples up to `samples` worlds, and
    no more once `budget` moves have been tried (one world at least), so a wide decision costs
    about as much as a narrow one. A move that wins ranks above every move that does not, and one
    that loses below, whatever the heuristic's scale (State.value). A game without a `heuristic`
    only makes it prefer moves that win at once.
    """

    name = "greedy"

    def __init__(self, seed: int = 0, samples: int = 8, lookahead: int = 2, budget: int = 200):
        self.rng = random.Random(seed)
        self.samples = samples
        self.lookahead = lookahead
        self.budget = budget
        self.tried = 0  # moves tried for the decision being made

    def choose(self, state) -> int:
        me = state.current_player()
        legal = sorted(state.legal_actions())  # in a fixed order: the real one may follow hidden cards
        if len(legal) == 1:
            return legal[0]
        self.tried = 0
        totals = [[0.0, 0.0] for _ in legal]  # per move, summed over worlds: its State.value (return, heuristic)
        worlds = Redealer(state, me)
        fit = None
        for _ in range(self.samples if worlds else 1):
            world = worlds.deal(self.rng, reseed=True, past=False, tries=20 if fit else 200, search=0 if fit else SEARCH)
            if world is None:
                if fit is None:  # no deal fits what the seat saw: nothing to judge by (never the real cards)
                    return legal[self.rng.randrange(len(legal))]
                world = _reseeded(fit, self.rng)  # the last that did, with another future
            else:
                fit = world
            for i, action in enumerate(legal):
                ret, heuristic = self._after(world, action, me)
                totals[i][0] += ret
                totals[i][1] += heuristic
            if self.tried >= self.budget:
                break
        top = max(totals)  # the most won (or least lost) over the worlds first, then the heuristic
        best = [a for a, v in zip(legal, totals) if v == top]
        return best[self.rng.randrange(len(best))]

    def _after(self, world, action: int, me: int) -> tuple[float, float]:
        """The value for `me` of a move, its own next decisions played on, each the best one step ahead.

        No lookahead from an answer in a reaction window or race, nor into a race: what follows
        meets random reaction times, and two moves compared on different random outcomes would be
        compared by chance (a slap on the wrong card looked good whenever the next card turned up
        a jack). Such an answer is judged by where it leads once the moment is settled. A reaction
        window the move opens for `me` is followed: «ЛОЛ!» said as the last card but one is played
        is part of the move (judged before it is said, the play looked worse than drawing)."""
        answering = world.window is not None
        after = self._try(world, action, me)
        for _ in range(0 if answering else self.lookahead):
            if after.terminal or after.current_player() != me or _racing(after):
                break
            after = max((self._try(after, a, me) for a in after.legal_actions()), key=lambda w: w.value(me))
        return after.value(me)

    def _try(self, world, action: int, me: int):
        """A copy of the world with the move made and the others' answers to it given."""
        after = world.clone(past=False)
        after.apply_action(action)
        _settle(after, me)
        self.tried += 1
        return after


def _racing(state) -> bool:
    """Whether a race or simultaneous choice is open: its outcome is a matter of chance (reaction
    times, the others' secret choices), so no lookahead goes into it. A reaction window the player
    is asked in is followed: what they say as they play ("ЛОЛ!" with their last card but one) is
    part of the move, and the others' answers in it are already settled."""
    return state.window is not None and state.window[0] != "react"


def _reseeded(state, rng):
    """A copy with a fresh random future (the cards as they are)."""
    other = state.clone(past=False)
    other.reseed(rng.getrandbits(64))
    return other


def _settle(state, me: int):
    """Let the others answer an open reaction window or race, so a move's effect shows: each
    answers what is best for them if everyone after them lets the moment pass (a player with one
    card left who does not say so is caught; a slap on a card that costs the slapper is not made).
    In a simultaneous choice, where nobody's choice is faster than another's, they give its
    default: every seat judges its own choice against the same plain guess of the others'."""
    while state.window is not None and not state.terminal and state.current_player() != me:
        legal = state.legal_actions()
        if len(legal) > 1 and state.window[0] != "simultaneous":
            p = state.current_player()
            legal = [max(legal, key=lambda a: _answer_value(state, a, p))]
        state.apply_action(_passing(state, legal))


def _passing(state, legal: list) -> int:
    """The move that lets a moment pass: no reaction, or a race's default (else the first move)."""
    default = state.default_answer()
    return default if default in legal else legal[0]


def _answer_value(state, action: int, player: int) -> tuple[float, float]:
    """How good an answer in a reaction window or race is for the player making it, if everyone
    after them lets the moment pass."""
    after = state.clone(past=False)
    after.apply_action(action)
    while after.window is not None and not after.terminal and after.pending is not None:
        after.apply_action(_passing(after, after.legal_actions()))
    return after.value(player)
