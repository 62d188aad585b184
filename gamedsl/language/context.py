"""What every part of the compiler shares: the model, the diagnostics, the module being generated,
and the names the file declares, with their tables (filled in by the declaration passes)."""
from __future__ import annotations


from ..errors import Diagnostic, Span, closest, did_you_mean
from . import model as m
from . import types as T
from .codegen import Module

# Names the language defines itself. A declaration of a built-in function's name shadows it (with a
# warning), so a built-in added later never breaks a file that checked; the words read without
# parentheses (PRONOUNS) cannot be declared.
PRONOUNS = frozenset({"me", "players", "all_players", "all_cards", "in_play", "others", "nobody"})
BUILTINS = {"me", "players", "all_players", "all_cards", "in_play", "others", "count", "any", "all", "sum", "max",
            "min", "best", "worst", "random", "next", "previous", "top", "bottom", "abs", "seat", "number", "knows",
            "card", "same", "has", "makes", "can_make", "tops", "filter", "nobody",
            "nth", "sorted", "list", "values", "deadwood", "melded", "first_meld", "combinations", "zone_of", "above", "team", "partners"}


def _ends_turn(stmts) -> bool:
    """Whether a block holds an `end turn`, at any depth."""
    for st in stmts:
        if isinstance(st, m.End) and st.what == "turn":
            return True
        if isinstance(st, m.If):
            if any(_ends_turn(b) for _, b in st.branches) or _ends_turn(st.otherwise or ()):
                return True
        elif isinstance(st, (m.Repeat, m.While, m.ForEach, m.Turn)) and _ends_turn(st.body):
            return True
    return False


class Scope:
    """Names visible in one compiled unit: statement locals (env slots) and expression-bound names."""

    def __init__(self, parent: "Scope | None" = None, slots: dict | None = None, depth: int = 0):
        self.names: dict[str, tuple[str, str]] = {}
        self.parent = parent
        self.depth = parent.depth + 1 if parent else depth  # a root below others: an inlined def's body
        self.slots = slots if slots is not None else (parent.slots if parent else {"n": 0})

    def child(self) -> "Scope":
        return Scope(self, self.slots)

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def local(self, name: str, typ: str) -> str:
        """An env slot for a statement-level name (reused if the name exists)."""
        found = self.lookup(name)
        if found and found[0].startswith("e["):
            return found[0]
        return self.slot(name, typ)

    def slot(self, name: str, typ: str) -> str:
        """A new env slot (an anonymous one when `name` is empty: a loop's counter, a saved value)."""
        code = f"e[{self.slots['n']}]"
        self.slots["n"] += 1
        if name:
            self.names[name] = (code, typ)
        return code

    def bind(self, name: str, typ: str) -> str:
        """A Python name for an expression-bound variable (aggregates, def parameters). Named by the
        scope's depth: a name bound inside another of the same name is another Python name, and the
        generated module is the same text in every process (so its compiled pieces can be reused)."""
        code = f"_{name}_{self.depth}"
        self.names[name] = (code, typ)
        return code

    @property
    def size(self) -> int:
        return self.slots["n"]


