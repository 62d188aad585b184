"""Checks a game model and compiles it to a Program: every diagnostic is collected, not just the first."""
from __future__ import annotations

import itertools

import attrs

from . import model as m
from . import ops
from . import types as T
from .codegen import SourceMap
from .loops import LoopChecker
from .errors import Diagnostic, SourceError, Span, did_you_mean
from .compile_expr import BUILTINS, ExpressionCompiler
from .compile_stmt import StatementCompiler
from .patterns import Matcher, Order, Shape
from .program import MAX_SEATS, Action, Pattern, Program, Trigger, Var, Zone

ZONE_PROPS = {"hidden", "owner", "public", "top", "stack", "pile", "out", "transient"}
ZONE_VISIBILITY = ("hidden", "owner", "public", "top")
VAR_VISIBILITY = ("hidden", "owner", "public")
MAX_CARDS = 10_000
_NAME, _SPAN = " name", " span"  # keys of a card record that are not attributes
NO_REACTION = "no reaction"  # the move that lets a reaction window pass
VAR_TYPES = {"number": T.NUM, "player": T.PLAYER, "card": T.CARD, "bool": T.BOOL}


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


class Compiler(StatementCompiler, ExpressionCompiler):
    """One pass over the model: resolves names, checks kinds, emits Python for expressions."""

    def __init__(self, gm: m.GameModel):
        self.gm = gm
        self.diags: list[Diagnostic] = []
        self.ns: dict = {"_rotate": ops.rotate,
                         "_div": ops.divide,
                         "_seat": ops.seat, "_others": ops.others, "_next": ops.next_seat, "_number": ops.number, "_U": ops.UNSET,
                         "_repeat_count": ops.repeat_count, "_pow": ops.power,
                         "_card_of": ops.card_of, "_as_cards": ops.as_cards, "_tops": ops.tops, "_same": ops.same, "_can_make": ops.can_make, "_makes": ops.makes}
        self.has_move_triggers = any(t.event.kind == "move" for t in gm.of(m.TriggerDecl))
        self.source_map = SourceMap(gm.filename, gm.text)
        self.block_spans: dict = {}  # the ops of loops, rounds and triggers -> (span, "loop"/"round"/"trigger")
        self.known: dict[str, str] = {}  # every declared name -> what it is
        self.offered: set[str] = set()
        self.cards_where_card: str | None = None
        self.in_outcome = False
        # Every symbol table exists from the start, so no lookup depends on declaration order.
        self.attr_list, self.attr_index, self.values = [], {}, {}
        self.value_names: set[str] = set()
        self.zone_list, self.zone_by_name = [], {}
        self.var_list, self.var_by_name = [], {}
        self.param_info, self.param_fns = {}, {}
        self.def_info, self.def_types, self.compiling_defs = {}, {}, set()
        self.steps_info: dict = {}  # defs with a block, expanded where they are called
        self.expanding: set[str] = set()
        self.used_steps: set[str] = set()
        self.action_list, self.action_by_name = [], {}
        self.reactions, self.no_reaction = (), None
        self.option_index, self.options = {}, {}
        self.option_choices: dict = {}
        self.ncards = 0
        self.has_twins, self.twins = False, ()
        self.hoist: list | None = None  # names of values computed once per legal-move loop
        self.where = Span()  # the statement or declaration being compiled, for errors past Python's limits
        self.agg_depth = 0
        self.same_changes: dict[str, list] = {}  # attribute -> [(condition, value indices made one)]
        self.wild_changes: dict[str, list] = {}  # attribute -> [(condition, cards wild for it)]
        self.pattern_info, self.pattern_index, self.pattern_list = {}, {}, []
        self.param_types: dict[str, str] = {}

    # ---- diagnostics
    def error(self, message: str, span: Span, hint: str | None = None):
        self.diags.append(Diagnostic(message, span, hint))

    def unknown(self, what: str, name: str, span: Span, candidates):
        self.error(f"unknown {what} '{name}'", span, did_you_mean(name, candidates))

    def declare(self, name: str, kind: str, span: Span) -> bool:
        if name in BUILTINS:
            self.error(f"'{name}' is a built-in name and cannot be declared", span,
                       "choose another name")
            return False
        if name in self.known:
            self.error(f"'{name}' is already declared as {self.known[name]}", span)
            return False
        self.known[name] = kind
        return True

    def new_scope(self) -> Scope:
        return Scope()

    # ---- entry point
    def compile(self) -> Program:
        gm = self.gm
        self.header()
        self.attributes()
        self.choice_options()
        self.cards()
        self.backs()
        self.value_tables()
        self.zones()
        self.variables()
        self.declare_params()
        self.declare_defs()
        self.declare_patterns()
        self.params_and_modifiers()
        self.parameter_cycles()
        self.defs()
        self.patterns()
        self.var_initializers()
        self.action_headers()
        flows = {b.kind: b for b in gm.of(m.FlowBlock)}
        for kind in ("setup", "round", "outcome"):
            same = [b for b in gm.of(m.FlowBlock) if b.kind == kind]
            for extra in same[1:]:
                self.error(f"a game has one '{kind}' block; this is a second one", extra.span)
        setup, setup_n = self.unit(flows.get("setup"))
        rnd, round_n = self.unit(flows.get("round"))
        if "round" in flows and rnd:
            self.block_spans[rnd] = (flows["round"].span, "round")
        self.in_outcome = True
        outcome, outcome_n = self.unit(flows.get("outcome"))
        self.in_outcome = False
        self.action_bodies()
        triggers = self.triggers()
        invariants: dict = {}
        for inv in gm.of(m.InvariantDecl):
            fn = self.fn(inv.cond, Scope(), T.BOOL)
            invariants.setdefault(inv.when, []).append((inv.name, fn, inv.span))
        heuristic = None
        for h in gm.of(m.Heuristic)[:1]:
            heuristic = self.fn(h.value, Scope(), T.NUM)
        end_when = None
        for ew in gm.of(m.EndWhen):
            end_when = self.fn(ew.cond, Scope(), T.BOOL)
        if self.ncards and not self.zone_list:
            self.error("the game has cards but no zone to put them in", Span(),
                       "add a line like 'zone deck: hidden, stack' (every card starts in the first zone)")
        if "round" not in flows and "setup" not in flows:
            self.error("the game has no 'setup' or 'round' block, so nothing ever happens", Span(),
                       "add a 'round { ... }' block that deals and offers moves")
        for d in self.steps_info.values():
            if d.name not in self.used_steps:
                self.error(f"'{d.name}' is never used", d.span, f"call it as a statement: '{d.name}(...)'")
        for act in gm.of(m.ActionDecl):
            if act.name not in self.offered and self.action_by_name.get(act.name, None) is not None \
                    and self.action_by_name[act.name].decl is act:
                self.error(f"action '{act.name}' is never offered: no 'choose' names it", act.span,
                           f"add 'choose {act.name}' where the player should be able to make this move")
        self.endless_loops()
        if self.diags:  # steps called in several places report an error in their body once
            raise SourceError(gm.filename, gm.text, list(dict.fromkeys(self.diags)))
        return Program(
            name=self.name, filename=gm.filename, min_players=self.least, max_players=self.most,
            options=self.options, option_index=self.option_index, move_limit=self.limit,
            attributes=self.attr_list, card_attrs=self.card_attr_tables, card_names=self.card_names,
            zones=self.zone_list, zone_by_name=self.zone_by_name, zone_count=self.zone_count,
            vars=self.var_list, var_by_name=self.var_by_name, var_count=self.var_count,
            actions=self.action_list, action_by_name=self.action_by_name, action_count=self.action_ids,
            setup=setup, setup_locals=setup_n, round=rnd if "round" in flows else None, round_locals=round_n,
            outcome=outcome, outcome_locals=outcome_n, end_when=end_when, triggers=triggers, ordered=self.ordered,
            params=self.param_fns, heuristic=heuristic, invariants=invariants, back=tuple(self.back_attrs),
            twins=self.twins, option_choices=self.option_choices, reactions=self.reactions,
            out_zones=frozenset(z.base + k for z in self.zone_list if z.out
                                for k in range(MAX_SEATS if z.per_player else 1)),
            no_reaction=self.no_reaction, patterns=self.pattern_list,
            same_changes={a: tuple(ch) for a, ch in self.same_changes.items()},
            wild_changes={a: tuple(ch) for a, ch in self.wild_changes.items()},
            attr_sizes={name: len(values) for name, values, _ in self.attr_list},
            matcher=Matcher(self.card_attr_tables) if self.pattern_list else None, source_map=self.source_map,
            block_spans=self.block_spans, action_bodies=frozenset(a.body for a in self.action_list if a.body))

    def endless_loops(self):
        """Report every `while` loop that surely never ends once it begins (see loops.py)."""
        gm = self.gm
        checker = LoopChecker(gm, set(self.zone_by_name), set(self.param_info), self.has_move_triggers)
        for decl in (*gm.of(m.FlowBlock), *gm.of(m.ActionDecl), *gm.of(m.TriggerDecl), *gm.of(m.StepsDecl)):
            checker.check(decl.body)
        for loop in checker.found:
            self.error("this loop never ends once it begins: nothing in it changes what its condition reads",
                       loop.span, "change what the condition reads inside the loop, or leave it with 'end'")

    # ---- declarations
    def header(self):
        gm = self.gm
        names = gm.of(m.GameName)
        self.name = names[0].name if names else gm.filename
        players = gm.of(m.PlayersDecl)
        self.least, self.most = 2, 4
        if not players:
            self.error("the game does not say how many players it is for", Span(),
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

    def choice_options(self):
        """`option mode: a, b, c`: its values are read like card values (`mode == b`); the first is the default."""
        self.option_choices: dict[str, list[str]] = {}
        for o in self.gm.of(m.OptionChoiceDecl):
            if not self.declare(o.name, "an option", o.span):
                continue
            names = []
            for name, span in o.choices:
                if name in names:
                    self.error(f"'{name}' appears twice in option '{o.name}'", span)
                    continue
                if name in self.known:
                    self.error(f"'{name}' is already declared as {self.known[name]}", span)
                    continue
                if name in self.values:
                    owner = self.values[name][0][0]
                    self.error(f"'{name}' is already a value of '{owner}'", span, "give the option's values other names")
                    continue
                self.values.setdefault(name, []).append((o.name, len(names)))
                names.append(name)
            self.option_index[o.name] = len(self.option_index)
            self.options[o.name] = (0, o.doc)
            self.option_choices[o.name] = names

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
            self.error("the game has no cards", Span(), "add a line like 'cards rank * suit'")
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
            size = d.times
            for choice in choices:
                size *= len(choice)
            if len(records) + size > MAX_CARDS:
                self.error(f"this makes more than {MAX_CARDS} cards", d.span)
                continue
            kept = []
            for combo in itertools.product(*choices):
                rec = dict(combo)
                if where is not None and not self._safe_where(where, rec, d.where.span):
                    continue
                kept.append(rec)
            if d.named is not None:
                if len(kept) != 1:
                    self.error(f"'named' gives one name to one card, but this line makes {len(kept)} different "
                               "cards", d.span, "give each card its own 'cards' line, or name values with symbols")
                for rec in kept:
                    rec[_NAME] = d.named
            for rec in kept:
                rec[_SPAN] = d.span
                records.extend(dict(rec) for _ in range(d.times))
        self.card_attr_tables = {}
        for a, _, _ in self.attr_list:
            table = tuple(r.get(a, -1) for r in records)
            self.card_attr_tables[a] = table
            self.ns["A_" + a] = table
        self.card_names = [self.card_name(r) for r in records]
        self.ncards = len(records)
        # Identical copies of a card: a move offers one of them per zone, not each copy.
        first: dict[tuple, int] = {}
        twins = tuple(first.setdefault(tuple(r.get(a, -1) for a, _, _ in self.attr_list), c)
                      for c, r in enumerate(records))
        self.has_twins = any(t != c for c, t in enumerate(twins))
        self.ns["_twin"] = self.twins = twins
        for r, name in zip(records, self.card_names):
            if not name:
                self.error("these cards have no name: every value they have has an empty symbol", r[_SPAN])
                break
        owner: dict[str, tuple] = {}
        for r, name in zip(records, self.card_names):
            key = tuple(r.get(a, -1) for a, _, _ in self.attr_list)
            first = owner.setdefault(name, key)
            if first != key:
                self.error(f"two different cards are both called '{name}'", r[_SPAN],
                           "players could not say which one they mean: give one of them a symbol or a 'named'")
                owner[name] = key  # report each clash once

    def card_name(self, rec: dict) -> str:
        """A card's name: its 'named' text, or its values' symbols (an empty symbol is left out)."""
        if _NAME in rec:
            return rec[_NAME]
        parts = [sym[rec[a]] for a, _, sym in self.attr_list if a in rec and sym[rec[a]] != ""]
        return "".join(parts) if all(len(p) <= 2 for p in parts[1:]) else " ".join(parts)

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

    def backs(self):
        """The attributes a card's back shows (its kind, say): visible to all, even face down."""
        self.back_attrs = []
        decls = self.gm.of(m.BackDecl)
        for extra in decls[1:]:
            self.error("a game has one 'back shows' line; this is a second one", extra.span)
        for name, span in (decls[0].attributes if decls else ()):
            if name not in self.attr_index:
                self.unknown("card attribute", name, span, self.attr_index)
            elif name not in self.back_attrs:
                self.back_attrs.append(name)

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
            vis, flags = "hidden", set()
            for name, span in z.props:
                if name not in ZONE_PROPS:
                    self.unknown("zone property", name, span, ZONE_PROPS)
                elif name in ("stack", "out", "transient"):
                    flags.add(name)
                elif name != "pile":
                    vis = name
            zone = Zone(z.name, base, z.per_player, vis, "stack" in flags, z.span, "out" in flags,
                        transient="transient" in flags)
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
            vis = "public"
            if v.visibility is not None:
                word, span = v.visibility
                if word not in VAR_VISIBILITY:
                    self.unknown("visibility", word, span, VAR_VISIBILITY)
                elif word == "owner" and not v.per_player:
                    self.error("only a per-player variable has an owner to show it to", span)
                else:
                    vis = word
            var = Var(v.name, base, v.per_player, typ, None, v.span, vis, v.per_card)
            self.var_list.append(var)
            self.var_by_name[v.name] = var
            base += MAX_SEATS if v.per_player else self.ncards if v.per_card else 1
        self.var_count = base

    def var_initializers(self):
        for v, decl in zip(self.var_list, [d for d in self.gm.of(m.VarDecl) if d.name in self.var_by_name]):
            if decl.init is None:
                # no card (-1), nobody (None), zero
                v.init = (lambda s: -1) if v.type == T.CARD else (lambda s: None) if v.type == T.PLAYER else (
                    lambda s: 0)
                continue
            scope = Scope()
            code, typ = self.expr(decl.init, scope, v.type)
            if v.type != T.NUM or decl.type is not None:
                self.want(typ, v.type, decl.init.span)
            elif typ not in (T.NUM, T.ANY):
                v.type = typ
            v.init = self.source_map.function(code, decl.init.span, self.ns, "s")

    def declare_params(self):
        """Parameter names and types first: functions, modifiers and patterns may read any of them."""
        self.param_info, self.param_types = {}, {}
        for p in self.gm.of(m.ParamDecl):
            if self.declare(p.name, "a parameter", p.span):
                self.param_info[p.name] = p
                self.param_types[p.name] = T.BOOL if self.is_condition(p.init) else T.NUM

    _CONDITION_CALLS = frozenset({"any", "all", "has", "makes", "can_make", "same", "knows"})

    def is_condition(self, e) -> bool:
        """Whether a parameter's starting value is true or false (read before any type is known)."""
        if isinstance(e, (m.Bool, m.Compare, m.Logic, m.Not, m.Member)):
            return True
        if isinstance(e, m.Call):
            return e.func in self._CONDITION_CALLS
        if isinstance(e, m.CondExpr):
            return self.is_condition(e.then)
        if isinstance(e, m.Name) and e.name in self.options:
            return isinstance(self.options[e.name][0], bool)
        return False

    def params_and_modifiers(self):
        self.param_fns = {}
        changes: dict[str, list] = {name: [] for name in self.param_info}
        for mod in self.gm.of(m.ModifierDecl):
            if not self.declare(mod.name, "a modifier", mod.span):
                continue
            cond = self.fn(mod.cond, self.owner_scope(), T.BOOL)
            for ch in mod.changes:
                getattr(self, "change_" + type(ch).__name__.lower())(ch, cond, changes)
        for name, p in self.param_info.items():
            base = self.fn(p.init, self.owner_scope(), self.param_types[name])
            fn = ops.param_function(base, changes[name])
            self.ns["P_" + name] = fn
            self.param_fns[name] = fn

    def parameter_cycles(self):
        """A parameter whose value depends on itself (through modifiers' conditions and amounts,
        the functions and patterns they read) would be worked out for ever: it is an error."""
        gm = self.gm
        defs = {d.name: d.body for d in gm.of(m.DefDecl)}
        pats = {d.name: [c.expr for c in d.clauses if c.expr is not None] for d in gm.of(m.PatternDecl)}
        value_conds = [mod.cond for mod in gm.of(m.ModifierDecl)
                       if any(isinstance(ch, (m.SameChange, m.WildChange)) for ch in mod.changes)]
        memo: dict = {}

        def reads(node, seen) -> set:
            """The parameters an expression reads, directly or through functions and patterns."""
            found: set = set()
            stack = [node]
            while stack:
                x = stack.pop()
                if isinstance(x, (list, tuple)):
                    stack.extend(x)
                    continue
                if not attrs.has(type(x)):
                    continue
                name = getattr(x, "name", None) if isinstance(x, (m.Name, m.Attr)) else \
                    getattr(x, "func", None) if isinstance(x, m.Call) else None
                if name in self.param_info:
                    found.add(name)
                elif name in defs or name in pats:
                    if name not in memo and name not in seen:
                        body = defs[name] if name in defs else pats[name] + value_conds
                        memo[name] = reads(body, seen | {name})
                    found |= memo.get(name, set())
                stack.extend(getattr(x, f.name) for f in attrs.fields(type(x)) if f.name != "span")
            return found

        graph = {name: reads(p.init, frozenset()) for name, p in self.param_info.items()}
        where = {}
        for mod in gm.of(m.ModifierDecl):
            for ch in mod.changes:
                if isinstance(ch, m.ParamChange) and ch.param in graph:
                    graph[ch.param] |= reads([mod.cond, ch.value], frozenset())
                    where.setdefault(ch.param, ch.span)
        done: set = set()
        for start in graph:
            path, stack, on_path = [], [(start, iter(sorted(graph[start])))], {start}
            path.append(start)
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    on_path.discard(path.pop())
                    done.add(node)
                elif nxt in on_path:
                    cycle = path[path.index(nxt):] + [nxt]
                    self.error(f"parameter '{nxt}' depends on itself: "
                               + " -> ".join(f"'{c}'" for c in cycle),
                               where.get(nxt, self.param_info[nxt].span),
                               "a modifier of one of these reads another through its condition or amount")
                    return
                elif nxt not in done and nxt in graph:
                    stack.append((nxt, iter(sorted(graph[nxt]))))
                    on_path.add(nxt)
                    path.append(nxt)

    def change_paramchange(self, ch: m.ParamChange, cond, changes: dict):
        if ch.param not in self.param_info:
            self.unknown("parameter", ch.param, ch.span, self.param_info)
            return
        typ = self.param_types[ch.param]
        if typ == T.BOOL and ch.op != "=":
            self.error(f"'{ch.param}' is true or false: a modifier sets it with '='", ch.span)
            return
        amount = self.fn(ch.value, self.owner_scope(), typ)
        changes[ch.param].append((cond, ch.op, amount))

    def change_visibilitychange(self, ch: m.VisibilityChange, cond, changes: dict):
        """`ZONE.visibility = WORD`: while the modifier holds, the zone shows its cards so."""
        field, fspan = ch.field
        word, wspan = ch.word
        zone = self.zone_by_name.get(ch.zone)
        if zone is None:
            self.unknown("zone", ch.zone, ch.span, self.zone_by_name)
        elif field != "visibility":
            self.error(f"a modifier changes a zone's visibility ('{ch.zone}.visibility'), not '{field}'", fspan)
        elif word not in ZONE_VISIBILITY:
            self.unknown("visibility", word, wspan, ZONE_VISIBILITY)
        elif word == "owner" and not zone.per_player:
            self.error(f"zone '{ch.zone}' is shared: it has no owner to show its cards to", wspan)
        else:
            zone.changes += ((cond, word),)

    def change_samechange(self, ch: m.SameChange, cond, changes: dict):
        """`same ATTR: a, b`: while the modifier holds, values a and b count as one (transitively)."""
        if ch.attribute not in self.attr_index:
            self.unknown("card attribute", ch.attribute, ch.span, self.attr_index)
            return
        found = [self.value_of(name, span, ch.attribute) for name, span in ch.values]
        if None not in found:
            self.same_changes.setdefault(ch.attribute, []).append((cond, tuple(i for _, i in found)))

    def change_wildchange(self, ch: m.WildChange, cond, changes: dict):
        """`wild ATTR: PATTERN`: while the modifier holds, those cards stand for any value of ATTR in patterns."""
        if ch.attribute not in self.attr_index:
            self.unknown("card attribute", ch.attribute, ch.span, self.attr_index)
            return
        conds = []
        for name, span in ch.pattern:
            found = self.value_of(name, span)
            if found is None:
                return
            conds.append(found)
        cards = frozenset(c for c in range(self.ncards) if all(self.card_attr_tables[a][c] == i for a, i in conds))
        self.wild_changes.setdefault(ch.attribute, []).append((cond, cards))

    # ---- patterns
    def declare_patterns(self):
        self.pattern_info: dict[str, m.PatternDecl] = {}
        for d in self.gm.of(m.PatternDecl):
            if self.declare(d.name, "a pattern", d.span):
                self.pattern_info[d.name] = d
        self.pattern_index = {name: k for k, name in enumerate(self.pattern_info)}

    def patterns(self):
        """Each pattern: its fixed shape (shared attributes, run orders) and its clauses read at run time."""
        self.pattern_list = []
        for d in self.pattern_info.values():
            same, run, orders, size, conds, withs, counted = [], None, (), None, [], [], []
            for cl in d.clauses:
                if cl.kind == "size":
                    if size is not None:
                        self.error("a pattern has one size", cl.span)
                    size = self.fn(cl.expr, self.owner_scope(), T.NUM)
                elif cl.kind == "same":
                    name, span = cl.names[0]
                    if name not in self.attr_index:
                        self.unknown("card attribute", name, span, self.attr_index)
                    elif name not in same:
                        same.append(name)
                elif cl.kind == "run":
                    if run is not None:
                        self.error("a pattern has one run", cl.span)
                    run, orders = self.run_orders(cl.names)
                elif cl.kind == "with":
                    name, span = cl.names[0]
                    found = self.value_of(name, span)
                    cond = self.fn(cl.expr, self.owner_scope(), T.BOOL) if cl.expr is not None else None
                    count = self.fn(cl.count, self.owner_scope(), T.NUM) if cl.count is not None else None
                    if found is not None:
                        withs.append((found[0], found[1], cond, count))
                        if count is not None:
                            counted.append((found[0], cl.span))
                else:
                    conds.append(self.fn(cl.expr, self.owner_scope(), T.BOOL))
            for attr, span in counted:
                if attr == run:
                    self.error(f"a run holds one card of each {attr}: 'with at least' counts the cards "
                               "of another attribute", span, f"write 'with VALUE' for a {attr} the run must include")
            if size is None:
                self.error(f"pattern '{d.name}' does not say how many cards make it", d.span,
                           "add a size, as in 'pattern kind: 3 cards, same rank'")
                size = lambda s, e: 1  # noqa: E731 - a placeholder after an error
            shape = Shape(same=tuple(same), run=run, orders=orders)
            self.pattern_list.append(Pattern(d.name, shape, size, tuple(conds), tuple(withs), d.span))

    def run_orders(self, names) -> tuple:
        """`run of ATTR or TABLE ...`: the run's attribute, and each order as positions per card."""
        attr, span = names[0]
        if attr not in self.attr_index:
            self.error(f"a run is of a card attribute, like 'run of rank'; '{attr}' is not one", span)
            return None, ()
        table = self.card_attr_tables[attr]
        orders = []
        for name, nspan in names:
            if name == attr:
                position = tuple(i if i >= 0 else None for i in table)
                every = tuple(range(len(self.attr_list[self.attr_index[attr]][1])))
            elif name in self.value_names:
                numbers = self.ns["V_" + name]
                position = tuple(numbers[c] if table[c] >= 0 else None for c in range(self.ncards))
                every = tuple(sorted({p for p in position if p is not None}))
            else:
                self.unknown(f"order (the attribute '{attr}' or a value table)", name, nspan,
                             [attr] + sorted(self.value_names))
                continue
            orders.append(Order(position=position, positions=every))
        return attr, tuple(orders)

    def owner_scope(self) -> Scope:
        """Parameters and modifiers see `owner`: the player whose value is read."""
        scope = Scope()
        scope.local("owner", T.PLAYER)
        return scope

    def declare_defs(self):
        self.def_info = {}
        for d in self.gm.of(m.DefDecl):
            if self.declare(d.name, "a function", d.span):
                self.def_info[d.name] = d
        self.def_types: dict[str, str] = {}
        self.compiling_defs: set[str] = set()

    def defs(self):
        for d in self.gm.of(m.StepsDecl):
            if self.declare(d.name, "steps (a 'def' with a block)", d.span):
                self.steps_info[d.name] = d
                for p in sorted({p for p in d.params if d.params.count(p) > 1}):
                    self.error(f"'{d.name}' names its parameter '{p}' twice", d.span)
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
        for p in sorted({p for p in d.params if d.params.count(p) > 1}):
            self.error(f"function '{name}' names its parameter '{p}' twice", d.span)
        args = list(dict.fromkeys(scope.bind(p, T.ANY) for p in d.params))
        code, typ = self.expr(d.body, scope)
        self.ns["D_" + name] = self.source_map.function(code, d.body.span, self.ns, ", ".join(["s", *args]))
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
            act = Action(a.name, label, self.action_ids, 1, None, None, [], (), 0, a.span,
                         anytime=a.anytime, spoken=a.spoken)
            if a.anytime:
                self.offered.add(a.name)  # offered in every reaction window
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
                act.domain = self.source_map.function(dcode, a.domain.span, self.ns)
                assert slot == "e[0]"
            conds = []
            self.hoist = []
            for r in a.requires:
                before = len(self.hoist)
                code = self.fn_code(r.cond, scope, T.BOOL)
                conds.append(self.source_map.mark(f"({code})", r.cond.span))
                fn = self.define(f"def _f(s, e):\n{self.hoist_init(self.hoist[before:])}    return ({code})\n",
                                 r.cond.span)
                act.requires.append((fn, r.message, self.source_of(r.cond.span)))
            act.legal = self.legal_fn(act, dcode if a.param is not None else None, conds, scope)
            self.hoist = None
            act.scope = scope  # type: ignore[attr-defined]
            self.action_ids += act.size
        self.reactions = tuple(a for a in self.action_list if a.anytime)
        if self.reactions:  # a reaction window also offers to let the moment pass
            act = Action(NO_REACTION, NO_REACTION, self.action_ids, 1, None, None, [], (), 0, Span())
            act.legal = self.define(f"def _f(s, out):\n    out.append({self.action_ids})\n", Span())
            self.action_list.append(act)
            self.action_ids += 1
            self.no_reaction = act

    def legal_fn(self, act, domain_code, conds, scope):
        """One generated function that appends an action's legal move ids to a list."""
        test = " and ".join(conds) or "True"
        n = max(1, scope.slots["n"])
        init = self.hoist_init(self.hoist)
        if domain_code is None:
            return self.define(f"def _f(s, out):\n    e = [None] * {n}\n{init}    if {test}:\n"
                               f"        out.append({act.first_id})\n", act.span)
        # Conditions that do not read the candidate are checked once, before the loop.
        guard = [c for c in conds if "e[0]" not in c]
        test = " and ".join(c for c in conds if "e[0]" in c) or "True"
        head = f"def _f(s, out):\n    e = [None] * {n}\n{init}    dom = {domain_code}\n"
        if guard:
            head += f"    if not dom or not ({' and '.join(guard)}):\n        return\n"
        if act.param_type == T.CARD and self.has_twins:  # one move per kind of card and zone
            return self.define(
                f"{head}    seen = set()\n    for x in dom:\n"
                f"        e[0] = x\n        if {test}:\n            k = (_twin[x], s.loc[x])\n"
                f"            if k not in seen:\n                seen.add(k)\n"
                f"                out.append({act.first_id} + x)\n", act.span)
        return self.define(
            f"{head}    for x in dom:\n        e[0] = x\n"
            f"        if {test}:\n            out.append({act.first_id} + x)\n", act.span)

    @staticmethod
    def hoist_init(names) -> str:
        return "".join(f"    {name} = _U\n" for name in names)

    def action_bodies(self):
        for act in self.action_list:
            if act.decl is None:
                continue
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
        self.ordered: dict[str, tuple] = {}
        for t in self.gm.of(m.TriggerDecl):
            scope = Scope()
            src = dst = None
            if t.event.kind == "speech":
                scope.local(t.event.var, T.PLAYER)
            if t.event.kind == "move":
                scope.local(t.event.var, T.CARD)
                src = self.zone_pattern(t.event.source, scope)
                dst = self.zone_pattern(t.event.dest, scope)
            cond = self.fn(t.cond, scope, T.BOOL) if t.cond is not None else None
            body = self.block(t.body, scope)
            if body:
                self.block_spans[body] = (t.span, "trigger")
            if t.label is not None:
                self.ordered_step(t, cond, body, scope.slots["n"])
                continue
            out.setdefault(t.event.kind, []).append(
                Trigger(t.event.kind, src, dst, cond, body, scope.slots["n"], t.span))
        return out

    def ordered_step(self, t: m.TriggerDecl, cond, body, nlocals: int):
        """A labelled turn or round trigger: a step the player on turn orders among the others of its
        moment, made with a move of its own (the label)."""
        kind = t.event.kind
        if kind not in ("turn start", "turn end", "round start", "round end"):
            self.error(f"only turn and round triggers can be steps the player orders; this is 'on {kind}'",
                       t.span, "remove the label")
            return
        steps, actions = self.ordered.get(kind, ((), ()))
        if any(a.label == t.label for a in actions):
            self.error(f"two 'on {kind}' steps are called '{t.label}'", t.span, "give each step its own words")
        same = [a for a in self.action_by_name.values() if a.label == t.label]
        if same:
            self.error(f"the step '{t.label}' has the words of the action '{same[0].name}': a typed move "
                       "would be read as either", t.span, "give the step other words")
        k = len(steps)
        act = Action(t.label, t.label, self.action_ids, 1, None, None, [], (ops.order_choice(k),), 0, t.span)
        act.legal = ops.order_legal(k, cond, nlocals, act.first_id)
        self.action_ids += 1
        self.action_list.append(act)
        self.ordered[kind] = (steps + ((cond, body, nlocals),), actions + (act,))

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


def compile_model(gm: m.GameModel) -> Program:
    """Check a model and compile it; raises SourceError listing every problem."""
    compiler = Compiler(gm)
    try:
        return compiler.compile()
    except (RecursionError, SyntaxError, MemoryError):  # SyntaxError: nesting past Python's own limits
        span = compiler.where
        raise SourceError(gm.filename, gm.text, compiler.diags + [Diagnostic(
            "this rule is nested too deeply to compile", span,
            "split it with 'let' or 'def'")]) from None
