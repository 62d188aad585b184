"""The engine: a Program becomes games in progress (states), with what each player sees."""
from .game import Game, load_game, load_source
from .state import TERMINAL, State

__all__ = ["Game", "State", "TERMINAL", "load_game", "load_source"]
