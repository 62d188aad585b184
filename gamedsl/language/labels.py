"""What the information-flow check knows of a value (Val) and how it reads expressions (Reading).

A Val is a value's Audience (who may know it: audience.py), what kind of thing it is (a card, a
player, a zone, a list), and why it is secret, for the error that names it. Reading.expr reads any
expression of the language to a Val; secrecy.py reads the statements and checks what reaches whom.
"""
from __future__ import annotations

import attrs

from . import model as m
from .audience import ANY, CARD, EVERYONE, INDEX, NOBODY, OWNER, Audience, Seat, all_but, only

AGGREGATES = {"count", "any", "all", "sum", "max", "min", "best", "worst", "filter", "sorted", "list", "random"}

@attrs.frozen
class Val:
    """What the check knows of a value: who may know it, what kind of thing it is, and why it is secret."""

    aud: Audience = EVERYONE
    kind: str = "scalar"  # scalar, card, player, zone, list
    seat: Seat | None = None  # a player: the seat naming it
    elem: Val | None = None  # a zone's or list's elements
    count: Audience = EVERYONE  # a zone's or list's size: who knows it
    zone: tuple | None = None  # a zone: (name, owner seat or None)
    key: object = None  # a card a rule names: its binding (where its place is followed)
    origin: tuple | None = None  # a card read from a zone: the zone (name, owner seat)
    why: str = ""  # why it is secret, in words (for the error)
    src: frozenset = frozenset()  # the moves whose parameter it comes from

    def with_aud(self, aud: Audience, why: str = "", src: frozenset = frozenset()) -> Val:
        narrower = aud.meet(self.aud)
        return attrs.evolve(self, aud=narrower, why=self.why or (why if not narrower.public else ""),
                            src=self.src | src)


PUBLIC = Val()


def meet(*vals: Val) -> Val:
    """A scalar computed from these values."""
    if all(v.aud is EVERYONE and not v.src for v in vals):
        return PUBLIC
    aud, why, src = EVERYONE, "", frozenset()
    for v in vals:
        aud = aud.meet(v.aud)
        if not why and not v.aud.public:
            why = v.why
        src |= v.src
    return Val(aud, why=why if not aud.public else "", src=src)


@attrs.define
class Ctx:
    """Where a rule is being read: the player acting (`me`), the condition it runs under (pc)."""

    me: Val
    acting: bool  # a player is making a move or taking a turn: a condition they know may steer openly
    pc: Val = PUBLIC
    places: dict = attrs.Factory(dict)  # card binding -> (where it lies now: an Audience, the depth it was bound at)
    depth: int = 0  # conditions and loops around the statement being read
    # what `reveal` showed, for the rest of the block: a zone (name, seat) or its top ("top", zone),
    # a fact by its text, an attribute of a zone's cards (zone, attribute, value text or None)
    revealed: dict = attrs.Factory(dict)
    distinct: frozenset = frozenset()  # pairs of seats known to be different players
    located: frozenset = frozenset()  # (seat, card binding): the player knows where the card lies (`knows`)
    loop: tuple | None = None  # the `for each` whose body this is: (its card binding, the Ctx around it)

    def child(self, pc: Val | None = None) -> Ctx:
        other = attrs.evolve(self, pc=meet(self.pc, pc) if pc is not None else self.pc, depth=self.depth + 1,
                             revealed=dict(self.revealed), loop=None)
        other.places = self.places
        return other

    def steering(self) -> Val:
        """The condition as far as it shows: public when the acting player knows it."""
        if self.acting and self.pc.aud.includes(self.me.seat, self.others(self.pc.aud)):
            return PUBLIC
        return self.pc

    def others(self, aud: Audience) -> frozenset:
        return frozenset(s for s in aud.seats if frozenset((s, self.me.seat)) in self.distinct)


