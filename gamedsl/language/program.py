"""The compiled form of a game: tables, and one generated Python module holding every rule.

A Program is plain data: names, numbers, spans and the generated module's source. Where the
engine needs a function (a move's legality, a rule's body, a parameter), the Program holds the
name of a function of the module. `engine.link` executes the module once and puts the functions
in those places; until then a Program can be stored and loaded again (language/cache.py).
"""
from __future__ import annotations

import re

import attrs

from ..errors import GameRuntimeError, Span

MAX_SEATS = 9
STEP_LIMIT = 1_000_000  # the work allowed between two decisions (generated loops count it; see State.count_step)


class Table(dict):
    """A table the generated code reads as `table[key]` (a family's zones by number or value, an
    attribute's numbers by value): read at C speed, where a function call that checks the key
    would cost a call each time; a key it lacks raises a GameRuntimeError saying `message`."""

    def __init__(self, items=(), message: str = ""):
        super().__init__(items)
        self.message = message

    def __missing__(self, key):
        raise GameRuntimeError(self.message.format(key=key))


@attrs.frozen(cache_hash=True)
class Order:
    """An order a run may follow: each card's position in it (None: none), and all its positions, ascending."""

    position: tuple[int | None, ...]
    positions: tuple[int, ...]


@attrs.frozen(cache_hash=True)
class Shape:
    """The static shape of a pattern: the attributes its cards share, and what its run is made of."""

    same: tuple[str, ...] = ()
    run: str | None = None
    orders: tuple[Order, ...] = ()
    each: int = 1  # `N of each`: the run holds N cards of each of its values
    grouped: str | None = None  # `groups of ATTR 3 and 2`: the attribute its cards are grouped by...
    groups: tuple[int, ...] = ()  # ...and the groups' sizes, largest first


OPEN_SIZE = 1 << 20  # the most cards of a pattern of `at least N cards`: more than any deck holds


@attrs.frozen(cache_hash=True)
class Spec:
    """A pattern's run-time arguments, for one player at one moment: its size, required values
    (attribute, value[, how many cards]), wild cards and merged values (see engine/patterns.py)."""

    size: int
    withs: tuple = ()
    wild: tuple = ()
    classes: tuple = ()
    most: int = 0  # the most cards, for a pattern of size..most cards (0: exactly size)


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
    shows: str = "cards"  # how the table draws what a seat sees of it: its cards, only the top one, only a
    # count, or nothing at all (cards, top, count, nothing)
    label: str = ""  # what the table calls it
    contents: bool = False  # who sees its cards knows which they are, not their order (a deck-builder's deck)
    family: str = ""  # the family it belongs to (`zone column[7]`, `zone pile per kind`): its name, else ""
    member: int = 0  # its place in the family, from 0 (column[1] is 0; pile[v] is the value's index)


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
    label: str = ""  # what the table calls it
    shown: object = None  # `when COND`: fn(state, env) with `me` the player looking; None: always shown
    # one value per team (`per team`): kept per player (per_player is true too), a write sets it
    # for every player of the team
    per_team: bool = False


@attrs.frozen
class Message:
    """One `say`: its template (the text as written, braces and all) and its pieces in order, each
    a text or the type of a value said there (engine: Game.said). `table`: said where no player is
    acting (the setup, a round or the outcome outside a turn, a round's triggers): the table's own
    announcement, not a player's."""

    template: str
    parts: tuple  # ("text", str) or ("value", type) per piece
    table: bool
    span: Span


@attrs.define(eq=False)
class Action:
    name: str
    label: str
    first_id: int
    size: int  # how many ids: 1, or one per possible parameter value
    param_type: str | None
    span: Span
    domain: object = None  # fn(state, env) -> iterable, or None
    requires: list = attrs.Factory(list)  # [(fn(state, env) -> bool, message or None, source text)]
    legal: object = None  # fn(state, out): appends the legal move ids
    some: object = None  # an anytime action's fn(state) -> whether it has a legal move now
    run: object = None  # a body that never waits: fn(state, env); else None
    entry: object = None  # a body that may wait: its first block, fn(state, frame)
    nlocals: int = 0
    anytime: bool = False  # offered to every player in the reaction window before a decision
    spoken: bool = False  # said aloud: making it fires the 'speech' triggers
    domain_text: str = "the choices"  # the choices as the file writes them (for messages)
    step: int = -1  # an ordered step's number (a labelled turn or round trigger); -1 for an action
    # a move of several choices: per choice (name, type, stride in move ids, domain fn, domain text);
    # `domain` and `param_type` are then those of the card it names, or else of its first choice
    params: tuple = ()
    # a choice of several cards at once (`cs in combinations(...)`): ((its place among the choices,
    # fn(state, env) -> its cards, with its shape's number at that place), ...), and per choice
    # name (the attribute, the shapes: ((value, how many), ...) by number) for the move's words
    picks: tuple = ()
    shapes: dict = attrs.Factory(dict)

    @property
    def title(self) -> str:
        """The label as a list of actions shows it: a choice's place in it as '…' ("put … on column …")."""
        return re.sub(r"\{\w+\}", "…", self.label) if self.params else self.label


@attrs.define(eq=False)
class Trigger:
    kind: str
    source: object  # zone matcher for move events: (zone base, per_player, owner slot) or None
    dest: object
    cond: object  # fn(state, env) or None
    entry: object  # the body's first block: fn(state, frame)
    nlocals: int
    span: Span


