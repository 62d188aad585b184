"""Statements that may wait, lowered into blocks: each rule that can pause becomes a few Python
functions of the module, and a game in progress is a stack of frames pointing at them.

A *unit* is a block of rules that runs as one frame: setup, a round, the outcome, the body of
an action or a trigger. Its code is cut wherever it may wait (a `choose`, a `race`, a turn's
triggers, the triggers a move sets off): each piece is a *block*, a function
`block(s, fr) -> next block or None`. A block returns the next block to jump to (a loop's
head, the rest after an `if`), or, to wait, stores the block to resume in its frame
(`fr[0]`) and returns None. A frame is a list `[block, locals, turn ends, exit, exit data]`:
the block to run, the unit's local variables, the turns it is inside (the block that ends
each), and what to do when the unit is done (engine/flow.py). Straight code between the
waits, loops and ifs included, stays ordinary Python (straight.py).
"""
from __future__ import annotations

from ..errors import Span
from . import model as m
from . import types as T
from .blocks import fuse
from .context import Context, Scope
from .straight import STEP_LIMIT, Straight, rotated

DONE = "(done)"  # the move that stops a repeated choice (actions.py makes it)


class Out:
    """Where code goes now: a block (a list of lines), at an indentation; closed once it returned."""

    __slots__ = ("name", "lines", "ind", "closed")

    def __init__(self, name: str, lines: list, ind: int = 1):
        self.name, self.lines, self.ind, self.closed = name, lines, ind, False


class UnitCode:
    """The blocks of one unit being compiled, and what its `end turn` statements may jump to."""

    def __init__(self, prefix: str, kind: str, span: Span, table: bool = False):
        self.prefix, self.kind, self.span = prefix, kind, span
        self.table = table  # no player acts here, outside a turn: what is said is the table's
        self.blocks: dict[str, list] = {}
        self.turn_ends: list[str] = []  # the block ending each turn the code is inside, innermost last
        # the loops the code is inside, innermost last; a round or a trigger is a loop of its own
        self.loops: list = [(span, kind)] if kind in ("round", "trigger") else [None]


