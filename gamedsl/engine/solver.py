"""The pattern solver: whether exactly some cards, or some cards plus some of a pool, make a pattern
(engine/patterns.py's docstring says what a pattern's Shape and arguments mean; its Matcher
memoises these answers for the engine)."""
from __future__ import annotations

import bisect
import functools
import itertools

import attrs

from ..language.program import Order, Shape

__all__ = ["makes", "can_make"]


def makes(card_attrs, shape: Shape, size: int, withs: tuple, wild: tuple, classes: tuple, cards) -> bool:
    """Exactly `cards` (distinct ids) make the pattern."""
    return len(cards) == size and can_make(card_attrs, shape, size, withs, wild, classes, cards, ())


def can_make(card_attrs, shape: Shape, size: int, withs: tuple, wild: tuple, classes: tuple, chosen, pool) -> bool:
    """All of `chosen` plus some (maybe none) of `pool` make the pattern; pool cards also in chosen are ignored."""
    if len(chosen) > size:
        return False
    chosen = list(chosen)
    taken = set(chosen)
    rest = [c for c in pool if c not in taken]
    if len(chosen) + len(rest) < size:
        return False
    if shape.grouped is not None:
        return _grouped(card_attrs[shape.grouped], shape.groups, size, dict(wild).get(shape.grouped, ()),
                        dict(classes).get(shape.grouped), chosen, rest)
    if shape.each > 1:
        return _run_of_each(shape, size, dict(wild).get(shape.run, ()), chosen, rest)
    if shape.run is None and len(shape.same) == 1 and all(w[0] == shape.same[0] for w in withs):
        return _one_shared(card_attrs[shape.same[0]], shape.same[0], size, withs, wild, classes, chosen, rest)
    return _Query(card_attrs, shape, size, withs, wild, classes).solve(chosen, rest)


def _one_shared(vals: tuple, attr: str, size: int, withs: tuple, wild: tuple, classes: tuple, chosen: list,
                rest: list) -> bool:
    """can_make for the commonest shape, one shared attribute and nothing else (a kind, a flush):
    some class that every non-wild chosen card has, and enough cards of it or wild in all.
    It answers what _Query.solve answers (tests/test_patterns.py holds both to the oracle)."""
    cls = next((c for a, c in classes if a == attr), None)
    wilds = next((c for a, c in wild if a == attr), ())
    required = set()
    for w in withs:
        if len(w) == 3 and w[2] > size:
            return False  # every card of the pattern has the shared class: more cannot be asked
        required.add(cls[w[1]] if cls is not None else w[1])

    def klass(c: int):
        v = vals[c]
        return None if v < 0 else cls[v] if cls is not None else v
    fixed = {klass(c) for c in chosen if c not in wilds}
    if len(required) > 1:
        target = None  # two required classes: only cards wild for the attribute have both
    elif required:
        target = next(iter(required))
    elif fixed:
        if len(fixed) > 1 or None in fixed:
            return False
        target = next(iter(fixed))
    else:  # the chosen cards are wild (or none): the largest class of the rest
        counts, n_wild = _class_counts(rest, wilds, klass)
        return len(chosen) + n_wild + max(counts.values(), default=0) >= size
    if target is None:
        if fixed:
            return False
        return len(chosen) + sum(1 for c in rest if c in wilds) >= size
    if any(k != target for k in fixed):
        return False
    return len(chosen) + sum(1 for c in rest if c in wilds or klass(c) == target) >= size


def _class_counts(cards, wilds, klass) -> tuple[dict, int]:
    """The cards that are not wild counted by class (a card with no value not at all), and the wild ones."""
    counts: dict = {}
    n_wild = 0
    for c in cards:
        if c in wilds:
            n_wild += 1
        else:
            k = klass(c)
            if k is not None:
                counts[k] = counts.get(k, 0) + 1
    return counts, n_wild