@attrs.define(eq=False)
class Step:
    """A labelled turn or round trigger: a step the player on turn orders among the others of its moment."""
    cond: object  # fn(state, env) or None
    entry: object  # the body's first block
    nlocals: int
    action: Action


@attrs.define(eq=False)
class Pattern:
    """A meld: a fixed shape, and the clauses read at run time for the player concerned."""
    name: str
    shape: Shape
    size: object  # fn(state, [owner]) -> number of cards
    conds: tuple  # fn(state, [owner]) -> bool: all must hold for the pattern to count
    withs: tuple  # ((attribute, value index, condition fn or None, count fn or None), ...)
    span: Span
    most: object = None  # fn(state, [owner]) -> the most cards (`N to M cards`, `at least N cards`); None: exactly size


@attrs.define(eq=False)
class Unit:
    """A flow block that may wait (setup, round, outcome): its first block and its locals."""
    entry: object
    nlocals: int
    span: Span = Span()


@attrs.define(eq=False)
class Program:
    """Everything the engine needs to run a game, built once at load."""

    name: str
    filename: str
    text: str
    min_players: int
    max_players: int
    options: dict  # name -> (default, doc)
    option_index: dict
    option_choices: dict  # option name -> its value names (options chosen by name)
    move_limit: int
    attributes: list  # [(name, [value names], [symbols])]
    card_attrs: dict  # attribute name -> tuple of value index per card (-1 unset)
    card_names: list
    twins: tuple  # per card: the first card identical to it (itself if it is the first)
    back: tuple  # the attributes a card's back shows to everyone
    attr_sizes: dict  # attribute -> how many values it has
    zones: list
    zone_by_name: dict
    zone_count: int
    out_zones: frozenset  # the instances of zones marked `out`
    vars: list
    var_by_name: dict
    var_count: int
    actions: list
    action_by_name: dict
    action_count: int
    reactions: tuple  # the anytime actions
    no_reaction: Action | None  # the move that lets a reaction window pass (when there are reactions)
    setup: Unit
    round: Unit | None
    outcome: Unit
    triggers: dict  # kind -> [Trigger]
    ordered: dict  # turn/round event -> [Step]: labelled triggers the player orders
    params: dict  # name -> fn(state, owner=None)
    patterns: list
    same_changes: dict  # attribute -> ((condition, value indices that count as one), ...)
    wild_changes: dict  # attribute -> ((condition, cards wild for it), ...)
    reaction_check: object = None  # fn(state): whether `me` has any anytime move (with two or more of them)
    reaction_legal: object = None  # fn(state, out): appends every anytime move of `me` (likewise)
    modifiers: tuple = ()  # (name, condition fn(state, [owner]) -> bool, span): every modifier, in file order
    end_when: object = None  # fn(state, env) or None
    heuristic: object = None  # fn(state, env): how good the state is for state.me
    invariants: dict = attrs.Factory(dict)  # when -> [(name, fn(state, env), span)]
    messages: list = attrs.Factory(list)  # Message k: what `s.say(k, values)` says
    private_says: bool = False  # some `say ... to p`: a seat reads only the lines said to all or to it
    races: bool = False  # some `race ... among`: answers given at once, the fastest first
    teams: int = 0  # `players 4 in 2 teams`: seat k plays in team k mod teams (0: no teams)
    graded: bool = False  # some `grade P by E of N`: a result read from a score (State.value reads the standing)
    leaks: tuple = ()  # the secrecy check's errors (Diagnostics): loading refuses the game, replaying a log warns
    warnings: tuple = ()  # Diagnostics (severity "warning") of a file that checks: a built-in name it shadows
    hidden_params: frozenset = frozenset()  # actions whose number or value the others do not see (secrecy.py)
    secret_vars: tuple = ()  # hidden variables that may hold what not every seat knows (secrecy.py)
    act_sets: dict = attrs.Factory(dict)  # a module name -> the names of the actions a choose or race offers
    has_move_triggers: bool = False
    watch_zones: object = frozenset()  # the zones parameters and patterns read (names, or "*": all)
    watch_players: bool = False  # ...and whether they read who is still in the game
    # the watched zones and variables (and " players"), or ("*",): each has a version of its own (State.wv)
    watch_items: tuple = ()
    pattern_reads: tuple | None = None  # per pattern: the indices in watch_items of what its Spec reads
    trigger_spans: dict = attrs.Factory(dict)  # a trigger's first block -> its span
    module: str = ""  # the generated Python source
    module_name: str = ""  # the file name its code is compiled under (located errors find it by it)
    spans: list = attrs.Factory(list)  # the span each line of the module comes from
    loops: list = attrs.Factory(list)  # per line: the loop, round or trigger it is in ((span, kind) or None)
    via: list = attrs.Factory(list)  # per line: the steps calls it was inlined through ((name, span), ...)
    coverage: bool = False  # a coverage build: `_C[k] = 1` before each statement, trigger body and steps body
    markers: list = attrs.Factory(list)  # coverage marker k -> the span of its statement, trigger or steps
    data: dict = attrs.Factory(dict)  # tables the module reads (card values, attributes...)
    version: str = ""  # the gamedsl that compiled it
    sources: dict = attrs.Factory(dict)  # a variant's: the files it extends, name -> text (spans' Span.file)
    linked: bool = False
    ran: bytearray | None = None  # linked coverage build: the module's `_C`, marker k set to 1 when it ran

    def card_count(self) -> int:
        return len(self.card_names)
