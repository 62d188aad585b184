"""Parameters and the modifiers that change them: the rules that change rules.

A parameter (`param kind_size per player = 3`) becomes a function of the module, `P_kind_size(s,
owner)`: its starting value, then each modifier in force changing it, in file order. A modifier
may also change a zone's visibility, make values count as one (`same`) or cards wild (`wild`);
those changes keep the modifier's condition as a function the engine reads.
"""
from __future__ import annotations


from . import model as m
from . import types as T
from .context import Context

ZONE_VISIBILITY = ("hidden", "owner", "others", "public", "top")


class Modifiers:
    """Compiles parameters, modifiers and their changes; checks that no parameter depends on itself."""

    def __init__(self, c: Context, x):
        self.c, self.x = c, x
        self.params: dict[str, str] = {}  # parameter -> its function's name
        self.same_changes: dict[str, list] = {}  # attribute -> [(condition name, value indices made one)]
        self.wild_changes: dict[str, list] = {}  # attribute -> [(condition name, cards wild for it)]
        self.modifiers: list = []  # (name, condition name, span): every modifier, in file order

    def compile(self):
        c = self.c
        changes: dict[str, list] = {name: [] for name in c.param_info}
        for mod in c.gm.of(m.ModifierDecl):
            if not c.declare(mod.name, "a modifier", mod.span):
                continue
            code = self.x.fn_code(mod.cond, c.owner_scope(), T.BOOL)
            cond = c.module.expression(f"mod_{mod.name}", code, mod.cond.span)
            self.modifiers.append((mod.name, cond, mod.span))
            for ch in mod.changes:
                getattr(self, "change_" + type(ch).__name__.lower())(ch, (cond, code, mod.cond.span), changes)
        for name, p in c.param_info.items():
            self.params[name] = self.param_function(name, p, changes[name])

    def param_function(self, name: str, p: m.ParamDecl, changes: list) -> str:
        """P_name(s, owner=None): the starting value, then every modifier in force, in file order."""
        c = self.c
        base = self.x.fn_code(p.init, c.owner_scope(), c.param_types[name])
        lines = [("    e = [s.me if owner is None else owner]", p.span), ("    v = (", p.span), (base, p.init.span),
                 ("    )", None)]
        for (_, cond, cspan), op, amount, aspan in changes:
            lines += [("    if (", cspan), (cond, cspan), ("    ):", None),
                      (f"        v {op} (", aspan), (amount, aspan), ("        )", None)]
        lines.append(("    return v", p.span))
        if not changes:
            return c.module.function("P_" + name, "s, owner=None", lines, p.span)
        # Changed by modifiers: worked out once until the rules change (s.ver; language/watch.py).
        c.module.function("_P_" + name, "s, owner=None", lines, p.span)
        return c.module.function("P_" + name, "s, owner=None", [
            ("    if s.pver is not s.ver:", p.span), ("        s.pcache, s.pver = {}, s.ver", None),
            (f"    k = ({name!r}, owner, s.me)", None), ("    v = s.pcache.get(k, _U)", None),
            ("    if v is _U:", None), (f"        v = s.pcache[k] = _P_{name}(s, owner)", None),
            ("    return v", None)], p.span)

    def change_paramchange(self, ch: m.ParamChange, cond, changes: dict):
        c = self.c
        if ch.param not in c.param_info:
            c.unknown("parameter", ch.param, ch.span, c.param_info)
            return
        typ = c.param_types[ch.param]
        if typ == T.BOOL and ch.op != "=":
            c.error(f"'{ch.param}' is true or false: a modifier sets it with '='", ch.span)
            return
        amount = self.x.fn_code(ch.value, c.owner_scope(), typ)
        changes[ch.param].append((cond, ch.op, amount, ch.value.span))

    def change_visibilitychange(self, ch: m.VisibilityChange, cond, changes: dict):
        """`ZONE.visibility = WORD`: while the modifier holds, the zone shows its cards so."""
        c = self.c
        field, fspan = ch.field
        word, wspan = ch.word
        zone = c.zone_by_name.get(ch.zone)
        if zone is None:
            c.unknown("zone", ch.zone, ch.span, c.zone_by_name)
        elif field != "visibility":
            c.error(f"a modifier changes a zone's visibility ('{ch.zone}.visibility'), not '{field}'", fspan)
        elif word not in ZONE_VISIBILITY:
            c.unknown("visibility", word, wspan, ZONE_VISIBILITY)
        elif word in ("owner", "others") and not zone.per_player:
            c.error(f"zone '{ch.zone}' is shared: it has no owner to show or hide its cards from", wspan)
        else:
            zone.changes += ((cond[0], word),)

    def change_samechange(self, ch: m.SameChange, cond, changes: dict):
        """`same ATTR: a, b`: while the modifier holds, values a and b count as one (transitively)."""
        c = self.c
        if ch.attribute not in c.attr_index:
            c.unknown("card attribute", ch.attribute, ch.span, c.attr_index)
            return
        found = [c.value_of(name, span, ch.attribute) for name, span in ch.values]
        if None not in found:
            self.same_changes.setdefault(ch.attribute, []).append((cond[0], tuple(i for _, i in found)))

    def change_wildchange(self, ch: m.WildChange, cond, changes: dict):
        """`wild ATTR: PATTERN`: while the modifier holds, those cards stand for any value of ATTR in patterns."""
        c = self.c
        if ch.attribute not in c.attr_index:
            c.unknown("card attribute", ch.attribute, ch.span, c.attr_index)
            return
        conds = []
        for name, span in ch.pattern:
            found = c.value_of(name, span)
            if found is None:
                return
            conds.append(found)
        cards = frozenset(k for k in range(c.ncards) if all(c.card_attr_tables[a][k] == i for a, i in conds))
        self.wild_changes.setdefault(ch.attribute, []).append((cond[0], cards))

    # ---- parameters that depend on themselves
    def cycles(self):
        """A parameter whose value depends on itself (through modifiers' conditions and amounts,
        the functions and patterns they read) would be worked out for ever: it is an error."""
        c, gm = self.c, self.c.gm
        defs = {d.name: d.body for d in gm.of(m.DefDecl)}
        pats = {d.name: [x for cl in d.clauses for x in (cl.expr, cl.most) if x is not None]
                for d in gm.of(m.PatternDecl)}
        value_conds = [mod.cond for mod in gm.of(m.ModifierDecl)
                       if any(isinstance(ch, (m.SameChange, m.WildChange)) for ch in mod.changes)]
        memo: dict = {}

        def reads(node, seen) -> set:
            """The parameters an expression reads, directly or through functions and patterns."""
            found: set = set()
            for x in m.walk(node):
                name = getattr(x, "name", None) if isinstance(x, (m.Name, m.Attr)) else \
                    getattr(x, "func", None) if isinstance(x, m.Call) else None
                if name in c.param_info:
                    found.add(name)
                elif name in defs or name in pats:
                    if name not in memo and name not in seen:
                        body = defs[name] if name in defs else pats[name] + value_conds
                        memo[name] = reads(body, seen | {name})
                    found |= memo.get(name, set())
            return found

        graph = {name: reads(p.init, frozenset()) for name, p in c.param_info.items()}
        where = {}
        for mod in gm.of(m.ModifierDecl):
            for ch in mod.changes:
                if isinstance(ch, m.ParamChange) and ch.param in graph:
                    graph[ch.param] |= reads([mod.cond, ch.value], frozenset())
                    where.setdefault(ch.param, ch.span)
        self.find_cycle(graph, where)

    def find_cycle(self, graph: dict, where: dict):
        c = self.c
        done: set = set()
        for start in graph:
            path, stack, on_path = [start], [(start, iter(sorted(graph[start])))], {start}
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    on_path.discard(path.pop())
                    done.add(node)
                elif nxt in on_path:
                    cycle = path[path.index(nxt):] + [nxt]
                    c.error(f"parameter '{nxt}' depends on itself: " + " -> ".join(f"'{p}'" for p in cycle),
                            where.get(nxt, c.param_info[nxt].span),
                            "a modifier of one of these reads another through its condition or amount")
                    return
                elif nxt not in done and nxt in graph:
                    stack.append((nxt, iter(sorted(graph[nxt]))))
                    on_path.add(nxt)
                    path.append(nxt)
