"""Any .game file as a PettingZoo AEC environment: `env("path/to/my.game", players=4)`.

Agents are `player_0`, `player_1`... in seat order; the agent selected is the seat that must
decide (a reaction window asks its seats one after another). An observation is a dict:
`observation`, the seat's observation vector (`Encoding`: what that seat sees, nothing else),
and `action_mask`, 1 for each of the game's moves the seat may make now (all 0 for a seat not
to move). The action space is every move id of the game; a card's move is named by its kind and
zone, not by which copy it is (moves.py), as the seat sees it. Rewards come at the end: the game's
returns (+1 a win, -1 a loss, 0 otherwise). A game stopped by its move limit (or by
`max_moves`) is truncated, with no reward. `reset(seed=...)` makes the deal reproducible.
"""
from __future__ import annotations

import json
import random
import re

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine.game import Game, load_game
from ..errors import IllegalAction
from .encoding import Encoding
from .moves import MoveIds


class GamedslEnv(AECEnv):
    """A gamedsl game as a PettingZoo AEC environment (the raw one: `env()` adds PettingZoo's checks)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "gamedsl", "is_parallelizable": False}

    def __init__(self, game: Game | str, players: int | None = None, options: dict | None = None,
                 max_moves: int = 0, render_mode: str | None = None):
        super().__init__()
        self.game = game = game if isinstance(game, Game) else load_game(game)
        self.players = players or game.min_players
        self.options = game.check_options(options or {})
        self.max_moves = max_moves
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": "gamedsl_" + "_".join(re.findall(r"\w+", game.name.lower()))}
        self.encoding = Encoding(game, self.players)
        self.ids = MoveIds(game)
        self.possible_agents = [f"player_{k}" for k in range(self.players)]
        self._seat = {agent: k for k, agent in enumerate(self.possible_agents)}
        low, high = self.encoding.bounds()
        n = game.num_distinct_actions()
        self._observation_spaces = {agent: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), dtype=np.int8)}) for agent in self.possible_agents}
        self._action_spaces = {agent: gymnasium.spaces.Discrete(n) for agent in self.possible_agents}
        self._seeds = random.Random(0)  # the seeds of the deals after a reset without a seed
        self.state = None  # the gamedsl State of the game in progress

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game; with `seed`, the same seed deals the same game (and the resets after it)."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.state = self.game.new_state(self.players, self._seeds.getrandbits(64), self.options)
        if self.max_moves:
            self.state.move_limit = min(self.state.move_limit, self.max_moves)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._select()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        legal = self.ids.legal(self.state)
        if int(action) not in legal:
            raise IllegalAction(f"'{self.game.action_to_string(int(action))}' (action {action}) is not legal now: "
                                "the action mask holds the legal moves")
        self.state.apply_action(legal[int(action)])
        self._clear_rewards()
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _select(self):
        """Select the seat to decide; at the end, the rewards and every agent done."""
        state = self.state
        if not state.is_terminal():
            self.agent_selection = self.possible_agents[state.current_player()]
            return
        done = self.truncations if state.limit_hit else self.terminations
        for agent, value in zip(self.possible_agents, state.returns()):
            self.rewards[agent] = float(value)
            done[agent] = True
        self.agent_selection = self.possible_agents[0]

    def observe(self, agent):
        player = self._seat[agent]
        mask = np.zeros(self.game.num_distinct_actions(), np.int8)
        if not self.state.is_terminal() and self.state.current_player() == player:
            mask[list(self.ids.legal(self.state))] = 1
        return {"observation": self.encoding.encode(self.state.observation(player), player), "action_mask": mask}

    def render(self):
        """The selected seat's observation as text (what that seat sees, never the whole state)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: env(..., render_mode='ansi')")
            return None
        player = self._seat[self.agent_selection]
        text = json.dumps(self.state.observation(player), ensure_ascii=False, indent=1)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


def env(game: Game | str, players: int | None = None, options: dict | None = None, max_moves: int = 0,
        render_mode: str | None = None):
    """The environment of a .game file (path or loaded Game), wrapped in PettingZoo's order checks."""
    return wrappers.OrderEnforcingWrapper(GamedslEnv(game, players, options, max_moves, render_mode))


raw_env = GamedslEnv
