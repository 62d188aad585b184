"""The generated Python module of one game, with a map from each of its lines back to the .game file.

Every rule becomes a function of one module (see language/flow.py for how statements that
may wait become blocks). Each line of the module remembers the span of the statement or
expression it comes from, so a rule failing while the game runs is reported at its own line
and column. A sub-expression that can fail (the top card of a zone, a division, a player's
variable...) is *marked*: put on a line of its own, with a comment naming its span, so the
map knows it exactly. Marks cost nothing at run time: Python ignores line breaks and comments
inside parentheses.
"""
from __future__ import annotations

import re

from ..errors import Diagnostic, SourceError, Span

_MARK = re.compile(r"  #@(\d+)$")
_MARKS = re.compile(r"  #@\d+")


def unmarked(code: str) -> str:
    """Code without the marks that name where its parts came from (Module.mark)."""
    return _MARKS.sub("", code)


class Module:
    """The source of a game's generated module, function by function."""

    def __init__(self):
        self.lines: list[str] = []
        self.spans: list[Span] = []
        self.loops: list = []  # per line: the loop, round or trigger it runs inside ((span, kind) or None)
        self.marks: list[Span] = []
        self.names: dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        """A new function name starting with `prefix`."""
        n = self.names.get(prefix, 0)
        self.names[prefix] = n + 1
        return f"{prefix}_{n}"

    def mark(self, code: str, span: Span) -> str:
        """The code of a sub-expression that may fail, on a line of its own that names its span."""
        if not span.line:
            return code
        self.marks.append(span)
        first, nl, rest = code.partition("\n")
        return f"(\n{first}  #@{len(self.marks) - 1}{nl}{rest}\n)"

    def add(self, parts: list) -> None:
        """Append source given as [(text, span)] or [(text, span, loop)]: a text may hold several
        lines; a None span takes the one before it, and a line without a loop the one before it."""
        span, loop = Span(), None
        for part in parts:
            text, where = part[0], part[1]
            span = where if where is not None else span
            loop = part[2] if len(part) > 2 else loop
            for line in text.split("\n"):
                found = _MARK.search(line)
                self.lines.append(line)
                self.spans.append(self.marks[int(found.group(1))] if found else span)
                self.loops.append(loop)

    def function(self, name: str, args: str, body: list, span: Span) -> str:
        """Append `def name(args):` with the body [(text, span)] (texts indented already); returns the name."""
        self.add([(f"def {name}({args}):", span)] + body)
        return name

    def expression(self, prefix: str, code: str, span: Span, args: str = "s, e") -> str:
        """A function of one expression: name(args) -> its value. Returns its name."""
        name = self.fresh(prefix)
        return self.function(name, args, [("    return (", span), (code, span), ("    )", span)], span)

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"


def compile_module(prog):
    """The code of a Program's module, under its module name; a construct past Python's own limits
    is the game's error."""
    try:
        return compile(prog.module, prog.module_name, "exec")
    except (SyntaxError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        span = prog.spans[line - 1] if line and 0 < line <= len(prog.spans) else Span()
        raise SourceError(prog.filename, prog.text, [Diagnostic(
            "this rule is nested too deeply to compile", span, "split it with 'let' or 'def'")]) from None
