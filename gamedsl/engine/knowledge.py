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
            if vis == "public" or (vis == "owner" and k == player) or (vis == "others" and z.per_player and k != player):
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
    """Deals worlds of one moment for one player: what is hidden is worked out once.

    A world depends only on what the player knows and on the `rng` that deals it, never on how
    the hidden things really lie: each group of hidden cards is dealt from a fixed order (sorted
    card numbers), what others were shown stays with its place (not with the card that really lay
    there; so do the values of per-card variables, and what was told of its attributes, as the player
    was told it: a place gets only cards that fit it), the answers others gave in an open reaction window or race are taken back (they
    are asked again in the world, after the player's own), and without the past the moments
    others let pass are forgotten."""

    def __init__(self, state, player: int):
        self.state = state
        self.player = player
        groups: dict = {}
        keys = state.game.back_keys
        for inst, i in hidden_slots(state, player):
            groups.setdefault(keys[state.z[inst][i]] if keys else (), []).append((inst, i))
        self.groups = list(groups.values())
        self.cards = [sorted(state.z[inst][i] for inst, i in group) for group in self.groups]
        self.said = None  # the lines said that name a card the player did not see (worked out on first need)
        known = state.known
        # what the others were shown, per hidden place (it is theirs to know, and the player knows of it)
        self.shown = [[known.get(state.z[inst][i], 0) for inst, i in group] for group in self.groups] \
            if known else None
        # per-card variables: a mark on a hidden card stays with its place, like what others were shown
        bases = [var.base for var in state.prog.vars if var.per_card]
        self.marks = [[[state.v[b + state.z[inst][i]] for inst, i in group] for b in bases]
                      for group in self.groups] if bases else None
        self.mark_bases = bases
        # what was told of a hidden card's attributes stays with its place, like what was shown; what
        # the player was told limits the cards its place may hold in a world (Redealer.allowed). What
        # another player was told of it is taken to be what the player was told (nothing if the
        # player was told nothing): what else the other heard is theirs to know, and would tell the card
        told = state.told
        self.told = [[_told_at(told, state.z[inst][i], player, state.np) for inst, i in group]
                     for group in self.groups] if told else None
        self.allowed = [self._allowed(k) for k in range(len(self.groups))] if told else None
        self.want = decision(state)
        self.answers = _others_answers(state, player)
        self.passes = sum(state.passes) > state.passes[player]  # the others let moments pass

    def _allowed(self, k: int) -> dict:
        """Per place of group k the player was told something of: the indices (in the group's sorted
        cards) of the cards that fit what they were told there."""
        tables = self.state.game.attr_tables
        cards = self.cards[k]
        out = {}
        for j, entries in enumerate(self.told[k]):
            for p, masks in entries:
                if p != self.player:
                    continue
                fit = [n for n, c in enumerate(cards)
                       if all(mask >> t[c] & 1 if t[c] >= 0 else True for mask, t in zip(masks, tables))]
                if len(fit) < len(cards):
                    out[j] = fit
        return out

    def __bool__(self) -> bool:
        """Whether anything is hidden (else every world is the state itself)."""
        return bool(self.groups) or self.answers or self.passes

    def deal(self, rng: random.Random, reseed: bool = False, past: bool = True, tries: int = 20):
        """One world (see redeal), or None."""
        for _ in range(tries):
            other = self.state.clone(past)
            other.checking = False
            z, loc = other.z, other.loc
            known = other.known
            # A generator of the deal's own: the sorted cards shuffled straight from `rng` would be
            # the game's own first deal again whenever `rng` is seeded like the game (a checker).
            generator = random.Random(rng.getrandbits(64)) if self.groups else None
            shuffle = generator.shuffle if self.groups else None
            for k, group in enumerate(self.groups):
                cards = self.cards[k][:]
                if self.allowed is not None and self.allowed[k]:
                    cards = _constrained(cards, self.allowed[k], generator)
                else:
                    shuffle(cards)
                for (inst, i), c in zip(group, cards):
                    z[inst][i] = c
                    loc[c] = inst
                if self.shown is not None:
                    for c in cards:
                        known.pop(c, None)
                    for c, mask in zip(cards, self.shown[k]):
                        if mask:
                            known[c] = mask
                if self.told is not None:
                    told = other.told
                    for c in cards:
                        for p in range(other.np):
                            told.pop((c, p), None)
                    for c, entries in zip(cards, self.told[k]):
                        for p, masks in entries:
                            told[(c, p)] = masks
                if self.marks is not None:
                    v = other.v
                    for b, values in zip(self.mark_bases, self.marks[k]):
                        for c, value in zip(cards, values):
                            v[b + c] = value
            if past and self.groups:
                self._said_again(other)
            taken = _take_back_answers(other, self.player) if self.answers else 0
            if not past:
                _forget_passes(other, self.player, taken)
            if reseed:
                other.rng, other.rng_owned = rng, False
                other.fixed_random, other.fixed_shuffles = [], []  # a scenario's scripted future is not known
            other.refresh(window=False)  # the same decision, worked out again from the new cards
            if decision(other) == self.want:
                return other
        return None

    def _said_again(self, world):
        """What the rules said, in a world with the past: a card the player did not see when it was
        said, and cannot see now, is the card that lies in its place in this world (so a line that
        showed it to the player would read otherwise here: the no-leak check sees it)."""
        if self.said is None:
            bit = 1 << self.player
            self.said = [k for k, (_, _, text, _) in enumerate(self.state.log)
                         if any(p.__class__ is tuple and not p[1] & bit for p in getattr(text, "parts", None) or ())]
        if not self.said:
            return
        now = {}
        for group in self.groups:
            for inst, i in group:
                now[self.state.z[inst][i]] = world.z[inst][i]
        bit = 1 << self.player
        log = world.log
        for k in self.said:
            m, who, text, r = log[k]
            parts = tuple((now.get(p[0], p[0]), p[1]) if p.__class__ is tuple and not p[1] & bit else p
                          for p in text.parts)
            log[k] = (m, who, text.with_parts(parts), r)


