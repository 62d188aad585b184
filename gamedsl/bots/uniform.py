"""The random bot: a legal move, uniformly at random."""
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
