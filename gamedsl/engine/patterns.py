"""Patterns (melds): whether cards make a kind, a run, a flush, with wild cards, merged values and required values.

Cards are ids 0..n-1; `card_attrs` maps each attribute name to a tuple, indexed by card id,
of the card's value index (-1: no value). A pattern is a static `Shape` (the attributes all
its cards share, the attribute its run is made of, the `Order`s a run may follow) plus
arguments worked out at run time:

- `size`: exactly this many cards make the pattern (>= 1);
- `withs`: ((attribute, value[, n]), ...): some card (n cards) has that value (or its class), or is wild for
  the attribute; on a `same` attribute the shared class must be the value's class (unless
  every card is wild for it); on the run attribute a non-wild card has the value's class, or
  a wild card takes a position of the window that a card of that class has in the order.
  The count n (default 1) counts distinct cards on an attribute that is neither shared nor the
  run's; on a `same` attribute every card counts, so n must not pass the size; on the run
  attribute the value is asked for once. Values of one class ask for the same cards: the
  largest count holds for the class;
- `wild`: ((attribute, frozenset of card ids), ...): cards that stand for any value of it;
- `classes`: ((attribute, class id per value index), ...): values with one class id count as
  one value for `same` and `withs` (not for runs). Attributes left out have no wild cards
  and every value its own class.

A Spec's `most` (0: exactly `size`) makes a pattern of `size` to `most` cards; the Matcher
answers for it by asking each size in turn.

`makes(card_attrs, shape, size, withs, wild, classes, cards)` says whether exactly `cards`
make the pattern; `can_make(..., chosen, pool)` whether all of `chosen` plus some of `pool`
do. `Matcher(card_attrs)` is the front door for the engine: `m.makes(shape, size, withs,
wild, classes, cards)` and `m.can_make(shape, size, withs, wild, classes, chosen, pool)`
answer the same questions and memoise them on their (hashable) arguments, with chosen and
pool taken as sets; the cache is dropped whole once it holds `max_entries` answers.
`m.answers(shape, spec)` is the engine's memo of can_make for one pattern and Spec (`Answers`),
keyed by the cards as given and shared by every state and version of the rules that give the
pattern an equal Spec; it answers by counting (engine/counts.py) where counts can tell, and
by `check` otherwise.

Arrangements (`Matcher.arrange`): the disjoint melds, each made by one of several patterns, that
leave the least total value (a number per card) out, and that least total (the *deadwood*).
Every meld the cards hold is listed first (`candidates`: straight from the cards' classes and
positions for patterns without wild cards or required values, by a search pruned with
`can_make` otherwise), then a search over sets of cards as bit masks, memoised, takes the
lowest card (in card id order) left: it goes into each candidate meld holding it that fits, the
largest first and, among melds of one size, the one whose cards come first in id order; or it
stays out. The first of these choices with the least deadwood is kept, so among arrangements of
equal deadwood the one chosen is the first in that order: deterministic, whatever the order of
the cards given.
"""
from __future__ import annotations

import bisect
import functools
import itertools

import attrs

from ..language.program import Order, Shape, Spec

__all__ = ["Order", "Shape", "Spec", "Matcher", "Answers", "makes", "can_make", "candidates", "arrange"]


