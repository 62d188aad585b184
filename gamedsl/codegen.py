"""Generated Python source, compiled with a map back to the .game file, so that a rule failing
while the game runs is reported at its own line and column.

Each piece of generated source is compiled under a file name of its own (`<gamedsl N>`), and
every line of it is mapped to the span of the statement or expression it came from. A
sub-expression that can fail (the top card of a zone, a division, a player's variable...)
is *marked*: put on a line of its own, with a comment naming its span, so the map knows it
exactly. Marks cost nothing at run time: Python ignores the line breaks and comments inside
parentheses. When an exception passes through generated code, `locate` walks its traceback
to the innermost generated line.
"""
from __future__ import annotations

import linecache
import re

from .errors import GameRuntimeError, Span

_MARK = re.compile(r"  #@(\d+)$")
_MAPS: dict = {}  # generated file name -> its SourceMap (to locate an error from its traceback alone)
# Python errors a rule can cause (on top of GameRuntimeError): a wrong kind of value, nobody used
# as a player, a number too large...
RULE_ERRORS = (TypeError, IndexError, ValueError, KeyError, ZeroDivisionError, AttributeError, OverflowError,
               RecursionError)


class SourceMap:
    """Every piece of generated code of one game, with the span each of its lines comes from."""

    def __init__(self, filename: str = "", text: str = ""):
        self.filename, self.text = filename, text  # the game file the code is generated from
        self.files: dict[str, list] = {}  # file name -> span per line (index 0: line 1)
        self.marks: list[Span] = []

    def mark(self, code: str, span: Span) -> str:
        """The code of a sub-expression that may fail, on a line of its own that names its span."""
        if not span.line:
            return code
        self.marks.append(span)
        first, nl, rest = code.partition("\n")
        return f"(\n{first}  #@{len(self.marks) - 1}{nl}{rest}\n)"

    def define(self, parts: list, ns: dict, name: str = "_f"):
        """Execute generated source given as [(text, span)] (a text may hold several lines; a
        None span takes the one before it) and return the function it defines as `name`."""
        lines, spans, span = [], [], Span()
        for text, where in parts:
            span = where if where is not None else span
            for line in text.split("\n"):
                lines.append(line)
                spans.append(span)
        for i, line in enumerate(lines):
            found = _MARK.search(line)
            if found:
                spans[i] = self.marks[int(found.group(1))]
        src = "\n".join(lines) + "\n"
        filename = f"<gamedsl {id(self):x} {len(self.files)}>"
        self.files[filename] = spans
        _MAPS[filename] = self
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # for GAMEDSL_TRACEBACK
        local: dict = {}
        exec(compile(src, filename, "exec"), ns, local)  # noqa: S102 - our own generated code
        return local[name]

    def function(self, code: str, span: Span, ns: dict, args: str = "s, e"):
        """A function of one expression: fn(args) -> its value."""
        return self.define([(f"def _f({args}):\n    return (", span), (code, span), ("    )", None)], ns)

    def locate(self, tb) -> Span | None:
        """The span of the innermost generated line a traceback passes through, or None."""
        found = None
        while tb is not None:
            spans = self.files.get(tb.tb_frame.f_code.co_filename)
            if spans is not None and 0 < tb.tb_lineno <= len(spans):
                found = spans[tb.tb_lineno - 1]
            tb = tb.tb_next
        return found


def rule_failure(exc: BaseException, when: str | None = None) -> GameRuntimeError | None:
    """An exception raised while a game's rules ran, as a located GameRuntimeError; None when no
    generated code is on its way (then the fault is gamedsl's, not the game's)."""
    if isinstance(exc, GameRuntimeError) and exc.is_located:
        return exc
    tb, source = exc.__traceback__, None
    while tb is not None:
        found = _MAPS.get(tb.tb_frame.f_code.co_filename)
        source = found or source
        tb = tb.tb_next
    if source is None:
        return exc if isinstance(exc, GameRuntimeError) else None
    err = exc if isinstance(exc, GameRuntimeError) else GameRuntimeError(*_rule_message(exc))
    return err.located(source.filename, source.text, source.locate(exc.__traceback__), when)


def _rule_message(exc: BaseException) -> tuple[str, str | None]:
    """(message, hint) for a Python error a rule caused."""
    if isinstance(exc, RecursionError):
        return "the rules call functions inside functions too deeply", None
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        return ("nobody is used here as a player: a player variable that was never set",
                "set it first, or test it before use: 'if x != nobody'")
    if isinstance(exc, OverflowError):
        return f"a number is too large: {exc}", None
    return f"this rule failed: {exc}", None