class Reading:
    """expr(e, env, ctx) -> Val, one ex_* method per expression node; the check's tables (var_aud,
    param_aud, pattern_aud, promoted) are Secrecy's."""

    def expr(self, e, env: dict, ctx: Ctx) -> Val:
        val = getattr(self, "ex_" + type(e).__name__.lower())(e, env, ctx)
        if ctx.revealed and not val.aud.public:
            told = ctx.revealed.get(("fact", self.c.source_of(e.span)))  # `reveal c in q.hand`, then `if c in q.hand`
            if told is not None:
                val = attrs.evolve(val, aud=val.aud.join(told))
        return val

    def ex_number(self, e, env, ctx):
        return PUBLIC

    ex_string = ex_bool = ex_number

    def ex_name(self, e, env, ctx):
        name = e.name
        if name in env:
            return env[name]
        c = self.c
        if name == "me":
            return ctx.me
        if name in ("players", "all_players", "others"):
            return Val(kind="list", elem=Val(kind="player"))
        if name in ("all_cards", "in_play"):
            return Val(kind="list", elem=Val(kind="card"))  # every card, by name: where each lies is the zones' to say
        if name == "owner":
            return Val(kind="player", seat=OWNER)
        if name in c.var_by_name:
            info = c.var_by_name[name]
            aud = self.var_aud.get(name, EVERYONE) if info.visibility == "hidden" else EVERYONE
            kind = {"player": "player", "card": "card"}.get(info.type, "scalar")
            why = f"'{name}' is set from {self.var_why.get(name) or 'what not everyone knows'}" if not aud.public else ""
            return Val(aud, kind=kind, seat=Seat(name) if kind == "player" else None, why=why,
                       src=self.var_src.get(name, frozenset()))
        if name in c.param_info:
            return self.param(name, ctx.me)
        if name in c.zone_by_name:
            return self.zone(name, None, PUBLIC, ctx)
        if name in c.families:  # a family by its name (tops(supply)): as each of its zones
            return self.zone(c.families[name][1][0].name, None, PUBLIC, ctx)
        return PUBLIC  # options, values, attributes' values

    def param(self, name: str, player: Val) -> Val:
        val = self.param_aud.get(name, PUBLIC)
        if OWNER in val.aud.seats:
            seat = player.seat or Seat("a player", "param")
            val = attrs.evolve(val, aud=val.aud.renamed(OWNER, seat))
        return meet(val, identity(player))

    def visibility(self, name: str, seat: Seat | None) -> Audience:
        """Who sees the cards of a zone (of this player's, for a per-player zone), as declared."""
        vis = self.c.zone_by_name[name].visibility
        if vis == "public":
            return EVERYONE
        if vis == "owner" and seat is not None:
            return only(seat)
        if vis == "others" and seat is not None:
            return all_but(seat)
        return NOBODY

    def zone(self, name: str, owner: Val | None, which: Val, ctx: Ctx) -> Val:
        """A zone, its cards as its visibility shows them (and `reveal` showed them)."""
        seat = owner.seat if owner is not None else None
        aud = self.visibility(name, seat)
        key = (name, seat)
        for shown in (key, (name, ANY)):
            if shown in ctx.revealed:
                aud = aud.join(ctx.revealed[shown])
        why = f"'{name}' shows its cards to {aud.words()}" if not aud.public else ""
        elem = Val(aud.meet(which.aud), kind="card", why=why or which.why, origin=key, src=which.src)
        return Val(which.aud, kind="zone", elem=elem, count=which.aud, zone=key, why=which.why, src=which.src)

    def ex_index(self, e, env, ctx):
        """A zone of a family: its cards as the family's visibility shows them, to those who know
        which zone it is (who knows the index, and the owner)."""
        obj = e.obj
        which = self.expr(e.index, env, ctx)
        family = self.c.families.get(obj.name) if isinstance(obj, (m.Name, m.Attr)) else None
        if family is None:
            return PUBLIC
        owner = self.expr(obj.obj, env, ctx) if isinstance(obj, m.Attr) else None
        return self.zone(family[1][0].name, owner, which if owner is None else meet(which, identity(owner)), ctx)

    def bound(self, card: Val, key, ctx: Ctx | None = None) -> Val:
        """A card a rule names: who sees it also where the rule puts it (see observed)."""
        seen = self.promoted.get(key)
        if ctx is not None:
            ctx.places.setdefault(key, (None, ctx.depth))
        aud = card.aud.join(seen) if seen is not None else card.aud
        return attrs.evolve(card, aud=aud, key=key, why=card.why if not aud.public else "")

    def element(self, domain: Val, name: str, key, ctx: Ctx) -> Val:
        elem = domain.elem or PUBLIC
        if elem.kind == "player":
            return attrs.evolve(elem, seat=Seat(name, key))
        if elem.kind == "card":
            return self.bound(elem, key, ctx)
        return elem

    def ex_attr(self, e, env, ctx):
        obj = self.expr(e.obj, env, ctx)
        c, name = self.c, e.name
        if name in c.families and c.families[name][1][0].per_player:  # a player's family by its name (tops(me.row))
            return self.zone(c.families[name][1][0].name, obj, identity(obj), ctx)
        if obj.kind == "player" or (name in c.zone_by_name and c.zone_by_name[name].per_player):
            if name in c.zone_by_name:
                return self.zone(name, obj, identity(obj), ctx)
            if name in c.param_info:
                return self.param(name, obj)
            info = c.var_by_name.get(name)
            if info is None:
                return PUBLIC
            kind = {"player": "player", "card": "card"}.get(info.type, "scalar")
            if info.visibility == "owner":
                aud = only(obj.seat) if obj.seat is not None else NOBODY
                why = f"'{name}' is shown only to its player"
            else:
                aud = self.var_aud.get(name, EVERYONE) if info.visibility == "hidden" else EVERYONE
                seat = obj.seat or Seat.at("a player", e.span)
                aud = aud.renamed(INDEX, seat)
                why = f"'{name}' is set from {self.var_why.get(name) or 'what not everyone knows'}"
            val = Val(aud, kind=kind, seat=Seat.at(self.c.source_of(e.span), e.span) if kind == "player" else None,
                      why=why if not aud.public else "", src=self.var_src.get(name, frozenset()))
            return meet_keep(val, identity(obj))
        # a card's attribute, value or per-card variable
        if name in c.var_by_name and c.var_by_name[name].per_card:
            stored = self.var_aud.get(name, EVERYONE)
            aud = (stored if CARD not in stored.seats else stored.without({CARD}).join(obj.aud)).meet(obj.aud)
            kind = {"player": "player", "card": "card"}.get(c.var_by_name[name].type, "scalar")
            return Val(aud, kind=kind, seat=Seat.at(name, e.span) if kind == "player" else None,
                       why=f"'{name}' is written on a card not everyone sees" if not aud.public else "",
                       src=self.var_src.get(name, frozenset()))
        if name in c.back_attrs:
            return PUBLIC  # every card's back shows it
        return Val(obj.aud, why=obj.why, src=obj.src)

    def ex_binop(self, e, env, ctx):
        left, right = self.expr(e.left, env, ctx), self.expr(e.right, env, ctx)
        if left.kind in ("list", "zone") or right.kind in ("list", "zone"):  # joined lists
            elem = meet_keep(left.elem or PUBLIC, right.elem or PUBLIC)
            return Val(left.aud.meet(right.aud), kind="list", elem=elem, count=left.count.meet(right.count),
                       why=left.why or right.why)
        return meet(left, right)

    def ex_compare(self, e, env, ctx):
        out = meet(self.expr(e.left, env, ctx), self.expr(e.right, env, ctx))
        if ctx.revealed and not out.aud.public and isinstance(e.left, m.Attr) and e.op in ("==", "!="):
            card = self.expr(e.left.obj, env, ctx)  # `reveal c.colour == col` for each card of a zone
            for value in (self.c.source_of(e.right.span), None):
                told = ctx.revealed.get(("told", card.origin, e.left.name, value))
                if card.origin is not None and told is not None:
                    out = attrs.evolve(out, aud=out.aud.join(told))
        return out

    def ex_member(self, e, env, ctx):
        item = self.expr(e.item, env, ctx)
        if item.key is not None and (ctx.me.seat, item.key) in ctx.located:  # knows(me, c): where c lies
            coll = self.expr(e.collection, env, ctx)
            return meet(item, identity(coll), Val(only(ctx.me.seat)))
        if isinstance(e.collection, m.ListExpr):
            return meet(item, *(self.expr(x, env, ctx) for x in e.collection.items))
        coll = self.expr(e.collection, env, ctx)
        if isinstance(e.collection, m.Name) and e.collection.name in self.c.zone_by_name \
                and e.collection.name not in env and self.c.zone_by_name[e.collection.name].per_player:
            z = self.c.zone_by_name[e.collection.name]  # in anyone's zone of that kind
            aud = EVERYONE if z.visibility == "public" else NOBODY
            return meet(item, Val(aud, why=f"'{z.name}' is not public"))
        if coll.kind == "list" and coll.elem is not None and coll.elem.kind == "player":
            return meet(item, coll)
        return meet(item, identity(coll), identity(coll.elem or PUBLIC))

    def ex_logic(self, e, env, ctx):
        return meet(self.expr(e.left, env, ctx), self.expr(e.right, env, ctx))

    def ex_not(self, e, env, ctx):
        return self.expr(e.operand, env, ctx)

    ex_neg = ex_not

    def ex_condexpr(self, e, env, ctx):
        cond = self.expr(e.cond, env, ctx)
        a, b = self.expr(e.then, env, ctx), self.expr(e.other, env, ctx)
        out = meet_keep(a, b)
        return attrs.evolve(out, aud=out.aud.meet(cond.aud), why=out.why or cond.why, src=out.src | cond.src)

    def ex_listexpr(self, e, env, ctx):
        items = [self.expr(x, env, ctx) for x in e.items]
        elem = items[0] if items else PUBLIC
        for x in items[1:]:
            elem = meet_keep(elem, x)
        return Val(kind="list", elem=elem)

    def ex_range(self, e, env, ctx):
        bounds = meet(self.expr(e.low, env, ctx), self.expr(e.high, env, ctx))
        return Val(kind="list", elem=Val(bounds.aud, why=bounds.why), count=bounds.aud, why=bounds.why)

    def ex_call(self, e, env, ctx):
        f = e.func
        c = self.c
        if f in c.def_info:
            d = c.def_info[f]
            args = tuple(self.expr(a, env, ctx) for a in e.args)
            if f in self.inlining or len(args) != len(d.params):
                return Val(NOBODY)
            key = (f, args, ctx.me)
            if key not in self.memo:
                self.inlining.append(f)
                try:
                    self.memo[key] = self.expr(d.body, dict(zip(d.params, args)), ctx)
                finally:
                    self.inlining.pop()
            return self.memo[key]
        if e.for_var is not None:  # sum(E for x in D if C), list(...), max(...)
            domain = self.expr(e.for_domain, env, ctx)
            inner = dict(env)
            inner[e.for_var] = self.element(domain, e.for_var, ("agg", e.span), ctx)
            cond = self.expr(e.where, inner, ctx) if e.where is not None else PUBLIC
            values = [self.expr(a, inner, ctx) for a in e.args]
            counted = size(domain)
            if f == "list":
                elem = meet_keep(values[0], cond) if values else PUBLIC
                return Val(domain.aud, kind="list", elem=elem, count=domain.count.meet(cond.aud),
                           why=domain.why or cond.why)
            return meet(counted, cond, *values)
        if e.args and isinstance(e.args[0], m.Member) and isinstance(e.args[0].item, m.Name) and f in AGGREGATES:
            member = e.args[0]
            domain = self.expr(member.collection, env, ctx)
            inner = dict(env)
            x = inner[member.item.name] = self.element(domain, member.item.name, ("agg", e.span), ctx)
            cond = self.expr(e.where, inner, ctx) if e.where is not None else PUBLIC
            by = self.expr(e.by, inner, ctx) if e.by is not None else PUBLIC
            counted = size(domain)
            if f in ("best", "worst", "random"):
                picked = meet(cond, by, counted)
                out = meet_keep(x, picked)
                return attrs.evolve(out, seat=Seat.at(c.source_of(e.span), e.span) if out.kind == "player" else None,
                                    key=None)
            if f in ("filter", "sorted"):
                elem = meet_keep(x, meet(cond, by))
                return Val(domain.aud, kind="list", elem=attrs.evolve(elem, key=None),
                           count=domain.count.meet(cond.aud), why=domain.why or cond.why)
            return meet(counted, cond, by)
        args = [self.expr(a, env, ctx) for a in e.args]
        return self.builtin(f, e, args, env, ctx)

    def builtin(self, f: str, e, args: list, env, ctx) -> Val:
        c = self.c
        if f in ("top", "bottom") and args and args[0].kind == "zone":
            zone = args[0]
            z = c.zone_by_name.get(zone.zone[0]) if zone.zone else None
            shown = f == "top" and z is not None and z.visibility == "top"
            card = attrs.evolve(zone.elem, aud=EVERYONE.meet(zone.aud), why=zone.why) if shown else zone.elem
            if z is not None and z.contents:  # which cards it holds is known, not which lies where
                card = attrs.evolve(card, aud=NOBODY, why=f"the order of '{z.name}' is secret ('contents')")
            told = ctx.revealed.get((f, zone.zone))
            if told is not None:  # `reveal top(king)`
                card = attrs.evolve(card, aud=card.aud.join(told))
            if len(args) == 2:
                return Val(zone.aud, kind="list", elem=meet_keep(zone.elem, args[1]), count=args[1].aud,
                           why=zone.why)
            return card
        if f in ("next", "previous", "seat"):
            arg = args[0] if args else PUBLIC
            seat = Seat.at(c.source_of(e.span), e.span)
            if f != "seat" and arg.seat is not None:  # the player after p is not p (a game has two players at least)
                ctx.distinct |= {frozenset((seat, arg.seat))}
            return Val(arg.aud, kind="player", seat=seat, why=arg.why, src=arg.src)
        if f == "count" and args:
            arg = args[0]
            return meet(size(arg), identity(arg)) if arg.kind in ("zone", "list") else meet(arg)
        if f in ("zone_of", "above") and args:  # where a card lies is known to those who see it
            card = args[0]
            elem = Val(card.aud, kind="card", why=card.why)
            return Val(card.aud, kind="zone" if f == "zone_of" else "list", elem=elem, count=card.aud, why=card.why)
        if f == "nth" and args:
            coll = args[0]
            z = c.zone_by_name.get(coll.zone[0]) if coll.kind == "zone" and coll.zone else None
            if z is not None and z.contents:  # a place in a pile whose order is secret
                return Val(NOBODY, kind=(coll.elem or PUBLIC).kind, why=f"the order of '{z.name}' is secret ('contents')")
            return meet_keep(coll.elem or PUBLIC, meet(*args[1:]))
        if f == "knows" and args:
            player = args[0]
            aud = only(player.seat) if player.seat is not None else NOBODY
            return Val(aud.meet(player.aud), why=f"only {player.seat.text if player.seat else 'that player'} "
                                                  f"knows what they were shown")
        if f == "card":
            return Val(meet(*args).aud, kind="card")
        if f == "tops":
            elem = PUBLIC
            for zone in args:
                z = c.zone_by_name.get(zone.zone[0]) if zone.zone else None
                top = EVERYONE if z is not None and z.visibility in ("top", "public") else (zone.elem or PUBLIC).aud
                elem = meet_keep(elem, Val(top.meet(zone.aud), kind="card"))
            return Val(kind="list", elem=elem)
        if f == "values":
            return Val(kind="list", elem=PUBLIC)
        if f in ("has", "makes", "can_make", "deadwood", "melded", "first_meld"):
            out = PUBLIC
            for arg, x in zip(args, e.args):
                if isinstance(x, m.Name) and x.name in c.pattern_info and x.name not in env:
                    out = meet(out, self.pattern_aud.get(x.name, PUBLIC))
                elif arg.kind in ("zone", "list"):
                    out = meet(out, size(arg), identity(arg.elem or PUBLIC))
                else:
                    out = meet(out, arg)
            for x in (e.by, e.where):
                if x is not None:
                    out = meet(out, self.expr(x, env, ctx))
            if f in ("melded", "first_meld"):
                return Val(out.aud, kind="list", elem=Val(out.aud, kind="card", why=out.why), count=out.aud, why=out.why)
            return out
        if f == "filter" or f == "sorted" or f == "list":
            return Val(kind="list", elem=PUBLIC)
        if args and args[0].kind in ("zone", "list") and f in ("max", "min", "sum"):
            return meet(Val(args[0].count, why=args[0].why), args[0].elem or PUBLIC)
        if f == "random" and args:
            arg = args[0]
            if arg.kind in ("zone", "list"):
                return attrs.evolve(arg.elem or PUBLIC, key=None)
        return meet(*args) if args else PUBLIC


def size(v: Val) -> Val:
    """How many elements a zone or list holds, as a scalar: who may know that."""
    return Val(v.count, why=v.why, src=v.src)


def identity(v: Val) -> Val:
    """Which one of its kind a value is (which player, which card), as a scalar: who may know that."""
    return Val(v.aud, why=v.why, src=v.src)


def _conjuncts(e):
    if isinstance(e, m.Logic) and e.op == "and":
        return [*_conjuncts(e.left), *_conjuncts(e.right)]
    return [e]


def meet_keep(val: Val, other: Val) -> Val:
    """`val`, known only to who also knows `other` (its kind and parts kept)."""
    if other.aud.public and not other.src:
        return val
    return val.with_aud(other.aud, other.why, other.src)
