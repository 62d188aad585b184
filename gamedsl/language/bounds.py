"""The smallest and largest numbers an expression can give, worked out from its form before the game
starts: a numbered move (`(n in 0..count(me.hand))`) needs a largest number for its move ids."""
from __future__ import annotations

from . import model as m
from . import types as T
from .program import MAX_SEATS

MOST_NUMBERS = 1000  # a numbered action's moves, at most: each is a move id of every game of it


class Bounds:
    """low(e) and high(e): a number no expression of this form goes below / above, or None if unknown."""

    def __init__(self, x, scope):
        self.x, self.scope, self.c = x, scope, x.c

    def count_high(self, e: m.Call):
        """How many elements a count can find: every card, or every seat."""
        arg = e.args[0] if e.args else None
        domain = arg.collection if isinstance(arg, m.Member) else arg
        if domain is None:
            return None
        if isinstance(domain, m.Range):
            hi, lo = self.high(domain.high), self.low(domain.low)
            return None if hi is None or lo is None else max(0, hi - lo + 1)
        before = len(self.c.diags)
        _, typ = self.x.expr(domain, self.scope.child())
        del self.c.diags[before:]  # only its kind is asked here: its errors are reported where it is compiled
        if typ in (T.ZONE, T.list_of(T.CARD)):
            return self.c.ncards
        if typ in ("players", T.list_of(T.PLAYER)):
            return MAX_SEATS
        return None

    def number_range(self, e: m.Call):
        """number(c.ATTR): the numbers that attribute's values are."""
        arg = e.args[0] if len(e.args) == 1 else None
        if isinstance(arg, m.Attr) and arg.name in self.c.attr_index:
            names = self.c.attr_list[self.c.attr_index[arg.name]][1]
            nums = [int(n) for n in names if n.lstrip("-").isdigit()]
            return (min(nums), max(nums)) if nums else None
        return None

    def high(self, e):
        return self.bound(e, True)

    def low(self, e):
        return self.bound(e, False)

    def bound(self, e, high: bool):
        """The largest (high) or smallest number `e` can be, or None."""
        hi, lo = (self.high, self.low) if high else (self.low, self.high)
        if isinstance(e, m.Number):
            return e.value
        if isinstance(e, m.Neg):
            b = lo(e.operand)
            return None if b is None else -b
        if isinstance(e, m.CondExpr):
            a, b = hi(e.then), hi(e.other)
            return None if a is None or b is None else (max if high else min)(a, b)
        if isinstance(e, m.BinOp):
            return self.binop(e, high)
        if isinstance(e, m.Call):
            if e.func == "count":
                return self.count_high(e) if high else 0
            if e.func == "number":
                found = self.number_range(e)
                return None if found is None else found[1] if high else found[0]
            if e.func in ("min", "max") and len(e.args) >= 2 and e.for_var is None:
                found = [hi(a) for a in e.args]
                # min's largest is at most any argument's largest; max's needs them all (and the reverse for lows)
                if (e.func == "min") == high:
                    known = [b for b in found if b is not None]
                    return (min if e.func == "min" else max)(known) if known else None
                return None if None in found else (min if e.func == "min" else max)(found)
        return None

    def binop(self, e: m.BinOp, high: bool):
        a_hi, a_lo, b_hi, b_lo = self.high(e.left), self.low(e.left), self.high(e.right), self.low(e.right)
        if e.op == "+":
            a, b = (a_hi, b_hi) if high else (a_lo, b_lo)
            return None if a is None or b is None else a + b
        if e.op == "-":
            a, b = (a_hi, b_lo) if high else (a_lo, b_hi)
            return None if a is None or b is None else a - b
        if e.op == "*" and None not in (a_hi, a_lo, b_hi, b_lo):
            corners = [x * y for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
            return max(corners) if high else min(corners)
        if e.op == "/" and None not in (a_hi, a_lo, b_lo) and a_lo >= 0 and b_lo >= 1:
            return a_hi // b_lo if high else 0
        return None

    def domain(self, e) -> tuple:
        """(smallest, largest) number of a numbered move's domain: a range, a list of numbers,
        either of two, or a filter or sorting of one. Either may be None (unknown)."""
        if isinstance(e, m.Range):
            return self.low(e.low), self.high(e.high)
        if isinstance(e, m.ListExpr):
            found = [(self.low(x), self.high(x)) for x in e.items] or [(0, 0)]
            lows, highs = [f[0] for f in found], [f[1] for f in found]
            return (None if None in lows else min(lows)), (None if None in highs else max(highs))
        if isinstance(e, m.CondExpr):
            (a, b), (c, d) = self.domain(e.then), self.domain(e.other)
            return (None if None in (a, c) else min(a, c)), (None if None in (b, d) else max(b, d))
        if isinstance(e, m.Call) and e.func in ("filter", "sorted") and e.args and isinstance(e.args[0], m.Member):
            return self.domain(e.args[0].collection)
        if isinstance(e, m.BinOp) and e.op == "+":
            (a, b), (c, d) = self.domain(e.left), self.domain(e.right)
            return (None if None in (a, c) else min(a, c)), (None if None in (b, d) else max(b, d))
        return None, None
