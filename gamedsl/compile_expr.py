"""Compiles expressions to Python source, with their types, resolving every name."""
from __future__ import annotations

from . import model as m
from . import types as T
from .errors import Span, did_you_mean
from .program import MAX_SEATS

BUILTINS = {"me", "players", "all_players", "all_cards", "in_play", "others", "count", "any", "all", "sum", "max", "min",
            "best", "worst", "random", "next", "previous", "top", "bottom", "abs", "seat", "number", "knows", "card",
            "same", "has", "makes", "can_make", "tops", "filter", "nobody"}
_BARE = ("me", "players", "all_players", "all_cards", "in_play", "others", "nobody")  # built-ins read without parentheses
_NOPE = ("None", T.ANY)
_AGGREGATES = {"count", "any", "all", "sum", "max", "min", "best", "worst", "filter"}
# One-argument built-ins: name -> (argument type, result type, Python template).
_SIMPLE = {
    "next": (T.PLAYER, T.PLAYER, "_next(s, {}, 1)"),  # the next player still in the game
    "previous": (T.PLAYER, T.PLAYER, "_next(s, {}, -1)"),
    "seat": (T.NUM, T.PLAYER, "_seat(s, {})"),  # the n-th player, counting from 1
    "top": (T.ZONE, T.CARD, "s.top({})"),
    "bottom": (T.ZONE, T.CARD, "s.bottom({})"),
    "abs": (T.NUM, T.NUM, "abs({})"),
}


