"""The language: a .game file's text becomes a Program (parse, build the model, check, generate
Python). `compile_source` is the front door; compiled games are cached (cache.py)."""
from __future__ import annotations

import contextlib
import gc
from pathlib import Path

from ..errors import Diagnostic, GamedslError, SourceError, Span
from . import cache
from .program import Program

__all__ = ["Program", "compile_source", "read_source"]


def read_source(path) -> str:
    """A game file's text; raises SourceError (not UTF-8 text) or GamedslError (unreadable file)."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), "", [Diagnostic(f"this file is not UTF-8 text ({exc.reason})", Span())]) from None
    except OSError as exc:
        raise GamedslError(f"{path}: cannot read: {exc.strerror}") from None


def compile_source(text: str, filename: str = "<string>", coverage: bool = False,
                   leaks_allowed: bool = False) -> tuple[Program, object]:
    """The Program of a game's text (not yet linked) and the code of its module: from the cache
    when this very text was compiled before, else compiled now (and cached). Raises SourceError
    with every problem. `coverage`: a coverage build, whose run records each statement that ran
    (Program.ran; for `gamedsl analyze`), cached apart from the normal one. A variant's base is read
    from its file (variant.py), and its text is part of the cache's key. `leaks_allowed`: the secrecy
    check's errors (Program.leaks) do not stop it (a log played before the check replays)."""
    prog, code = _compiled(text, filename, coverage)
    if prog.leaks and not leaks_allowed:
        raise SourceError(filename, text, list(prog.leaks), prog.sources)
    return prog, code


def _compiled(text: str, filename: str, coverage: bool) -> tuple[Program, object]:
    from .variant import bases
    files = bases(text, filename)
    name = cache.key(text, filename, coverage, files)
    with _collector_paused():
        found = cache.load(name)
        if found is not None:
            return found
        from .build import build  # the parser and the compiler, loaded only when a game is compiled
        from .codegen import compile_module
        from .compiler import compile_model
        model = build(text, filename, files)
        prog = compile_model(model, coverage=True) if coverage else compile_model(model)
        prog.module_name = f"<gamedsl {name[:12]} {filename}>"
        code = compile_module(prog)
        cache.store(name, prog, code)
    return prog, code


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector off while a game is read back or compiled: both make many objects
    that live on, and free almost none in cycles, so the collector's passes over them (over 150 in a
    check of Law after an edit, a sixth of its time) found nothing to free. It runs again after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
