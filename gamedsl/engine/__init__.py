"""The engine: a Program becomes games in progress (states), with what each player sees."""
from typing import TYPE_CHECKING

__all__ = ["Game", "State", "TERMINAL", "load_game", "load_source"]

if TYPE_CHECKING:
    from .game import Game, load_game, load_source
    from .state import TERMINAL, State

_HOMES = {"Game": "game", "load_game": "game", "load_source": "game", "State": "state", "TERMINAL": "state"}


def __getattr__(name: str):
    """Each name imported from its module when first asked for: `gamedsl check` links a game's module
    (link.py) but makes no Game nor State, and does not pay for their modules."""
    if name in _HOMES:
        from importlib import import_module
        value = globals()[name] = getattr(import_module(f".{_HOMES[name]}", __name__), name)
        return value
    raise AttributeError(f"module 'gamedsl.engine' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
