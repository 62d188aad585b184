"""Actions: their move ids, the functions that list their legal moves, and their bodies."""
from __future__ import annotations

import re

from ..errors import Span, did_you_mean
from . import model as m
from . import types as T
from .bounds import MOST_NUMBERS, Bounds
from .context import Context, Scope
from .flow import DONE
from .codegen import unmarked
from .combinations import Combinations
from . import tables
from .program import MAX_SEATS, Action
from .tables import table_reads, table_safe

NO_REACTION = "no reaction"  # the move that lets a reaction window pass
MOST_COMBINATIONS = 20000  # the most moves one action of several choices may have


# What a condition's code may hold and still never fail: card tables read at a bound card (the
# candidate `x` or a comprehension's `_c_1`), zones of `me` or of a bound player or of a fixed
# number, counts and comparisons of numbers, a card's entry in a table (Actions.table). No
# variable (an unset one is None), no top card.
_BOUND = r"(?:x|_[a-z]+_\d+)"
_SAFE_TOKEN = re.compile(rf"""\s+|\(|\)|,|\d+|==|!=|<=|>=|<|>|\+|-|\*
    |(?:A|V)_\w+\[{_BOUND}\]|_t\[x\]|{_BOUND}\b|s\.me\b|s\.z\[|\]|\[0\b
    |\b(?:and|or|not|for|in|if|len|any|all|sum|True|False)\b""", re.X)
_KEY = re.compile(r"_[hp]\d+")  # what a legal-move loop's table is keyed by: values worked out before it


def _indent(text: str) -> str:
    """Generated lines one level deeper (every line of a text that holds several)."""
    return text.replace("\n", "\n    ")


def _cannot_fail(code: str) -> bool:
    """Whether a condition's code is made only of parts that never raise (see _SAFE_TOKEN)."""
    code = unmarked(code)
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


