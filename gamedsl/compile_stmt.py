"""Compiles statements: runs that cannot wait for a move become one generated Python function.

A statement is *straight* when it can neither wait for a player's decision nor transfer
control (choose, turn, end, and anything containing them cannot). Consecutive straight
statements, loops and ifs included, are emitted as the source of one Python function, so
the engine's frame machinery is only used where the game may pause.
"""
from __future__ import annotations

from . import model as m
from . import ops
from . import types as T
from .errors import Span

_WAITS = (m.Choose, m.Turn, m.End, m.Race)
STEP_LIMIT = ops.STEP_LIMIT


class StatementCompiler:
    """Mixin of the Compiler: statement blocks to ops."""

    def unit(self, block: m.FlowBlock | None):
        """A top-level block (setup, round, outcome) and the number of local slots it needs."""
        if block is None:
            return (), 0
        scope = self.new_scope()
        code = self.block(block.body, scope)
        return code, scope.slots["n"]

    def straight(self, st: m.Stmt) -> bool:
        """Whether a statement can run to its end without waiting or jumping."""
        if isinstance(st, _WAITS):
            return False
        if isinstance(st, (m.Move, m.MoveN, m.Deal)) and self.has_move_triggers:
            return False  # a move may fire triggers that must run at once, before the next statement
        if isinstance(st, m.If):
            return all(self.straight(x) for _, b in st.branches for x in b) and all(
                self.straight(x) for x in (st.otherwise or ()))
        if isinstance(st, (m.Repeat, m.While, m.ForEach)):
            return all(self.straight(x) for x in st.body)
        if isinstance(st, m.CallSteps):
            d = self.steps_info.get(st.func)
            if d is None or st.func in self.expanding:
                return True  # reported when it is compiled
            self.expanding.add(st.func)
            try:
                return all(self.straight(x) for x in d.body)
            finally:
                self.expanding.discard(st.func)
        return True

    def block(self, stmts: tuple, scope) -> tuple:
        """The ops of a block: runs of straight statements merged, others as frame ops."""
        out, run = [], []
        ended = None
        for st in stmts:
            self.where = st.span
            if ended is not None:
                self.error(f"this statement can never run: it follows 'end {ended}'", st.span)
                ended = None
            if self.straight(st):
                run.append(st)
                continue
            if run:
                out.append(self.straight_op(run, scope))
                run = []
            if isinstance(st, m.CallSteps):
                out.extend(self.call_ops(st, scope))
                continue
            fn = getattr(self, "st_" + type(st).__name__.lower())(st, scope)
            if fn is not None:
                out.append(ops.located(fn, st.span))
            if isinstance(st, m.End):
                ended = st.what
        if run:
            out.append(self.straight_op(run, scope))
        return tuple(out)

    def straight_op(self, stmts: list, scope):
        """One generated function for a run of straight statements."""
        lines: list[tuple[str, Span]] = []
        for st in stmts:
            self.gen(st, scope, 1, lines)
        fn = self.source_map.define([("def _f(s, fr):\n    e = fr[2]", stmts[0].span)] + lines, self.ns)
        fn.span = stmts[0].span
        return fn

    def define(self, code: str, span: Span | None = None):
        """Execute generated source that defines `_f`, and return it; its lines map to `span`
        (by default the statement or declaration being compiled) but for marked sub-expressions."""
        return self.source_map.define([(code, span or self.where)], self.ns)

    # ---- straight statements, as Python source lines
    def gen(self, st: m.Stmt, scope, ind: int, lines: list):
        getattr(self, "gen_" + type(st).__name__.lower())(st, scope, ind, lines)

    def emit(self, lines: list, ind: int, text: str, span: Span):
        lines.append(("    " * ind + text, span))

    def emit_step(self, lines: list, ind: int, span: Span):
        """One turn of a loop: counted, so that rules that never ask for a move are stopped."""
        self.emit(lines, ind, "s.steps += 1", span)
        self.emit(lines, ind, f"if s.steps > {STEP_LIMIT}: s.count_step(0, True)", span)

    def gen_body(self, body: tuple, scope, ind: int, lines: list, span: Span):
        before = len(lines)
        for st in body:
            self.gen(st, scope, ind, lines)
        if len(lines) == before:
            self.emit(lines, ind, "pass", span)

    def gen_assign(self, st: m.Assign, scope, ind, lines):
        tcode, ttyp = self.target(st.target, scope)
        # the variable's type tells which attribute a bare value belongs to: `r = 3` for a rank
        code, typ = self.expr(st.value, scope, ttyp if tcode is not None and T.is_value(ttyp) else None)
        if tcode is None:
            return
        if st.op != "=":
            self.want(ttyp, T.NUM, st.target.span)
            self.want(typ, T.NUM, st.value.span)
        else:
            self.want(typ, ttyp, st.value.span)
        self.emit(lines, ind, f"{tcode} {st.op} ({code})", st.span)
        if self.pattern_info:  # pattern answers read variables: they hold until a change
            self.emit(lines, ind, "s.ver += 1", st.span)

    def target(self, t: m.Expr, scope):
        """(python target, type) of an assignment's left side."""
        if isinstance(t, m.Name):
            found = scope.lookup(t.name)
            if found is not None:
                return found
            var = self.var_by_name.get(t.name)
            if var is None:
                if t.name in self.known:
                    self.error(f"'{t.name}' is {self.known[t.name]}; only variables can be assigned", t.span)
                    return None, T.ANY
                self.unknown("variable", t.name, t.span, self.var_by_name)
                return None, T.ANY
            if var.per_player or var.per_card:
                whose, x = ("player", "p") if var.per_player else ("card", "c")
                self.error(f"'{t.name}' belongs to each {whose}: write {x}.{t.name}", t.span)
                return None, T.ANY
            return f"s.v[{var.base}]", var.type
        if isinstance(t, m.Attr):
            ocode, otyp = self.expr(t.obj, scope)
            var = self.var_by_name.get(t.name)
            if var is None or not (var.per_player or var.per_card):
                self.unknown("per-player or per-card variable", t.name, t.name_span,
                             [v.name for v in self.var_list if v.per_player or v.per_card])
                return None, T.ANY
            self.want(otyp, T.CARD if var.per_card else T.PLAYER, t.obj.span)
            return self.source_map.mark(f"s.v[{var.base} + ({ocode})]", t.span), var.type
        self.error("only a variable can be assigned", t.span)
        return None, T.ANY

    def gen_let(self, st: m.Let, scope, ind, lines):
        code, typ = self.expr(st.value, scope)
        slot = scope.local(st.name, typ)
        self.emit(lines, ind, f"{slot} = ({code})", st.span)

    def zone_expr(self, e: m.Expr, scope) -> str:
        code, typ = self.expr(e, scope, T.ZONE)
        self.want(typ, T.ZONE, e.span)
        return code

    def gen_move(self, st: m.Move, scope, ind, lines):
        card, typ = self.expr(st.card, scope)
        self.want(typ, T.CARD, st.card.span)
        dest = self.zone_expr(st.dest, scope)
        self.emit(lines, ind, f"s.move({card}, {dest}, {st.bottom})", st.span)

    def gen_moven(self, st: m.MoveN, scope, ind, lines):
        src = self.zone_expr(st.source, scope)
        dest = self.zone_expr(st.dest, scope)
        if st.count is None:
            self.emit(lines, ind, f"s.move_all({src}, {dest}, {st.bottom})", st.span)
        else:
            n = self.fn_code(st.count, scope, T.NUM)
            self.emit(lines, ind, f"s.move_top({n}, {src}, {dest}, {st.bottom})", st.span)

    def gen_deal(self, st: m.Deal, scope, ind, lines):
        src = self.zone_expr(st.source, scope)
        zone = self.zone_by_name.get(st.zone)
        if zone is None:
            self.unknown("zone", st.zone, st.zone_span, self.zone_by_name)
            return
        if not zone.per_player:
            self.error(f"'deal' gives cards to each player, but zone '{st.zone}' is shared", st.zone_span,
                       f"use 'move N from ... to {st.zone}'")
            return
        n = self.fn_code(st.count, scope, T.NUM)
        start = self.fn_code(st.start, scope, T.PLAYER) if st.start is not None else "0"
        self.emit(lines, ind, f"s.deal({n}, {src}, {zone.base}, {start})", st.span)

    def gen_shuffle(self, st: m.Shuffle, scope, ind, lines):
        self.emit(lines, ind, f"s.shuffle({self.zone_expr(st.zone, scope)})", st.span)

    def gen_gather(self, st: m.Gather, scope, ind, lines):
        self.emit(lines, ind, f"s.gather({self.zone_expr(st.zone, scope)})", st.span)

    def gen_if(self, st: m.If, scope, ind, lines):
        for k, (cond, body) in enumerate(st.branches):
            code = self.fn_code(cond, scope, T.BOOL)
            self.emit(lines, ind, f"{'if' if k == 0 else 'elif'} {code}:", cond.span)
            self.gen_body(body, scope, ind + 1, lines, st.span)
        if st.otherwise is not None:
            self.emit(lines, ind, "else:", st.span)
            self.gen_body(st.otherwise, scope, ind + 1, lines, st.span)

    def gen_repeat(self, st: m.Repeat, scope, ind, lines):
        n = self.fn_code(st.count, scope, T.NUM)
        self.emit(lines, ind, f"for _ in range(_repeat_count({n})):", st.count.span)
        self.emit_step(lines, ind + 1, st.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def gen_while(self, st: m.While, scope, ind, lines):
        cond = self.fn_code(st.cond, scope, T.BOOL)
        self.emit(lines, ind, f"while {cond}:", st.cond.span)
        self.emit_step(lines, ind + 1, st.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def gen_foreach(self, st: m.ForEach, scope, ind, lines):
        domain, slot, start = self.loop_parts(st, scope)
        if start is not None:
            domain = f"_rotate(tuple({domain}), {start})"
        self.emit(lines, ind, f"for {slot} in tuple({domain}):", st.domain.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def loop_parts(self, st: m.ForEach, scope):
        """(domain code, loop variable slot, start code or None) of a for-each loop."""
        dcode, dtyp = self.expr(st.domain, scope)
        if dtyp == T.ZONE:
            dcode, elem = f"s.z[{dcode}]", T.CARD
        else:
            elem = self.elem_type(dtyp, st.domain.span)
        slot = scope.local(st.var, elem)
        start = None
        if st.start is not None:
            start = self.fn_code(st.start, scope, T.PLAYER)
            if elem != T.PLAYER:
                self.error("'starting at' needs a loop over players", st.start.span)
        return dcode, slot, start

    def gen_result(self, st: m.Result, scope, ind, lines):
        p = self.fn_code(st.player, scope, T.PLAYER)
        self.emit(lines, ind, f"s.results[{p}] = {st.kind!r}", st.span)

    def gen_places(self, st: m.Places, scope, ind, lines):
        dcode, dtyp = self.expr(st.domain, scope)
        if self.elem_type(dtyp, st.domain.span) != T.PLAYER:
            self.error("places are given to players", st.domain.span)
        inner = scope.child()
        var = inner.bind(st.var, T.PLAYER)
        key = self.fn_code(st.key, inner, T.NUM)
        self.emit(lines, ind, f"s.set_places(tuple({dcode}), lambda {var}: ({key}), {st.descending})", st.span)

    def gen_say(self, st: m.Say, scope, ind, lines):
        self.emit(lines, ind, f"s.say({st.text!r})", st.span)

    def gen_eliminate(self, st: m.Eliminate, scope, ind, lines):
        self.emit(lines, ind, f"s.eliminate({self.fn_code(st.player, scope, T.PLAYER)})", st.span)

    def gen_reveal(self, st: m.Reveal, scope, ind, lines):
        card = self.fn_code(st.card, scope, T.CARD)
        to = self.fn_code(st.to, scope, T.PLAYER) if st.to is not None else "None"
        self.emit(lines, ind, f"s.reveal({card}, {to})", st.span)

    # ---- steps: a def with a block, run in place where it is called
    def steps_call(self, st: m.CallSteps, scope):
        """(the def, its scope with the arguments bound, the binding lines) or None after an error."""
        d = self.steps_info.get(st.func)
        if d is None:
            if st.func in self.def_info:
                self.error(f"'{st.func}' is a function with a value ('def {st.func}(...) = ...'); "
                           "use it in an expression", st.span)
            else:
                self.unknown("steps (a 'def' with a block)", st.func, st.span, self.steps_info)
            return None
        if st.func in self.expanding:
            self.error(f"'{st.func}' calls itself", st.span, "steps cannot repeat themselves; use 'while' or 'repeat'")
            return None
        if len(st.args) != len(d.params):
            self.error(f"'{st.func}' takes {len(d.params)} argument(s), given {len(st.args)}", st.span)
            return None
        self.used_steps.add(st.func)
        inner = type(scope)(None, scope.slots)  # the caller's slots, but none of its names
        binds = []
        for name, arg in zip(d.params, st.args):
            code, typ = self.expr(arg, scope)
            binds.append((f"{inner.local(name, typ)} = ({code})", arg.span))
        return d, inner, binds

    def gen_callsteps(self, st: m.CallSteps, scope, ind, lines):
        found = self.steps_call(st, scope)
        if found is None:
            return
        d, inner, binds = found
        for text, span in binds:
            self.emit(lines, ind, text, span)
        self.expanding.add(st.func)
        try:
            self.gen_body(d.body, inner, ind, lines, st.span)
        finally:
            self.expanding.discard(st.func)

    def call_ops(self, st: m.CallSteps, scope) -> list:
        """The ops of steps that may wait: the arguments bound, then the body's own ops, in this frame."""
        found = self.steps_call(st, scope)
        if found is None:
            return []
        d, inner, binds = found
        out = []
        if binds:
            fn = self.source_map.define([("def _f(s, fr):\n    e = fr[2]", st.span)]
                                        + [(f"    {t}", span) for t, span in binds], self.ns)
            out.append(ops.located(fn, st.span))
        self.expanding.add(st.func)
        try:
            out.extend(self.block(d.body, inner))
        finally:
            self.expanding.discard(st.func)
        return out

    # ---- statements that may wait: frame ops
    def st_move(self, st, scope):
        """A move in a game with move triggers: its own op, so the triggers run right after it."""
        return self.straight_op([st], scope)

    st_moven = st_deal = st_move

    def st_if(self, st: m.If, scope):
        branches = [(self.fn(c, scope, T.BOOL), self.block(b, scope)) for c, b in st.branches]
        other = self.block(st.otherwise, scope) if st.otherwise is not None else None
        return ops.if_op(branches, other)

    def loop_body(self, st, scope) -> tuple:
        """The ops of a loop's body, remembered as the loop's (to name it if it never ends)."""
        body = self.block(st.body, scope)
        self.block_spans[body] = (st.span, "loop")
        return body

    def st_repeat(self, st: m.Repeat, scope):
        return ops.repeat_op(self.fn(st.count, scope, T.NUM), self.loop_body(st, scope))

    def st_while(self, st: m.While, scope):
        return ops.while_op(self.fn(st.cond, scope, T.BOOL), self.loop_body(st, scope))

    def st_foreach(self, st: m.ForEach, scope):
        dcode, slot, start = self.loop_parts(st, scope)
        domain = self.source_map.function(f"tuple({dcode})", st.domain.span, self.ns)
        start_fn = self.source_map.function(start, st.start.span, self.ns) if start is not None else None
        return ops.for_op(domain, int(slot[2:-1]), start_fn, self.loop_body(st, scope))

    def elem_type(self, dtyp: str, span: Span) -> str:
        if dtyp == "players":
            return T.PLAYER
        elem = T.element(dtyp)
        if elem is None:
            self.error(f"expected cards, players or a list here, found {T.describe(dtyp)}", span)
            return T.ANY
        return elem

    def st_turn(self, st: m.Turn, scope):
        player = self.fn(st.player, scope, T.PLAYER)
        return ops.turn_op(player, self.block(st.body, scope))

    def offered_actions(self, st) -> tuple:
        """The actions a choose or race names (each now offered somewhere)."""
        if self.in_outcome:
            self.error("the outcome cannot ask for a move", st.span)
        acts = []
        for name, span in st.actions:
            act = self.action_by_name.get(name)
            if act is None:
                self.unknown("action", name, span, self.action_by_name)
                continue
            self.offered.add(name)
            acts.append(act)
        return tuple(acts)

    def st_choose(self, st: m.Choose, scope):
        acts = self.offered_actions(st)
        by = self.fn(st.by, scope, T.PLAYER) if st.by is not None else None
        return ops.choose_op(acts, by)

    def st_race(self, st: m.Race, scope):
        """Every listed player answers at once with one of the actions; the answers run fastest first."""
        acts = self.offered_actions(st)
        code, typ = self.expr(st.players, scope)
        if typ != "players" and self.elem_type(typ, st.players.span) != T.PLAYER:
            self.error("'race ... among' needs players", st.players.span)
        players = self.source_map.function(f"tuple({code})", st.players.span, self.ns)
        return ops.race_op(acts, players)

    def st_end(self, st: m.End, scope):
        return ops.end_op(st.what)
