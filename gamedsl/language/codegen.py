"""The generated Python module of one game, with a map from each of its lines back to the .game file.

Every rule becomes a function of one module (see language/flow.py for how statements that
may wait become blocks). Each line of the module remembers the span of the statement or
expression it comes from, so a rule failing while the game runs is reported at its own line
and column. A sub-expression that can fail (the top card of a zone, a division, a player's
variable...) is *marked*: put on a line of its own, with a comment naming its span, so the
map knows it exactly. Marks cost nothing at run time: Python ignores line breaks and comments
inside parentheses.

A line inlined from `steps` also remembers the calls it was inlined through (`via`), so an error
inside steps names the call it came from. A *coverage build* (Module(coverage=True)) adds a
line `_C[k] = 1` before each statement: marker k, whose span is `markers[k]`, says it ran.
"""
from __future__ import annotations

import re

from ..errors import Diagnostic, SourceError, Span

_MARK = re.compile(r"  #@(\d+)$")
_MARKS = re.compile(r"  #@\d+")
SAME = object()  # a part's loop: the loop of the part before it (see Module.add)


def unmarked(code: str) -> str:
    """Code without the marks that name where its parts came from (Module.mark)."""
    return _MARKS.sub("", code)


class Module:
    """The source of a game's generated module, function by function."""

    def __init__(self, coverage: bool = False):
        self.lines: list[str] = []
        self.spans: list[Span] = []
        self.loops: list = []  # per line: the loop, round or trigger it runs inside ((span, kind) or None)
        self.via: list = []  # per line: the steps calls it was inlined through, outermost first
        self.marks: list[Span] = []
        self.names: dict[str, int] = {}
        self.coverage = coverage
        self.markers: list[Span] = []  # coverage marker k -> the span of what it says ran
        self._marker_of: dict[Span, int] = {}

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

    def marker(self, span: Span) -> int:
        """The coverage marker of a statement (or trigger, or steps) of this span: one per span, so
        every inlined copy of a statement sets the same one."""
        k = self._marker_of.get(span)
        if k is None:
            k = self._marker_of[span] = len(self.markers)
            self.markers.append(span)
        return k

    def add(self, parts: list) -> None:
        """Append source given as [(text, span)], [(text, span, loop)] or [(text, span, loop, via)]: a
        text may hold several lines; a None span takes the one before it, and a line without a loop
        (or whose loop is SAME) the one before it; a line without `via` was not inlined from steps."""
        span, loop = Span(), None
        lines, spans, loops, vias, marks = self.lines, self.spans, self.loops, self.via, self.marks
        for part in parts:
            text, where = part[0], part[1]
            span = where if where is not None else span
            if len(part) > 2 and part[2] is not SAME:
                loop = part[2]
            via = part[3] if len(part) > 3 else ()
            if "\n" not in text and "#@" not in text:  # most parts: one line, unmarked
                lines.append(text)
                spans.append(span)
                loops.append(loop)
                vias.append(via)
                continue
            for line in text.split("\n"):
                found = _MARK.search(line) if "#@" in line else None
                lines.append(line)
                spans.append(marks[int(found.group(1))] if found else span)
                loops.append(loop)
                vias.append(via)

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
    """The code of a Program's module, under its module name, as a tuple of pieces run in order (one
    per top-level function); a construct past Python's own limits is the game's error.

    A piece's code is reused from the game's last compile (on disk, cache.py) when its text is the
    same but for marks and where it starts: after an edit to one rule, only the functions that
    changed are compiled again (Python's compile is about half of a cold compile)."""
    from . import cache
    known = cache.pieces(prog.filename, prog.coverage)
    made, code = {}, []
    try:
        for start, text in _pieces(prog.module):
            key = unmarked(text)
            piece = known.get(key) or made.get(key)
            if piece is None:
                piece = compile(text, "<piece>", "exec")
            made[key] = piece
            code.append(_placed(piece, start, prog.module_name))
    except (SyntaxError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        line = line + start - 1 if line else None
        span = prog.spans[line - 1] if line and 0 < line <= len(prog.spans) else Span()
        raise SourceError(prog.filename, prog.text, [Diagnostic(
            "this rule is nested too deeply to compile", span, "split it with 'let' or 'def'")], prog.sources) from None
    if made.keys() != known.keys():
        cache.store_pieces(prog.filename, prog.coverage, made)
    return tuple(code)


def _pieces(module: str):
    """(first line, text) of each top-level function of a module (and of what precedes the first)."""
    lines = module.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("def ")]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    for a, b in zip(starts, starts[1:] + [len(lines)]):
        yield a + 1, "\n".join(lines[a:b]) + "\n"


def _placed(code, first: int, filename: str):
    """A piece compiled as if at line 1 of its own file, moved to line `first` of the module's."""
    consts = tuple(_placed(c, first, filename) if hasattr(c, "co_code") else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + first - 1, co_filename=filename, co_consts=consts)