def _conjuncts(e: m.Expr) -> list:
    """`a and b and c` as [a, b, c] (any other condition as itself)."""
    if isinstance(e, m.Logic) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


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
        self.some_bodies: list = []  # each anytime action's some_NAME, as a body that breaks out when it has none
        self.legal_bodies: list = []  # ...and its legal_NAME, likewise
        self.combos = Combinations(c, x)

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
            if a.more or (a.param is not None and "{" in label) or self.combos.is_one(a.domain):
                # several choices, or one named in the label, or several cards at once
                domain = self.several(a, act, scope)
            elif a.param is not None:
                domain = self.domain(a, act, scope)
            conds = []
            self.x.hoist = []
            for r in a.requires:
                parts = [self.x.fn_code(d, scope, T.BOOL) for d in _disjuncts(r.cond)]
                code = " or ".join(f"({p})" for p in parts)
                pieces = _conjuncts(r.cond)  # `a and b`: two tests of the legal-move loop, one may be a table's
                if len(pieces) == 1:
                    conds.append([c.module.mark(f"({p})", r.cond.span) for p in parts])
                else:
                    conds += [[c.module.mark(f"({self.x.fn_code(d, scope, T.BOOL)})", piece.span)
                               for d in _disjuncts(piece)] for piece in pieces]
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
        dcode, act.param_type, act.size = self.choices(a.param, a.domain, scope)
        act.domain = self.c.module.expression(f"dom_{a.name}", dcode, a.domain.span)
        act.domain_text = self.c.source_of(a.domain.span) or "the choices"
        return dcode

    def choices(self, name: str, domain: m.Expr, scope: Scope, act: Action | None = None) -> tuple[str, str, int]:
        """One choice of a move (`c in me.hand`): (its domain's code, the type of its elements, how
        many move ids it takes); its name is then a local of the action's scope (e[0], e[1]...)."""
        c = self.c
        if act is not None and self.combos.is_one(domain):
            return self.combination(name, domain, scope, act)
        dcode, elem = self.x.domain(domain, scope)
        size = 1
        if elem == T.CARD:
            size = c.ncards
            self.facing_away(domain)
        elif elem == T.PLAYER:
            size = MAX_SEATS
        elif T.is_value(elem):
            size = len(c.attr_list[c.attr_index[elem[6:]]][1])
        elif elem == T.NUM:
            most = self.most_number(domain, scope)
            size = most + 1
            dcode = c.module.mark(f"_numbers({dcode}, {most})", domain.span)
        else:
            c.error("a move's choices must be cards, players, card values or numbers", domain.span)
        scope.local(name, elem)
        return dcode, elem, size

    def combination(self, name: str, domain: m.Call, scope: Scope, act: Action) -> tuple[str, str, int]:
        """`cs in combinations(Z, P or Q by ATTR)`: one move id per shape (language/combinations.py);
        the domain lists (shape number, cards) pairs, and the move's pick finds a shape's cards."""
        found = self.combos.compile(act.name, name, domain, scope)
        slot = scope.local(name, T.list_of(T.CARD))
        if found is None:
            return "()", T.list_of(T.CARD), 1
        dcode, elem, size, table, attr, cards = found
        k = int(slot[2:-1])  # e[k]: the choice's place
        act.picks += ((k, self.c.module.expression(f"pick_{act.name}_{name}", f"_pick({cards}, A_{attr}, "
                                                   f"{table}[e[{k}]])", domain.span)),)
        act.shapes[name] = (attr, self.c.data[table])
        return dcode, elem, size

    def several(self, a: m.ActionDecl, act: Action, scope: Scope) -> list:
        """A move of several choices (`(c in me.hand, k in 1..7)`): one move id per combination of
        their values, the first choice's the most significant; returns the domains' code. Each
        domain may read the choices before it. At most one choice is a card (the card the move names)."""
        c = self.c
        given = ((a.param, a.domain),) + a.more
        found = []
        for name, domain in given:
            if any(name == other for other, *_ in found):
                c.error(f"the move already has a choice named '{name}'", domain.span)
            dcode, elem, size = self.choices(name, domain, scope, act)
            found.append((name, dcode, elem, size, domain))
        cards = [f for f in found if f[2] == T.CARD]
        for extra in cards[1:]:
            c.error("a move names at most one card", extra[4].span,
                    "choose the other card in a move of its own, asked in this move's rules (choose ...)")
        total = 1
        for f in found:
            total *= f[3]
        if total > MOST_COMBINATIONS:
            c.error(f"these choices make {total} moves: at most {MOST_COMBINATIONS} combinations can be moves",
                    a.domain.span, "bound the numbers' ranges, or choose in two moves (choose ... in the rules)")
            total = 1
        act.size, stride, params = total, total, []
        for name, dcode, elem, size, domain in found:
            stride //= size
            shown = domain.args[0] if self.combos.is_one(domain) and domain.args else domain  # (its zone)
            text = c.source_of(shown.span) or "the choices"
            params.append((name, elem, stride, c.module.expression(f"dom_{a.name}_{name}", dcode, domain.span), text))
        act.params = tuple(params)
        for name in re.findall(r"\{(\w*)\}", act.label):
            if name not in (p[0] for p in params):
                c.error(f"the label names '{{{name}}}', which is not one of the move's choices "
                        f"({', '.join(p[0] for p in params)})", a.span,
                        "a label shows a choice's value where it names it in braces: \"put {c} on column {k}\"")
        first = cards[0] if cards else found[0]
        act.param_type = first[2]
        act.domain, act.domain_text = act.params[found.index(first)][3], act.params[found.index(first)][4]
        return [f[1] for f in found]

    def facing_away(self, d: m.Expr):
        """A move that names a card of the mover's own `others` zone would show its owner the card: refused."""
        zone = self.c.zone_by_name.get(d.name) if isinstance(d, m.Attr) and isinstance(d.obj, m.Name) \
            and d.obj.name == "me" else None
        if zone is not None and zone.visibility == "others":
            self.c.error(f"a move naming a card of 'me.{d.name}' would show the card to its owner, who does not "
                         f"see it ('{d.name}' is 'others')", d.span,
                         f"choose the card by its place: (n in 1..count(me.{d.name})), then nth(me.{d.name}, n, bottom)")

    def most_number(self, domain: m.Expr, scope: Scope) -> int:
        """The largest number a numbered move may be (its move ids are 0 to that): known from the
        domain's form, or an error that says how to bound it."""
        low, high = Bounds(self.x, scope).domain(domain)
        if low is not None and low < 0:
            self.c.error(f"a move's number cannot be negative: this range may start at {low}", domain.span,
                         "moves are numbered from 0: shift the range, and the number in the action's rules")
        if high is None:
            self.c.error("cannot tell the largest number of these moves before the game starts", domain.span,
                         "each number is a move of its own: bound the range by a number, an option's value does "
                         "not count (write min(EXPR, 20)); count(...) of cards is at most the game's cards")
            return 0
        if high > MOST_NUMBERS - 1:
            self.c.error(f"these moves may go up to {high}: at most {MOST_NUMBERS - 1} numbers can be moves",
                         domain.span, "bound the range: min(EXPR, 100)")
            return 0
        return max(high, 0)

    def reactions(self) -> tuple:
        """The anytime actions, the move that lets a reaction window pass (added when there are any),
        the function that says whether `me` has any anytime move and the one that lists them all
        (None when there is one or none)."""
        reactions = tuple(a for a in self.actions if a.anytime)
        check = legal = None
        if len(reactions) > 1:  # asked of every player before every decision: one call, not one per action
            # any order gives the same answer: the cheap ones first (a pattern to match or a loop
            # over cards costs most), so that a player who has a move is found early
            cheap_first = sorted(self.some_bodies, key=lambda lines: sum(
                text.count("_can_make") * 4 + text.count(" for ") for text, _ in lines))
            check = self.c.module.function("some_reaction", "s", _one_body(cheap_first) + [
                ("    return False", None)], Span())
            legal = self.c.module.function("legal_reactions", "s, out", _one_body(self.legal_bodies), Span())
        if reactions:
            act = Action(NO_REACTION, NO_REACTION, self.ids, 1, None, Span())
            act.legal = self.c.module.function(
                "legal_no_reaction", "s, out", [(f"    out.append({self.ids})", Span())], Span())
            self.actions.append(act)
            self.ids += 1
            return reactions, act, check, legal
        return reactions, None, check, legal

    def done(self):
        """The move "done" that stops a repeated choice (`choose up to N of`, `any number of`), in a
        game that has one: offered after the moves of the choice, when there is one."""
        if not any(st.repeated for st in self.c.nodes(m.Choose)):
            return
        label = "done" if all(a.label != "done" for a in self.actions) else "stop choosing"
        act = Action(DONE, label, self.ids, 1, None, Span())
        act.legal = self.c.module.function("legal_done", "s, out", [
            ("    if out:", None), (f"        out.append({self.ids})", None)], Span())
        act.run = self.c.module.function("run_done", "s, e", [("    s.stopped = True", None)], Span())
        self.actions.append(act)
        self.c.action_by_name[DONE] = act
        self.ids += 1

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
            self.some_bodies.append(self.legal_lines(act, domain_code, conds, True, "break"))
            self.legal_bodies.append(self.legal_lines(act, domain_code, conds, False, "break"))
        return name

    def legal_lines(self, act: Action, domain_code, conds: list, some: bool, fail: str | None = None) -> list:
        """The body of legal_NAME, or of some_NAME (`some`), which returns True at the first legal
        move and else runs `fail`."""
        init = [(self.hoist_init(self.x.hoist), None)] if self.x.hoist else []
        lines = [("    pass", act.span)] + init
        fail = fail or ("return False" if some else "return")
        none = f"        {fail}"
        if act.params:
            return lines + self.several_lines(act, domain_code, conds, some, fail)
        if domain_code is None:
            test = " and ".join("(" + " or ".join(parts) + ")" for parts in conds) or "True"
            if some:
                return lines + [("    e = None", None), (f"    if {test}:", None), ("        return True", None),
                                (f"    {fail}", None)]
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
        if some and domain_code == "_others(s)":  # whether any other player will do: no need of their order
            domain_code, tests = "s.alive", ["(x != s.me)"] + tests
        lines.append((f"    dom = {domain_code}", None))
        if guards:
            lines += [(f"    if not dom or not ({' and '.join(f'({g})' for g in guards)}):", None), (none, None)]
        elif pres or some:
            lines += [("    if not dom:", None), (none, None)]
        lines += pre_lines
        if some:
            if pres and len(pres) == len(tests):
                lines += [(f"    if {' and '.join(pres)}:", None), ("        return True", None)]
            if not tests:
                return lines + [("    return True", None)]
            then, tail = "            return True", [(f"    {fail}", None)]
        elif act.param_type == T.CARD and self.c.has_twins:  # one move per kind of card and zone
            key = "_twin[x]" if domain_code.startswith("s.z[") else "(_twin[x], s.loc[x])"  # one zone: by kind
            then, tail = (f"            k = {key}\n            if k not in seen:\n                seen.add(k)\n"
                          f"                out.append({act.first_id} + x)"), []
            lines.append(("    seen = set()", None))
            tests = tests or ["True"]
        else:
            if pres and len(pres) == len(tests):  # every condition holds for every candidate: all are legal
                lines += [(f"    if {' and '.join(pres)}:", None),
                          (f"        out += [{act.first_id} + x for x in dom]", None), (f"        {fail}", None)]
            if not tests:
                return lines + [(f"    out += [{act.first_id} + x for x in dom]", None)]
            then, tail = f"            out.append({act.first_id} + x)", []
        table = self.table(tests, some) if act.param_type == T.CARD else None
        if table is not None:
            prelude, fast = table
            if fast == ["_t[x]"] and some:  # the table is the set of the cards that have the move
                body = [("    if not _t.isdisjoint(dom):", None), ("        return True", None), *tail]
            else:
                body = [("    for x in dom:", None), *self.test_lines(fast, then), *(tail or [(f"    {fail}", None)])]
            lines += prelude + [("    if _t is not None:", None)] + [("    " + _indent(text), span) for text, span in body]
        # (a loop, not a list comprehension: fewer calls, but 4% slower for hands of a few cards)
        return lines + [("    for x in dom:", None), *self.test_lines(tests, then), *tail]

    def several_lines(self, act: Action, domains: list, conds: list, some: bool, fail: str) -> list:
        """The loops of a move of several choices: one per choice, nested, each domain worked out
        with the choices before it known (e[0], e[1]...); a condition is tested in the innermost
        loop whose choices it reads. Identical copies of its card give one move per kind and zone."""
        n = len(domains)
        placed: list[list] = [[] for _ in range(n + 1)]  # the tests placed at each depth
        for parts in conds:
            reads = [k for k in range(n) if any(f"e[{k}]" in p for p in parts)]
            placed[max(reads) + 1 if reads else 0].append("(" + " or ".join(parts) + ")")
        lines, ind = [(f"    e = [None] * {n}", None)], "    "
        if placed[0]:
            lines += [(f"    if not ({' and '.join(placed[0])}):", None), (f"        {fail}", None)]
        card = next((k for k, p in enumerate(act.params) if p[1] == T.CARD), None)
        twins = card is not None and self.c.has_twins and not some
        if twins:
            lines.append(("    seen = set()", None))
        for k, dcode in enumerate(domains):
            if k and "e[" not in dcode and "s.pick" not in dcode:
                # a domain that reads no choice before it is worked out once, when first needed
                # (not before the loops: with no candidate for the choices before it, it never is)
                lines.insert(1, (f"    _d{k} = None", None))
                lines += [(f"{ind}if _d{k} is None:", None), (f"{ind}    _d{k} = tuple({dcode})", None)]
                dcode = f"_d{k}"
            if act.params[k][0] in act.shapes:  # several cards at once: (shape number, its cards)
                lines.append((f"{ind}for _x{k}, e[{k}] in {dcode}:", None))
            else:
                lines += [(f"{ind}for _x{k} in {dcode}:", None), (f"{ind}    e[{k}] = _x{k}", None)]
            ind += "    "
            if placed[k + 1]:
                lines += [(f"{ind}if not ({' and '.join(placed[k + 1])}):", None), (f"{ind}    continue", None)]
        move = f"{act.first_id} + " + " + ".join(f"_x{k} * {p[2]}" for k, p in enumerate(act.params))
        if some:
            return lines + [(f"{ind}return True", None), (f"    {fail}", None)]
        if twins:
            rest = ", ".join(f"_x{k}" for k in range(n) if k != card)
            return lines + [(f"{ind}_k = (_twin[_x{card}], s.loc[_x{card}], {rest})", None),
                            (f"{ind}if _k not in seen:", None), (f"{ind}    seen.add(_k)", None),
                            (f"{ind}    out.append({move})", None)]
        return lines + [(f"{ind}out.append({move})", None)]

    def table(self, tests: list, some: bool = False) -> tuple[list, list] | None:
        """The tests of a legal-move loop that read only the candidate's fixed properties (its
        attributes and values) and values worked out before the loop (hoisted: a top card, a
        count...), looked up in a table of every card instead: (the lines that find the table `_t`,
        the loop's tests with `_t[x]` in place of those), or None where that does not pay. For a
        `some_NAME` with no other test, `_t` is the set of the cards that pass, met in C
        (`_t.isdisjoint(dom)`) rather than card by card.

        Such tests are a function of the card and of those values alone, so the table for the same
        values is the same: each is built once and kept in a dict of the module (at most
        tables.KEPT of them). The values are worked out before the loop; should that, or building a
        table, fail, `_t` is None and the loop as written runs instead, failing only where it
        would have (`c.suit == top(pile).suit` with the pile empty)."""
        # Marks of where code came from are cut out first: a mark may land inside a hoisted form.
        forms = sorted({unmarked(f): n for f, n in self.x.hoisted_forms.items()}.items(),
                       key=lambda f: -len(f[0]))  # the outer first
        plain = []
        for t in tests:
            t = unmarked(t)
            for form, name in forms:
                t = t.replace(form, name)
            plain.append(t)
        pure = [i for i, t in enumerate(plain) if table_safe(t, "x", _KEY)]
        for i in range(pure[0] + 1 if pure else len(tests), len(tests)):
            if i not in pure and not _cannot_fail(tests[i]):  # it must not come after a later table test
                pure = [k for k in pure if k < i]
                break
        if not pure or sum(table_reads(plain[i]) for i in pure) < 2:
            return None  # one read of a table: a table costs as much
        lazy = {n: f for f, n in self.x.hoisted_forms.items()}
        keys = sorted({k for i in pure for k in re.findall(r"\b_[hp]\d+\b", plain[i])}, key=lambda k: (k[1], int(k[2:])))
        tab = self.c.module.fresh("_T")
        self.c.module.add([(f"{tab} = {{}}", None)])
        key = keys[0] if len(keys) == 1 else "(" + "".join(f"{k}, " for k in keys) + ")"
        cond = " and ".join(f"({plain[i]})" for i in pure)
        fast = [t for i, t in enumerate(tests) if i < pure[0] and i not in pure] + ["_t[x]"] + \
               [t for i, t in enumerate(tests) if i > pure[0] and i not in pure]
        # A table of every card; for `some_NAME` with nothing else to test, the set of those that pass.
        build = f"frozenset([x for x in range({self.c.ncards}) if {cond}])" if some and fast == ["_t[x]"] else \
            f"tuple([bool({cond}) for x in range({self.c.ncards})])"
        prelude = [("    try:", None),
                   *[(f"        {k} = {lazy[k]}", None) for k in keys if k[1] == "h"],  # unless already known
                   (f"        _k = {key}", None), (f"        _t = {tab}.get(_k, _U)", None),
                   ("        if _t is _U:", None), ("            _t = None", None),
                   (f"            if len({tab}) < {tables.KEPT}:", None),
                   (f"                {tab}[_k] = None  # kept None should the table fail", None),
                   (f"                _t = {tab}[_k] = {build}", None),
                   ("    except Exception:", None), ("        _t = None", None)]
        return prelude, fast

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
            if name not in self.c.offered and name not in self.c.meant:  # meant: a typo's, already said
                self.c.error(f"action '{name}' is never offered: no 'choose' names it", decl.span,
                             self.misnamed(name, decl) or
                             f"add 'choose {name}' where the player should be able to make this move")

    def misnamed(self, name: str, decl) -> str | None:
        """For an action a variant adds: the base's action of a close name it may have meant to replace."""
        if not self.c.gm.sources or decl.span.file:
            return None
        close = did_you_mean(name, [n for n, (d, _) in self.decls.items() if d.span.file])
        return f"the base has no action '{name}', so this one is added: {close[:-1]}, to replace it?" if close else None


def _one_body(bodies: list) -> list:
    """Several functions' bodies as one: each runs inside `for _ in _ONCE:`, which it leaves
    with `break` where it would have returned."""
    body = [("    pass", Span())]
    for lines in bodies:
        body += [("    for _ in _ONCE:", None)] + [("    " + _indent(text), span) for text, span in lines]
    return body
