"""Statements that never wait, as Python source lines: the straight-line parts of every rule.

A mixin of the FlowCompiler (flow.py), which lowers the statements that may wait. A statement is
*straight* when it can neither wait for a player's decision nor transfer control (choose, turn,
race, end, and anything containing them cannot; in a game with move triggers, neither can a
move, whose triggers must run before the next statement).

Every statement goes through `gen` here or `FlowCompiler.lower`, once: in a coverage build each
puts the statement's marker (`ran`) before the statement's own code. Steps are inlined where they
are called; `via` is the chain of calls being inlined, which every line emitted inside remembers.
"""
from __future__ import annotations

import attrs

from ..errors import Span
from . import model as m
from . import types as T
from .codegen import SAME
from .program import STEP_LIMIT, Message

_WAITS = (m.Choose, m.Turn, m.End, m.Race)


def rotated(domain: str, start: str) -> str:
    """The code of `domain` in turn order from `start`: a rotation met before is read from a table
    of the runtime, in place (no call)."""
    return f"(_RT[_rk] if (_rk := (tuple({domain}), {start})) in _RT else _rotate_kept(_rk))"


class Straight:
    """gen_* methods: each appends a statement's Python lines to a list, at an indentation."""

    def straight(self, st: m.Stmt) -> bool:
        """Whether a statement can run to its end without waiting or jumping."""
        if isinstance(st, _WAITS):
            return False
        if isinstance(st, (m.Move, m.MoveN, m.Deal)) and self.c.has_move_triggers:
            return False  # a move may fire triggers that must run at once, before the next statement
        if isinstance(st, m.If):
            return all(self.straight(x) for _, b in st.branches for x in b) and all(
                self.straight(x) for x in (st.otherwise or ()))
        if isinstance(st, (m.Repeat, m.While, m.ForEach)):
            return all(self.straight(x) for x in st.body)
        if isinstance(st, m.CallSteps):
            d = self.c.steps_info.get(st.func)
            if d is None or st.func in self.expanding:
                return True  # reported when it is compiled
            self.expanding.add(st.func)
            try:
                return all(self.straight(x) for x in d.body)
            finally:
                self.expanding.discard(st.func)
        return True

    def gen(self, st: m.Stmt, scope, ind: int, lines: list):
        """A statement's lines, after its coverage marker."""
        self.ran(lines, ind, st.span)
        self.statement_code(st, scope, ind, lines)

    def statement_code(self, st: m.Stmt, scope, ind: int, lines: list):
        """A statement's own lines, without a marker (the caller puts it)."""
        getattr(self, "gen_" + type(st).__name__.lower())(st, scope, ind, lines)

    def ran(self, lines: list, ind: int, span: Span):
        """In a coverage build: the line that records that what `span` names (a statement, a
        trigger, steps) starts to run. Nothing in a normal build."""
        if self.c.module.coverage:
            self.emit(lines, ind, f"_C[{self.c.module.marker(span)}] = 1", span)

    def emit(self, lines: list, ind: int, text: str, span: Span):
        line = ("    " * ind + text, span)
        lines.append(line + (SAME, self.via) if self.via else line)

    def emit_block(self, lines: list, ind: int, block: str, span: Span):
        """Several lines, each a level deeper for every four spaces it is indented in `block`."""
        for text in block.strip("\n").splitlines():
            code = text.lstrip(" ")
            self.emit(lines, ind + (len(text) - len(code)) // 4, code, span)

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
        code, typ = self.x.expr(st.value, scope, ttyp if tcode is not None and T.is_value(ttyp) else None)
        if tcode is None:
            return
        if st.op != "=" or ttyp == T.NUM:  # a value of numbers counts as its number: `me.pts += c.rank`
            code, typ = self.x.numeric(code, typ, st.value.span)
        if st.op != "=":
            self.x.want(ttyp, T.NUM, st.target.span)
            self.x.want(typ, T.NUM, st.value.span)
        else:
            self.x.want(typ, ttyp, st.value.span)
        var = self.c.var_by_name.get(st.target.name) if isinstance(st.target, m.Attr) else None
        if var is not None and var.per_team:  # every player of the team: the value worked out once
            self.emit(lines, ind, f"_tp = {self.x.expr(st.target.obj, scope)[0]}", st.span)
            new = f"({code})" if st.op == "=" else f"s.v[{var.base} + _tp] {st.op[0]} ({code})"
            self.emit(lines, ind, f"_tv = {new}", st.span)
            self.emit(lines, ind, f"for _tq in range(_tp % {self.c.teams}, s.np, {self.c.teams}): "
                                  f"s.v[{var.base} + _tq] = _tv", st.span)
        else:
            self.emit(lines, ind, f"{tcode} {st.op} ({code})", st.span)
        item = self.c.watch_item(st.target)
        if item is not None:  # the rules that change rules read it: their answers change
            self.emit(lines, ind, f"s.ver = s.wv[{item}] = _next_version()", st.span)

    def target(self, t: m.Expr, scope):
        """(python target, type) of an assignment's left side."""
        if isinstance(t, m.Name):
            found = scope.lookup(t.name)
            if found is not None:
                return found
            var = self.c.var_by_name.get(t.name)
            if var is None:
                if t.name in self.c.known:
                    self.c.error(f"'{t.name}' is {self.c.known[t.name]}; only variables can be assigned", t.span)
                    return None, T.ANY
                self.c.unknown("variable", t.name, t.span, self.c.var_by_name)
                return None, T.ANY
            if var.per_player or var.per_card:
                whose, x = ("player", "p") if var.per_player else ("card", "c")
                self.c.error(f"'{t.name}' belongs to each {whose}: write {x}.{t.name}", t.span)
                return None, T.ANY
            return f"s.v[{var.base}]", var.type
        if isinstance(t, m.Attr):
            ocode, otyp = self.x.expr(t.obj, scope)
            var = self.c.var_by_name.get(t.name)
            if var is None or not (var.per_player or var.per_card):
                self.c.unknown("per-player or per-card variable", t.name, t.name_span,
                             [v.name for v in self.c.var_list if v.per_player or v.per_card])
                return None, T.ANY
            self.x.want(otyp, T.CARD if var.per_card else T.PLAYER, t.obj.span)
            return self.c.module.mark(f"s.v[{var.base} + ({ocode})]", t.span), var.type
        self.c.error("only a variable can be assigned", t.span)
        return None, T.ANY

    def gen_let(self, st: m.Let, scope, ind, lines):
        if self.gen_let_best(st, scope, ind, lines):
            return
        code, typ = self.x.expr(st.value, scope)
        slot = scope.local(st.name, typ)
        self.emit(lines, ind, f"{slot} = ({code})", st.span)

    def moves_simply(self) -> bool:
        """Whether a card's move may be written in place (State.move's plain case): no rule that
        changes rules reads a zone, and no trigger follows moves (else every move calls State.move;
        with `simulate --track`, `s.simple` is false at run time and the inline code calls it too)."""
        return not self.c.watch_zones and not self.c.has_move_triggers

    def gen_let_best(self, st: m.Let, scope, ind, lines) -> bool:
        """`let x = best(p in D by K [if C])` (or `worst`) as a loop keeping the first best element:
        no key function called per element, no list. It compares keys with > (worst: <), as max
        (min) does, so the answer and any error are the same. False: not such a let."""
        e = st.value
        if not (isinstance(e, m.Call) and e.func in ("best", "worst") and not e.for_var):
            return False
        if e.span.line:
            self.c.where = e.span
        parts = self.x.keyed(e, scope, f"{e.func}(p in players by p.score)")
        if parts is None:  # said why
            self.emit(lines, ind, f"{scope.local(st.name, T.ANY)} = None", st.span)
            return True
        var, dcode, key, cond, elem = parts
        op = ">" if e.func == "best" else "<"
        self.emit(lines, ind, f"_bf, _bb = False, {'None' if elem == T.PLAYER else '-1'}", st.span)
        self.emit(lines, ind, f"for {var} in {dcode}:", st.span)
        if cond:
            self.emit(lines, ind + 1, f"if not ({cond[4:]}):", st.span)
            self.emit(lines, ind + 2, "continue", st.span)
        self.emit(lines, ind + 1, f"_bk = ({key})", st.span)
        self.emit(lines, ind + 1, f"if not _bf or _bk {op} _bv:", st.span)
        self.emit(lines, ind + 2, f"_bf, _bb, _bv = True, {var}, _bk", st.span)
        self.emit(lines, ind, f"{scope.local(st.name, elem)} = _bb", st.span)
        return True

    def zone_expr(self, e: m.Expr, scope) -> str:
        code, typ = self.x.expr(e, scope, T.ZONE)
        self.x.want(typ, T.ZONE, e.span)
        return code

    def gen_move(self, st: m.Move, scope, ind, lines):
        card, typ = self.x.expr(st.card, scope)
        self.x.want(typ, T.CARD, st.card.span)
        dest = self.zone_expr(st.dest, scope)
        if st.bottom or not self.moves_simply():
            self.emit(lines, ind, f"s.move({card}, {dest}, {st.bottom})", st.span)
            return
        # State.move, inlined where nothing else must happen (no rule reads the zones, nobody knows the card)
        self.emit(lines, ind, f"_mc = {card}", st.span)
        self.emit(lines, ind, f"_md = {dest}", st.span)
        self.emit_block(lines, ind, """
if s.simple and not s.told and _mc is not None and _mc >= 0 and _mc not in s.known:
    _ml = s.z[s.loc[_mc]]
    if _ml[-1] == _mc:
        del _ml[-1]
    else:
        _ml.remove(_mc)
    s.z[_md].append(_mc)
    s.loc[_mc] = _md
else:
    s.move(_mc, _md, False)
""", st.span)

    def gen_moven(self, st: m.MoveN, scope, ind, lines):
        src = self.zone_expr(st.source, scope)
        dest = self.zone_expr(st.dest, scope)
        if st.count is None and (st.bottom or not self.moves_simply()):
            self.emit(lines, ind, f"s.move_all({src}, {dest}, {st.bottom})", st.span)
        elif st.count is None:  # State.move_all, inlined where nothing else must happen
            self.emit(lines, ind, f"_ms = {src}", st.span)
            self.emit(lines, ind, f"_md = {dest}", st.span)
            self.emit_block(lines, ind, """
if s.simple and not (s.known or s.told) and _ms != _md:
    _ml = s.z[_ms]
    for _mc in _ml:
        s.loc[_mc] = _md
    s.z[_md] += _ml
    del _ml[:]
else:
    s.move_all(_ms, _md, False)
""", st.span)
        else:
            n = self.x.fn_code(st.count, scope, T.NUM)
            self.emit(lines, ind, f"s.move_top({n}, {src}, {dest}, {st.bottom})", st.span)

    def gen_deal(self, st: m.Deal, scope, ind, lines):
        src = self.zone_expr(st.source, scope)
        zone = self.c.zone_by_name.get(st.zone)
        if zone is None:
            self.c.unknown("zone", st.zone, st.zone_span, self.c.zone_by_name)
            return
        if not zone.per_player:
            self.c.error(f"'deal' gives cards to each player, but zone '{st.zone}' is shared", st.zone_span,
                       f"use 'move N from ... to {st.zone}'")
            return
        n = self.x.fn_code(st.count, scope, T.NUM)
        start = self.x.fn_code(st.start, scope, T.PLAYER) if st.start is not None else "0"
        self.emit(lines, ind, f"s.deal({n}, {src}, {zone.base}, {start})", st.span)

    def gen_shuffle(self, st: m.Shuffle, scope, ind, lines):
        self.emit(lines, ind, f"s.shuffle({self.zone_expr(st.zone, scope)})", st.span)

    def gen_gather(self, st: m.Gather, scope, ind, lines):
        self.emit(lines, ind, f"s.gather({self.zone_expr(st.zone, scope)})", st.span)

    def gen_if(self, st: m.If, scope, ind, lines):
        for k, (cond, body) in enumerate(st.branches):
            code = self.x.fn_code(cond, scope, T.BOOL)
            self.emit(lines, ind, f"{'if' if k == 0 else 'elif'} {code}:", cond.span)
            self.gen_body(body, scope, ind + 1, lines, st.span)
        if st.otherwise is not None:
            self.emit(lines, ind, "else:", st.span)
            self.gen_body(st.otherwise, scope, ind + 1, lines, st.span)

    def gen_repeat(self, st: m.Repeat, scope, ind, lines):
        n = self.x.fn_code(st.count, scope, T.NUM)
        self.emit(lines, ind, f"for _ in range(_repeat_count({n})):", st.count.span)
        self.emit_step(lines, ind + 1, st.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def gen_while(self, st: m.While, scope, ind, lines):
        cond = self.x.fn_code(st.cond, scope, T.BOOL)
        self.emit(lines, ind, f"while {cond}:", st.cond.span)
        self.emit_step(lines, ind + 1, st.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def gen_foreach(self, st: m.ForEach, scope, ind, lines):
        domain, slot, start = self.loop_parts(st, scope)
        if start is not None:
            domain = rotated(domain, start)
        self.emit(lines, ind, f"for {slot} in tuple({domain}):", st.domain.span)
        self.gen_body(st.body, scope, ind + 1, lines, st.span)

    def loop_parts(self, st: m.ForEach, scope):
        """(domain code, loop variable slot, start code or None) of a for-each loop."""
        dcode, dtyp = self.x.expr(st.domain, scope)
        if dtyp == T.ZONE:
            dcode, elem = f"s.z[{dcode}]", T.CARD
        else:
            elem = self.x.elem_type(dtyp, st.domain.span)
        slot = scope.local(st.var, elem)
        start = None
        if st.start is not None:
            start = self.x.fn_code(st.start, scope, T.PLAYER)
            if elem != T.PLAYER:
                self.c.error("'starting at' needs a loop over players", st.start.span)
        return dcode, slot, start

    def gen_result(self, st: m.Result, scope, ind, lines):
        p = self.x.fn_code(st.player, scope, T.PLAYER)
        if self.c.teams:  # a team wins, loses or is graded as one: every player of P's team
            self.emit(lines, ind, f"for _tq in range(({p}) % {self.c.teams}, s.np, {self.c.teams}):", st.span)
            ind, p = ind + 1, "_tq"
        if st.kind == "grade":
            score = self.x.fn_code(st.score, scope, T.NUM)
            out_of = self.x.fn_code(st.out_of, scope, T.NUM)
            self.emit(lines, ind, f"s.grade({p}, {score}, {out_of})", st.span)
            return
        self.emit(lines, ind, f"s.results[{p}] = {st.kind!r}", st.span)

    def gen_places(self, st: m.Places, scope, ind, lines):
        dcode, dtyp = self.x.expr(st.domain, scope)
        if self.x.elem_type(dtyp, st.domain.span) != T.PLAYER:
            self.c.error("places are given to players", st.domain.span)
        inner = scope.child()
        var = inner.bind(st.var, T.PLAYER)
        key = self.x.fn_code(st.key, inner, T.NUM)
        if st.then:  # ties broken by the later keys: a tuple compares key by key
            key = ", ".join([key] + [self.x.fn_code(e, inner, T.NUM) for e in st.then]) + ","
        self.emit(lines, ind, f"s.set_places(tuple({dcode}), lambda {var}: ({key}), {st.descending})", st.span)

    def gen_say(self, st: m.Say, scope, ind, lines):
        """`say "text {EXPR} text"`: the values are worked out now, and the engine keeps them with
        the message's number (Message, program.py); each seat reads them as it may (Game.said)."""
        parts, codes = [], []
        for part in st.parts:
            if isinstance(part, str):
                parts.append(("text", part))
                continue
            code, typ = self.x.expr(part, scope)
            self.sayable(part, typ)
            random = self.draws_random(part, set())
            if random is not None:
                self.c.error("a message cannot draw at random: saying it would change what happens next",
                             random.span, "draw first, 'let x = random(...)', and say {x}")
            parts.append(("value", typ))
            codes.append(code)
        table = self.unit is not None and self.unit.table and not self.unit.turn_ends
        k = self.c.message(Message(st.text, tuple(parts), table, st.span))
        values = f"({', '.join(codes)},)" if codes else "()"
        said = f"s.game.sayers[{k}](s, {values})"
        if st.to is not None:  # said to one player: the others do not read it (view.Said.to)
            said = f"_said_to({said}, {self.x.fn_code(st.to, scope, T.PLAYER)})"
        # quiet: a bot's trial; State.say, inlined
        self.emit(lines, ind, f"if not s.quiet: s.log.append((s.moves, s.me, {said}, s.round))", st.span)

    def sayable(self, e: m.Expr, typ: str):
        """A value a message can say: a number, yes/no, a player, a card, an attribute's value, or a
        list of them. A zone is not a value: its count is."""
        elem = typ.removeprefix("list:")
        if typ == T.ZONE:
            self.c.error("a message cannot say a zone", e.span,
                         f"say how many cards it holds: {{count({self.c.source_of(e.span)})}}")
        elif not (elem in (T.NUM, T.BOOL, T.PLAYER, T.CARD, T.ANY, "players") or T.is_value(elem)):
            self.c.error(f"a message cannot say {T.describe(typ)}", e.span,
                         "it says numbers, yes/no, players, cards, attribute values and lists of them")

    def draws_random(self, e, seen: set):
        """The call of `random` an expression makes, directly or through the functions it calls, or None."""
        for node in m.walk(e):
            if isinstance(node, m.Call):
                if node.func == "random":
                    return node
                d = self.c.def_info.get(node.func)
                if d is not None and node.func not in seen:
                    seen.add(node.func)
                    if self.draws_random(d.body, seen) is not None:
                        return node
        return None

    def gen_eliminate(self, st: m.Eliminate, scope, ind, lines):
        self.emit(lines, ind, f"s.eliminate({self.x.fn_code(st.player, scope, T.PLAYER)})", st.span)

    def gen_reveal(self, st: m.Reveal, scope, ind, lines):
        """`reveal c` shows a card where it lies; `reveal p.hand` every card of a zone, `reveal hand`
        of every player's; `reveal c.ATTR [== v]` tells part of a card. Any other value (`reveal c in
        q.hand`, `reveal p.bid`) is told as the lines after it say it: it changes nothing in the game,
        and the secrecy check (secrecy.py) lets those lines say it."""
        to = self.x.fn_code(st.to, scope, T.PLAYER) if st.to is not None else "None"
        e = st.card
        zone = self.c.zone_by_name.get(e.name) if isinstance(e, m.Name) and scope.lookup(e.name) is None else None
        if zone is not None and zone.per_player:  # every player's zone of that name
            self.emit(lines, ind, f"s.reveal_zones({zone.base}, {to})", st.span)
            return
        fact = self.x.attr_fact(e, scope, "reveal")
        if fact is not None:  # `reveal c.ATTR`, `reveal c.ATTR == v`: part of what the card is
            card, attr, value, _ = fact
            self.emit(lines, ind, f"s.tell({card}, {attr}, {value}, {to})", st.span)
            return
        code, typ = self.x.expr(e, scope)
        if typ == T.ZONE:
            self.emit(lines, ind, f"s.reveal_zone({code}, {to})", st.span)
        elif typ in (T.CARD, T.ANY):
            self.emit(lines, ind, f"s.reveal({code}, {to})", st.span)
        else:  # a fact told: the lines that follow say it; kept, so a world that told another is told apart
            self.emit(lines, ind, f"s.facts.append(({code}, {to}))", st.span)

    # ---- steps: a def with a block, run in place where it is called
    def steps_call(self, st: m.CallSteps, scope):
        """(the def, its scope with the arguments bound, the binding lines) or None after an error."""
        d = self.c.steps_info.get(st.func)
        if d is None:
            if st.func in self.c.def_info:
                self.c.error(f"'{st.func}' is a function with a value ('def {st.func}(...) = ...'); "
                           "use it in an expression", st.span)
            else:
                self.c.unknown("steps (a 'def' with a block)", st.func, st.span, self.c.steps_info)
            return None
        if st.func in self.expanding:
            self.c.error(f"'{st.func}' calls itself", st.span, "steps cannot repeat themselves; use 'while' or 'repeat'")
            return None
        if len(st.args) != len(d.params):
            self.c.error(f"'{st.func}' takes {len(d.params)} argument(s), given {len(st.args)}", st.span)
            return None
        self.used_steps.add(st.func)
        inner = type(scope)(None, scope.slots)  # the caller's slots, but none of its names
        args = [self.x.expr(arg, scope) for arg in st.args]
        wrong = self.x.kinds_given(d, st.args, args)  # (the body then reads the kind it asks for: one error)
        binds = [(f"{inner.local(name, wrong.get(k, typ))} = ({code})", arg.span)
                 for k, (name, arg, (code, typ)) in enumerate(zip(d.params, st.args, args))]
        return d, inner, binds

    def gen_callsteps(self, st: m.CallSteps, scope, ind, lines):
        found = self.steps_call(st, scope)
        if found is None:
            return
        d, inner, binds = found
        for text, span in binds:  # at the call: an argument's error is the caller's
            self.emit(lines, ind, text, span)
        outer = self.inlining(st)
        before = len(self.c.diags)
        try:
            self.ran(lines, ind, d.span)
            self.gen_body(d.body, inner, ind, lines, st.span)
        finally:
            self.expanding.discard(st.func)
            self.via = outer
        self.blame_arguments(st, d, before)

    def blame_arguments(self, st: m.CallSteps, d, before: int):
        """An error in the steps' body found at an argument's name (`move all from z to pile` with
        `z` a number) comes from what the call passes: its hint says which call and argument."""
        at = {n.span: n.name for n in m.walk(d.body) if isinstance(n, m.Name) and n.name in d.params}
        diags = self.c.diags
        for i in range(before, len(diags)):
            name = at.get(diags[i].span)
            if name is not None and diags[i].hint is None:
                arg = st.args[d.params.index(name)]
                diags[i] = attrs.evolve(diags[i], hint=f"'{name}' is '{self.c.source_of(arg.span)}' here, as "
                                        f"the call at line {st.span.line}, column {st.span.column} gives it: "
                                        f"{self.c.source_of(st.span)}")

    def inlining(self, st: m.CallSteps) -> tuple:
        """Start inlining the steps `st` calls: the lines from here on remember the call. Returns
        the chain of calls before it, to restore when done."""
        self.expanding.add(st.func)
        outer, self.via = self.via, (*self.via, (st.func, st.span))
        return outer

