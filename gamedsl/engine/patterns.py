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

`makes(card_attrs, shape, size, withs, wild, classes, cards)` (engine/solver.py) says whether exactly `cards`
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
the cards given. An `Arranger` holds one set's melds and search: it answers for each subset of
the set too (the melds of a subset are those of the set made of its cards alone, and its search
is the one the subset alone would make), so a Matcher keeps the last one of each patterns and
values, and a hand less each of its cards in turn is one listing of melds, not one per card.
"""
from __future__ import annotations

import functools
import itertools

from ..language.program import Order, Shape, Spec
from .solver import can_make, makes

__all__ = ["Order", "Shape", "Spec", "Matcher", "Answers", "makes", "can_make", "candidates", "arrange"]


MAX_ARRANGERS = 64  # kept by a Matcher (one per patterns and values asked about): more are dropped


class Matcher:
    """One deck's pattern questions, memoised: the same ones recur while a hand does not change."""

    def __init__(self, card_attrs: dict[str, tuple[int, ...]], max_entries: int = 100_000):
        self.card_attrs = card_attrs
        self.max_entries = max_entries
        self._cache: dict[tuple, bool] = {}
        self._answers: dict[tuple, Answers] = {}
        self._arrangers: dict[tuple, Arranger] = {}  # the last Arranger of some patterns and values
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

    def arrange(self, pats: tuple, values: tuple, cards, whole=None) -> tuple:
        """(deadwood, melds) of the best arrangement of `cards` into melds of the patterns `pats`
        ((Shape, Spec), ...), a card left out costing values[card]; melds as tuples of card ids,
        ascending, in the order the search chose them (see the module's docstring). Memoised.
        `whole`, if given, is called on a miss for the cards these are likely a part of (a hand
        less one card, then less another): see arranger."""
        key = ("arrange", pats, values, frozenset(cards))
        cache = self._cache
        hit = cache.get(key)
        if hit is None:
            hit = self.arranger(pats, values, key[3], whole).best_of(key[3])
            if len(cache) >= self.max_entries:
                cache.clear()
            cache[key] = hit
        return hit

    def arranger(self, pats: tuple, values: tuple, cards: frozenset, whole=None) -> "Arranger":
        """An Arranger that answers for `cards`: the last one made for these patterns and values
        when it holds them; else one for the cards `whole()` gives, if they hold these (a hand
        less each of its cards in turn: what a rule such as "may knock with deadwood 10 or less
        after discarding c" asks, one card at a time: the hand, from the first card left out on);
        one for these and the last one's cards when that is one card more than these; else one
        for these cards."""
        at = (pats, values)
        last = self._arrangers.get(at)
        if last is not None and cards <= last.cards:
            return last
        bigger = whole() if whole is not None else None
        if bigger is not None and cards <= (bigger := frozenset(bigger)):
            cards = bigger
        elif last is not None and len(both := cards | last.cards) <= len(cards) + 1:
            cards = both
        if len(self._arrangers) >= MAX_ARRANGERS:
            self._arrangers.clear()
        found = self._arrangers[at] = Arranger(self, pats, values, cards)
        return found

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
    if spec.withs or spec.wild or shape.grouped or shape.each > 1 or (shape.run is not None and shape.run in shape.same):
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
    return Arranger(matcher, pats, values, cards).best_of(cards)


class Arranger:
    """The best arrangements of one set of cards and of each of its subsets: the melds the set
    holds listed once (a subset holds those of them that are made of its cards alone: whether
    cards make a pattern depends on them only), and the search's memo shared by every subset
    asked (the search from a subset's mask is the one a set of those cards alone would make, its
    melds in the same order: so is the arrangement chosen)."""

    __slots__ = ("cards", "ids", "index", "by_low", "cost", "memo")

    def __init__(self, matcher: Matcher, pats: tuple, values: tuple, cards):
        self.cards = frozenset(cards)
        self.ids = ids = tuple(sorted(self.cards))
        self.index = {c: i for i, c in enumerate(ids)}
        n = len(ids)
        every: set = set()
        for shape, spec in pats:
            every |= candidates(matcher, shape, spec, ids)
        self.by_low = by_low = [[] for _ in range(n)]
        for mask in every:
            by_low[(mask & -mask).bit_length() - 1].append(mask)
        for masks in by_low:
            # the largest first; of one size, the one whose cards come first (its lowest differing card is lower)
            masks.sort(key=lambda mk: (-mk.bit_count(), _reversed_bits(mk, n)))
        self.cost = [values[c] for c in ids]
        self.memo: dict = {0: (0, ())}

    def best_of(self, cards) -> tuple:
        """(deadwood, melds) of the best arrangement of `cards`, a subset of this one's."""
        index, ids = self.index, self.ids
        mask = 0
        for c in cards:
            mask |= 1 << index[c]
        deadwood, masks = self.best(mask)
        return deadwood, tuple(tuple(ids[i] for i in range(len(ids)) if mk >> i & 1) for mk in masks)

    def best(self, mask: int) -> tuple:
        memo = self.memo
        hit = memo.get(mask)
        if hit is not None:
            return hit
        low = mask & -mask
        i = low.bit_length() - 1
        found = None
        for mk in self.by_low[i]:
            if mk & mask == mk:
                d, ms = self.best(mask & ~mk)
                if found is None or d < found[0]:
                    found = (d, (mk, *ms))
        d, ms = self.best(mask & ~low)
        d += self.cost[i]
        if found is None or d < found[0]:
            found = (d, ms)
        memo[mask] = found
        return found


def _reversed_bits(mask: int, n: int) -> int:
    """A key that orders sets of one size by their cards in index order, lowest card first: the
    set whose first differing card is lower has the higher reversed mask, so it is negated."""
    return -int(format(mask, f"0{n}b")[::-1], 2)
