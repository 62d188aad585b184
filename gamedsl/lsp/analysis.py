"""What the language server knows about one document, without the protocol: its diagnostics (from
the same checker as `gamedsl check`), its declarations and every use of a declared name.

Positions here are the language's: 1-based lines and 1-based columns counted in characters (code
points), as in errors.Span. The server converts them to LSP's 0-based lines and UTF-16 columns
(`to_lsp`, `from_lsp`)."""
from __future__ import annotations

import functools
import re

import attrs

from ..errors import Span
from ..language import model as m


# ---- positions -------------------------------------------------------------

def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def to_lsp(lines: list[str], line: int, column: int) -> tuple[int, int]:
    """A 1-based (line, character column) as LSP's 0-based (line, UTF-16 column)."""
    if line < 1:
        return 0, 0
    text = lines[line - 1] if line <= len(lines) else ""
    return line - 1, utf16_len(text[:max(column - 1, 0)])


def from_lsp(lines: list[str], line: int, character: int) -> tuple[int, int]:
    """LSP's 0-based (line, UTF-16 column) as a 1-based (line, character column)."""
    text = lines[line] if 0 <= line < len(lines) else ""
    units = col = 0
    while col < len(text) and units < character:
        units += 2 if ord(text[col]) > 0xFFFF else 1
        col += 1
    return line + 1, col + 1


# ---- comments and code ------------------------------------------------------

_STRING_OR_COMMENT = re.compile(r'"[^"\n]*"|#[^\n]*')
_TRAILING_SPACE = re.compile(r"[ \t]+$", re.M)


def code_of(text: str) -> str:
    """The text without its comments, each line's code at the same columns: two texts with the same
    code are the same program at the same positions."""
    code = _STRING_OR_COMMENT.sub(lambda x: x[0] if x[0].startswith('"') else "", text)
    return _TRAILING_SPACE.sub("", code)


_EXTENDS = re.compile(r'(?<![\w.])extends\s+("([^"\n]*)")')


def extends_of(text: str) -> tuple[Span, str] | None:
    """Where a variant's `extends "FILE"` writes its FILE (quotes included), and FILE; None if it has none."""
    code = _STRING_OR_COMMENT.sub(lambda x: x[0] if x[0].startswith('"') else " " * len(x[0]), text)
    match = _EXTENDS.search(code)
    if match is None:
        return None
    line = code.count("\n", 0, match.start(1)) + 1
    column = match.start(1) - (code.rfind("\n", 0, match.start(1)) + 1) + 1
    return Span(line, column, line, column + len(match[1])), match[2]


# ---- declarations and uses ---------------------------------------------------

@attrs.frozen
class Declared:
    """A declared name: its kind ('zone', 'variable', ...), where its name is written, the declaration."""

    name: str
    kind: str
    span: Span
    decl: object
    parent: str | None = None  # a value's attribute, an option value's option


@attrs.frozen
class Use:
    name: str
    span: Span
    dotted: bool = False  # after a dot: `me.hand`, `c.suit`


DOTTED_KINDS = {"zone", "variable", "card variable", "parameter", "attribute", "value table"}
def named_span(span: Span, name: str) -> Span:
    """The span of a name written at the start of `span`."""
    return Span(span.line, span.column, span.line, span.column + len(name), span.file)


def declarations(gm: m.GameModel) -> list[Declared]:
    """Every name the game declares, in file order."""
    out = []
    for d in gm.decls:
        if isinstance(d, m.AttributeDecl):
            out.append(Declared(d.name, "attribute", d.span, d))
            out.extend(Declared(v.name, "value", named_span(v.span, v.name), v, d.name) for v in d.values)
        elif isinstance(d, m.ValueDecl):
            out.append(Declared(d.name, "value table", d.span, d))
        elif isinstance(d, m.ZoneDecl):
            out.append(Declared(d.name, "zone", d.span, d))
        elif isinstance(d, m.VarDecl):
            out.append(Declared(d.name, "card variable" if d.per_card else "variable", d.span, d))
        elif isinstance(d, m.ParamDecl):
            out.append(Declared(d.name, "parameter", d.span, d))
        elif isinstance(d, m.OptionDecl):
            out.append(Declared(d.name, "option", d.span, d))
        elif isinstance(d, m.OptionChoiceDecl):
            out.append(Declared(d.name, "option", d.span, d))
            out.extend(Declared(name, "option value", span, d, d.name) for name, span in d.choices)
        elif isinstance(d, (m.DefDecl, m.StepsDecl)):
            out.append(Declared(d.name, "def", d.span, d))
        elif isinstance(d, m.PatternDecl):
            out.append(Declared(d.name, "pattern", d.span, d))
        elif isinstance(d, m.ModifierDecl):
            out.append(Declared(d.name, "modifier", d.span, d))
        elif isinstance(d, m.ActionDecl):
            out.append(Declared(d.name, "action", d.span, d))
    return out