class Matcher:
    """One deck's pattern questions, memoised: the same ones recur while a hand does not change."""

    def __init__(self, card_attrs: dict[str, tuple[int, ...]], max_entries: int = 100_000):
        self.card_attrs = card_attrs
        self.max_entries = max_entries
        self._cache: dict[tuple, bool] = {}
        self._answers: dict[tuple, Answers] = {}
        self.answers_kept = 0  # answers added to the memos since they were last emptied

    def makes(self, shape: Shape, size: int, withs: tuple, wild: tuple, classes: tuple, cards) -> bool:
        """Exactly `cards` (distinct ids) make the pattern."""
        return len(cards) == size and self.can_make(shape, size, withs, wild, classes, cards, ())

    def can_make(self, shape: Shape, size: int, withs: tuple, wild: tuple, classes: tuple, chosen, pool) -> bool:
        """All of `chosen` plus some (maybe none) of `pool` make the pattern."""
        return self.check(shape, Spec(size, withs, wild, classes), chosen, pool)

    def check(self, shape: Shape, spec: "Spec", chosen, pool) -> bool:
        """can_make with the run-time arguments in one Spec (hashed once, however often it is asked)."""
        if spec.most:
            # size to most cards: each size in turn, from the least the chosen cards allow
            n = len(set(chosen).union(pool))
            return any(self.check(shape, sized(spec, k), chosen, pool)
                       for k in range(max(spec.size, len(chosen)), min(spec.most, n) + 1))
        size = spec.size
        if len(chosen) > size or (not chosen and len(pool) < size):
            return False  # too many cards chosen, or too few to choose from: no need to look
        key = (shape, spec, tuple(sorted(chosen)), tuple(sorted(pool)))
        cache = self._cache
        hit = cache.get(key)
        if hit is None:
            hit = can_make(self.card_attrs, shape, size, spec.withs, spec.wild, spec.classes, chosen, pool)
            if len(cache) >= self.max_entries:
                cache.clear()
            cache[key] = hit
        return hit

    def makes_spec(self, shape: Shape, spec: "Spec", cards) -> bool:
        """Exactly `cards` make the pattern of this Spec (of one size, or of a range of sizes)."""
        n = len(cards)
        if spec.most:
            if not spec.size <= n <= spec.most:
                return False
            spec = sized(spec, n)
        return n == spec.size and self.check(shape, spec, cards, ())

    def arrange(self, pats: tuple, values: tuple, cards) -> tuple:
        """(deadwood, melds) of the best arrangement of `cards` into melds of the patterns `pats`
        ((Shape, Spec), ...), a card left out costing values[card]; melds as tuples of card ids,
        ascending, in the order the search chose them (see the module's docstring). Memoised."""
        key = ("arrange", pats, values, frozenset(cards))
        cache = self._cache
        hit = cache.get(key)
        if hit is None:
            hit = arrange(self, pats, values, cards)
            if len(cache) >= self.max_entries:
                cache.clear()
            cache[key] = hit
        return hit

    def answers(self, shape: Shape, spec: Spec) -> "Answers":
        """The memo of can_make's answers for one pattern (its shape and Spec): one per distinct
        pair, so that the answers found under one Spec serve whoever asks with an equal one."""
        key = (shape, spec)
        found = self._answers.get(key)
        if found is None:
            if len(self._answers) >= MAX_SPECS:
                self.forget_answers()
            found = self._answers[key] = Answers(self, shape, spec)
        return found

    def forget_answers(self) -> None:
        """Empty the memos of answers (a memo still held by a state stays valid: it only refills)."""
        for memo in self._answers.values():
            memo.clear()
        self._answers.clear()
        self.answers_kept = 0

    def clear(self) -> None:
        """Forget every memoised answer."""
        self._cache.clear()
        self.forget_answers()


MAX_SPECS = 1024          # distinct (shape, Spec) memos kept by a Matcher
MAX_ANSWERS = 200_000     # answers kept in all the memos of a Matcher (some 50 MB at most)


class Answers(dict):
    """can_make's answers for one shape and Spec, keyed by the cards as the engine hands them over
    (tuple(pool) when nothing is chosen, else (tuple(chosen), tuple(pool))): an answer depends on
    nothing else, so it holds for as long as the game runs."""

    __slots__ = ("matcher", "shape", "spec", "counted")

    def __init__(self, matcher: Matcher, shape: Shape, spec: Spec):
        from .counts import decider  # counts.py builds on this module's tables
        super().__init__()
        self.matcher, self.shape, self.spec = matcher, shape, spec
        self.counted = decider(matcher.card_attrs, shape, spec)  # None: only the solver can tell

    def find(self, chosen, pool, key) -> bool:
        """Work the answer out (and keep it) for a key not found: by counting where counts can
        tell, else by the solver."""
        if self.counted is not None:
            found = self.counted(chosen, pool)
        else:
            found = self.matcher.check(self.shape, self.spec, chosen, pool)
        m = self.matcher
        m.answers_kept += 1
        if m.answers_kept > MAX_ANSWERS:
            m.forget_answers()
        self[key] = found
        return found


@functools.lru_cache(maxsize=4096)
def sized(spec: Spec, n: int) -> Spec:
    """The Spec of exactly n cards of a pattern of a range of sizes."""
    return Spec(n, spec.withs, spec.wild, spec.classes)


