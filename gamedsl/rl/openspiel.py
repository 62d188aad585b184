"""Any .game file as an OpenSpiel game, so OpenSpiel's algorithms and tests run on it.

`pyspiel.load_game("gamedsl", {"path": "path/to/my.game", "players": 4})` loads any file;
`register(path)` registers one file under a name of its own ("gamedsl_my" for my.game). The game starts
at chance nodes whose outcomes make the gamedsl seed: eight of 256 outcomes each, the eight bytes
of a 64-bit seed (or, with `seeds=N`, one of N seeds: a space small enough for a seat to find the
deal from its first hand, for tests only). Every shuffle and deal follows from the seed, so after
it the rules run with no further chance nodes. Reaction
windows and races are ordinary decisions of the player `current_player()` names.

What a seat may know comes from `State.observation(player)` only: the observation string is
that dict as text, the observation tensor its `Encoding`. The information state of a seat is
its observation now plus a digest of every earlier observation it had (perfect recall
without a string that grows with the game); its tensor is the observation tensor plus, per
zone and card kind, whether the seat ever saw such a card there. `resample_from_infostate`
deals a world consistent with what the seat knows (engine.knowledge.Redealer) with a fresh
future.
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pyspiel

from ..engine.game import load_game as load_dsl
from ..engine.knowledge import SEARCH, Redealer
from ..errors import GamedslError
from ..language.program import MAX_SEATS
from .encoding import Encoding
from .moves import MoveIds

NAME = "gamedsl"
DEFAULT_SEEDS = 0  # 0: a 64-bit seed, one byte per chance node; N: one chance node picks one of N seeds
SEED_BYTES = 8
NO_LIMIT_LENGTH = 100_000  # the longest game assumed for a game without `limit N moves`
_DEFAULTS = {"path": "", "players": 0, "options": "", "seeds": DEFAULT_SEEDS, "max_moves": 0}
_LOADED: dict = {}  # (path, modification time) -> gamedsl Game
_REGISTERED: dict = {}  # the names register() gave -> the file of each


def game_type(short_name: str, long_name: str, min_players: int, max_players: int, defaults: dict,
              loadable: bool = True) -> pyspiel.GameType:
    """The OpenSpiel game type of a gamedsl game: sequential, imperfect information, chance explicit."""
    return pyspiel.GameType(
        short_name=short_name, long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players, min_num_players=min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=defaults, default_loadable=loadable)


def parse_options(text: str) -> dict:
    """Options written `name=value;name=value`, or `name:value;...` (a game string such as
    "gamedsl_x(options=target:500)" can hold neither '=' nor ',' in a value)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        cut = min((k for k in (part.find("="), part.find(":")) if k >= 0), default=-1)
        if cut < 0:
            raise GamedslError(f"an option is written name=value or name:value, not '{part}'")
        out[part[:cut].strip()] = part[cut + 1:].strip()
    return out


def dsl_game(path: str):
    """The gamedsl Game of a file, loaded once per version of the file."""
    p = Path(path).resolve()
    try:
        key = (str(p), p.stat().st_mtime_ns)
    except OSError as exc:
        raise GamedslError(f"{path}: cannot read: {exc.strerror}") from None
    if key not in _LOADED:
        _LOADED[key] = load_dsl(p)
    return _LOADED[key]