class ExpressionCompiler:
    """Mixin of the Compiler: one ex_* method per expression node, one call_* per built-in."""

    # ---- expressions
    def fn(self, e: m.Expr, scope: Scope, want: str):
        """Compile an expression into fn(state, env)."""
        code = self.fn_code(e, scope, want)
        return self.source_map.function(code, e.span, self.ns)

    def fn_code(self, e: m.Expr, scope: Scope, want: str) -> str:
        code, typ = self.expr(e, scope, want)
        self.want(typ, want, e.span)
        return code

    def want(self, got: str, want: str, span: Span):
        if got == want or T.ANY in (got, want):
            return
        if want == T.BOOL and got == T.NUM:
            return
        self.error(f"expected {T.describe(want)}, found {T.describe(got)}", span)

    def expr(self, e: m.Expr, scope: Scope, hint: str | None = None) -> tuple[str, str]:
        """(python code, type) of an expression; `hint` is the type a bare value name should take."""
        if e.span.line:
            self.where = e.span
        return getattr(self, "ex_" + type(e).__name__.lower())(e, scope, hint)

    def ex_number(self, e, scope, hint):
        if hint and T.is_value(hint):
            found = self.value_of(str(e.value), e.span, hint[6:])
            return (str(found[1]), hint) if found else _NOPE
        return str(e.value), T.NUM

    def ex_string(self, e, scope, hint):
        return repr(e.value), T.STR

    def ex_bool(self, e, scope, hint):
        return str(e.value), T.BOOL

    def ex_name(self, e: m.Name, scope: Scope, hint):
        name = e.name
        found = scope.lookup(name)
        if found is not None:
            return found
        if self.cards_where_card and name in self.attr_index:
            return f"_rec.get({name!r}, -1)", T.value_type(name)
        if hint and T.is_value(hint) and name in self.values:
            found = self.value_of(name, e.span, hint[6:])
            return (str(found[1]), hint) if found else _NOPE
        if name == "me":
            return "s.me", T.PLAYER
        if name == "nobody":  # no player: what a player variable holds until it is set
            return "None", T.PLAYER
        if name == "players":  # the players still in the game
            return "s.alive", "players"
        if name == "all_players":  # every seat, eliminated or not
            return "range(s.np)", T.list_of(T.PLAYER)
        if name == "all_cards":  # every card of the game, wherever it lies
            return f"range({self.ncards})", T.list_of(T.CARD)
        if name == "in_play":  # every card not in a zone marked `out`
            return "s.in_play()", T.list_of(T.CARD)
        if name == "others":  # every player but me, in turn order from me's left
            return "_others(s)", T.list_of(T.PLAYER)
        if name in self.var_by_name:
            var = self.var_by_name[name]
            if var.per_player:
                self.error(f"'{name}' belongs to each player: write p.{name} (or me.{name})", e.span)
                return _NOPE
            if var.per_card:
                self.error(f"'{name}' belongs to each card: write c.{name}", e.span)
                return _NOPE
            return f"s.v[{var.base}]", var.type
        if name in self.param_info:
            if self.param_info[name].per_player:
                self.error(f"parameter '{name}' belongs to each player: write p.{name}", e.span)
                return _NOPE
            return f"P_{name}(s)", self.param_types[name]
        if name in self.option_index:
            typ = T.value_type(name) if name in self.option_choices else T.NUM
            return f"s.opt[{self.option_index[name]}]", typ
        if name in self.zone_by_name:
            zone = self.zone_by_name[name]
            if zone.per_player:
                self.error(f"zone '{name}' belongs to each player: write p.{name} (or me.{name})", e.span)
                return _NOPE
            return str(zone.base), T.ZONE
        if name in self.values and len(self.values[name]) == 1:
            a, i = self.values[name][0]
            return str(i), T.value_type(a)
        if name in self.values:
            self.value_of(name, e.span)
            return _NOPE
        if hint == T.ZONE:
            self.unknown("zone", name, e.span, self.zone_by_name)
            return _NOPE
        if name in self.known:  # declared, but not something an expression can read by itself
            what = self.known[name]
            hint = {"a card value": f"a card's value is read from a card: c.{name}",
                    "a function": f"call it: {name}(...)",
                    "a card attribute": f"a card's attribute is read from a card: c.{name}"}.get(what)
            self.error(f"'{name}' is {what}, not a value by itself", e.span, hint)
            return _NOPE
        candidates = list(self.known) + list(_BARE) + list(self.values) + self.visible_names(scope)
        self.unknown("name", name, e.span, candidates)
        return _NOPE

    def visible_names(self, scope: Scope) -> list:
        out = []
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out

    def ex_attr(self, e: m.Attr, scope: Scope, hint):
        ocode, otyp = self.expr(e.obj, scope)
        name = e.name
        if otyp == T.ANY:  # a function parameter: its kind follows from what is read of it
            per_card = name in self.var_by_name and self.var_by_name[name].per_card
            otyp = T.CARD if name in self.attr_index or name in self.value_names or per_card else T.PLAYER
        mark = self.source_map.mark  # a player's or card's own value: the player may be nobody
        if otyp == T.PLAYER:
            if name in self.var_by_name and self.var_by_name[name].per_player:
                var = self.var_by_name[name]
                return mark(f"s.v[{var.base} + ({ocode})]", e.span), var.type
            if name in self.zone_by_name and self.zone_by_name[name].per_player:
                return mark(f"({self.zone_by_name[name].base} + ({ocode}))", e.span), T.ZONE
            if name in self.param_info and self.param_info[name].per_player:
                return mark(f"P_{name}(s, {ocode})", e.span), self.param_types[name]
            options = [v.name for v in self.var_list if v.per_player] + [
                z.name for z in self.zone_list if z.per_player]
            self.unknown("per-player variable or zone", name, e.name_span, options)
            return _NOPE
        if otyp == T.CARD:
            if name in self.attr_index:
                return f"A_{name}[{ocode}]", T.value_type(name)
            if name in self.value_names:
                return f"V_{name}[{ocode}]", T.NUM
            if name in self.var_by_name and self.var_by_name[name].per_card:
                var = self.var_by_name[name]
                return mark(f"s.v[{var.base} + ({ocode})]", e.span), var.type
            card_vars = [v.name for v in self.var_list if v.per_card]
            self.unknown("card attribute, value or variable" if card_vars else "card attribute or value", name,
                         e.name_span, list(self.attr_index) + list(self.value_names) + card_vars)
            return _NOPE
        if otyp != T.ANY:
            self.error(f"'.{name}' needs a player or a card, but this is {T.describe(otyp)}", e.obj.span)
        return _NOPE

    def ex_binop(self, e: m.BinOp, scope, hint):
        lc, lt = self.expr(e.left, scope)
        rc, rt = self.expr(e.right, scope)
        if e.op == "+" and T.NUM not in (lt, rt) and (T.element(lt) or T.element(rt)):
            return self.concat(e, lc, lt, rc, rt)
        self.want(lt, T.NUM, e.left.span)
        self.want(rt, T.NUM, e.right.span)
        op = "//" if e.op == "/" else e.op
        if op in ("//", "%"):
            return self.source_map.mark(f"_div({lc}, {rc}, {op!r})", e.span), T.NUM
        if op == "**":
            return self.source_map.mark(f"_pow({lc}, {rc})", e.span), T.NUM
        return f"({lc} {op} {rc})", T.NUM

    def concat(self, e: m.BinOp, lc, lt, rc, rt):
        """`a + b` of zones and lists: one list with the elements of both, in order."""
        parts, elems = [], []
        for code, typ, side in ((lc, lt, e.left), (rc, rt, e.right)):
            elem = T.element(typ) if typ != "players" else T.PLAYER
            if elem is None:
                self.error(f"'+' joins zones and lists, but this is {T.describe(typ)}", side.span)
                return _NOPE
            parts.append(f"*s.z[{code}]" if typ == T.ZONE else f"*{code}")
            elems.append(elem)
        if T.ANY not in elems and elems[0] != elems[1]:
            self.error(f"cannot join a list of {elems[0]}s and a list of {elems[1]}s", e.span)
        return f"({parts[0]}, {parts[1]})", T.list_of(elems[0] if elems[0] != T.ANY else elems[1])

    def ex_neg(self, e: m.Neg, scope, hint):
        code, typ = self.expr(e.operand, scope)
        self.want(typ, T.NUM, e.operand.span)
        return f"(-{code})", T.NUM

    def bare_value(self, e: m.Expr, scope) -> bool:
        """Whether an expression is a value name that several attributes share (its attribute unknown)."""
        if isinstance(e, m.Number):
            return str(e.value) in self.values
        return isinstance(e, m.Name) and len(self.values.get(e.name, ())) > 1 and scope.lookup(e.name) is None \
            and e.name not in self.known and e.name not in _BARE

    def ex_compare(self, e: m.Compare, scope, hint):
        if self.bare_value(e.left, scope) and not self.bare_value(e.right, scope):
            rc, rt = self.expr(e.right, scope)  # the right side tells which attribute 'red' belongs to
            lc, lt = self.expr(e.left, scope, rt)
        else:
            lc, lt = self.expr(e.left, scope)
            rc, rt = self.expr(e.right, scope, lt)
        if T.is_value(rt) and lt != rt and isinstance(e.left, (m.Number, m.Name)):
            lc, lt = self.expr(e.left, scope, rt)
        if lt != rt and T.ANY not in (lt, rt):
            self.error(f"cannot compare {T.describe(lt)} with {T.describe(rt)}", e.span)
        if e.op in ("<", ">", "<=", ">=") and lt not in (T.NUM, T.ANY) and not T.is_value(lt):
            self.error(f"'{e.op}' compares numbers or ordered values, not {T.describe(lt)}", e.span)
        return f"({lc} {e.op} {rc})", T.BOOL

    def ex_member(self, e: m.Member, scope, hint):
        ic, it = self.expr(e.item, scope)
        neg = "not " if e.negated else ""
        if isinstance(e.collection, m.ListExpr):
            items = [self.expr(x, scope, it) for x in e.collection.items]
            for (c, t), x in zip(items, e.collection.items):
                if t != it and T.ANY not in (t, it):
                    self.error(f"cannot look for {T.describe(it)} among {T.describe(t)}s", x.span)
            listed = f"({', '.join(c for c, _ in items)},)" if items else "()"
            return f"({neg}({ic}) in {listed})", T.BOOL
        coll = e.collection
        if isinstance(coll, m.Name) and coll.name in self.zone_by_name and scope.lookup(coll.name) is None \
                and self.zone_by_name[coll.name].per_player:  # `c in laws`: in anyone's zone of that kind
            self.want(it, T.CARD, e.item.span)
            base = self.zone_by_name[coll.name].base
            return f"({neg}({base} <= s.loc[{ic}] < {base + MAX_SEATS}))", T.BOOL
        cc, ct = self.expr(e.collection, scope)
        if ct == T.ZONE:
            self.want(it, T.CARD, e.item.span)
            op = "!=" if e.negated else "=="
            return f"(s.loc[{ic}] {op} {cc})", T.BOOL
        if ct == "players":
            self.want(it, T.PLAYER, e.item.span)
            return f"({neg}(({ic}) in s.alive))", T.BOOL
        elem = T.element(ct)
        if elem is None:
            self.error(f"'in' needs a zone, the players or a list, not {T.describe(ct)}", e.collection.span)
            return _NOPE
        return f"({neg}({ic}) in ({cc}))", T.BOOL

    def ex_logic(self, e: m.Logic, scope, hint):
        lc = self.fn_code(e.left, scope, T.BOOL)
        rc = self.fn_code(e.right, scope, T.BOOL)
        return f"({lc} {e.op} {rc})", T.BOOL

    def ex_not(self, e: m.Not, scope, hint):
        return f"(not {self.fn_code(e.operand, scope, T.BOOL)})", T.BOOL

    def ex_condexpr(self, e: m.CondExpr, scope, hint):
        c = self.fn_code(e.cond, scope, T.BOOL)
        a, at = self.expr(e.then, scope, hint)
        b, bt = self.expr(e.other, scope, at)
        if at != bt and T.ANY not in (at, bt):
            self.error(f"both branches must give the same kind of thing: {T.describe(at)} and {T.describe(bt)}", e.span)
        return f"({a} if {c} else {b})", at

    def ex_listexpr(self, e: m.ListExpr, scope, hint):
        items = [self.expr(x, scope) for x in e.items]
        typ = items[0][1] if items else T.ANY
        return f"({', '.join(c for c, _ in items)},)" if items else "()", T.list_of(typ)

    def domain(self, e: m.Expr, scope: Scope) -> tuple[str, str]:
        code, typ = self.expr(e, scope)
        if typ == T.ZONE:
            return f"s.z[{code}]", T.CARD
        return code, self.elem_type(typ, e.span)

    def binding(self, e: m.Call, scope: Scope):
        """For `f(x in D ...)`: (inner scope, python var, domain code)."""
        if not e.args or not isinstance(e.args[0], m.Member) or not isinstance(e.args[0].item, m.Name) \
                or e.args[0].negated:
            self.error(f"'{e.func}' needs a binding like '{e.func}(c in hand if ...)'", e.span)
            return None
        member = e.args[0]
        dcode, elem = self.domain(member.collection, scope)
        inner = scope.child()
        var = inner.bind(member.item.name, elem)
        return inner, var, dcode

    def ex_call(self, e: m.Call, scope: Scope, hint):
        f = e.func
        if f in _SIMPLE:
            want, result, template = _SIMPLE[f]
            arg = self._one_arg(e, scope)
            if arg is None:
                return _NOPE
            self.want(arg[1], want, e.args[0].span)
            code = self.source_map.mark(template.format(arg[0]), e.span)  # an empty zone, no seat...
            return (self.maybe_hoist(code, scope) if f in ("top", "bottom") else code), result
        handler = getattr(self, "call_" + f, None)
        if handler is not None and f in BUILTINS:
            if f not in _AGGREGATES:
                return handler(e, scope)
            self.agg_depth += 1
            try:
                code, typ = handler(e, scope)
            finally:
                self.agg_depth -= 1
            return self.maybe_hoist(code, scope), typ
        if f in self.def_info:
            d = self.def_info[f]
            if len(e.args) != len(d.params):
                self.error(f"function '{f}' takes {len(d.params)} argument(s), given {len(e.args)}", e.span)
                return _NOPE
            args = [self.expr(a, scope)[0] for a in e.args]
            typ = self.compile_def(f)
            return f"D_{f}(s, {', '.join(args)})", typ
        self.unknown("function", f, e.span, list(self.def_info) + sorted(BUILTINS - set(_BARE)))
        return _NOPE

    def maybe_hoist(self, code: str, scope) -> str:
        """In a legal-move loop, compute an aggregate that does not depend on the candidate once, lazily.

        Expressions have no side effects (random() excepted), so the value is the same for every
        candidate; it is computed on first use, so a condition that short-circuits never pays for it.
        """
        if self.hoist is None or self.agg_depth or "s.pick" in code:
            return code
        if any(name_code in code for name_code, _ in self.visible_codes(scope)):
            return code
        name = f"_h{len(self.hoist)}"
        self.hoist.append(name)
        return f"({name} if {name} is not _U else ({name} := {code}))"

    def visible_codes(self, scope):
        while scope is not None:
            yield from scope.names.values()
            scope = scope.parent

    def call_count(self, e, scope):
        if len(e.args) == 1 and not isinstance(e.args[0], m.Member):
            code, typ = self.expr(e.args[0], scope)
            if typ == T.ZONE:
                return f"len(s.z[{code}])", T.NUM
            if typ == "players":
                return "len(s.alive)", T.NUM
            self.elem_type(typ, e.args[0].span)
            return f"len({code})", T.NUM
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        cond = self.fn_code(e.where, inner, T.BOOL) if e.where is not None else "True"
        return f"sum(1 for {var} in {dcode} if {cond})", T.NUM

    def _quantifier(self, e, scope, pyfunc):
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        cond = self.fn_code(e.where, inner, T.BOOL) if e.where is not None else "True"
        return f"{pyfunc}({cond} for {var} in {dcode})", T.BOOL

    def call_filter(self, e, scope):
        """filter(x in D if C): the elements of D for which C holds, in order."""
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        elem = inner.names[e.args[0].item.name][1]
        if e.where is None:
            self.error("'filter' needs a condition, as in 'filter(c in in_play if not (c in laws))'", e.span)
            return "()", T.list_of(elem)  # an empty list of the right kind: no second error about it
        cond = self.fn_code(e.where, inner, T.BOOL)
        return f"tuple({var} for {var} in {dcode} if {cond})", T.list_of(elem)

    def call_any(self, e, scope):
        return self._quantifier(e, scope, "any")

    def call_all(self, e, scope):
        return self._quantifier(e, scope, "all")

    def _aggregate(self, e, scope, pyfunc):
        if e.for_var is None:
            if pyfunc in ("max", "min") and len(e.args) >= 2:
                args = [self.fn_code(a, scope, T.NUM) for a in e.args]
                return f"{pyfunc}({', '.join(args)})", T.NUM
            self.error(f"'{e.func}' needs the form '{e.func}(x.points for x in zone)'", e.span)
            return _NOPE
        if len(e.args) != 1:
            self.error(f"'{e.func}' adds up one expression per element", e.span)
            return _NOPE
        dcode, elem = self.domain(e.for_domain, scope)
        inner = scope.child()
        var = inner.bind(e.for_var, elem)
        val = self.fn_code(e.args[0], inner, T.NUM)
        cond = f" if {self.fn_code(e.where, inner, T.BOOL)}" if e.where is not None else ""
        gen = f"({val} for {var} in {dcode}{cond})"
        if pyfunc == "sum":
            return f"sum{gen}", T.NUM
        return f"{pyfunc}({gen}, default=0)", T.NUM

    def call_sum(self, e, scope):
        return self._aggregate(e, scope, "sum")

    def call_max(self, e, scope):
        return self._aggregate(e, scope, "max")

    def call_min(self, e, scope):
        return self._aggregate(e, scope, "min")

    def _best(self, e, scope, helper):
        b = self.binding(e, scope)
        if b is None:
            return _NOPE
        inner, var, dcode = b
        if e.by is None:
            self.error(f"'{e.func}' needs 'by', as in '{e.func}(p in players by p.score)'", e.span)
            return _NOPE
        key = self.fn_code(e.by, inner, T.NUM)
        cond = f" if {self.fn_code(e.where, inner, T.BOOL)}" if e.where is not None else ""
        elem = inner.names[e.args[0].item.name][1]
        # max and min return the first of equal elements, as best and worst promise; none at all:
        # nobody (a player), no card (-1)
        none = "None" if elem == T.PLAYER else "-1"
        return f"{helper}(({var} for {var} in {dcode}{cond}), key=lambda {var}: ({key}), default={none})", elem

    def call_best(self, e, scope):
        return self._best(e, scope, "max")

    def call_worst(self, e, scope):
        return self._best(e, scope, "min")

    def _one_arg(self, e, scope):
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.error(f"'{e.func}' takes one argument", e.span)
            return None
        return self.expr(e.args[0], scope)

    def call_knows(self, e, scope):
        """knows(p, c): player p sees card c where it lies, or was shown it since it last moved."""
        if len(e.args) != 2 or e.for_var or e.where or e.by:
            self.error("'knows' takes a player and a card: knows(p, c)", e.span)
            return _NOPE
        p = self.fn_code(e.args[0], scope, T.PLAYER)
        c = self.fn_code(e.args[1], scope, T.CARD)
        return f"s.sees_card({p}, {c})", T.BOOL

    def call_card(self, e, scope):
        """card(v, w, ...): the card with these values (one per attribute), like card(9, spades)."""
        if not e.args or e.for_var or e.where or e.by:
            self.error("'card' takes values, one per attribute: card(9, spades)", e.span)
            return _NOPE
        attrs, codes = [], []
        for arg in e.args:
            if self.bare_value(arg, scope) or (isinstance(arg, (m.Name, m.Number)) and self.is_value_name(arg, scope)):
                found = self.value_of(str(arg.value if isinstance(arg, m.Number) else arg.name), arg.span)
                if found is None:
                    return _NOPE
                attrs.append(found[0])
                codes.append(str(found[1]))
                continue
            code, typ = self.expr(arg, scope)
            if not T.is_value(typ):
                self.error(f"'card' takes card values, like 9 or spades; this is {T.describe(typ)}", arg.span)
                return _NOPE
            attrs.append(typ[6:])
            codes.append(code)
        if len(set(attrs)) != len(attrs):
            self.error("'card' takes one value per attribute", e.span)
            return _NOPE
        table: dict = {}
        full: dict = {}  # the values a card has for every attribute, per key: copies of a card are one card
        for c in range(self.ncards):
            key = tuple(self.card_attr_tables[a][c] for a in attrs)
            table.setdefault(key, c)
            full.setdefault(key, set()).add(tuple(t[c] for t in self.card_attr_tables.values()))
        if any(len(cards) > 1 for cards in full.values()):
            rest = [a for a in self.card_attr_tables if a not in attrs]
            self.error("'card' takes one value per attribute: these values name several cards", e.span,
                       f"give a value of {' and '.join(repr(a) for a in rest)} too" if rest else None)
            return _NOPE
        if all(code.isdigit() for code in codes):
            key = tuple(int(code) for code in codes)
            if key not in table:
                self.error("no card of the game has these values", e.span)
                return _NOPE
            return str(table[key]), T.CARD
        name = f"_cards_{'_'.join(attrs)}"
        self.ns[name] = table
        return self.source_map.mark(f"_card_of({name}, ({', '.join(codes)},))", e.span), T.CARD

    def is_value_name(self, arg, scope) -> bool:
        """A bare value name (`spades`, `9`) that is not also a name the rules declared."""
        name = str(arg.value) if isinstance(arg, m.Number) else arg.name
        return name in self.values and scope.lookup(name) is None and name not in self.known and name not in _BARE

    def owner_arg(self, e, scope, k: int) -> str:
        """The optional player a rule is read for (its `owner`): argument k, or `me`."""
        if len(e.args) > k:
            return self.fn_code(e.args[k], scope, T.PLAYER)
        return "s.me"

    def call_same(self, e, scope):
        """same(a, b [, p]): two values of one attribute are the same, or count as one for player p."""
        if len(e.args) not in (2, 3) or e.for_var or e.where or e.by:
            self.error("'same' compares two values: same(c.suit, hearts), or same(c.suit, hearts, p)", e.span)
            return _NOPE
        a, at = self.expr(e.args[0], scope)
        b, bt = self.expr(e.args[1], scope, at)
        if T.is_value(bt) and not T.is_value(at):
            a, at = self.expr(e.args[0], scope, bt)
        if not T.is_value(at) or at != bt:
            self.error(f"'same' compares two values of one card attribute, not {T.describe(at)} and "
                       f"{T.describe(bt)}", e.span)
            return _NOPE
        return f"_same(s, {at[6:]!r}, {a}, {b}, {self.owner_arg(e, scope, 2)})", T.BOOL

    def pattern_arg(self, e, k: int):
        arg = e.args[k] if len(e.args) > k else None
        if not isinstance(arg, m.Name) or arg.name not in self.pattern_index:
            self.error(f"'{e.func}' needs the name of a pattern here", (arg or e).span,
                       did_you_mean(arg.name, self.pattern_index) if isinstance(arg, m.Name) else None)
            return None
        return self.pattern_index[arg.name]

    def cards_arg(self, arg, scope) -> str:
        """A zone, a card or a list of cards, as a sequence of cards."""
        code, typ = self.expr(arg, scope)
        if typ == T.ZONE:
            return f"s.z[{code}]"
        if typ == T.CARD:
            return f"({code},)"
        if typ == T.ANY:  # a function's argument: a zone or a list of cards
            return f"_as_cards(s, {code})"
        if T.element(typ) not in (T.CARD, T.ANY):
            self.error(f"expected cards (a zone or a list), found {T.describe(typ)}", arg.span)
        return code

    def _pattern_call(self, e, scope, nzones: int, what: str):
        if len(e.args) not in (nzones + 1, nzones + 2) or e.for_var or e.where or e.by:
            self.error(f"'{e.func}' takes {what}", e.span)
            return _NOPE
        k = self.pattern_arg(e, nzones)
        if k is None:
            return _NOPE
        zones = [self.cards_arg(a, scope) for a in e.args[:nzones]]
        owner = self.owner_arg(e, scope, nzones + 1)
        return k, zones, owner

    def call_has(self, e, scope):
        """has(Z, P [, p]): some cards of Z make pattern P (read for player p, by default me)."""
        found = self._pattern_call(e, scope, 1, "cards and a pattern: has(me.hand, flush)")
        if found == _NOPE:
            return _NOPE
        k, (zone,), owner = found
        return f"_can_make(s, {k}, (), {zone}, {owner})", T.BOOL

    def call_makes(self, e, scope):
        """makes(Z, P [, p]): exactly the cards of Z make pattern P."""
        found = self._pattern_call(e, scope, 1, "cards and a pattern: makes(me.meld, flush)")
        if found == _NOPE:
            return _NOPE
        k, (zone,), owner = found
        return f"_makes(s, {k}, {zone}, {owner})", T.BOOL

    def call_can_make(self, e, scope):
        """can_make(A, B, P [, p]): the cards of A, with some more of B, make pattern P."""
        found = self._pattern_call(e, scope, 2, "the cards chosen, the cards to add from, and a pattern: "
                                   "can_make(me.meld + [c], me.hand, flush)")
        if found == _NOPE:
            return _NOPE
        k, (chosen, pool), owner = found
        return f"_can_make(s, {k}, {chosen}, {pool}, {owner})", T.BOOL

    def call_tops(self, e, scope):
        """tops(Z, ...): the top card of each of these zones that is not empty, in order."""
        if not e.args or e.for_var or e.where or e.by:
            self.error("'tops' takes zones: tops(discard, discard2)", e.span)
            return _NOPE
        zones = [self.fn_code(a, scope, T.ZONE) for a in e.args]
        return f"_tops(s, ({', '.join(zones)},))", T.list_of(T.CARD)

    def call_random(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.ZONE:
            return self.source_map.mark(f"s.pick(s.z[{code}])", e.span), T.CARD
        return self.source_map.mark(f"s.pick(tuple({code}))", e.span), self.elem_type(typ, e.args[0].span)

    def call_number(self, e, scope):
        """number(x): a value's own number (rank 10 is 10), a player's seat number, a number itself."""
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.PLAYER:
            return f"(({code}) + 1)", T.NUM
        if typ == T.ANY:  # a function's parameter: a player's seat number and a plain number differ
            self.error("'number' cannot tell what this function parameter is: a player, a card value "
                       "or a number", e.args[0].span,
                       "compare players with == instead, or call 'number' where the function is called")
            return _NOPE
        if T.is_value(typ):
            attr = typ[6:]
            names = self.attr_list[self.attr_index[attr]][1]
            table = tuple(int(n) if n.lstrip("-").isdigit() else None for n in names)
            if all(x is None for x in table):
                self.error(f"no {attr} is a number", e.span)
            self.ns["N_" + attr] = table
            return self.source_map.mark(f"_number(N_{attr}, {code})", e.span), T.NUM
        self.want(typ, T.NUM, e.args[0].span)
        return code, T.NUM

