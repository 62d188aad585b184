"""Calls in expressions: built-in functions of one argument, the game's own `def`s (compiled once,
or inlined where they are small), and values hoisted out of a legal-move loop (a mixin of
ExpressionCompiler)."""
from __future__ import annotations

import re

from ..errors import Span
from . import model as m
from . import types as T
from .builtins import _BARE, _NOPE
from .codegen import unmarked
from .context import BUILTINS, Scope

_AGGREGATES = {"count", "any", "all", "sum", "max", "min", "best", "worst", "filter", "sorted", "list"}
# calls that read the state only and cost a search: hoisted out of a legal-move loop like the aggregates
_SEARCHES = {"makes", "can_make", "deadwood", "melded", "first_meld"}
INLINE_DEPTH = 4  # functions inlined inside functions inlined..., at most
_HOISTED = re.compile(r"^\(_h\d+ if _h\d+ is not _U else ")  # a value worked out once per legal-move list
# An argument cheap to repeat, with no call in it: a local, a bound name, a number, a variable.
_SIMPLE_ARG = re.compile(r"^(e\[\d+\]|_\w+|s\.me|s\.v\[\d+\]|-?\d+|None|\(?\d+ \+ \(?(e\[\d+\]|_\w+|s\.me)\)?\)?)$")
# One-argument built-ins: name -> (argument type, result type, Python template).
_SIMPLE = {
    # the next player still in the game (worked out here while nobody is out)
    "next": (T.PLAYER, T.PLAYER, "(({0} + 1) % s.np if not s.out else _next(s, {0}, 1))"),
    "previous": (T.PLAYER, T.PLAYER, "(({0} - 1) % s.np if not s.out else _next(s, {0}, -1))"),
    "seat": (T.NUM, T.PLAYER, "_seat(s, {})"),  # the n-th player, counting from 1
    "top": (T.ZONE, T.CARD, "(s.z[{0}] or _no_top(s, {0}))[-1]"),  # the zone read once; empty: its error
    "bottom": (T.ZONE, T.CARD, "(s.z[{0}] or _no_bottom(s, {0}))[0]"),
    "abs": (T.NUM, T.NUM, "abs({})"),
}


