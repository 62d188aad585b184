"""gamedsl: a declarative language for card games and a generic engine that runs them.

The house: language/ (a .game file becomes a Program), engine/ (a Program becomes games in
progress), bots/ (players that choose moves), tools/ (the command line and what it runs).
Each imports only the ones before it.
"""
from typing import TYPE_CHECKING

from .errors import GameRuntimeError, GamedslError, IllegalAction, InvariantViolation, SourceError
from .version import __version__

__all__ = ["Game", "State", "TERMINAL", "load_game", "load_source", "GamedslError", "SourceError",
           "IllegalAction", "GameRuntimeError", "InvariantViolation", "__version__"]

if TYPE_CHECKING:
    from .engine import TERMINAL, Game, State, load_game, load_source


def __getattr__(name: str):
    """The engine's names, imported when first asked for: `gamedsl check` (a fresh process in the
    designer's edit-check loop) never makes a Game, and does not pay for the engine's modules."""
    if name in ("TERMINAL", "Game", "State", "load_game", "load_source"):
        from . import engine
        value = globals()[name] = getattr(engine, name)
        return value
    raise AttributeError(f"module 'gamedsl' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
