"""Deals that fit what a player was told: cards dealt to places, some of which allow only some of
the cards (knowledge.Redealer deals the present so; history.Sight draws a replay's shuffles so)."""
from __future__ import annotations

import random


def fits(card: int, masks: tuple, tables: list) -> bool:
    """Whether a card fits what was told of a place: per attribute, the values it may have (a bit mask)."""
    return all(mask >> t[card] & 1 if t[card] >= 0 else True for mask, t in zip(masks, tables))


def constrained(cards: list, allowed: dict, rng: random.Random) -> list:
    """The cards of a group dealt to its places (the result's k-th card goes to place k), each place
    in `allowed` (place -> indices into `cards`) getting one of the cards it allows, every such deal
    equally likely.

    The places told nothing take any card, so every way of filling the told places leaves the same
    number of ways to deal the rest: a uniform deal is a uniform filling of the told places, then the
    rest shuffled. Each told place draws a card at random from those it allows, and the draw is made
    again whenever two places drew the same card: every filling without a repeat is drawn with the
    same chance (the product of 1 / allowed), so the one kept is uniform. Should 200 draws all repeat a
    card (places told so much that few fillings exist), the places are filled one by one in a random
    order, each with a random card that still leaves the others a filling (a matching): that deal fits
    for certain, and is nearly uniform. Either way the deal reads only what the player knows."""
    places = sorted(allowed)
    choice = None
    for _ in range(200):
        picks = [rng.choice(allowed[j]) for j in places]
        if len(set(picks)) == len(picks):
            choice = dict(zip(places, picks))
            break
    if choice is None:
        choice = matched(places, allowed, rng)
    taken = set(choice.values())
    rest = [n for n in range(len(cards)) if n not in taken]
    rng.shuffle(rest)
    rest_iter = iter(rest)
    return [cards[choice[j]] if j in choice else cards[next(rest_iter)] for j in range(len(cards))]


def matched(places: list, allowed: dict, rng: random.Random) -> dict:
    """A filling of the told places (place -> card index) in which each gets a card it allows: the
    places in random order, each given a random allowed card after which the places left still have
    a filling (the real deal is one, so there always is)."""
    order = places[:]
    rng.shuffle(order)
    choice: dict = {}
    for n, j in enumerate(order):
        options = [x for x in allowed[j] if x not in choice.values()]
        rng.shuffle(options)
        for x in options:
            choice[j] = x
            if fillable(order[n + 1:], allowed, set(choice.values())):
                break
            del choice[j]
        else:
            raise ValueError("what the player was told fits no deal")  # (the real deal fits: never for it)
    return choice


def fillable(places: list, allowed: dict, used: set) -> bool:
    """Whether the places can each get a different allowed card, none of `used` (augmenting paths)."""
    owner: dict = {}

    def augment(j, seen):
        for x in allowed[j]:
            if x in used or x in seen:
                continue
            seen.add(x)
            if x not in owner or augment(owner[x], seen):
                owner[x] = j
                return True
        return False

    return all(augment(j, set()) for j in places)