class GamedslGame(pyspiel.Game):
    """A .game file as an OpenSpiel game. Parameters: path; players (0: the fewest); options
    (`name=value;...`); seeds (0: a 64-bit seed, a byte per chance node; N: one chance node picks one
    of N seeds); max_moves (0: the game's own
    limit; else the game stops unfinished after that many moves, every return 0)."""

    TYPE = game_type(NAME, "A gamedsl .game file", 1, MAX_SEATS, _DEFAULTS, loadable=False)
    DEFAULTS = _DEFAULTS

    def __init__(self, params=None, dsl=None):
        params = {**self.DEFAULTS, **(params or {})}
        if dsl is None and not params["path"]:
            raise GamedslError("give the .game file: pyspiel.load_game('gamedsl', {'path': ...})")
        self.dsl = game = dsl if dsl is not None else dsl_game(params["path"])
        self.players = int(params["players"]) or game.min_players
        self.options = game.check_options(parse_options(params["options"]))
        game.new_state(self.players, 0, self.options)  # a bad player count or option fails here, at once
        self.seeds = int(params["seeds"])
        if self.seeds < 0:
            raise GamedslError(f"seeds is 0 (a 64-bit seed) or how many seeds one chance node picks from, "
                               f"not {self.seeds}")
        self.outcomes = 256 if self.seeds == 0 else self.seeds  # per chance node
        self.chance_nodes = SEED_BYTES if self.seeds == 0 else 1
        self.encoding = Encoding(game, self.players)
        self.ids = MoveIds(game)
        limit = game.prog.move_limit or NO_LIMIT_LENGTH
        self.max_moves = int(params["max_moves"])  # 0: the game's own limit
        if 0 < self.max_moves < limit:
            limit = self.max_moves
        info = pyspiel.GameInfo(num_distinct_actions=game.num_distinct_actions(), max_chance_outcomes=self.outcomes,
                                num_players=self.players, min_utility=-1.0, max_utility=1.0,
                                max_game_length=limit + self.chance_nodes)
        super().__init__(self.TYPE, info, params)

    @classmethod
    def of(cls, dsl, players: int, options: dict | None = None, **params) -> "GamedslGame":
        """The OpenSpiel game of a gamedsl Game already loaded (not registered: made directly)."""
        text = ";".join(f"{k}={v}" for k, v in (options or {}).items())
        return cls({"path": dsl.prog.filename, "players": players, "options": text, **params}, dsl=dsl)

    def new_initial_state(self):
        return GamedslState(self)

    def wrap(self, inner) -> "GamedslState":
        """An OpenSpiel state around a copy of a gamedsl State of this game, its chance node past. The
        seats' records of what they saw start from now: its information states know nothing earlier."""
        state = GamedslState(self)
        state.run.inner = inner.clone()
        state.run.start_from(state.run.inner)
        state.run.actions = None
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation (default) or, with perfect recall, the information state of a seat."""
        if params:
            raise ValueError(f"gamedsl observers take no parameters, not {params}")
        return GamedslObserver(self, bool(iig_obs_type and iig_obs_type.perfect_recall))


class _Run:
    """A state's own data, in one object: OpenSpiel clones a Python state by deep-copying each of
    its attributes, and this one copies itself the cheap way (a gamedsl clone, shared records)."""

    def __init__(self, game: GamedslGame):
        self.game = game
        self.inner = None  # the gamedsl State, once the chance nodes have made its seed
        self.chance: list[int] = []  # the chance nodes' outcomes so far
        n = game.players
        # What each seat observed before its present observation: a digest of the sequence, and
        # per zone slot and card kind whether it ever saw such a card there. They are brought up to
        # date only when asked (`catch_up`), by replaying the moves made since on a copy of `base`,
        # the state they were last brought up to: a rollout, which never asks, pays nothing for them.
        self.digests = [""] * n
        self.last = [None] * n  # per seat: its observation text when last brought up to date
        self.memory = [None] * n
        self.base = None  # never changed once set (copies share it)
        self.folded = False  # whether the seats' records hold what they see in `base`
        self.todo: list = []  # gamedsl's moves made since `base`
        self.actions: list | None = []  # OpenSpiel's actions from the start (None: a wrapped state)

    def apply(self, action: int):
        """Apply one of OpenSpiel's actions: the chance node's seed, or a move by its id."""
        g = self.game
        if self.inner is None:
            self.chance.append(action)
            if len(self.chance) < g.chance_nodes:
                if self.actions is not None:
                    self.actions.append(action)
                return
            seed = self.chance[0] if g.seeds else int.from_bytes(bytes(self.chance), "big")
            self.inner = inner = g.dsl.new_state(g.players, seed, g.options)
            if g.max_moves:  # stopped unfinished after that many moves, as by the game's own limit
                inner.move_limit = min(inner.move_limit, g.max_moves)
            self.start_from(inner)
        else:
            move = g.ids.legal(self.inner)[action]
            self.inner.apply_action(move)
            self.todo.append(move)
        if self.actions is not None:
            self.actions.append(action)

    def __getstate__(self):
        """Pickled as the game and the actions from the start (OpenSpiel serializes a state so)."""
        if self.actions is None:
            raise GamedslError("a state made by wrap() has no history from the start: it cannot be pickled")
        return {"game": str(self.game), "actions": self.actions}

    def __setstate__(self, data):
        self.__init__(pyspiel.load_game(data["game"]))
        for action in data["actions"]:
            self.apply(action)

    def __deepcopy__(self, memo):
        self.catch_up()  # once here, not once in every copy
        other = _Run.__new__(_Run)
        other.game = self.game
        other.inner = self.inner.clone() if self.inner is not None else None
        other.chance = self.chance[:]
        other.digests, other.last = self.digests[:], self.last[:]
        other.memory = self.memory[:]  # arrays never changed in place: shared
        other.base, other.folded, other.todo = self.base, self.folded, []
        other.actions = None if self.actions is None else self.actions[:]
        return other

    def start_from(self, inner):
        """Observe from `inner` on (after the chance node, a resample or a wrap)."""
        self.base, self.todo = inner.clone(), []

    def catch_up(self):
        """Fold what each seat saw since the last call into its record: replay the moves since."""
        if self.base is None:
            return
        if not self.folded:
            self.fold(self.base)
            self.folded = True
        if self.todo:
            state = self.base.clone()
            for move in self.todo:
                state.apply_action(move)
                self.fold(state)
            self.base, self.todo = state, []

    def fold(self, state):
        """Add what each seat sees in `state` to its record (if it saw a change)."""
        enc = self.game.encoding
        for p in range(self.game.players):
            obs = state.observation(p)
            text = json.dumps(obs, ensure_ascii=False)
            if text == self.last[p]:
                continue  # nothing this seat could see happened
            if self.last[p] is not None:
                self.digests[p] = hashlib.blake2b((self.digests[p] + self.last[p]).encode(),
                                                  digest_size=12).hexdigest()
            self.last[p] = text
            cards = enc.views(enc.encode(obs, p))["cards"] > 0
            self.memory[p] = cards if self.memory[p] is None else self.memory[p] | cards


class GamedslState(pyspiel.State):
    """A gamedsl State behind OpenSpiel's API, with what each seat has observed so far."""

    def __init__(self, game: GamedslGame):
        super().__init__(game)
        self.run = _Run(game)

    @property
    def inner(self):
        """The gamedsl State (None before the chance node)."""
        return self.run.inner

    # ---- OpenSpiel's state API
    def current_player(self):
        if self.inner is None:
            return pyspiel.PlayerId.CHANCE
        if self.inner.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.inner.current_player()

    def _legal_actions(self, player):
        return sorted(self.moves())

    def moves(self) -> dict:
        """The legal moves, OpenSpiel's id -> gamedsl's (moves.py: copies of a card by kind and zone)."""
        return self.run.game.ids.legal(self.inner)

    def chance_outcomes(self):
        n = self.run.game.outcomes
        return [(k, 1.0 / n) for k in range(n)]

    def _apply_action(self, action):
        self.run.apply(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}" if self.run.game.seeds else f"seed byte {action}"
        return self.run.game.dsl.action_to_string(action)

    def is_terminal(self):
        return self.inner is not None and self.inner.is_terminal()

    def returns(self):
        if self.inner is None:
            return [0.0] * self.run.game.players
        return self.inner.returns()

    def resample_from_infostate(self, player, probability_sampler):
        """A state the seat cannot tell from this one: the cards it cannot see dealt again, a new future."""
        other = self.clone()
        if self.inner is None:
            return other
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        worlds = Redealer(self.inner, player)
        world = worlds.deal(rng, reseed=True, tries=200, search=SEARCH)
        if world is None:  # no deal fits what was shown: one that tells nothing (never the real cards)
            world = worlds.blind(rng)
        other.run.inner = world
        other.run.start_from(world)  # (its seats' records so far: the real ones, caught up by clone())
        return other

    def __str__(self):
        """The whole state, every card where it lies (for debugging: no seat sees all this)."""
        inner = self.inner
        if inner is None:
            return "before the deal"
        game = inner.game
        lines = [f"{game.zone_instance_name(k)}: {' '.join(game.card_name(c) for c in inner.z[k])}"
                 for k in game.live_zones[inner.np] if inner.z[k]]
        who = "the game is over" if inner.is_terminal() else f"{game.player_name(inner.current_player())} to move"
        return "\n".join([*lines, f"after {inner.moves} moves, {who} (state {inner.digest()})"])

    # ---- what a seat has observed
    def observation_text(self, player: int) -> str:
        """What the seat sees now, as text (its observation dict in JSON)."""
        if self.inner is None:
            return "before the deal"
        return json.dumps(self.inner.observation(player), ensure_ascii=False)

    def information_text(self, player: int) -> str:
        """The seat's information state: what it sees now, and a digest of all it saw before."""
        self.run.catch_up()
        return f"{self.observation_text(player)}\nseen before: {self.run.digests[player] or 'nothing'}"


