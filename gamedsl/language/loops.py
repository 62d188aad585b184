"""Loops the checker can prove endless: a `while` whose body changes nothing its condition reads.

Such a loop, once it begins, never ends (the engine would stop it at run time, after its step
budget). The proof is conservative: anything the analysis cannot follow (a move, which may set
off triggers; a decision, whose move may change anything; a parameter, read through modifiers;
a random pick) counts as possibly changing everything, so only loops that surely never end are
reported.
"""
from __future__ import annotations

from . import model as m

ANY = "*"  # stands for everything: the analysis cannot say what is read or changed
_UNKNOWN_CALLS = {"random", "has", "makes", "can_make", "same", "deadwood", "melded", "first_meld"}  # read
# parameters (patterns) or change each time


class LoopChecker:
    """Finds the endless `while` loops of a game model."""

    def __init__(self, gm: m.GameModel, zones: set, params: set, has_move_triggers: bool):
        self.zones, self.params, self.move_triggers = zones, params, has_move_triggers
        self.defs = {d.name: d.body for d in gm.of(m.DefDecl)}
        self.steps = {d.name: d.body for d in gm.of(m.StepsDecl)}
        self.found: list[m.While] = []

    # ---- what an expression reads
    def reads(self, e, seen: frozenset = frozenset()) -> set:
        """The names an expression reads: "name:x", "attr:x", "zones", or ANY."""
        out: set = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if x is None:
                continue
            if isinstance(x, (list, tuple)):
                stack.extend(x)
            elif isinstance(x, m.Name):
                out.add("zones" if x.name in self.zones or x.name == "in_play" else
                        ANY if x.name in self.params else f"name:{x.name}")
            elif isinstance(x, m.Attr):
                out.add("zones" if x.name in self.zones else ANY if x.name in self.params else f"attr:{x.name}")
                stack.append(x.obj)
            elif isinstance(x, m.Call):
                if x.func in _UNKNOWN_CALLS:
                    return {ANY}
                if x.func in self.defs and x.func not in seen:
                    out |= self.reads(self.defs[x.func], seen | {x.func})
                stack.extend([x.args, x.for_domain, x.where, x.by])
            elif isinstance(x, m.Expr):
                stack.extend(getattr(x, f) for f in ("left", "right", "operand", "cond", "then", "other",
                                                     "item", "collection", "items", "low", "high") if hasattr(x, f))
        return out

    # ---- what statements change
    def writes(self, stmts, seen: frozenset = frozenset()) -> set:
        """What a block may change: names, per-player or per-card variables, "zones", or ANY."""
        out: set = set()
        for st in stmts:
            if isinstance(st, (m.Choose, m.Race, m.Turn, m.End)):
                return {ANY}  # a decision may change anything; end leaves the loop
            if isinstance(st, m.Assign):
                t = st.target
                out.add(f"name:{t.name}" if isinstance(t, m.Name) else f"attr:{t.name}")
            elif isinstance(st, m.Let):
                out.add(f"name:{st.name}")
            elif isinstance(st, (m.Move, m.MoveN, m.Deal, m.Shuffle, m.Gather)):
                if self.move_triggers:
                    return {ANY}  # a move may set off triggers that change anything
                out.add("zones")
            elif isinstance(st, m.Eliminate):
                out.add("name:players")
            elif isinstance(st, m.CallSteps):
                if st.func in seen or st.func not in self.steps:
                    return {ANY}
                out |= self.writes(self.steps[st.func], seen | {st.func})
            elif isinstance(st, m.If):
                for _, body in st.branches:
                    out |= self.writes(body, seen)
                out |= self.writes(st.otherwise or (), seen)
            elif isinstance(st, (m.Repeat, m.While, m.ForEach)):
                if isinstance(st, m.ForEach):
                    out.add(f"name:{st.var}")
                out |= self.writes(st.body, seen)
            elif not isinstance(st, m.Say):  # reveal, result, places...: what they change is read in ways not followed here
                return {ANY}
            if ANY in out:
                return {ANY}
        return out

    # ---- the walk
    def check(self, stmts):
        """Look for endless loops in a block (and the blocks inside it)."""
        for st in stmts:
            if isinstance(st, m.While):
                cond_reads = self.reads(st.cond)
                changes = self.writes(st.body)
                if not (isinstance(st.cond, m.Bool) and not st.cond.value) and ANY not in cond_reads \
                        and ANY not in changes and not (cond_reads & changes):
                    self.found.append(st)
            for body in _blocks(st):
                self.check(body)


def _blocks(st) -> list:
    if isinstance(st, m.If):
        return [b for _, b in st.branches] + [st.otherwise or ()]
    if isinstance(st, (m.Repeat, m.While, m.ForEach, m.Turn)):
        return [st.body]
    return []