class Calls:
    """ex_call and what it needs: bindings, hoisting, inlining and compiling defs."""

    def binding(self, e: m.Call, scope: Scope):
        """For `f(x in D ...)`: (inner scope, python var, domain code)."""
        if not e.args or not isinstance(e.args[0], m.Member) or not isinstance(e.args[0].item, m.Name) \
                or e.args[0].negated:
            self.c.error(f"'{e.func}' needs a binding like '{e.func}(c in hand if ...)'", e.span)
            return None
        member = e.args[0]
        dcode, elem = self.iterable(member.collection, scope)
        inner = scope.child()
        var = inner.bind(member.item.name, elem)
        return inner, var, dcode

    def ex_call(self, e: m.Call, scope: Scope, hint):
        f = e.func
        if f in self.c.shadowed:  # the file declares this built-in's name: its own meaning wins
            if f not in self.c.def_info:
                self.c.error(f"'{f}' is {self.c.known[f]} in this file and cannot be called", e.span,
                             f"this file's declaration hides the built-in {f}(...)")
                return _NOPE
        else:
            found = self.builtin_call(e, scope, f)
            if found is not None:
                return found
        if f in self.c.def_info:
            d = self.c.def_info[f]
            if len(e.args) != len(d.params):
                self.c.error(f"function '{f}' takes {len(d.params)} argument(s), given {len(e.args)}", e.span)
                return _NOPE
            args = [self.expr(a, scope) for a in e.args]
            wrong = self.kinds_given(d, e.args, args)  # (a wrong kind is the one error at that argument)
            typ = self.compile_def(f)
            inlined = self.inline_def(d, args, scope) if not wrong else None
            if inlined is None and not wrong:
                self.check_args(d, e, args)
            if inlined is not None and typ == T.ANY:  # what the body gives for these arguments: a card of a zone
                typ = self.inlined_type
            if inlined is not None and self.kept_by_arguments(f, args):
                code = self.memo_call(f, args)
            else:
                code = inlined if inlined is not None else f"D_{f}(s, {', '.join(code for code, _ in args)})"
            return self.maybe_hoist(code, scope), typ  # a def reads only its arguments and the state
        self.c.unknown("function", f, e.span, list(self.c.def_info) + sorted(BUILTINS - set(_BARE)))
        return _NOPE

    def builtin_call(self, e: m.Call, scope: Scope, f: str):
        """A call of a built-in function as (code, type), or None if `f` is not one."""
        if f in ("top", "bottom") and len(e.args) == 2:  # the top N cards, as a list
            return self.call_top_n(e, scope, f)
        if f in _SIMPLE:
            want, result, template = _SIMPLE[f]
            arg = self._one_arg(e, scope)
            if arg is None:
                return _NOPE
            self.want(arg[1], want, e.args[0].span)
            code = self.c.module.mark(template.format(arg[0]), e.span)  # an empty zone, no seat...
            return (self.maybe_hoist(code, scope) if f in ("top", "bottom") else code), result
        handler = getattr(self, "call_" + f, None)
        if handler is not None and f in BUILTINS:
            if f not in _AGGREGATES and f not in _SEARCHES:
                return handler(e, scope)
            code, typ = handler(e, scope)
            return self.maybe_hoist(code, scope), typ
        return None

    def maybe_hoist(self, code: str, scope) -> str:
        """In a legal-move loop, compute a value that does not depend on the candidate (an aggregate,
        a top card, a call of a def) once, lazily.

        Expressions have no side effects (random() excepted), so the value is the same for every
        candidate; it is computed on first use, so a condition that short-circuits never pays for it.
        Inside an aggregate too, when it does not depend on the aggregate's element (the top card
        in `any(c in me.hand if c.suit == top(pile).suit)` is read once, not once per card): the
        comprehension's `:=` sets the legal function's name. Not in what Python forbids or scopes
        apart (`unhoistable`): a comprehension's iterable, a `lambda`'s body.
        """
        if self.hoist is None or self.unhoistable or "s.pick" in code:
            return code
        if any(name_code in code for name_code, _ in self.visible_codes(scope)):
            return code
        if self.hoist is not self._hoisted_for:  # a new legal-move function: nothing hoisted yet
            self._hoisted, self._hoisted_for = {}, self.hoist
            self.hoisted_forms = {}
        key = unmarked(code)  # the same expression twice is worked out once
        name = self._hoisted.get(key)
        if name is None:
            name = self._hoisted[key] = f"_h{len(self.hoist)}"
            self.hoist.append(name)
        lazy = f"({name} if {name} is not _U else ({name} := {code}))"
        self.hoisted_forms[lazy] = name
        return lazy

    def iterable(self, e: m.Expr, scope: Scope) -> tuple[str, str]:
        """An aggregate's domain: compiled as `domain` does, with nothing hoisted in it (Python has
        no `:=` in a comprehension's iterable)."""
        self.unhoistable += 1
        self.in_iterable += 1
        try:
            return self.domain(e, scope)
        finally:
            self.unhoistable -= 1
            self.in_iterable -= 1

    def visible_codes(self, scope):
        while scope is not None:
            yield from scope.names.values()
            scope = scope.parent

    def inline_def(self, d: m.DefDecl, args: list, at) -> str | None:
        """A function's body in place of its call, its parameters read as the arguments' code: no call
        at run time, and what does not depend on a legal move's candidate is worked out once.
        An argument that is not cheap to repeat is worked out first, once, into a name of its own
        (`((_a_1 := top(pile)), body)[-1]`), as a call would; not in a comprehension's iterable,
        where Python has no `:=`. None when the call is better kept. The body's names are bound deeper
        than every name visible at the call (scope `at`), so none of them hides one an argument reads."""
        if len(self.inlining) >= INLINE_DEPTH or d.name in self.inlining:
            return None
        c = self.c
        scope, binds = Scope(depth=at.depth + 1), []
        for name, (code, typ) in zip(d.params, args):
            if not (_SIMPLE_ARG.match(code) or _HOISTED.match(code)):
                if self.in_iterable:
                    return None
                bound = c.module.fresh("_a")
                binds.append(f"({bound} := {code})")
                code = bound
            scope.names[name] = (code, typ)
        before, where = len(c.diags), c.where
        self.inlining.append(d.name)
        try:
            code, self.inlined_type = self.expr(d.body, scope)
        finally:
            self.inlining.pop()
        if len(c.diags) > before:  # the arguments' kinds make the body read otherwise: keep the call
            del c.diags[before:]
            return None
        c.where = where
        return f"(({', '.join(binds)}, ({code}))[-1])" if binds else f"({code})"

    def kinds_given(self, d, exprs: list, args: list) -> dict:
        """Each argument against the kind written before its parameter, if any (`def twice(number n)`):
        an error at each that differs; returns them, by index, with the type the parameter wants."""
        wrong = {}
        for k, (name, want, x, (_, got)) in enumerate(zip(d.params, self.c.def_kinds.get(d.name, ()), exprs, args)):
            if want != T.ANY and got != T.ANY and got != want and not (want == T.NUM and self.numbered(got)):
                self.c.error(f"'{d.name}' takes {T.describe(want)} as '{name}', given {T.describe(got)}", x.span)
                wrong[k] = want
        return wrong

    def numbered(self, typ: str) -> bool:
        """Whether a type is a value of an attribute whose values are all numbers (read as a number)."""
        if not T.is_value(typ):
            return False
        names = self.c.attr_list[self.c.attr_index[typ[6:]]][1]
        return all(n.lstrip("-").isdigit() for n in names)

    def check_args(self, d: m.DefDecl, e: m.Call, args: list):
        """A call's arguments against what the function's body does with them: the body is read
        again with one argument at a time of the kind given (the others of any kind), and an error
        it meets is the call's, at that argument, with the body's complaint as the hint."""
        if len(self.inlining) >= INLINE_DEPTH or d.name in self.inlining:
            return
        c = self.c
        clean = c.def_clean
        if d.name not in clean:  # a body with errors of its own (reported once) says nothing of the call
            clean[d.name] = not self.body_errors(d, [T.ANY] * len(d.params))
        if not clean[d.name]:
            return
        for i, (name, (_, typ)) in enumerate(zip(d.params, args)):
            if typ == T.ANY:
                continue
            found = self.body_errors(d, [typ if j == i else T.ANY for j in range(len(d.params))])
            if found:
                first = found[0]
                c.error(f"'{d.name}' cannot take {T.describe(typ)} as its argument '{name}'", e.args[i].span,
                        f"its body, line {first.span.line}: {first.message}")

    def body_errors(self, d: m.DefDecl, types: list) -> list:
        """The errors a function's body has with its parameters of these types (none kept)."""
        c = self.c
        scope = Scope()
        for j, (p, typ) in enumerate(zip(d.params, types)):
            scope.names[p] = (f"_chk{j}", typ)
        before, where = len(c.diags), c.where
        unknowns = len(c.unknowns)
        self.inlining.append(d.name)
        try:
            self.expr(d.body, scope)
        finally:
            self.inlining.pop()
        found, c.where = c.diags[before:], where
        del c.diags[before:]
        del c.unknowns[unknowns:]
        return found

    def elem_type(self, dtyp: str, span: Span) -> str:
        """The type of the elements of a collection type (an error if it is not one)."""
        if dtyp == "players":
            return T.PLAYER
        elem = T.element(dtyp)
        if elem is None:
            self.c.error(f"expected cards, players or a list here, found {T.describe(dtyp)}", span)
            return T.ANY
        return elem

    def compile_def(self, name: str) -> str:
        """Compile a function (`def f(x) = ...`) into the module as D_f, once; returns its type."""
        c = self.c
        if name in c.def_types:
            return c.def_types[name]
        if name in self.compiling_defs:
            c.error(f"function '{name}' calls itself", c.def_info[name].span)
            return T.ANY
        self.compiling_defs.add(name)
        d = c.def_info[name]
        scope = Scope()
        for p in sorted({p for p in d.params if d.params.count(p) > 1}):
            c.error(f"function '{name}' names its parameter '{p}' twice", d.span)
        args = list(dict.fromkeys(scope.bind(p, T.ANY) for p in d.params))
        code, typ = self.expr(d.body, scope)
        c.module.function("D_" + name, ", ".join(["s", *args]),
                          [("    return (", d.body.span), (code, d.body.span), ("    )", None)], d.body.span)
        self.def_codes[name] = unmarked(code)
        c.def_types[name] = typ
        return typ

    # ---- functions of their arguments alone, kept by them
    def kept_by_arguments(self, name: str, args: list) -> bool:
        """Whether a call is better answered from a memo of the function's answers: its body reads
        nothing but its arguments (no zone, variable, player or chance: the same arguments give the
        same answer for the whole game), goes through cards (a loop: dearer than a look-up), and
        every argument is a value that can be a key: a number, a card, a player, a value, a list,
        not a zone, whose cards change (an argument of a kind known only when it comes, another
        function's parameter, is a key unless it is a zone then: runtime.memo). `grouped(h)` asked
        ten times by one showdown is worked out once."""
        if not self.reads_arguments_only(name) or not _DEAR.search(self.def_codes[name]):
            return False
        return all(typ in _KEYS or T.is_value(typ) or T.is_list(typ) for _, typ in args)

    def reads_arguments_only(self, name: str) -> bool:
        """Whether function `name`'s body (as compiled for arguments of any kind) reads the state
        only through its arguments: through no `s` but a list argument's cards and another such
        function."""
        known = self.pure_defs.get(name)
        if known is None:
            self.pure_defs[name] = False  # (while it is worked out: functions calling each other are an error)
            code = _OTHER_PURE.sub(lambda found: "" if self.reads_arguments_only(found.group(1)) else found.group(0),
                                   _ARGUMENT_READS.sub("", self.def_codes.get(name, "s")))
            known = self.pure_defs[name] = _READS_STATE.search(code) is None
        return known

    def memo_call(self, name: str, args: list) -> str:
        """A call of D_name through its memo (runtime.memo), the arguments as its key."""
        memo = f"_M_{name}"
        if memo not in self.memos:
            self.c.module.add([(f"{memo} = {{}}", None)])
            self.memos.add(memo)
        key = "".join((f"tuple({code}), " if T.is_list(typ) or typ == "players" else f"{code}, ") for code, typ in args)
        loose = tuple(k for k, (_, typ) in enumerate(args) if typ == T.ANY)
        return f"_memo(s, D_{name}, {memo}, ({key}){f', {loose}' if loose else ''})"


_KEYS = {T.NUM, T.BOOL, T.CARD, T.PLAYER, "players", T.ANY}
_ARGUMENT_READS = re.compile(r"\b_(as_cards|nth_any)\(s, ")  # of a list argument: its elements only
_OTHER_PURE = re.compile(r"\b(?:_memo\(s, )?D_(\w+)(?:\(s, |, _M_\w+, )")  # a call of another function
_DEAR = re.compile(r" for |_memo\(")  # a loop, or a function kept so
_READS_STATE = re.compile(r"\bs\b|\be\[")
