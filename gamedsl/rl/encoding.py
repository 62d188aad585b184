"""A fixed-size vector of what one seat sees, read from its observation dict only.

The layout is fixed per game and player count, and seats are relative: slot 0 is the seat
observing, slot 1 the next seat in turn order, and so on. The vector holds, in this order:

- `cards`   (zone slots × card kinds): how many cards of each kind the seat sees in each zone;
- `top`     (stacked zone slots × card kinds): the card the seat sees on top of each pile;
- `counts`  (zone slots): how many cards each zone holds (every seat sees a zone's size);
- `backs`   (zone slots × backs): the cards' backs, in a game whose backs show something;
- `vars`    the variables the seat may see: a number as it is, yes/no as 0/1, a player, a card
            or a value one-hot (with a last place for "none");
- `to_move` (seats + 1): whose move the seat sees (the last place: nobody, or unseen);
- `window`  (2): a reaction window or a race is open for the seat;
- `round`, `move` (1 each): the round number and the number of moves the seat knows of;
- `out`     (seats): the eliminated players;
- `result`  (seats × 2): at the end, who won and who lost;
- `told`    (zone slots × places × attribute values): in a game that tells players parts of
            cards (`reveal c.colour`), the values the seat was told each card it does not see
            has not (1: ruled out), by place from the bottom of the zone; empty in other games.

A zone slot is a zone shared by all, or one seat's instance of a per-player zone. Card kinds
are the distinct card names (copies of one card share a kind). A variable of type text is left
out. Nothing in it comes from anything but `state.observation(player)`.
"""
from __future__ import annotations

import numpy as np

from ..language import types as T

BOUND = 1e9  # no value of a vector goes past this, either way


