"""Frozen attrs classes for a game definition; every node carries its source span (how a node class is
made and walked: nodes.py)."""
from __future__ import annotations

from ..errors import Span
from .nodes import node, walk  # noqa: F401  (walk is read as model.walk)


# ---- expressions ----------------------------------------------------------
@node
class Expr:
    span: Span = Span()


@node
class Index(Expr):
    """`column[k]`, `pile[c.kind]`, `me.tableau[2]`: one zone of a family."""
    obj: Expr
    index: Expr


@node
class Number(Expr):
    value: int


@node
class String(Expr):
    value: str


@node
class Bool(Expr):
    value: bool


@node
class Name(Expr):
    name: str


@node
class Attr(Expr):
    obj: Expr
    name: str
    name_span: Span = Span()


@node
class Call(Expr):
    func: str
    args: tuple
    for_var: str | None = None
    for_domain: Expr | None = None
    where: Expr | None = None
    by: Expr | None = None
    descending: bool = False  # `by E descending`: sorted from the highest key


@node
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@node
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@node
class Member(Expr):
    item: Expr
    collection: Expr
    negated: bool = False


@node
class Logic(Expr):
    op: str  # "and" / "or"
    left: Expr
    right: Expr


@node
class Not(Expr):
    operand: Expr


@node
class Neg(Expr):
    operand: Expr


@node
class CondExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@node
class ListExpr(Expr):
    items: tuple


@node
class Range(Expr):
    """`low..high`: the whole numbers from low to high, both included."""
    low: Expr
    high: Expr


# ---- statements -----------------------------------------------------------
@node
class Stmt:
    span: Span = Span()


@node
class Assign(Stmt):
    target: Expr  # Name or Attr
    op: str  # "=", "+=", "-=", "*="
    value: Expr


@node
class Let(Stmt):
    name: str
    value: Expr


@node
class Move(Stmt):
    card: Expr
    dest: Expr
    bottom: bool = False


@node
class MoveN(Stmt):
    count: Expr | None  # None: all
    source: Expr
    dest: Expr
    bottom: bool = False


@node
class Deal(Stmt):
    count: Expr
    source: Expr
    zone: str
    zone_span: Span
    start: Expr | None = None


@node
class Shuffle(Stmt):
    zone: Expr


@node
class Gather(Stmt):
    zone: Expr


@node
class If(Stmt):
    branches: tuple  # ((cond, block), ...)
    otherwise: tuple | None = None


@node
class Repeat(Stmt):
    count: Expr
    body: tuple


@node
class While(Stmt):
    cond: Expr
    body: tuple


@node
class ForEach(Stmt):
    var: str
    domain: Expr
    start: Expr | None
    body: tuple


@node
class Turn(Stmt):
    player: Expr
    body: tuple


@node
class Choose(Stmt):
    actions: tuple  # ((name, span), ...)
    by: Expr | None = None
    up_to: Expr | None = None  # `choose up to N of ...`: at most N moves, one at a time, until "done"
    repeated: bool = False  # `up to N of` or `any number of`


@node
class End(Stmt):
    what: str  # "turn" / "round" / "game"


@node
class Result(Stmt):
    kind: str  # "win" / "lose" / "grade"
    player: Expr
    score: Expr | None = None  # `grade P by E of N`: E ...
    out_of: Expr | None = None  # ... and N


@node
class Places(Stmt):
    var: str
    domain: Expr
    key: Expr
    then: tuple = ()  # the keys that break ties, in order (`by E then F`)
    descending: bool = False


@node
class Say(Stmt):
    text: str  # as written between the quotes, braces and all: the message's template
    parts: tuple = ()  # its pieces in order: a text (braces undoubled) or an Expr, a value said
    to: Expr | None = None  # `say "..." to p`: said to p alone


@node
class Reveal(Stmt):
    card: Expr
    to: Expr | None = None  # None: everyone


@node
class Race(Stmt):
    """`race a, b among PLAYERS`, or `simultaneous a among PLAYERS` (kind "simultaneous"):
    everyone listed answers at once, unseen by the others."""
    actions: tuple  # ((name, span), ...)
    players: Expr
    kind: str = "race"


@node
class Eliminate(Stmt):
    player: Expr


@node
class CallSteps(Stmt):
    func: str
    args: tuple


# ---- declarations ---------------------------------------------------------
@node
class Decl:
    span: Span = Span()


@node
class GameName(Decl):
    name: str


@node
class PlayersDecl(Decl):
    least: int
    most: int
    teams: int | None = None  # `in N teams`: seat k plays in team k mod N (partners sit apart)


@node
class OptionDecl(Decl):
    name: str
    default: Expr
    doc: str | None = None


@node
class OptionChoiceDecl(Decl):
    """An option whose value is one of some names: the first is the default."""
    name: str
    choices: tuple  # ((name, span), ...)
    doc: str | None = None


@node
class LimitDecl(Decl):
    moves: int


@node
class Heuristic(Decl):
    value: Expr  # how good the state is for `me`; read by the greedy bot


@node
class InvariantDecl(Decl):
    name: str
    when: str  # "move" (after every move), "round end", "game end"
    cond: Expr


@node
class AttrValue(Decl):
    name: str
    symbol: str | None = None


@node
class AttributeDecl(Decl):
    name: str
    values: tuple  # AttrValue


