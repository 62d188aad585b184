"""Quick fixes, without the protocol: for an error that says "did you mean 'X'?", X written over the
misspelt word the message quotes, and nothing else. A fix is offered only when it is safe: never
for a number (`1` into `10` turns the ace into a ten: a file that checks and plays other rules),
and only when the text with it has fewer errors than the text without it, none of them new.

Positions are the language's (1-based lines and character columns), as in analysis.py."""
from __future__ import annotations

import functools
import re

import attrs

from .checking import check

_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'")
_QUOTED = re.compile(r"'([^'\n]+)'")


@attrs.frozen
class Fix:
    title: str
    line: int
    column: int  # where the misspelt word begins
    end_column: int  # and ends (exclusive)
    new_text: str

    def applied(self, text: str) -> str:
        lines = text.split("\n")
        line = lines[self.line - 1]
        lines[self.line - 1] = line[:self.column - 1] + self.new_text + line[self.end_column - 1:]
        return "\n".join(lines)


def quick_fix(text: str, filename: str, message: str, line: int, column: int, end_column: int) -> Fix | None:
    """The fix for the error `message` (its hint included) at `line`, between the columns given, or
    None. The message's first quoted word is the misspelt one; it must be written, as a whole word,
    in that range."""
    found, wrong = _DID_YOU_MEAN.search(message), _QUOTED.search(message)
    if found is None or wrong is None or found[1] == wrong[1] or \
            any(w.replace(".", "").isdigit() for w in (found[1], wrong[1])):
        return None
    lines = text.split("\n")
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    at = re.search(rf"(?<!\w){re.escape(wrong[1])}(?!\w)", source[column - 1:end_column - 1])
    if at is None:
        return None
    start = column + at.start()
    fix = Fix(f"Change '{wrong[1]}' to '{found[1]}'", line, start, start + len(wrong[1]), found[1])
    return fix if _better(text, filename, fix.applied(text)) else None


@functools.lru_cache(maxsize=64)
def _better(text: str, filename: str, fixed: str) -> bool:
    """Whether a fixed text has fewer errors than the text, and none the text did not have (the
    same message, on the same line)."""
    def errors(t: str) -> list[tuple[int, str]]:
        return [(d.span.line, d.message) for d in check(t, filename)[0] if d.severity == "error"]
    before, after = errors(text), errors(fixed)
    return len(after) < len(before) and set(after) <= set(before)
