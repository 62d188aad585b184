"""Actions: their move ids, the functions that list their legal moves, and their bodies."""
from __future__ import annotations

import re

from ..errors import Span
from . import model as m
from . import types as T
from .context import Context, Scope
from .program import MAX_SEATS, Action

NO_REACTION = "no reaction"  # the move that lets a reaction window pass


# What a condition's code may hold and still never fail: card tables read at a bound card (the
# candidate `x` or a comprehension's `_c_1`), zones of `me` or of a bound player or of a fixed
# number, counts and comparisons of numbers. No variable (an unset one is None), no top card.
_BOUND = r"(?:x|_[a-z]+_\d+)"
_SAFE_TOKEN = re.compile(rf"""\s+|\(|\)|,|\d+|==|!=|<=|>=|<|>|\+|-|\*
    |(?:A|V)_\w+\[{_BOUND}\]|{_BOUND}\b|s\.me\b|s\.z\[|\]|\[0\b
    |\b(?:and|or|not|for|in|if|len|any|all|sum|True|False)\b""", re.X)
_MARK = re.compile(r"  #@\d+")


def _cannot_fail(code: str) -> bool:
    """Whether a condition's code is made only of parts that never raise (see _SAFE_TOKEN)."""
    code = _MARK.sub("", code)
    at = 0
    while at < len(code):
        found = _SAFE_TOKEN.match(code, at)
        if found is None or found.end() == at:
            return False
        at = found.end()
    return True


def _cheap_first(tests: list) -> tuple[list, bool]:
    """The tests of a legal-move loop, those that loop over a zone last when that cannot change the
    answer: (the order to test them in, whether an error needs the written order to decide it).

    `and` stops at the first false test, so a test over every card of a hand (`count(x in
    me.hand if x.face == c.face) == 2`) is best left until a cheap one (`fits(c)`) passed. A test
    moved later must never fail (else a rule's error could go unreported); a test moved earlier
    may, and then the written order runs instead, failing only where it would have."""
    costly = [t for t in tests if " for " in t]
    if not costly or len(costly) == len(tests) or tests[-len(costly):] == costly \
            or not all(_cannot_fail(t) for t in costly):
        return tests, False
    cheap = [t for t in tests if t not in costly]
    return cheap + costly, not all(_cannot_fail(t) for t in cheap)


def _disjuncts(e: m.Expr) -> list:
    """`a or b or c` as [a, b, c] (any other condition as itself)."""
    if isinstance(e, m.Logic) and e.op == "or":
        return _disjuncts(e.left) + _disjuncts(e.right)
    return [e]


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
                parts = [self.x.fn_code(d, scope, T.BOOL) for d in _disjuncts(r.cond)]
                code = " or ".join(f"({p})" for p in parts)
                conds.append([c.module.mark(f"({p})", r.cond.span) for p in parts])
                name = c.module.fresh(f"if_{a.name}")
                used = [h for h in self.x.hoist if re.search(rf"\b{h}\b", code)]  # a value hoisted by an earlier condition too
                c.module.function(name, "s, e", [(self.hoist_init(used), r.cond.span),
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
        """The generated function that appends an action's legal move ids to a list (`legal_NAME(s,
        out)`; for an anytime action also `some_NAME(s)`: whether it has one); returns its name.

        `conds` holds each condition as its disjuncts (`a or b or c`). Over a domain, the parts
        that do not read the candidate (`e[0]`) are worked out once, before the loop: a condition
        with none that do is a guard; a condition with some that do not may then hold for every
        candidate at once (`me == leader or c.suit == led`: the leader may play any card)."""
        name = f"legal_{act.name}"
        self.c.module.function(name, "s, out", self.legal_lines(act, domain_code, conds, False), act.span)
        if act.anytime:  # asked before every decision, of every player: stop at the first one
            self.c.module.function(f"some_{act.name}", "s", self.legal_lines(act, domain_code, conds, True),
                                   act.span)
        return name

    def legal_lines(self, act: Action, domain_code, conds: list, some: bool) -> list:
        init = [(self.hoist_init(self.x.hoist), None)] if self.x.hoist else []
        lines = [("    pass", act.span)] + init
        none = "        return False" if some else "        return"
        if domain_code is None:
            test = " and ".join("(" + " or ".join(parts) + ")" for parts in conds) or "True"
            if some:
                return lines + [("    e = None", None), (f"    return bool({test})", None)]
            return lines + [("    e = None", None), (f"    if {test}:", None),
                            (f"        out.append({act.first_id})", None)]
        guards, pres, tests, pre_lines = [], [], [], []
        for parts in conds:
            # a part that draws at random is drawn for each candidate, as it always was
            free = [p for p in parts if "e[0]" not in p and "s.pick" not in p]
            bound = [p.replace("e[0]", "x") for p in parts if p not in free]
            if not bound:
                guards.append(" or ".join(free))
            elif free:
                pres.append(f"_p{len(pres)}")
                pre_lines.append((f"    {pres[-1]} = " + " or ".join(free), None))
                tests.append(f"({pres[-1]} or " + " or ".join(bound) + ")")
            else:
                tests.append("(" + " or ".join(bound) + ")")
        lines.append((f"    dom = {domain_code}", None))
        if guards:
            lines += [(f"    if not dom or not ({' and '.join(f'({g})' for g in guards)}):", None), (none, None)]
        elif pres or some:
            lines += [("    if not dom:", None), (none, None)]
        lines += pre_lines
        if some:
            if pres and len(pres) == len(tests):
                lines += [(f"    if {' and '.join(pres)}:", None), ("        return True", None)]
            if tests:
                return lines + [("    for x in dom:", None), *self.test_lines(tests, "            return True"),
                                ("    return False", None)]
            return lines + [("    return True", None)]
        if act.param_type == T.CARD and self.c.has_twins:  # one move per kind of card and zone
            key = "_twin[x]" if domain_code.startswith("s.z[") else "(_twin[x], s.loc[x])"  # one zone: by kind
            found = (f"            k = {key}\n            if k not in seen:\n                seen.add(k)\n"
                     f"                out.append({act.first_id} + x)")
            return lines + [("    seen = set()", None), ("    for x in dom:", None),
                            *self.test_lines(tests or ["True"], found)]
        if pres and len(pres) == len(tests):  # every condition holds for every candidate: all are legal
            lines += [(f"    if {' and '.join(pres)}:", None),
                      (f"        out.extend([{act.first_id} + x for x in dom])", None), ("        return", None)]
        if tests:
            return lines + [("    for x in dom:", None), *self.test_lines(tests, f"            out.append({act.first_id} + x)")]
        return lines + [(f"    out.extend([{act.first_id} + x for x in dom])", None)]

    @staticmethod
    def test_lines(tests: list, then: str) -> list:
        """The body of a legal-move loop: `then` (lines indented for it) when every test holds for
        the candidate `x`, the costly tests last (see _cheap_first)."""
        order, guarded = _cheap_first(tests)
        if not guarded:
            return [(f"        if {' and '.join(order)}:", None), (then, None)]
        return [("        try:", None), (f"            ok = {' and '.join(order)}", None),
                ("        except Exception:  # the written order says whether it is the rule's error", None),
                (f"            ok = {' and '.join(tests)}", None), ("        if ok:", None), (then, None)]

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
