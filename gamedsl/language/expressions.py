"""Compiles expressions to Python source, with their types, resolving every name.

The generated code reads the state as `s` and the unit's locals as `e` (a list); the helpers
and tables it names (`_next`, `A_rank`, `V_points`, `P_factor`...) are the runtime's
(engine/runtime.py) and the game's (Context.data, the module's own functions).
"""
from __future__ import annotations


from ..errors import Span
from . import model as m
from . import types as T
from .builtins import Builtins, _BARE, _NOPE
from .calls import Calls
from .context import Context, Scope
from .families import Families
from .patterncalls import PatternCalls
from .program import MAX_SEATS

class ExpressionCompiler(Calls, Builtins, PatternCalls, Families):
    """One ex_* method per expression node (calls and defs are in Calls, the built-in calls, call_*,
    in Builtins)."""

    def __init__(self, c: Context):
        self.c = c
        self.cards_where = False  # compiling a `cards ... where` condition: attributes read a card record
        self.hoist: list | None = None  # names of values computed once per legal-move loop
        self.unhoistable = 0  # inside an iterable or a lambda: no value hoisted (see Calls.maybe_hoist)
        self.def_codes: dict[str, str] = {}  # each function's body as compiled for arguments of any kind
        self.pure_defs: dict[str, bool] = {}  # whether it reads nothing but its arguments (Calls.kept_by_arguments)
        self.memos: set[str] = set()  # the memos of such functions made so far
        self.in_iterable = 0  # inside a comprehension's iterable: no `:=` at all
        self.compiling_defs: set[str] = set()
        self.inlining: list[str] = []  # the functions being inlined, innermost last
        self._hoisted, self._hoisted_for = {}, None  # hoisted expressions -> their names, for one hoist list
        self.hoisted_forms: dict[str, str] = {}  # each hoisted value's code as written in a condition -> its name

    # ---- expressions
    def fn(self, e: m.Expr, scope: Scope, want: str, prefix: str = "x") -> str:
        """Compile an expression into a function of the module, fn(s, e); returns its name."""
        code = self.fn_code(e, scope, want)
        return self.c.module.expression(prefix, code, e.span)

    def fn_code(self, e: m.Expr, scope: Scope, want: str) -> str:
        code, typ = self.expr(e, scope, want)
        if want == T.NUM and T.is_value(typ):  # a value of numbers where a number is wanted: its number
            code, typ = self.numeric(code, typ, e.span)
        self.want(typ, want, e.span)
        return code

    def want(self, got: str, want: str, span: Span):
        if got == want or T.ANY in (got, want):
            return
        if want == T.BOOL and got == T.NUM:
            return
        self.c.error(f"expected {T.describe(want)}, found {T.describe(got)}", span)

    def numeric(self, code: str, typ: str, span: Span) -> tuple[str, str]:
        """A value read as a number where a number is wanted (`c.rank + 1`, `me.pts += c.rank`): a value
        of an attribute whose values are all numbers is its number, as number(...) reads it. Another
        value is an error that says which of its values have no number."""
        if not T.is_value(typ):
            return code, typ
        attr = typ[6:]
        names = self.c.attr_list[self.c.attr_index[attr]][1]
        table = tuple(int(n) if n.lstrip("-").isdigit() else None for n in names)
        if None in table:
            words = [n for n, x in zip(names, table) if x is None]
            self.c.error(f"expected a number, found {T.describe(typ)}", span,
                         f"{', '.join(words[:4])}{' ...' if len(words) > 4 else ''} {'has' if len(words) == 1 else 'have'} "
                         f"no number: give each {attr} a number in a `value` table and read that")
            return code, T.NUM
        return self.number_code(attr, table, code, span), T.NUM

    def expr(self, e: m.Expr, scope: Scope, hint: str | None = None) -> tuple[str, str]:
        """(python code, type) of an expression; `hint` is the type a bare value name should take."""
        if e.span.line:
            self.c.where = e.span
        return getattr(self, "ex_" + type(e).__name__.lower())(e, scope, hint)

    def ex_number(self, e, scope, hint):
        if hint and T.is_value(hint):
            found = self.c.value_of(str(e.value), e.span, hint[6:])
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
        if self.cards_where and name in self.c.attr_index:
            return f"_rec.get({name!r}, -1)", T.value_type(name)
        if hint and T.is_value(hint) and name in self.c.values:
            found = self.c.value_of(name, e.span, hint[6:])
            return (str(found[1]), hint) if found else _NOPE
        if name in self.c.families:
            self.c.error(f"'{name}' is a family of {len(self.c.families[name][1])} zones: name one of them", e.span,
                         f"{self.c.families[name][1][0].name} ... {self.c.families[name][1][-1].name}")
            return _NOPE
        if name == "me":
            return "s.me", T.PLAYER
        if name == "nobody":  # no player: what a player variable holds until it is set
            return "None", T.PLAYER
        if name == "players":  # the players still in the game
            return "s.alive", "players"
        if name == "all_players":  # every seat, eliminated or not
            return "range(s.np)", T.list_of(T.PLAYER)
        if name == "all_cards":  # every card of the game, wherever it lies
            return f"range({self.c.ncards})", T.list_of(T.CARD)
        if name == "in_play":  # every card not in a zone marked `out`
            return "s.in_play()", T.list_of(T.CARD)
        if name == "others":  # every player but me, in turn order from me's left
            return "_others(s)", T.list_of(T.PLAYER)
        if name in self.c.var_by_name:
            var = self.c.var_by_name[name]
            if var.per_player:
                self.c.error(f"'{name}' belongs to each player: write p.{name} (or me.{name})", e.span)
                return _NOPE
            if var.per_card:
                self.c.error(f"'{name}' belongs to each card: write c.{name}", e.span)
                return _NOPE
            return f"s.v[{var.base}]", var.type
        if name in self.c.param_info:
            if self.c.param_info[name].per_player:
                self.c.error(f"parameter '{name}' belongs to each player: write p.{name}", e.span)
                return _NOPE
            return f"P_{name}(s)", self.c.param_types[name]
        if name in self.c.option_index:
            typ = T.value_type(name) if name in self.c.option_choices else T.NUM
            return f"s.opt[{self.c.option_index[name]}]", typ
        if name in self.c.zone_by_name:
            zone = self.c.zone_by_name[name]
            if zone.per_player:
                self.c.error(f"zone '{name}' belongs to each player: write p.{name} (or me.{name})", e.span)
                return _NOPE
            return str(zone.base), T.ZONE
        if name in self.c.values and len(self.c.values[name]) == 1:
            a, i = self.c.values[name][0]
            return str(i), T.value_type(a)
        if name in self.c.values:
            self.c.value_of(name, e.span)
            return _NOPE
        if hint == T.ZONE:
            self.c.unknown("zone", name, e.span, self.c.zone_by_name)
            return _NOPE
        if name in self.c.known:  # declared, but not something an expression can read by itself
            what = self.c.known[name]
            hint = {"a card value": f"a card's value is read from a card: c.{name}",
                    "a function": f"call it: {name}(...)",
                    "a card attribute": f"a card's attribute is read from a card: c.{name}"}.get(what)
            self.c.error(f"'{name}' is {what}, not a value by itself", e.span, hint)
            return _NOPE
        candidates = [*self.c.known, *_BARE, *self.c.values, *self.visible_names(scope), "true", "false"]
        self.c.unknown("name", name, e.span, candidates)
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
            per_card = name in self.c.var_by_name and self.c.var_by_name[name].per_card
            per_player = name in self.c.var_by_name and self.c.var_by_name[name].per_player or \
                name in self.c.zone_by_name and self.c.zone_by_name[name].per_player or \
                name in self.c.param_info and self.c.param_info[name].per_player
            if not (per_card or per_player or name in self.c.attr_index or name in self.c.value_names):
                self.c.unknown("card attribute, value or variable, or per-player variable or zone", name,
                               e.name_span, [*self.c.attr_index, *self.c.value_names, *self.c.var_by_name,
                                             *(z.name for z in self.c.zone_list if z.per_player)])
                return _NOPE
            otyp = T.CARD if name in self.c.attr_index or name in self.c.value_names or per_card else T.PLAYER
        mark = self.c.module.mark  # a player's or card's own value: the player may be nobody
        if otyp == T.PLAYER:
            if name in self.c.var_by_name and self.c.var_by_name[name].per_player:
                var = self.c.var_by_name[name]
                return mark(f"s.v[{var.base} + ({ocode})]", e.span), var.type
            if name in self.c.zone_by_name and self.c.zone_by_name[name].per_player:
                return mark(f"({self.c.zone_by_name[name].base} + ({ocode}))", e.span), T.ZONE
            if name in self.c.param_info and self.c.param_info[name].per_player:
                return mark(f"P_{name}(s, {ocode})", e.span), self.c.param_types[name]
            options = [v.name for v in self.c.var_list if v.per_player] + [
                z.name for z in self.c.zone_list if z.per_player]
            self.c.unknown("per-player variable or zone", name, e.name_span, options)
            return _NOPE
        if otyp == T.CARD:
            if name in self.c.attr_index:
                return f"A_{name}[{ocode}]", T.value_type(name)
            if name in self.c.value_names:
                return f"V_{name}[{ocode}]", T.NUM
            if name in self.c.var_by_name and self.c.var_by_name[name].per_card:
                var = self.c.var_by_name[name]
                return mark(f"s.v[{var.base} + ({ocode})]", e.span), var.type
            card_vars = [v.name for v in self.c.var_list if v.per_card]
            self.c.unknown("card attribute, value or variable" if card_vars else "card attribute or value", name,
                         e.name_span, list(self.c.attr_index) + list(self.c.value_names) + card_vars)
            return _NOPE
        if otyp != T.ANY:
            self.c.error(f"'.{name}' needs a player or a card, but this is {T.describe(otyp)}", e.obj.span)
        return _NOPE

    def ex_binop(self, e: m.BinOp, scope, hint):
        lc, lt = self.expr(e.left, scope)
        rc, rt = self.expr(e.right, scope)
        if e.op == "+" and T.NUM not in (lt, rt) and (T.element(lt) or T.element(rt)):
            return self.concat(e, lc, lt, rc, rt)
        lc, lt = self.numeric(lc, lt, e.left.span)
        rc, rt = self.numeric(rc, rt, e.right.span)
        self.want(lt, T.NUM, e.left.span)
        self.want(rt, T.NUM, e.right.span)
        op = "//" if e.op == "/" else e.op
        if op in ("//", "%"):
            return self.c.module.mark(f"_div({lc}, {rc}, {op!r})", e.span), T.NUM
        if op == "**":
            return self.c.module.mark(f"_pow({lc}, {rc})", e.span), T.NUM
        return f"({lc} {op} {rc})", T.NUM

    def concat(self, e: m.BinOp, lc, lt, rc, rt):
        """`a + b` of zones and lists: one list with the elements of both, in order."""
        parts, elems = [], []
        for code, typ, side in ((lc, lt, e.left), (rc, rt, e.right)):
            elem = T.element(typ) if typ not in ("players", T.ANY) else T.PLAYER if typ == "players" else T.ANY
            if elem is None:
                self.c.error(f"'+' joins zones and lists, but this is {T.describe(typ)}", side.span)
                return _NOPE
            parts.append(f"*s.z[{code}]" if typ == T.ZONE else f"*_as_cards(s, {code})" if typ == T.ANY else f"*{code}")
            elems.append(elem)
        if T.ANY not in elems and elems[0] != elems[1]:
            self.c.error(f"cannot join a list of {elems[0]}s and a list of {elems[1]}s", e.span)
        return f"({parts[0]}, {parts[1]})", T.list_of(elems[0] if elems[0] != T.ANY else elems[1])

    def ex_neg(self, e: m.Neg, scope, hint):
        code, typ = self.numeric(*self.expr(e.operand, scope), e.operand.span)
        self.want(typ, T.NUM, e.operand.span)
        return f"(-{code})", T.NUM

    def bare_value(self, e: m.Expr, scope) -> bool:
        """Whether an expression is a value name that several attributes share (its attribute unknown)."""
        if isinstance(e, m.Number):
            return str(e.value) in self.c.values
        return isinstance(e, m.Name) and len(self.c.values.get(e.name, ())) > 1 and scope.lookup(e.name) is None \
            and e.name not in self.c.known and e.name not in _BARE

    def ex_compare(self, e: m.Compare, scope, hint):
        if self.bare_value(e.left, scope) and not self.bare_value(e.right, scope):
            rc, rt = self.expr(e.right, scope)  # the right side tells which attribute 'red' belongs to
            lc, lt = self.expr(e.left, scope, rt)
        else:
            lc, lt = self.expr(e.left, scope)
            rc, rt = self.expr(e.right, scope, lt)
        if T.is_value(rt) and lt != rt and isinstance(e.left, (m.Number, m.Name)):
            lc, lt = self.expr(e.left, scope, rt)
        if lt == T.NUM and self.numbered(rt):  # a value whose attribute's values are all numbers, against a number
            rc, rt = self.numeric(rc, rt, e.right.span)
        elif rt == T.NUM and self.numbered(lt):  # (c.rank == top(pile).rank + 1)
            lc, lt = self.numeric(lc, lt, e.left.span)
        if lt != rt and T.ANY not in (lt, rt) and not (T.is_list(lt) and T.is_list(rt) and T.ANY in (
                T.element(lt), T.element(rt))):
            self.c.error(f"cannot compare {T.describe(lt)} with {T.describe(rt)}", e.span)
        if e.op in ("<", ">", "<=", ">=") and not self.ordered(lt if lt != T.ANY else rt):
            self.c.error(f"'{e.op}' compares numbers, ordered values or lists of them, not {T.describe(lt)}", e.span,
                         "lists are compared element by element, the first difference deciding" if T.is_list(lt)
                         else None)
        if T.is_list(lt) or T.is_list(rt):  # lists compare as tuples: a range or a zone's cards too
            return f"(tuple({lc}) {e.op} tuple({rc}))", T.BOOL
        inner = _counted(lc) if rc == "0" else None
        if inner is not None and e.op in (">", "!=", "==", "<="):  # count(Z) > 0: whether Z holds any (no len call)
            return (f"(not not {inner})" if e.op in (">", "!=") else f"(not {inner})"), T.BOOL
        return f"({lc} {e.op} {rc})", T.BOOL

    def ordered(self, t: str) -> bool:
        """Whether `<` compares things of this type: numbers, values, and lists of them (lexicographically)."""
        if t in (T.NUM, T.ANY) or T.is_value(t):
            return True
        return T.is_list(t) and self.ordered(T.element(t))

    def ex_member(self, e: m.Member, scope, hint):
        ic, it = self.expr(e.item, scope)
        neg = "not " if e.negated else ""
        if isinstance(e.collection, m.ListExpr):
            items = [self.expr(x, scope, it) for x in e.collection.items]
            for (c, t), x in zip(items, e.collection.items):
                if t != it and T.ANY not in (t, it):
                    self.c.error(f"cannot look for {T.describe(it)} among {T.describe(t)}s", x.span)
            listed = f"({', '.join(c for c, _ in items)},)" if items else "()"
            return f"({neg}({ic}) in {listed})", T.BOOL
        coll = e.collection
        if isinstance(coll, m.Name) and coll.name in self.c.zone_by_name and scope.lookup(coll.name) is None \
                and self.c.zone_by_name[coll.name].per_player:  # `c in laws`: in anyone's zone of that kind
            self.want(it, T.CARD, e.item.span)
            base = self.c.zone_by_name[coll.name].base
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
            self.c.error(f"'in' needs a zone, the players or a list, not {T.describe(ct)}", e.collection.span)
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
            self.c.error(f"both branches must give the same kind of thing: {T.describe(at)} and {T.describe(bt)}", e.span)
            at = T.ANY  # reported once: not again by an `if` this is the `elif` of
        return f"({a} if {c} else {b})", at

    def ex_listexpr(self, e: m.ListExpr, scope, hint):
        elem_hint = T.element(hint) if hint else None
        items = [self.expr(x, scope, elem_hint) for x in e.items]
        kinds = {t for _, t in items} - {T.ANY}
        values = [t for t in kinds if T.is_value(t)]
        if len(kinds) > 1 and len(values) == 1:  # [Q, 10]: the 10 of the same attribute as Q
            items = [self.expr(x, scope, values[0]) if isinstance(x, (m.Number, m.Name)) and t != values[0]
                     else (code, t) for x, (code, t) in zip(e.items, items)]
            kinds = {t for _, t in items} - {T.ANY}
        if len(kinds) > 1 and all(k == T.NUM or T.is_value(k) for k in kinds):
            typ = T.ANY  # a key that mixes numbers and values (`[c.suit, c.rank]`): compared, not shown
        elif len(kinds) > 1:
            self.c.error("a list holds one kind of thing: here " + " and ".join(sorted(T.describe(k) for k in kinds)),
                         e.span)
            typ = T.ANY
        else:
            typ = next((t for _, t in items if t != T.ANY), T.ANY)
        return f"({', '.join(c for c, _ in items)},)" if items else "()", T.list_of(typ)

    def ex_range(self, e: m.Range, scope, hint):
        """`low..high`: the numbers from low to high (none if high < low)."""
        low = self.fn_code(e.low, scope, T.NUM)
        high = self.fn_code(e.high, scope, T.NUM)
        return f"range({low}, ({high}) + 1)", T.list_of(T.NUM)

    def domain(self, e: m.Expr, scope: Scope) -> tuple[str, str]:
        code, typ = self.expr(e, scope)
        if typ == T.ZONE:
            z = self.c.zone_by_name.get(e.name) if isinstance(e, (m.Name, m.Attr)) else None
            if z is not None and z.contents and z.stack:  # its order is secret: gone through in the cards' order
                return f"sorted(s.z[{code}])", T.CARD
            return f"s.z[{code}]", T.CARD
        if typ == T.ANY:  # a function's parameter: a zone's cards, or the list itself
            return f"_as_cards(s, {code})", T.ANY
        return code, self.elem_type(typ, e.span)


def _counted(code: str) -> str | None:
    """X when `code` is exactly `len(X)` (a count of a zone, a list, the players...), else None."""
    if not (code.startswith("len(") and code.endswith(")")) or "'" in code or '"' in code:
        return None  # (a quote might hold a bracket)
    depth = 0
    for i, ch in enumerate(code):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0 and i != len(code) - 1:
                return None  # len(a) + len(b): not one call
    return code[4:-1]
