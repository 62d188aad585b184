"""Bots that choose moves: uniformly random, and greedy on the game's declared heuristic."""
from __future__ import annotations

import random


class RandomAgent:
    """Picks a legal move uniformly at random, from its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]


class GreedyAgent:
    """Plays the move after which the game's `heuristic` is best for it; ties are broken at random.

    It looks one move ahead: it applies each legal move to a clone and evaluates the result.
    A game without a `heuristic` only makes it prefer moves that win at once.
    """

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        me = state.current_player()
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        best, best_value = [], None
        for action in legal:
            after = state.clone()
            after.apply_action(action)
            value = after.evaluate(me)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[self.rng.randrange(len(best))]


BOTS = {"random": RandomAgent, "greedy": GreedyAgent}


def make_bot(kind: str, seed: int):
    """A bot by name; raises KeyError for an unknown kind."""
    return BOTS[kind](seed)
