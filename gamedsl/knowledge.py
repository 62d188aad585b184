"""What one player knows: the cards they cannot see, and worlds consistent with what they saw.

A player sees the cards of the zones visible to them, the top of a `top` zone, the cards
revealed to them (until those move), and the back of every card (the attributes named by
`back shows`). Everything else could be any of the unseen cards with the same back: a
*redeal* puts those cards back in those places at random. The no-leak property uses it
(a player's view must not change), and so do bots that play fair (they decide on
sampled worlds, never on the real hidden cards).
"""
from __future__ import annotations

import random

from .program import MAX_SEATS


def back_key(prog, card: int) -> tuple:
    """What a card's back shows: the values of the `back shows` attributes."""
    return tuple(prog.card_attrs[a][card] for a in prog.back)


def hidden_slots(state, player: int) -> list[tuple[int, int]]:
    """The (zone instance, position) of every card the player cannot see or know now."""
    slots = []
    known = state.known
    bit = 1 << player
    for z in state.prog.zones:
        for k in range(MAX_SEATS if z.per_player else 1):
            if z.per_player and k >= state.np:
                break
            instance = z.base + k
            cards = state.z[instance]
            if z.visibility == "public" or (z.visibility == "owner" and k == player):
                continue
            last = len(cards) - 1 if z.visibility == "top" else len(cards)
            slots.extend((instance, i) for i in range(last) if not known.get(cards[i], 0) & bit)
    return slots


def redeal(state, player: int, rng: random.Random, reseed: bool = False):
    """A copy of the state in which the cards the player cannot see are dealt again at random.

    Only cards with the same back trade places. With `reseed`, the copy's future random
    events (shuffles, random picks) are drawn afresh, so nothing of the real future leaks.
    """
    other = state.clone()
    other.checking = False
    groups: dict[tuple, list] = {}
    for inst, i in hidden_slots(other, player):
        groups.setdefault(back_key(other.prog, other.z[inst][i]), []).append((inst, i))
    for slots in groups.values():
        cards = [other.z[inst][i] for inst, i in slots]
        rng.shuffle(cards)
        for (inst, i), c in zip(slots, cards):
            other.z[inst][i] = c
            other.loc[c] = inst
    if reseed:
        other.rng.seed(rng.getrandbits(64))
    other.refresh()  # the decision pending now is worked out again from the new cards
    return other
