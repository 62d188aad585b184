"""The State's operations on cards and zones: moving, dealing, shuffling, gathering, revealing,
and what the rules read of them (a mixin of State)."""
from __future__ import annotations

from ..errors import GameRuntimeError
from .chance import shuffle
from .runtime import next_version


class Cards:
    """move, deal, shuffle, gather, reveal... (the statements' effects), and reading zones and variables."""

    __slots__ = ()

    def move(self, card: int, dest: int, bottom: bool = False):
        if card is None or card < 0:
            raise GameRuntimeError("there is no card to move")
        src = self.loc[card]
        w = self.watched  # None: the rules that change rules read no zone
        if w is not None and (w[src] or w[dest]):  # they read one of these
            self.rules_changed(w[src], w[dest])
        cards = self.z[src]
        if cards[-1] == card:
            cards.pop()
        else:
            cards.remove(card)
        if bottom:
            self.z[dest].insert(0, card)
        else:
            self.z[dest].append(card)
        self.loc[card] = dest
        if self.known:
            self.known.pop(card, None)
        if self.told:
            self.untell(card)
        if self.move_hooks:
            self._moved(card, src, dest)

    def move_top(self, n: int, src: int, dest: int, bottom: bool = False):
        source = self.z[src]
        w = self.watched
        if w is not None and (w[src] or w[dest]):
            self.rules_changed(w[src], w[dest])
        if self.move_hooks or bottom or src == dest:
            for _ in range(min(n, len(source))):
                self.move(source[-1], dest, bottom)
            return
        if n <= 0 or not source:
            return
        if n == 1:  # one card (a draw): no lists made
            card = source.pop()
            self.z[dest].append(card)
            self.loc[card] = dest
            if self.known or self.told:
                self.forget((card,))
            return
        # the top n cards, top first, as moving them one at a time leaves them (slices: no calls)
        taken = source[:-n - 1:-1]
        del source[-n:]
        self.z[dest] += taken
        loc = self.loc
        for card in taken:
            loc[card] = dest
        if self.known or self.told:
            self.forget(taken)

    def move_all(self, src: int, dest: int, bottom: bool = False):
        w = self.watched
        if w is not None and (w[src] or w[dest]):
            self.rules_changed(w[src], w[dest])
        if self.move_hooks or bottom:
            cards = list(self.z[src])
            for c in (reversed(cards) if bottom else cards):
                self.move(c, dest, bottom)
            return
        source = self.z[src]
        cards = source[:]
        del source[:]
        self.z[dest] += cards
        loc = self.loc
        for c in cards:
            loc[c] = dest
        if self.told:
            self.forget(cards)
        elif self.known:  # (forget, inlined: a gather after cards were shown moves them all)
            known = self.known
            for c in cards:
                if c in known:
                    del known[c]

    def rules_changed(self, item: int, other: int = 0):
        """What the rules that change rules read has changed (language/watch.py): a new version of
        the whole (their answers of the last version no longer hold) and of the watched items
        changed (`item` and `other`: an index in watch_items plus one; 0 for none), so that a
        pattern's Spec that reads none of them is kept (runtime.pattern_spec)."""
        v = self.ver = next_version()
        if item:
            self.wv[item - 1] = v
        if other:
            self.wv[other - 1] = v

    def all_rules_changed(self):
        """Everything the rules that change rules read may have changed (set by hand, gathered)."""
        v = self.ver = next_version()
        self.wv = [v] * len(self.wv)

    def deal(self, n: int, src: int, base: int, start: int):
        for p in _from(self.alive, start):
            self.move_top(n, src, base + p)

    def eliminate(self, player: int):
        """Take a player out of the game: `players`, `next` and the turns skip them from now on."""
        if not self.out >> player & 1:
            if self.prog.watch_players:
                self.rules_changed(self.game.players_item)
            self.out |= 1 << player
            self.alive = tuple(p for p in self.alive if p != player)

    def shuffle(self, zone: int):
        """Shuffle a zone with the seeded RNG (or into the next fixed order of a scenario)."""
        fixed = self.fixed_shuffles.pop(0) if self.fixed_shuffles else None
        if self.watched is not None and self.watched[zone]:
            self.rules_changed(self.watched[zone])
        if fixed is not None:  # a scenario's fixed order (None there: this shuffle is left to the seed)
            order = self.game.same_cards(fixed, self.z[zone])
            if order is None:
                raise GameRuntimeError(f"the fixed shuffle does not hold the cards of "
                                       f"'{self.game.zone_instance_name(zone)}'")
            self.z[zone] = order
        else:  # by places: the same draws as shuffling the cards themselves, and a record a replay follows
            cards = self.z[zone]
            places = self._scripted("shuffle", cards) if self.script else None
            if places is None:
                places = list(range(len(cards)))
                shuffle(self.own_rng(), places)
            if self.chances is not None:
                self.chances.append(("shuffle", places))
            self.z[zone] = [cards[k] for k in places]
            if self.watcher is not None:
                self.watcher(self, "shuffle", zone)
        if self.known or self.told:
            self.forget(self.z[zone])  # known to be here, but no longer where

    def gather(self, zone: int):
        """Every card, from every zone, into one zone, in card order; cards in zones marked `out`
        (out of the game) stay where they are."""
        out = self.prog.out_zones
        self.all_rules_changed()
        order = self.first or range(len(self.loc))  # (a world replaying a game: its cards relabelled, history.py)
        if not out:
            for cards in self.z:
                if cards:
                    del cards[:]
            self.known.clear()
            self.told.clear()
            self.z[zone] = list(order)
            self.loc = [zone] * len(self.loc)
            return
        kept = [c for c in order if self.loc[c] not in out]
        for k, cards in enumerate(self.z):
            if k not in out:
                cards.clear()
        self.forget(kept)
        self.z[zone] = kept
        for c in kept:
            self.loc[c] = zone

    def in_play(self) -> tuple:
        """Every card not in a zone marked `out` (out of the game)."""
        out = self.prog.out_zones
        return tuple(c for c, zone in enumerate(self.loc) if zone not in out)

    def reveal(self, card: int, player: int | None):
        """Show a card to one player (or to everyone) where it lies: they know it until it moves."""
        if card is None or card < 0:
            raise GameRuntimeError("there is no card to reveal")
        mask = (1 << self.np) - 1 if player is None else 1 << player
        self.known[card] = self.known.get(card, 0) | mask
        if self.watcher is not None:
            self.watcher(self, "reveal", (card, mask))

    def reveal_zone(self, zone: int, player: int | None):
        """Show every card of a zone instance where it lies (`reveal p.hand`): as `reveal` each."""
        if self.watcher is not None:
            for card in self.z[zone]:
                self.reveal(card, player)
            return
        known = self.known
        if player is None:  # shown to everyone: whatever each knew, all know it now
            mask = (1 << self.np) - 1
            for card in self.z[zone]:
                known[card] = mask
            return
        mask = 1 << player
        for card in self.z[zone]:
            known[card] = known.get(card, 0) | mask

    def reveal_zones(self, base: int, player: int | None):
        """Show every player's zone of one name (`reveal hand`): each player turns theirs up."""
        for k in range(self.np):
            self.reveal_zone(base + k, player)

    def knows(self, player: int, card: int) -> bool:
        """Whether a player has been shown this card since it last moved."""
        return bool(self.known.get(card, 0) >> player & 1)

    def sees_card(self, player: int, card: int) -> bool:
        """Whether a player sees a card where it lies, or knows it from a reveal."""
        if card is None or card < 0:
            raise GameRuntimeError("there is no card here")
        zone = self.loc[card]
        cards = self.z[zone]
        return self.game.sees(self, zone, player, cards[-1] == card) or self.knows(player, card)

    def forget(self, cards):
        known = self.known
        for c in cards:
            if c in known:
                del known[c]
        if self.told:
            for c in cards:
                self.untell(c)

    def untell(self, card: int):
        """Forget what everyone was told of a card's attributes (it moved: it is no longer where it was told)."""
        told = self.told
        for p in range(self.np):
            told.pop((card, p), None)

    def tell(self, card: int, attr: int, value: int | None, player: int | None):
        """`reveal c.ATTR [to p]` (value None): the player learns the attribute's value;
        `reveal c.ATTR == v [to p]`: whether it is v. Kept per player until the card moves."""
        if card is None or card < 0:
            raise GameRuntimeError("there is no card to reveal")
        real = self.game.attr_tables[attr][card]
        full = self.game.told_full[attr]
        if value is None or value == real:
            keep = 1 << real if real >= 0 else 0
        else:
            keep = full & ~(1 << value)
        told = self.told
        for p in (range(self.np) if player is None else (player,)):
            masks = told.get((card, p)) or self.game.told_full
            if masks[attr] & keep != masks[attr]:
                told[(card, p)] = masks[:attr] + (masks[attr] & keep,) + masks[attr + 1:]

    def possible(self, player: int, card: int) -> tuple:
        """Per attribute, the values a card may have for a player (a bit mask each): what they were told."""
        return self.told.get((card, player)) or self.game.told_full

    def knows_attr(self, player: int, card: int, attr: int, value: int | None = None, equal: bool = True) -> bool:
        """Whether a player knows a card's attribute (value None: its value; else that it is, or with
        `equal` false is not, that value): they see the card, or what they were told leaves no doubt."""
        if self.sees_card(player, card):
            return value is None or (self.game.attr_tables[attr][card] == value) == equal
        mask = self.possible(player, card)[attr]
        if value is None:
            return mask & (mask - 1) == 0
        return mask == 1 << value if equal else not mask >> value & 1

    def top(self, zone: int) -> int:
        cards = self.z[zone]
        if not cards:
            raise GameRuntimeError(f"zone '{self.game.zone_instance_name(zone)}' is empty: it has no top card")
        return cards[-1]

    def bottom(self, zone: int) -> int:
        cards = self.z[zone]
        if not cards:
            raise GameRuntimeError(f"zone '{self.game.zone_instance_name(zone)}' is empty")
        return cards[0]

    def pick(self, items):
        """A random element, from the seeded RNG (or the next fixed choice of a scenario)."""
        if not items:
            raise GameRuntimeError("random() of an empty collection")
        if self.fixed_random:
            choice = self.fixed_random.pop(0)
            if choice not in items:
                raise GameRuntimeError(f"the fixed random choice {choice} is not among {list(items)}")
            return choice
        k = self._scripted("pick", items) if self.script else None
        if k is None:
            k = self.own_rng().randrange(len(items))
        if self.chances is not None:
            self.chances.append(("pick", k))
        return items[k]

    def _scripted(self, kind: str, items: list):
        """The next chance of a replayed game (engine/history.py), if it is one of this kind for these
        items (a shuffle may be drawn only now, from the cards: history.Shuffle)."""
        what, outcome = self.script.pop(0)
        if what == kind and callable(outcome):
            outcome = outcome(items)
        size = len(items)
        if what != kind or (len(outcome) != size if kind == "shuffle" else not 0 <= outcome < size):
            raise GameRuntimeError("a replay of the game left its course")
        return outcome

    def _moved(self, card: int, src: int, dest: int):
        if self.arrivals is not None and dest in self.arrivals:
            self.arrivals[dest][card] += 1
        for t, binds in self.game.move_triggers(src, dest):
            env = [None] * t.nlocals
            env[0] = card
            for slot, player in binds:
                env[slot] = player
            if t.cond is None or t.cond(self, env):
                self.fired.append([t.entry, env, [], None, None])

    def zone_cards(self, zone: str, player: int | None = None) -> list[int]:
        """The card ids in a zone, bottom to top."""
        return list(self.z[self.game.zone_instance(zone, player)])

    def var(self, name: str, who: int | None = None):
        """A variable's value; `who` is the player (or the card) of a per-player (per-card) variable."""
        var = self.prog.var_by_name[name]
        if var.per_player or var.per_card:
            if who is None:
                raise KeyError(f"variable '{name}' belongs to each {'player' if var.per_player else 'card'}: "
                               "give the player or card")
            return self.v[var.base + who]
        return self.v[var.base]

    def set_var(self, name: str, value, who: int | None = None):
        var = self.prog.var_by_name[name]
        self.all_rules_changed()
        self.v[var.base + (who if var.per_player or var.per_card else 0)] = value

    def swap(self, a: int, b: int):
        """Exchange the places of two cards, by hand (as a scenario sets cards: call refresh() after).
        What anyone knew of either card is forgotten: it is another card now."""
        za, zb = self.loc[a], self.loc[b]
        ia, ib = self.z[za].index(a), self.z[zb].index(b)
        self.z[za][ia], self.z[zb][ib] = b, a
        self.loc[a], self.loc[b] = zb, za
        self.forget([a, b])

    def rig(self, zones: dict, rest: int | None = None):
        """Put exactly the given cards in the given zones (a scenario's fixed deal).

        Cards that were in those zones and are not listed take the places the listed cards
        leave (any left over go to the `rest` zone), so every card stays in exactly one zone.
        """
        listed = [c for cards in zones.values() for c in cards]
        self.all_rules_changed()
        self.chances = None  # cards set by hand: no replay of the game's course leads here
        if len(set(listed)) != len(listed):
            dup = next(c for c in listed if listed.count(c) > 1)
            raise ValueError(f"{self.game.card_name(dup)} is listed twice")
        wanted = set(listed)
        self.forget(listed)
        for zone in zones:
            self.forget(self.z[zone])
        displaced = [c for zone in zones for c in self.z[zone] if c not in wanted]
        vacancies = [(self.loc[c], self.z[self.loc[c]].index(c)) for c in listed if self.loc[c] not in zones]
        extra = []
        if rest is not None:
            extra = displaced[len(vacancies):]
            displaced = displaced[:len(vacancies)]
        if len(displaced) > len(vacancies):
            left = displaced[len(vacancies):]
            names = ", ".join(self.game.card_name(c) for c in left[:8]) + (
                f" and {len(left) - 8} more" if len(left) > 8 else "")
            raise ValueError(f"these cards would be left without a zone: {names}; say where they go, "
                             "or name a zone for the rest with 'rest: ZONE'")
        for (zone, i), c in zip(vacancies, displaced):
            self.z[zone][i] = c
            self.loc[c] = zone
        for zone, i in vacancies[len(displaced):]:
            self.z[zone][i] = None
        for zone in {zone for zone, _ in vacancies}:
            self.z[zone] = [c for c in self.z[zone] if c is not None]
        for zone, cards in zones.items():
            self.z[zone] = list(cards)
            for c in cards:
                self.loc[c] = zone
        if extra:
            self.z[rest][0:0] = extra  # under what the zone holds (or was given): its top cards stay on top
            for c in extra:
                self.loc[c] = rest


_ROTATIONS: dict[tuple, tuple] = {}


def _from(seats: tuple, first: int) -> tuple:
    """The seats in turn order from `first` (or from the next seat after it still in the game);
    worked out once per table and first seat (asked before every decision of a game with reactions)."""
    key = (seats, first)
    found = _ROTATIONS.get(key)
    if found is None:
        found = seats
        for k, p in enumerate(seats):
            if p >= first:
                found = seats[k:] + seats[:k]
                break
        _ROTATIONS[key] = found
    return found