def uses(gm: m.GameModel) -> list[Use]:
    """Every place a name is written in the game's rules (names of locals included: the caller
    keeps those that match a declaration)."""
    out = []
    for x in m.walk(gm.decls):
        if isinstance(x, m.Name):
            out.append(Use(x.name, x.span))
        elif isinstance(x, m.Attr):
            out.append(Use(x.name, x.name_span, dotted=True))
        elif isinstance(x, (m.Call, m.CallSteps)):
            out.append(Use(x.func, named_span(x.span, x.func)))
        elif isinstance(x, (m.Choose, m.Race)):
            out.extend(Use(name, span) for name, span in x.actions)
        elif isinstance(x, m.Deal):
            out.append(Use(x.zone, x.zone_span))
        elif isinstance(x, m.VisibilityChange):
            out.append(Use(x.zone, x.span))
        elif isinstance(x, (m.SameChange, m.WildChange)):
            out.append(Use(x.attribute, x.span))
            out.extend(Use(name, span) for name, span in (x.values if isinstance(x, m.SameChange) else x.pattern))
        elif isinstance(x, m.ParamChange):
            out.append(Use(x.param, x.span))
        elif isinstance(x, m.PatternClause):
            out.extend(Use(name, span) for name, span in x.names)
        elif isinstance(x, m.BackDecl):
            out.extend(Use(name, span) for name, span in x.attributes)
        elif isinstance(x, m.CardFactor) and len(x.names) == 1 and not x.is_set:
            out.append(Use(x.names[0], x.span))
        elif isinstance(x, m.ValueEntry) and x.pattern:
            out.extend(Use(name, span) for name, span in x.pattern)
    return [u for u in out if u.span.line]


def _contains(span: Span, line: int, column: int) -> bool:
    return span.line == line == span.end_line and span.column <= column <= span.end_column


def _extent(x) -> Span:
    """A declaration's span from its name to the end of the last thing in it (its body)."""
    spans = [n.span for n in m.walk(x) if getattr(n, "span", None) and n.span.line and n.span.file == x.span.file]
    end = max(((s.end_line or s.line, s.end_column) for s in spans), default=(x.span.end_line, x.span.end_column))
    return Span(x.span.line, x.span.column, end[0], end[1] + 1, x.span.file)  # and its closing brace


def _within(span: Span, line: int, column: int) -> bool:
    """Whether a position lies in a span of one line or several."""
    return bool(span.line) and (span.line, span.column) <= (line, column) <= (span.end_line or span.line,
                                                                             span.end_column)


# ---- names a rule binds for itself ----------------------------------------------

_AGGREGATES = {"count", "any", "all", "sum", "max", "min", "best", "worst", "filter", "sorted", "list"}


@attrs.frozen
class Local:
    """A name a rule binds: where (the binding's span), what binds it ('parameter of def applies')."""

    name: str
    span: Span
    what: str


