"""Noninterference, tested: nothing a seat is shown changes when only what it cannot see changes.

For each seat, a world it cannot tell from the game (engine.knowledge.Redealer: the hidden cards
dealt again, others' answers in an open window taken back; with `replay`, the game replayed from
its start so every variable and every line said is worked out again from the world's cards, one in
which the seat sees the cards as it does: the rules may show something of a hidden card through
them, as a pile that grows by one card or by two as the card drawn says), and
every channel the seat is given is compared, in order: its observation (the JSON it is sent: the
order of keys and of lists included), every line of the log it reads, its legal moves in the order
they are listed, why each of its illegal moves is refused, the spectator's view (what every seat
sees), and (with `bots`) the move a bot chooses with the same seed. The terminal's screen, the web
table's frames and the RL observations are made from the observation alone, so they follow it.
A difference is reported with where it is and, where the file says it, the place in the file.
"""
from __future__ import annotations

import json
import random

from ..engine.knowledge import SEARCH, Redealer
from ..engine.view import LOG_SHOWN
from ..errors import Diagnostic, InvariantViolation, format_diagnostic

REFUSALS = 40  # illegal moves whose refusal is compared, at most (drawn at random)
REPLAYS = 12  # replays of the game tried for a world before one is dealt from the present


def check_no_leak(state, rng: random.Random, replay=False, bots: bool = False, seats=None, since: int = 0,
                  spectators: bool = True):
    """Raises InvariantViolation, located where it can be, if any channel differs for any of the
    `seats` (all by default, in order), or (with `spectators`) if the spectators' view differs in the
    first one's world. `replay`: True to replay the game for each of them, or the seats to. `since`:
    the lines of the log said before it were compared at an earlier moment (worlds replayed compare
    them all)."""
    from .serve.views import public_view  # (the spectator's view: the web table's, in the engine's terms)
    spectator = None if spectators else False
    for player in range(state.np) if seats is None else seats:
        who = state.game.player_name(player)
        replays = replay is True or bool(replay) and player in replay
        world = Redealer(state, player, replay=True, same_view="zones").deal(rng, tries=REPLAYS) if replays else None
        if world is None:  # (replayed worlds may all be refused: a rule the redrawn cards break; dealt then)
            world = Redealer(state, player).deal(rng, tries=20, search=SEARCH)
        if world is None:  # deals that fit are rare: near the real one (verify may start from the truth)
            world = _near_truth(state, player, rng)
        if world is None:
            continue  # every hidden card is pinned by what the player saw: no other world to compare
        check_told(world, player)
        _same_view(state, world, player, who)
        _same_lines(state, world, player, who, 0 if replays else since)
        if state.current_player() == player:
            _same_moves(state, world, player, who, rng)
            if bots:
                _same_bot_choice(state, world, who, rng)
        if spectator is not None:
            continue  # (the spectators' view is compared once, in the first seat's world)
        spectator = public_view(state)
        if public_view(world) != spectator:
            path, a, b = _first_difference(spectator, public_view(world))
            raise InvariantViolation(f"the spectators' view depends on cards {who} cannot see: "
                                     f"{'.'.join(map(str, path))} is {_shown(a)} in this game and {_shown(b)} "
                                     f"in another deal of what {who} cannot see")


def _near_truth(state, player: int, rng: random.Random, steps: int = 200):
    """A world the seat cannot tell from the game, reached from the real deal by trades of two hidden
    cards that each keep it fitting what the seat saw (a test's way: a bot never starts from the
    truth). None if no trade keeps it so (then every hidden card is pinned by what the seat saw)."""
    worlds = Redealer(state, player)
    placed = [[state.z[inst][i] for inst, i in group] for group in worlds.groups]
    trades = [(k, i, j) for k, group in enumerate(worlds.groups) for i in range(len(group))
              for j in range(i + 1, len(group))]
    found = None
    for _ in range(min(steps, len(trades))):
        k, i, j = trades[rng.randrange(len(trades))]
        cards = placed[k]
        cards[i], cards[j] = cards[j], cards[i]
        world = worlds._world(placed, rng, False, True)
        if world is None:
            cards[i], cards[j] = cards[j], cards[i]
        else:
            found = world
    return found


def check_told(world, player: int):
    """A world dealt for a player fits what they were told (`reveal c.ATTR`): every card has a value
    they may think it has (a world that does not is one the player knows they are not in)."""
    tables = world.game.attr_tables
    for (card, p), masks in world.told.items():
        if p != player:
            continue
        for (name, values, _), mask, table in zip(world.prog.attributes, masks, tables):
            if table[card] >= 0 and not mask >> table[card] & 1:
                raise InvariantViolation(
                    f"a world dealt for {world.game.player_name(player)} puts {world.game.card_name(card)} in "
                    f"{world.game.zone_instance_name(world.loc[card])}, where they were told the {name} is "
                    f"{world.game.told_text(world, player, card)}")


