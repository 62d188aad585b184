"""Shuffles that draw exactly what `random.Random.shuffle` draws, and order the list alike, without
its call per card: a deck is shuffled at every deal of every playout (a 52-card shuffle was a
fifth of a random hand of two-player Hold'em). The same seed must give the same game as it
always did (old logs replay by their seeds), so where this Python's `shuffle` is not the
algorithm written here (checked once, at import), its own is used."""
from __future__ import annotations

import random


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle `items` in place as rng.shuffle(items) does: the same draws, the same order."""
    if _SAME and rng.__class__ is random.Random:
        _drawn(rng, items)
    else:
        rng.shuffle(items)


def _drawn(rng: random.Random, items: list) -> None:
    """Random.shuffle with Random._randbelow_with_getrandbits written in its loop."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1  # the place to swap with, below n
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def _same_as_python() -> bool:
    """Whether this Python's Random.shuffle orders lists as `_drawn` does, from the same states."""
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(seed * 7 % 60)), list(range(seed * 7 % 60))
        _drawn(ours, a)
        theirs.shuffle(b)
        if a != b or ours.getstate() != theirs.getstate():
            return False
    return True


_SAME = _same_as_python()
