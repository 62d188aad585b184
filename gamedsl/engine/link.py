"""Linking a Program: its generated module is executed once, and the names the Program holds
become the module's functions (see language/program.py)."""
from __future__ import annotations

import linecache

from ..language.codegen import compile_module
from . import flow, runtime, shapes
from .located import register


def link(prog, code=None):
    """Execute the Program's module (compiled now, unless its code is given) and put its functions
    in place of their names. Returns the Program, now ready to run."""
    if prog.linked:
        return prog
    filename = prog.module_name
    code = code if code is not None else compile_module(prog)
    ns = {**runtime.namespace(), **shapes.namespace()}
    ns.update(prog.data)
    if prog.coverage:  # the markers the code sets as its statements run; each link has its own
        ns["_C"] = prog.ran = bytearray(len(prog.markers))
    for piece in code:  # its top-level functions, in order (codegen.compile_module)
        exec(piece, ns)  # noqa: S102 - our own generated code
    linecache.cache[filename] = (len(prog.module), None, prog.module.splitlines(True), filename)
    register(filename, prog)
    fn = _resolver(ns)
    for name, names in prog.act_sets.items():
        ns[name] = tuple(prog.action_by_name[n] for n in names)
    _link_actions(prog, fn)
    for z in prog.zones:
        z.changes = tuple((fn(cond), word) for cond, word in z.changes)
    for v in prog.vars:
        v.init, v.shown = fn(v.init), fn(v.shown)
    for kind, triggers in prog.triggers.items():
        for t in triggers:
            t.cond, t.entry = fn(t.cond), fn(t.entry)
    for steps in prog.ordered.values():
        for step in steps:
            step.cond, step.entry = fn(step.cond), fn(step.entry)
    for p in prog.patterns:
        p.size, p.conds, p.most = fn(p.size), tuple(map(fn, p.conds)), fn(p.most)
        p.withs = tuple((a, i, fn(cond), fn(count)) for a, i, cond, count in p.withs)
    prog.same_changes = {a: tuple((fn(cond), v) for cond, v in ch) for a, ch in prog.same_changes.items()}
    prog.wild_changes = {a: tuple((fn(cond), v) for cond, v in ch) for a, ch in prog.wild_changes.items()}
    prog.params = {name: fn(f) for name, f in prog.params.items()}
    prog.modifiers = tuple((name, fn(cond), span) for name, cond, span in prog.modifiers)
    for unit in (prog.setup, prog.round, prog.outcome):
        if unit is not None:
            unit.entry = fn(unit.entry)
    prog.heuristic, prog.end_when = fn(prog.heuristic), fn(prog.end_when)
    prog.reaction_check = fn(prog.reaction_check)
    prog.reaction_legal = fn(prog.reaction_legal)
    prog.invariants = {when: [(name, fn(f), span) for name, f, span in found]
                       for when, found in prog.invariants.items()}
    prog.trigger_spans = {fn(name): span for name, span in prog.trigger_spans.items()}
    prog.linked = True
    return prog


def _resolver(ns: dict):
    def fn(name):
        return None if name is None else ns[name]
    return fn


def _link_actions(prog, fn):
    for act in prog.actions:
        if act.step >= 0:  # a step the player orders: the engine's own moves
            act.legal, act.run = flow.step_legal(act.step, act.first_id), flow.step_choice(act.step)
            continue
        act.legal, act.domain, act.run, act.entry = fn(act.legal), fn(act.domain), fn(act.run), fn(act.entry)
        if act.anytime:
            act.some = fn(f"some_{act.name}")
        act.requires = [(fn(f), message, source) for f, message, source in act.requires]
        act.params = tuple((name, typ, stride, fn(dom), text) for name, typ, stride, dom, text in act.params)
        act.picks = tuple((k, fn(pick)) for k, pick in act.picks)
