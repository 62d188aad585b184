"""A move that chooses several cards at once: `(cs in combinations(Z, P or Q ... [, p] by ATTR))`.

Its moves are the *shapes* the patterns allow: the multisets of values of ATTR that some pattern
can make (three 9s and two 4s; 5 6 7 8 9), listed here from the patterns' clauses when the game is
checked, so that every shape is a move id of its own, fixed for the game as numbers and cards are
(RLCard numbers Dou Dizhu's actions the same way). A pattern must say what its cards' values of
ATTR are: `same ATTR`, `run of ATTR` (with `N of each`), `groups of ATTR ...`, or one card only.
Which shapes are legal is worked out while the game runs (engine/combos.py): the zone holds the
cards, and those cards (the first of each value, in the zone's order) make one of the patterns
for the player, as its size and `if` clauses say then."""
from __future__ import annotations

import itertools

from ..errors import did_you_mean
from . import model as m
from . import types as T

MOST_SHAPES = 5000  # the most shapes one combinations choice may list


def _literal(e) -> int | None:
    return e.value if isinstance(e, m.Number) and isinstance(e.value, int) else None


class Combinations:
    """Compiles a combinations choice: its shapes, the code that lists the legal ones, the code that picks one's cards."""

    def __init__(self, c, x):
        self.c, self.x = c, x

    def is_one(self, domain) -> bool:
        return isinstance(domain, m.Call) and domain.func == "combinations" and "combinations" not in self.c.def_info

    def compile(self, act_name: str, name: str, e: m.Call, scope):
        """(the domain's code, its element type, its number of move ids, the shapes' table name,
        the attribute, the cards' code) of `combinations(Z, P or Q ... [, p] by ATTR)`; None after an error."""
        c = self.c
        form = "a zone, patterns joined by 'or' and an attribute: combinations(me.hand, pair or straight by rank)"
        if len(e.args) not in (2, 3) or e.for_var or e.where or e.descending:
            c.error(f"'combinations' takes {form}", e.span)
            return None
        attr = e.by.name if isinstance(e.by, m.Name) else None
        if attr not in c.attr_index:
            c.error("'combinations' needs 'by' and the card attribute its moves are told apart by", (e.by or e).span,
                    did_you_mean(attr, c.attr_index) if attr else "as in 'combinations(me.hand, pair by rank)'")
            return None
        names = self.pattern_names(e.args[1])
        if names is None:
            return None
        shapes: dict = {}
        for d in names:
            for shape in self.shapes_of(d, attr):
                shapes.setdefault(shape, None)
                if len(shapes) > MOST_SHAPES:
                    c.error(f"these patterns make more than {MOST_SHAPES} combinations of {attr}", e.args[1].span,
                            "bound their sizes by numbers")
                    return None
        order = sorted(shapes, key=lambda sh: (sum(n for _, n in sh), sh))
        table = f"_shapes_{act_name}_{name}"
        c.data[table] = tuple(order)
        cards = self.x.cards_arg(e.args[0], scope)
        owner = self.x.owner_arg(e, scope, 2)
        ks = tuple(c.pattern_index[d.name] for d in names)
        code = c.module.mark(f"_combinations(s, {cards}, A_{attr}, {table}, {ks!r}, {owner})", e.span)
        return code, T.list_of(T.CARD), max(len(order), 1), table, attr, cards

    def pattern_names(self, e) -> list | None:
        """The patterns of `P or Q ...`, as their declarations; None after an error."""
        c = self.c
        found, stack = [], [e]
        while stack:
            x = stack.pop()
            if isinstance(x, m.Logic) and x.op == "or":
                stack += [x.right, x.left]
            elif isinstance(x, m.Name) and x.name in c.pattern_info:
                found.append(c.pattern_info[x.name])
            else:
                c.error("'combinations' needs the name of a pattern here, or several joined by 'or'", x.span,
                        did_you_mean(x.name, c.pattern_index) if isinstance(x, m.Name) else "as in 'pair or straight'")
                return None
        return list(dict.fromkeys(found))

    def shapes_of(self, d: m.PatternDecl, attr: str) -> list:
        """Every shape (((value index, how many), ...), by value) pattern `d` can make, read from its
        clauses; sizes that are not plain numbers bound nothing (the moves are then more than can
        ever be legal, never fewer)."""
        c = self.c
        values = range(len(c.attr_list[c.attr_index[attr]][1]))
        table = c.card_attr_tables[attr]
        copies = [sum(1 for v in table if v == k) for k in values]
        lo, hi = 1, sum(copies)
        kind = None
        for cl in d.clauses:
            if cl.kind == "size":
                lo = max(_literal(cl.expr) or 1, 1)
                hi = _literal(cl.most) if cl.most is not None else None if cl.open else _literal(cl.expr)
                hi = sum(copies) if hi is None else hi
            elif cl.kind in ("same", "run", "groups") and cl.names[0][0] == attr:
                kind = kind or cl
            elif cl.kind in ("same", "groups", "run") or cl.kind == "with" and self.other_value(cl, attr):
                c.error(f"pattern '{d.name}' speaks of another attribute than {attr}: a combination by {attr} "
                        f"takes the first cards of each {attr} in the zone, whatever their other values", cl.span,
                        "choose such cards one at a time (section 3, 'Choosing the cards of a pattern')")
                return []
        each = next((cl.sizes[0] for cl in d.clauses if cl.kind == "each"), 1)
        if kind is None:
            if hi == 1:
                return [((v, 1),) for v in values if copies[v]]
            c.error(f"pattern '{d.name}' does not say which values of {attr} its cards have, so its combinations "
                    "cannot be listed", d.span, f"add 'same {attr}', 'run of {attr}' or 'groups of {attr} ...'")
            return []
        if kind.kind == "same":
            return [((v, n),) for v in values for n in range(lo, min(hi, copies[v]) + 1)]
        if kind.kind == "groups":
            sizes = kind.sizes
            found = set()
            for vs in itertools.permutations([v for v in values if copies[v]], len(sizes)):
                if all(copies[v] >= n for v, n in zip(vs, sizes)):
                    found.add(tuple(sorted(zip(vs, sizes))))
            return sorted(found)
        return self.runs(kind, attr, each, lo, hi, copies)

    def other_value(self, cl, attr: str) -> bool:
        """A `with VALUE` of another attribute than `attr` (an unknown value is the pattern's error)."""
        return any(a != attr for a, _ in self.c.values.get(cl.names[0][0], []))

    def runs(self, cl, attr: str, each: int, lo: int, hi: int, copies: list) -> list:
        """The shapes of `run of ATTR [or TABLE ...]` with `each` cards of each value: every window
        of consecutive places of each order, whose size is within lo..hi."""
        c = self.c
        table = c.card_attr_tables[attr]
        found = set()
        for name, _ in cl.names:
            place = table if name == attr else c.data.get("V_" + name)
            if place is None:
                continue  # (an unknown order: reported with the pattern)
            at: dict = {}
            for card, p in enumerate(place):
                if table[card] >= 0:
                    at.setdefault(p, set()).add(table[card])
            for start in sorted(at):
                length, p = 0, start
                while p in at:
                    length += 1
                    if lo <= length * each <= hi:
                        for vs in itertools.product(*(sorted(at[q]) for q in range(start, p + 1))):
                            if len(set(vs)) == len(vs) and all(copies[v] >= each for v in vs):
                                found.add(tuple(sorted((v, each) for v in vs)))
                    p += 1
        return sorted(found)
