"""What one player sees of a game in progress: zones and variables by visibility, drawn as the
game file says (labels, `shows`, `when`), the moves they saw, what the rules said as they may read
it, their legal moves (a mixin of Game)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..language import types as T
from ..language.program import MAX_SEATS
from .flow import action_exit
from .runtime import rules_cache

if TYPE_CHECKING:
    from .state import State

_MOVES_SHOWN = 60  # an observation lists at most this many past moves
LOG_SHOWN = 8  # an observation lists the last lines the rules said, this many at most
NOTHING = "—"  # what the table shows for no player, no card, an empty list


class Said(str):
    """A line the rules said (`say`). As a str it is the text every seat can read: a card that not
    every seat saw where it lay when it was said reads as hidden. `msg` is its Message (the
    Program's: `template`, the text as written, braces and all; `table`, the table's own
    announcement, with no player before it in a log). A line that names cards keeps its pieces
    in `parts` for each seat's own reading (View.said_text): texts, and (card, bit mask of the
    seats that saw it); a line without cards reads the same for everyone (`parts` None)."""

    parts = None
    to = None  # `say "..." to p`: the one seat that reads it (None: every seat)

    @property
    def template(self) -> str:
        return self.msg.template

    @property
    def table(self) -> bool:
        return self.msg.table

    def with_parts(self, parts: tuple) -> Said:
        """The same line with other pieces (the same text for every seat)."""
        other = Said(self)
        other.msg, other.parts = self.msg, parts
        return other


class View:
    """observe, move_text, cards_seen...: every reading of a state on behalf of one player."""

    def observe(self, state: State, player: int) -> dict:
        """What one player sees: zones by visibility, variables, whose move, own legal moves."""
        zones = {}
        for z in self.prog.zones:
            if z.shows == "nothing" or z.transient and not any(state.z[z.base + k]
                                                                for k in range(state.np if z.per_player else 1)):
                continue  # not on the table (a transient zone: only while it holds cards)
            if z.per_player:
                zones[z.name] = {self.player_name(k): self._zone_view(state, z, z.base + k, k == player, player)
                                 for k in range(state.np)}
            else:
                zones[z.name] = self._zone_view(state, z, z.base, False, player)
        variables = {}
        for var in self.prog.vars:
            if var.visibility == "hidden" or (var.shown is not None and not self._shown(state, var, player)):
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
            to_move = self.waiting_for(state)
        view = {
            "game": self.name, "player": self.player_name(player), "round": state.round,
            "move": self.moves_known(state, player),
            "to_move": self.player_name(to_move) if to_move >= 0 else None,
            "zones": zones, "vars": variables, "labels": dict(self.labels),
            "log": [self.log_line(entry, player) for entry in self.lines_read(state, player)[-LOG_SHOWN:]],
            "moves": self.moves_seen(state, player),
        }
        if self.prog.teams:  # `players 4 in 2 teams`: who plays with whom
            view["teams"] = [[self.player_name(k) for k in range(t, state.np, self.prog.teams)]
                             for t in range(self.prog.teams)]
        if state.out:
            view["eliminated"] = [self.player_name(k) for k in range(state.np) if state.out >> k & 1]
        if to_move == player and state.current_player() == player:  # (not the decision a window waits for)
            view["legal"] = [self._strings[a] for a in self.display_order(state.pending[1])]
            if state.window is not None:  # everyone asked answers at once; the fastest counts
                view["window"] = state.window[0]
        if state.terminal:
            view["results"] = {self.player_name(k): state.results[k] for k in range(state.np)}
            if state.grades is not None:  # `grade P by E of N`: "37 of 52"
                view["grades"] = {self.player_name(k): f"{g[0]} of {g[1]}" for k, g in enumerate(state.grades) if g}
            view["places"] = {self.player_name(k): state.places[k] for k in range(state.np)}
        return view

    def moves_known(self, state: State, player: int) -> int:
        """How many moves a seat knows were made (player -1: every seat, a spectator): not the others'
        letting a moment pass, nor the answers others gave in a window still open (so the count does
        not rise when someone reacts, or tell who took part in a secret choice)."""
        passes = state.passes
        if state.window is None:
            return state.moves - sum(passes) + (passes[player] if player >= 0 else 0)
        answers = state.window[3]
        no_reaction = self.prog.no_reaction.first_id if self.prog.no_reaction is not None else -1
        open_passes = sum(1 for a in answers if a[3] == no_reaction)
        own = sum(1 for a in answers if a[2] == player)
        own_open_passes = sum(1 for a in answers if a[2] == player and a[3] == no_reaction)
        others_settled_passes = sum(passes) - open_passes - ((passes[player] - own_open_passes) if player >= 0 else 0)
        return state.window_start - others_settled_passes + own

    def waiting_for(self, state: State) -> int:
        """Who the table waits for, as a seat not asked in an open window sees it: before a decision,
        that decision's player (nobody sees that others were asked to react first); in a race or a
        simultaneous choice, which everyone answers at once, nobody in particular (-1)."""
        deferred = state.window[1]
        if state.window[0] == "react" and deferred is not None and deferred[0] == "ask":
            return deferred[1]
        return -1

    def _shown(self, state: State, var, player: int) -> bool:
        """Whether a variable with `when COND` is on the table now, for this player (`me` in COND)."""
        prev, state.me = state.me, player
        try:
            return bool(var.shown(state, None))
        finally:
            state.me = prev

    # ---- what the rules said
    def said(self, state: State, k: int, values: tuple) -> Said:
        """Message k said now with these values: each value as the game shows its type; a card with
        the seats that see it now (where it lies, or shown to them). Rules say things in the middle
        of every playout, so each message has a function of its own, written for its parts
        (`sayers[k]`, made on first use; State.say calls it)."""
        return self.sayers[k](state, values)

    def _first_say(self, k: int):
        """Message k's place in `sayers` until it is first said: makes its function, which takes
        the place, and says it."""
        def first(state: State, values: tuple) -> Said:
            sayer = self.sayers[k] = self._sayer(self.prog.messages[k])
            return sayer(state, values)
        return first

    def _sayer(self, msg):
        """The function (state, values) -> Said of one message: its texts and values joined in one
        expression; a card's part (card, the seats that see it now) computed in place."""
        if any(kind == "value" and T.is_list(x) and (x[5:] in (T.CARD, "players") or T.is_list(x[5:]))
               for kind, x in msg.parts):  # cards (who sees each, now) or lists in a list
            return lambda state, values: self._said_slowly(state, msg, values)
        ns = {"Said": Said, "MSG": msg, "SEEN": self.seen_by, "CN": tuple(self.prog.card_names),
              "HN": tuple(self._hidden_names), "PN": tuple(self.player_name(k) for k in range(MAX_SEATS)),
              "FIXED": self._seen_fixed}
        body, text, parts, cards, n = [], [], [], False, 0
        for kind, x in msg.parts:
            if kind == "text":
                text.append(repr(x))
                parts.append(repr(x))
                continue
            v, n = f"v{n}", n + 1
            if x == T.CARD:
                cards = True
                body += [f"if {v} is None or {v} < 0:", f"    p_{v} = t_{v} = {NOTHING!r}", "else:",
                         f"    z = s.loc[{v}]", "    m = FIXED[z]",  # who sees the zone's cards, if always the same
                         "    if m < 0:", f"        m = SEEN(s, z, s.z[z][-1] == {v})",
                         "    if s.known:", f"        m |= s.known.get({v}, 0)",
                         f"    p_{v} = ({v}, m)", f"    t_{v} = CN[{v}] if m & everyone == everyone else HN[{v}]"]
                text.append(f"t_{v}")
                parts.append(f"p_{v}")
                continue
            if x == "players" or T.is_list(x):  # each element as it would be said alone, joined
                each = self._value_code(T.PLAYER if x == "players" else x[5:], "_x", f"VT_{v}", ns)
                code = f"(', '.join([{each} for _x in {v}]) or {NOTHING!r})"
            else:
                code = self._value_code(x, v, f"VT_{v}", ns)
            text.append(code)
            parts.append(code)
        lines = ["def say(s, values):"]
        if n:
            lines.append(f"    {', '.join(f'v{i}' for i in range(n))}, = values")
        if cards:
            lines.append("    everyone = (1 << s.np) - 1")
        lines += ["    " + line for line in body]
        lines += [f"    said = Said({' + '.join(text) or repr('')})", "    said.msg = MSG"]
        if cards:
            lines.append(f"    said.parts = ({', '.join(parts)},)")
        lines.append("    return said")
        exec("\n".join(lines), ns)  # noqa: S102 - our own code, from the game's message
        return ns["say"]

    def _value_code(self, typ: str, v: str, table: str, ns: dict) -> str:
        """The code of a value of type `typ` (not a card) named `v` as the table shows it (see
        value_text); a value of an attribute reads its texts from `table` in `ns`."""
        if typ == T.BOOL:
            return f"('yes' if {v} else 'no')"
        if typ == T.PLAYER:
            return f"({NOTHING!r} if {v} is None else PN[{v}])"
        if T.is_value(typ) and typ[6:] in self._value_texts:
            ns[table] = texts = tuple(self._value_texts[typ[6:]])
            return f"({table}[{v}] if 0 <= {v} < {len(texts)} else {NOTHING!r})"
        return f"str({v})"

    def _said_slowly(self, state: State, msg, values: tuple) -> Said:
        """A message holding lists of cards (or of lists): its values one by one (see _say_value)."""
        parts: list = []
        values = iter(values)
        for kind, x in msg.parts:
            if kind == "text":
                parts.append(x)
            else:
                self._say_value(state, x, next(values), parts)
        everyone = (1 << state.np) - 1
        said = Said("".join(p if p.__class__ is str else self.card_name(p[0]) if p[1] & everyone == everyone
                            else self._hidden_names[p[0]] for p in parts))
        said.msg = msg
        if any(p.__class__ is tuple for p in parts):
            said.parts = tuple(parts)
        return said

    def _say_value(self, state: State, typ: str, value, parts: list):
        if typ == T.CARD:
            if value is None or value < 0:
                parts.append(NOTHING)
            else:
                zone = state.loc[value]
                parts.append((value, self.seen_by(state, zone, state.z[zone][-1] == value) | state.known.get(value, 0)))
        elif typ == "players" or typ.startswith("list:"):
            elem = T.PLAYER if typ == "players" else typ[5:]
            items = list(value)
            if not items:
                parts.append(NOTHING)
            for i, item in enumerate(items):
                if i:
                    parts.append(", ")
                self._say_value(state, elem, item, parts)
        else:
            parts.append(self.value_text(typ, value))

    def value_text(self, typ: str, value) -> str:
        """A value as the table shows it: a number as a number, yes or no, a player by name, a card by
        its name, an attribute's value by its symbol (its name if it has none); '—' for nothing."""
        if typ == T.BOOL:
            return "yes" if value else "no"
        if typ == T.PLAYER:
            return NOTHING if value is None else self.player_name(value)
        if typ == T.CARD:
            return NOTHING if value is None or value < 0 else self.card_name(value)
        if T.is_value(typ):
            texts = self._value_texts.get(typ[6:])
            return texts[value] if texts is not None and 0 <= value < len(texts) else NOTHING
        return str(value)

    def said_text(self, text: str, viewer: int) -> str:
        """A line said, as one seat reads it (viewer -1: what every seat read): a card shows to the
        seats that saw it when it was said; to the others it is 'a card' (or its back: 'a Mood card')."""
        parts = getattr(text, "parts", None)
        if parts is None or viewer < 0:
            return str.__str__(text)
        bit = 1 << viewer
        return "".join(p if p.__class__ is str else self.card_name(p[0]) if p[1] & bit else self._hidden_names[p[0]]
                       for p in parts)

    def lines_read(self, state: State, viewer: int) -> list:
        """The lines of the log a seat reads (viewer -1: every seat, a spectator): all but those said
        to another player alone."""
        log = state.log
        if not self.prog.private_says:
            return log
        return [entry for entry in log if self.reads(entry[2], viewer)]

    @staticmethod
    def reads(text, viewer: int) -> bool:
        """Whether a seat reads a line said: one said to a player alone is theirs."""
        to = getattr(text, "to", None)
        return to is None or to == viewer

    def log_line(self, entry: tuple, viewer: int) -> str:
        """One line of the log (state.log) as a seat reads it: 'P2: passes', or the table's own
        announcement alone. viewer -1: as every seat read it (a spectator)."""
        _, who, text, _ = entry
        shown = self.said_text(text, viewer)
        return shown if getattr(text, "table", False) else f"{self.player_name(who)}: {shown}"

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
        return vis == "public" or (vis == "top" and on_top) or (vis == "owner" and owner == observer) \
            or (vis == "others" and owner is not None and owner != observer)

    def seen_by(self, state: State, instance: int, on_top: bool) -> int:
        """The players who see a card in a zone instance now, as a bit mask."""
        z, owner = self._instance_names[instance]
        if not z.changes:
            return self._seen_by(state, instance, on_top)
        # the modifiers that change it are read once until the rules change (runtime.rules_cache)
        cache = rules_cache(state)
        key = ("seen", instance, on_top, state.me)
        found = cache.get(key)
        if found is None:
            found = cache[key] = self._seen_by(state, instance, on_top)
        return found

    def _seen_by(self, state: State, instance: int, on_top: bool) -> int:
        z, owner = self._instance_names[instance]
        if owner is not None or not z.changes:  # one visibility for every viewer (a zone's owner decides)
            vis = self.visibility(state, instance, 0) if z.changes else z.visibility
            if vis == "public" or (vis == "top" and on_top):
                return (1 << state.np) - 1
            if owner is None:
                return 0
            return 1 << owner if vis == "owner" else ((1 << state.np) - 1) & ~(1 << owner) if vis == "others" else 0
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
        shown = player == observer or seen or (src < 0 and (act.param_type != T.CARD or state.sees_card(observer, card)))
        if act.params and player != observer and (act.name in self.prog.hidden_params or not shown):
            # several choices: those the reader does not see in words ("move a card to column 2")
            hidden = {typ: _a(typ) for _, typ, *_ in act.params
                      if typ != T.CARD and act.name in self.prog.hidden_params}
            if not shown:
                hidden[T.CARD] = "a card"
            text = self.move_words(action, hidden)
        elif act.name in self.prog.hidden_params and player != observer:  # a bid written face down
            text = f"{act.label} {_a(act.param_type)}"
        elif shown:
            # (src < 0: the move has not moved its card, an answer waiting or too late: it is where it was)
            text = self._strings[action]
        else:
            text = f"{act.label} a card"
        if index in state.times:  # an answer in a reaction window or a race: how fast it was
            text += f" ({state.times[index]:.2f} s{', too late' if index in state.late else ''})"
        elif index in state.late:  # a simultaneous choice that was no longer possible when its turn came
            text += " (too late)"
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
            return (act.first_id, self._sort_keys[arg] if act.param_type == T.CARD else (arg,), a)
        return sorted(actions, key=key)

    def cards_seen(self, state: State, instance: int, player: int, placed: bool = False) -> list[int]:
        """The cards of a zone instance a player sees now (what their observation names); `placed`:
        only those whose place they know too (not the cards of a `contents` zone: their order is secret)."""
        cards = state.z[instance]
        vis = self.visibility(state, instance, player)
        z, owner = self._instance_names[instance]
        if (vis == "public" or (vis == "owner" and owner == player) or (vis == "others" and owner != player)) \
                and not (placed and z.contents):
            return list(cards)
        return [c for k, c in enumerate(cards)
                if (vis == "top" and k == len(cards) - 1) or (state.known and state.knows(player, c))]

    def _zone_view(self, state: State, z, instance: int, own: bool, player: int):
        """A zone as the player sees it, drawn as its `shows` says: its cards (a list), or how many
        there are (a dict with "count") and, where the player sees it and the zone shows it, the top
        card ("top"); the backs, and the cards they were shown where they cannot see ("known")."""
        cards = state.z[instance]
        vis = self.visibility(state, instance, player)
        if (z.contents and vis != "top") or (not z.stack and vis not in ("top", "others") and z.visibility != "others"):
            cards = sorted(cards, key=self._sort_keys.__getitem__)  # order tells nothing (or is secret): sorted
        # (a hand facing away from its owner keeps its order: its owner names a card by its place)
        seen = vis == "public" or (vis == "owner" and own) or (vis == "others" and z.per_player and not own)
        if seen and z.shows == "cards":
            return [self.card_name(c) for c in cards]
        view: dict = {"count": len(cards)}
        if (vis == "top" or (seen and not z.contents)) and z.shows != "count":
            view["top"] = self.card_name(cards[-1]) if cards else None
        if self.prog.back and cards:
            backs: dict = {}
            for c in cards:
                backs[self._back_names[c]] = backs.get(self._back_names[c], 0) + 1
            view["backs"] = {name: backs[name] for name in sorted(backs)}  # (not in the cards' order: it tells them)
        if state.known and not seen:
            known = [self.card_name(c) for c in cards if state.knows(player, c)]
            if known:
                view["known"] = known
        if state.told and not seen:  # what the player was told of cards they do not see, by place
            told = [self.told_text(state, player, c) for c in state.z[instance]]  # (not sorted: that tells the cards)
            if any(told):
                view["told"] = [t or "?" for t in told]
        return view

    def told_text(self, state: State, player: int, card: int) -> str:
        """What a player was told of a card they do not see: 'red, not 5'; '' for nothing."""
        masks = state.told.get((card, player))
        if masks is None:
            return ""
        parts = []
        for (_, values, _), mask, full in zip(self.prog.attributes, masks, self.told_full):
            if mask == full:
                continue
            if mask and not mask & (mask - 1):
                parts.append(values[mask.bit_length() - 1])
            else:
                parts.extend(f"not {v}" for k, v in enumerate(values) if not mask >> k & 1)
        return ", ".join(parts)

    def _value(self, typ: str, value):
        if typ == T.PLAYER:
            return None if value is None else self.player_name(value)
        if typ == T.CARD:
            return self.card_name(value) if value is not None and value >= 0 else None
        if T.is_value(typ):  # by its symbol, as in card names and messages (its name if it has none)
            texts = self._value_texts.get(typ[6:])
            return texts[value] if texts is not None and 0 <= value < len(texts) else None
        return value


def _a(typ: str) -> str:
    """What a move's hidden choice is, in words: "a number", "a player", "a colour"."""
    return "a player" if typ == T.PLAYER else f"a {typ[6:]}" if T.is_value(typ) \
        else "some cards" if typ == T.list_of(T.CARD) else "a number"
