"""A loaded game: the compiled Program plus naming of cards, moves, zones and players."""
from __future__ import annotations

from pathlib import Path

from . import ops
from . import types as T
from .build import build
from .compile import compile_model
from .errors import GamedslError, IllegalAction, SourceError, Span, Diagnostic
from .program import MAX_SEATS, Program
from .state import State


_MOVES_SHOWN = 60  # an observation lists at most this many past moves


def _norm(text: str) -> str:
    return "".join(text.casefold().split())


class Game:
    """A game definition ready to play: make states with new_state()."""

    def __init__(self, prog: Program, text: str = ""):
        self.prog = prog
        self.text = text
        self.name = prog.name
        self.min_players, self.max_players = prog.min_players, prog.max_players
        self._decode = []
        for act in prog.actions:
            for k in range(act.size):
                self._decode.append((act, k))
        self._instance_names = {}
        for z in prog.zones:
            for k in range(MAX_SEATS if z.per_player else 1):
                self._instance_names[z.base + k] = (z, k if z.per_player else None)
        self._card_aliases = self._aliases()
        # Cards are shown sorted by their last attribute first: suit, then rank.
        self._sort_keys = [tuple(prog.card_attrs[a][c] for a, _, _ in reversed(prog.attributes)) + (c,)
                           for c in range(prog.card_count())]
        self._strings = [self._action_string(a) for a in range(len(self._decode))]
        self._back_names = [self._back_name(c) for c in range(prog.card_count())]

    def _back_name(self, card: int) -> str:
        """What a face-down card shows: its `back shows` values ('action', 'Mood'), or 'card'."""
        parts = []
        for name, values, symbols in self.prog.attributes:
            if name in self.prog.back:
                i = self.prog.card_attrs[name][card]
                parts.append("?" if i < 0 else (symbols[i] or values[i]))
        return " ".join(parts) or "card"

    # ---- construction
    def new_state(self, players: int | None = None, seed: int = 0, options: dict | None = None,
                  fixed_random=(), fixed_shuffles=(), check_invariants: bool = False, track=()) -> State:
        """A new game, run up to the first decision. The same seed and moves give the same game.

        `track` names zones whose arrivals the state counts, per card, in `state.arrivals`."""
        n = self.min_players if players is None else players
        if not self.min_players <= n <= self.max_players:
            raise GamedslError(f"{self.name} is for {self.players_text()}, not {n}")
        opts = self.check_options(options or {})
        return State(self, n, seed, opts, fixed_random, fixed_shuffles, check_invariants, tuple(track))

    def players_text(self) -> str:
        if self.min_players == self.max_players:
            return f"{self.min_players} players"
        return f"{self.min_players} to {self.max_players} players"

    def check_options(self, options: dict) -> dict:
        out = {}
        for name, value in options.items():
            if name not in self.prog.options:
                known = ", ".join(self.prog.options) or "none"
                raise GamedslError(f"{self.name} has no option '{name}' (its options: {known})")
            default = self.prog.options[name][0]
            choices = self.prog.option_choices.get(name)
            if choices is not None:
                value = _parse_choice(name, value, choices)
            elif isinstance(value, str):
                value = _parse_option(name, value, default)
            out[name] = value
        return out

    def option_text(self, name: str, value) -> str:
        """An option's value as a user writes it: a number, true/false, or the chosen name."""
        choices = self.prog.option_choices.get(name)
        if choices is not None and isinstance(value, int) and 0 <= value < len(choices):
            return choices[value]
        return str(value).lower() if isinstance(value, bool) else str(value)

    # ---- names
    def decode(self, action: int):
        if not 0 <= action < len(self._decode):
            raise IndexError(action)
        act, k = self._decode[action]
        return act, k

    def num_distinct_actions(self) -> int:
        return len(self._decode)

    def card_name(self, card: int) -> str:
        return self.prog.card_names[card]

    def card_count(self) -> int:
        return self.prog.card_count()

    def player_name(self, player: int) -> str:
        return f"P{player + 1}"

    def arg_name(self, act, arg) -> str:
        t = act.param_type
        if t == T.CARD:
            return self.card_name(arg)
        if t == T.PLAYER:
            return self.player_name(arg)
        if t and T.is_value(t):
            attr = t[6:]
            for name, values, symbols in self.prog.attributes:
                if name == attr:
                    return values[arg]
        return str(arg)

    def _action_string(self, action: int) -> str:
        act, arg = self._decode[action]
        if act.domain is None:
            return act.label
        return f"{act.label} {self.arg_name(act, arg)}"

    def action_to_string(self, action: int) -> str:
        return self._strings[action]

    def domain_text(self, act) -> str:
        decl = getattr(act, "decl", None)
        if decl is None or decl.domain is None:
            return "the choices"
        span = decl.domain.span
        line = self.text.splitlines()[span.line - 1] if self.text and span.line else ""
        return line[span.column - 1: span.end_column - 1] if span.line == span.end_line else "the choices"

    def zone_instance(self, zone: str, player: int | None = None) -> int:
        z = self.prog.zone_by_name.get(zone)
        if z is None:
            raise KeyError(f"no zone '{zone}'")
        if z.per_player:
            if player is None:
                raise KeyError(f"zone '{zone}' belongs to each player: give the player")
            return z.base + player
        return z.base

    def zone_instances(self, names, players: int) -> list[int]:
        """Every instance of the named zones (one per player for a per-player zone)."""
        out = []
        for name in names:
            z = self.prog.zone_by_name.get(name)
            if z is None:
                raise GamedslError(f"{self.name} has no zone '{name}' (its zones: "
                                   f"{', '.join(self.prog.zone_by_name)})")
            out.extend(range(z.base, z.base + players) if z.per_player else [z.base])
        return out

    def zone_instance_name(self, instance: int) -> str:
        z, k = self._instance_names[instance]
        return z.name if k is None else f"{z.name} of {self.player_name(k)}"

    def _aliases(self) -> dict:
        """Every way a user may type a card: '10♥', '10hearts', '10 of hearts', '10h'."""
        out: dict[str, int] = {}
        short: dict[str, list] = {}
        card_attrs = self.prog.card_attrs
        for c, name in enumerate(self.prog.card_names):
            out.setdefault(_norm(name), c)
            values = [vals[card_attrs[a][c]] for a, vals, _ in self.prog.attributes if card_attrs[a][c] >= 0]
            out.setdefault(_norm("".join(values)), c)
            out.setdefault(_norm(" of ".join(values)), c)
            if len(values) > 1:
                key = _norm(values[0] + "".join(v[0] for v in values[1:]))
                short.setdefault(key, []).append(c)
        for key, cards in short.items():
            if len({self.prog.card_names[c] for c in cards}) == 1:
                out.setdefault(key, cards[0])
        return out

    def _value_aliases(self, act, arg) -> set:
        """How a player may type a value: its name, its symbol, or its initial if no other value shares it."""
        if not (act.param_type and T.is_value(act.param_type)):
            return {_norm(self.arg_name(act, arg))}
        for name, values, symbols in self.prog.attributes:
            if name == act.param_type[6:]:
                out = {_norm(values[arg]), _norm(symbols[arg])}
                if sum(1 for v in values if v[:1].casefold() == values[arg][:1].casefold()) == 1:
                    out.add(_norm(values[arg][:1]))
                return out
        return set()

    def parse_card(self, text: str) -> int:
        """A card id from its name (any of its aliases); raises KeyError."""
        c = self._card_aliases.get(_norm(text))
        if c is None:
            raise KeyError(f"no card called '{text}'")
        return c

    def parse_cards(self, text_or_list) -> list[int]:
        """Card ids from a list of names, or a text of names separated by spaces (names of
        several words are matched longest first: 'Royal Taster Drama')."""
        if not isinstance(text_or_list, str):
            return [self.parse_card(str(x)) for x in text_or_list]
        words, out, i = text_or_list.split(), [], 0
        while i < len(words):
            for j in range(len(words), i, -1):
                c = self._card_aliases.get(_norm("".join(words[i:j])))
                if c is not None:
                    out.append(c)
                    i = j
                    break
            else:
                raise KeyError(f"no card called '{words[i]}'")
        return out

    def copies(self, card: int) -> list[int]:
        """Every card identical to this one (itself included), in card order."""
        twins = self.prog.twins
        return [c for c in range(len(twins)) if twins[c] == twins[card]] if twins else [card]

    def distinct_copies(self, cards, taken: set) -> list[int]:
        """The same cards, each repeated name given its own copy (not in `taken`, which grows)."""
        out = []
        for c in cards:
            free = [x for x in self.copies(c) if x not in taken]
            if not free:
                raise ValueError(f"there are not that many {self.card_name(c)} cards")
            taken.add(free[0])
            out.append(free[0])
        return out

    def same_cards(self, wanted, have) -> list[int] | None:
        """`wanted` (cards by kind) as the actual cards of `have`, in wanted's order; None if they differ."""
        twins = self.prog.twins or range(len(self.prog.card_names))
        pool: dict[int, list] = {}
        for c in have:
            pool.setdefault(twins[c], []).append(c)
        out = []
        for c in wanted:
            free = pool.get(twins[c])
            if not free:
                return None
            out.append(free.pop(0))
        return out if len(out) == len(have) else None

    def string_to_action(self, state: State, text: str) -> int:
        """The move a player typed, among the legal ones; IllegalAction says why not."""
        if state.pending is None:
            raise IllegalAction("the game is over")
        want = _norm(text)
        if not want:
            raise IllegalAction("type a move")
        legal = state.pending[1]
        for a in legal:
            if _norm(self._strings[a]) == want:
                return a
        matches = [a for a in range(len(self._strings)) if self._matches(a, want)]
        legal_matches = [a for a in matches if a in legal]
        if legal_matches:
            return legal_matches[0]
        if matches:  # explain the reading of the text that comes closest to being legal
            raise IllegalAction(max((state.why_not(a) for a in matches), key=lambda r: r[0])[1])
        choices = ", ".join(dict.fromkeys(self._strings[a] for a in legal))
        raise IllegalAction(f"'{text}' is not a move of this game; the moves now are: {choices}")

    def canonical_move(self, state: State, text: str) -> str:
        """How the game writes a typed move: its string if it names one move of the game (a legal
        one first), else the text unchanged."""
        want = _norm(text)
        legal = state.pending[1] if state.pending is not None else []
        for group in (legal, range(len(self._strings))):
            for a in group:
                if self._matches(a, want):
                    return self._strings[a]
        return text

    def _matches(self, action: int, want: str) -> bool:
        act, arg = self._decode[action]
        if _norm(self._strings[action]) == want:
            return True
        if act.domain is None:
            return want in (_norm(act.name), _norm(act.name.replace("_", "")))
        rest = want
        for prefix in (_norm(act.label), _norm(act.name), _norm(act.name.replace("_", ""))):  # or "jump_in 5 red"
            if want.startswith(prefix):
                rest = want[len(prefix):]
                break
        if act.param_type == T.CARD:
            card = self._card_aliases.get(rest)
            return card is not None and self.card_name(card) == self.card_name(arg)
        return rest in self._value_aliases(act, arg)

    # ---- observation
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
            elif var.per_card:  # only the cards whose value is not the starting one
                start = var.init(state)
                variables[var.name] = {self.card_name(c): self._value(var.type, state.v[var.base + c])
                                       for c in range(len(state.loc)) if state.v[var.base + c] != start}
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

    def move_text(self, state: State, index: int, observer: int) -> str:
        """Move number `index` as one player saw it: a card nobody showed them stays hidden."""
        action = state.history[index - state.hbase]
        player, src, src_top, dst, dst_top = state.card_moves[index - state.hbase]
        if src >= 0 and dst == src:  # the move may still be running (it asked for more): where is its card now?
            for fr in state.stack:
                if fr[3] is ops.card_action_exit and fr[4][1] == index:
                    card = fr[4][2]
                    dst = state.loc[card]
                    dst_top = state.z[dst][-1] == card
        if src < 0 or player == observer or self.sees(state, src, observer, src_top) \
                or self.sees(state, dst, observer, dst_top):
            text = self._strings[action]
        else:
            text = f"{self._decode[action][0].label} a card"
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
            act, arg = self._decode[a]
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


def _parse_choice(name: str, value, choices: list) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(choices):
        return value
    if isinstance(value, str) and value in choices:
        return choices.index(value)
    raise GamedslError(f"option '{name}' is one of {', '.join(choices)}, not '{value}'")


def _parse_option(name: str, value: str, default):
    if isinstance(default, bool):
        if value.lower() in ("true", "yes", "on", "1"):
            return True
        if value.lower() in ("false", "no", "off", "0"):
            return False
        raise GamedslError(f"option '{name}' is true or false, not '{value}'")
    try:
        return int(value)
    except ValueError:
        raise GamedslError(f"option '{name}' is a number, not '{value}'") from None


def load_source(text: str, filename: str = "<string>") -> Game:
    """Parse, check and compile a game from its text; raises SourceError with every problem."""
    return Game(compile_model(build(text, filename)), text)


def load_game(path) -> Game:
    """Load a .game file; raises SourceError (bad file) or GamedslError (unreadable file)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(str(path), "", [Diagnostic(f"this file is not UTF-8 text ({exc.reason})", Span())]) from None
    except OSError as exc:
        raise GamedslError(f"{path}: cannot read: {exc.strerror}") from None
    return load_source(text, str(path))