class Encoding:
    """The observation vector of one game at one player count: `encode(observation, player)`."""

    def __init__(self, game, players: int):
        prog = game.prog
        self.game, self.players = game, players
        self.seats = {game.player_name(k): k for k in range(players)}
        self.kinds = {name: k for k, name in enumerate(dict.fromkeys(prog.card_names))}
        self.backs = ({name: k for k, name in enumerate(dict.fromkeys(game._back_name(c)
                                                                        for c in range(prog.card_count())))}
                      if prog.back else {})
        self.slots: dict[tuple, int] = {}  # (zone name, relative seat or None) -> zone slot
        self.stacks: dict[int, int] = {}  # zone slot of a pile -> its row in `top`
        for z in prog.zones:
            for rel in (range(players) if z.per_player else (None,)):
                slot = self.slots[(z.name, rel)] = len(self.slots)
                if z.stack:
                    self.stacks[slot] = len(self.stacks)
        self.vars = [(v, self._width(v.type)) for v in prog.vars if v.visibility != "hidden"]
        # what a seat was told ("red, not 1"): a place per card at most, a column per attribute value
        self.told_places = prog.card_count() if "s.tell(" in prog.module else 0
        self.told_columns: dict[str, tuple[int, int]] = {}  # value name -> (first column of its attribute, its own)
        columns = 0
        for _, values, _ in prog.attributes:
            for k, value in enumerate(values):
                self.told_columns.setdefault(value, (columns, columns + k, len(values)))
            columns += len(values)
        nslots, nkinds = len(self.slots), len(self.kinds)
        pieces = [("cards", (nslots, nkinds)), ("top", (len(self.stacks), nkinds)), ("counts", (nslots,)),
                  ("backs", (nslots, len(self.backs))), ("vars", (sum(self._var_size(v, w) for v, w in self.vars),)),
                  ("to_move", (players + 1,)), ("window", (2,)), ("round", (1,)), ("move", (1,)),
                  ("out", (players,)), ("result", (players, 2)),
                  ("told", (nslots, self.told_places, columns if self.told_places else 0))]
        self.pieces = [(name, int(np.prod(shape)), shape) for name, shape in pieces]
        self.size = sum(size for _, size, _ in self.pieces)

    # ---- layout
    def _width(self, typ: str) -> int:
        """How many numbers one value of a variable's type takes."""
        if typ in (T.NUM, T.BOOL):
            return 1
        if typ == T.PLAYER:
            return self.players + 1
        if typ == T.CARD:
            return len(self.kinds) + 1
        if T.is_value(typ):
            return len(self._values(typ)) + 1
        return 0  # a text: not encoded

    def _var_size(self, var, width: int) -> int:
        if var.per_player:
            return self.players * width
        if var.per_card:
            return len(self.kinds) * width
        return width

    def _values(self, typ: str) -> list:
        """An attribute's values as the observation writes them (Game.value_text: by their symbols)."""
        for name, values, _ in self.game.prog.attributes:
            if name == typ[6:]:
                return [self.game.value_text(typ, i) for i in range(len(values))]
        return []

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The least and greatest value of each place (for a Box space): numbers of the game's
        variables may be negative; counts and one-hot places are not."""
        low, high = np.zeros(self.size, np.float32), np.full(self.size, BOUND, np.float32)
        self.views(low)["vars"][:] = -BOUND
        return low, high

    def views(self, tensor: np.ndarray) -> dict:
        """The named, shaped parts of a flat vector (views into it, as OpenSpiel's observers give)."""
        out, at = {}, 0
        for name, size, shape in self.pieces:
            out[name] = tensor[at:at + size].reshape(shape)
            at += size
        return out

    # ---- reading an observation
    def seat(self, name: str | None, player: int) -> int:
        """A player's name ("P2") as a seat relative to `player`; `players` for none."""
        if name is None:
            return self.players
        return (self.seats[name] - player) % self.players

    def encode(self, obs: dict, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """The vector of one seat's observation (written into `out` if given)."""
        tensor = np.zeros(self.size, np.float32) if out is None else out
        tensor.fill(0)
        parts = self.views(tensor)
        for zone, view in obs["zones"].items():
            if isinstance(view, dict) and (zone, None) not in self.slots:  # a per-player zone
                for name, seen in view.items():
                    self._zone(parts, self.slots[(zone, self.seat(name, player))], seen)
            else:
                self._zone(parts, self.slots[(zone, None)], view)
        at, values, out_vars = 0, obs["vars"], parts["vars"]
        for var, width in self.vars:
            size = self._var_size(var, width)
            if width and var.name in values:
                self._var(out_vars[at:at + size], var, width, values[var.name], player)
            at += size
        parts["to_move"][self.seat(obs["to_move"], player)] = 1
        window = obs.get("window")
        if window is not None:
            parts["window"][0 if window == "react" else 1] = 1
        parts["round"][0] = obs["round"]
        parts["move"][0] = obs["move"]
        for name in obs.get("eliminated", ()):
            parts["out"][self.seat(name, player)] = 1
        for name, result in obs.get("results", {}).items():
            if result in ("win", "lose"):
                parts["result"][self.seat(name, player), 0 if result == "win" else 1] = 1
        return tensor

    def _zone(self, parts: dict, slot: int, view):
        if isinstance(view, dict) and view.get("told") and self.told_places:
            self._told(parts["told"][slot], view["told"])
        kinds, cards = self.kinds, parts["cards"][slot]
        if isinstance(view, list):  # every card seen
            for name in view:
                cards[kinds[name]] += 1
            parts["counts"][slot] = len(view)
            if view and slot in self.stacks:
                parts["top"][self.stacks[slot], kinds[view[-1]]] = 1
            return
        parts["counts"][slot] = view["count"]
        top = view.get("top")
        if top is not None:
            cards[kinds[top]] += 1
            parts["top"][self.stacks[slot], kinds[top]] = 1
        for name in view.get("known", ()):
            if name != top:
                cards[kinds[name]] += 1
        for back, n in view.get("backs", {}).items():
            parts["backs"][slot, self.backs[back]] = n

    def _told(self, out: np.ndarray, told: list):
        """What the seat was told of each place ("red, not 1", "?"): the values ruled out."""
        for place, text in enumerate(told[:self.told_places]):
            for part in text.split(", "):
                negated = part.startswith("not ")
                found = self.told_columns.get(part[4:] if negated else part)
                if found is None:
                    continue  # "?": nothing told
                first, column, size = found
                if negated:
                    out[place, column] = 1
                else:  # its value is told: every other value of the attribute is ruled out
                    out[place, first:first + size] = 1
                    out[place, column] = 0

    def _var(self, out: np.ndarray, var, width: int, value, player: int):
        if var.per_player:
            for name, v in value.items():
                k = self.seat(name, player)
                self._scalar(out[k * width:(k + 1) * width], var.type, v, player)
        elif var.per_card:
            for name, v in value.items():
                k = self.kinds[name]
                self._scalar(out[k * width:(k + 1) * width], var.type, v, player)
        else:
            self._scalar(out, var.type, value, player)

    def _scalar(self, out: np.ndarray, typ: str, value, player: int):
        if typ in (T.NUM, T.BOOL):
            out[0] = min(max(float(value or 0), -BOUND), BOUND)
        elif typ == T.PLAYER:
            out[self.seat(value, player)] = 1
        elif typ == T.CARD:
            out[len(self.kinds) if value is None else self.kinds[value]] = 1
        else:
            values = self._values(typ)
            out[values.index(value) if value in values else len(values)] = 1