class _Locals:
    """Walks the rules with the names in scope, pairing each use of a local with its binding."""

    def __init__(self, gm: m.GameModel, declared):
        self.lines = {"": code_of_strings(gm.text).split("\n")}
        self.raw = {"": gm.text.split("\n")}
        for name, text in gm.sources:
            self.lines[name] = code_of_strings(text).split("\n")
            self.raw[name] = text.split("\n")
        self.declared = declared
        self.uses: dict = {}  # use span -> Local
        self.bindings: list[Local] = []
        self.scopes: list[tuple[Local, Span]] = []  # each binding, with the span where it can be read

    def find(self, name: str, after: Span, what: str, first_after: str = "") -> Local | None:
        """The binding of `name` written on the line of `after`, from its start (after the word
        `first_after` when given)."""
        for lines in (self.lines.get(after.file) or self.lines[""], self.raw.get(after.file) or self.raw[""]):
            found = self._find(lines, name, after, what, first_after)  # outside strings, else in braces
            if found is not None:
                self.bindings.append(found)
                return found
        return None

    def _find(self, lines, name, after, what, first_after) -> Local | None:
        if not after.line or after.line > len(lines):
            return None
        for line in range(after.line, min(after.end_line or after.line, after.line + 3) + 1):
            src = lines[line - 1] if line <= len(lines) else ""
            start = after.column - 1 if line == after.line else 0
            pattern = rf"(?:{first_after})\s*({re.escape(name)})\b" if first_after else rf"\b({re.escape(name)})\b"
            match = re.compile(pattern).search(src, start)
            if match:
                return Local(name, Span(line, match.start(1) + 1, line, match.end(1) + 1, after.file), what)
        return None

    def bind(self, env: dict, local: Local | None, scope: Span | None = None) -> dict:
        """`env` with `local` in it; `scope`: where the local can be read (for completion)."""
        if local is None:
            return env
        if scope is not None:
            self.scopes.append((local, scope))
        return {**env, local.name: local}

    def visit(self, x, env: dict):
        if isinstance(x, (list, tuple)):
            for item in x:
                if isinstance(item, m.Let):
                    self.visit(item.value, env)
                    last = getattr(x[-1], "span", item.span)  # a let can be read to the end of its block
                    env = self.bind(env, self.find(item.name, item.span, "let", r"\blet\s"),
                                    Span(item.span.line, item.span.column, last.end_line, last.end_column,
                                         item.span.file))
                else:
                    self.visit(item, env)
            return
        if not attrs.has(type(x)):
            return
        if isinstance(x, m.Name):
            if x.name in env:
                self.uses[x.span] = env[x.name]
            return
        if isinstance(x, (m.DefDecl, m.StepsDecl)):
            inner = env
            for p in x.params:
                inner = self.bind(inner, self.find(p, Span(x.span.line, x.span.end_column, x.span.line,
                                                           x.span.end_column, x.span.file), f"parameter of def {x.name}"),
                                  _extent(x))
            return self.visit(x.body, inner)
        if isinstance(x, m.ActionDecl):
            self.visit(x.domain, env)
            inner = env
            if x.param:
                inner = self.bind(env, self.find(x.param, Span(x.span.line, x.span.end_column, x.span.line,
                                                               x.span.end_column, x.span.file),
                                                 f"what action {x.name} chooses", r"\("), _extent(x))
            for name, domain in x.more:  # a further choice: written after the domain before it, and a comma
                self.visit(domain, inner)
                before = Span(x.span.line, x.span.end_column, x.span.line, x.span.end_column, x.span.file)
                inner = self.bind(inner, self.find(name, before, f"what action {x.name} chooses", r","), _extent(x))
            return self.visit((x.requires, x.body), inner)
        if isinstance(x, m.TriggerDecl):
            inner = self.bind(env, self.find(x.event.var, x.event.span, f"the card or player of 'on {x.event.kind}'")
                              if x.event.var else None, _extent(x))
            for zone in (x.event.source, x.event.dest):  # `on move c to p.laws`: p, the zone's owner
                if isinstance(zone, m.Attr) and isinstance(zone.obj, m.Name) and zone.obj.name not in inner \
                        and zone.obj.name not in self.declared and zone.obj.name != "me":
                    local = Local(zone.obj.name, zone.obj.span, f"the owner of the zone in 'on {x.event.kind}'")
                    self.bindings.append(local)
                    inner = self.bind(inner, local, _extent(x))
                self.visit(zone, inner)
            return self.visit((x.cond, x.body), inner)
        if isinstance(x, m.ForEach):
            self.visit((x.domain, x.start), env)
            return self.visit(x.body, self.bind(env, self.find(x.var, x.span, "for each", r"\beach\s"), x.span))
        if isinstance(x, m.Places):
            self.visit(x.domain, env)
            return self.visit((x.key, *x.then), self.bind(env, self.find(x.var, x.span, "places", r"\bplaces\s"), x.span))
        if isinstance(x, m.Call):
            if x.for_var:
                self.visit(x.for_domain, env)
                local = self.find(x.for_var, x.span, f"{x.func}(... for {x.for_var} in ...)", r"\bfor\s")
                return self.visit((x.args, x.where, x.by), self.bind(env, local, x.span))
            first = x.args[0] if x.args else None
            if x.func in _AGGREGATES and isinstance(first, m.Member) and isinstance(first.item, m.Name) \
                    and first.item.name not in env and first.item.name not in self.declared:
                self.visit(first.collection, env)
                local = Local(first.item.name, first.item.span, f"{x.func}({first.item.name} in ...)")
                self.bindings.append(local)
                self.uses[first.item.span] = local
                return self.visit((x.args[1:], x.where, x.by), self.bind(env, local, x.span))
        for f in attrs.fields(type(x)):
            if f.name != "span":
                self.visit(getattr(x, f.name), env)


