"""Cards measured by what they do for their holder: one card swapped for another, the rest alike.

A *probe* of a kind of card goes back to the first decision of a real game at which some seat
held a card of that kind in a zone of its own (its hand, its tableau, its pile), and plays the
game on from there twice: once as it is, once with that card swapped for a random card of
another kind that the seat could not see (from the stock first, else from another seat's hidden
cards). Both games go on with the same bots, seeded alike, and the same random future (common
random numbers); both are set by hand, as a scenario's deal is, so the bots imagine the same
kind of worlds in each. The two results of the holder then differ only by the card: over many
probes, the paired differences tell what holding it is worth (metrics.card_probes tests them).

Probes are sequential. A first look plays `per_kind` probes of every kind; the kinds whose first
look leans one way (McNemar's exact p below SCREEN) get a second look of CONFIRM times as many
probes on other games, and only the second look is tested (Benjamini-Hochberg over the kinds
looked at twice): the first look chooses where to look, the second, on other games, tests. With
one look of 10 probes no card could be flagged among 26 kinds or more (the smallest exact p,
0.002, is above what Benjamini-Hochberg asks of the first of 26 tests).
"""
from __future__ import annotations

import random

from ...bots import make_bot
from ...errors import GamedslError, GameRuntimeError
from ..simulate import bot_seed
from ..stats import paired_rates

LONGER = 4  # a probe's games stop (and the probe is dropped) past this many times the real game's length
SCREEN = 0.25  # a first look with McNemar's exact p below this earns a second look ...
CONFIRM = 3  # ... of this many times as many probes


def _eligible(records: list, kind: int) -> list:
    """The finished games (in seed order) in which a seat held a card of this kind at a decision."""
    return [r for r in records if not r["limit_hit"] and _holds(r).get(kind) is not None]


def _holds(record: dict) -> dict:
    return {int(k): v for k, v in record["holds"].items()}


def _task(r: dict, kind: int, look: int, index: int) -> tuple:
    at, holder = _holds(r)[kind]
    return ("probe", index, r["seed"], tuple(r["seats"]), tuple(r["history"][:at]), kind, holder, r["moves"], look)


def plan(records: list, per_kind: int, kinds: int) -> list[tuple]:
    """The first look of one version: for each kind of card, up to `per_kind` games (in seed order)."""
    tasks: list[tuple] = []
    for kind in range(kinds):
        for r in _eligible(records, kind)[:per_kind]:
            tasks.append(_task(r, kind, 1, len(tasks)))
    return tasks


def confirm(records: list, per_kind: int, first: list[dict]) -> list[tuple]:
    """The second look: for each kind whose first look leans one way, the next CONFIRM * per_kind
    games in which it was held (none of them probed in the first look)."""
    by_kind: dict[int, list] = {}
    for pr in first:
        by_kind.setdefault(pr["kind"], []).append(pr)
    tasks: list[tuple] = []
    for kind, prs in sorted(by_kind.items()):
        if leans(prs):
            for r in _eligible(records, kind)[per_kind:per_kind * (1 + CONFIRM)]:
                tasks.append(_task(r, kind, 2, len(tasks)))
    return tasks


def leans(probes: list[dict]) -> bool:
    """Whether a first look is worth a second: the holder's wins with and without the card differ
    one way more often than the other, beyond SCREEN."""
    test = paired_rates([pr["without"] for pr in probes], [pr["with"] for pr in probes])
    return test["p"] is not None and test["p"] < SCREEN


def probe_task(context, task: tuple) -> dict | None:
    """One probe: the holder's result with the card and with another in its place (None if no card
    could take its place, or a game ran too long)."""
    _, index, seed, seats, prefix, kind, holder, length, look = task
    game = context.game
    try:
        state = game.new_state(players=context.players, seed=seed, options=context.options)
        for move in prefix:
            state.apply_action(move)
        return _probe(context, state, seed, list(seats), kind, holder, length, look)
    except GameRuntimeError as exc:
        raise exc.within(f"in a card probe of the game of seed {seed}") from None
    except GamedslError as exc:
        raise GamedslError(f"a card probe of the game of seed {seed}: {exc}") from None


def _probe(context, state, seed: int, seats: list, kind: int, holder: int, length: int, look: int) -> dict | None:
    kinds, zones = context.kinds, state.prog.zones
    own = [z.base + holder for z in zones if z.per_player]
    card = next(c for base in own for c in state.z[base] if kinds[c] == kind)
    rng = random.Random(seed * 7919 + kind)
    stock = {z.base for z in zones if not z.per_player and not z.out}
    others = {z.base + q for z in zones if z.per_player and not z.out for q in range(context.players) if q != holder}
    partner = None
    for where in (stock, others):  # the stock first: then no other seat's hand changes
        pool = [c for inst in sorted(where) for c in state.z[inst]
                if kinds[c] != kind and not state.sees_card(holder, c)]
        if pool:
            partner = rng.choice(pool)
            break
    if partner is None:
        return None
    future = rng.getrandbits(64)
    results = []
    for swapped in (False, True):
        branch = state.clone()
        branch.reseed(future)
        if swapped:
            branch.swap(card, partner)
        branch.refresh()  # set by hand, both alike: the bots' worlds are dealt from what each seat sees
        bots = [make_bot(spec, bot_seed(seed, p) + 7) for p, spec in enumerate(seats)]
        while not branch.is_terminal():
            if branch.moves > LONGER * max(length, 50):
                return None
            branch.apply_action(bots[branch.current_player()].choose(branch))
        if branch.limit_hit:
            return None
        results.append((branch.results[holder] == "win", branch.returns()[holder]))
    (won_with, ret_with), (won_without, ret_without) = results
    return {"kind": kind, "seed": seed, "look": look, "holder": holder, "instead": context.kinds[partner],
            "with": won_with, "without": won_without, "return_with": ret_with, "return_without": ret_without}
