"""One bot game, watched: what the design report needs of it, in a small record.

The bots think as they always do; the watching happens only around the real game's moves
(the statements its rules run, the modifiers in force, the standings at the ends of turns and
rounds, a few decisions weighed), so a record costs a little more than a plain game.
"""
from __future__ import annotations

from ...bots import make_bot
from ...engine import load_source
from ...errors import GamedslError, GameRuntimeError
from ..simulate import bot_seed
from .elements import Elements, Ran
from .standing import Watch


class Context:
    """What a worker needs to watch games of one version: the game, its elements, players and options."""

    def __init__(self, text: str, filename: str, players: int, options: dict):
        self.game = load_source(text, filename, coverage=True)  # its code marks each statement that runs
        self.players, self.options = players, options
        self.elements = Elements(self.game)
        # identical copies (two cards of the same name) are one kind of card: kind per card, and its name
        names = [self.game.card_name(c) for c in range(self.game.card_count())]
        self.kind_names = list(dict.fromkeys(names))
        self.kinds = [self.kind_names.index(name) for name in names]


def setup(text: str, filename: str, players: int, options: dict) -> Context:
    return Context(text, filename, players, options)


def watch_task(context: Context, task: tuple) -> dict:
    """The record of one task (set, index, seed, seats): see watch()."""
    kind, index, seed, seats = task
    try:
        record = watch(context, seed, list(seats))
    except GameRuntimeError as exc:  # a rule failed: where in the file, then which game
        raise exc.within(f"in {kind} game {index + 1} (seed {seed}, seats {','.join(seats)})") from None
    except GamedslError as exc:
        raise GamedslError(f"{kind} game {index + 1} (seed {seed}, seats {','.join(seats)}): {exc}") from None
    record["set"], record["index"] = kind, index
    return record


def watch(context: Context, seed: int, seats: list[str]) -> dict:
    """Play one game with the bots `seats` (one spec per position) and return its record.

    The record: seed, seats, limit_hit, results, places, returns, moves (and the moves made),
    moves per player, rounds, the first player to decide, decisions / forced (one legal move) /
    choices (legal moves summed over decisions), the elements that fired, per player the cards they
    played and held at the end, per card kind the first decision at which a seat held one in a zone
    of its own, and that seat (for the card probes), and the standings and pace (standing.Watch).
    """
    game, n = context.game, context.players
    elements = context.elements
    ran = Ran(game.prog)
    with ran:  # the setup's rules run here
        state = game.new_state(players=n, seed=seed, options=context.options)
    bots = [make_bot(spec, bot_seed(seed, p)) for p, spec in enumerate(seats)]
    decoded = game.decoded
    kinds = context.kinds
    played = [set() for _ in range(n)]
    moves_by = [0] * n
    actions: set[str] = set()
    modifiers: set[int] = set()
    holds: dict[int, tuple[int, int]] = {}  # card kind -> (move index, seat): the first decision a seat held one
    own = [z.base for z in game.prog.zones if z.per_player]
    first = state.current_player()
    decisions = forced = choices = 0
    modifiers |= elements.modifiers_in_force(state, n)
    seen = Watch(state, seed)
    while not state.is_terminal():
        p = state.current_player()
        legal = state.pending[1]
        decisions += 1
        forced += len(legal) == 1
        choices += len(legal)
        if len(holds) < len(context.kind_names):
            for q in range(n):
                for base in own:
                    for c in state.z[base + q]:
                        if kinds[c] not in holds:
                            holds[kinds[c]] = (state.moves, q)
        seen.decision(state)
        move = bots[p].choose(state)
        act, arg = decoded[move]
        actions.add(act.name)
        if act.param_type == "card":
            played[p].add(arg)
        moves_by[p] += 1
        with ran:  # the real move's rules, not the bot's thinking before it
            state.apply_action(move)
        modifiers |= elements.modifiers_in_force(state, n)
        seen.moved(state)
    finished = not state.limit_hit
    held = [set() for _ in range(n)]
    for z in game.prog.zones:
        if z.per_player:
            for q in range(n):
                held[q].update(state.z[z.base + q])
    best = [q for q in range(n) if finished and state.results[q] == "win"]  # the winner the lead is about...
    if len(best) != 1:
        best = [q for q in range(n) if finished and state.places[q] == 1]  # ...or the one player placed first
    fired = elements.fired(ran.markers, actions, modifiers)
    return {
        "seed": seed, "seats": seats, "limit_hit": state.limit_hit, "results": list(state.results),
        "places": list(state.places) if finished else [None] * n, "returns": state.returns(),
        "moves": state.moves, "history": list(state.history), "moves_by": moves_by, "rounds": state.round_number,
        "first": first, "decisions": decisions, "forced": forced, "choices": choices,
        "fired": sorted(fired), "played": [sorted(c) for c in played], "held": [sorted(c) for c in held],
        "holds": holds, **seen.record(state, best[0] if len(best) == 1 else -1),
    }
