"""Rule scenarios: YAML files with a fixed deal, moves and expectations, checked against a game.

Every value is read from the YAML node tree, so each failure names the line it comes from.
"""
from __future__ import annotations

import re
from pathlib import Path

import attrs
import yaml

from ..engine.state import State
from ..language import types as T
from . import verify
from ..errors import GameRuntimeError, GamedslError, IllegalAction, did_you_mean
from .expectations import Expectations
from .yamlnodes import ScenarioError, check_keys, integer, line_of, mapping, scalar, sequence  # noqa: F401

_REPEAT = re.compile(r"\s*(?:×|\*|(?<!\S)x)\s*(\d+)(?!\S)")  # "Gold × 29": 29 copies of Gold
TOP_KEYS = {"name", "players", "seed", "options", "random", "shuffles", "deal", "vars", "moves", "expect"}
MOVE_KEYS = {"illegal", "reason", "expect", "auto", "set", "say"}


class _Shuffles(State):
    """A game that notes the order of every shuffle up to its first move, and may put the cards
    of one shuffle into a given order (after drawing from the seed as usual)."""

    def __init__(self, game, players, seed, options, fixed, shuffles, rig=(-1, None)):
        self.shuffled, self.rig_order = [], rig
        super().__init__(game, players, seed, game.check_options(options), list(fixed), list(shuffles), True)

    def shuffle(self, zone: int):
        super().shuffle(zone)
        if len(self.shuffled) == self.rig_order[0]:
            self.z[zone] = list(self.rig_order[1])
        self.shuffled.append((zone, list(self.z[zone])))


@attrs.frozen
class Failure:
    path: str
    line: int
    message: str
    located: bool = False  # the message names its own place (a rule of the game failed)
    note: bool = False  # not a failure: a note on what the scenario did (cards its deal displaced)

    def format(self) -> str:
        if self.located:
            return self.message
        kind = "note" if self.note else "error"
        return f"{self.path}:{self.line}: {kind}: {self.message}" if self.line else f"{self.path}: {kind}: {self.message}"