class Context:
    """The compilation of one game file: diagnostics, generated module, declared names and tables."""

    def __init__(self, gm: m.GameModel, coverage: bool = False):
        self.gm = gm
        self._nodes: dict | None = None  # (nodes())
        self.diags: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []  # what a file that checks is told all the same
        self.shadowed: set[str] = set()  # built-in function names the file declares for itself
        self.unknowns: list[Diagnostic] = []  # the unknown names reported: their follow-ons are not
        self.refused: set[str] = set()  # names whose declaration was refused: their uses say nothing more
        self.module = Module(coverage)  # a coverage build records each statement that runs (codegen.py)
        self.data: dict = {}  # tables the generated module reads, by name
        self.where = Span()  # the statement or declaration being compiled, for errors past Python's limits
        self.known: dict[str, str] = {}  # every declared name -> what it is
        self.has_move_triggers = any(t.event.kind == "move" for t in gm.of(m.TriggerDecl))
        # Every table exists from the start, so no lookup depends on the order of the passes.
        self.name, self.least, self.most, self.limit = gm.filename, 2, 4, 10000
        self.teams = 0  # `players 4 in 2 teams`: how many teams (0: every player for themselves)
        self.options: dict = {}
        self.option_index: dict = {}
        self.option_choices: dict = {}
        self.attr_list: list = []
        self.attr_index: dict = {}
        self.values: dict[str, list[tuple[str, int]]] = {}  # value name -> [(attribute, index)]
        self.value_names: set[str] = set()
        self.card_attr_tables: dict = {}
        self.card_names: list = []
        self.ncards = 0
        self.cards_failed = False  # a `cards` line had an error: some cards may be missing
        self.has_twins, self.twins = False, ()
        self.back_attrs: list = []
        self.zone_list: list = []
        self.zone_by_name: dict = {}
        self.zone_count = 0
        self.var_list: list = []
        self.var_by_name: dict = {}
        self.var_count = 0
        self.param_info: dict = {}
        self.param_types: dict[str, str] = {}
        self.def_info: dict = {}
        # a family of zones' name -> (the attribute it has a zone per value of, or None if numbered; its zones)
        self.families: dict = {}
        self.def_kinds: dict = {}  # a function or steps -> per parameter: the type its written kind asks for, or ANY
        self.def_types: dict[str, str] = {}
        self.def_clean: dict[str, bool] = {}  # whether a function's body reads without errors whatever its arguments
        self.steps_info: dict = {}
        self.pattern_info: dict = {}
        self.pattern_index: dict = {}
        self.action_by_name: dict = {}
        self.offered: set[str] = set()  # actions some choose, race or window offers
        self.meant: set[str] = set()  # names a misspelt one most likely meant (its error names them):
        # not also "never used" or "never offered"
        self.messages: list = []  # the Message of each `say` (per place it is compiled: steps are inlined)
        self.message_index: dict = {}
        self.in_outcome = False
        self.watch_zones: frozenset | str = frozenset()  # what parameters and patterns read (watch.py)
        self.watch_vars: frozenset | str = frozenset()
        self.watch_items: tuple = ()  # the watched zones and variables, each versioned on its own
        self.pattern_reads: tuple | None = None  # per pattern: the indices in watch_items of what it reads
        self.reactions = any(a.anytime for a in gm.of(m.ActionDecl))
        # `end turn` in an action, a trigger or steps may end a turn of another frame (State.end_turn)
        self.ends_turns_elsewhere = any(_ends_turn(d.body) for d in (*gm.of(m.ActionDecl), *gm.of(m.TriggerDecl),
                                                                     *gm.of(m.StepsDecl)))

    def message(self, msg) -> int:
        """The number of a Message (program.py), the same for the same message said the same way."""
        k = self.message_index.get(msg)
        if k is None:
            k = self.message_index[msg] = len(self.messages)
            self.messages.append(msg)
        return k

    def nodes(self, kind) -> list:
        """Every node of the model of this kind (one walk of the whole model, kept)."""
        if self._nodes is None:
            self._nodes = {}
            for x in m.walk(list(self.gm.decls)):
                self._nodes.setdefault(type(x), []).append(x)
        return [x for cls, found in self._nodes.items() if issubclass(cls, kind) for x in found]

    # ---- diagnostics
    def error(self, message: str, span: Span, hint: str | None = None):
        self.diags.append(Diagnostic(message, span, hint))

    def unknown(self, what: str, name: str, span: Span, candidates):
        """An unknown name, with the nearest known one as a hint. A name whose declaration was
        refused (it clashes) is not reported again at each use: the clash is the one mistake."""
        if name in self.refused:
            return
        removed = dict(self.gm.removed).get(name)
        hint = (f"the variant removes it: {removed.file or self.gm.filename}:{removed.line}:{removed.column}"
                if removed else did_you_mean(name, candidates))
        self.error(f"unknown {what} '{name}'", span, hint)
        self.unknowns.append(self.diags[-1])
        self.meant.update(filter(None, [closest(name, candidates)]))

    def one_message_each(self) -> list[Diagnostic]:
        """The diagnostics without the follow-ons of an unknown name: an error whose place holds (or
        is) an unknown name already reported ("a move's choices must be cards" around `me.hnad`)
        says nothing more than that name's own error does."""
        def holds(outer: Span, inner: Span) -> bool:
            return outer.file == inner.file and \
                (outer.line, outer.column) <= (inner.line, inner.column) and \
                (outer.end_line, outer.end_column) >= (inner.end_line, inner.end_column)
        unknown = set(map(id, self.unknowns))
        kept = [d for d in self.diags
                if id(d) in unknown or not any(holds(d.span, u.span) for u in self.unknowns)]
        return list(dict.fromkeys(kept))  # steps called in several places report an error in their body once

    def declare(self, name: str, kind: str, span: Span) -> bool:
        """Record a declared name; False (with an error) if it is built in or declared already."""
        if name in PRONOUNS:
            self.error(f"'{name}' is a word of the language and cannot be declared", span, "choose another name")
            self.refused.add(name)
            return False
        if name in BUILTINS and name not in self.known:
            self.shadowed.add(name)
            self.warnings.append(Diagnostic(
                f"'{name}' is also the name of a built-in function: in this file '{name}' is {kind} declared here",
                span, f"the built-in {name}(...) cannot be called in this file; rename yours to use it",
                severity="warning"))
        if name in self.known:
            self.error(f"'{name}' is already declared as {self.known[name]}", span, "choose another name")
            self.refused.add(name)
            return False
        self.known[name] = kind
        return True

    def value_of(self, name: str, span: Span, attribute: str | None = None):
        """(attribute, index) of a value name, or None with an error."""
        found = self.values.get(name, [])
        if attribute is not None:
            found = [f for f in found if f[0] == attribute]
            if not found:
                names = self.attr_list[self.attr_index[attribute]][1] if attribute in self.attr_index else []
                self.unknown(f"{attribute}", name, span, names)
                return None
        if not found:
            self.unknown("card attribute or value", name, span, list(self.values) + list(self.attr_index))
            return None
        if len(found) > 1:
            self.error(f"'{name}' is a value of several attributes ({', '.join(a for a, _ in found)})", span,
                       "compare it with an attribute, as in 'c.rank == 10'")
            return None
        return found[0]

    def source_of(self, span: Span) -> str:
        """The text of the file under a span, on one line."""
        lines = (dict(self.gm.sources).get(span.file, "") if span.file else self.gm.text).splitlines()
        if span.line == span.end_line and 0 < span.line <= len(lines):
            return lines[span.line - 1][span.column - 1: span.end_column - 1]
        if 0 < span.line <= len(lines):
            return " ".join(line.strip() for line in lines[span.line - 1: span.end_line])
        return ""

    def watch_item(self, target: m.Expr) -> int | None:
        """The index in watch_items of a variable whose assignment changes what parameters,
        modifiers or patterns read (their answers change), or None."""
        if not self.watch_vars or (self.watch_vars != "*" and target.name not in self.watch_vars):
            return None
        return 0 if self.watch_items == ("*",) else self.watch_items.index(target.name)

    def hooks(self, event: str) -> bool:
        """Whether the game has triggers (labelled or not) for a turn or round event."""
        return any(t.event.kind == event for t in self.gm.of(m.TriggerDecl))

    def owner_scope(self) -> Scope:
        """Parameters, modifiers and patterns see `owner`: the player whose value is read."""
        scope = Scope()
        scope.local("owner", T.PLAYER)
        return scope
