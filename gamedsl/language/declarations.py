"""The declarations that name things: the game's header and options, zones, variables, and the
names of parameters, functions, steps and patterns (their bodies are compiled later, so any
rule may read any of them, whatever the order of the file)."""
from __future__ import annotations

from ..errors import Span
from . import model as m
from . import types as T
from .context import Context
from .program import MAX_SEATS, Var, Zone

ZONE_PROPS = {"hidden", "owner", "others", "public", "top", "stack", "pile", "out", "transient", "contents"}
ZONE_SHOWS = ("cards", "top", "count", "nothing")
VAR_VISIBILITY = ("hidden", "owner", "public")
VAR_TYPES = {"number": T.NUM, "player": T.PLAYER, "card": T.CARD, "bool": T.BOOL}
_CONDITION_CALLS = frozenset({"any", "all", "has", "makes", "can_make", "same", "knows"})


def _label(label: str | None, name: str) -> str:
    """What the table calls a zone or a variable: its label, or its name with '_' read as a space."""
    return label if label is not None else name.replace("_", " ")


class Declarations:
    """The passes that declare names and lay out zones and variables."""

    def __init__(self, c: Context):
        self.c = c

    def header(self):
        c, gm = self.c, self.c.gm
        names = gm.of(m.GameName)
        c.name = names[0].name if names else gm.filename
        players = gm.of(m.PlayersDecl)
        if not players:
            c.error("the game does not say how many players it is for", Span(), "add a line like 'players 2 to 4'")
        else:
            p = players[0]
            c.least, c.most = p.least, p.most
            if not 1 <= p.least <= p.most <= MAX_SEATS:
                c.error(f"players must be between 1 and {MAX_SEATS}, smallest first", p.span)
                c.least, c.most = 2, 4
            if p.teams is not None:
                uneven = [n for n in range(c.least, c.most + 1) if n % p.teams]
                if p.teams < 2 or uneven:
                    allowed = f"{p.least} to {p.most}" if p.most != p.least else f"{p.least}"
                    c.error(f"players split evenly into {p.teams} teams, but 'players {allowed}' allows "
                            f"{uneven[0] if uneven else p.least}" if p.teams >= 2 else "a game in teams has two or more",
                            p.span, f"seat k plays in team k mod {p.teams}: allow only multiples of {p.teams}"
                            if p.teams >= 2 else "write 'in 2 teams' or more")
                c.teams = max(p.teams, 2)  # (even after an error: the rules that read teams are checked)
        limits = gm.of(m.LimitDecl)
        c.limit = limits[0].moves if limits else 10000
        for o in gm.of(m.OptionDecl):
            if not c.declare(o.name, "an option", o.span):
                continue
            if isinstance(o.default, m.Number):
                default = o.default.value
            elif isinstance(o.default, m.Neg) and isinstance(o.default.operand, m.Number):
                default = -o.default.operand.value
            elif isinstance(o.default, m.Bool):
                default = o.default.value
            else:
                c.error("an option's default must be a number, true or false", o.default.span)
                default = 0
            c.option_index[o.name] = len(c.option_index)
            c.options[o.name] = (default, o.doc)

    def zones(self):
        c = self.c
        base = 0
        for z in c.gm.of(m.ZoneDecl):
            if not c.declare(z.name, "a zone", z.span):
                continue
            vis, flags, written = "hidden", set(), None
            for name, span in z.props:
                if name not in ZONE_PROPS:
                    c.unknown("zone property", name, span, ZONE_PROPS)
                elif name in ("stack", "out", "transient", "contents"):
                    flags.add(name)
                elif name == "others" and not z.per_player:
                    c.error(f"zone '{z.name}' is shared: it has no owner to hide its cards from", span,
                            "'others' is for a per-player zone (a hand facing away from its owner)")
                elif name != "pile":
                    vis, written = name, span
            if "contents" in flags:  # its cards known, their order not: to everyone unless it says whom
                if written is None:
                    vis = "public"
                elif vis in ("hidden", "top"):
                    c.error(f"zone '{z.name}' is '{vis}' and 'contents': "
                            + ("nobody sees its cards to know which they are" if vis == "hidden"
                               else "its top card shows, so its order is no secret"), written,
                            "'contents' goes with public, owner or others: who knows which cards it holds")
            if z.label is not None and not z.label.strip():
                c.error(f"the label of '{z.name}' is empty", z.span, "write what the table calls it, or no label")
            shows = "cards"
            for word, span in z.shows[1:]:
                c.error(f"zone '{z.name}' says twice how it shows", span, "keep one 'shows'")
            for word, span in z.shows[:1]:
                if word not in ZONE_SHOWS:
                    c.unknown("way to show a zone", word, span, ZONE_SHOWS)
                elif word == "top" and "stack" not in flags:
                    c.error("only a pile has a top card to show", span, "add 'stack' to its properties, or "
                            "write 'shows count'")
                elif word == "top" and "contents" in flags:
                    c.error(f"the order of '{z.name}' is secret ('contents'): nobody sees its top card", span,
                            "write 'shows count', or show its cards")
                else:
                    shows = word
            label = _label(z.label, z.name)
            members = [(z.name, label)] if z.family is None else self.family(z, label)
            for k, (name, label) in enumerate(members):
                zone = Zone(name, base, z.per_player, vis, "stack" in flags, z.span, "out" in flags,
                            transient="transient" in flags, shows=shows, label=label,
                            contents="contents" in flags, family=z.name if z.family is not None else "",
                            member=k)
                base += MAX_SEATS if z.per_player else 1
                c.zone_list.append(zone)
                c.zone_by_name[name] = zone
            if z.family is not None:
                attr = z.family[1] if z.family[0] == "value" and z.family[1] in c.attr_index else None
                c.families[z.name] = (attr, [c.zone_by_name[name] for name, _ in members])
        c.zone_count = base

    def family(self, z, label: str) -> list[tuple[str, str]]:
        """The zones of a family, each (its name, its label): NAME[1] .. NAME[N] ("column 1"), or one per
        value of an attribute, NAME[value] (labelled by the value's symbol: "Copper pile")."""
        c = self.c
        kind, what, span = z.family
        if kind == "number":
            if not 1 <= what <= 64:
                c.error(f"a family of zones has 1 to 64 zones, not {what}", span)
                what = 1
            return [(f"{z.name}[{k}]", f"{label} {k}") for k in range(1, what + 1)]
        if what not in c.attr_index:
            c.unknown("attribute", what, span, c.attr_index)
            return [(z.name, label)]
        _, names, symbols = c.attr_list[c.attr_index[what]]
        return [(f"{z.name}[{n}]", f"{symbol or n} {label}") for n, symbol in zip(names, symbols)]

    def variables(self):
        c = self.c
        base = 0
        for v in c.gm.of(m.VarDecl):
            if not c.declare(v.name, "a variable", v.span):
                continue
            typ = T.NUM
            if v.type is not None:
                if v.type in VAR_TYPES:
                    typ = VAR_TYPES[v.type]
                elif v.type in c.attr_index:
                    typ = T.value_type(v.type)
                else:
                    c.unknown("type", v.type, v.span, list(VAR_TYPES) + list(c.attr_index))
            vis = "public"
            if v.visibility is not None:
                word, span = v.visibility
                if word not in VAR_VISIBILITY:
                    c.unknown("visibility", word, span, VAR_VISIBILITY)
                elif word == "owner" and not v.per_player:
                    c.error("only a per-player variable has an owner to show it to", span,
                            "a team's variable is seen by everyone, or by nobody (hidden)" if v.per_team else None)
                else:
                    vis = word
            if v.label is not None and not v.label.strip():
                c.error(f"the label of '{v.name}' is empty", v.span, "write what the table calls it, or no label")
            if v.per_team and not c.teams:
                c.error(f"'{v.name}' is kept per team, but the game has no teams", v.span,
                        "say how many: 'players 4 in 2 teams'")
            var = Var(v.name, base, v.per_player or v.per_team, typ, None, v.span, vis, v.per_card,
                      label=_label(v.label, v.name), per_team=v.per_team)
            if vis == "hidden" and (v.label is not None or v.shown is not None):
                c.error(f"'{v.name}' is hidden: the table never shows it, so it has no "
                        f"{'label' if v.label is not None else 'condition to be shown'}", v.visibility[1],
                        "remove 'hidden' to show it, or remove the " + ("label" if v.label is not None else "'when'"))
            c.var_list.append(var)
            c.var_by_name[v.name] = var
            base += MAX_SEATS if var.per_player else c.ncards if v.per_card else 1
        c.var_count = base

    def params(self):
        """Parameter names and types first: functions, modifiers and patterns may read any of them."""
        c = self.c
        for p in c.gm.of(m.ParamDecl):
            if c.declare(p.name, "a parameter", p.span):
                c.param_info[p.name] = p
                c.param_types[p.name] = T.BOOL if self.is_condition(p.init) else T.NUM

    def is_condition(self, e) -> bool:
        """Whether a parameter's starting value is true or false (read before any type is known)."""
        if isinstance(e, (m.Bool, m.Compare, m.Logic, m.Not, m.Member)):
            return True
        if isinstance(e, m.Call):
            return e.func in _CONDITION_CALLS
        if isinstance(e, m.CondExpr):
            return self.is_condition(e.then)
        if isinstance(e, m.Name) and e.name in self.c.options:
            return isinstance(self.c.options[e.name][0], bool)
        return False

    def defs(self):
        c = self.c
        for d in c.gm.of(m.DefDecl):
            if c.declare(d.name, "a function", d.span):
                c.def_info[d.name] = d
                self.kinds(d)

    def steps(self):
        c = self.c
        for d in c.gm.of(m.StepsDecl):
            if c.declare(d.name, "steps (a 'def' with a block)", d.span):
                c.steps_info[d.name] = d
                self.kinds(d)
                for p in sorted({p for p in d.params if d.params.count(p) > 1}):
                    c.error(f"'{d.name}' names its parameter '{p}' twice", d.span)

    def kinds(self, d):
        """The kinds written before a def's parameters (`def twice(number n)`): the type each call's
        argument must have (calls.py, straight.py)."""
        c, out = self.c, []
        for kind in d.kinds or (None,) * len(d.params):
            if kind is None:
                out.append(T.ANY)
            elif kind[0] in VAR_TYPES or kind[0] == "zone":
                out.append(VAR_TYPES.get(kind[0], T.ZONE))
            elif kind[0] in c.attr_index:
                out.append(T.value_type(kind[0]))
            else:
                c.unknown("kind of parameter", kind[0], kind[1], [*VAR_TYPES, "zone", *c.attr_index])
                out.append(T.ANY)
        c.def_kinds[d.name] = tuple(out)

    def patterns(self):
        c = self.c
        for d in c.gm.of(m.PatternDecl):
            if c.declare(d.name, "a pattern", d.span):
                c.pattern_info[d.name] = d
        c.pattern_index = {name: k for k, name in enumerate(c.pattern_info)}
