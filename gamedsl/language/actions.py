"""Actions: their move ids, the functions that list their legal moves, and their bodies."""
from __future__ import annotations

from ..errors import Span
from . import model as m
from . import types as T
from .context import Context, Scope
from .program import MAX_SEATS, Action

NO_REACTION = "no reaction"  # the move that lets a reaction window pass


class Actions:
    """The action passes: headers (ids, domains, conditions, legal moves) first, bodies later."""

    def __init__(self, c: Context, x, flow):
        self.c, self.x, self.flow = c, x, flow
        self.actions: list[Action] = []
        self.decls: dict[str, tuple[m.ActionDecl, Scope]] = {}  # action name -> (declaration, its scope)
        self.ids = 0

    def headers(self):
        c = self.c
        for a in c.gm.of(m.ActionDecl):
            if not c.declare(a.name, "an action", a.span):
                continue
            label = a.label if a.label is not None else a.name.replace("_", " ")
            act = Action(a.name, label, self.ids, 1, None, a.span, anytime=a.anytime, spoken=a.spoken)
            if a.anytime:
                c.offered.add(a.name)  # offered in every reaction window
            self.actions.append(act)
            c.action_by_name[a.name] = act
            scope = Scope()
            self.decls[a.name] = (a, scope)
            domain = None
            if a.param is not None:
                domain = self.domain(a, act, scope)
            conds = []
            self.x.hoist = []
            for r in a.requires:
                before = len(self.x.hoist)
                code = self.x.fn_code(r.cond, scope, T.BOOL)
                conds.append(c.module.mark(f"({code})", r.cond.span))
                name = c.module.fresh(f"if_{a.name}")
                c.module.function(name, "s, e", [(self.hoist_init(self.x.hoist[before:]), r.cond.span),
                                                 ("    return (", None), (code, None), ("    )", None)], r.cond.span)
                act.requires.append((name, r.message, c.source_of(r.cond.span)))
            act.legal = self.legal_fn(act, domain, conds, scope)
            self.x.hoist = None
            self.ids += act.size

    def domain(self, a: m.ActionDecl, act: Action, scope: Scope) -> str:
        """An action's choices (`(c in me.hand)`): its size in move ids, its domain function; returns its code."""
        c = self.c
        dcode, elem = self.x.domain(a.domain, scope)
        act.param_type = elem
        if elem == T.CARD:
            act.size = c.ncards
        elif elem == T.PLAYER:
            act.size = MAX_SEATS
        elif T.is_value(elem):
            act.size = len(c.attr_list[c.attr_index[elem[6:]]][1])
        else:
            c.error("a move's choices must be cards, players or card values", a.domain.span)
        scope.local(a.param, elem)  # e[0]
        act.domain = c.module.expression(f"dom_{a.name}", dcode, a.domain.span)
        act.domain_text = c.source_of(a.domain.span) or "the choices"
        return dcode

    def reactions(self) -> tuple:
        """The anytime actions, and the move that lets a reaction window pass (added when there are any)."""
        reactions = tuple(a for a in self.actions if a.anytime)
        if reactions:
            act = Action(NO_REACTION, NO_REACTION, self.ids, 1, None, Span())
            act.legal = self.c.module.function(
                "legal_no_reaction", "s, out", [(f"    out.append({self.ids})", Span())], Span())
            self.actions.append(act)
            self.ids += 1
            return reactions, act
        return reactions, None

    def legal_fn(self, act: Action, domain_code, conds: list, scope: Scope) -> str:
        """One generated function that appends an action's legal move ids to a list; returns its name."""
        n = max(1, scope.size)
        init = self.hoist_init(self.x.hoist)
        name = f"legal_{act.name}"
        head = [(f"    e = [None] * {n}", act.span), (init, None)] if init else [(f"    e = [None] * {n}", act.span)]
        if domain_code is None:
            test = " and ".join(conds) or "True"
            return self.c.module.function(name, "s, out", head + [(f"    if {test}:", None),
                                                                  (f"        out.append({act.first_id})", None)],
                                          act.span)
        # Conditions that do not read the candidate are checked once, before the loop.
        guard = [cond for cond in conds if "e[0]" not in cond]
        test = " and ".join(cond for cond in conds if "e[0]" in cond) or "True"
        lines = head + [(f"    dom = {domain_code}", None)]
        if guard:
            lines += [(f"    if not dom or not ({' and '.join(guard)}):", None), ("        return", None)]
        if act.param_type == T.CARD and self.c.has_twins:  # one move per kind of card and zone
            lines += [("    seen = set()", None), ("    for x in dom:", None), ("        e[0] = x", None),
                      (f"        if {test}:", None), ("            k = (_twin[x], s.loc[x])", None),
                      ("            if k not in seen:", None), ("                seen.add(k)", None),
                      (f"                out.append({act.first_id} + x)", None)]
        else:
            lines += [("    for x in dom:", None), ("        e[0] = x", None), (f"        if {test}:", None),
                      (f"            out.append({act.first_id} + x)", None)]
        return self.c.module.function(name, "s, out", lines, act.span)

    @staticmethod
    def hoist_init(names) -> str:
        return "\n".join(f"    {name} = _U" for name in names)

    def bodies(self):
        """Each action's body: one function run at once if it never waits, else a unit of blocks."""
        for act in self.actions:
            if act.name not in self.decls:
                continue
            decl, scope = self.decls[act.name]
            if all(self.flow.straight(st) for st in decl.body):
                act.run = self.flow.compile_straight(decl.body, scope, f"run_{act.name}", decl.span)
            else:
                act.entry = self.flow.compile_unit(decl.body, scope, f"act_{act.name}", "action", decl.span)
            act.nlocals = scope.size

    def never_offered(self):
        for name, (decl, _) in self.decls.items():
            if name not in self.c.offered:
                self.c.error(f"action '{name}' is never offered: no 'choose' names it", decl.span,
                             f"add 'choose {name}' where the player should be able to make this move")
