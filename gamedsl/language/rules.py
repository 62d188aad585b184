"""The rest of the rules: patterns, starting values, triggers and the steps a player orders,
invariants, the end of the game and the bots' heuristic."""
from __future__ import annotations

import attrs

from ..errors import Span
from . import model as m
from . import types as T
from .context import Context, Scope
from .program import OPEN_SIZE, Action, Order, Pattern, Shape, Step, Trigger

ORDERED_EVENTS = ("turn start", "turn end", "round start", "round end")


class Rules:
    """Compiles the declarations that read expressions but are not flow: see the module docstring."""

    def __init__(self, c: Context, x, flow):
        self.c, self.x, self.flow = c, x, flow
        self.patterns: list[Pattern] = []
        self.triggers: dict[str, list] = {}
        self.ordered: dict[str, list] = {}
        self.block_spans: dict[str, tuple] = {}  # a trigger's first block -> (span, "trigger")
        self.step_actions: list[Action] = []  # the steps' moves, in file order

    # ---- patterns
    def compile_patterns(self):
        """Each pattern: its fixed shape (shared attributes, run orders) and its clauses read at run time."""
        c = self.c
        for d in c.pattern_info.values():
            same, run, orders, size, conds, withs, counted = [], None, (), None, [], [], []
            most = grouped = each = None
            for cl in d.clauses:
                if cl.kind == "size":
                    if size is not None:
                        c.error("a pattern has one size", cl.span)
                    size = self.x.fn(cl.expr, c.owner_scope(), T.NUM, f"size_{d.name}")
                    if cl.most is not None:
                        most = self.x.fn(cl.most, c.owner_scope(), T.NUM, f"most_{d.name}")
                    elif cl.open:
                        most = c.module.expression(f"most_{d.name}", str(OPEN_SIZE), cl.span)
                elif cl.kind == "same":
                    name, span = cl.names[0]
                    if name not in c.attr_index:
                        c.unknown("card attribute", name, span, c.attr_index)
                    elif name not in same:
                        same.append(name)
                elif cl.kind == "run":
                    if run is not None:
                        c.error("a pattern has one run", cl.span)
                    run, orders = self.run_orders(cl.names)
                elif cl.kind == "groups":
                    if grouped is not None:
                        c.error("a pattern has one 'groups' clause", cl.span)
                    grouped = self.groups_clause(cl)
                elif cl.kind == "each":
                    each = cl
                elif cl.kind == "with":
                    withs.append(self.with_clause(d, cl, counted))
                else:
                    conds.append(self.x.fn(cl.expr, c.owner_scope(), T.BOOL, f"if_{d.name}"))
            for attr, span in counted:
                if attr == run:
                    c.error(f"a run holds one card of each {attr}: 'with at least' counts the cards "
                            "of another attribute", span, f"write 'with VALUE' for a {attr} the run must include")
            if size is None:
                c.error(f"pattern '{d.name}' does not say how many cards make it", d.span,
                        "add a size, as in 'pattern kind: 3 cards, same rank'")
                size = c.module.expression(f"size_{d.name}", "1", d.span)
            shape = self.grouping(d, Shape(same=tuple(same), run=run, orders=orders), grouped, each, withs)
            self.patterns.append(Pattern(d.name, shape, size, tuple(conds), tuple(w for w in withs if w), d.span,
                                         most))

    def groups_clause(self, cl: m.PatternClause):
        """`groups of ATTR 3 and 2`: (the attribute, the sizes largest first), or None after an error."""
        c = self.c
        name, span = cl.names[0]
        if name not in c.attr_index:
            c.unknown("card attribute", name, span, c.attr_index)
            return None
        if min(cl.sizes) < 1:
            c.error("a group holds one card or more", cl.span)
            return None
        return name, tuple(sorted(cl.sizes, reverse=True))

    def grouping(self, d: m.PatternDecl, shape: Shape, grouped, each, withs: list) -> Shape:
        """The shape with its `groups` or `N of each` clause, which stand with a size and `if` only
        (the run's own clause besides, for `N of each`)."""
        c = self.c
        if each is not None:
            if shape.run is None:
                c.error("'N of each' says how many cards of each value a run holds: the pattern has no run",
                        each.span, "as in 'at least 4 cards, run of rank, 2 of each'")
            elif each.sizes[0] < 1:
                c.error("a run holds one card or more of each value", each.span)
            else:
                shape = attrs.evolve(shape, each=each.sizes[0])
        if grouped is not None:
            shape = attrs.evolve(shape, grouped=grouped[0], groups=grouped[1])
        if (shape.grouped or shape.each > 1) and (shape.same or withs or shape.grouped and shape.run):
            c.error(f"pattern '{d.name}': 'groups' and 'N of each' stand with a size and 'if' only (and the run "
                    "'N of each' is of)", d.span, "make a pattern of its own for the other clauses")
        return shape

    def with_clause(self, d: m.PatternDecl, cl: m.PatternClause, counted: list):
        """`with [at least N] VALUE [if C]`: (attribute, value index, condition, count) or None."""
        c = self.c
        name, span = cl.names[0]
        found = c.value_of(name, span)
        cond = self.x.fn(cl.expr, c.owner_scope(), T.BOOL, f"with_{d.name}") if cl.expr is not None else None
        count = self.x.fn(cl.count, c.owner_scope(), T.NUM, f"count_{d.name}") if cl.count is not None else None
        if found is None:
            return None
        if count is not None:
            counted.append((found[0], cl.span))
        return found[0], found[1], cond, count

    def run_orders(self, names) -> tuple:
        """`run of ATTR or TABLE ...`: the run's attribute, and each order as positions per card."""
        c = self.c
        attr, span = names[0]
        if attr not in c.attr_index:
            c.error(f"a run is of a card attribute, like 'run of rank'; '{attr}' is not one", span)
            return None, ()
        table = c.card_attr_tables[attr]
        orders = []
        for name, nspan in names:
            if name == attr:
                position = tuple(i if i >= 0 else None for i in table)
                every = tuple(range(len(c.attr_list[c.attr_index[attr]][1])))
            elif name in c.value_names:
                numbers = c.data["V_" + name]
                position = tuple(numbers[k] if table[k] >= 0 else None for k in range(c.ncards))
                every = tuple(sorted({p for p in position if p is not None}))
            else:
                c.unknown(f"order (the attribute '{attr}' or a value table)", name, nspan,
                          [attr] + sorted(c.value_names))
                continue
            orders.append(Order(position=position, positions=every))
        return attr, tuple(orders)

    # ---- starting values
    def var_initializers(self):
        c = self.c
        decls = [d for d in c.gm.of(m.VarDecl) if d.name in c.var_by_name]
        for v, decl in zip(c.var_list, decls):
            if decl.shown is not None:  # read when a player's view is made, with `me` the player looking
                v.shown = self.x.fn(decl.shown, Scope(), T.BOOL, f"shown_{v.name}")
            if decl.init is None:
                v.init = "_no_card" if v.type == T.CARD else "_nobody" if v.type == T.PLAYER else "_zero"
                continue
            code, typ = self.x.expr(decl.init, Scope(), v.type)
            if v.type != T.NUM or decl.type is not None:
                self.x.want(typ, v.type, decl.init.span)
            elif typ not in (T.NUM, T.ANY):
                v.type = typ
            v.init = c.module.expression(f"init_{v.name}", code, decl.init.span, "s")

    # ---- triggers
    def compile_triggers(self):
        c = self.c
        for t in c.gm.of(m.TriggerDecl):
            scope = Scope()
            src = dst = None
            if t.event.kind == "speech":
                scope.local(t.event.var, T.PLAYER)
            if t.event.kind == "move":
                scope.local(t.event.var, T.CARD)
                src = self.zone_pattern(t.event.source, scope)
                dst = self.zone_pattern(t.event.dest, scope)
            cond = self.x.fn(t.cond, scope, T.BOOL, "when") if t.cond is not None else None
            entry = self.flow.compile_unit(t.body, scope, "on", "trigger", t.span,
                                           table=t.event.kind in ("round start", "round end"))
            self.block_spans[entry] = (t.span, "trigger")
            if t.label is not None:
                self.ordered_step(t, cond, entry, scope.size)
                continue
            self.triggers.setdefault(t.event.kind, []).append(
                Trigger(t.event.kind, src, dst, cond, entry, scope.size, t.span))

    def ordered_step(self, t: m.TriggerDecl, cond, entry, nlocals: int):
        """A labelled turn or round trigger: a step the player on turn orders among the others of its
        moment, made with a move of its own (the label)."""
        c = self.c
        kind = t.event.kind
        if kind not in ORDERED_EVENTS:
            c.error(f"only turn and round triggers can be steps the player orders; this is 'on {kind}'",
                    t.span, "remove the label")
            return
        steps = self.ordered.setdefault(kind, [])
        if any(s.action.label == t.label for s in steps):
            c.error(f"two 'on {kind}' steps are called '{t.label}'", t.span, "give each step its own words")
        same = [a for a in c.action_by_name.values() if a.label == t.label]
        if same:
            c.error(f"the step '{t.label}' has the words of the action '{same[0].name}': a typed move "
                    "would be read as either", t.span, "give the step other words")
        act = Action(t.label, t.label, -1, 1, None, t.span, step=len(steps))
        steps.append(Step(cond, entry, nlocals, act))
        self.step_actions.append(act)

    def zone_pattern(self, e: m.Expr | None, scope: Scope):
        """A move event's zone: a shared zone, 'zone' (any owner), or 'p.zone' binding p to the owner."""
        c = self.c
        if e is None:
            return None
        if isinstance(e, m.Name) and e.name in c.zone_by_name:
            z = c.zone_by_name[e.name]
            return (z.base, z.per_player, None)
        if isinstance(e, m.Attr) and isinstance(e.obj, m.Name) and e.name in c.zone_by_name:
            z = c.zone_by_name[e.name]
            if not z.per_player:
                c.error(f"zone '{e.name}' is shared; it has no owner to bind", e.span)
                return None
            slot = scope.local(e.obj.name, T.PLAYER)
            return (z.base, True, int(slot[2:-1]))
        if isinstance(e, m.Index) and isinstance(e.obj, (m.Name, m.Attr)) and e.obj.name in c.families:
            attr, zones = c.families[e.obj.name]
            key = e.index.value if isinstance(e.index, m.Number) else e.index.name if isinstance(e.index, m.Name) else None
            member = c.zone_by_name.get(f"{e.obj.name}[{key}]")
            if member is not None:  # one zone of a family, written out: column[2], pile[copper]
                return self.zone_pattern(m.Name(span=e.span, name=member.name) if isinstance(e.obj, m.Name)
                                         else m.Attr(span=e.span, obj=e.obj.obj, name=member.name), scope)
            c.error(f"a move event names one zone of '{e.obj.name}' written out, like {e.obj.name}[{zones[0].name.split('[')[1]}",
                    e.index.span)
            return None
        c.error("a move event names a zone, like 'deck' or 'p.hand'", e.span)
        return None

    # ---- conditions about the whole game
    def invariants(self) -> dict:
        out: dict = {}
        for inv in self.c.gm.of(m.InvariantDecl):
            fn = self.x.fn(inv.cond, Scope(), T.BOOL, "invariant")
            out.setdefault(inv.when, []).append((inv.name, fn, inv.span))
        return out

    def heuristic(self):
        for h in self.c.gm.of(m.Heuristic)[:1]:
            return self.x.fn(h.value, Scope(), T.NUM, "heuristic")
        return None

    def end_when(self):
        found = None
        for ew in self.c.gm.of(m.EndWhen):
            found = self.x.fn(ew.cond, Scope(), T.BOOL, "end_when")
        return found

    def finish(self, flows: dict):
        """The file-wide checks that need every rule compiled."""
        c = self.c
        if c.ncards and not c.zone_list:
            c.error("the game has cards but no zone to put them in", Span(),
                    "add a line like 'zone deck: hidden, stack' (every card starts in the first zone)")
        if "round" not in flows and "setup" not in flows:
            c.error("the game has no 'setup' or 'round' block, so nothing ever happens", Span(),
                    "add a 'round { ... }' block that deals and offers moves")
        for d in c.steps_info.values():
            if d.name not in self.flow.used_steps and d.name not in c.meant:  # meant: a typo's, already said
                c.error(f"'{d.name}' is never used", d.span, f"call it as a statement: '{d.name}(...)'")
