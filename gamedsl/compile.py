"""Checks a game model and compiles it to a Program: every diagnostic is collected, not just the first."""
from __future__ import annotations

import itertools

from . import model as m
from . import ops
from . import types as T
from .errors import Diagnostic, SourceError, Span, did_you_mean
from .program import MAX_SEATS, Action, Program, Trigger, Var, Zone

ZONE_PROPS = {"hidden", "owner", "public", "top", "stack", "pile"}
VAR_TYPES = {"number": T.NUM, "player": T.PLAYER, "card": T.CARD, "bool": T.BOOL}
BUILTINS = {"me", "players", "count", "any", "all", "sum", "max", "min", "best", "worst", "random",
            "next", "previous", "top", "bottom", "abs"}
_NOPE = ("None", T.ANY)


class Scope:
    """Names visible in one compiled unit: statement locals (env slots) and expression-bound names."""

    def __init__(self, parent: "Scope | None" = None, slots: dict | None = None):
        self.names: dict[str, tuple[str, str]] = {}
        self.parent = parent
        self.slots = slots if slots is not None else (parent.slots if parent else {"n": 0})

    def child(self) -> "Scope":
        return Scope(self, self.slots)

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def local(self, name: str, typ: str) -> str:
        """An env slot for a statement-level name (reused if the name exists)."""
        found = self.lookup(name)
        if found and found[0].startswith("e["):
            return found[0]
        code = f"e[{self.slots['n']}]"
        self.slots["n"] += 1
        self.names[name] = (code, typ)
        return code

    def bind(self, name: str, typ: str) -> str:
        """A Python name for an expression-bound variable (aggregates, def parameters)."""
        code = f"_{name}_{id(self) % 100000}"
        self.names[name] = (code, typ)
        return code