def _same_view(state, world, player: int, who: str):
    mine, theirs = state.observation(player), world.observation(player)
    if mine == theirs and json.dumps(mine, ensure_ascii=False) == json.dumps(theirs, ensure_ascii=False):
        return
    path, a, b = _first_difference(mine, theirs)
    message = (f"{who}'s view depends on cards they cannot see: {'.'.join(map(str, path))} "
               f"is {_shown(a)} in this game and {_shown(b)} in another deal of what {who} cannot see")
    raise _leak(state, player, path, message)


def _same_lines(state, world, player: int, who: str, since: int = 0):
    """Every line of the log the seat reads (not only the last ones its view lists), from the
    `since`-th line said (the lines before: compared already, in a world dealt from the present)."""
    game = state.game
    mine = [e for e in state.log[since:] if game.reads(e[2], player)]
    theirs = [e for e in world.log[since:] if game.reads(e[2], player)]
    before = sum(game.reads(e[2], player) for e in state.log[:since])
    for k in range(max(len(mine), len(theirs))):
        a = game.log_line(mine[k], player) if k < len(mine) else None
        b = game.log_line(theirs[k], player) if k < len(theirs) else None
        if a != b:
            msg = getattr(mine[k][2], "msg", None) if k < len(mine) else None
            message = (f"what {who} reads in the log depends on cards they cannot see: line {before + k + 1} reads "
                       f"{_shown(a)} in this game and {_shown(b)} in another deal of what {who} cannot see")
            raise _located(state, msg.span if msg is not None else None, message)


def _same_moves(state, world, player: int, who: str, rng: random.Random):
    """The seat's legal moves in the order they are listed, and why each other move is refused."""
    game = state.game
    mine, theirs = state.legal_actions(), world.legal_actions()
    if mine != theirs:
        raise InvariantViolation(f"{who}'s legal moves depend on cards they cannot see: "
                                 f"{[game.action_to_string(a) for a in mine]} in this game, "
                                 f"{[game.action_to_string(a) for a in theirs]} in another deal")
    legal = set(mine)
    illegal = [a for a in range(game.num_distinct_actions()) if a not in legal]
    for action in rng.sample(illegal, min(REFUSALS, len(illegal))):
        a, b = state.explain(action), world.explain(action)
        if a != b:
            raise InvariantViolation(f"why {who} may not make a move depends on cards they cannot see: {a!r} in "
                                     f"this game, {b!r} in another deal of what {who} cannot see")


def _same_bot_choice(state, world, who: str, rng: random.Random):
    """A bot at the seat, with the same seed, chooses the same move in two deals the seat cannot
    tell apart (it decides on what it knows, not on the cards)."""
    from ..bots import make_bot
    seed = rng.getrandbits(32)
    a = make_bot("greedy:samples=2:lookahead=1:budget=40", seed).choose(state.clone())
    b = make_bot("greedy:samples=2:lookahead=1:budget=40", seed).choose(world.clone())
    if a != b:
        game = state.game
        raise InvariantViolation(f"the greedy bot at {who}'s seat chooses {game.action_to_string(a)!r} in this game "
                                 f"and {game.action_to_string(b)!r} in another deal of what {who} cannot see")


_ABSENT = object()


def _first_difference(a, b, path=()) -> tuple[tuple, object, object]:
    """Where two views first differ: the path of keys and indices to it, and the two values there
    (keys in another order: the path to the dict, and its two orders)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key, _ABSENT) != b.get(key, _ABSENT):
                return _first_difference(a.get(key, _ABSENT), b.get(key, _ABSENT), path + (key,))
        for key in a:
            found = _first_difference(a[key], b[key], path + (key,))
            if found[1] is not _ABSENT or found[2] is not _ABSENT:
                return found
        if list(a) != list(b):
            return path, list(a), list(b)  # the same, in another order
        return path, _ABSENT, _ABSENT
    if isinstance(a, list) and isinstance(b, list):
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else _ABSENT
            y = b[k] if k < len(b) else _ABSENT
            if x != y or json.dumps(x, ensure_ascii=False) != json.dumps(y, ensure_ascii=False):
                return _first_difference(x, y, path + (k,))
    return path, a, b


def _shown(value) -> str:
    return "absent" if value is _ABSENT else repr(value)


def _leak(state, player: int, path: tuple, message: str) -> InvariantViolation:
    """The error, located at the declaration of the zone or variable the path goes through, or at
    the `say` of a line said, if any."""
    prog = state.prog
    span = None
    if len(path) >= 2 and path[0] in ("zones", "vars"):
        span = next((decl.span for decl in (prog.zones if path[0] == "zones" else prog.vars)
                     if decl.name == path[1] and decl.span.line), None)
    elif len(path) >= 2 and path[0] == "log" and isinstance(path[1], int):
        shown = state.game.lines_read(state, player)[-LOG_SHOWN:]
        msg = getattr(shown[path[1]][2], "msg", None) if path[1] < len(shown) else None
        span = msg.span if msg is not None else None
    return _located(state, span, message)


def _located(state, span, message: str) -> InvariantViolation:
    if span is None:
        return InvariantViolation(message)
    prog = state.prog
    located = format_diagnostic(prog.filename, prog.text, Diagnostic(message, span), prog.sources)
    return InvariantViolation(located, located=True)
