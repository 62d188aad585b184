"""The information-flow check: what a rule shows a player never depends on what they may not know.

Every value gets an Audience (audience.py): the seats that may know it. A card's is who sees it
where it lies (a zone's visibility: `owner` -> its owner, `hidden` -> nobody, the top of a `top`
pile -> everyone), or, for a card a rule names (a move's card, a `let`, a `for each`), also who
sees it where the rule leaves it at the next moment anyone looks (a card played face up is known
to all, and so is what the rule read of it on the way); `reveal` adds to it. A value computed
from several meets their audiences; a hidden variable's is inferred from every value written into
it; a parameter's from its base and the modifiers that change it.

What reaches a player is checked against who may know it (a *sink* and its audience):

| sink | audience |
|---|---|
| a value in `say` (a card is shown to those who see it, not checked), the line itself | everyone (`say ... to p`: p) |
| a shown variable's new value | everyone; an `owner` variable: its player; a per-card one: who sees the card |
| a shown variable's `when` | the player looking (`me`) |
| a move's choices and its `if` conditions (and so its refusal reasons) | the player moving |
| a modifier that changes who sees a zone | everyone |

Control flow carries its condition (`if C { say ... }` tells C), except a condition the player
moving knows: what the rules make them do openly shows it, as at a table ("draw until you can
cover"). What the referee does with secrets (who is asked, how many cards move) is not checked:
verify's re-deals test it. A move's number or value is shown to the others unless it reaches
something they see (`Secrecy.hidden_params`): a bid written down face down reads "P1: bids ...".
"""
from __future__ import annotations

import attrs

from ..errors import Diagnostic
from . import model as m
from .audience import ANY, CARD, EVERYONE, INDEX, ME, NOBODY, OWNER, Audience, Seat, only
from .progress import checkpoint
from .labels import PUBLIC, Ctx, Reading, Val, _conjuncts, identity, meet, size

PASSES = 8  # inference rounds at most (each only narrows what hidden variables may tell)


