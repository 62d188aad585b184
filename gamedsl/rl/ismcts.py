"""OpenSpiel's own ISMCTS bot as a gamedsl bot (`choose(state) -> move`), through the OpenSpiel adapter.

`OpenSpielISMCTS(seed, simulations=N)` is a bot like those of gamedsl.bots; `from_spec("openspiel-ismcts:N",
seed)` makes one from a seat spec. The bot searches from the information state of the seat to
move, sampling worlds with the adapter's `resample_from_infostate` (what the seat knows, a
fresh future), and values leaves by random rollouts, as OpenSpiel's examples do.
"""
from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from .openspiel import GamedslGame

SPEC = "openspiel-ismcts"
DEFAULT_SIMULATIONS = 100


class OpenSpielISMCTS:
    """open_spiel.python.algorithms.ismcts.ISMCTSBot seated at a gamedsl game."""

    name = SPEC

    def __init__(self, seed: int = 0, simulations: int = DEFAULT_SIMULATIONS, uct_c: float = 2.0,
                 rollouts: int = 1, max_world_samples: int = ismcts.UNLIMITED_NUM_WORLD_SAMPLES):
        if simulations < 1:
            raise ValueError(f"the simulations per move are at least 1, not {simulations}")
        self.random = np.random.RandomState(seed % 2 ** 32)
        self.simulations, self.uct_c, self.rollouts = simulations, uct_c, rollouts
        self.max_world_samples = max_world_samples
        self._games: dict = {}  # (gamedsl Game, players, options) -> its OpenSpiel game

    def choose(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        game = self.openspiel_game(state)
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.random)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               max_world_samples=self.max_world_samples, random_state=self.random)
        wrapped = game.wrap(state)
        return wrapped.moves()[int(bot.step(wrapped))]

    def openspiel_game(self, state) -> GamedslGame:
        """The OpenSpiel game of a gamedsl state's game, player count and options (made once)."""
        game = state.game  # (an option chosen by name is given by its name: `mode=knockout`)
        options = {name: game.option_text(name, value) if name in state.prog.option_choices else value
                   for name, value in zip(state.prog.options, state.opt)}
        key = (id(state.game), state.np, tuple(options.items()))
        if key not in self._games:
            self._games[key] = (state.game, GamedslGame.of(state.game, state.np, options))
        return self._games[key][1]


def from_spec(spec: str, seed: int) -> OpenSpielISMCTS:
    """The bot of a seat spec: `openspiel-ismcts` or `openspiel-ismcts:N` (N simulations per move)."""
    kind, _, arg = spec.partition(":")
    if kind != SPEC:
        raise KeyError(spec)
    if not arg:
        return OpenSpielISMCTS(seed)
    if not arg.isdigit():
        raise ValueError(f"{SPEC}:N takes a number of simulations, not '{arg}'")
    return OpenSpielISMCTS(seed, simulations=int(arg))