def _grouped(vals: tuple, groups: tuple, size: int, wilds, cls, chosen: list, rest: list) -> bool:
    """can_make of `groups of ATTR 3 and 2` (a full house): each group a class of its own (or wild
    cards standing for a value no group has), every chosen card that is not wild in a group no
    larger than its class's chosen cards allow, and the wild cards used within those at hand."""
    if size != sum(groups):
        return False

    def klass(c: int):
        v = vals[c]
        return None if v < 0 else cls[v] if cls is not None else v
    have: dict = {}
    n_wild = 0  # the chosen wild cards: every one must stand in a group
    for c in chosen:
        if c in wilds:
            n_wild += 1
            continue
        k = klass(c)
        if k is None:
            return False
        have[k] = have.get(k, 0) + 1
    avail, more_wild = _class_counts(rest, wilds, klass)
    for k, n in have.items():
        avail[k] = avail.get(k, 0) + n
    if len(have) > len(groups):
        return False

    def assign(i: int, used: frozenset, least: int, most: int) -> bool:
        # least / most: the wild cards the groups assigned so far need at least, and can take at most
        if len(groups) - i < sum(1 for k in have if k not in used):
            return False  # a chosen class left without a group
        if i == len(groups):
            return max(least, n_wild) <= min(most, n_wild + more_wild)
        g = groups[i]
        for k, n in avail.items():
            if k not in used and have.get(k, 0) <= g \
                    and assign(i + 1, used | {k}, least + g - min(g, n), most + g - have.get(k, 0)):
                return True
        return assign(i + 1, used, least + g, most + g)  # wild cards only
    return assign(0, frozenset(), 0, 0)


def _run_of_each(shape: Shape, size: int, wilds, chosen: list, rest: list) -> bool:
    """can_make of `run of ATTR, N of each` (stairs of pairs): a window of size / N positions of one
    order, each with N cards of its place or wild, every chosen card that is not wild in it."""
    n = shape.each
    if size % n:
        return False
    length = size // n
    n_wild = sum(1 for c in chosen if c in wilds)
    more_wild = sum(1 for c in rest if c in wilds)
    for order in shape.orders:
        pos = order.position
        have: dict = {}
        for c in chosen:
            if c not in wilds:
                p = pos[c]
                if p is None or have.get(p, 0) >= n:
                    break
                have[p] = have.get(p, 0) + 1
        else:
            avail = dict(have)
            for c in rest:
                p = pos[c]
                if c not in wilds and p is not None:
                    avail[p] = avail.get(p, 0) + 1
            most = size - (len(chosen) - n_wild)  # the places the chosen cards leave for wild ones
            for p in _starts(order, length):
                if have and (min(have) < p or max(have) >= p + length):
                    continue
                least = sum(n - min(n, avail.get(q, 0)) for q in range(p, p + length))
                if max(least, n_wild) <= min(most, n_wild + more_wild):
                    return True
    return False


@functools.lru_cache(maxsize=1024)
def _places(order: Order, values: tuple[int, ...], cls: tuple | None) -> dict:
    """The positions each class of the run attribute has in the order, over the whole deck."""
    at: dict = {}
    for c, p in enumerate(order.position):
        v = values[c]
        if p is not None and v >= 0:
            at.setdefault(cls[v] if cls is not None else v, set()).add(p)
    return {k: frozenset(ps) for k, ps in at.items()}


_WILD = object()   # the group of the cards wild for an attribute


def _passes(c: int, tests: list) -> bool:
    """The card is wild for, or of the class of, each (values, classes, wild cards, class) test."""
    for vals, cls, wild, k in tests:
        if c in wild:
            continue
        v = vals[c]
        if k is None or v < 0 or (cls[v] if cls is not None else v) != k:
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _starts(order: Order, size: int) -> tuple[int, ...]:
    """The first positions of the windows of `size` consecutive positions that all belong to the order."""
    have = set(order.positions)
    return tuple(p for p in order.positions if all(p + i in have for i in range(1, size)))


