"""Who may know a value: the labels of the information-flow check (secrecy.py).

An Audience is a set of seats, written in terms of the players a rule names: everyone, nobody,
only some named players (`only p`: a card of p's own hand), or everyone but some (`everyone but
p`: a hand held facing away from p). Seats are named by the rule's own player expressions (`me`,
`p`, `next(me)`), each binding its own Seat: two players written alike in different places are
told apart, so nothing is taken to be the same player unless it surely is.

Combining two values intersects their audiences (`meet`: to know `a + b` one must know both);
what is known either way unites them (`join`: a card seen where it was put is known, whatever
was known of it before). Every operation errs towards a smaller audience when it cannot tell.
"""
from __future__ import annotations

import attrs


@attrs.frozen
class Seat:
    """A player a rule names: its text as written (`me`, `p`, `next(me)`), and what tells apart
    two bindings of one name (0 for `me` and the other names that mean the same player wherever
    they are written: `owner`, the player of a per-player variable)."""

    text: str
    uid: object = 0

    @classmethod
    def at(cls, text: str, span) -> Seat:
        """The player a rule binds or computes at this place."""
        return cls(text, (span.file, span.line, span.column))


ME = Seat("me")
OWNER = Seat("owner")  # in a parameter, a modifier or a pattern: the player whose value is read
INDEX = Seat("@")  # in a per-player variable's audience: the player whose value it is
CARD = Seat("#")  # in a per-card variable's audience: whoever sees the card
ANY = Seat("every player", "any")  # `reveal hand`: every player's zone of that name


@attrs.frozen
class Audience:
    """everyone=True: every seat but `seats`; everyone=False: only `seats`."""

    everyone: bool
    seats: frozenset = frozenset()

    def meet(self, other: Audience) -> Audience:
        """Who knows both."""
        if self is other or other is EVERYONE:
            return self
        if self is EVERYONE:
            return other
        if self.everyone and other.everyone:
            return _make(True, self.seats | other.seats)
        if not self.everyone and not other.everyone:
            return _make(False, self.seats & other.seats)
        allowed, only = (self, other) if self.everyone else (other, self)
        # only p, and everyone but q: p unless p might be q (then nobody, to be safe)
        return _make(False, only.seats if not allowed.seats else frozenset())

    def join(self, other: Audience) -> Audience:
        """Who knows either."""
        if self.everyone and other.everyone:
            return _make(True, self.seats & other.seats)
        if not self.everyone and not other.everyone:
            return _make(False, self.seats | other.seats)
        allowed, only = (self, other) if self.everyone else (other, self)
        return _make(True, allowed.seats - only.seats)

    def includes(self, seat: Seat, distinct: frozenset = frozenset()) -> bool:
        """Whether `seat` surely knows it (`distinct`: the seats known to be other players than `seat`)."""
        if not self.everyone:
            return seat in self.seats
        return seat not in self.seats and all(s in distinct for s in self.seats)

    def covers(self, other: Audience) -> bool:
        """Whether everyone in `other` surely knows it."""
        return self.meet(other) == other

    def without(self, seats) -> Audience:
        """The same audience with these seats forgotten (they mean nothing outside the rule that
        named them): `only p` loses p; `everyone but p` becomes nobody (anyone might be p)."""
        gone = self.seats & frozenset(seats)
        if not gone:
            return self
        return _make(False, self.seats - gone) if not self.everyone else NOBODY

    def renamed(self, old: Seat, new: Seat) -> Audience:
        if old not in self.seats:
            return self
        return _make(self.everyone, (self.seats - {old}) | {new})

    @property
    def public(self) -> bool:
        return self.everyone and not self.seats

    def words(self) -> str:
        names = " and ".join(sorted(s.text for s in self.seats))
        if self.everyone:
            return "everyone" if not self.seats else f"everyone but {names}"
        return "nobody" if not self.seats else f"only {names}"


EVERYONE = Audience(True)
NOBODY = Audience(False)


def _make(everyone: bool, seats: frozenset) -> Audience:
    """An audience; everyone and nobody are always the same two objects."""
    if not seats:
        return EVERYONE if everyone else NOBODY
    return Audience(everyone, seats)


def only(seat: Seat) -> Audience:
    return Audience(False, frozenset((seat,)))


def all_but(seat: Seat) -> Audience:
    return Audience(True, frozenset((seat,)))
