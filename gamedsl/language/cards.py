"""The cards of a game: attributes and their values, the cards made of them, their names, their
backs, and the value tables (`value points: A = 11, ...`)."""
from __future__ import annotations

import itertools

from ..errors import Span
from . import model as m
from . import types as T
from .context import Context, Scope

MAX_CARDS = 10_000
_NAME, _SPAN = " name", " span"  # keys of a card record that are not attributes


class Cards:
    """The declaration passes about cards; they fill the context's card tables."""

    def __init__(self, c: Context, expr):
        self.c, self.expr = c, expr

    def attributes(self):
        c = self.c
        for a in c.gm.of(m.AttributeDecl):
            if not c.declare(a.name, "a card attribute", a.span):
                continue
            names = []
            for v in a.values:
                if v.name in names:
                    c.error(f"value '{v.name}' appears twice in attribute '{a.name}'", v.span)
                    continue
                c.values.setdefault(v.name, []).append((a.name, len(names)))
                names.append(v.name)
            symbols = [v.symbol if v.symbol is not None else v.name for v in a.values][: len(names)]
            c.attr_list.append((a.name, names, symbols))
        c.attr_index = {a[0]: i for i, a in enumerate(c.attr_list)}

    def choice_options(self):
        """`option mode: a, b, c`: its values are read like card values (`mode == b`); the first is the default."""
        c = self.c
        for o in c.gm.of(m.OptionChoiceDecl):
            if not c.declare(o.name, "an option", o.span):
                continue
            names = []
            for name, span in o.choices:
                if name in names:
                    c.error(f"'{name}' appears twice in option '{o.name}'", span)
                    continue
                if name in c.known:
                    c.error(f"'{name}' is already declared as {c.known[name]}", span)
                    continue
                if name in c.values:
                    c.error(f"'{name}' is already a value of '{c.values[name][0][0]}'", span,
                            "give the option's values other names")
                    continue
                c.values.setdefault(name, []).append((o.name, len(names)))
                names.append(name)
            c.option_index[o.name] = len(c.option_index)
            c.options[o.name] = (0, o.doc)
            c.option_choices[o.name] = names

    # ---- the cards
    def cards(self):
        c = self.c
        decls = c.gm.of(m.CardsDecl)
        if not decls:
            c.error("the game has no cards", Span(), "add a line like 'cards rank * suit'")
        records: list[dict] = []
        before = len(c.diags)
        for d in decls:
            records.extend(self.card_line(d, len(records)))
        c.cards_failed = len(c.diags) > before
        for a, _, _ in c.attr_list:
            table = tuple(r.get(a, -1) for r in records)
            c.card_attr_tables[a] = table
            c.data["A_" + a] = table
        c.card_names = [self.card_name(r) for r in records]
        c.ncards = len(records)
        # Identical copies of a card: a move offers one of them per zone, not each copy.
        first: dict[tuple, int] = {}
        twins = tuple(first.setdefault(tuple(r.get(a, -1) for a, _, _ in c.attr_list), k)
                      for k, r in enumerate(records))
        c.has_twins = any(t != k for k, t in enumerate(twins))
        c.data["_twin"] = c.twins = twins
        self.check_names(records)

    def card_line(self, d: m.CardsDecl, before: int) -> list[dict]:
        """The cards one `cards` line makes (each a record: attribute -> value index)."""
        c = self.c
        choices = []
        for f in d.factors:
            if not f.is_set and f.names[0] in c.attr_index:
                a = f.names[0]
                choices.append([(a, i) for i in range(len(c.attr_list[c.attr_index[a]][1]))])
                continue
            vals = [c.value_of(n, f.span) for n in f.names]
            if None in vals:
                continue
            if len({a for a, _ in vals}) > 1:
                c.error("a set of values must all belong to one attribute", f.span)
                continue
            choices.append(vals)
        attrs_used = [ch[0][0] for ch in choices if ch]
        dup = {a for a in attrs_used if attrs_used.count(a) > 1}
        if dup:
            c.error(f"attribute '{sorted(dup)[0]}' is given twice in one 'cards' line", d.span)
            return []
        where = self.cards_where(d.where) if d.where is not None else None
        size = d.times
        for choice in choices:
            size *= len(choice)
        if before + size > MAX_CARDS:
            c.error(f"this makes more than {MAX_CARDS} cards", d.span)
            return []
        kept = []
        for combo in itertools.product(*choices):
            rec = dict(combo)
            if where is not None and not self._safe_where(where, rec, d.where.span):
                continue
            kept.append(rec)
        if d.named is not None:
            if len(kept) != 1:
                c.error(f"'named' gives one name to one card, but this line makes {len(kept)} different cards",
                        d.span, "give each card its own 'cards' line, or name values with symbols")
            for rec in kept:
                rec[_NAME] = d.named
        out = []
        for rec in kept:
            rec[_SPAN] = d.span
            out.extend(dict(rec) for _ in range(d.times))
        return out

    def check_names(self, records):
        """Every card has a name, and two different cards never share one."""
        c = self.c
        for r, name in zip(records, c.card_names):
            if not name:
                c.error("these cards have no name: every value they have has an empty symbol", r[_SPAN])
                break
        owner: dict[str, tuple] = {}
        for r, name in zip(records, c.card_names):
            key = tuple(r.get(a, -1) for a, _, _ in c.attr_list)
            first = owner.setdefault(name, key)
            if first != key:
                c.error(f"two different cards are both called '{name}'", r[_SPAN],
                        "players could not say which one they mean: give one of them a symbol or a 'named'")
                owner[name] = key  # report each clash once

    def card_name(self, rec: dict) -> str:
        """A card's name: its 'named' text, or its values' symbols (an empty symbol is left out)."""
        if _NAME in rec:
            return rec[_NAME]
        parts = [sym[rec[a]] for a, _, sym in self.c.attr_list if a in rec and sym[rec[a]] != ""]
        return "".join(parts) if all(len(p) <= 2 for p in parts[1:]) else " ".join(parts)

    def _safe_where(self, fn, rec, span):
        try:
            return bool(fn(rec))
        except Exception as exc:  # noqa: BLE001 - reported as the user's error
            self.c.error(f"this condition cannot be applied to every card: {exc}", span)
            return False

    def cards_where(self, expr: m.Expr):
        """A `cards ... where COND` condition, run now on each card's record (attribute -> value index)."""
        self.expr.cards_where = True
        code, typ = self.expr.expr(expr, Scope())
        self.expr.cards_where = False
        self.expr.want(typ, T.BOOL, expr.span)
        return eval(f"lambda _rec: ({code})", dict(self.c.data))  # noqa: S307 - our own generated code

    # ---- backs and value tables
    def backs(self):
        """The attributes a card's back shows (its kind, say): visible to all, even face down."""
        c = self.c
        decls = c.gm.of(m.BackDecl)
        for extra in decls[1:]:
            c.error("a game has one 'back shows' line; this is a second one", extra.span)
        for name, span in (decls[0].attributes if decls else ()):
            if name not in c.attr_index:
                c.unknown("card attribute", name, span, c.attr_index)
            elif name not in c.back_attrs:
                c.back_attrs.append(name)

    def value_tables(self):
        c = self.c
        for v in c.gm.of(m.ValueDecl):
            if not c.declare(v.name, "a card value", v.span):
                continue
            entries = []
            default = 0
            for e in v.entries:
                num = self.const_number(e.value)
                if e.pattern is None:
                    default = num
                    continue
                conds = []
                for name, span in e.pattern:
                    if name in c.attr_index:
                        c.error(f"'{name}' is an attribute; a pattern lists values, like 'Q clubs'", span)
                        continue
                    found = c.value_of(name, span)
                    if found:
                        conds.append(found)
                entries.append((conds, num))
            table = []
            for card in range(c.ncards):
                val = default
                for conds, num in entries:
                    if all(c.card_attr_tables[a][card] == i for a, i in conds):
                        val = num
                        break
                table.append(val)
            c.data["V_" + v.name] = tuple(table)
            c.value_names.add(v.name)

    def const_number(self, e: m.Expr) -> int:
        if isinstance(e, m.Number):
            return e.value
        if isinstance(e, m.Neg) and isinstance(e.operand, m.Number):
            return -e.operand.value
        self.c.error("a value table entry must be a number", e.span)
        return 0