class GamedslObserver:
    """OpenSpiel's PyObserver for gamedsl: the observation, or with `recall` the information state."""

    def __init__(self, game: GamedslGame, recall: bool):
        self.encoding = enc = game.encoding
        self.recall = recall
        size = enc.size + (len(enc.slots) * len(enc.kinds) if recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = enc.views(self.tensor[:enc.size])
        if recall:
            self.dict["seen"] = self.tensor[enc.size:].reshape(len(enc.slots), len(enc.kinds))

    def set_from(self, state: GamedslState, player: int):
        enc = self.encoding
        if state.inner is None:
            self.tensor.fill(0)
            return
        enc.encode(state.inner.observation(player), player, self.tensor[:enc.size])
        if self.recall:
            state.run.catch_up()
            memory = state.run.memory[player]
            self.dict["seen"][:] = 0 if memory is None else memory

    def string_from(self, state: GamedslState, player: int) -> str:
        return state.information_text(player) if self.recall else state.observation_text(player)


def register(path, name: str | None = None) -> str:
    """Register one .game file as an OpenSpiel game of its own ("gamedsl_" + the file's stem, unless
    `name` is given), its player counts those of the game; returns the name to load it by."""
    game = dsl_game(str(path))
    short = name or f"{NAME}_{Path(path).stem}"
    full = str(Path(path).resolve())
    if _REGISTERED.get(short) == full:
        return short
    if short in pyspiel.registered_names():
        raise GamedslError(f"OpenSpiel already has a game called '{short}': register {path} under another name")
    _REGISTERED[short] = full
    defaults = {**_DEFAULTS, "path": full, "players": game.min_players}
    cls = type(f"Gamedsl_{Path(path).stem}", (GamedslGame,), {
        "TYPE": game_type(short, f"{game.name} (gamedsl)", game.min_players, game.max_players, defaults),
        "DEFAULTS": defaults})
    pyspiel.register_game(cls.TYPE, cls)
    return short


def load(path, players: int | None = None, options: dict | None = None, seeds: int = DEFAULT_SEEDS,
         max_moves: int = 0):
    """A .game file as a loaded OpenSpiel game (pyspiel.Game)."""
    text = ";".join(f"{k}={v}" for k, v in (options or {}).items())
    return pyspiel.load_game(NAME, {"path": str(Path(path).resolve()), "players": players or 0,
                                    "options": text, "seeds": seeds, "max_moves": max_moves})


pyspiel.register_game(GamedslGame.TYPE, GamedslGame)
