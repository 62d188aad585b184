"""What the rules that change rules read: the zones and variables their answers depend on.

Parameters (through their modifiers), patterns and the `same` and `wild` changes are read over
and over (a game whose cards each change a rule reads them all at every decision), but change
only when what they read does.
The engine keeps their answers until then: a move touching a watched zone, or an assignment to
a watched variable, counts as a change of the rules (`s.ver += 1`); nothing else does. The
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