def _told_at(told: dict, card: int, player: int, players: int) -> list:
    """What a world keeps at a hidden card's place of what was told of it: (seat, per attribute the
    values it may have) for each seat told something, all as the player was told it."""
    mine = told.get((card, player))
    if mine is None:
        return []
    return [(p, mine) for p in range(players) if (card, p) in told]


def _constrained(cards: list, allowed: dict, rng: random.Random) -> list:
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
        choice = _matched(places, allowed, rng)
    taken = set(choice.values())
    rest = [n for n in range(len(cards)) if n not in taken]
    rng.shuffle(rest)
    rest_iter = iter(rest)
    return [cards[choice[j]] if j in choice else cards[next(rest_iter)] for j in range(len(cards))]


def _matched(places: list, allowed: dict, rng: random.Random) -> dict:
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
            if _fillable(order[n + 1:], allowed, set(choice.values())):
                break
            del choice[j]
        else:
            raise AssertionError("what the player was told fits no deal")  # the real deal fits: never
    return choice


def _fillable(places: list, allowed: dict, used: set) -> bool:
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


def _others_answers(state, player: int) -> bool:
    """Whether an open reaction window or race holds something the player cannot know: the others'
    answers, or (in a reaction window) who else was asked, which depends on the cards they hold."""
    w = state.window
    if w is None:
        return False
    return any(a[2] != player for a in w[3]) or (w[0] == "react" and len(state.alive) > 1)


def _take_back_answers(world, player: int):
    """In a world of an open window: the others' answers are taken back and they are asked again
    after the player; in a reaction window everyone still in the game is asked (who could react
    in truth is not known)."""
    w = world.window
    kind, queue, answers = w[0], w[2], w[3]
    kept = [a for a in answers if a[2] == player]
    taken = [a[2] for a in answers if a[2] != player]
    if kind == "react":
        front = queue[:1]
        others = [p for p in _after(world.alive, front[0] if front else player)
                  if p not in front and not (p == player and kept)]
        w[2] = front + others
    else:
        w[2] = queue + taken
    w[3] = kept
    no_reaction = world.prog.no_reaction.first_id if world.prog.no_reaction is not None else None
    return sum(1 for a in answers if a[2] != player and a[3] != no_reaction)


def _forget_passes(world, player: int, taken: int):
    """The moments the others let pass are seen by nobody else: a world forgets them (and the
    `taken` answers of an open window), and its move limit counts only the moves the player
    knows of. Only in a world without the past, whose record of moves this cannot upset."""
    unseen = sum(world.passes) - world.passes[player] + taken
    if unseen:
        mine = world.passes[player]
        world.passes = [0] * world.np
        world.passes[player] = mine
        world.move_limit += unseen


def _after(alive: tuple, first: int) -> list:
    """The players still in the game in turn order, from the one after `first`."""
    later = [p for p in alive if p > first]
    return later + [p for p in alive if p <= first]
