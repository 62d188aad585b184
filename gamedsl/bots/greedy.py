"""The greedy bot: the move after which the game's declared heuristic is best, on average over
worlds consistent with what it knows."""
from __future__ import annotations

import random

from ..engine.knowledge import hidden_slots, redeal


class GreedyAgent:
    """Plays the move after which the game's `heuristic` is best for it; ties are broken at random.

    It looks one move ahead, and plays fair: it never reads cards it cannot see. It samples
    `samples` worlds consistent with what it knows (the unseen cards dealt again among their
    places, with the same backs, and a fresh future for shuffles), applies each legal move in
    each world, and plays the move with the best average heuristic. The cards it was shown
    count as known, so a peek at a hidden card sharpens its play. When a move leads to
    another decision of its own (keep a card, then choose what to discard), it plays those
    out too, up to `lookahead` decisions deep, and counts the best of them. A game without
    a `heuristic` only makes it prefer moves that win at once.
    """

    name = "greedy"

    def __init__(self, seed: int = 0, samples: int = 8, lookahead: int = 2):
        self.rng = random.Random(seed)
        self.samples = samples
        self.lookahead = lookahead

    def choose(self, state) -> int:
        me = state.current_player()
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        n = self.samples if hidden_slots(state, me) else 1
        worlds = [w for w in (redeal(state, me, self.rng, reseed=True, past=False) for _ in range(n)) if w]
        if not worlds:  # no other deal fits what was shown: only the real cards do
            worlds = [_reseeded(state, self.rng)]
        best, best_value = [], None
        for action in legal:
            value = 0.0
            for world in worlds:
                value += self._after(world, action, me, self.lookahead)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[self.rng.randrange(len(best))]

    def _after(self, world, action: int, me: int, depth: int) -> float:
        """The value for `me` of a move, playing out its own next decisions `depth` deep."""
        after = world.clone(past=False)
        after.apply_action(action)
        _settle(after, me)
        if depth == 0 or after.terminal or after.current_player() != me:
            return after.evaluate(me)
        return max(self._after(after, a, me, depth - 1) for a in after.legal_actions())


def _reseeded(state, rng):
    """A copy with a fresh random future (the cards as they are)."""
    other = state.clone(past=False)
    other.reseed(rng.getrandbits(64))
    return other


def _settle(state, me: int):
    """Let the others answer an open reaction window or race, so a move's effect shows: each
    answers what is best for them if everyone after them let the moment pass (a player with one
    card left who does not say so is caught), in a race they make their first move."""
    while state.window is not None and not state.terminal and state.current_player() != me:
        legal = state.legal_actions()
        if len(legal) > 1 and state.window[0] == "react":
            p = state.current_player()
            legal = [max(legal, key=lambda a: _answer_value(state, a, p))]
        state.apply_action(_passing(state, legal))


def _passing(state, legal: list) -> int:
    """The move that lets a moment pass (in a race, the first move)."""
    no_reaction = state.prog.no_reaction.first_id if state.prog.no_reaction is not None else None
    return no_reaction if no_reaction in legal else legal[0]


def _answer_value(state, action: int, player: int) -> float:
    """How good an answer in a reaction window is for the player making it, if nobody after them reacts."""
    after = state.clone(past=False)
    after.apply_action(action)
    while after.window is not None and not after.terminal and after.pending is not None:
        after.apply_action(_passing(after, after.legal_actions()))
    return after.evaluate(player)
