"""The built-in functions of expressions: counting, totals, best and worst, cards by their values,
knowledge, teams. A mixin of the ExpressionCompiler: one call_* method per built-in (those that read
patterns and arrangements: patterncalls.py)."""
from __future__ import annotations

import re

from . import model as m
from . import types as T
from ..errors import Span, did_you_mean
from .codegen import unmarked
from .program import Table
from .tables import table_reads, table_safe

_BARE = ("me", "players", "all_players", "all_cards", "in_play", "others", "nobody")  # read without parentheses
_NOPE = ("None", T.ANY)
# Reads that do not depend on the card and cannot fail: a variable at a fixed place (or at me's),
# me, an option, a unit's local, a bound name (a def's parameter, an outer element).
_KEY_ATOM = re.compile(r"s\.v\[\d+(?: \+ \(s\.me\))?\]|s\.opt\[\d+\]|s\.me\b|\be\[\d+\]|\b_[a-z]+_\d+\b")
_KEY_NAME = re.compile(r"_k\d+")
# the top card of a zone at a fixed place (or me's), as the generated code reads it
_TOP_READ = re.compile(r"\(s\.z\[(\d+|\(\d+ \+ \(s\.me\)\))\] or _no_top\(s, \1\)\)\[-1\]")
_HOISTED = re.compile(r"\(_h(\d+) if _h\1 is not _U else \(_h\1 := ")


def unhoisted(code: str) -> str | None:
    """The code with each hoisted value (`(_h0 if _h0 is not _U else (_h0 := X))`, Calls.maybe_hoist)
    written as `(X)`: what it computes, for a set of cards keyed by what it reads. None: a quote
    (which might hold a bracket)."""
    if "'" in code or '"' in code:
        return None
    while True:
        found = _HOISTED.search(code)
        if found is None:
            return code
        depth, i = 2, found.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        code = code[:found.start()] + "(" + code[found.end():i - 2] + ")" + code[i:]


