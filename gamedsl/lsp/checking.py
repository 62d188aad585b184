"""The diagnostics of a document, as `gamedsl check` gives them, in two steps (every check but the
secrecy analysis first, which takes longest), and the server's memory of the texts it checked."""
from __future__ import annotations

import attrs

from ..errors import Diagnostic, GamedslError, SourceError, Span
from ..language import model as m
from .analysis import code_of


def check(text: str, filename: str) -> tuple[list[Diagnostic], m.GameModel | None]:
    """Every diagnostic `gamedsl check` gives for this text (read as the file `filename`, whose
    folder a variant's `extends` is read from), and the game's model when the file parses."""
    diagnostics, model, secrecy = check_first(text, filename)
    return (secrecy() + diagnostics if secrecy else diagnostics), model


def check_first(text: str, filename: str):
    """check() in two steps: (diagnostics, model, secrecy): every diagnostic but the secrecy
    analysis's, and, when the text has no other error, a function that runs that analysis and
    returns its errors (None otherwise: the diagnostics are all there are)."""
    from ..language.build import build
    from ..language.compiler import check_model
    from ..language.variant import bases
    try:
        model = build(text, filename, bases(text, filename))
    except SourceError as exc:
        return _in_file(exc, filename), None, None
    except GamedslError as exc:
        return [Diagnostic(str(exc), Span())], None, None
    try:
        prog, secrecy = check_model(model)
    except SourceError as exc:
        return _in_file(exc, filename), model, None
    except GamedslError as exc:
        return [Diagnostic(str(exc), Span())], model, None
    return list(prog.warnings), model, secrecy  # (the secrecy check's errors go before the warnings)


def _in_file(exc: SourceError, filename: str) -> list[Diagnostic]:
    """The diagnostics of an error, each marked with its file when not `filename` (a syntax error
    in the base of a variant is the base's SourceError, its spans without a file)."""
    if exc.filename == filename:
        return list(exc.diagnostics)
    return [d if d.span.file else attrs.evolve(d, span=attrs.evolve(d.span, file=exc.filename))
            for d in exc.diagnostics]


class Checker:
    """`check` with a memory of the last few texts checked (an undo, or a typo fixed, is answered
    at once) and of the last program that parsed: an edit inside comments only is not checked
    again, as it changes no rule and moves nothing."""

    KEEP = 16

    def __init__(self):
        self.memo: dict = {}  # (filename, text, the texts it extends) -> (diagnostics, model)

    def __call__(self, text: str, filename: str, previous: tuple | None = None):
        """(diagnostics, model, secrecy): check_first's, remembered. `previous`: (text, diagnostics,
        model, secrecy) of the document's last check. Until `secrecy` (when not None) has run and
        remember() has the whole diagnostics, the text is remembered with it, to run when asked again."""
        key = self.key(text, filename)
        if key in self.memo:
            self.memo[key] = self.memo.pop(key)  # used last: kept longest
            return self.memo[key]
        if previous is not None and previous[2] is not None and code_of(previous[0]) == code_of(text) \
                and not previous[2].sources:  # (the same code at the same places: the same diagnostics)
            found = previous[1], attrs.evolve(previous[2], text=text), previous[3]
        else:
            found = check_first(text, filename)
        self.remember(text, filename, *found)
        return found

    @staticmethod
    def key(text: str, filename: str) -> tuple:
        from ..language.variant import bases
        return filename, text, tuple(bases(text, filename).items())

    def remember(self, text: str, filename: str, diagnostics: list, model, secrecy=None) -> None:
        """Keep a text's diagnostics and model, and the secrecy analysis still to run (None: the
        diagnostics are whole)."""
        self.memo[self.key(text, filename)] = diagnostics, model, secrecy
        while len(self.memo) > self.KEEP:
            del self.memo[next(iter(self.memo))]
