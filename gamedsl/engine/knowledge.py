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

from ..errors import GamedslError
from ..language.program import MAX_SEATS
from .chance import shuffle
from .history import replayable, replayed, sight
from .told import constrained, fits

SEARCH = 1000  # deals a bot tries near fresh ones when none of its first 200 fits (Redealer.deal's `search`)


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


def secret_orders(state, player: int) -> list[list[tuple[int, int]]]:
    """Per pile of a `contents` zone whose cards the player sees: the places whose order is secret to
    them (every card but those they were shown where they lie)."""
    out = []
    bit = 1 << player
    known = state.known
    for z in state.prog.zones:
        if not (z.contents and z.stack):
            continue
        for k in range(state.np if z.per_player else 1):
            instance = z.base + k
            cards = state.z[instance]
            if len(cards) > 1 and state.game.sees(state, instance, player, False):
                places = [(instance, i) for i, c in enumerate(cards) if not known.get(c, 0) & bit]
                if len(places) > 1:
                    out.append(places)
    return out


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

    def __init__(self, state, player: int, replay: bool = False, same_view: bool | str = True):
        self.state = state
        self.player = player
        # a replayed world fits only if the player sees in it what they see: a bot's world must; a test
        # of what the player is shown (tools/leaks.py) wants to see the difference instead, in the
        # variables and the log, and asks (same_view="zones") only for the cards as the player sees them
        # (how many lie where, and those it sees: the rules may show something of a hidden card there)
        self.same_view = same_view
        groups: dict = {}
        keys = state.game.back_keys
        for inst, i in hidden_slots(state, player):
            groups.setdefault(keys[state.z[inst][i]] if keys else (), []).append((inst, i))
        self.groups = list(groups.values())
        # the groups from here on are piles whose cards the player knows but not their order: a world
        # deals them again within their pile (their marks go with them: the player sees whose they are)
        self.orders = len(self.groups)
        self.groups += secret_orders(state, player)
        self.cards = [sorted(state.z[inst][i] for inst, i in group) for group in self.groups]
        self.said = None  # the lines said that name a card the player did not see (worked out on first need)
        self.failed = 0  # deals in which the rules failed (each costs a loop run to its step limit)
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
        decider = state.pending[0] if state.pending is not None else player
        # the zone instances the player to decide sees and this player does not (a search trades their cards first)
        self.deciders = {inst for group in self.groups for inst, _ in group
                         if decider != player and state.game.sees(state, inst, decider, True)}
        self.answers = _others_answers(state, player)
        # variables that hold what the player may not know: worlds replay the game (history.py)
        # (`replay`: always, where the game can be replayed: verify re-says the log and recomputes all)
        self.replay = (replay or bool(state.prog.secret_vars)) and replayable(state)
        self.sight = sight(state, player) if self.replay else None
        if self.sight is not None and not self.sight.ok:
            self.replay, self.sight = False, None  # (a replay does not reach this state: dealt from the present)
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
                fit = [n for n, c in enumerate(cards) if fits(c, masks, tables)]
                if len(fit) < len(cards):
                    out[j] = fit
        return out

    def __bool__(self) -> bool:
        """Whether anything is hidden (else every world is the state itself)."""
        return bool(self.groups) or self.answers or self.passes

    def deal(self, rng: random.Random, reseed: bool = False, past: bool = True, tries: int = 20, search: int = 0):
        """One world (see redeal), or None. After `tries` deals that do not fit, up to `search` more
        are tried near fresh deals, one trade of two cards from each (a deal the rules allow may be
        rare: a player asked to cover holds one of the few cards that cover); never from the real one."""
        if self.replay:  # the game replayed: its shuffles drawn again (history.py); no search by trades
            for _ in range(tries):
                world = self._replayed(random.Random(rng.getrandbits(64)), rng, reseed, past)
                if world is not None:
                    return world
            return None
        for _ in range(tries):
            generator = random.Random(rng.getrandbits(64)) if self.groups else None
            world = self._world([self._placed(k, generator) for k in range(len(self.groups))], rng, reseed, past)
            if world is not None:
                return world
        while search > 0:  # (from each fresh deal, the trades that change what the player to decide holds)
            generator = random.Random(rng.getrandbits(64))
            placed = [self._placed(k, generator) for k in range(len(self.groups))]
            trades = [(k, i, j) for k, group in enumerate(self.groups) for i in range(len(group))
                      for j in range(i + 1, len(group))
                      if group[i][0] in self.deciders or group[j][0] in self.deciders]
            if not trades:  # nobody else decides: any trade
                trades = [(k, i, j) for k, group in enumerate(self.groups) for i in range(len(group))
                          for j in range(i + 1, len(group))]
            if not trades:
                break
            generator.shuffle(trades)
            for k, i, j in trades[:search]:
                search -= 1
                if self.failed > tries:  # a move begun that most deals do not allow: the search costs
                    return None          # a run to the step limit per deal, and finds little
                cards = placed[k]
                cards[i], cards[j] = cards[j], cards[i]
                if self.allowed is None or _fits_told(self.allowed[k], self.cards[k], cards):
                    world = self._world(placed, rng, reseed, past)
                    if world is not None:
                        return world
                cards[i], cards[j] = cards[j], cards[i]
        return None

    def blind(self, rng: random.Random):
        """A world for when none fits: the hidden cards dealt again at random and a fresh future, the
        decision worked out again as it falls. It may not be the decision the player has (a search
        learns little from it), but it tells nothing of the real hidden cards: used where a world
        must be given whatever happens (OpenSpiel's resampling), never the real state."""
        generator = random.Random(rng.getrandbits(64))
        placed = [self._placed(k, generator) for k in range(len(self.groups))]
        keep, self.want, replay = self.want, None, self.replay
        self.replay = False
        try:
            world = self.state.clone(False)
            world.checking = False
            for k, group in enumerate(self.groups):
                for (inst, i), c in zip(group, placed[k]):
                    world.z[inst][i] = c
                    world.loc[c] = inst
            for var in self.state.prog.vars:  # what only the rules know is forgotten: back to its start
                if var.name in self.state.prog.secret_vars:
                    value = var.init(world)
                    for j in range(len(world.loc) if var.per_card else world.np if var.per_player else 1):
                        world.v[var.base + j] = value
            world.reseed(rng.getrandbits(64))
            world.refresh(window=False)
            return world
        finally:
            self.want, self.replay = keep, replay

    def _placed(self, k: int, generator: random.Random) -> list:
        """The cards of group k dealt again to its places, in the group's order of places."""
        cards = self.cards[k][:]
        if self.allowed is not None and self.allowed[k]:
            return constrained(cards, self.allowed[k], generator)
        shuffle(generator, cards)
        return cards

    def _world(self, placed: list, rng: random.Random, reseed: bool, past: bool):
        """The world of one deal of the hidden cards, or None if it does not fit what the player saw."""
        other = self.state.clone(past)
        other.checking = False
        z, loc = other.z, other.loc
        known = other.known
        for k, group in enumerate(self.groups):
            cards = placed[k]
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
            if self.marks is not None and k < self.orders:
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
        try:
            other.refresh(window=False)  # the same decision, worked out again from the new cards
        except GamedslError:  # the rules fail with these cards: a move begun that they do not allow (two
            self.failed += 1  # 6s laid one by one from a hand without them), so not a world the player is in
            return None
        return other if decision(other) == self.want else None

    def _replayed(self, generator: random.Random, rng: random.Random, reseed: bool, past: bool):
        """The world of one replay of the game (history.py): its variables worked out again from its
        cards. It fits if the player is where they are, seeing what they see."""
        if self.sight.state is not self.state or len(self.sight.places) != self.state.moves:
            self.sight = sight(self.state, self.player)  # (followed on to a later moment since)
        world = replayed(self.sight, generator)
        if world is None:
            return None
        world.checking = False
        if self.answers and world.window is not None:  # the others' answers were not replayed: the player first
            queue = world.window[2]
            if self.player in queue:
                queue.remove(self.player)
                queue.insert(0, self.player)
                try:
                    world.refresh(window=False)
                except GamedslError:
                    return None
        if decision(world) != self.want or self.same_view and not self._seen_alike(world) \
                or self._told(world) != self._told(self.state):  # (the facts told the player: they know them)
            return None
        if not past:
            world = world.clone(past=False)
            _forget_passes(world, self.player, 0)
        if reseed:
            world.rng, world.rng_owned = rng, False
        return world

    def _told(self, state) -> list:
        """What `reveal FACT` told the player, in order."""
        return [value for value, to in state.facts if to is None or to == self.player]

    def _seen_alike(self, world) -> bool:
        mine, theirs = self.state.observation(self.player), world.observation(self.player)
        return mine["zones"] == theirs["zones"] if self.same_view == "zones" else mine == theirs

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
        for group in self.groups[:self.orders]:
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


def _fits_told(allowed: dict, cards: list, placed: list) -> bool:
    """Whether each place of a group gets a card it allows (allowed: place -> indices into `cards`)."""
    index = {c: n for n, c in enumerate(cards)}
    return all(index[placed[j]] in fit for j, fit in allowed.items())


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
    in truth is not known). Returns how many answers were taken back (moves the player does not know of)."""
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
    for a in answers:  # a pass taken back was never made: it counts no more among the passes
        if a[2] != player and a[3] == no_reaction:
            world.passes[a[2]] -= 1
    return len(taken)


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
