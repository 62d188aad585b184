"""gamedsl: a declarative language for card games and a generic engine that runs them."""
from .errors import GameRuntimeError, GamedslError, IllegalAction, InvariantViolation, SourceError
from .game import Game, load_game, load_source
from .state import TERMINAL, State

__all__ = ["Game", "State", "TERMINAL", "load_game", "load_source", "GamedslError", "SourceError",
           "IllegalAction", "GameRuntimeError", "InvariantViolation"]
__version__ = "0.1.0"