class Compiler:
    """One pass over the model: resolves names, checks kinds, emits Python for expressions."""

    def __init__(self, gm: m.GameModel):
        self.gm = gm
        self.diags: list[Diagnostic] = []
        self.ns: dict = {"_best": ops.best, "_worst": ops.worst}
        self.known: dict[str, str] = {}  # every declared name -> what it is
        self.offered: set[str] = set()
        self.cards_where_card: str | None = None
        self.in_outcome = False

    # ---- diagnostics
    def error(self, message: str, span: Span, hint: str | None = None):
        self.diags.append(Diagnostic(message, span, hint))

    def unknown(self, what: str, name: str, span: Span, candidates):
        self.error(f"unknown {what} '{name}'", span, did_you_mean(name, candidates))

    def declare(self, name: str, kind: str, span: Span) -> bool:
        if name in self.known:
            self.error(f"'{name}' is already declared as {self.known[name]}", span)
            return False
        self.known[name] = kind
        return True

    # ---- entry point
    def compile(self) -> Program:
        gm = self.gm
        self.header()
        self.attributes()
        self.cards()
        self.value_tables()
        self.zones()
        self.variables()
        self.params_and_modifiers()
        self.defs()
        self.action_headers()
        flows = {b.kind: b for b in gm.of(m.FlowBlock)}
        for kind in ("setup", "round", "outcome"):
            same = [b for b in gm.of(m.FlowBlock) if b.kind == kind]
            for extra in same[1:]:
                self.error(f"a game has one '{kind}' block; this is a second one", extra.span)
        setup, setup_n = self.unit(flows.get("setup"))
        rnd, round_n = self.unit(flows.get("round"))
        self.in_outcome = True
        outcome, outcome_n = self.unit(flows.get("outcome"))
        self.in_outcome = False
        self.action_bodies()
        triggers = self.triggers()
        end_when = None
        for ew in gm.of(m.EndWhen):
            end_when = self.fn(ew.cond, Scope(), T.BOOL)
        if "round" not in flows and "setup" not in flows:
            self.error("the game has no 'setup' or 'round' block, so nothing ever happens", Span(1, 1),
                       "add a 'round { ... }' block that deals and offers moves")
        for act in gm.of(m.ActionDecl):
            if act.name not in self.offered:
                self.error(f"action '{act.name}' is never offered: no 'choose' names it", act.span,
                           f"add 'choose {act.name}' where the player should be able to make this move")
        if self.diags:
            raise SourceError(gm.filename, gm.text, self.diags)
        return Program(
            name=self.name, filename=gm.filename, min_players=self.least, max_players=self.most,
            options=self.options, option_index=self.option_index, move_limit=self.limit,
            attributes=self.attr_list, card_attrs=self.card_attr_tables, card_names=self.card_names,
            zones=self.zone_list, zone_by_name=self.zone_by_name, zone_count=self.zone_count,
            vars=self.var_list, var_by_name=self.var_by_name, var_count=self.var_count,
            actions=self.action_list, action_by_name=self.action_by_name, action_count=self.action_ids,
            setup=setup, setup_locals=setup_n, round=rnd if "round" in flows else None, round_locals=round_n,
            outcome=outcome, outcome_locals=outcome_n, end_when=end_when, triggers=triggers,
            params=self.param_fns)

    # ---- declarations
    def header(self):
        gm = self.gm
        names = gm.of(m.GameName)
        self.name = names[0].name if names else gm.filename
        players = gm.of(m.PlayersDecl)
        self.least, self.most = 2, 4
        if not players:
            self.error("the game does not say how many players it is for", Span(1, 1),
                       "add a line like 'players 2 to 4'")
        else:
            p = players[0]
            self.least, self.most = p.least, p.most
            if not 1 <= p.least <= p.most <= MAX_SEATS:
                self.error(f"players must be between 1 and {MAX_SEATS}, smallest first", p.span)
                self.least, self.most = 2, 4
        limits = gm.of(m.LimitDecl)
        self.limit = limits[0].moves if limits else 10000
        self.options, self.option_index = {}, {}
        for o in gm.of(m.OptionDecl):
            if not self.declare(o.name, "an option", o.span):
                continue
            if isinstance(o.default, m.Number):
                default = o.default.value
            elif isinstance(o.default, m.Neg) and isinstance(o.default.operand, m.Number):
                default = -o.default.operand.value
            elif isinstance(o.default, m.Bool):
                default = o.default.value
            else:
                self.error("an option's default must be a number, true or false", o.default.span)
                default = 0
            self.option_index[o.name] = len(self.option_index)
            self.options[o.name] = (default, o.doc)

    def attributes(self):
        self.attr_list = []
        self.values: dict[str, list[tuple[str, int]]] = {}  # value name -> [(attribute, index)]
        for a in self.gm.of(m.AttributeDecl):
            if not self.declare(a.name, "a card attribute", a.span):
                continue
            names = []
            for v in a.values:
                if v.name in names:
                    self.error(f"value '{v.name}' appears twice in attribute '{a.name}'", v.span)
                    continue
                self.values.setdefault(v.name, []).append((a.name, len(names)))
                names.append(v.name)
            symbols = [v.symbol if v.symbol is not None else v.name for v in a.values][: len(names)]
            self.attr_list.append((a.name, names, symbols))
        self.attr_index = {a[0]: i for i, a in enumerate(self.attr_list)}

    def value_of(self, name: str, span: Span, attribute: str | None = None):
        """(attribute, index) of a value name, or None with an error."""
        found = self.values.get(name, [])
        if attribute is not None:
            found = [f for f in found if f[0] == attribute]
            if not found:
                names = self.attr_list[self.attr_index[attribute]][1] if attribute in self.attr_index else []
                self.unknown(f"{attribute}", name, span, names)
                return None
        if not found:
            self.unknown("card attribute or value", name, span, list(self.values) + list(self.attr_index))
            return None
        if len(found) > 1:
            self.error(f"'{name}' is a value of several attributes ({', '.join(a for a, _ in found)})", span,
                       "compare it with an attribute, as in 'c.rank == 10'")
            return None
        return found[0]

    def cards(self):
        decls = self.gm.of(m.CardsDecl)
        if not decls:
            self.error("the game has no cards", Span(1, 1), "add a line like 'cards rank * suit'")
        records: list[dict] = []
        for d in decls:
            choices = []
            for f in d.factors:
                if not f.is_set and f.names[0] in self.attr_index:
                    a = f.names[0]
                    choices.append([(a, i) for i in range(len(self.attr_list[self.attr_index[a]][1]))])
                    continue
                vals = [self.value_of(n, f.span) for n in f.names]
                if None in vals:
                    continue
                if len({a for a, _ in vals}) > 1:
                    self.error("a set of values must all belong to one attribute", f.span)
                    continue
                choices.append(vals)
            attrs_used = [c[0][0] for c in choices if c]
            dup = {a for a in attrs_used if attrs_used.count(a) > 1}
            if dup:
                self.error(f"attribute '{sorted(dup)[0]}' is given twice in one 'cards' line", d.span)
                continue
            where = None
            if d.where is not None:
                where = self.fn_cards_where(d.where)
            for combo in itertools.product(*choices):
                rec = dict(combo)
                if where is not None and not self._safe_where(where, rec, d.where.span):
                    continue
                records.extend(dict(rec) for _ in range(d.times))
        self.card_attr_tables = {}
        for a, _, _ in self.attr_list:
            table = tuple(r.get(a, -1) for r in records)
            self.card_attr_tables[a] = table
            self.ns["A_" + a] = table
        self.card_names = []
        for r in records:
            parts = [sym[r[a]] for a, _, sym in self.attr_list if a in r]
            self.card_names.append("".join(parts) if all(len(p) <= 2 for p in parts[1:]) else " ".join(parts))
        self.ncards = len(records)

    def _safe_where(self, fn, rec, span):
        try:
            return bool(fn(rec))
        except Exception as exc:  # noqa: BLE001 - reported as the user's error
            self.error(f"this condition cannot be applied to every card: {exc}", span)
            return False

    def fn_cards_where(self, expr: m.Expr):
        self.cards_where_card = "_rec"
        code, typ = self.expr(expr, Scope())
        self.cards_where_card = None
        self.want(typ, T.BOOL, expr.span)
        return eval(f"lambda _rec: ({code})", self.ns)  # noqa: S307 - our own generated code

    def value_tables(self):
        self.value_names = set()
        for v in self.gm.of(m.ValueDecl):
            if not self.declare(v.name, "a card value", v.span):
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
                    if name in self.attr_index:
                        self.error(f"'{name}' is an attribute; a pattern lists values, like 'Q clubs'", span)
                        continue
                    found = self.value_of(name, span)
                    if found:
                        conds.append(found)
                entries.append((conds, num))
            table = []
            for c in range(self.ncards):
                val = default
                for conds, num in entries:
                    if all(self.card_attr_tables[a][c] == i for a, i in conds):
                        val = num
                        break
                table.append(val)
            self.ns["V_" + v.name] = tuple(table)
            self.value_names.add(v.name)

    def const_number(self, e: m.Expr) -> int:
        if isinstance(e, m.Number):
            return e.value
        if isinstance(e, m.Neg) and isinstance(e.operand, m.Number):
            return -e.operand.value
        self.error("a value table entry must be a number", e.span)
        return 0

    def zones(self):
        self.zone_list, self.zone_by_name = [], {}
        base = 0
        for z in self.gm.of(m.ZoneDecl):
            if not self.declare(z.name, "a zone", z.span):
                continue
            vis, stack = "hidden", False
            for name, span in z.props:
                if name not in ZONE_PROPS:
                    self.unknown("zone property", name, span, ZONE_PROPS)
                elif name == "stack":
                    stack = True
                elif name != "pile":
                    vis = name
            zone = Zone(z.name, base, z.per_player, vis, stack, z.span)
            base += MAX_SEATS if z.per_player else 1
            self.zone_list.append(zone)
            self.zone_by_name[z.name] = zone
        self.zone_count = base

    def variables(self):
        self.var_list, self.var_by_name = [], {}
        base = 0
        for v in self.gm.of(m.VarDecl):
            if not self.declare(v.name, "a variable", v.span):
                continue
            typ = T.NUM
            if v.type is not None:
                if v.type in VAR_TYPES:
                    typ = VAR_TYPES[v.type]
                elif v.type in self.attr_index:
                    typ = T.value_type(v.type)
                else:
                    self.unknown("type", v.type, v.span, list(VAR_TYPES) + list(self.attr_index))
            var = Var(v.name, base, v.per_player, typ, None, v.span)
            self.var_list.append(var)
            self.var_by_name[v.name] = var
            base += MAX_SEATS if v.per_player else 1
        self.var_count = base
        for v, decl in zip(self.var_list, [d for d in self.gm.of(m.VarDecl) if d.name in self.var_by_name]):
            if decl.init is None:
                v.init = (lambda s: -1) if v.type == T.CARD else (lambda s: 0)
                continue
            scope = Scope()
            code, typ = self.expr(decl.init, scope)
            if v.type != T.NUM or decl.type is not None:
                self.want(typ, v.type, decl.init.span)
            elif typ not in (T.NUM, T.ANY):
                v.type = typ
            v.init = eval(f"lambda s: ({code})", self.ns)  # noqa: S307

    def params_and_modifiers(self):
        self.param_info = {}
        self.param_fns = {}
        decls = self.gm.of(m.ParamDecl)
        for p in decls:
            if self.declare(p.name, "a parameter", p.span):
                self.param_info[p.name] = p
        changes: dict[str, list] = {name: [] for name in self.param_info}
        for mod in self.gm.of(m.ModifierDecl):
            if not self.declare(mod.name, "a modifier", mod.span):
                continue
            cond = self.fn(mod.cond, Scope(), T.BOOL)
            for ch in mod.changes:
                if ch.param not in self.param_info:
                    self.unknown("parameter", ch.param, ch.span, self.param_info)
                    continue
                amount = self.fn(ch.value, Scope(), T.NUM)
                changes[ch.param].append((cond, ch.op, amount))
        for name, p in self.param_info.items():
            base = self.fn(p.init, Scope(), T.NUM)
            fn = ops.param_function(base, changes[name])
            self.ns["P_" + name] = fn
            self.param_fns[name] = fn

    def defs(self):
        self.def_info = {}
        for d in self.gm.of(m.DefDecl):
            if self.declare(d.name, "a function", d.span):
                self.def_info[d.name] = d
        self.def_types: dict[str, str] = {}
        self.compiling_defs: set[str] = set()
        for name in self.def_info:
            self.compile_def(name)

    def compile_def(self, name: str) -> str:
        if name in self.def_types:
            return self.def_types[name]
        if name in self.compiling_defs:
            self.error(f"function '{name}' calls itself", self.def_info[name].span)
            return T.ANY
        self.compiling_defs.add(name)
        d = self.def_info[name]
        scope = Scope()
        args = [scope.bind(p, T.ANY) for p in d.params]
        code, typ = self.expr(d.body, scope)
        self.ns["D_" + name] = eval(f"lambda s, {''.join(a + ', ' for a in args)}: ({code})", self.ns)  # noqa: S307
        self.def_types[name] = typ
        return typ

    # ---- actions
    def action_headers(self):
        self.action_list, self.action_by_name = [], {}
        self.action_ids = 0
        for a in self.gm.of(m.ActionDecl):
            if not self.declare(a.name, "an action", a.span):
                continue
            label = a.label if a.label is not None else a.name.replace("_", " ")
            act = Action(a.name, label, self.action_ids, 1, None, None, [], (), 0, a.span)
            self.action_list.append(act)
            self.action_by_name[a.name] = act
            act.decl = a  # type: ignore[attr-defined]
            scope = Scope()
            if a.param is not None:
                dcode, elem = self.domain(a.domain, scope)
                act.param_type = elem
                if elem == T.CARD:
                    act.size = self.ncards
                elif elem == T.PLAYER:
                    act.size = MAX_SEATS
                elif T.is_value(elem):
                    act.size = len(self.attr_list[self.attr_index[elem[6:]]][1])
                else:
                    self.error("a move's choices must be cards, players or card values", a.domain.span)
                slot = scope.local(a.param, elem)
                act.domain = eval(f"lambda s, e: ({dcode})", self.ns)  # noqa: S307
                assert slot == "e[0]"
            for r in a.requires:
                fn = self.fn(r.cond, scope, T.BOOL)
                act.requires.append((fn, r.message, self.source_of(r.cond.span)))
            act.scope = scope  # type: ignore[attr-defined]
            self.action_ids += act.size

    def action_bodies(self):
        for act in self.action_list:
            act.body = self.block(act.decl.body, act.scope)
            act.nlocals = act.scope.slots["n"]

    def source_of(self, span: Span) -> str:
        lines = self.gm.text.splitlines()
        if span.line == span.end_line and 0 < span.line <= len(lines):
            return lines[span.line - 1][span.column - 1: span.end_column - 1]
        if 0 < span.line <= len(lines):
            return " ".join(line.strip() for line in lines[span.line - 1: span.end_line])
        return ""

    # ---- triggers
    def triggers(self) -> dict:
        out: dict[str, list] = {}
        for t in self.gm.of(m.TriggerDecl):
            scope = Scope()
            src = dst = None
            if t.event.kind == "move":
                scope.local(t.event.var, T.CARD)
                src = self.zone_pattern(t.event.source, scope)
                dst = self.zone_pattern(t.event.dest, scope)
            cond = self.fn(t.cond, scope, T.BOOL) if t.cond is not None else None
            body = self.block(t.body, scope)
            out.setdefault(t.event.kind, []).append(
                Trigger(t.event.kind, src, dst, cond, body, scope.slots["n"], t.span))
        return out

    def zone_pattern(self, e: m.Expr | None, scope: Scope):
        """A move event's zone: a shared zone, 'zone' (any owner), or 'p.zone' binding p to the owner."""
        if e is None:
            return None
        if isinstance(e, m.Name) and e.name in self.zone_by_name:
            z = self.zone_by_name[e.name]
            return (z.base, z.per_player, None)
        if isinstance(e, m.Attr) and isinstance(e.obj, m.Name) and e.name in self.zone_by_name:
            z = self.zone_by_name[e.name]
            if not z.per_player:
                self.error(f"zone '{e.name}' is shared; it has no owner to bind", e.span)
                return None
            slot = scope.local(e.obj.name, T.PLAYER)
            return (z.base, True, int(slot[2:-1]))
        self.error("a move event names a zone, like 'deck' or 'p.hand'", e.span)
        return None

    # ---- statements
    def unit(self, block: m.FlowBlock | None):
        if block is None:
            return (), 0
        scope = Scope()
        code = self.block(block.body, scope)
        return code, scope.slots["n"]

    def block(self, stmts: tuple, scope: Scope) -> tuple:
        out = []
        ended = None
        for st in stmts:
            if ended is not None:
                self.error(f"this statement can never run: it follows 'end {ended}'", st.span)
                ended = None
            fn = getattr(self, "st_" + type(st).__name__.lower())(st, scope)
            if fn is not None:
                out.append(ops.located(fn, st.span))
            if isinstance(st, m.End):
                ended = st.what
        return tuple(out)

    def st_assign(self, st: m.Assign, scope: Scope):
        code, typ = self.expr(st.value, scope)
        tcode, ttyp = self.target(st.target, scope, typ)
        if tcode is None:
            return None
        if st.op != "=":
            self.want(ttyp, T.NUM, st.target.span)
            self.want(typ, T.NUM, st.value.span)
        else:
            self.want(typ, ttyp, st.value.span)
        src = f"{tcode} {st.op} ({code})"
        return self.stmt_fn(src)

    def target(self, t: m.Expr, scope: Scope, typ: str):
        if isinstance(t, m.Name):
            found = scope.lookup(t.name)
            if found is not None:
                return found
            var = self.var_by_name.get(t.name)
            if var is None:
                if t.name in self.known:
                    self.error(f"'{t.name}' is {self.known[t.name]}; only variables can be assigned", t.span)
                    return None, T.ANY
                self.unknown("variable", t.name, t.span, self.var_by_name)
                return None, T.ANY
            if var.per_player:
                self.error(f"'{t.name}' belongs to each player: write p.{t.name}", t.span)
                return None, T.ANY
            return f"s.v[{var.base}]", var.type
        if isinstance(t, m.Attr):
            ocode, otyp = self.expr(t.obj, scope)
            var = self.var_by_name.get(t.name)
            if var is None or not var.per_player:
                self.unknown("per-player variable", t.name, t.name_span,
                             [v.name for v in self.var_list if v.per_player])
                return None, T.ANY
            self.want(otyp, T.PLAYER, t.obj.span)
            return f"s.v[{var.base} + ({ocode})]", var.type
        self.error("only a variable can be assigned", t.span)
        return None, T.ANY

    def stmt_fn(self, src: str):
        return eval(f"lambda s, fr: _exec(s, fr[2])", {"_exec": self.exec_fn(src)})  # noqa: S307

    def exec_fn(self, src: str):
        ns = self.ns
        code = f"def _f(s, e):\n    {src}\n"
        local: dict = {}
        exec(code, ns, local)  # noqa: S102 - our own generated code
        return local["_f"]

    def st_let(self, st: m.Let, scope: Scope):
        code, typ = self.expr(st.value, scope)
        slot = scope.local(st.name, typ)
        return self.stmt_fn(f"{slot} = ({code})")

    def zone_expr(self, e: m.Expr, scope: Scope) -> str:
        code, typ = self.expr(e, scope)
        self.want(typ, T.ZONE, e.span)
        return code

    def st_move(self, st: m.Move, scope: Scope):
        card, typ = self.expr(st.card, scope)
        self.want(typ, T.CARD, st.card.span)
        dest = self.zone_expr(st.dest, scope)
        return self.stmt_fn(f"s.move({card}, {dest}, {st.bottom})")

    def st_moven(self, st: m.MoveN, scope: Scope):
        src = self.zone_expr(st.source, scope)
        dest = self.zone_expr(st.dest, scope)
        if st.count is None:
            return self.stmt_fn(f"s.move_all({src}, {dest}, {st.bottom})")
        n = self.fn_code(st.count, scope, T.NUM)
        return self.stmt_fn(f"s.move_top({n}, {src}, {dest}, {st.bottom})")

    def st_deal(self, st: m.Deal, scope: Scope):
        src = self.zone_expr(st.source, scope)
        zone = self.zone_by_name.get(st.zone)
        if zone is None:
            self.unknown("zone", st.zone, st.zone_span, self.zone_by_name)
            return None
        if not zone.per_player:
            self.error(f"'deal' gives cards to each player, but zone '{st.zone}' is shared", st.zone_span,
                       f"use 'move N from ... to {st.zone}'")
            return None
        n = self.fn_code(st.count, scope, T.NUM)
        start = self.fn_code(st.start, scope, T.PLAYER) if st.start is not None else "0"
        return self.stmt_fn(f"s.deal({n}, {src}, {zone.base}, {start})")

    def st_shuffle(self, st: m.Shuffle, scope: Scope):
        return self.stmt_fn(f"s.shuffle({self.zone_expr(st.zone, scope)})")

    def st_gather(self, st: m.Gather, scope: Scope):
        return self.stmt_fn(f"s.gather({self.zone_expr(st.zone, scope)})")

    def st_if(self, st: m.If, scope: Scope):
        branches = [(self.fn(c, scope, T.BOOL), self.block(b, scope)) for c, b in st.branches]
        other = self.block(st.otherwise, scope) if st.otherwise is not None else None
        return ops.if_op(branches, other)

    def st_repeat(self, st: m.Repeat, scope: Scope):
        return ops.repeat_op(self.fn(st.count, scope, T.NUM), self.block(st.body, scope))

    def st_while(self, st: m.While, scope: Scope):
        return ops.while_op(self.fn(st.cond, scope, T.BOOL), self.block(st.body, scope))

    def st_foreach(self, st: m.ForEach, scope: Scope):
        dcode, dtyp = self.expr(st.domain, scope)
        elem = self.elem_type(dtyp, st.domain.span)
        slot = scope.local(st.var, elem)
        start = None
        if st.start is not None:
            start = self.fn(st.start, scope, T.PLAYER)
            if elem != T.PLAYER:
                self.error("'starting at' needs a loop over players", st.start.span)
        domain = eval(f"lambda s, e: tuple({dcode})", self.ns)  # noqa: S307
        return ops.for_op(domain, int(slot[2:-1]), start, self.block(st.body, scope))

    def elem_type(self, dtyp: str, span: Span) -> str:
        if dtyp == "players":
            return T.PLAYER
        elem = T.element(dtyp)
        if elem is None:
            self.error(f"expected cards, players or a list here, found {T.describe(dtyp)}", span)
            return T.ANY
        return elem

    def st_turn(self, st: m.Turn, scope: Scope):
        player = self.fn(st.player, scope, T.PLAYER)
        return ops.turn_op(player, self.block(st.body, scope))

    def st_choose(self, st: m.Choose, scope: Scope):
        if self.in_outcome:
            self.error("the outcome cannot ask for a move", st.span)
        acts = []
        for name, span in st.actions:
            act = self.action_by_name.get(name)
            if act is None:
                self.unknown("action", name, span, self.action_by_name)
                continue
            self.offered.add(name)
            acts.append(act)
        by = self.fn(st.by, scope, T.PLAYER) if st.by is not None else None
        return ops.choose_op(tuple(acts), by)

    def st_end(self, st: m.End, scope: Scope):
        return ops.end_op(st.what)

    def st_result(self, st: m.Result, scope: Scope):
        return ops.result_op(st.kind, self.fn(st.player, scope, T.PLAYER))

    def st_places(self, st: m.Places, scope: Scope):
        dcode, dtyp = self.expr(st.domain, scope)
        if self.elem_type(dtyp, st.domain.span) != T.PLAYER:
            self.error("places are given to players", st.domain.span)
        inner = scope.child()
        var = inner.bind(st.var, T.PLAYER)
        key = self.fn_code(st.key, inner, T.NUM)
        fn = eval(f"lambda s, e: sorted({dcode}, key=lambda {var}: ({key}), reverse={st.descending})", self.ns)  # noqa: S307
        keyfn = eval(f"lambda s, e, {var}: ({key})", self.ns)  # noqa: S307
        return ops.places_op(fn, keyfn)

    def st_say(self, st: m.Say, scope: Scope):
        return ops.say_op(st.text)

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
        if name == "players":
            return "range(s.np)", "players"
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
            return f"s.opt[{self.option_index[name]}]", T.NUM
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
        candidates = list(self.known) + ["me", "players"] + list(self.values) + self.visible_names(scope)
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
        return f"({lc} {op} {rc})", T.NUM

    def ex_neg(self, e: m.Neg, scope, hint):
        code, typ = self.expr(e.operand, scope)
        self.want(typ, T.NUM, e.operand.span)
        return f"(-{code})", T.NUM

    def ex_compare(self, e: m.Compare, scope, hint):
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
            return f"({neg}({ic}) in ({', '.join(c for c, _ in items)},))", T.BOOL
        cc, ct = self.expr(e.collection, scope)
        if ct == T.ZONE:
            self.want(it, T.CARD, e.item.span)
            op = "!=" if e.negated else "=="
            return f"(s.loc[{ic}] {op} {cc})", T.BOOL
        if ct == "players":
            self.want(it, T.PLAYER, e.item.span)
            return f"({neg}(0 <= ({ic}) < s.np))", T.BOOL
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
        handler = getattr(self, "call_" + f, None)
        if handler is not None and f in BUILTINS:
            return handler(e, scope)
        if f in self.def_info:
            d = self.def_info[f]
            if len(e.args) != len(d.params):
                self.error(f"function '{f}' takes {len(d.params)} argument(s), given {len(e.args)}", e.span)
                return _NOPE
            args = [self.expr(a, scope)[0] for a in e.args]
            typ = self.compile_def(f)
            return f"D_{f}(s, {', '.join(args)})", typ
        self.unknown("function", f, e.span, list(self.def_info) + sorted(BUILTINS - {"me", "players"}))
        return _NOPE

    def call_count(self, e, scope):
        if len(e.args) == 1 and not isinstance(e.args[0], m.Member):
            code, typ = self.expr(e.args[0], scope)
            if typ == T.ZONE:
                return f"len(s.z[{code}])", T.NUM
            if typ == "players":
                return "s.np", T.NUM
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
        return f"{helper}([{var} for {var} in {dcode}{cond}], lambda {var}: ({key}))", elem

    def call_best(self, e, scope):
        return self._best(e, scope, "_best")

    def call_worst(self, e, scope):
        return self._best(e, scope, "_worst")

    def _one_arg(self, e, scope):
        if len(e.args) != 1 or e.for_var or e.where or e.by:
            self.error(f"'{e.func}' takes one argument", e.span)
            return None
        return self.expr(e.args[0], scope)

    def call_random(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        code, typ = arg
        if typ == T.ZONE:
            return f"s.pick(s.z[{code}])", T.CARD
        return f"s.pick(tuple({code}))", self.elem_type(typ, e.args[0].span)

    def call_next(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        self.want(arg[1], T.PLAYER, e.args[0].span)
        return f"(({arg[0]}) + 1) % s.np", T.PLAYER

    def call_previous(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        self.want(arg[1], T.PLAYER, e.args[0].span)
        return f"(({arg[0]}) - 1) % s.np", T.PLAYER

    def call_top(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        self.want(arg[1], T.ZONE, e.args[0].span)
        return f"s.top({arg[0]})", T.CARD

    def call_bottom(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        self.want(arg[1], T.ZONE, e.args[0].span)
        return f"s.bottom({arg[0]})", T.CARD

    def call_abs(self, e, scope):
        arg = self._one_arg(e, scope)
        if arg is None:
            return _NOPE
        self.want(arg[1], T.NUM, e.args[0].span)
        return f"abs({arg[0]})", T.NUM


def compile_model(gm: m.GameModel) -> Program:
    """Check a model and compile it; raises SourceError listing every problem."""
    compiler = Compiler(gm)
    compiler.ns["_div"] = ops.divide
    return compiler.compile()
