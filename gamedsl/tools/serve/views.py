"""What is sent to one seat (its own observation, its moves as it saw them) or to a spectator
(what every seat sees: the public view).

Every card name that leaves the server comes from `state.observation(seat)` or from
`game.move_text(state, k, seat)`, the engine's own readings for that seat; a spectator's view is
put together from the seats' observations, keeping only what all of them see.
"""
from __future__ import annotations

from ...engine.view import LOG_SHOWN

SPECTATOR = -1


def public_view(state) -> dict:
    """What a spectator sees: what every seat sees, and nothing more. A zone as the seat that sees
    least of it (a hand as the other seats see it, one facing away as its owner does; the top of a
    pile only if every seat sees it), a variable only where every seat sees the same value, no seat's
    private values, no decision of anyone's, the moves every seat knows of."""
    game = state.game
    n = state.np
    views = [state.observation(k) for k in range(n)]
    names = [game.player_name(k) for k in range(n)]
    base = views[0]
    zones = {}
    for name, v in base["zones"].items():
        if isinstance(v, dict) and set(v) == set(names):  # one instance per player
            # every seat's view, the owner's too: a hand facing away ('others') is seen least by its owner
            zones[name] = {p: _common([views[q]["zones"][name][p] for q in range(n)]) for p in names}
        else:
            zones[name] = _common([views[k]["zones"].get(name) for k in range(n)])
    variables = {}
    for name, v in base["vars"].items():
        seen = [views[k]["vars"].get(name, _ABSENT) for k in range(n)]
        if any(x is _ABSENT for x in seen):
            continue  # not every seat sees it now (`when`)
        if isinstance(v, dict):  # per player or per card: the entries every seat sees alike
            common = {key: x for key, x in v.items() if all(key in other and other[key] == x for other in seen)}
            if common or not v:
                variables[name] = common
        elif all(x == v for x in seen):
            variables[name] = v
    waiting = game.waiting_for(state) if state.window is not None else -1
    view = {"game": base["game"], "player": None, "round": base["round"],
            "move": game.moves_known(state, SPECTATOR),
            "to_move": None if state.is_terminal() else game.player_name(waiting) if state.window is not None
            and waiting >= 0 else None if state.window is not None else game.player_name(state.current_player()),
            "zones": zones, "vars": variables, "moves": [],
            # what the rules said, as every seat read it: a card not every seat saw reads as hidden
            "log": [game.log_line(entry, SPECTATOR) for entry in game.lines_read(state, SPECTATOR)[-LOG_SHOWN:]]}
    for key in ("teams", "eliminated", "results", "places", "labels"):
        if key in base:
            view[key] = base[key]
    return view


_ABSENT = object()


def _outside(v):
    """A zone as a seat that does not own it sees it, without what that seat alone was shown."""
    if isinstance(v, dict):
        return {k: x for k, x in v.items() if k not in ("known", "told")}
    return v


def _common(vs: list):
    """A zone as every seat sees it: the cards if all see them, else how many there are, with the
    top card and the backs where every seat sees the same."""
    if all(v == vs[0] for v in vs):
        return _outside(vs[0]) if isinstance(vs[0], dict) else vs[0]
    counts = [len(v) if isinstance(v, list) else v["count"] for v in vs]
    out = {"count": counts[0]}
    dicts = [v for v in vs if isinstance(v, dict)]
    for key in ("top", "backs"):
        if len(dicts) == len(vs) and all(key in d and d[key] == dicts[0][key] for d in dicts):
            out[key] = dicts[0][key]
    return out


def move_seen(state, k: int, viewer: int) -> str:
    """Move number k as a seat saw it; for a spectator, as the seats that did not make it saw it
    (hidden if any of them was not shown its card)."""
    game = state.game
    if viewer >= 0:
        return game.move_text(state, k, viewer)
    player = state.card_moves[k - state.hbase][0]
    full = game.action_to_string(state.history[k - state.hbase])
    texts = [game.move_text(state, k, q) for q in range(state.np) if q != player]
    hidden = [t for t in texts if not t.startswith(full)]
    return hidden[0] if hidden else texts[0] if texts else game.move_text(state, k, player)


def _in_counting_order(state, events: list):
    """The answers of a reaction window or race (moves with a reaction time, one after the other)
    listed in the order they counted: the player whose move opened it first (still in motion:
    'said as they played'), then fastest first; the engine asked them in another order."""
    k = 0
    while k < len(events):
        j = k
        while j < len(events) and events[j][0][0] - 1 in state.times:
            j += 1
        if j - k > 1 or (j > k and events[k][0][0] - 1 in state.times):
            group = events[k:j]
            first = events[k][0][0] - 2  # the move before the window: its player was in motion
            opener = state.card_moves[first - state.hbase][0] if first >= state.hbase else -1
            decoded, hb = state.game.decoded, state.hbase
            if not any(decoded[state.history[e[0][0] - 1 - hb]][0].anytime or
                       decoded[state.history[e[0][0] - 1 - hb]][0] is state.prog.no_reaction for e in group):
                opener = -1  # a race: nobody is in motion, the fastest counts first
            keys = [(e[1]["who"] != state.game.player_name(opener), state.times[e[0][0] - 1]) for e in group]
            order = sorted(range(len(group)), key=keys.__getitem__)
            for n, i in enumerate(order):  # the entries in counting order, at the group's places
                entry = dict(group[i][1])
                if not keys[i][0] and n == 0 and len(group) > 1:
                    entry["text"] += " — first: said as they played"
                events[k + n] = (group[n][0], entry)
        k = max(j, k + 1)


class SeatLog:
    """The running log of one seat (or of a spectator): every move as it saw it, and what the rules
    said, in the order they happened. Built as moves settle: the answers in an open reaction
    window are added once it closes."""

    def __init__(self, viewer: int):
        self.viewer = viewer
        self.entries: list[dict] = []
        self.moves_done = 0  # moves already turned into entries
        self.said_done = 0  # lines of state.log already turned into entries

    def update(self, state) -> int:
        """Add what settled since the last update; returns the index of the first new entry."""
        first = len(self.entries)
        game = state.game
        settled = state.window_start if state.window is not None else state.moves
        no_reaction = game.prog.no_reaction.first_id if game.prog.no_reaction is not None else -1
        events = []
        for k in range(self.moves_done, settled):
            who = state.card_moves[k - state.hbase][0]
            if state.history[k - state.hbase] == no_reaction and who != self.viewer:
                continue  # letting a moment pass is seen by nobody else
            events.append(((k + 1, 0), {"who": game.player_name(who), "you": who == self.viewer,
                                        "text": move_seen(state, k, self.viewer)}))
        _in_counting_order(state, events)
        self.moves_done = max(self.moves_done, settled)
        said = state.log
        while self.said_done < len(said) and said[self.said_done][0] <= settled:
            entry = said[self.said_done]
            m, who, text, r = entry
            line = {"said": game.said_text(text, self.viewer), "round": r}  # a card only if this seat saw it
            if not getattr(text, "table", False):  # the table's own announcements name nobody
                line["who"] = game.player_name(who)
            events.append(((m, 1), line))
            self.said_done += 1
        events.sort(key=lambda e: e[0])
        self.entries.extend(e for _, e in events)
        return first
