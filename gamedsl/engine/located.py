"""Errors of a game's rules, located in its .game file from the traceback of the generated module.

Each linked game's module is compiled under a file name of its own; every line of it knows the
span it came from (language/codegen.py) and, inlined from steps, the calls it was inlined
through (Program.via). When an exception passes through a game's module, `rule_failure` walks
its traceback to the innermost line of that module.
"""
from __future__ import annotations

import sys

from ..errors import GameRuntimeError

# Python errors a rule can cause (on top of GameRuntimeError): a wrong kind of value, nobody used
# as a player, a number too large...
RULE_ERRORS = (TypeError, IndexError, ValueError, KeyError, ZeroDivisionError, AttributeError, OverflowError,
               RecursionError)
_MODULES: dict = {}  # a generated module's file name -> its Program


def register(filename: str, prog) -> None:
    """Remember a linked game's module, to locate the errors of its rules."""
    _MODULES[filename] = prog


def span_of(tb):
    """The innermost line of a game's module in a traceback: (its Program, the line's span), or (None, None)."""
    prog, line = _innermost(tb)
    return (prog, prog.spans[line - 1]) if prog is not None else (None, None)


def _innermost(tb):
    """The innermost line of a game's module in a traceback: (its Program, line number), or (None, 0)."""
    prog, line = None, 0
    while tb is not None:
        found = _MODULES.get(tb.tb_frame.f_code.co_filename)
        if found is not None and 0 < tb.tb_lineno <= len(found.spans):
            prog, line = found, tb.tb_lineno
        tb = tb.tb_next
    return prog, line


def innermost_line():
    """The innermost line of a game's module on the Python stack now: (its Program, line number),
    or (None, 0)."""
    f = sys._getframe(1)
    while f is not None:
        prog = _MODULES.get(f.f_code.co_filename)
        if prog is not None:
            return prog, f.f_lineno
        f = f.f_back
    return None, 0


def rule_failure(exc: BaseException, when: str | None = None) -> GameRuntimeError | None:
    """An exception raised while a game's rules ran, as a located GameRuntimeError; None when no
    rule's code is on its way (then the fault is gamedsl's, not the game's)."""
    if isinstance(exc, GameRuntimeError) and exc.is_located:
        return exc
    prog, line = _innermost(exc.__traceback__)
    if prog is None:
        return exc if isinstance(exc, GameRuntimeError) else None
    err = exc if isinstance(exc, GameRuntimeError) else GameRuntimeError(*_rule_message(exc))
    calls = prog.via[line - 1] if line <= len(prog.via) else ()
    if calls:  # the line is in steps: say which call of them it ran for
        err.hint = "; ".join(filter(None, (err.hint, called_from(prog.filename, calls))))
    return err.located(prog.filename, prog.text, prog.spans[line - 1], when, prog.sources)


def called_from(filename: str, calls) -> str:
    """Where inlined steps were called, innermost first: "in steps 'draw' called at law.game:123:5, in
    steps 'refill' called at law.game:40:3"."""
    return ", ".join(f"in steps '{name}' called at {span.file or filename}:{span.line}:{span.column}"
                     for name, span in reversed(calls))


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
