"""What the commands share: their consoles, loading a game file, and the error that is already a message."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GamedslError
from .logfile import path_exists


if TYPE_CHECKING:
    from rich.console import Console

# rich is imported by the commands that print with it, not by `gamedsl check` (a fresh process in
# the designer's edit-check loop, where every import counts).


class CliError(GamedslError):
    """An error whose message is already complete; printed as it is."""


def stdout() -> Console:
    from rich.console import Console
    return Console(highlight=False, emoji=False)  # a bot spec like ismcts:100:cut=20 is no emoji code


def say(out: Console, text, style: str = ""):
    """A message line: not cut into lines by rich (a terminal wraps it; a pipe keeps it whole)."""
    from rich.text import Text
    out.print(text if isinstance(text, Text) else Text(text, style=style), soft_wrap=True)


def stderr() -> Console:
    from rich.console import Console
    return Console(stderr=True, highlight=False, emoji=False)


def load(path, leaks_allowed: bool = False):
    """A game from its file; a missing file is one clear line. `leaks_allowed`: a game the secrecy
    check refuses is loaded all the same, its errors printed as warnings (a log replays)."""
    from ..engine import load_game
    game = load_game(_game_file(path), leaks_allowed=leaks_allowed)
    warn_about(game.prog)
    if game.prog.leaks:
        import attrs

        from ..errors import format_diagnostic
        prog, warn = game.prog, stderr()
        for d in prog.leaks:
            say(warn, format_diagnostic(prog.filename, prog.text, attrs.evolve(d, severity="warning"),
                                        prog.sources))
        say(warn, "(the secrecy check refuses this game file now; the log replays as it was played)")
    return game


def warn_about(prog) -> None:
    """A file's warnings (a built-in name it shadows), on stderr, as the compiler writes errors."""
    if prog.warnings:
        from ..errors import format_diagnostic
        err = stderr()
        for d in prog.warnings:
            say(err, format_diagnostic(prog.filename, prog.text, d, prog.sources))


def check(path) -> int:
    """What `gamedsl check` does with a game file: read, compile and link it as `load` does, with the
    same errors, but make no Game of it (the engine's other modules are never imported). Its
    warnings are written to stderr; the number of them is returned."""
    from ..engine.link import link
    from ..language import compile_source, read_source
    p = _game_file(path)
    prog, code = compile_source(read_source(p), str(p))
    link(prog, code)
    warn_about(prog)
    return len(prog.warnings)


def _game_file(path) -> Path:
    """The path of a game file; a missing file, or a folder, is one clear line."""
    p = Path(path)
    if not path_exists(p):
        raise CliError(f"{path}: error: no such file")
    if p.is_dir():
        raise CliError(f"{path}: error: this is a folder, not a game file")
    return p
