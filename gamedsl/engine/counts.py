"""Pattern questions answered by counting: whether some of a pool of cards make a kind, a flush or a
plain run, from the pool's counts per class (or its positions, as bits), before the general solver.

A `decider(card_attrs, shape, spec)` is worked out once per pattern and Spec; it answers
`can(chosen, pool)` (all of `chosen` with some of `pool` make the pattern) for the commonest
patterns, and is None for the others, which the solver (engine/patterns.py) answers:

- one `same` attribute and nothing else (a kind, a flush), merged values and wild cards
  included: the class of the chosen cards (or the pool's largest class), with its wild
  cards, reaches the size;
- a run and nothing else (a straight): some window of `size` positions of an order that holds
  the chosen cards and whose free positions the wild cards can fill.

Each answers exactly what patterns.can_make answers, repeated cards counted as it counts them (tests/test_pattern_counts.py holds them together).
"""
from __future__ import annotations

from .patterns import Shape, Spec
from .solver import _starts


def decider(card_attrs: dict, shape: Shape, spec: Spec):
    """A function (chosen, pool) -> bool answering can_make(shape, spec, chosen, pool), or None
    when counts cannot decide this pattern (required values, a range of sizes, a run of one
    shared class)."""
    if spec.withs or spec.most or shape.grouped or shape.each > 1:
        return None
    if shape.run is None and len(shape.same) == 1:
        return _shared(card_attrs, shape.same[0], spec)
    if shape.run is not None and not shape.same and all(0 <= o.positions[0] and o.positions[-1] < MAX_BIT
                                                        for o in shape.orders if o.positions):
        return _run(shape, spec)
    return None


MAX_BIT = 1024  # a run's positions become bits of an int: a value table's numbers past this (or below 0) are left to the solver


def _shared(card_attrs: dict, attr: str, spec: Spec):
    """can_make of `size cards, same ATTR`: the class every chosen card that is not wild has (or,
    with none, the pool's largest class), with the wild cards, reaches the size."""
    vals = card_attrs[attr]
    cls = dict(spec.classes).get(attr)
    wilds = dict(spec.wild).get(attr, ())
    n_classes = (max(cls) + 1) if cls is not None else (max(vals) + 1 if vals else 0)
    wild_slot, none_slot = n_classes, n_classes + 1
    slot = tuple(wild_slot if c in wilds else none_slot if v < 0 else cls[v] if cls is not None else v
                 for c, v in enumerate(vals))
    size = spec.size

    def can(chosen, pool) -> bool:
        if chosen:
            pool = _unchosen(chosen, pool, size)
            if pool is None:
                return False
            fixed = {slot[c] for c in chosen} - {wild_slot}
            if fixed:
                if len(fixed) > 1 or none_slot in fixed or len(chosen) + len(pool) < size:
                    return False
                target = fixed.pop()
                return len(chosen) + sum(1 for c in pool if slot[c] == target or slot[c] == wild_slot) >= size
        if len(chosen) + len(pool) < size:
            return False
        counts = [0] * (n_classes + 2)
        for c in pool:
            counts[slot[c]] += 1
        return len(chosen) + counts[wild_slot] + max(counts[:n_classes], default=0) >= size
    return can


def _run(shape: Shape, spec: Spec):
    """can_make of `size cards, run of ATTR [or TABLE]`: some window of an order that holds the
    chosen cards, each at its own position, and whose other positions the cards hold, but for as
    many as they have wild cards."""
    size = spec.size
    wilds = dict(spec.wild).get(shape.run, frozenset())
    tables = []
    for order in shape.orders:
        bits = tuple(0 if c in wilds else -1 if p is None else 1 << p for c, p in enumerate(order.position))
        windows = tuple(((1 << size) - 1) << p for p in _starts(order, size))
        if windows:
            tables.append((bits, windows))

    def can(chosen, pool) -> bool:
        if chosen:
            pool = _unchosen(chosen, pool, size)
            if pool is None:
                return False
        if len(chosen) + len(pool) < size:
            return False
        n_wild = sum(1 for c in pool if c in wilds) + sum(1 for c in chosen if c in wilds) if wilds else 0
        for bits, windows in tables:
            occ = 0
            for c in chosen:
                b = bits[c]
                if b < 0 or b & occ:
                    break  # a chosen card with no place in this order, or two at one place
                occ |= b
            else:
                held = occ
                for c in pool:
                    b = bits[c]
                    if b > 0:
                        held |= b
                for w in windows:
                    if w & occ == occ and (w & ~held).bit_count() <= n_wild:
                        return True
        return False
    return can


def _unchosen(chosen, pool, size: int):
    """The cards of the pool that are not chosen; None when more cards are chosen than the pattern holds."""
    if len(chosen) > size:
        return None
    taken = set(chosen)
    return [c for c in pool if c not in taken]