# ---- arrangements
def candidates(matcher: Matcher, shape: Shape, spec: Spec, ids: tuple) -> set:
    """Every set of the cards `ids` (distinct, ascending) that makes the pattern, as bit masks over
    their indexes in `ids`."""
    lo = spec.size
    hi = min(spec.most or lo, len(ids))
    if lo > hi:
        return set()
    if spec.withs or spec.wild or (shape.run is not None and shape.run in shape.same):
        return _searched(matcher, shape, spec, ids, lo, hi)
    attrs_ = matcher.card_attrs
    classes = dict(spec.classes)
    tables = [(attrs_[a], classes.get(a)) for a in shape.same]
    groups: dict = {}
    for i, c in enumerate(ids):
        key = []
        for vals, cls in tables:
            v = vals[c]
            if v < 0:
                break
            key.append(cls[v] if cls is not None else v)
        else:
            groups.setdefault(tuple(key), []).append(i)
    found: set = set()
    for group in groups.values():
        if shape.run is None:
            for k in range(lo, min(hi, len(group)) + 1):
                for combo in itertools.combinations(group, k):
                    found.add(sum(1 << i for i in combo))
            continue
        for order in shape.orders:
            at: dict = {}
            for i in group:
                p = order.position[ids[i]]
                if p is not None:
                    at.setdefault(p, []).append(1 << i)
            for p in at:
                # the runs from p up: one card at each of p, p + 1, ... (any card of a position)
                partial, q = [0], p
                while q in at and q - p < hi:
                    partial = [m | b for m in partial for b in at[q]]
                    q += 1
                    if q - p >= lo:
                        found.update(partial)
    return found


def _searched(matcher: Matcher, shape: Shape, spec: Spec, ids: tuple, lo: int, hi: int) -> set:
    """candidates for any pattern: the sets of the cards, grown in index order while `can_make`
    says the cards chosen, with some of the later ones, still make it."""
    found: set = set()
    exact = [sized(spec, k) if spec.most else spec for k in range(lo, hi + 1)]

    def grow(chosen: list, start: int, mask: int):
        if len(chosen) >= lo and any(matcher.check(shape, x, chosen, ()) for x in exact if x.size == len(chosen)):
            found.add(mask)
        if len(chosen) == hi:
            return
        for j in range(start, len(ids)):
            nxt = chosen + [ids[j]]
            if matcher.check(shape, spec, nxt, ids[j + 1:]) or (
                    len(nxt) >= lo and any(matcher.check(shape, x, nxt, ()) for x in exact if x.size == len(nxt))):
                grow(nxt, j + 1, mask | (1 << j))
    grow([], 0, 0)
    return found


def arrange(matcher: Matcher, pats: tuple, values: tuple, cards) -> tuple:
    """Matcher.arrange, not memoised."""
    ids = tuple(sorted(set(cards)))
    n = len(ids)
    every: set = set()
    for shape, spec in pats:
        every |= candidates(matcher, shape, spec, ids)
    by_low: list[list[int]] = [[] for _ in range(n)]
    for mask in every:
        by_low[(mask & -mask).bit_length() - 1].append(mask)
    for i, masks in enumerate(by_low):
        # the largest first; of one size, the one whose cards come first (its lowest differing card is lower)
        masks.sort(key=lambda mk: (-mk.bit_count(), _reversed_bits(mk, n)))
    cost = [values[c] for c in ids]
    memo: dict = {0: (0, ())}

    def best(mask: int) -> tuple:
        hit = memo.get(mask)
        if hit is not None:
            return hit
        low = mask & -mask
        i = low.bit_length() - 1
        found = None
        for mk in by_low[i]:
            if mk & mask == mk:
                d, ms = best(mask & ~mk)
                if found is None or d < found[0]:
                    found = (d, (mk, *ms))
        d, ms = best(mask & ~low)
        d += cost[i]
        if found is None or d < found[0]:
            found = (d, ms)
        memo[mask] = found
        return found
    deadwood, masks = best((1 << n) - 1)
    return deadwood, tuple(tuple(ids[i] for i in range(n) if mk >> i & 1) for mk in masks)


def _reversed_bits(mask: int, n: int) -> int:
    """A key that orders sets of one size by their cards in index order, lowest card first: the
    set whose first differing card is lower has the higher reversed mask, so it is negated."""
    return -int(format(mask, f"0{n}b")[::-1], 2)


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
        counts: dict = {}
        n_wild = 0
        for c in rest:
            if c in wilds:
                n_wild += 1
            else:
                k = klass(c)
                if k is not None:
                    counts[k] = counts.get(k, 0) + 1
        return len(chosen) + n_wild + max(counts.values(), default=0) >= size
    if target is None:
        if fixed:
            return False
        return len(chosen) + sum(1 for c in rest if c in wilds) >= size
    if any(k != target for k in fixed):
        return False
    return len(chosen) + sum(1 for c in rest if c in wilds or klass(c) == target) >= size


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