class Secrecy(Reading):
    """The check over a whole game: hidden variables inferred, then every sink checked."""

    def __init__(self, c):
        self.c = c
        self.gm = c.gm
        self.var_aud: dict[str, Audience] = {}  # hidden variables: who may know them (INDEX, CARD for their owner)
        self.var_why: dict[str, str] = {}
        self.var_src: dict[str, frozenset] = {}  # hidden variables: the moves whose parameter they hold
        self.param_aud: dict[str, Val] = {}
        self.pattern_aud: dict[str, Val] = {}
        self.promoted: dict = {}  # card binding -> who sees it where a rule leaves it
        self.public_params: set[str] = set()  # moves whose number or value reaches what others see
        self.secret_owner: set[str] = set()  # owner variables written with what the others may not know
        gm = self.gm
        self.vars, self.actions, self.triggers = gm.of(m.VarDecl), gm.of(m.ActionDecl), gm.of(m.TriggerDecl)
        self.flows, self.modifiers = gm.of(m.FlowBlock), gm.of(m.ModifierDecl)
        self.param_decls, self.patterns = gm.of(m.ParamDecl), gm.of(m.PatternDecl)
        self.param_changes: dict = {}  # parameter -> [(modifier, change)]
        for d in self.modifiers:
            for ch in d.changes:
                if isinstance(ch, m.ParamChange):
                    self.param_changes.setdefault(ch.param, []).append((d, ch))
        self.shaping = [d for d in self.modifiers if any(isinstance(ch, (m.SameChange, m.WildChange))
                                                          for ch in d.changes)]
        for v in c.var_list:
            if v.visibility == "hidden" or v.per_card:
                self.var_aud[v.name] = EVERYONE
        self.reported: set = set()
        self.diags: list[Diagnostic] = []
        self.changed = False
        self.memo: dict = {}
        self.inlining: list = []

    # ---- the passes
    def run(self) -> tuple[list[Diagnostic], set[str], dict]:
        """(the diagnostics, the moves whose parameter is hidden from the others, hidden variable -> its audience).

        A first pass finds where rules leave the cards they name (`promoted`: it reads no variable).
        Then passes work out what each hidden variable may tell, from everyone down until nothing
        changes (a variable written from itself, `busy += 1`, must not keep what an earlier pass
        thought); a move found to show its number or value to others (`public_params`) starts them
        again. The last pass's errors are the game's."""
        self.settle()
        for _ in range(PASSES):
            shown = len(self.public_params)
            self.var_aud = {name: EVERYONE for name in self.var_aud}
            self.var_src, self.var_why = {}, {}
            for _ in range(PASSES):
                self.diags, self.reported = [], set()
                if not self.settle():
                    break
            if len(self.public_params) == shown:
                break
        hidden = {a.name for a in self.actions
                  if a.param is not None and a.name not in self.public_params and self._non_card_param(a)}
        secret = {name: aud for name, aud in self.var_aud.items() if not aud.public}
        secret.update((name, only(INDEX)) for name in self.secret_owner)
        return self.diags, hidden, secret

    def settle(self) -> bool:
        """One pass over the game (reading what the last pass knew): whether it learnt anything."""
        self.changed = False
        self.memo = {}
        self.assigned = {name: EVERYONE for name in self.var_aud}
        self.assigned_src = {}
        self.params()
        self.everything()
        if self.assigned != self.var_aud or self.assigned_src != self.var_src:
            self.var_aud, self.var_src = self.assigned, self.assigned_src
            self.changed = True
        return self.changed

    def everything(self):
        for v in self.vars:
            self.var_decl(v)
        for a in self.actions:
            checkpoint()  # (a language server's check of an older text stops here)
            self.action(a)
        for t in self.triggers:
            self.trigger(t)
        for b in self.flows:
            ctx = Ctx(Val(kind="player", seat=Seat("the player on turn", "flow"), aud=EVERYONE), acting=False)
            self.body(b.body, {}, ctx)
        for d in self.modifiers:
            for ch in d.changes:
                if isinstance(ch, m.VisibilityChange):
                    cond = self.expr(d.cond, {"owner": Val(kind="player", seat=OWNER)}, self.table())
                    self.sink(cond, EVERYONE, d.cond, f"who sees '{ch.zone}' is seen by everyone")

    def table(self) -> Ctx:
        return Ctx(Val(kind="player", seat=ME), acting=False)

    # ---- declarations
    def var_decl(self, v: m.VarDecl):
        info = self.c.var_by_name.get(v.name)
        if info is None:
            return
        if v.init is not None:
            env = {}
            ctx = self.table()
            value = self.expr(v.init, env, ctx)
            if info.per_player:
                self.assign_player(v.name, info, Val(kind="player", seat=INDEX), value, ctx, v.init)
            elif info.per_card:
                self.assign_card(v.name, info, Val(kind="card", aud=EVERYONE), value, ctx, v.init)
            else:
                self.assign_shared(v.name, info, value, ctx, v.init)
        if v.shown is not None:
            ctx = Ctx(Val(kind="player", seat=ME), acting=False)
            cond = self.expr(v.shown, {}, ctx)
            self.sink(cond, only(ME), v.shown, f"whether '{v.name}' is shown is seen by the player looking")

    def params(self):
        """Each parameter's audience (its base value's, and that of every modifier that changes it) and
        each pattern's (its clauses', and the `same` and `wild` changes'), from what the last pass knew."""
        owner_env = {"owner": Val(kind="player", seat=OWNER)}
        ctx = self.table()
        ctx.me = owner_env["owner"]
        params = {}
        for p in self.param_decls:
            val = self.expr(p.init, owner_env, ctx)
            for d, ch in self.param_changes.get(p.name, ()):
                val = meet(val, self.expr(d.cond, owner_env, ctx), self.expr(ch.value, owner_env, ctx))
            params[p.name] = attrs.evolve(val, why=val.why and f"parameter '{p.name}' reads {val.why}")
        shaping = meet(*(self.expr(d.cond, owner_env, ctx) for d in self.shaping))
        patterns = {}
        for p in self.patterns:
            val = shaping
            for clause in p.clauses:
                for e in (clause.expr, clause.count, clause.most):
                    if e is not None:
                        val = meet(val, self.expr(e, owner_env, ctx))
            patterns[p.name] = val
        if params != self.param_aud or patterns != self.pattern_aud:
            self.param_aud, self.pattern_aud = params, patterns
            self.changed = True

    def action(self, a: m.ActionDecl):
        me = Val(kind="player", seat=ME)
        ctx = Ctx(me, acting=True)
        env: dict = {}
        what = f"'{a.name}'"
        for param, dom in ((a.param, a.domain),) + a.more if a.param is not None else ():
            domain = self.use(dom, env, ctx)
            self.sink(size(domain), only(ME), dom,
                      f"the choices of {what} are seen by the player moving")
            elem = domain.elem or PUBLIC
            if elem.kind == "card":
                elem = self.offered(a, param, elem, env, ctx)
                self.sink(elem, only(ME), dom, f"the cards {what} offers are seen by the player moving", ctx)
                env[param] = self.bound(elem, ("param", a.name))
            else:
                secret = a.name not in self.public_params
                aud = only(ME) if secret else EVERYONE
                env[param] = attrs.evolve(elem, aud=aud.meet(elem.aud), why="", src=frozenset((a.name,))
                                          if secret else frozenset())
                if elem.kind == "player":
                    env[param] = attrs.evolve(env[param], seat=Seat.at(param, a.span))
                    if self._others(dom):
                        ctx.distinct |= {frozenset((env[param].seat, ME))}
        for r in a.requires:
            for part in _conjuncts(r.cond):
                cond = self.use(part, env, ctx, own=a.name)
                self.sink(cond, only(ME), part, f"whether {what} is allowed is seen by the player moving", ctx)
                self.learn(part, env, ctx)
        self.body(a.body, env, ctx)

    def learn(self, cond, env, ctx: Ctx):
        """What holds once a condition does: `x != me` (two players), `knows(p, c)` (p knows where c lies)."""
        if isinstance(cond, m.Compare) and cond.op == "!=":
            a, b = self.expr(cond.left, env, ctx), self.expr(cond.right, env, ctx)
            if a.seat is not None and b.seat is not None:
                ctx.distinct |= {frozenset((a.seat, b.seat))}
        elif isinstance(cond, m.Call) and cond.func == "knows" and len(cond.args) == 2:
            player, card = self.expr(cond.args[0], env, ctx), self.expr(cond.args[1], env, ctx)
            if player.seat is not None and card.key is not None:
                ctx.located |= {(player.seat, card.key)}

    def condition(self, e, env, ctx: Ctx) -> tuple[Val, Ctx]:
        """A condition of an `if` or `while`, and the context its body runs in (what it taught, learnt)."""
        inner = ctx.child()
        out = PUBLIC
        for part in _conjuncts(e):
            out = meet(out, self.use(part, env, inner))
            self.learn(part, env, inner)
        return out, inner

    def offered(self, a: m.ActionDecl, param: str, elem: Val, env, ctx) -> Val:
        """A move's card, as far as its conditions place it: `if c in laws` offers only cards of laws."""
        for r in a.requires:
            for cond in _conjuncts(r.cond):
                if isinstance(cond, m.Member) and not cond.negated and isinstance(cond.item, m.Name) \
                        and cond.item.name == param and not isinstance(cond.collection, m.ListExpr):
                    zone = self.expr(cond.collection, env, ctx)
                    if isinstance(cond.collection, m.Name) and cond.collection.name in self.c.zone_by_name:
                        z = self.c.zone_by_name[cond.collection.name]
                        if z.per_player:  # in anyone's zone of that kind
                            seen = EVERYONE if z.visibility == "public" else NOBODY
                            return attrs.evolve(elem, aud=seen, why="" if seen.public else elem.why)
                    if zone.elem is not None:
                        return attrs.evolve(elem, aud=zone.elem.aud, why=zone.elem.why)
        return elem

    def _non_card_param(self, a: m.ActionDecl) -> bool:
        """Whether a move has a choice that is not a card (a number, a player, a value)."""
        ctx, env = Ctx(Val(kind="player", seat=ME), acting=True), {}
        for param, dom in ((a.param, a.domain),) + a.more:
            elem = self.expr(dom, env, ctx).elem or PUBLIC
            env[param] = elem
            if elem.kind != "card":
                return True
        return False

    def _others(self, e) -> bool:
        return isinstance(e, m.Name) and e.name == "others"

    def trigger(self, t: m.TriggerDecl):
        ev = t.event
        env: dict = {}
        ctx = Ctx(Val(kind="player", seat=ME), acting=ev.kind not in ("round start", "round end"))
        if ev.kind == "move" and ev.var:
            for z in (ev.source, ev.dest):  # `to p.hand`: p is any player, bound by the event
                if isinstance(z, m.Attr) and isinstance(z.obj, m.Name) and z.obj.name not in self.c.known \
                        and z.obj.name not in ("me", "owner"):
                    env[z.obj.name] = Val(kind="player", seat=Seat.at(z.obj.name, z.span))
            aud = NOBODY
            for z in (ev.source, ev.dest):
                if z is not None:
                    zone = self.expr(z, env, ctx)
                    if zone.zone is not None:
                        aud = aud.join(self.visibility(*zone.zone))
            moved = Val(aud, kind="card", why="the card moved" if not aud.public else "")
            env[ev.var] = self.bound(moved, ("trigger", t.span), ctx)
        elif ev.var:  # on speech p
            env[ev.var] = Val(kind="player", seat=Seat.at(ev.var, t.span))
        if t.cond is not None:
            ctx.pc = self.use(t.cond, env, ctx)
        self.body(t.body, env, ctx)

    # ---- statements
    def body(self, stmts, env: dict, ctx: Ctx):
        """A rule's statements: a moment everyone looks at follows its end."""
        self.block(stmts, dict(env), ctx)
        self.observed(ctx)

    def observed(self, ctx: Ctx):
        """A moment the players look at the table: the cards a rule named are seen where they lie."""
        for key, (aud, _) in ctx.places.items():
            if aud is not None:
                was = self.promoted.get(key, NOBODY)
                now = was.join(aud)
                if now != was:
                    self.promoted[key] = now
                    self.changed = True

    def block(self, stmts, env: dict, ctx: Ctx):
        for st in stmts:
            getattr(self, "st_" + type(st).__name__.lower())(st, env, ctx)

    def st_let(self, st, env, ctx):
        value = self.expr(st.value, env, ctx)
        if value.kind == "card":
            value = self.bound(value, ("let", st.span), ctx)
        env[st.name] = value

    def st_assign(self, st, env, ctx):
        value = self.expr(st.value, env, ctx)
        target = st.target
        if st.op != "=":
            value = meet(value, self.expr(target, env, ctx))
        value = meet(value, ctx.steering())
        if isinstance(target, m.Name):
            info = self.c.var_by_name.get(target.name)
            if target.name in env and (info is None or not isinstance(env.get(target.name), Val)):
                env[target.name] = value
            elif info is not None and not info.per_player and not info.per_card:
                self.assign_shared(target.name, info, value, ctx, st.value)
            return
        if isinstance(target, m.Attr):
            info = self.c.var_by_name.get(target.name)
            if info is None:
                return
            obj = self.expr(target.obj, env, ctx)
            if info.per_player:
                self.assign_player(target.name, info, obj, value, ctx, st.value)
            elif info.per_card:
                self.assign_card(target.name, info, obj, value, ctx, st.value)

    def assign_shared(self, name, info, value: Val, ctx, e):
        if info.visibility != "hidden":
            self.sink(value, EVERYONE, e, f"'{name}' is shown to everyone")
            return
        self.infer(name, value.aud.without(value.aud.seats), value)

    def assign_player(self, name, info, player: Val, value: Val, ctx, e):
        value = meet(value, identity(player))
        seat = player.seat or Seat.at("a player", e.span)
        if info.visibility == "owner":
            self.sink(value, only(seat), e, f"'{name}' of a player is shown to that player", ctx)
            if not value.aud.public:
                self.secret_owner.add(name)  # the others may not know it: their worlds replay the game
        elif info.visibility != "hidden":
            self.sink(value, EVERYONE, e, f"'{name}' is shown to everyone")
        else:
            aud = value.aud.renamed(seat, INDEX)
            self.infer(name, aud.without(aud.seats - {INDEX}), value)

    def assign_card(self, name, info, card: Val, value: Val, ctx, e):
        # what is written (a mark of 1 is public, wherever it is; a copy of the card's rank is the
        # card's own secret), and which card it is written on (reading it back tells that too)
        aud = value.aud
        stored = EVERYONE if aud.public else only(CARD) if meet(value, identity(card)).aud.covers(card.aud) else NOBODY
        if info.visibility != "hidden" and stored is NOBODY:
            self.sink(value, card.aud, e, f"'{name}' of a card is shown to whoever sees the card")
            return
        self.infer(name, stored, value)

    def infer(self, name, aud: Audience, value: Val):
        """What one assignment tells of a hidden variable (this pass's inference: `assigned`)."""
        self.assigned[name] = self.assigned.get(name, EVERYONE).meet(aud)
        if value.src:
            self.assigned_src[name] = self.assigned_src.get(name, frozenset()) | value.src
        if not aud.public:
            self.var_why.setdefault(name, value.why)

    def st_move(self, st, env, ctx):
        card = self.use(st.card, env, ctx)
        dest = self.use(st.dest, env, ctx)
        if card.key is not None and dest.zone is not None:
            seen = EVERYONE if self._top_zone(dest) and not st.bottom else self.visibility(*dest.zone)
            was, depth = ctx.places.get(card.key, (None, ctx.depth))
            ctx.places[card.key] = (seen if depth >= ctx.depth or was is None else was.meet(seen), depth)
        self._arrived(dest, ctx)

    def _top_zone(self, zone: Val) -> bool:
        z = self.c.zone_by_name.get(zone.zone[0]) if zone.zone else None
        return z is not None and z.visibility in ("top", "public")

    def _arrived(self, dest: Val, ctx):
        if dest.zone in ctx.revealed:
            del ctx.revealed[dest.zone]  # cards nobody was shown are among them now

    def uses(self, env, ctx, *es):
        for e in es:
            if e is not None:
                self.use(e, env, ctx)

    def st_moven(self, st, env, ctx):
        self.uses(env, ctx, st.count, st.source)
        self._arrived(self.use(st.dest, env, ctx), ctx)

    def st_deal(self, st, env, ctx):
        self.uses(env, ctx, st.count, st.source, st.start)

    def st_shuffle(self, st, env, ctx):
        self.use(st.zone, env, ctx)

    def st_gather(self, st, env, ctx):
        ctx.revealed.clear()

    def st_if(self, st, env, ctx):
        pc = PUBLIC
        for cond, block in st.branches:
            value, inner = self.condition(cond, env, ctx)
            pc = meet(pc, value)
            inner.pc = meet(ctx.pc, pc)
            self.block(block, dict(env), inner)
        if st.otherwise is not None:
            self.block(st.otherwise, dict(env), ctx.child(pc))

    def st_repeat(self, st, env, ctx):
        self.block(st.body, dict(env), ctx.child(self.use(st.count, env, ctx)))

    def st_while(self, st, env, ctx):
        value, inner = self.condition(st.cond, env, ctx)
        inner.pc = meet(ctx.pc, value)
        self.block(st.body, dict(env), inner)

    def st_foreach(self, st, env, ctx):
        domain = self.use(st.domain, env, ctx)
        self.uses(env, ctx, st.start)
        inner = dict(env)
        inner[st.var] = self.element(domain, st.var, ("for", st.span), ctx)
        sub = ctx.child(size(domain))
        sub.loop = (inner[st.var].key, ctx)
        if self._others(st.domain):
            sub.distinct |= {frozenset((inner[st.var].seat, ctx.me.seat))}
        self.block(st.body, inner, sub)

    def st_turn(self, st, env, ctx):
        player = self.use(st.player, env, ctx)
        me = player if player.seat is not None else attrs.evolve(player, seat=Seat.at(self.c.source_of(st.player.span), st.span))
        inner = Ctx(me, acting=True, pc=meet(ctx.pc, identity(player)), places=ctx.places,
                    depth=ctx.depth + 1, revealed=dict(ctx.revealed), distinct=ctx.distinct)
        self.block(st.body, dict(env), inner)
        self.observed(ctx)

    def st_choose(self, st, env, ctx):
        self.uses(env, ctx, st.by)
        self.observed(ctx)

    def st_race(self, st, env, ctx):
        self.use(st.players, env, ctx)
        self.observed(ctx)

    def st_end(self, st, env, ctx):
        pass

    st_places = st_end

    def st_result(self, st, env, ctx):
        self.use(st.player, env, ctx)

    st_eliminate = st_result

    def st_say(self, st, env, ctx):
        audience = EVERYONE
        if st.to is not None:
            player = self.use(st.to, env, ctx)
            audience = only(player.seat) if player.seat is not None else NOBODY
        line = ctx.steering()
        self.sink(line, audience, st, "whether this line is said is seen by those it is said to", ctx)
        for part in (p for p in st.parts if not isinstance(p, str)):
            value = self.expr(part, env, ctx)
            if value.kind == "card":  # shown to those who see it, where it lies (engine/view.py)
                continue
            if value.kind in ("list", "zone"):
                self.sink(size(value), audience, part, "how many things this line lists is said", ctx)
                if value.elem is not None and value.elem.kind != "card":
                    self.sink(value.elem, audience, part, "this line says each of them", ctx)
                continue
            self.sink(value, audience, part, "this line says it", ctx)

    def st_reveal(self, st, env, ctx):
        """What `reveal` shows, for the rest of the block: a card (where a rule left it), a zone's
        cards (`reveal p.hand`, every player's: `reveal hand`), a top card, an attribute of each
        card of a zone (told in a `for each` over it), or any fact (`reveal c in q.hand`)."""
        e = st.card
        to = EVERYONE
        if st.to is not None:
            player = self.use(st.to, env, ctx)
            to = only(player.seat) if player.seat is not None else NOBODY
        shown = ctx.revealed
        if isinstance(e, m.Name) and e.name not in env and e.name in self.c.zone_by_name \
                and self.c.zone_by_name[e.name].per_player:
            key = (e.name, ANY)
            shown[key] = shown.get(key, NOBODY).join(to)
            return
        fact = e.left if isinstance(e, m.Compare) else e
        if isinstance(fact, m.Attr) and fact.name in self.c.attr_index:  # an attribute told
            card = self.use(fact.obj, env, ctx)
            value = self.c.source_of(e.right.span) if isinstance(e, m.Compare) else None
            if ctx.loop is not None and card.key == ctx.loop[0] and card.origin is not None:
                outer = ctx.loop[1].revealed  # told of every card of the zone the loop goes through
                key = ("told", card.origin, fact.name, value)
                outer[key] = outer.get(key, NOBODY).join(to)
            return
        value = self.use(e, env, ctx)
        if value.kind == "zone" and value.zone is not None:
            shown[value.zone] = shown.get(value.zone, NOBODY).join(to)
        elif value.kind == "card":
            if value.key is not None:
                was, depth = ctx.places.get(value.key, (None, ctx.depth))
                ctx.places[value.key] = ((was or NOBODY).join(to), depth)
            if isinstance(e, m.Call) and e.func in ("top", "bottom") and len(e.args) == 1:
                zone = self.expr(e.args[0], env, ctx)
                key = (e.func, zone.zone)
                shown[key] = shown.get(key, NOBODY).join(to)
        else:
            key = ("fact", self.c.source_of(e.span))
            shown[key] = shown.get(key, NOBODY).join(to)

    def st_callsteps(self, st, env, ctx):
        d = self.c.steps_info.get(st.func)
        args = [self.expr(a, env, ctx) for a in st.args]
        if d is None or st.func in self.inlining or len(args) != len(d.params):
            return
        args = [self.bound(a, ("steps", st.span, k), ctx) if a.kind == "card" and a.key is None else a
                for k, a in enumerate(args)]
        self.inlining.append(st.func)
        try:
            self.block(d.body, dict(zip(d.params, args)), ctx)
        finally:
            self.inlining.pop()

    # ---- sinks
    def use(self, e, env, ctx, own: str | None = None) -> Val:
        """A value the rules act on where others see it: a move's number or value that reaches one
        (but its own move's conditions) is shown with the move."""
        value = self.expr(e, env, ctx)
        if value.src - self.public_params - {own}:
            self.public_params |= value.src - {own}
            self.changed = True
        return value

    def sink(self, value: Val, audience: Audience, e, what: str, ctx: Ctx | None = None):
        """A value reaches `audience`: an error unless they may all know it."""
        distinct = ctx.distinct if ctx is not None else frozenset()
        if audience.everyone:
            ok = value.aud.covers(audience)
        else:
            ok = all(value.aud.includes(s, frozenset(o for o in value.aud.seats if frozenset((o, s)) in distinct))
                     for s in audience.seats)
        if ok:
            return
        if value.src - self.public_params:
            self.public_params |= value.src  # the move shows its choice: it reaches what others see
            self.changed = True
            return
        span = e.span
        if span in self.reported:
            return
        self.reported.add(span)
        text = self.c.source_of(span) if not isinstance(e, m.Say) else "this line"
        why = f": {value.why}" if value.why else ""
        self.diags.append(Diagnostic(
            f"{what}, but {_quoted(text)} is known to {value.aud.words()}{why}", span,
            "reveal the cards it reads first (`reveal CARD`, `reveal ZONE`), say it only to those who may know it "
            "(`say \"...\" to p`), or keep it in a hidden variable"))


def _quoted(text: str) -> str:
    return f"'{text}'" if text and text != "this line" else text or "it"
