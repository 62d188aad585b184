"""What one player sees of a game in progress: zones and variables by visibility, the moves they
saw, their legal moves (a mixin of Game)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..language import types as T
from .flow import action_exit

if TYPE_CHECKING:
    from .state import State

_MOVES_SHOWN = 60  # an observation lists at most this many past moves


class View:
    """observe, move_text, cards_seen...: every reading of a state on behalf of one player."""

    def observe(self, state: State, player: int) -> dict:
        """What one player sees: zones by visibility, variables, whose move, own legal moves."""
        zones = {}
        for z in self.prog.zones:
            if z.transient and not any(state.z[z.base + k] for k in range(state.np if z.per_player else 1)):
                continue  # a transient zone is on the table only while it holds cards
            if z.per_player:
                zones[z.name] = {self.player_name(k): self._zone_view(state, z, z.base + k, k == player, player)
                                 for k in range(state.np)}
            else:
                zones[z.name] = self._zone_view(state, z, z.base, False, player)
        variables = {}
        for var in self.prog.vars:
            if var.visibility == "hidden":
                continue
            if var.per_player:
                seats = [player] if var.visibility == "owner" else range(state.np)
                variables[var.name] = {self.player_name(k): self._value(var.type, state.v[var.base + k])
                                       for k in seats}
            elif var.per_card:  # the cards whose value is not the starting one, of those the player sees
                start = var.init(state)
                variables[var.name] = {self.card_name(c): self._value(var.type, state.v[var.base + c])
                                       for c in range(len(state.loc))
                                       if state.v[var.base + c] != start and state.sees_card(player, c)}
            else:
                variables[var.name] = self._value(var.type, state.v[var.base])
        to_move = state.current_player()
        if state.window is not None and to_move != player:
            to_move = -1  # everyone answers a reaction window at once: who is still thinking is not seen
        view = {
            "game": self.name, "player": self.player_name(player), "round": state.round,
            # the moves this player knows of: others letting a reaction window pass is not seen
            "move": state.moves - sum(state.passes) + state.passes[player],
            "to_move": self.player_name(to_move) if to_move >= 0 else None,
            "zones": zones, "vars": variables,
            "log": [f"{self.player_name(p)}: {text}" for _, p, text, _ in state.log[-8:]],
            "moves": self.moves_seen(state, player),
        }
        if state.out:
            view["eliminated"] = [self.player_name(k) for k in range(state.np) if state.out >> k & 1]
        if to_move == player:
            view["legal"] = [self._strings[a] for a in self.display_order(state.pending[1])]
            if state.window is not None:  # everyone asked answers at once; the fastest counts
                view["window"] = state.window[0]
        if state.terminal:
            view["results"] = {self.player_name(k): state.results[k] for k in range(state.np)}
            view["places"] = {self.player_name(k): state.places[k] for k in range(state.np)}
        return view

    def visibility(self, state: State, instance: int, viewer: int) -> str:
        """How a zone instance shows its cards to one player now: its declared visibility, changed
        by the modifiers in force (read with `owner` the zone's owner, or the viewer for a shared zone)."""
        z, owner = self._instance_names[instance]
        vis = z.visibility
        if z.changes:
            e = [viewer if owner is None else owner]
            for cond, word in z.changes:
                if cond(state, e):
                    vis = word
        return vis

    def sees(self, state: State, instance: int, observer: int, on_top: bool) -> bool:
        """Whether a player sees a card in a zone instance (in a 'top' zone, only while it is on top)."""
        z, owner = self._instance_names[instance]
        vis = self.visibility(state, instance, observer) if z.changes else z.visibility
        return vis == "public" or (vis == "top" and on_top) or (vis == "owner" and owner == observer)

    def seen_by(self, state: State, instance: int, on_top: bool) -> int:
        """The players who see a card in a zone instance now, as a bit mask."""
        z, owner = self._instance_names[instance]
        if owner is not None or not z.changes:  # one visibility for every viewer (a zone's owner decides)
            vis = self.visibility(state, instance, 0) if z.changes else z.visibility
            if vis == "public" or (vis == "top" and on_top):
                return (1 << state.np) - 1
            return 1 << owner if vis == "owner" and owner is not None else 0
        return sum(1 << p for p in range(state.np) if self.sees(state, instance, p, on_top))

    def move_text(self, state: State, index: int, observer: int) -> str:
        """Move number `index` as one player saw it: a card nobody showed them stays hidden."""
        action = state.history[index - state.hbase]
        player, src, src_top, dst, dst_top = state.card_moves[index - state.hbase]
        if src >= 0 and dst == src:  # the move may still be running (it asked for more): where is its card now?
            for fr in state.stack:
                if fr[3] is action_exit and fr[4][1] == index:
                    card = fr[4][2]
                    dst = state.loc[card]
                    dst_top = state.z[dst][-1] == card
        act, card = self.decoded[action]
        saw = state.saw.get(index)
        if saw is None:  # the zones show as they always do: read now
            seen = src >= 0 and (self.sees(state, src, observer, src_top) or self.sees(state, dst, observer, dst_top))
        else:  # as they showed at the time
            seen = saw[0] >> observer & 1 or (self.sees(state, dst, observer, dst_top) if saw[1] is None
                                              else saw[1] >> observer & 1)
        if player == observer or seen or (src < 0 and (act.param_type != T.CARD or state.sees_card(observer, card))):
            # (src < 0: the move has not moved its card, an answer waiting or too late: it is where it was)
            text = self._strings[action]
        else:
            text = f"{act.label} a card"
        if index in state.times:  # an answer in a reaction window or a race: how fast it was
            text += f" ({state.times[index]:.2f} s{', too late' if index in state.late else ''})"
        return text

    def moves_seen(self, state: State, player: int) -> list[str]:
        """The moves since the player's own last move (that one included), as the player saw them.

        While a reaction window or race is collecting answers, the others' answers are not
        shown yet (everyone answers at once); letting a moment pass is not shown at all."""
        base = state.hbase
        start = max(base, state.moves - _MOVES_SHOWN)
        for k in range(state.moves - 1, start - 1, -1):
            if state.card_moves[k - base][0] == player:
                start = k
                break
        hidden_from = state.window_start if state.window is not None else state.moves
        no_reaction = self.prog.no_reaction.first_id if self.prog.no_reaction is not None else -1
        return [f"{self.player_name(state.card_moves[k - base][0])}: {self.move_text(state, k, player)}"
                for k in range(start, state.moves)
                if state.history[k - base] != no_reaction and (k < hidden_from or state.card_moves[k - base][0] == player)]

    def display_order(self, actions) -> list[int]:
        """Moves in the order to show them: by action, then by card (suit, then rank)."""
        def key(a):
            act, arg = self.decoded[a]
            return (act.first_id, self._sort_keys[arg] if act.param_type == T.CARD else (arg,))
        return sorted(actions, key=key)

    def cards_seen(self, state: State, instance: int, player: int) -> list[int]:
        """The cards of a zone instance a player sees now (what their observation names)."""
        cards = state.z[instance]
        vis = self.visibility(state, instance, player)
        _, owner = self._instance_names[instance]
        if vis == "public" or (vis == "owner" and owner == player):
            return list(cards)
        return [c for k, c in enumerate(cards)
                if (vis == "top" and k == len(cards) - 1) or (state.known and state.knows(player, c))]

    def _zone_view(self, state: State, z, instance: int, own: bool, player: int):
        cards = state.z[instance]
        vis = self.visibility(state, instance, player)
        if not z.stack and vis != "top":  # a hand's order tells nothing: show it sorted
            cards = sorted(cards, key=self._sort_keys.__getitem__)
        if vis == "public" or (vis == "owner" and own):
            return [self.card_name(c) for c in cards]
        view: dict = {"count": len(cards)}
        if vis == "top":
            view["top"] = self.card_name(cards[-1]) if cards else None
        if self.prog.back and cards:
            backs = {}
            for c in sorted(cards, key=self._sort_keys.__getitem__):
                backs[self._back_names[c]] = backs.get(self._back_names[c], 0) + 1
            view["backs"] = backs
        if state.known:
            known = [self.card_name(c) for c in cards if state.knows(player, c)]
            if known:
                view["known"] = known
        return view

    def _value(self, typ: str, value):
        if typ == T.PLAYER:
            return None if value is None else self.player_name(value)
        if typ == T.CARD:
            return self.card_name(value) if value is not None and value >= 0 else None
        if T.is_value(typ):
            for name, values, _ in self.prog.attributes:
                if name == typ[6:]:
                    return values[value] if 0 <= value < len(values) else None
        return value


