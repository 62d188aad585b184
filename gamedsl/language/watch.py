"""What the rules that change rules read: the zones and variables their answers depend on.

Parameters (through their modifiers), patterns and the `same` and `wild` changes are read over
and over (a game whose cards each change a rule reads them all at every decision), but change
only when what they read does.
The engine keeps their answers until then: a move touching a watched zone, or an assignment to
a watched variable, counts as a change of the rules (a new `s.ver`, and a new version of that
zone or variable in `s.wv`: a pattern keeps its Spec while what it reads keeps its versions,
reads_by_pattern); nothing else does. The
analysis is conservative: anything it cannot follow (a random pick, `in_play`, who knows what)
makes every change count.
"""
from __future__ import annotations

from . import model as m

ALL = "*"  # everything is watched


def watched(gm: m.GameModel, zones: set, variables: set) -> tuple[frozenset | str, frozenset | str]:
    """(the names of the zones, the names of the variables) the rules' parameters, modifiers and
    patterns read, directly or through functions; ALL for either when it cannot be told."""
    defs = {d.name: d.body for d in gm.of(m.DefDecl)}
    roots: list = [p.init for p in gm.of(m.ParamDecl)]
    for mod in gm.of(m.ModifierDecl):
        roots.append(mod.cond)
        roots.extend(ch.value for ch in mod.changes if isinstance(ch, m.ParamChange))
    for d in gm.of(m.PatternDecl):
        roots.extend(c.expr for c in d.clauses if c.expr is not None)
        roots.extend(c.count for c in d.clauses if c.count is not None)
        roots.extend(c.most for c in d.clauses if c.most is not None)
    found_zones, found_vars = set(), set()
    seen_defs: set = set()
    while roots:
        for x in m.walk(roots.pop()):
            if isinstance(x, m.Call):
                if x.func in ("random", "knows"):
                    return ALL, ALL
                if x.func in defs and x.func not in seen_defs:
                    seen_defs.add(x.func)
                    roots.append(defs[x.func])
            if isinstance(x, (m.Name, m.Attr)):
                name = x.name
                if name == "in_play":
                    return ALL, ALL
                if name in zones:
                    found_zones.add(name)
                elif name in variables:
                    found_vars.add(name)
                elif name in ("players", "others"):
                    found_vars.add(" players")  # eliminations change them
    return frozenset(found_zones), frozenset(found_vars)


def reads_by_pattern(gm: m.GameModel, zones: set, variables: set, items: tuple) -> tuple | None:
    """Per pattern, the indices in `items` (the watched zones and variables, and " players") of
    what its Spec reads: its clauses, the parameters they read (each with the modifiers that change
    it), the `same` and `wild` changes (they apply to every pattern), and the functions all these
    call. A pattern's Spec then changes only when one of these does (engine/runtime.py). None
    when it cannot be told (what `watched` calls ALL)."""
    defs = {d.name: d.body for d in gm.of(m.DefDecl)}
    params = {p.name: [p.init] for p in gm.of(m.ParamDecl)}
    values: list = []  # the conditions of the `same` and `wild` changes
    for mod in gm.of(m.ModifierDecl):
        for ch in mod.changes:
            if isinstance(ch, m.ParamChange) and ch.param in params:
                params[ch.param] += [mod.cond, ch.value]
            elif isinstance(ch, (m.SameChange, m.WildChange)):
                values.append(mod.cond)
    index = {name: i for i, name in enumerate(items)}
    out = []
    for d in gm.of(m.PatternDecl):
        roots = [*values, *(c.expr for c in d.clauses if c.expr is not None),
                 *(c.count for c in d.clauses if c.count is not None),
                 *(c.most for c in d.clauses if c.most is not None)]
        found: set = set()
        seen: set = set()
        while roots:
            for x in m.walk(roots.pop()):
                if isinstance(x, m.Call):
                    if x.func in ("random", "knows"):
                        return None
                    if x.func in defs and ("def", x.func) not in seen:
                        seen.add(("def", x.func))
                        roots.append(defs[x.func])
                if isinstance(x, (m.Name, m.Attr)):
                    name = x.name
                    if name == "in_play":
                        return None
                    if name in params and ("param", name) not in seen:
                        seen.add(("param", name))
                        roots.extend(params[name])
                    if name in zones or name in variables:
                        found.add(index[name])
                    elif name in ("players", "others"):
                        found.add(index[" players"])
        out.append(tuple(sorted(found)))
    return tuple(out)
