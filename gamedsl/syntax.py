"""Builds the Lark parser once and turns raw parse errors into gamedsl diagnostics."""
from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import Diagnostic, SourceError, Span

# How a user would name each kind of token, instead of Lark's terminal names.
_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": 'a string in double quotes',
    "$END": "the end of the file",
}
_EXPRESSION_STARTS = {"NAME", "INT", "STRING", "LPAR", "LSQB", "TRUE", "FALSE", "MINUS", "IF", "NOT"}
_MAX_ERRORS = 20


def grammar_text() -> str:
    """The text of grammar/gamedsl.lark, from the installed package or the source tree."""
    try:
        return resources.files("gamedsl.grammar").joinpath("gamedsl.lark").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        path = Path(__file__).resolve().parent.parent / "grammar" / "gamedsl.lark"
        return path.read_text(encoding="utf-8")


@functools.cache
def parser() -> lark.Lark:
    """The one LALR parser, with positions on every node."""
    return lark.Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def describe_token(token) -> str:
    """A token as the user wrote it."""
    if token.type == "$END":
        return "the end of the file"
    return f"'{token.value}'"


def describe_expected(expected) -> str:
    """The set of expected terminals in the user's words."""
    terms = parser().terminals
    by_name = {t.name: t for t in terms}
    names = set(expected)
    words = []
    if {"NAME", "INT", "LPAR"} <= names:
        names -= _EXPRESSION_STARTS
        words.append("an expression")
    for name in sorted(names):
        if name in _WORDS:
            words.append(_WORDS[name])
        elif name in by_name and isinstance(by_name[name].pattern, lark.lexer.PatternStr):
            words.append(f"'{by_name[name].pattern.value}'")
        else:
            words.append(name.lower())
    words = sorted(set(words), key=lambda w: (not w.startswith(("a ", "an ")), w))
    if len(words) > 8:
        words = words[:8] + ["..."]
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words)


def _diagnostic(err: UnexpectedInput) -> Diagnostic:
    if isinstance(err, UnexpectedCharacters):
        ch = err.char if hasattr(err, "char") else "?"
        span = Span(err.line, err.column, err.line, err.column + 1)
        hint = "strings use double quotes" if ch == "'" else None
        return Diagnostic(f"unexpected character '{ch}'", span, hint)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        line = getattr(tok, "line", None) or err.line or 1
        col = getattr(tok, "column", None) or err.column or 1
        width = len(str(tok.value)) if tok.type != "$END" else 1
        span = Span(line, col, line, col + max(1, width))
        expected = describe_expected(err.expected)
        got = describe_token(tok)
        hint = None
        if tok.type == "NAME" and tok.value in _KEYWORD_HINTS:
            hint = _KEYWORD_HINTS[tok.value]
        return Diagnostic(f"expected {expected}, found {got}", span, hint)
    if isinstance(err, UnexpectedEOF):
        return Diagnostic(f"unexpected end of the file: expected {describe_expected(err.expected)}", Span(err.line or 1, err.column or 1))
    return Diagnostic(str(err).splitlines()[0], Span(getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1))


_KEYWORD_HINTS = {
    "else": "'else' must follow the closing '}' of an 'if' block",
    "elif": "'elif' must follow the closing '}' of an 'if' block",
}


def parse(text: str, filename: str = "<string>") -> lark.Tree:
    """Parse a .game source into a Lark tree, or raise SourceError with every syntax error found."""
    diagnostics: list[Diagnostic] = []

    def on_error(err: UnexpectedInput) -> bool:
        d = _diagnostic(err)
        if not diagnostics or diagnostics[-1].span.line != d.span.line:
            diagnostics.append(d)
        return len(diagnostics) < _MAX_ERRORS

    try:
        tree = parser().parse(text, on_error=on_error)
    except UnexpectedInput as err:
        d = _diagnostic(err)
        if not diagnostics or diagnostics[-1].span.line != d.span.line:
            diagnostics.append(d)
        tree = None
    except lark.exceptions.LarkError as err:  # a failure while recovering from an earlier error
        if not diagnostics:
            diagnostics.append(Diagnostic(f"cannot parse this file: {err}", Span(1, 1)))
        tree = None
    if diagnostics:
        raise SourceError(filename, text, diagnostics)
    return tree
