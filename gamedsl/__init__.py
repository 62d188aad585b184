"""gamedsl: a declarative language for card games and a generic engine that runs them.

The house: language/ (a .game file becomes a Program), engine/ (a Program becomes games in
progress), bots/ (players that choose moves), tools/ (the command line and what it runs).
Each imports only the ones before it.
"""
from .engine import TERMINAL, Game, State, load_game, load_source
from .errors import GameRuntimeError, GamedslError, IllegalAction, InvariantViolation, SourceError
from .version import __version__

__all__ = ["Game", "State", "TERMINAL", "load_game", "load_source", "GamedslError", "SourceError",
           "IllegalAction", "GameRuntimeError", "InvariantViolation", "__version__"]