class FlowCompiler(Straight):
    """Lowers units (flow blocks, action and trigger bodies) into blocks of the module."""

    def __init__(self, c: Context, x):
        self.c, self.x = c, x
        self.expanding: set[str] = set()  # steps being expanded (a step calling itself is an error)
        self.used_steps: set[str] = set()
        self.act_sets: dict[tuple, str] = {}  # the actions a choose or race offers -> a module name
        self.act_names: dict[str, tuple] = {}  # and back
        self.unit: UnitCode | None = None
        self.via: tuple = ()  # the steps calls being inlined, outermost first: ((name, call span), ...)

    # ---- units
    def compile_unit(self, body: tuple, scope: Scope, prefix: str, kind: str, span: Span,
                     table: bool = False) -> str:
        """Compile a unit's statements into blocks of the module; returns its first block's name.
        `table`: no player acts in it (outside its turns), so its messages are the table's."""
        outer, self.unit = self.unit, UnitCode(prefix, kind, span, table)
        try:
            out = self.new_block()
            entry = out.name
            if kind == "trigger":  # a trigger fired when its body starts, even an empty one
                self.ran(out.lines, out.ind, span)
            out = self.lower(body, scope, out)
            if not out.closed:
                self.done(out, span)
            blocks, entry = fuse(self.unit.blocks, entry, set())
            for name, lines in blocks.items():
                self.c.module.function(name, "s, fr", [("    e = fr[1]", span, self.unit.loops[0])] + lines, span)
            return entry
        finally:
            self.unit = outer

    def compile_straight(self, body: tuple, scope: Scope, name: str, span: Span) -> str:
        """A body that never waits, as one function `name(s, e)` run at once."""
        lines: list = []
        outer, self.unit = self.unit, None  # a move's rules: a player acts
        try:
            for st in body:
                self.c.where = st.span
                self.gen(st, scope, 1, lines)
        finally:
            self.unit = outer
        self.c.module.function(name, "s, e", lines or [("    pass", span)], span)
        return name

    def new_block(self) -> Out:
        name = self.c.module.fresh(self.unit.prefix)
        self.unit.blocks[name] = []
        return Out(name, self.unit.blocks[name])

    def put(self, out: Out, text: str, span: Span, extra: int = 0):
        line = ("    " * (out.ind + extra) + text, span, self.unit.loops[-1])
        out.lines.append(line + (self.via,) if self.via else line)

    def jump(self, out: Out, target: str, span: Span):
        self.put(out, f"return {target}", span)
        out.closed = True

    def done(self, out: Out, span: Span):
        """The unit is over: its frame goes, and what it leaves to do is done (engine: State.done;
        an action's exit is always the same one, done by State.done_move)."""
        self.put(out, "return s.done_move(fr)" if self.unit.kind == "action" else "return s.done(fr)", span)
        out.closed = True

    def wait(self, out: Out, call: str, span: Span) -> Out:
        """`call` may make the game wait (it returns true then): the rest runs in a new block."""
        rest = self.new_block()
        self.put(out, f"if {call}:", span)
        self.put(out, f"fr[0] = {rest.name}", span, 1)
        self.put(out, "return None", span, 1)
        self.jump(out, rest.name, span)
        return rest

    # ---- statements
    def lower(self, stmts: tuple, scope: Scope, out: Out) -> Out:
        """Lower a block of statements, from `out`; returns where the code goes on."""
        ended = None
        for st in stmts:
            self.c.where = st.span
            if ended is not None:
                self.c.error(f"this statement can never run: it follows 'end {ended}'", st.span)
                ended = None
            if out.closed:
                continue
            self.ran(out.lines, out.ind, st.span)
            if self.straight(st):
                self.statement_code(st, scope, out.ind, out.lines)
            else:
                out = getattr(self, "low_" + type(st).__name__.lower())(st, scope, out)
            if isinstance(st, m.End):
                ended = st.what
        return out

    def offered(self, st, done: bool = False) -> str:
        """The actions a choose or race names, as the name of a tuple of the module (linked to actions);
        `done`: and the move that stops a repeated choice, last (offered when another move is)."""
        c = self.c
        if c.in_outcome:
            c.error("the outcome cannot ask for a move", st.span)
        names = []
        for name, span in st.actions:
            if name not in c.action_by_name:
                c.unknown("action", name, span, c.action_by_name)
                continue
            c.offered.add(name)
            names.append(name)
        key = tuple(names) + ((DONE,) if done else ())
        if key not in self.act_sets:
            self.act_sets[key] = f"ACTS_{len(self.act_sets)}"
            self.act_names[self.act_sets[key]] = key
        return self.act_sets[key]

    def low_choose(self, st: m.Choose, scope, out: Out, skipped: str | None = None) -> Out:
        """A decision: the game waits for the player to pick one of the legal moves of the actions
        named; with none legal, it goes on (to `skipped`, when given, else to what follows)."""
        if st.repeated and skipped is None:
            return self.repeated_choose(st, scope, out)
        acts = self.offered(st, done=st.repeated)
        by = self.x.fn_code(st.by, scope, T.PLAYER) if st.by is not None else "s.me"
        kind = self.unit.kind
        if st.by is not None or (self.c.reactions and kind not in ("round", "setup", "action")):
            if skipped is None:
                return self.wait(out, f"s.ask({by}, {acts})", st.span)
            rest = self.new_block()
            self.put(out, f"if s.ask({by}, {acts}):", st.span)
            self.put(out, f"fr[0] = {rest.name}", st.span, 1)
            self.put(out, "return None", st.span, 1)
            self.jump(out, skipped, st.span)
            return rest
        # State.ask, inlined: the legal moves are listed here. A reaction window may come first,
        # unless there are no anytime moves or the player is making a move (an action's body:
        # State.ask's in_move); in the round or the setup no move is being made.
        names = [self.c.action_by_name[n].legal for n in self.act_names[acts]]
        rest = self.new_block()
        if self.c.reactions and kind != "action":
            self.put(out, f"if s._react_first(s.me, ('ask', s.me, {acts})):", st.span)
            self.put(out, f"fr[0] = {rest.name}", st.span, 1)
            self.put(out, "return None", st.span, 1)
        self.put(out, "_o = []", st.span)
        for legal in names:
            self.put(out, f"{legal}(s, _o)", st.span)
        self.put(out, "if _o:", st.span)
        self.put(out, f"s.pending = (s.me, _o, {acts})", st.span, 1)
        self.put(out, "if s.moves >= s.move_limit:", st.span, 1)
        self.put(out, "s.limit_reached()", st.span, 2)
        self.put(out, f"fr[0] = {rest.name}", st.span, 1)
        self.put(out, "return None", st.span, 1)
        self.put(out, "s.skipped()", st.span)
        self.jump(out, skipped or rest.name, st.span)
        return rest

    def repeated_choose(self, st: m.Choose, scope, out: Out) -> Out:
        """`choose up to N of a, b` / `choose any number of a, b`: the decision again and again, with
        a move "done" besides, until N moves are made, "done" is chosen or no move is legal."""
        left, mark = scope.slot("", T.NUM), scope.slot("", T.NUM)
        if st.up_to is not None:
            self.put(out, f"{left} = {self.x.fn_code(st.up_to, scope, T.NUM)}", st.up_to.span)
        head = self.new_block()
        after = self.c.module.fresh(self.unit.prefix)
        self.unit.blocks[after] = []
        self.jump(out, head.name, st.span)
        if st.up_to is not None:
            self.put(head, f"if {left} <= 0:", st.span)
            self.put(head, f"return {after}", st.span, 1)
        self.put(head, f"{mark} = s.moves", st.span)
        rest = self.low_choose(st, scope, head, skipped=after)
        self.put(rest, "if s.stopped or s.moves == " + mark + ":  # done, or nothing was left to choose", st.span)
        self.put(rest, "s.stopped = False", st.span, 1)
        self.put(rest, f"return {after}", st.span, 1)
        if st.up_to is not None:
            self.put(rest, f"{left} -= 1", st.span)
        self.jump(rest, head.name, st.span)
        return Out(after, self.unit.blocks[after])

    def low_race(self, st: m.Race, scope, out: Out) -> Out:
        """Every listed player answers at once with one of the actions, unseen by the others; the
        answers run fastest first (a race) or in the order listed (simultaneous choices)."""
        acts = self.offered(st)
        code, typ = self.x.expr(st.players, scope)
        if typ != "players" and self.x.elem_type(typ, st.players.span) != T.PLAYER:
            self.c.error(f"'{st.kind} ... among' needs players", st.players.span)
        return self.wait(out, f"s.{st.kind}(tuple({code}), {acts})", st.span)

    def low_end(self, st: m.End, scope, out: Out) -> Out:
        if st.what == "game":
            self.put(out, "s.end_game()", st.span)
            self.put(out, "return None", st.span)
            out.closed = True
        elif st.what == "turn" and self.unit.turn_ends:
            self.jump(out, self.unit.turn_ends[-1], st.span)
        elif st.what == "round" and self.unit.kind == "round":
            self.done(out, st.span)  # the round is over: its frame's exit ends it
        else:  # a turn or round of a frame further down the stack (a move that ends the turn)
            self.put(out, f"return s.end_{st.what}()", st.span)
            out.closed = True
        return out

    def low_turn(self, st: m.Turn, scope, out: Out) -> Out:
        """`turn P { body }`: P is `me` (and the player on turn) inside; `end turn` leaves it."""
        saved = scope.slot("", T.ANY)
        player = self.x.fn_code(st.player, scope, T.PLAYER)
        end = self.c.module.fresh(self.unit.prefix)
        self.unit.blocks[end] = []
        self.put(out, f"{saved} = (s.me, s.turn)", st.span)
        self.put(out, f"s.me = s.turn = {player}", st.span)
        if self.c.ends_turns_elsewhere:  # a move may end this turn from its own frame (see State.end_turn)
            self.put(out, f"fr[2].append({end})", st.span)
        if self.c.hooks("turn start"):
            out = self.wait(out, "s.fire('turn start')", st.span)
        self.unit.turn_ends.append(end)
        try:
            out = self.lower(st.body, scope, out)
        finally:
            self.unit.turn_ends.pop()
        if not out.closed:
            self.jump(out, end, st.span)
        out = Out(end, self.unit.blocks[end])
        if self.c.ends_turns_elsewhere:
            self.put(out, "fr[2].pop()", st.span)
        if self.c.hooks("turn end"):
            out = self.wait(out, "s.fire('turn end')", st.span)
        self.put(out, f"s.me, s.turn = {saved}", st.span)
        return out

    def low_if(self, st: m.If, scope, out: Out) -> Out:
        join = self.c.module.fresh(self.unit.prefix)
        self.unit.blocks[join] = []
        for k, (cond, body) in enumerate(st.branches):
            code = self.x.fn_code(cond, scope, T.BOOL)
            self.put(out, f"{'if' if k == 0 else 'elif'} {code}:", cond.span)
            self.branch(body, scope, out, join, st.span)
        if st.otherwise is not None:
            self.put(out, "else:", st.span)
            self.branch(st.otherwise, scope, out, join, st.span)
        else:
            self.jump(out, join, st.span)
        out.closed = True
        return Out(join, self.unit.blocks[join])

    def branch(self, body: tuple, scope, out: Out, join: str, span: Span):
        """One branch of an if, indented under its condition in `out`, then on to the join."""
        inner = Out(out.name, out.lines, out.ind + 1)
        inner = self.lower(body, scope, inner)
        if not inner.closed:
            self.jump(inner, join, span)

    def loop(self, st, scope, out: Out, head_lines, counted: bool = True) -> Out:
        """A loop that may wait: its head (a block) tests and binds, the body runs, then back to the
        head. Each turn of a loop that might never end is counted against the step budget."""
        head = self.new_block()
        after = self.c.module.fresh(self.unit.prefix)
        self.unit.blocks[after] = []
        self.jump(out, head.name, st.span)
        for text, span in head_lines(after):
            self.put(head, text, span)
        if counted:
            self.put(head, "s.steps += 1", st.span)
            self.put(head, f"if s.steps > {STEP_LIMIT}: s.count_step(0, True)", st.span)
        self.unit.loops.append((st.span, "loop"))
        try:
            body = self.lower(st.body, scope, head)
            if not body.closed:
                self.jump(body, head.name, st.span)
        finally:
            self.unit.loops.pop()
        return Out(after, self.unit.blocks[after])

    def low_while(self, st: m.While, scope, out: Out) -> Out:
        cond = self.x.fn_code(st.cond, scope, T.BOOL)
        return self.loop(st, scope, out, lambda after: [(f"if not ({cond}):", st.cond.span),
                                                        (f"    return {after}", st.cond.span)])

    def low_repeat(self, st: m.Repeat, scope, out: Out) -> Out:
        count = scope.slot("", T.NUM)
        n = self.x.fn_code(st.count, scope, T.NUM)
        self.put(out, f"{count} = _repeat_count({n})", st.count.span)
        return self.loop(st, scope, out, lambda after: [(f"if {count} <= 0:", st.span),
                                                        (f"    return {after}", st.span),
                                                        (f"{count} -= 1", st.span)])

    def low_foreach(self, st: m.ForEach, scope, out: Out) -> Out:
        domain, slot, start = self.loop_parts(st, scope)
        items, index, size = scope.slot("", T.ANY), scope.slot("", T.NUM), scope.slot("", T.NUM)
        if start is not None:
            domain = rotated(domain, start)
        self.put(out, f"{items} = tuple({domain})", st.domain.span)
        self.put(out, f"{index} = 0", st.domain.span)
        self.put(out, f"{size} = len({items})", st.domain.span)  # once, not at each turn of the loop
        return self.loop(st, scope, out, lambda after: [(f"if {index} >= {size}:", st.span),
                                                        (f"    return {after}", st.span),
                                                        (f"{slot} = {items}[{index}]", st.span),
                                                        (f"{index} += 1", st.span)],
                         counted=False)  # a for-each ends: its items are fixed when it starts

    def low_callsteps(self, st: m.CallSteps, scope, out: Out) -> Out:
        """Steps that may wait: the arguments bound, then the steps' own statements, in this unit."""
        found = self.steps_call(st, scope)
        if found is None:
            return out
        d, inner, binds = found
        for text, span in binds:  # at the call: an argument's error is the caller's
            self.put(out, text, span)
        outer = self.inlining(st)
        try:
            self.ran(out.lines, out.ind, d.span)
            return self.lower(d.body, inner, out)
        finally:
            self.expanding.discard(st.func)
            self.via = outer

    def low_move(self, st, scope, out: Out) -> Out:
        """A move in a game with move triggers: the triggers it sets off run before the next statement."""
        self.statement_code(st, scope, out.ind, out.lines)
        return self.wait(out, "s.push_fired()", st.span)

    low_moven = low_deal = low_move