def code_of_strings(text: str) -> str:
    """The text with its strings and comments blanked (same positions), for finding names."""
    return _STRING_OR_COMMENT.sub(lambda x: " " * len(x[0]), text)


def locals_of(gm: m.GameModel, declared) -> tuple[dict, list[Local], list[tuple[Local, Span]]]:
    """The uses of the names the rules bind (use span -> Local), the bindings, and where each
    binding can be read."""
    walker = _Locals(gm, declared)
    walker.visit(gm.decls, {})
    return walker.uses, walker.bindings, walker.scopes


@attrs.define
class Index:
    """A document's declarations and uses, for definition, references, hover and the outline."""

    model: m.GameModel
    decls: list[Declared]
    uses: list[Use]
    by_name: dict
    local_uses: dict = attrs.Factory(dict)  # use span -> Local
    local_bindings: list = attrs.Factory(list)
    local_scopes: list = attrs.Factory(list)  # (Local, the span where it can be read)

    @classmethod
    def of(cls, gm: m.GameModel) -> "Index":
        decls = declarations(gm)
        by_name: dict = {}
        for d in decls:
            by_name.setdefault(d.name, []).append(d)
        try:
            local_uses, bindings, scopes = locals_of(gm, set(by_name))
        except RecursionError:
            local_uses, bindings, scopes = {}, [], []
        found = [u for u in uses(gm) if u.name in by_name and (u.dotted or u.span not in local_uses)]
        return cls(gm, decls, found, by_name, local_uses, bindings, scopes)

    def locals_in_scope(self, line: int, column: int) -> list[Local]:
        """The names the rules bind that can be read at a position (bound before it, in a rule, loop
        or aggregate holding it), the innermost of each name."""
        found: dict = {}
        for local, scope in self.local_scopes:
            if not scope.file and _within(scope, line, column) and \
                    (local.span.line, local.span.column) < (line, column):
                if local.name not in found or (local.span.line, local.span.column) > \
                        (found[local.name].span.line, found[local.name].span.column):
                    found[local.name] = local
        return sorted(found.values(), key=lambda b: b.name)

    def card_at(self, line: int, column: int) -> str | None:
        """On the word `card` of a card literal (`card(K, hearts)`): the card and its values."""
        for x in m.walk(self.model.decls):
            if isinstance(x, m.Call) and x.func == "card" and not x.span.file \
                    and _contains(named_span(x.span, "card"), line, column):
                parts, symbols = [], []
                for arg in x.args:
                    name = arg.name if isinstance(arg, m.Name) else str(getattr(arg, "value", "?"))
                    found = [d for d in self.by_name.get(name, []) if d.kind == "value"]
                    if found:
                        parts.append(f"{found[0].parent} `{name}`")
                        symbols.append(found[0].decl.symbol or name)
                    else:
                        parts.append(f"`{name}`")
                        symbols.append(name)
                return f"the card {''.join(symbols)}: " + ", ".join(parts)
        return None

    def local_at(self, line: int, column: int, file: str = "") -> Local | None:
        """The local (a parameter, `let`, `for each`...) whose binding or use is at a position."""
        for b in self.local_bindings:
            if b.span.file == file and _contains(b.span, line, column):
                return b
        for span, b in self.local_uses.items():
            if span.file == file and _contains(span, line, column):
                return b
        return None

    def local_references(self, local: Local) -> list[Span]:
        return [span for span, b in self.local_uses.items() if b is local]

    def at(self, line: int, column: int, file: str = "") -> tuple[str, bool] | None:
        """The declared name written at a position of `file` ("": the document itself), and whether
        it follows a dot; None if no declared name is there."""
        for d in self.decls:
            if d.span.file == file and _contains(d.span, line, column):
                return d.name, d.kind in DOTTED_KINDS
        for u in self.uses:
            if u.span.file == file and _contains(u.span, line, column):
                return u.name, u.dotted
        return None

    def definitions(self, name: str, dotted: bool = False) -> list[Declared]:
        """The declarations a name written here may be: after a dot, what a player or card has
        (never an action or a def); without one, anything but what only a dot reads (a value
        table, a per-card variable: a bare `points` is a local of that name)."""
        return [d for d in self.by_name.get(name, []) if _reads(dotted, d.kind)]

    def references(self, name: str, dotted: bool | None = None) -> list[Use]:
        """The uses of the name; given where it was found (`dotted`), those that may be the same
        declarations."""
        if dotted is None:
            return [u for u in self.uses if u.name == name]
        kinds = {d.kind for d in self.definitions(name, dotted)}
        return [u for u in self.uses if u.name == name and any(_reads(u.dotted, k) for k in kinds)]