class Builtins:
    """call_NAME(e, scope) -> (python code, type) for each built-in function."""

    def call_count(self, e, scope):
        if len(e.args) == 1 and not isinstance(e.args[0], m.Member):
            code, typ = self.expr(e.args[0], scope)
            if typ == T.ZONE:
                return f"len(s.z[{code}])", T.NUM
            if typ == "players":
                return "len(s.alive)", T.NUM
            if typ == T.ANY:  # a function's parameter: a zone or a list
                return f"len(_as_cards(s, {code}))", T.NUM
            self.elem_type(typ, e.args[0].span)
            return f"len({code})", T.NUM
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        cond = self.fn_code(e.where, inner, T.BOOL) if e.where is not None else "True"
        # counts and totals read every element anyway: a list is made faster than a generator runs
        return f"len([0 for {var} in {dcode} if {cond}])", T.NUM

    def _quantifier(self, e, scope, pyfunc):
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        cond = self.fn_code(e.where, inner, T.BOOL) if e.where is not None else "True"
        code = f"{pyfunc}({cond} for {var} in {dcode})"
        return self.card_set(inner, var, dcode, cond, code,
                             "(not {}.isdisjoint({}))" if pyfunc == "any" else "{}.issuperset({})"), T.BOOL

    def card_set(self, inner, var: str, dcode: str, cond: str, code: str, answer: str) -> str:
        """`any` or `all` over cards (a zone, a combination's cards, a list), answered from the set
        of the cards that pass when the condition reads only the card's fixed properties and values
        that do not depend on it (language/tables.py): `any(x in me.hand if x.family == led)` is the
        set of the cards of the family `led`, met with the hand in C (a card twice in a list changes
        neither answer). The set is built once per set of those values,
        which are read first (only reads that cannot fail: variables at a fixed place, `me`,
        locals and bound names, and the top card of a zone, None when it is empty; a value hoisted
        from those is computed in the set's condition); should the set fail to build (a None
        read as a card), or the values be no key of a dict, the code as written runs (`code`),
        failing, or not, where it would. `answer` is the code with the set and the zone.
        (Not `count`: a set of the cards counted costs more to make than a short hand to run.)"""
        if self.unhoistable or inner.names[next(iter(inner.names))][1] != T.CARD:
            return code  # a `:=` cannot go here (see Calls.maybe_hoist)
        atoms: list[str] = []

        def keyed(found) -> str:
            atom = found.group(0)
            if atom == var:
                return atom
            if atom not in atoms:
                atoms.append(atom)
            return f"_k{atoms.index(atom)}"

        def top_keyed(found) -> str:  # a top card read as a key: None when the zone is empty (the set
            zone = found.group(1)  # then fails to build, and the code as written says what it says)
            atom = f"(s.z[{zone}][-1] if s.z[{zone}] else None)"
            if atom not in atoms:
                atoms.append(atom)
            return f"_k{atoms.index(atom)}"
        plain = unhoisted(unmarked(cond))
        if plain is None or ":=" in plain:
            return code  # (a name bound inside the condition, an inlined def's argument, is no key)
        plain = _KEY_ATOM.sub(keyed, _TOP_READ.sub(top_keyed, plain))
        if not table_safe(plain, var, _KEY_NAME) or table_reads(plain) < 1:
            return code  # (with one read too: the zone is met in C, not card by card)
        tab = self.c.module.fresh("_S")
        self.c.module.add([(f"{tab} = {{}}", None)])
        build = self.c.module.function(f"{tab}_build", ", ".join(f"_k{i}" for i in range(len(atoms))),
                                       [(f"    return frozenset([{var} for {var} in range({self.c.ncards}) if {plain}])",
                                         None)], Span())
        found = self.c.module.fresh("_s")
        key = "(" + "".join(f"{a}, " for a in atoms) + ")"
        # a set already built is read in place (no call); the first time, _card_set builds it
        got = f"{tab}[{found}k] if ({found}k := {key}) in {tab} else _card_set({tab}, {found}k, {build})"
        return f"({answer.format(found, dcode)} if ({found} := {got}) is not None else {code})"

    def call_filter(self, e, scope):
        """filter(x in D if C): the elements of D for which C holds, in order."""
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        elem = inner.names[e.args[0].item.name][1]
        if e.where is None:
            self.c.error("'filter' needs a condition, as in 'filter(c in in_play if not (c in laws))'", e.span)
            return "()", T.list_of(elem)  # an empty list of the right kind: no second error about it
        cond = self.fn_code(e.where, inner, T.BOOL)
        return f"tuple([{var} for {var} in {dcode} if {cond}])", T.list_of(elem)

    def call_any(self, e, scope):
        return self._quantifier(e, scope, "any")

    def call_all(self, e, scope):
        return self._quantifier(e, scope, "all")

    def _aggregate(self, e, scope, pyfunc):
        if e.for_var is None:
            if pyfunc in ("max", "min") and len(e.args) >= 2:
                args = [self.fn_code(a, scope, T.NUM) for a in e.args]
                return f"{pyfunc}({', '.join(args)})", T.NUM
            self.c.error(f"'{e.func}' needs the form '{e.func}(x.points for x in zone)'", e.span)
            return _NOPE
        if len(e.args) != 1:
            self.c.error(f"'{e.func}' adds up one expression per element", e.span)
            return _NOPE
        dcode, elem = self.iterable(e.for_domain, scope)
        inner = scope.child()
        var = inner.bind(e.for_var, elem)
        val = self.fn_code(e.args[0], inner, T.NUM)
        cond = f" if {self.fn_code(e.where, inner, T.BOOL)}" if e.where is not None else ""
        values = f"[{val} for {var} in {dcode}{cond}]"
        if pyfunc == "sum":
            return f"sum({values})", T.NUM
        return f"{pyfunc}({values}, default=0)", T.NUM

    def call_sum(self, e, scope):
        return self._aggregate(e, scope, "sum")

    def call_max(self, e, scope):
        return self._aggregate(e, scope, "max")

    def call_min(self, e, scope):
        return self._aggregate(e, scope, "min")

    def keyed(self, e, scope, example: str):
        """The parts of `F(x in D by K [if C])` (best, worst, sorted): (the element's name, D's code,
        K's code, ' if C' or '', the element's type), or None after an error."""
        b = self.binding(e, scope)
        if b is None:
            return None
        inner, var, dcode = b
        if e.by is None:
            self.c.error(f"'{e.func}' needs 'by', as in '{example}'", e.span)
            return None
        key = self.sort_key(e, inner)
        if key is None:
            return None
        cond = f" if {self.fn_code(e.where, inner, T.BOOL)}" if e.where is not None else ""
        return var, dcode, key, cond, inner.names[e.args[0].item.name][1]

    def _best(self, e, scope, helper):
        parts = self.keyed(e, scope, f"{e.func}(p in players by p.score)")
        if parts is None:
            return _NOPE
        var, dcode, key, cond, elem = parts
        # max and min return the first of equal elements, as best and worst promise; none at all:
        # nobody (a player), no card (-1)
        none = "None" if elem == T.PLAYER else "-1"
        # (key, -index, element) triples: the index breaks ties, so elements are never compared, and
        # no key function is called per element
        i = f"{var}i"
        sign = "-" if helper == "max" else ""
        return (f"{helper}([(({key}), {sign}{i}, {var}) for {i}, {var} in enumerate({dcode}){cond}], "
                f"default=(0, 0, {none}))[2]"), elem

    def call_best(self, e, scope):
        return self._best(e, scope, "max")

    def call_worst(self, e, scope):
        return self._best(e, scope, "min")

    def _one_arg(self, e, scope):
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.c.error(f"'{e.func}' takes one argument", e.span)
            return None
        return self.expr(e.args[0], scope)

    def call_team(self, e, scope):
        """team(p): the number of p's team, from 1 (`players 4 in 2 teams`: P1 and P3 are team 1)."""
        if self._teams_call(e, "team(p)"):
            return f"(({self.fn_code(e.args[0], scope, T.PLAYER)}) % {self.c.teams} + 1)", T.NUM
        return _NOPE

    def call_partners(self, e, scope):
        """partners(p): the other players of p's team, in seat order."""
        if self._teams_call(e, "partners(p)"):
            return f"_partners(s, {self.fn_code(e.args[0], scope, T.PLAYER)}, {self.c.teams})", T.list_of(T.PLAYER)
        return _NOPE

    def _teams_call(self, e, form: str) -> bool:
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.c.error(f"'{e.func}' takes one player: {form}", e.span)
            return False
        if not self.c.teams:
            self.c.error(f"'{e.func}' asks about teams, but the game has none", e.span,
                         "say how many: 'players 4 in 2 teams'")
            return False
        return True

    def call_knows(self, e, scope):
        """knows(p, c): player p sees card c where it lies, or was shown it since it last moved.
        knows(p, c.ATTR), knows(p, c.ATTR == v), knows(p, c.ATTR != v): p knows the attribute's value,
        that it is v, that it is not v (they see the card, or what they were told leaves no doubt)."""
        if len(e.args) != 2 or e.for_var or e.where or e.by:
            self.c.error("'knows' takes a player and a card, or a card's attribute: knows(p, c), "
                         "knows(p, c.colour), knows(p, c.colour != red)", e.span)
            return _NOPE
        p = self.fn_code(e.args[0], scope, T.PLAYER)
        fact = self.attr_fact(e.args[1], scope, "knows")
        if fact is not None:
            c, attr, value, equal = fact
            return f"s.knows_attr({p}, {c}, {attr}, {value}, {equal})", T.BOOL
        c = self.fn_code(e.args[1], scope, T.CARD)
        return f"s.sees_card({p}, {c})", T.BOOL

    def attr_fact(self, e, scope, what: str):
        """A fact about one attribute of a card, as `reveal` tells it and `knows` reads it: `c.ATTR`
        (its value) or `c.ATTR == v`, `c.ATTR != v` (whether it is v). (card code, attribute index,
        value code or None, whether equal), or None if `e` is not one (it is then read as a card)."""
        attr = e.left if isinstance(e, m.Compare) else e
        if isinstance(e, m.Compare) and (e.op not in ("==", "!=") or not self._attr_of_card(attr, scope)):
            self.c.error(f"'{what}' takes a card, a card's attribute (c.colour), or a comparison of one with a "
                         "value (c.colour == red, c.colour != red)", e.span,
                         "write the attribute on the left of == or !=" if e.op in ("==", "!=")
                         else f"'{e.op}' cannot be told or known of a card: only == and !=")
            return "0", 0, "None", True
        if not self._attr_of_card(attr, scope):
            return None
        card = self.fn_code(attr.obj, scope, T.CARD)
        index = self.c.attr_index[attr.name]
        if not isinstance(e, m.Compare):
            return card, index, "None", True
        value = self.fn_code(e.right, scope, T.value_type(attr.name))
        return card, index, value, e.op == "=="

    def _attr_of_card(self, e, scope) -> bool:
        """Whether an expression reads an attribute of a card (`c.colour`; attribute names are no other name)."""
        return isinstance(e, m.Attr) and e.name in self.c.attr_index

    def call_card(self, e, scope):
        """card(v, w, ...): the card with these values (one per attribute), like card(9, spades)."""
        if not e.args or e.for_var or e.where or e.by:
            self.c.error("'card' takes values, one per attribute: card(9, spades)", e.span)
            return _NOPE
        attrs, codes = [], []
        for arg in e.args:
            if self.bare_value(arg, scope) or (isinstance(arg, (m.Name, m.Number)) and self.is_value_name(arg, scope)):
                found = self.c.value_of(str(arg.value if isinstance(arg, m.Number) else arg.name), arg.span)
                if found is None:
                    return _NOPE
                attrs.append(found[0])
                codes.append(str(found[1]))
                continue
            if isinstance(arg, m.Number):  # a number no attribute has as a value: say which values there are
                listed = "; ".join(f"{name}: {', '.join(values)}" for name, values, _ in self.c.attr_list)
                self.c.error(f"no card attribute has the value {arg.value}", arg.span, f"the values are {listed}")
                return _NOPE
            code, typ = self.expr(arg, scope)
            if not T.is_value(typ):
                self.c.error(f"'card' takes card values, like 9 or spades; this is {T.describe(typ)}", arg.span)
                return _NOPE
            attrs.append(typ[6:])
            codes.append(code)
        if len(set(attrs)) != len(attrs):
            self.c.error("'card' takes one value per attribute", e.span)
            return _NOPE
        table: dict = {}
        full: dict = {}  # the values a card has for every attribute, per key: copies of a card are one card
        for c in range(self.c.ncards):
            key = tuple(self.c.card_attr_tables[a][c] for a in attrs)
            table.setdefault(key, c)
            full.setdefault(key, set()).add(tuple(t[c] for t in self.c.card_attr_tables.values()))
        # the values it may be given: those written out, or (computed) any values the cards have (a
        # card without one of these attributes, a joker beside ranked cards, is not among them)
        given = tuple(int(code) for code in codes) if all(code.isdigit() for code in codes) else None
        several = [cards for key, cards in full.items()
                   if len(cards) > 1 and (key == given if given is not None else -1 not in key)]
        if several:
            rest = [a for k, a in enumerate(self.c.card_attr_tables) if a not in attrs
                    and any(values[k] >= 0 for values in several[0])]  # what tells those cards apart
            self.c.error("'card' takes one value per attribute: these values name several cards", e.span,
                       f"give a value of {' and '.join(repr(a) for a in rest)} too" if rest else None)
            return _NOPE
        if given is not None:
            key = tuple(int(code) for code in codes)
            if key not in table:
                if not self.c.cards_failed:  # (else the cards line's error is the one mistake)
                    self.c.error("no card of the game has these values", e.span)
                return _NOPE
            return str(table[key]), T.CARD
        name = f"_cards_{'_'.join(attrs)}"
        self.c.data[name] = table
        return self.c.module.mark(f"_card_of({name}, ({', '.join(codes)},))", e.span), T.CARD

    def is_value_name(self, arg, scope) -> bool:
        """A bare value name (`spades`, `9`) that is not also a name the rules declared."""
        name = str(arg.value) if isinstance(arg, m.Number) else arg.name
        return name in self.c.values and scope.lookup(name) is None and name not in self.c.known and name not in _BARE

    def call_tops(self, e, scope):
        """tops(Z, ...): the top card of each of these zones that is not empty, in order (a family of
        zones, `tops(supply)`, stands for all of its zones)."""
        if not e.args or e.for_var or e.where or e.by:
            self.c.error("'tops' takes zones: tops(discard, discard2)", e.span)
            return _NOPE
        zones = [code for a in e.args for code in self.family_codes(a, scope) or [self.fn_code(a, scope, T.ZONE)]]
        return f"_tops(s, ({', '.join(zones)},))", T.list_of(T.CARD)

    def call_random(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.ZONE:
            return self.c.module.mark(f"s.pick(s.z[{code}])", e.span), T.CARD
        return self.c.module.mark(f"s.pick(tuple({code}))", e.span), self.elem_type(typ, e.args[0].span)

    def number_code(self, attr: str, table: tuple, code: str, span: Span) -> str:
        """The code of the number of a value of `attr` (its index, `code`), by the numbers of its
        values (`table`, None where a value has none: an error when the game reads it)."""
        self.c.data["N_" + attr] = Table({i: n for i, n in enumerate(table) if n is not None},
                                         "this value has no number")
        return self.c.module.mark(f"N_{attr}[{code}]", span)

    def call_number(self, e, scope):
        """number(x): a value's own number (rank 10 is 10), a player's seat number, a number itself."""
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.PLAYER:
            return f"(({code}) + 1)", T.NUM
        if typ == T.ANY:  # a function's parameter: a player's seat number and a plain number differ
            self.c.error("'number' cannot tell what this function parameter is: a player, a card value "
                       "or a number", e.args[0].span,
                       "compare players with == instead, or call 'number' where the function is called")
            return _NOPE
        if T.is_value(typ):
            attr = typ[6:]
            names = self.c.attr_list[self.c.attr_index[attr]][1]
            table = tuple(int(n) if n.lstrip("-").isdigit() else None for n in names)
            if all(x is None for x in table):
                self.c.error(f"no {attr} is a number", e.span)
            return self.number_code(attr, table, code, e.span), T.NUM
        self.want(typ, T.NUM, e.args[0].span)
        return code, T.NUM


    # ---- sequences: the n-th element, the top N, sorted lists, lists of values
    def sequence_arg(self, arg, scope) -> tuple[str, str, bool] | None:
        """A zone or a list as (Python sequence, element type, whether it is a zone); None if neither."""
        code, typ = self.expr(arg, scope)
        if typ == T.ZONE:
            return f"s.z[{code}]", T.CARD, True
        if typ == "players":
            return "s.alive", T.PLAYER, False
        if typ == T.ANY:  # a function's parameter: a zone (read from its top) or a list
            return code, T.ANY, None
        if T.is_list(typ):
            return code, T.element(typ), False
        self.c.error(f"expected a zone or a list, found {T.describe(typ)}", arg.span)
        return None

    def call_nth(self, e, scope):
        """nth(Z, n [, bottom]): the n-th card from the top of zone Z (from its bottom with `bottom`),
        or the n-th element of a list, counting from 1."""
        usage = "'nth' takes a zone or a list and a number: nth(pile, 2), nth(pile, 2, bottom)"
        if len(e.args) not in (2, 3) or e.for_var or e.where or e.by:
            self.c.error(usage, e.span)
            return _NOPE
        seq = self.sequence_arg(e.args[0], scope)
        n = self.fn_code(e.args[1], scope, T.NUM)
        if seq is None:
            return _NOPE
        code, elem, zone = seq
        from_top = bool(zone)
        if len(e.args) == 3:
            end = e.args[2]
            if not (isinstance(end, m.Name) and end.name in ("top", "bottom")) or zone is False:
                self.c.error("nth's third argument is 'top' or 'bottom', and only for a zone", end.span, usage)
                return _NOPE
            from_top = end.name == "top"
        where = ("top" if from_top else "bottom") if zone else None
        if zone is None:  # known only at run time: a zone counts from its top, a list from its first
            return self.c.module.mark(f"_nth_any(s, {code}, {n}, {e.args[2].name == 'top' if len(e.args) == 3 else None})",
                                      e.span), elem
        return self.c.module.mark(f"_nth({code}, {n}, {from_top}, {where!r})", e.span), elem

    def call_top_n(self, e, scope, end: str):
        """top(Z, n), bottom(Z, n): the n cards at the top (the top first) or the bottom (the bottom
        first) of zone Z; all of them if Z holds fewer."""
        if len(e.args) != 2 or e.for_var or e.where or e.by:
            self.c.error(f"'{end}' takes a zone, and a number for several cards: {end}(pile), {end}(pile, 3)", e.span)
            return _NOPE
        z = self.fn_code(e.args[0], scope, T.ZONE)
        n = self.fn_code(e.args[1], scope, T.NUM)
        return self.c.module.mark(f"_ends(s.z[{z}], {n}, {end == 'top'})", e.span), T.list_of(T.CARD)

    def call_sorted(self, e, scope):
        """sorted(x in D by E [ascending | descending] [if C]): the elements of D (that satisfy C) in
        the order of their keys E; equal keys keep the order of D."""
        parts = self.keyed(e, scope, "sorted(c in me.hand by c.rank descending)")
        if parts is None:
            return _NOPE
        var, dcode, key, cond, elem = parts
        reverse = ", reverse=True" if e.descending else ""  # Python's sort stays stable when reversed
        return f"tuple(sorted([{var} for {var} in {dcode}{cond}], key=lambda {var}: ({key}){reverse}))", \
            T.list_of(elem)

    def sort_key(self, e, inner) -> str | None:
        """The code of a `by` key of best, worst or sorted: a number, a value, or a list of them
        (compared element by element); None after an error."""
        self.unhoistable += 1  # the key is a lambda's body
        try:
            key, ktyp = self.expr(e.by, inner)
        finally:
            self.unhoistable -= 1
        if not self.ordered(ktyp):
            self.c.error(f"'{e.func}' needs a key that can be ordered: a number, a value or a list of them, not "
                         f"{T.describe(ktyp)}", e.by.span)
            return None
        return f"tuple({key})" if T.is_list(ktyp) else key

    def call_list(self, e, scope):
        """list(E for x in D [if C]): the list of E for each element of D (that satisfies C), in order."""
        if e.for_var is None or len(e.args) != 1 or e.by:
            self.c.error("'list' needs the form 'list(c.rank for c in me.hand)'", e.span)
            return _NOPE
        dcode, elem = self.iterable(e.for_domain, scope)
        inner = scope.child()
        var = inner.bind(e.for_var, elem)
        val, typ = self.expr(e.args[0], inner)
        cond = f" if {self.fn_code(e.where, inner, T.BOOL)}" if e.where is not None else ""
        return f"tuple([{val} for {var} in {dcode}{cond}])", T.list_of(typ)

    def call_values(self, e, scope):
        """values(ATTR): every value of a card attribute, in its declared order."""
        arg = e.args[0] if len(e.args) == 1 and not (e.for_var or e.where or e.by) else None
        if not isinstance(arg, m.Name) or arg.name not in self.c.attr_index:
            self.c.error("'values' takes the name of a card attribute: values(rank)", e.span,
                         did_you_mean(arg.name, self.c.attr_index) if isinstance(arg, m.Name) else None)
            return _NOPE
        n = len(self.c.attr_list[self.c.attr_index[arg.name]][1])
        return f"range({n})", T.list_of(T.value_type(arg.name))