class Runner(Expectations):
    """Runs one scenario against a game and collects its failures."""

    def __init__(self, game, path: str):
        self.game = game
        self.path = path
        self.failures: list[Failure] = []
        self.notes: list[Failure] = []  # what the scenario did that its writer may not expect (not a failure)
        self.checks = 0

    # ---- reading names in the scenario
    def player(self, node) -> int:
        text = scalar(node, "a player like P1")
        if text.upper().startswith("P") and text[1:].isdigit():
            p = int(text[1:]) - 1
            if 0 <= p < self.state.np:
                return p
        raise ScenarioError(node, f"'{text}' is not a player of this {self.state.np}-player game (P1..P{self.state.np})")

    def card(self, node) -> int:
        text = scalar(node, "a card")
        try:
            return self.game.parse_card(text)
        except KeyError:
            raise ScenarioError(node, f"no card called '{text}' in this game") from None

    def cards(self, node) -> list[int]:
        """Cards from a text of names ("10♥ J♥ Q♥") or a list of them; a name followed by `× N`
        (or `* N`, `x N`) stands for N copies of it: "Copper × 7 Estate × 3"."""
        if isinstance(node, yaml.ScalarNode):
            return self._repeated(node, node.value)
        return [c for x in sequence(node, "a list of cards") for c in self._repeated(x, scalar(x, "a card"))]

    def _repeated(self, node, text: str) -> list[int]:
        parts = _REPEAT.split(text)  # names, count, names, count, ..., names
        out: list[int] = []
        for k in range(0, len(parts), 2):
            try:
                names = self.game.parse_cards(parts[k]) if parts[k].strip() else []
            except KeyError as exc:
                raise ScenarioError(node, exc.args[0]) from None
            out += names
            if k + 1 < len(parts):
                if not names:
                    raise ScenarioError(node, f"'× {parts[k + 1]}' follows no card: write the card first, "
                                              "as in 'Gold × 29'")
                out += [names[-1]] * (int(parts[k + 1]) - 1)
        return out

    def zone(self, node) -> int:
        """A zone instance from 'deck' or 'hand P2'."""
        parts = scalar(node, "a zone").split()
        name = parts[0] if parts else ""
        if name not in self.game.prog.zone_by_name:
            hint = did_you_mean(name, self.game.prog.zone_by_name)
            raise ScenarioError(node, f"unknown zone '{name}'" + (f"; {hint}" if hint else ""))
        z = self.game.prog.zone_by_name[name]
        if z.per_player:
            if len(parts) != 2:
                raise ScenarioError(node, f"zone '{name}' belongs to each player: write '{name} P1'")
            return z.base + self.player(yaml.ScalarNode("tag:yaml.org,2002:str", parts[1],
                                                        node.start_mark, node.end_mark))
        if len(parts) != 1:
            raise ScenarioError(node, f"zone '{name}' is shared: write just '{name}'")
        return z.base

    def random_value(self, node):
        text = scalar(node, "a random result")
        if text.upper().startswith("P") and text[1:].isdigit():
            return int(text[1:]) - 1
        if text.lstrip("-").isdigit():
            return int(text)
        return self.card(node)

    def display(self, typ: str, value):
        return self.game._value(typ, value)

    # ---- running
    def run(self, root):
        check_keys(root, TOP_KEYS, "a scenario")
        top = {scalar(k): v for k, v in mapping(root)}
        players = integer(top["players"], "a player count") if "players" in top else self.game.min_players
        seed = integer(top["seed"], "a seed") if "seed" in top else 0
        options = {}
        for k, v in mapping(top["options"]) if "options" in top else []:
            options[scalar(k)] = scalar(v)
        fixed = [self.random_value(n) for n in sequence(top["random"])] if "random" in top else []
        shuffles = [None if isinstance(n, yaml.ScalarNode) and n.value == "random" else self.cards(n)
                    for n in sequence(top["shuffles"])] if "shuffles" in top else []
        deal, rigged = top.get("deal"), None
        try:
            self.state = self.game.new_state(players, seed, options, fixed, shuffles, check_invariants=True)
            if deal is not None:
                rigged = self.dealt(deal, players, seed, options, fixed, shuffles)
                self.state = rigged or self.state
        except GameRuntimeError as exc:
            raise self.rule_failed(exc, root)
        except GamedslError as exc:
            raise ScenarioError(top.get("options") or top.get("random") or top.get("shuffles") or root,
                                str(exc)) from None
        self.setup(None if rigged else deal, top.get("vars"))
        for item in sequence(top["moves"], "a list of moves") if "moves" in top else []:
            self.step(item)
        if "expect" in top:
            self.expect(top["expect"])

    def dealt(self, deal, players, seed, options, fixed, shuffles):
        """The game started again with the deal coming out of its last shuffle before the first
        move, so every rule that reads the cards before that move (a trump turned up in the round's
        first line) reads the scenario's cards; None when no shuffle can give it (the setup takes
        cards by their values, or no shuffle comes before the first move): then the deal is set
        when the game first waits for a move.

        The cards the game moved after that shuffle are followed back to their places in it: the
        card the deal wants in a place is put, by the shuffle, where the card that went there came
        from. The shuffle still draws from the seed as before, so what follows is unchanged."""
        first = _Shuffles(self.game, players, seed, options, fixed, shuffles)
        if not first.shuffled:
            return None
        before = [list(cards) for cards in first.z]
        self.setup_zones(first, deal)
        zone, order = first.shuffled[-1]
        wanted = {}
        for old, new in zip(before, first.z):
            if len(old) != len(new):
                return None
            for came, goes in zip(old, new):
                if came in order:
                    wanted[order.index(came)] = goes
                elif came != goes:
                    return None
        if sorted(wanted) != list(range(len(order))) or sorted(wanted.values()) != sorted(order):
            return None
        again = _Shuffles(self.game, players, seed, options, fixed, shuffles,
                          rig=(len(first.shuffled) - 1, [wanted[i] for i in range(len(order))]))
        return again if again.z == first.z else None

    def setup(self, deal, variables):
        if deal is not None:
            self.setup_zones(self.state, deal)
        if variables is not None:
            for k, v in mapping(variables, "variables and their values"):
                self.set_var(k, v)
        if deal is not None or variables is not None:
            self.state.refresh()

    def setup_zones(self, state, deal):
        if deal is not None:
            zones, rest, taken = {}, None, set()
            for k, v in mapping(deal, "zones and their cards"):
                if scalar(k) == "rest":
                    rest = self.zone(v)
                    continue
                zone = self.zone(k)
                try:  # a name listed again means another copy of that card
                    zones[zone] = self.copies_for(state, zone, self.cards(v), taken)
                except ValueError as exc:
                    raise ScenarioError(v, str(exc)) from None
            before, piles = list(state.loc), self.piles(state)
            try:
                state.rig(zones, rest)
            except ValueError as exc:
                raise ScenarioError(deal, str(exc)) from None
            moved: dict[int, list[int]] = {}  # a pile of one kind -> the other cards the deal put there
            for c, was in enumerate(before):
                to = state.loc[c]
                if to != was and to not in zones and to != rest and to in piles and piles[to] != self.game.card_name(c):
                    moved.setdefault(to, []).append(c)
            for zone, cards in moved.items():
                names = ", ".join(self.game.card_name(c) for c in cards)
                self.notes.append(Failure(self.path, line_of(deal), (
                    f"the deal put {names} in {self.game.zone_instance_name(zone)}, a pile of {piles[zone]} "
                    "only, where the copies it dealt were: list that zone too, and a zone for the cards left "
                    "over with 'rest: ZONE'"), note=True))

    def piles(self, state) -> dict[int, str]:
        """The zones that hold copies of one kind of card only (two or more): zone -> its name."""
        out = {}
        for zone, cards in enumerate(state.z):
            names = {self.game.card_name(c) for c in cards}
            if len(cards) > 1 and len(names) == 1:
                out[zone] = names.pop()
        return out

    def copies_for(self, state, zone: int, cards: list[int], taken: set) -> list[int]:
        """The copies a zone's listed cards are dealt (`taken` grows): of identical copies, one that
        already lies in the zone first, so listing what a zone holds moves nothing and a copy is
        taken from elsewhere only where the zone lacks it (the rest in card order)."""
        out = []
        for c in cards:
            free = [x for x in self.game.copies(c) if x not in taken]
            if not free:
                raise ValueError(f"there are not that many {self.game.card_name(c)} cards")
            pick = next((x for x in free if state.loc[x] == zone), free[0])
            taken.add(pick)
            out.append(pick)
        return out

    def set_var(self, key, node):
        name = scalar(key)
        var = self.game.prog.var_by_name.get(name)
        if var is None:
            hint = did_you_mean(name, self.game.prog.var_by_name)
            raise ScenarioError(key, f"unknown variable '{name}'" + (f"; {hint}" if hint else ""))
        if var.per_player:
            teams = self.game.prog.teams if var.per_team else 0
            for pk, pv in mapping(node, f"a value per player for '{name}'"):
                p = self.player(pk)  # (a team's value: set for the whole team)
                for q in range(p % teams, self.state.np, teams) if teams else (p,):
                    self.state.v[var.base + q] = self.value(var.type, pv)
        elif var.per_card:
            for ck, cv in mapping(node, f"a value per card for '{name}'"):
                self.state.v[var.base + self.card(ck)] = self.value(var.type, cv)
        else:
            self.state.v[var.base] = self.value(var.type, node)

    def value(self, typ: str, node):
        if typ == T.PLAYER:
            return None if scalar(node) == "nobody" else self.player(node)
        if typ == T.CARD:
            return self.card(node)
        if typ == T.BOOL:
            return scalar(node).lower() in ("true", "yes")
        if T.is_value(typ):
            for name, values, symbols in self.game.prog.attributes:
                if name == typ[6:]:
                    text = scalar(node, f"a {name}")
                    if text in values:
                        return values.index(text)
                    if text in symbols:
                        return symbols.index(text)
                    hint = did_you_mean(text, values)
                    raise ScenarioError(node, f"'{text}' is not a {name}" + (f"; {hint}" if hint else
                                        f" (one of {', '.join(values)})"))
        return integer(node)

    def step(self, item):
        if isinstance(item, yaml.ScalarNode):
            self.play(item, None)
            return
        pairs = mapping(item, "a move")
        keys = [scalar(k) for k, _ in pairs]
        seat = [k for k in keys if k.upper().startswith("P") and k[1:].isdigit()]
        if seat and set(keys) <= {seat[0], "time"}:  # "P2: cover" with an optional reaction "time: 0.4"
            d = dict(zip(keys, (v for _, v in pairs)))
            time = None
            if "time" in d:
                try:
                    time = float(scalar(d["time"], "a time in seconds"))
                except ValueError:
                    raise ScenarioError(d["time"], "a reaction time is a number of seconds, like 0.4") from None
            self.play(d[seat[0]], self.player(next(k for k, _ in pairs if scalar(k) == seat[0])), time)
            return
        check_keys(item, MOVE_KEYS, "a move")
        d = dict(zip(keys, (v for _, v in pairs)))
        if "illegal" in d:
            self.illegal(d["illegal"], d.get("reason"))
        if "auto" in d:
            self.auto(d["auto"])
        if "set" in d:
            check_keys(d["set"], {"deal", "vars"}, "'set'")
            s = {scalar(k): v for k, v in mapping(d["set"])}
            self.setup(s.get("deal"), s.get("vars"))
        if "expect" in d:
            self.expect(d["expect"])

    def play(self, node, player, time=None):
        text = scalar(node, "a move")
        state = self.state
        if state.is_terminal():
            raise ScenarioError(node, f"cannot play '{text}': the game is over")
        if player is not None and state.current_player() != player:
            self.let_pass(node, player)
        if player is not None and state.current_player() != player:
            raise ScenarioError(node, f"expected {self.game.player_name(player)} to move, but it is "
                                      f"{self.game.player_name(state.current_player())}'s move")
        try:
            action = self.game.string_to_action(state, text)
        except IllegalAction as exc:
            raise ScenarioError(node, f"'{text}' was refused: {exc}") from None
        if time is not None and (state.window is None or state.window[0] == "simultaneous"):
            raise ScenarioError(node, f"'{text}' is not an answer in a reaction window or race: it has no time"
                                + (" (a simultaneous choice is made in secret, not fast or slow)" if state.window else ""))
        self.apply(action, node, time)

    def apply(self, action: int, node, time=None):
        """Make a move, then check the invariants every game keeps; a failure names the scenario line."""
        try:
            self.state.apply_action(action, time)
            verify.check_cards(self.state)
            verify.check_decision(self.state)
        except GameRuntimeError as exc:
            raise self.rule_failed(exc, node) from None
        except GamedslError as exc:
            raise ScenarioError(node, str(exc)) from None

    def rule_failed(self, exc: GameRuntimeError, node) -> GamedslError:
        """A rule of the game failed: said at its line of the game file, then the scenario's line."""
        if exc.is_located:
            return exc.within(f"at {self.path}:{line_of(node)}")
        return ScenarioError(node, str(exc))

    def illegal(self, node, reason):
        text = scalar(node, "a move")
        self.checks += 1
        before = self.state.digest()
        try:
            action = self.game.string_to_action(self.state, text)
        except IllegalAction as exc:
            if reason is not None and scalar(reason).casefold() not in str(exc).casefold():
                self.fail(reason, f"'{text}' was refused, but the reason '{exc}' does not mention "
                                  f"'{scalar(reason)}'")
            if self.state.digest() != before:
                self.fail(node, "refusing the move changed the state")
            return
        self.fail(node, f"'{text}' was accepted as '{self.state.action_to_string(action)}', "
                        "but the scenario expects it to be illegal")

    def let_pass(self, node, player: int):
        """A move named for `player` while others are asked in a reaction window or race: every seat
        asked before it that the scenario does not list lets the moment pass (no reaction, a race's
        default), with a reaction time from the seed, until `player` is asked or the window closes."""
        state = self.state
        while state.window is not None and state.window[0] in ("react", "race") and not state.is_terminal() \
                and state.current_player() != player:
            default = state.default_answer()
            if default is None:
                return
            self.apply(default, node)

    def auto(self, node):
        """Play the lowest-numbered legal move: 'auto: 5' moves, 'auto: round' or 'auto: end'."""
        text = scalar(node, "a number of moves, 'round' or 'end'")
        state = self.state
        if text == "round":
            start = state.round_number
            while not state.is_terminal() and state.round_number == start:
                self.apply(min(state.legal_actions()), node)
        elif text == "end":
            while not state.is_terminal():
                self.apply(min(state.legal_actions()), node)
        else:
            for _ in range(integer(node, "a number of moves, 'round' or 'end'")):
                if state.is_terminal():
                    raise ScenarioError(node, "the game ended before all the automatic moves were made")
                self.apply(min(state.legal_actions()), node)

    def fail(self, node, message: str):
        self.failures.append(Failure(self.path, line_of(node), message))


