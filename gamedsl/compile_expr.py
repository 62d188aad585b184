"""Compiles expressions to Python source, with their types, resolving every name."""
from __future__ import annotations

from . import model as m
from . import types as T
from .errors import Span

BUILTINS = {"me", "players", "all_players", "all_cards", "others", "count", "any", "all", "sum", "max", "min", "best", "worst", "random",
            "next", "previous", "top", "bottom", "abs", "seat", "number", "knows"}
_NOPE = ("None", T.ANY)
_AGGREGATES = {"count", "any", "all", "sum", "max", "min", "best", "worst"}
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
        return eval(f"lambda s, e: ({code})", self.ns)  # noqa: S307

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
        if name == "players":  # the players still in the game
            return "s.alive", "players"
        if name == "all_players":  # every seat, eliminated or not
            return "range(s.np)", T.list_of(T.PLAYER)
        if name == "all_cards":  # every card of the game, wherever it lies
            return f"range({self.ncards})", T.list_of(T.CARD)
        if name == "others":  # every player but me, in turn order from me's left
            return "_others(s)", T.list_of(T.PLAYER)
        if name in self.var_by_name:
            var = self.var_by_name[name]
            if var.per_player:
                self.error(f"'{name}' belongs to each player: write p.{name} (or me.{name})", e.span)
                return _NOPE
            return f"s.v[{var.base}]", var.type
        if name in self.param_info:
            if self.param_info[name].per_player:
                self.error(f"parameter '{name}' belongs to each player: write p.{name}", e.span)
                return _NOPE
            return f"P_{name}(s)", T.NUM
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
        candidates = list(self.known) + ["me", "players", "all_players", "all_cards", "others"] + list(self.values) + self.visible_names(scope)
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
            otyp = T.CARD if name in self.attr_index or name in self.value_names else T.PLAYER
        if otyp == T.PLAYER:
            if name in self.var_by_name and self.var_by_name[name].per_player:
                var = self.var_by_name[name]
                return f"s.v[{var.base} + ({ocode})]", var.type
            if name in self.zone_by_name and self.zone_by_name[name].per_player:
                return f"({self.zone_by_name[name].base} + ({ocode}))", T.ZONE
            if name in self.param_info and self.param_info[name].per_player:
                return f"P_{name}(s, {ocode})", T.NUM
            options = [v.name for v in self.var_list if v.per_player] + [
                z.name for z in self.zone_list if z.per_player]
            self.unknown("per-player variable or zone", name, e.name_span, options)
            return _NOPE
        if otyp == T.CARD:
            if name in self.attr_index:
                return f"A_{name}[{ocode}]", T.value_type(name)
            if name in self.value_names:
                return f"V_{name}[{ocode}]", T.NUM
            self.unknown("card attribute or value", name, e.name_span, list(self.attr_index) + list(self.value_names))
            return _NOPE
        if otyp != T.ANY:
            self.error(f"'.{name}' needs a player or a card, but this is {T.describe(otyp)}", e.obj.span)
        return _NOPE

    def ex_binop(self, e: m.BinOp, scope, hint):
        lc, lt = self.expr(e.left, scope)
        rc, rt = self.expr(e.right, scope)
        self.want(lt, T.NUM, e.left.span)
        self.want(rt, T.NUM, e.right.span)
        op = "//" if e.op == "/" else e.op
        if op in ("//", "%"):
            return f"_div({lc}, {rc}, {op!r})", T.NUM
        if op == "**":
            return f"_pow({lc}, {rc})", T.NUM
        return f"({lc} {op} {rc})", T.NUM

    def ex_neg(self, e: m.Neg, scope, hint):
        code, typ = self.expr(e.operand, scope)
        self.want(typ, T.NUM, e.operand.span)
        return f"(-{code})", T.NUM

    def bare_value(self, e: m.Expr, scope) -> bool:
        """Whether an expression is a value name that several attributes share (its attribute unknown)."""
        if isinstance(e, m.Number):
            return str(e.value) in self.values
        return isinstance(e, m.Name) and len(self.values.get(e.name, ())) > 1 and scope.lookup(e.name) is None \
            and e.name not in self.known and e.name not in ("me", "players", "all_players", "all_cards", "others")

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
            code = template.format(arg[0])
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
        self.unknown("function", f, e.span, list(self.def_info) + sorted(BUILTINS - {"me", "players", "all_players", "all_cards", "others"}))
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
        # max and min return the first of equal elements, as best and worst promise; -1: none at all
        return f"{helper}(({var} for {var} in {dcode}{cond}), key=lambda {var}: ({key}), default=-1)", elem

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

    def call_random(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.ZONE:
            return f"s.pick(s.z[{code}])", T.CARD
        return f"s.pick(tuple({code}))", self.elem_type(typ, e.args[0].span)

    def call_number(self, e, scope):
        """number(x): a value's own number (rank 10 is 10), a player's seat number, a number itself."""
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.PLAYER:
            return f"(({code}) + 1)", T.NUM
        if T.is_value(typ):
            attr = typ[6:]
            names = self.attr_list[self.attr_index[attr]][1]
            table = tuple(int(n) if n.lstrip("-").isdigit() else None for n in names)
            if all(x is None for x in table):
                self.error(f"no {attr} is a number", e.span)
            self.ns["N_" + attr] = table
            return f"_number(N_{attr}, {code})", T.NUM
        self.want(typ, T.NUM, e.args[0].span)
        return code, T.NUM

