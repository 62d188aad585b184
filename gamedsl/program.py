"""The compiled form of a game: tables and fast callables the engine runs (no syntax left)."""
from __future__ import annotations

import attrs

from .errors import Span

MAX_SEATS = 9


@attrs.define
class Zone:
    name: str
    base: int  # instance index; a per-player zone owns base .. base + MAX_SEATS - 1
    per_player: bool
    visibility: str  # hidden / owner / public / top
    stack: bool
    span: Span
    out: bool = False  # out of the game: `gather` leaves its cards where they are
    changes: tuple = ()  # modifiers' visibility changes: ((condition fn(state, [owner]), word), ...), in file order
    transient: bool = False  # shown on the table only while it holds cards


@attrs.define
class Var:
    name: str
    base: int
    per_player: bool
    type: str
    init: object  # fn(state) -> value
    span: Span
    visibility: str = "public"  # hidden (nobody), owner (a per-player value: its owner), public
    per_card: bool = False  # one value per card: base .. base + number of cards - 1


@attrs.define
class Action:
    name: str
    label: str
    first_id: int
    size: int  # how many ids: 1, or one per possible parameter value
    param_type: str | None
    domain: object  # fn(state, env) -> iterable, or None
    requires: list  # [(fn(state, env) -> bool, message or None, source text)]
    body: tuple
    nlocals: int
    span: Span
    legal: object = None  # fn(state, out): appends the legal move ids
    decl: object = None  # the model node, for messages
    scope: object = None  # the compiler's scope while compiling
    anytime: bool = False  # offered to every player in the reaction window before a decision
    spoken: bool = False  # said aloud: making it fires the 'speech' triggers


@attrs.define
class Trigger:
    kind: str
    source: object  # zone matcher for move events: (zone base, per_player) or None
    dest: object
    cond: object  # fn(state, env) or None
    body: tuple
    nlocals: int
    span: Span


@attrs.define
class Pattern:
    """A meld: a fixed shape, and the clauses read at run time for the player concerned."""
    name: str
    shape: object  # patterns.Shape
    size: object  # fn(state, [owner]) -> number of cards
    conds: tuple  # fn(state, [owner]) -> bool: all must hold for the pattern to count
    withs: tuple  # ((attribute, value index, condition fn or None, count fn or None), ...): cards of that value required
    span: Span


@attrs.define
class Program:
    """Everything the engine needs to run a game, built once at load."""

    name: str
    filename: str
    min_players: int
    max_players: int
    options: dict  # name -> (default, doc)
    option_index: dict
    move_limit: int
    attributes: list  # [(name, [value names], [symbols])]
    card_attrs: dict  # attribute name -> tuple of value index per card (-1 unset)
    card_names: list
    zones: list
    zone_by_name: dict
    zone_count: int
    vars: list
    var_by_name: dict
    var_count: int
    actions: list
    action_by_name: dict
    action_count: int
    setup: tuple
    setup_locals: int
    round: tuple | None
    round_locals: int
    outcome: tuple
    outcome_locals: int
    end_when: object  # fn(state) or None
    triggers: dict  # kind -> [Trigger]
    params: dict  # name -> fn
    heuristic: object = None  # fn(state, env): how good the state is for state.me
    invariants: dict = attrs.Factory(dict)  # when -> [(name, fn(state, env), span)]
    back: tuple = ()  # the attributes a card's back shows to everyone
    option_choices: dict = attrs.Factory(dict)  # option name -> its value names (options chosen by name)
    reactions: tuple = ()  # the anytime actions
    no_reaction: object = None  # the move that lets a reaction window pass (when there are reactions)
    out_zones: frozenset = frozenset()  # the instances of zones marked `out`
    twins: tuple = ()  # per card: the first card identical to it (itself if it is the first)
    patterns: list = attrs.Factory(list)
    same_changes: dict = attrs.Factory(dict)  # attribute -> ((condition, value indices that count as one), ...)
    wild_changes: dict = attrs.Factory(dict)  # attribute -> ((condition, cards wild for it), ...)
    attr_sizes: dict = attrs.Factory(dict)  # attribute -> how many values it has
    ordered: dict = attrs.Factory(dict)  # turn/round event -> (steps, moves): labelled triggers the player orders
    matcher: object = None  # patterns.Matcher over this game's cards
    move_index: dict = attrs.Factory(dict)  # (from, to) zone instances -> the move triggers that may match
    source_map: object = None  # codegen.SourceMap: the generated code's lines -> spans of the game file
    action_bodies: frozenset = frozenset()  # the ops of every action's body (a move in progress)
    block_spans: dict = attrs.Factory(dict)  # ops of a loop, round or trigger -> (span, kind): to name one that never ends

    def move_triggers(self, src: int, dest: int) -> tuple:
        """The move triggers whose zones match a move from `src` to `dest` (worked out once per pair)."""
        found = self.move_index.get((src, dest))
        if found is None:
            found = self.move_index[(src, dest)] = tuple(
                t for t in self.triggers.get("move", ()) if _may_match(t.source, src) and _may_match(t.dest, dest))
        return found

    def card_count(self) -> int:
        return len(self.card_names)


def _may_match(pattern, zone: int) -> bool:
    """Whether a trigger's zone pattern (None: any zone) can match a zone instance."""
    if pattern is None:
        return True
    base, per_player, _ = pattern
    return base <= zone < base + MAX_SEATS if per_player else zone == base