def run_scenario_file(game, path) -> list[Failure]:
    """Run one scenario file; returns its failures (empty when every expectation holds)."""
    failures, _ = run_scenario(game, path)
    return failures


def run_scenario(game, path, notes: list | None = None) -> tuple[list[Failure], int]:
    """Run one scenario file; returns (failures, number of checks made). `notes`, if given, gets
    the scenario's notes (Failure with note=True: cards its deal put in zones it does not list)."""
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Failure(path, 0, f"cannot read the scenario: {exc}")], 0
    try:
        root = yaml.compose(text)
    except RecursionError:
        return [Failure(path, 0, "the scenario nests lists or mappings too deeply")], 0
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return [Failure(path, mark.line + 1 if mark else 0, f"not valid YAML: {getattr(exc, 'problem', exc)}")], 0
    if root is None:
        return [Failure(path, 1, "the scenario is empty")], 0
    runner = Runner(game, path)
    try:
        runner.run(root)
    except ScenarioError as exc:
        runner.failures.append(Failure(path, exc.line, str(exc)))
    except RecursionError:
        runner.failures.append(Failure(path, 0, "the scenario nests lists or mappings too deeply"))
    except GameRuntimeError as exc:  # a rule failed: said at its place in the game file
        runner.failures.append(Failure(path, 0, str(exc), located=exc.is_located))
    except GamedslError as exc:
        runner.failures.append(Failure(path, 0, str(exc)))
    if notes is not None:
        notes.extend(dict.fromkeys(runner.notes))  # (a deal set twice notes it twice)
    return runner.failures, runner.checks