class _Query:
    """One question's tables; `solve` tries every target (shared classes, order, window) in turn."""

    __slots__ = ("attrs", "shape", "size", "wild", "classes", "same_withs", "run_withs", "card_withs",
                 "run_wild", "impossible")

    def __init__(self, card_attrs, shape, size, withs, wild, classes):
        self.attrs = card_attrs
        self.shape = shape
        self.size = size
        self.wild = dict(wild)
        self.classes = dict(classes)
        self.same_withs: dict[str, set] = {}
        self.run_withs: list = []
        self.card_withs: list[tuple[str, int, int]] = []  # (attribute, class, how many cards)
        counts: dict[tuple, int] = {}
        for w in withs:
            a, v, n = w if len(w) == 3 else (*w, 1)
            k = self.value_class(a, v)
            counts[a, k] = max(counts.get((a, k), 0), n)
            if a in shape.same:
                self.same_withs.setdefault(a, set()).add(k)
            if a == shape.run:
                if k not in self.run_withs:
                    self.run_withs.append(k)
        self.impossible = False
        for (a, k), n in counts.items():
            if a in shape.same:
                self.impossible |= n > size  # every card of the pattern has the shared class
            elif a != shape.run:
                self.card_withs.append((a, k, n))
        if shape.run is not None:
            self.run_wild = self.wild.get(shape.run, ())

    def value_class(self, a: str, v: int):
        """The class of value index v of `a`."""
        cls = self.classes.get(a)
        return cls[v] if cls is not None else v

    def card_class(self, a: str, c: int):
        """The class of the card's value of `a`, or None if it has none."""
        v = self.attrs[a][c]
        if v < 0:
            return None
        cls = self.classes.get(a)
        return cls[v] if cls is not None else v

    def has(self, c: int, a: str, k) -> bool:
        """The card counts as having a value of class k for `a`."""
        return c in self.wild.get(a, ()) or self.card_class(a, c) == k

    # ---- shared classes
    def solve(self, chosen: list[int], rest: list[int]) -> bool:
        """Some target for the `same` attributes admits a completion."""
        if self.impossible:
            return False
        same = self.shape.same
        if not same:
            return self.complete(chosen, rest)
        # cards sorted by class once serve every target: a target's cards are its class plus the wild ones
        groups = [self.by_class(a, rest) for a in same]
        targets = []
        for a, by_class in zip(same, groups):
            ks = self.same_targets(a, chosen, by_class)
            if not ks:
                return False
            targets.append(ks)
        first = groups[0]
        for ks in itertools.product(*targets):
            tests = [self.test(a, k) for a, k in zip(same, ks)]
            if not all(_passes(c, tests) for c in chosen):
                continue
            elig = first.get(_WILD, [])
            if ks[0] is not None:
                elig = first.get(ks[0], []) + elig
            if len(tests) > 1:
                elig = [c for c in elig if _passes(c, tests[1:])]
            if len(chosen) + len(elig) >= self.size and self.complete(chosen, elig):
                return True
        return False

    def by_class(self, a: str, cards: list[int]) -> dict:
        """The cards by their class for `a`: wild ones under _WILD, ones with no value under None."""
        vals, cls, wild, _ = self.test(a, None)
        groups: dict = {}
        for c in cards:
            if c in wild:
                k = _WILD
            else:
                v = vals[c]
                k = None if v < 0 else cls[v] if cls is not None else v
            groups.setdefault(k, []).append(c)
        return groups

    def same_targets(self, a: str, chosen: list[int], by_class: dict) -> list:
        """The classes the cards could share for `a`; None stands for "wild cards only"."""
        required = self.same_withs.get(a)
        if required:
            # two required classes can only both hold when every card is wild for `a`
            return [next(iter(required))] if len(required) == 1 else [None]
        wild = self.wild.get(a, ())
        ks = {self.card_class(a, c) for c in chosen if c not in wild}
        if ks:
            return list(ks) if len(ks) == 1 and None not in ks else []
        return [k for k in by_class if k is not None and k is not _WILD] or [None]

    def test(self, a: str, k) -> tuple:
        """What `_passes` needs to check a card against class k (None: wild cards only) of `a`."""
        return self.attrs[a], self.classes.get(a), self.wild.get(a, ()), k

    # ---- required values of other attributes
    def complete(self, chosen: list[int], elig: list[int]) -> bool:
        """Some choice of cards for the unmet `withs` (other attributes) leaves a fillable pattern."""
        runs = self.run_tables(elig + chosen) if self.shape.run is not None else None
        return self.expand(chosen, elig, runs)

    def expand(self, cards: list[int], elig: list[int], runs) -> bool:
        """Add a card for each unmet `with`, trying each kind of card that meets it, then fill the pattern."""
        for a, k, n in self.card_withs:
            if sum(1 for c in cards if self.has(c, a, k)) >= n:
                continue
            if len(cards) >= self.size:
                return False
            # cards alike in everything the rest of the check looks at are interchangeable
            seen = set()
            for e in elig:
                if not self.has(e, a, k) or e in cards:
                    continue
                key = self.likeness(e)
                if key not in seen:
                    seen.add(key)
                    if self.expand(cards + [e], elig, runs):
                        return True
            return False
        if runs is None:
            return len(cards) <= self.size
        return any(self.run_fits(cards, t) for t in runs)

    def likeness(self, e: int) -> tuple:
        """What the rest of the check sees of a card (beyond the shared classes, the same for all)."""
        sat = tuple(self.has(e, a, k) for a, k, _ in self.card_withs)
        if self.shape.run is None:
            return sat
        if e in self.run_wild:
            return sat, None
        return sat, tuple(o.position[e] for o in self.shape.orders), self.card_class(self.shape.run, e)

    # ---- runs
    def run_tables(self, cards: list[int]) -> list[_RunTable]:
        """One table per order, of the cards a run may take (chosen ones included)."""
        wild = self.run_wild
        n_wild = sum(1 for c in cards if c in wild)
        tables = []
        for order in self.shape.orders:
            pos = order.position
            by_pos: dict[int, list[int]] | None = None
            if self.run_withs:
                by_pos = {}
                for c in cards:
                    if c not in wild and pos[c] is not None:
                        by_pos.setdefault(pos[c], []).append(c)
                filled = set(by_pos)
            else:
                filled = {pos[c] for c in cards if c not in wild}
            holes = [q for q in order.positions if q not in filled]
            places = None
            if self.run_withs:
                places = _places(order, self.attrs[self.shape.run], self.classes.get(self.shape.run))
            tables.append(_RunTable(order, filled, holes, n_wild, by_pos, places))
        return tables

    def run_fits(self, cards: list[int], t: _RunTable) -> bool:
        """The cards go at distinct positions of a window of the order, and the other cards can fill the rest."""
        size, wild, pos = self.size, self.run_wild, t.order.position
        if len(cards) > size:
            return False
        occ = set()
        for c in cards:
            if c not in wild:
                p = pos[c]
                if p is None or p in occ:
                    return False
                occ.add(p)
        starts = _starts(t.order, size)
        lo, hi = 0, len(starts)
        if occ:
            lo = bisect.bisect_left(starts, max(occ) - size + 1)
            hi = bisect.bisect_right(starts, min(occ))
        if not self.run_withs:
            holes, n_wild = t.holes, t.n_wild
            for p in starts[lo:hi]:   # slots_fit, unrolled for the common case
                if bisect.bisect_left(holes, p + size) - bisect.bisect_left(holes, p) <= n_wild:
                    return True
            return False
        kinds = {self.card_class(self.shape.run, c) for c in cards if c not in wild}
        return any(self.window_withs(p, len(cards), occ, frozenset(), kinds, t) for p in starts[lo:hi])

    def window_withs(self, p: int, n: int, occ: set, reserved: frozenset, kinds: set, t: _RunTable) -> bool:
        """Meet each required run value with a card of its class, or a wild card reserved for its position."""
        size = self.size
        for k in self.run_withs:
            at = t.places.get(k, ())
            if k in kinds or not reserved.isdisjoint(at):
                continue
            for q in at:
                if not p <= q < p + size or q in occ:
                    continue
                if self.window_withs(p, n, occ, reserved | {q}, kinds, t):
                    return True
                # any one card of the class at q serves: they differ in nothing the check still looks at
                if n < size and any(self.card_class(self.shape.run, e) == k for e in t.by_pos.get(q, ())):
                    if self.window_withs(p, n + 1, occ | {q}, reserved, kinds | {k}, t):
                        return True
            return False
        return n <= size and self.slots_fit(p, reserved, t)

    def slots_fit(self, p: int, reserved, t: _RunTable) -> bool:
        """Enough wild cards for the free positions of the window at p that no non-wild card can take.

        Those are its holes (a chosen card's position is never one) and the positions reserved
        for a wild card.
        """
        holes = t.holes
        need = bisect.bisect_left(holes, p + self.size) - bisect.bisect_left(holes, p)
        if reserved:
            need += sum(1 for q in reserved if q in t.filled)
        return need <= t.n_wild


@attrs.define(slots=True)
class _RunTable:
    """One order's view of the cards a run may take."""

    order: Order
    filled: set             # the positions of the non-wild cards
    holes: list             # the order's positions with no such card, ascending
    n_wild: int             # the wild cards (for the run attribute) among them
    by_pos: dict | None     # position -> the non-wild cards at it      } only for
    places: dict | None     # class -> its positions in the order, in the deck  } required run values
