"""A move that chooses several cards at once (`(cs in combinations(me.hand, pair or straight by
rank))`, language/combinations.py): which of its shapes a hand holds and makes, and a shape's cards.
The generated code reads them as `_combinations` and `_pick` (namespace)."""
from __future__ import annotations

from .runtime import pattern_spec, rules_cache


def combinations(s, cards, table, shapes, ks: tuple, owner) -> list:
    """The legal shapes of a combinations choice (language/combinations.py), as (the shape's
    number, its cards): the cards hold it (the first of each value, in their order) and those
    cards make one of the patterns ks for `owner`. Kept by the cards and the patterns' Specs:
    the same hand is asked about again and again (by every bot's look-ahead)."""
    cache = rules_cache(s)
    specs = cache.get(("specs", ks, owner, s.me))
    if specs is None:  # (kept with the Specs themselves, until what they read changes)
        specs = cache["specs", ks, owner, s.me] = tuple(pattern_spec(s, k, owner) for k in ks)
    key = (id(shapes), tuple(cards), specs)
    memo = s.game.combinations
    found = memo.get(key)
    if found is not None:
        return found
    by: dict = {}
    for c in cards:
        v = table[c]
        if v >= 0:
            by.setdefault(v, []).append(c)
    masks = s.game.shape_masks.get(id(shapes))
    if masks is None:
        masks = s.game.shape_masks[id(shapes)] = shape_masks(shapes)
    held = shapes_held(masks, by)
    # makes(), inlined with the Specs in hand: a pattern of another size is not asked
    patterns, makes_spec = s.prog.patterns, s.game.matcher.makes_spec
    fits = [(patterns[k].shape, spec, spec.size, spec.most or spec.size) for k, spec in zip(ks, specs)
            if spec is not None]
    found = []
    while held:  # each shape held, in their order
        low = held & -held
        held ^= low
        i = low.bit_length() - 1
        picked: list = []
        for v, k in shapes[i]:
            picked += by[v][:k]
        n = len(picked)
        for pattern, spec, least, most in fits:
            if least <= n <= most and makes_spec(pattern, spec, picked):
                found.append((i, tuple(picked)))
                break
    if len(memo) >= COMBINATIONS_KEPT:
        memo.clear()
    memo[key] = found
    return found


COMBINATIONS_KEPT = 20_000  # the answers of combinations() a game keeps


def shape_masks(shapes) -> tuple:
    """Sets of shapes, as bits (shape i: 1 << i), to tell at once which shapes some cards hold:
    ({value: (the shapes needing more than 0 cards of it, ... more than 1, ...)}, all the shapes).
    The shapes that cards lack are the union, over each value, of those needing more of it than
    the cards have: a few unions instead of a look at every shape."""
    most: dict = {}
    for shape in shapes:
        for v, k in shape:
            most[v] = max(most.get(v, 0), k)
    fails = {v: [0] * k for v, k in most.items()}
    for i, shape in enumerate(shapes):
        for v, k in shape:
            for n in range(k):  # holding n cards of v, shape i lacks
                fails[v][n] |= 1 << i
    return {v: tuple(f) for v, f in fails.items()}, (1 << len(shapes)) - 1


def shapes_held(masks: tuple, by: dict) -> int:
    """The shapes (bits, as shape_masks gives them) that cards grouped by value ({value: cards})
    hold: all but those needing more cards of some value than there are."""
    lacking = 0
    for v, fails in masks[0].items():
        got = by.get(v)
        n = len(got) if got is not None else 0
        if n < len(fails):
            lacking |= fails[n]
    return masks[1] & ~lacking


def pick(cards, table, shape) -> tuple:
    """The cards of one shape: the first of each value among `cards`, in their order."""
    picked: list = []
    for v, k in shape:
        picked += [c for c in cards if table[c] == v][:k]
    return tuple(picked)


def namespace() -> dict:
    """The names the generated module reads from here."""
    return {"_combinations": combinations, "_pick": pick}