@node
class CardFactor(Decl):
    names: tuple  # one name: an attribute or a value; several: a set of values
    is_set: bool = False


@node
class CardsDecl(Decl):
    factors: tuple
    where: Expr | None = None
    times: int = 1
    named: str | None = None


@node
class BackDecl(Decl):
    attributes: tuple  # ((name, span), ...)


@node
class ValueEntry(Decl):
    pattern: tuple | None  # value names; None for the default
    value: Expr


@node
class ValueDecl(Decl):
    name: str
    entries: tuple


@node
class ZoneDecl(Decl):
    name: str
    per_player: bool
    props: tuple  # ((name, span), ...)
    shows: tuple = ()  # ((word, span), ...): how the table draws it (cards / top / count / nothing); one at most
    label: str | None = None  # what the table calls it
    family: tuple | None = None  # a family of zones: ("number", N, span) for NAME[1..N], ("value", attribute, span)


@node
class VarDecl(Decl):
    name: str
    per_player: bool
    type: str | None
    init: Expr | None
    visibility: tuple | None = None  # (word, span): hidden / owner / public
    per_card: bool = False
    label: str | None = None  # what the table calls it
    shown: Expr | None = None  # `when COND`: on the table only while COND holds
    per_team: bool = False  # one value per team: every player of a team reads and writes the same


@node
class ParamDecl(Decl):
    name: str
    per_player: bool
    init: Expr


@node
class DefDecl(Decl):
    name: str
    params: tuple
    body: Expr
    kinds: tuple = ()  # per parameter: (the kind written before it, its span), or None


@node
class StepsDecl(Decl):
    """A def whose body is statements: called as a statement, its steps run in place."""
    name: str
    params: tuple
    body: tuple
    kinds: tuple = ()  # per parameter: (the kind written before it, its span), or None


@node
class Requirement(Decl):
    cond: Expr
    message: str | None = None


@node
class ActionDecl(Decl):
    name: str
    label: str | None
    param: str | None
    domain: Expr | None
    requires: tuple
    body: tuple
    anytime: bool = False  # may be made out of turn, in the reaction window before a decision
    spoken: bool = False  # said aloud: fires 'on speech' triggers
    more: tuple = ()  # the choices after the first: ((name, domain), ...)


@node
class Event(Decl):
    kind: str  # "move", "turn start", ...
    var: str | None = None
    source: Expr | None = None
    dest: Expr | None = None


@node
class TriggerDecl(Decl):
    event: Event
    cond: Expr | None
    body: tuple
    label: str | None = None  # a step the player on turn orders among the others of the same moment


@node
class ParamChange(Decl):
    param: str
    op: str
    value: Expr


@node
class VisibilityChange(Decl):
    zone: str
    field: tuple  # (name, span): must be 'visibility'
    word: tuple  # (name, span): hidden / owner / public / top


@node
class SameChange(Decl):
    """Values of one attribute that count as the same value (transitively, with the other such changes)."""
    attribute: str
    values: tuple  # ((name, span), ...)


@node
class WildChange(Decl):
    """The cards matching a value pattern may stand for any value of one attribute in patterns."""
    attribute: str
    pattern: tuple  # ((name, span), ...)


@node
class ModifierDecl(Decl):
    name: str
    cond: Expr
    changes: tuple  # ParamChange, VisibilityChange, SameChange, WildChange


@node
class PatternClause(Decl):
    kind: str  # "size", "same", "run", "groups", "each", "with", "if"
    expr: Expr | None = None  # size, the with's condition, if
    names: tuple = ()  # ((name, span), ...): the same attribute, the run's orders, the with value
    count: Expr | None = None  # with at least COUNT VALUE: how many cards of the value (default one)
    most: Expr | None = None  # size: N to MOST cards
    open: bool = False  # size: at least N cards (no most)
    sizes: tuple = ()  # groups of ATTR 3 and 2: the groups' sizes; N of each: (N,)


@node
class PatternDecl(Decl):
    """A set of cards that makes a meld: a size, attributes shared, a run, values required."""
    name: str
    clauses: tuple


@node
class FlowBlock(Decl):
    kind: str  # "setup" / "round" / "outcome"
    body: tuple


@node
class EndWhen(Decl):
    cond: Expr


@node
class ExtendsDecl(Decl):
    """A variant file's base: the game file it starts from (language/variant.py)."""
    path: str  # as written, relative to the variant's folder


@node
class RemoveDecl(Decl):
    """A variant takes a declaration of its base away: `remove action pass`, `remove round`."""
    kind: str  # the word of the declaration: action, option, def, trigger, setup...
    name: str | None = None  # its name (a trigger's or invariant's: the text in quotes); None for a whole block
    name_span: Span = Span()


@node
class GameModel:
    """A whole .game file: its declarations in order, plus the file's name and text. A variant's
    model holds its base's declarations merged with its own (variant.py); `sources` names the
    other files its spans may be in, and their texts."""

    filename: str
    text: str
    decls: tuple
    sources: tuple = ()  # ((file name, text), ...): the files the variant extends, nearest first
    removed: tuple = ()  # ((name, span of its `remove`), ...): what the variant took away

    def of(self, cls):
        """The declarations of one class, in file order."""
        return [d for d in self.decls if isinstance(d, cls)]
