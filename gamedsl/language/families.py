"""Families of zones in expressions: `column[k]`, `pile[c.kind]`, `p.tableau[2]` (one zone of a
family: declarations.family), `zone_of(c)` (the zone a card lies in) and `above(c)` (the cards on
top of it in its zone). A mixin of ExpressionCompiler."""
from __future__ import annotations

from . import model as m
from . import types as T
from .builtins import _NOPE
from .context import Scope
from .program import Table


class Families:
    def ex_index(self, e: m.Index, scope: Scope, hint):
        """`column[k]`, `pile[c.kind]`, `p.tableau[2]`: one zone of a family (declarations.family)."""
        c, obj = self.c, e.obj
        name = obj.name if isinstance(obj, (m.Name, m.Attr)) else None
        if name not in c.families and name is not None and name not in c.known and \
                (isinstance(obj, m.Attr) or scope.lookup(name) is None):
            c.unknown("family of zones", name, obj.name_span if isinstance(obj, m.Attr) else obj.span, c.families)
            return _NOPE
        if name not in c.families:
            c.error("only a family of zones is read with [...]", e.span,
                    f"the families here: {', '.join(c.families)}" if c.families
                    else "declare one: zone column[7]: ... or zone pile per kind: ...")
            return _NOPE
        attr, zones = c.families[name]
        offset = ""
        if zones[0].per_player:
            if not isinstance(obj, m.Attr):
                c.error(f"zones '{name}' belong to each player: write p.{name}[...] (or me.{name}[...])", e.span)
                return _NOPE
            offset = f" + ({self.fn_code(obj.obj, scope, T.PLAYER)})"
        elif isinstance(obj, m.Attr):
            c.error(f"zones '{name}' are shared: write {name}[...]", e.span)
            return _NOPE
        if attr is None:
            code, typ = self.expr(e.index, scope, T.NUM)
            code, typ = self.numeric(code, typ, e.index.span)
            self.want(typ, T.NUM, e.index.span)
            first = 1
        else:
            code = self.fn_code(e.index, scope, T.value_type(attr))
            first = 0
        if code.lstrip("-").isdigit():
            k = int(code) - first
            if not 0 <= k < len(zones):
                c.error(f"{name}[{code}] is not a zone: '{name}' has {len(zones)} zones, 1 to {len(zones)}", e.index.span)
                return _NOPE
            return f"{zones[k].base}{offset}", T.ZONE
        table = f"_FAMILY_{name}"
        c.data[table] = Table({k + first: z.base for k, z in enumerate(zones)},
                              f"{name}[{{key}}] is not a zone: '{name}' has {len(zones)} zones, 1 to {len(zones)}"
                              if first else f"{name}[...] needs a value: this card has none of that attribute")
        return self.c.module.mark(f"{table}[{code}]{offset}", e.span), T.ZONE

    def family_codes(self, e, scope) -> list | None:
        """The code of every zone of a family written by its name (`supply`, `me.row`), or None."""
        c = self.c
        if not isinstance(e, (m.Name, m.Attr)) or e.name not in c.families:
            return None
        if isinstance(e, m.Name) and scope.lookup(e.name) is not None:
            return None
        zones = c.families[e.name][1]
        if zones[0].per_player != isinstance(e, m.Attr):
            return None  # (the zone's own error)
        owner = f" + ({self.fn_code(e.obj, scope, T.PLAYER)})" if isinstance(e, m.Attr) else ""
        return [f"{z.base}{owner}" for z in zones]

    def call_zone_of(self, e, scope):
        """zone_of(c): the zone card c lies in (a zone: compared with ==, moved to, counted...)."""
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.c.error("'zone_of' takes one card: zone_of(c)", e.span)
            return _NOPE
        return f"s.loc[{self.fn_code(e.args[0], scope, T.CARD)}]", T.ZONE

    def call_above(self, e, scope):
        """above(c): the cards on top of card c in its zone, from the one just above it to the top."""
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.c.error("'above' takes one card: above(c)", e.span)
            return _NOPE
        return f"_above(s, {self.fn_code(e.args[0], scope, T.CARD)})", T.list_of(T.CARD)
