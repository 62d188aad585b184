"""One bot game, watched: what the design report needs of it, in a small record.

The bots think as they always do; the watching happens only around the real game's moves
(the lines its rules run, the modifiers in force, the leader by the game's heuristic), so a
record costs a few times a plain game, not more.
"""
from __future__ import annotations

from ...bots import make_bot
from ...engine import load_source
from ...errors import GamedslError, GameRuntimeError
from ..simulate import bot_seed
from .elements import Elements, Tracer


class Context:
    """What a worker needs to watch games of one version: the game, its elements, players and options."""

    def __init__(self, text: str, filename: str, players: int, options: dict):
        self.game = load_source(text, filename)
        self.players, self.options = players, options
        self.elements = Elements(self.game)


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

    The record: seed, seats, limit_hit, results, places, returns, moves, moves per player,
    rounds, the first player to decide, decisions / forced (one legal move) / choices (legal
    moves summed over decisions), the lead (changes, whether and how long the winner was behind,
    when the winner was decided) when the game has a heuristic, the elements that fired, and per
    player the cards they played and held at the end.
    """
    game, n = context.game, context.players
    elements = context.elements
    tracer = Tracer(game.prog.module_name)
    with tracer:  # the setup's rules run here
        state = game.new_state(players=n, seed=seed, options=context.options)
    bots = [make_bot(spec, bot_seed(seed, p)) for p, spec in enumerate(seats)]
    decoded = game.decoded
    heuristic = game.prog.heuristic is not None
    played = [set() for _ in range(n)]
    moves_by = [0] * n
    actions: set[str] = set()
    modifiers: set[int] = set()
    leaders: list[int] = []  # after each move: the player strictly ahead by the heuristic, or -1
    behind: list[int] = []  # after each move: the players strictly behind the best (a bit each)
    first = state.current_player()
    decisions = forced = choices = 0
    modifiers |= elements.modifiers_in_force(state, n)
    while not state.is_terminal():
        p = state.current_player()
        legal = state.pending[1]
        decisions += 1
        forced += len(legal) == 1
        choices += len(legal)
        move = bots[p].choose(state)
        act, arg = decoded[move]
        actions.add(act.name)
        if act.param_type == "card":
            played[p].add(arg)
        moves_by[p] += 1
        with tracer:
            state.apply_action(move)
        modifiers |= elements.modifiers_in_force(state, n)
        if heuristic and not state.is_terminal():
            values = [state.evaluate(q) for q in range(n)]
            top = max(values)
            leaders.append(values.index(top) if values.count(top) == 1 else -1)
            behind.append(sum(1 << q for q in range(n) if values[q] < top))
    finished = not state.limit_hit
    held = [set() for _ in range(n)]
    for z in game.prog.zones:
        if z.per_player:
            for q in range(n):
                held[q].update(state.z[z.base + q])
    best = [q for q in range(n) if finished and state.results[q] == "win"]  # the winner the lead is about...
    if len(best) != 1:
        best = [q for q in range(n) if finished and state.places[q] == 1]  # ...or the one player placed first
    fired = elements.fired(tracer.lines, actions, modifiers)
    return {
        "seed": seed, "seats": seats, "limit_hit": state.limit_hit, "results": list(state.results),
        "places": list(state.places) if finished else [None] * n, "returns": state.returns(),
        "moves": state.moves, "moves_by": moves_by, "rounds": state.round_number, "first": first,
        "decisions": decisions, "forced": forced, "choices": choices,
        "lead": _lead(leaders, behind, best) if heuristic else None,
        "fired": sorted(fired), "played": [sorted(c) for c in played], "held": [sorted(c) for c in held],
    }


def _lead(leaders: list[int], behind: list[int], winners: list[int]) -> dict:
    """Lead changes (a strict leader replaced by another), and for a single winner (the one player
    who won, or else the one placed first): whether and for
    what share of the moves they were strictly behind, and the share of the game after which the
    strict leader was always them (1.0: only the end decided it)."""
    changes, last = 0, -1
    for leader in leaders:
        if leader >= 0:
            if last >= 0 and leader != last:
                changes += 1
            last = leader
    out = {"changes": changes, "behind": None, "behind_share": None, "decided_at": None}
    if len(winners) == 1 and leaders:
        w = winners[0]
        trailing = sum(1 for b in behind if b >> w & 1)
        out["behind"], out["behind_share"] = trailing > 0, trailing / len(behind)
        decided = len(leaders)
        while decided > 0 and leaders[decided - 1] == w:
            decided -= 1
        out["decided_at"] = decided / len(leaders)
    return out
