"""Card impact by intervention: a card's effect measured by playing it, not by who happened to.

A *probe* goes back to a moment of a real game where the player to decide could play a card of
some kind among other moves, and plays the game on twice from there: once with their best move
that plays that kind of card, once with their best other move (best by the game's heuristic one
move ahead, averaged over worlds they could be in). Both games then go on with the same bots,
seeded alike, and the same random future (common random numbers), so the two results differ
only by that one choice. Over many probes per kind, the paired differences of the decider's wins
tell what playing the card does (metrics.card_probes tests them).
"""
from __future__ import annotations

import random

from ...bots import make_bot
from ...errors import GamedslError, GameRuntimeError
from ..simulate import bot_seed
from .standing import weigh

LONGER = 4  # a probe's games stop (and the probe is dropped) past this many times the real game's length


def plan(records: list, per_kind: int) -> list[tuple]:
    """The probe tasks of one version: for each kind of card, up to `per_kind` real games (in
    seed order) where it could be played at a contested decision, the first such moment of each."""
    tasks, taken = [], {}
    for r in records:
        if r["limit_hit"]:
            continue
        for kind, at in sorted(r["contested"].items(), key=lambda kv: int(kv[0])):
            kind = int(kind)
            if taken.get(kind, 0) < per_kind:
                taken[kind] = taken.get(kind, 0) + 1
                tasks.append(("probe", len(tasks), r["seed"], tuple(r["seats"]), tuple(r["history"][:at]), kind,
                              r["moves"]))
    return tasks


def probe_task(context, task: tuple) -> dict | None:
    """One probe: the decider's result with and without the card (None if the moment has no such
    pair of moves, or a game ran too long)."""
    _, index, seed, seats, prefix, kind, length = task
    game = context.game
    try:
        state = game.new_state(players=context.players, seed=seed, options=context.options)
        for move in prefix:
            state.apply_action(move)
        return _probe(context, state, seed, list(seats), kind, length)
    except GameRuntimeError as exc:
        raise exc.within(f"in a card probe of the game of seed {seed}") from None
    except GamedslError as exc:
        raise GamedslError(f"a card probe of the game of seed {seed}: {exc}") from None


def _probe(context, state, seed: int, seats: list, kind: int, length: int) -> dict | None:
    decoded, kinds = state.game.decoded, context.kinds
    me = state.current_player()
    legal = sorted(state.legal_actions())
    with_card = [a for a in legal if decoded[a][0].param_type == "card" and kinds[decoded[a][1]] == kind]
    without = [a for a in legal if a not in with_card]
    if not with_card or not without:
        return None
    rng = random.Random(seed * 7919 + kind)
    values = dict(zip(legal, weigh(state, rng) or [0.0] * len(legal)))
    results = []
    future = rng.getrandbits(64)
    for choices in (with_card, without):
        move = max(choices, key=lambda a: (values[a], -a))
        branch = state.clone()
        branch.reseed(future)
        branch.apply_action(move)
        bots = [make_bot(spec, bot_seed(seed, p) + 7) for p, spec in enumerate(seats)]
        while not branch.is_terminal():
            if branch.moves > LONGER * max(length, 50):
                return None
            branch.apply_action(bots[branch.current_player()].choose(branch))
        if branch.limit_hit:
            return None
        results.append((branch.results[me] == "win", branch.returns()[me]))
    (won_with, ret_with), (won_without, ret_without) = results
    return {"kind": kind, "seed": seed, "with": won_with, "without": won_without, "return_with": ret_with,
            "return_without": ret_without}
