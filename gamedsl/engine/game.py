"""A loaded game: the compiled Program, linked, plus the naming of cards, moves, zones and players.

`load_game` and `load_source` are the front door: parse, check and compile (language/), link
(link.py), and a Game that makes states (state.py). What a player sees is in view.py.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import GamedslError, IllegalAction
from ..language import compile_source, read_source
from ..language import types as T
from ..language.program import MAX_SEATS, Program
from .knowledge import back_key
from .link import link
from .patterns import Matcher
from .state import State
from .view import View




def _a(noun: str) -> str:
    """A noun with its article: 'a Mood card', 'an action card'."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _norm(text: str) -> str:
    return "".join(text.casefold().split())


class Game(View):
    """A game definition ready to play: make states with new_state()."""

    def __init__(self, prog: Program, code=None):
        self.prog = prog = link(prog, code)
        self.text = prog.text
        self.name = prog.name
        self.min_players, self.max_players = prog.min_players, prog.max_players
        self.decoded = []  # move id -> (action, its argument: the card it names, else its first choice)
        self.args = {}  # a move of several choices: its id -> the value of each choice
        for act in prog.actions:
            if act.params:
                names = [name for name, *_ in act.params]
                named = names.index(next(n for n, t, *_ in act.params if t == act.param_type))
                strides = [stride for _, _, stride, *_ in act.params]
                sizes = [above // stride for above, stride in zip([act.size] + strides, strides)]
                for k in range(act.size):
                    self.args[act.first_id + k] = values = tuple(k // st % n for st, n in zip(strides, sizes))
                    self.decoded.append((act, values[named]))
                continue
            for k in range(act.size):
                self.decoded.append((act, k))
        self.matcher = Matcher(prog.card_attrs) if prog.patterns else None
        self.combinations: dict = {}  # shapes.combinations' answers, by shapes, cards and Specs
        self.shape_masks: dict = {}  # shapes.shape_masks of each combinations choice's shapes, by their id
        # whether `me` has an anytime move: one action's some_NAME, or all of theirs in one function
        self.reaction_check = prog.reaction_check or (prog.reactions[0].some if prog.reactions else None)
        self.reaction_legal = prog.reaction_legal or (prog.reactions[0].legal if prog.reactions else None)
        self._move_index: dict = {}  # (from, to) zone instances -> the move triggers that may match
        self._instance_names = {}
        for z in prog.zones:
            for k in range(MAX_SEATS if z.per_player else 1):
                self._instance_names[z.base + k] = (z, k if z.per_player else None)
        # per zone instance: whether its visibility changes with the rules (then what a move showed
        # there is noted at the time); None in a game where none does
        self.changing = tuple(bool(self._instance_names[k][0].changes) for k in range(prog.zone_count)) \
            if any(z.changes for z in prog.zones) else None
        # the instances of piles whose order is secret (`contents`): the rules go through them in the cards' order
        self.secret_order = frozenset(z.base + k for z in prog.zones if z.contents and z.stack
                                      for k in range(MAX_SEATS if z.per_player else 1))
        # per zone instance: whether a card put there may be out of its mover's sight (not public): the
        # mover still knows where they put it (State.placed)
        self.veiling = tuple(self._instance_names[k][0].visibility != "public" or bool(self._instance_names[k][0].changes)
                             for k in range(prog.zone_count))
        # per player count: the zone instances a game of that many players uses (a per-player zone
        # has an instance for every possible seat; those past the last player stay empty for ever)
        self.live_zones = {n: tuple(k for k, (z, seat) in self._instance_names.items() if seat is None or seat < n)
                           for n in range(prog.min_players, prog.max_players + 1)}
        # per zone instance: whether parameters and patterns read it, as its index in
        # prog.watch_items plus one (0: not read)
        watch, items = prog.watch_zones, prog.watch_items
        self.watched = tuple(1 if watch == "*" else items.index(name) + 1 if name in watch else 0
                             for name in (self._instance_names[k][0].family or self._instance_names[k][0].name
                                          for k in range(prog.zone_count))) \
            if watch else None
        self.players_item = 0 if not prog.watch_players else 1 if items == ("*",) else items.index(" players") + 1
        self._card_aliases = self._aliases()
        # Cards are shown sorted by their last attribute first: suit, then rank.
        self._sort_keys = [tuple(prog.card_attrs[a][c] for a, _, _ in reversed(prog.attributes)) + (c,)
                           for c in range(prog.card_count())]
        # per attribute (and option chosen by name): its values as the table shows them
        self._value_texts = {name: [sym or value for value, sym in zip(values, symbols)]
                             for name, values, symbols in prog.attributes}
        self._value_texts.update(prog.option_choices)
        self._strings = [self._action_string(a) for a in range(len(self.decoded))]
        self._back_names = [self._back_name(c) for c in range(prog.card_count())]
        # per card: what a message says of it to a seat that did not see it: 'a card', 'an action card'
        self._hidden_names = [_a(f"{b} card") if b != "card" else "a card" for b in self._back_names]
        self.sayers = [self._first_say(k) for k in range(len(prog.messages))]  # per message: View.said
        # per attribute (in declared order): its value per card, and every value as a bit mask (what
        # a player may think a card has before they are told anything: State.tell)
        self.attr_tables = tuple(prog.card_attrs[name] for name, _, _ in prog.attributes)
        self.told_full = tuple((1 << len(values)) - 1 for _, values, _ in prog.attributes)
        # per zone instance: the players who see a card in it, when that never changes (a bit mask
        # over every seat), else -1 (worked out for each card: a top, a visibility the rules change)
        self._seen_fixed = tuple(-1 if z.changes or z.visibility == "top" else
                                 (1 << MAX_SEATS) - 1 if z.visibility == "public" else
                                 1 << seat if z.visibility == "owner" and seat is not None else
                                 ((1 << MAX_SEATS) - 1) & ~(1 << seat) if z.visibility == "others" else 0
                                 for z, seat in (self._instance_names[k] for k in range(prog.zone_count)))
        # what the table calls each zone and each variable it may show (views carry it: "labels")
        self.labels = {z.name: z.label or z.name for z in prog.zones if z.shows != "nothing"}
        self.labels.update((v.name, v.label or v.name) for v in prog.vars if v.visibility != "hidden")
        # per card: what its back shows (None: every back is the same)
        self.back_keys = tuple(back_key(prog, c) for c in range(prog.card_count())) if prog.back else None

    def _back_name(self, card: int) -> str:
        """What a face-down card shows: its `back shows` values ('action', 'colour'), or 'card'."""
        parts = []
        for name, values, symbols in self.prog.attributes:
            if name in self.prog.back:
                i = self.prog.card_attrs[name][card]
                parts.append("?" if i < 0 else (symbols[i] or values[i]))
        return " ".join(parts) or "card"

    # ---- construction
    def new_state(self, players: int | None = None, seed: int = 0, options: dict | None = None,
                  fixed_random=(), fixed_shuffles=(), check_invariants: bool = False, track=(),
                  first_order=None, script=None, watcher=None) -> State:
        """A new game, run up to the first decision. The same seed and moves give the same game.

        `track` names zones whose arrivals the state counts, per card, in `state.arrivals`.
        `first_order` (the cards of the first zone, in order, in place of card order) and `script`
        (another game's chances to follow) make a world replaying a game (engine/history.py), and
        `watcher(state, zone)` is called at each shuffle."""
        n = self.min_players if players is None else players
        if not self.min_players <= n <= self.max_players:
            raise GamedslError(f"{self.name} is for {self.players_text()}, not {n}")
        opts = self.check_options(options or {})
        return State(self, n, seed, opts, fixed_random, fixed_shuffles, check_invariants, tuple(track),
                     first_order, script, watcher)

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
        if not 0 <= action < len(self.decoded):
            raise IndexError(action)
        act, k = self.decoded[action]
        return act, k

    def num_distinct_actions(self) -> int:
        return len(self.decoded)

    def card_name(self, card: int) -> str:
        return self.prog.card_names[card]

    def card_count(self) -> int:
        return self.prog.card_count()

    def player_name(self, player: int) -> str:
        return f"P{player + 1}"

    def arg_name(self, act, arg) -> str:
        return self.value_name(act.param_type, arg)

    def value_name(self, typ: str, value) -> str:
        """A choice's value in words: a card's name, a player's, a value's, a number."""
        if typ == T.CARD:
            return self.card_name(value)
        if typ == T.PLAYER:
            return self.player_name(value)
        if typ and T.is_value(typ):
            attr = typ[6:]
            for name, values, symbols in self.prog.attributes:
                if name == attr:
                    return values[value]
        return str(value)

    def _action_string(self, action: int) -> str:
        act, arg = self.decoded[action]
        if act.params:
            return self.move_words(action)
        if act.domain is None:
            return act.label
        return f"{act.label} {self.arg_name(act, arg)}"

    def move_words(self, action: int, hidden: dict | None = None) -> str:
        """The text of a move of several choices: its label with each choice's value in place of
        `{name}`, or after it; `hidden` gives the words for the choices a reader does not see, by type."""
        act = self.decoded[action][0]
        text, tail = act.label, []
        for (name, typ, *_), value in zip(act.params, self.args[action]):
            word = hidden[typ] if hidden and typ in hidden else self._value_texts[typ[6:]][value] \
                if T.is_value(typ) else self.shape_words(act, name, value) if name in act.shapes \
                else self.value_name(typ, value)  # (a value as the table shows it: J, not 11)
            if "{" + name + "}" in text:
                text = text.replace("{" + name + "}", word)
            else:
                tail.append(word)
        return " ".join([text] + tail)

    def shape_words(self, act, name: str, number: int) -> str:
        """A combination's values, as the table shows them, lowest first: "4 4 9 9 9"."""
        attr, shapes = act.shapes[name]
        texts = self._value_texts[attr]
        return " ".join(texts[v] for v, n in shapes[number] for _ in range(n))

    def action_to_string(self, action: int) -> str:
        return self._strings[action]

    def domain_text(self, act) -> str:
        return act.domain_text

    def move_triggers(self, src: int, dest: int) -> tuple:
        """The move triggers whose zones match a move from `src` to `dest`, each with the players its
        zones bind ((local slot, player), ...): worked out once per pair of zone instances."""
        found = self._move_index.get((src, dest))
        if found is None:
            found = self._move_index[(src, dest)] = tuple(
                (t, _binds(t.source, src) + _binds(t.dest, dest)) for t in self.prog.triggers.get("move", ())
                if _may_match(t.source, src) and _may_match(t.dest, dest))
        return found

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
        act, arg = self.decoded[action]
        if _norm(self._strings[action]) == want:
            return True
        if act.domain is None:
            return want in (_norm(act.name), _norm(act.name.replace("_", "")))
        if act.params:  # several choices: the text, its card spelt any way
            if act.param_type != T.CARD:
                return False
            before, after = (_norm(part) for part in self.move_words(action, {T.CARD: "\0"}).split("\0"))
            rest = want[len(before):len(want) - len(after)] if want.startswith(before) and want.endswith(after) \
                and len(want) > len(before) + len(after) else None
            card = self._card_aliases.get(rest)
            return card is not None and self.card_name(card) == self.card_name(arg)
        rest = want
        for prefix in (_norm(act.label), _norm(act.name), _norm(act.name.replace("_", ""))):  # or "play_two 5 red"
            if want.startswith(prefix):
                rest = want[len(prefix):]
                break
        if act.param_type == T.CARD:
            card = self._card_aliases.get(rest)
            return card is not None and self.card_name(card) == self.card_name(arg)
        return rest in self._value_aliases(act, arg)

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


def load_source(text: str, filename: str = "<string>", coverage: bool = False, leaks_allowed: bool = False) -> Game:
    """Parse, check and compile a game from its text; raises SourceError with every problem.
    `coverage`: a coverage build, which records the statements that run (language/codegen.py).
    `leaks_allowed`: load a game the secrecy check refuses (its errors in `prog.leaks`): to replay
    a log played before the check."""
    prog, code = compile_source(text, filename, coverage, leaks_allowed)
    return Game(prog, code)


def load_game(path, coverage: bool = False, leaks_allowed: bool = False) -> Game:
    """Load a .game file; raises SourceError (bad file) or GamedslError (unreadable file)."""
    return load_source(read_source(path), str(Path(path)), coverage, leaks_allowed)


def _binds(pattern, zone: int) -> tuple:
    """The player a trigger's per-player zone pattern (`p.hand`) binds for a zone instance it matches."""
    if pattern is None:
        return ()
    base, per_player, slot = pattern
    return ((slot, zone - base),) if per_player and slot is not None else ()


def _may_match(pattern, zone: int) -> bool:
    """Whether a trigger's zone pattern (None: any zone) can match a zone instance."""
    if pattern is None:
        return True
    base, per_player, _ = pattern
    return base <= zone < base + MAX_SEATS if per_player else zone == base
