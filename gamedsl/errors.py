"""One exception tree for gamedsl, source spans, and the compiler-style diagnostic formatter."""
from __future__ import annotations

import difflib

import attrs


@attrs.frozen
class Span:
    """A region of a source file: 1-based line and column, end exclusive."""

    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    file: str = ""  # the file it is in, when not the one compiled: the base a variant extends (variant.py)

    @classmethod
    def of(cls, meta) -> "Span":
        """Span of a Lark tree's meta or a Lark token."""
        if getattr(meta, "empty", False):
            return cls()
        return cls(meta.line, meta.column, meta.end_line or meta.line, meta.end_column or meta.column + 1)


@attrs.frozen
class Diagnostic:
    """One error found in a source file."""

    message: str
    span: Span
    hint: str | None = None
    severity: str = "error"


class GamedslError(Exception):
    """Base of every error gamedsl reports to a user."""


class SourceError(GamedslError):
    """A source file (.game, scenario, log) has one or more errors."""

    def __init__(self, filename: str, text: str, diagnostics: list[Diagnostic], sources=None):
        self.filename = filename
        self.text = text
        self.sources = dict(sources or ())  # the other files a diagnostic may be in: name -> text
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.column))
        super().__init__(self.format())

    def format(self) -> str:
        """All diagnostics, each as `file:line:col: error: message`, source line, caret, hint."""
        return "\n".join(format_diagnostic(self.filename, self.text, d, self.sources) for d in self.diagnostics)


class IllegalAction(GamedslError):
    """A move that is not legal now; the message says why. The state is unchanged."""


class InvariantViolation(GamedslError):
    """An invariant of the game (declared in its file, or one every game keeps) does not hold.

    `located`: the message already leads with a place in the game file (file:line:col)."""

    def __init__(self, message: str, located: bool = False):
        super().__init__(message)
        self.is_located = located


class GameRuntimeError(GamedslError):
    """A rule failed while the game ran (for example: the top card of an empty zone).

    Once located (see `located`), it reads like a compiler's error: the rule's file, line and
    column, its source line with a caret, a hint where one helps, and when in the game it failed."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint
        self.filename, self.text, self.span, self.when, self.sources = None, "", None, None, {}

    def located(self, filename: str, text: str, span: Span | None, when: str | None,
                sources=None) -> "GameRuntimeError":
        """The same error with where it happened: a span of the game file (or of a file it extends,
        in `sources`), and the moment (move, player)."""
        self.filename, self.text, self.span, self.when = filename, text, span, when
        self.sources = dict(sources or ())
        self.args = (self.format(),)
        return self

    @property
    def is_located(self) -> bool:
        return self.filename is not None

    def within(self, context: str) -> "GameRuntimeError":
        """The same error, with where it happened in a larger run (a game of a simulation, a scenario)."""
        self.when = f"{self.when}, {context}" if self.when else context
        self.args = (self.format(),)
        return self

    def format(self) -> str:
        if self.filename is None:
            return self.message
        out = format_diagnostic(self.filename, self.text, Diagnostic(self.message, self.span or Span(), self.hint),
                                self.sources)
        return out + (f"\n  {self.when}" if self.when else "")

    def __str__(self) -> str:
        return self.format()


def format_diagnostic(filename: str, text: str, d: Diagnostic, sources=None) -> str:
    """Format one diagnostic like a compiler: location, message, source line, caret, hint. A span
    in another file (a variant's base) is shown from that file's text, in `sources` (name -> text)."""
    span = d.span
    if span.file and span.file != filename:
        filename, text = span.file, (sources or {}).get(span.file, "")
    if not span.line:
        out = f"{filename}: {d.severity}: {d.message}"
    else:
        out = f"{filename}:{span.line}:{span.column}: {d.severity}: {d.message}"
        lines = text.splitlines()
        if 0 < span.line <= len(lines):
            src = lines[span.line - 1].expandtabs(1)
            width = 1
            if span.end_line == span.line and span.end_column > span.column:
                width = span.end_column - span.column
            width = max(1, min(width, len(src) - span.column + 1))
            out += f"\n    {src}\n    {' ' * (span.column - 1)}{'^' * width}"
    if d.hint:
        out += f"\n  hint: {d.hint}"
    return out


# names other languages give to what this one calls otherwise
_SAID_ELSEWHERE = {"none": "nobody", "noone": "nobody", "null": "nobody", "nil": "nobody", "self": "me",
                   "this": "me", "len": "count", "length": "count", "size": "count"}


def closest(name: str, candidates) -> str | None:
    """The known name a misspelt one was most likely meant to be: the same letters in another case
    (`True`: 'true'), else the nearest by difflib's ratio, if near enough; None otherwise."""
    others = sorted(set(candidates) - {name})
    if _SAID_ELSEWHERE.get(name.lower()) in others:
        return _SAID_ELSEWHERE[name.lower()]
    same = [c for c in others if c.lower() == name.lower()]
    close = same or difflib.get_close_matches(name, others, n=1, cutoff=0.65)
    return close[0] if close else None


def did_you_mean(name: str, candidates) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None."""
    close = closest(name, candidates)
    return f"did you mean '{close}'?" if close else None
