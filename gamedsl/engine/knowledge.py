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
    """What a card's back shows: the values of the `back shows` attributes (Game.back_keys has them all)."""
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
    the player could be in. With `reseed`, the copy's future random events (shuffles, random
    picks) are drawn from `rng` (copied at the copy's first draw), so nothing of the real future
    leaks. To deal many worlds of one moment, make a Redealer once.
    """
    return Redealer(state, player).deal(rng, reseed, past, tries)


class Redealer:
    """Deals worlds of one moment for one player: what is hidden is worked out once."""

    def __init__(self, state, player: int):
        self.state = state
        groups: dict = {}
        keys = state.game.back_keys
        for inst, i in hidden_slots(state, player):
            groups.setdefault(keys[state.z[inst][i]] if keys else (), []).append((inst, i))
        self.groups = list(groups.values())
        self.want = decision(state)

    def __bool__(self) -> bool:
        """Whether anything is hidden (else every world is the state itself)."""
        return bool(self.groups)

    def deal(self, rng: random.Random, reseed: bool = False, past: bool = True, tries: int = 20):
        """One world (see redeal), or None."""
        for _ in range(tries):
            other = self.state.clone(past)
            other.checking = False
            z, loc = other.z, other.loc
            for group in self.groups:
                cards = [z[inst][i] for inst, i in group]
                rng.shuffle(cards)
                for (inst, i), c in zip(group, cards):
                    z[inst][i] = c
                    loc[c] = inst
            if reseed:
                other.rng, other.rng_owned = rng, False
            other.refresh(window=False)  # the same decision, worked out again from the new cards
            if decision(other) == self.want:
                return other
        return None
