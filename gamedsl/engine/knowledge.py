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

from ..language.program import MAX_SEATS


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
            vis = state.game.visibility(state, instance, player) if z.changes else z.visibility
            if vis == "public" or (vis == "owner" and k == player):
                continue
            last = len(cards) - 1 if vis == "top" else len(cards)
            slots.extend((instance, i) for i in range(last) if not known.get(cards[i], 0) & bit)
    return slots


def decision(state):
    """Who decides now, and which decision: the player and the `choose` (its actions) that asks,
    and the kind of reaction window open, if any."""
    if state.pending is None:
        return None
    window = state.window[0] if state.window is not None else None
    return state.pending[0], tuple(map(id, state.pending[2])), window


def redeal(state, player: int, rng: random.Random, reseed: bool = False, past: bool = True, tries: int = 20):
    """A copy of the state in which the cards the player cannot see are dealt again at random,
    or None if no such deal fits what the game has shown (after `tries` attempts).

    Only cards with the same back trade places. A deal that fits is one in which the same
    player is still to make the same decision: the rules may already have shown something of
    the hidden cards (a player asked to cover a card holds one that covers it; a player laying
    down a set holds cards that complete it), and a deal that contradicts that is not a world
    the player could be in. With `reseed`, the copy's future
    random events (shuffles, random picks) are drawn afresh, so nothing of the real future leaks.
    """
    slots = hidden_slots(state, player)
    groups: dict[tuple, list] = {}
    for inst, i in slots:
        groups.setdefault(back_key(state.prog, state.z[inst][i]), []).append((inst, i))
    want = decision(state)
    for _ in range(tries):
        other = state.clone(past)
        other.checking = False
        for group in groups.values():
            cards = [other.z[inst][i] for inst, i in group]
            rng.shuffle(cards)
            for (inst, i), c in zip(group, cards):
                other.z[inst][i] = c
                other.loc[c] = inst
        if reseed:
            other.reseed(rng.getrandbits(64))
        other.refresh(window=False)  # the same decision, worked out again from the new cards
        if decision(other) == want:
            return other
    return None