DOT_ONLY_KINDS = {"value table", "card variable"}


def _reads(dotted: bool, kind: str) -> bool:
    """Whether a name written with (or without) a dot before it may be a declaration of this kind."""
    return kind in DOTTED_KINDS if dotted else kind not in DOT_ONLY_KINDS


# ---- rename ------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def local_names(gm: m.GameModel) -> set[str]:
    """The names the rules bind for themselves: parameters, `let`, `for each`, an event's card..."""
    out = set()
    for x in m.walk(gm.decls):
        if isinstance(x, (m.DefDecl, m.StepsDecl)):
            out.update(x.params)
        elif isinstance(x, m.ActionDecl) and x.param:
            out.add(x.param)
            out.update(name for name, _ in x.more)
        elif isinstance(x, m.Let):
            out.add(x.name)
        elif isinstance(x, (m.ForEach, m.Places)) or (isinstance(x, m.Event) and x.var):
            out.add(x.var)
        elif isinstance(x, m.Call) and x.for_var:
            out.add(x.for_var)
    return out


def rename_problem(index: "Index", name: str, new: str) -> str | None:
    """Why `name` cannot be renamed `new` in this document, or None if it can."""
    from ..language.context import BUILTINS
    if not _IDENTIFIER.fullmatch(new):
        return f"'{new}' is not a name: a letter or '_', then letters, digits or '_'"
    if new in keywords() or new in BUILTINS:
        return f"'{new}' is a word of the language"
    if new != name and new in index.by_name:
        d = index.by_name[new][0]
        return f"'{new}' is already the name of a {d.kind} (line {d.span.line})"
    if new != name and new in local_names(index.model):
        return f"'{new}' is already a name in a rule (a parameter, 'let' or 'for each'): the rule would change"
    elsewhere = sorted({d.span.file for d in index.by_name.get(name, []) if d.span.file})
    if elsewhere:
        return f"'{name}' is declared in {elsewhere[0]}: rename it there"
    return None


# ---- the language's words ----------------------------------------------------

@functools.cache
def keywords() -> tuple[str, ...]:
    """The language's keywords: the words its grammar writes in quotes, and a zone's properties."""
    from ..language.declarations import ZONE_PROPS
    from ..language.grammar_file import grammar_text
    return tuple(sorted(set(re.findall(r'"([a-z_]+)"i?', grammar_text())) | ZONE_PROPS))
