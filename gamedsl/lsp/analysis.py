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
_OUTLINE_KINDS = (m.AttributeDecl, m.CardsDecl, m.ValueDecl, m.ZoneDecl, m.VarDecl, m.ParamDecl, m.OptionDecl,
                  m.OptionChoiceDecl, m.DefDecl, m.StepsDecl, m.PatternDecl, m.ModifierDecl, m.ActionDecl,
                  m.TriggerDecl, m.InvariantDecl, m.FlowBlock, m.EndWhen, m.Heuristic)


def _named(span: Span, name: str) -> Span:
    """The span of a name written at the start of `span`."""
    return Span(span.line, span.column, span.line, span.column + len(name), span.file)


def declarations(gm: m.GameModel) -> list[Declared]:
    """Every name the game declares, in file order."""
    out = []
    for d in gm.decls:
        if isinstance(d, m.AttributeDecl):
            out.append(Declared(d.name, "attribute", d.span, d))
            out.extend(Declared(v.name, "value", _named(v.span, v.name), v, d.name) for v in d.values)
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
            out.append(Use(x.func, _named(x.span, x.func)))
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
                    and _contains(_named(x.span, "card"), line, column):
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


# ---- hover -------------------------------------------------------------------

_COMMENT = re.compile(r"\s*#(.*)")


def comments(text: str, line: int) -> str:
    """The comment lines written directly above line `line` (1-based), and the comment at its end."""
    lines = text.split("\n")
    above = []
    k = line - 2
    while k >= 0 and (match := re.fullmatch(r"\s*#(.*)", lines[k])):
        above.append(match.group(1).strip())
        k -= 1
    above.reverse()
    if 0 < line <= len(lines):
        trailing = _trailing_comment(lines[line - 1])
        if trailing:
            above.append(trailing)
    return "\n".join(above).strip()


def _trailing_comment(line: str) -> str:
    """The comment at the end of a line of code (a '#' outside quotes)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[i + 1:].strip() if line[:i].strip() else ""
    return ""


def source_of(gm: m.GameModel, span: Span) -> str:
    """The text of a span (in the document, or in a file a variant extends)."""
    text = dict(gm.sources).get(span.file, "") if span.file and span.file != gm.filename else gm.text
    lines = text.split("\n")
    if not span.line or span.line > len(lines):
        return ""
    if span.end_line == span.line:
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    parts = [lines[span.line - 1][span.column - 1:]] + lines[span.line:span.end_line - 1]
    parts.append(lines[span.end_line - 1][:span.end_column - 1] if span.end_line <= len(lines) else "")
    return "\n".join(parts)


def describe(gm: m.GameModel, d: Declared) -> str:
    """A hover's text (Markdown): what the name is, then the comment written above it."""
    x = d.decl
    src = lambda e: source_of(gm, e.span) if e is not None else ""  # noqa: E731
    if isinstance(x, m.ZoneDecl):
        props = ", ".join(w for w, _ in x.props)
        head = f"zone `{x.name}`" + (" per player" if x.per_player else "") + (f": {props}" if props else "")
        if x.label:
            head += f' "{x.label}"'
    elif isinstance(x, m.VarDecl):
        vis = x.visibility[0] if x.visibility else "public"
        owner = " per card" if x.per_card else " per player" if x.per_player else ""
        head = f"{vis} variable `{x.name}`{owner}"
        if x.type:
            head += f": {x.type}"
        if x.init is not None:
            head += f" = `{src(x.init)}`"
        if x.label:
            head += f' "{x.label}"'
    elif isinstance(x, m.ParamDecl):
        head = f"parameter `{x.name}`" + (" per player" if x.per_player else "") + f" = `{src(x.init)}`"
    elif isinstance(x, m.OptionDecl):
        head = f"option `{x.name}`, default `{src(x.default)}`" + (f": {x.doc}" if x.doc else "")
    elif isinstance(x, m.OptionChoiceDecl):
        if d.kind == "option value":
            head = f"value `{d.name}` of option `{x.name}`"
        else:
            names = [n for n, _ in x.choices]
            head = f"option `{x.name}`: one of {', '.join(names)} (default `{names[0]}`)" if names else \
                f"option `{x.name}`"
            if x.doc:
                head += f": {x.doc}"
    elif isinstance(x, m.DefDecl):
        head = f"def `{x.name}({', '.join(x.params)})` = `{src(x.body)}`"
    elif isinstance(x, m.StepsDecl):
        head = f"def `{x.name}({', '.join(x.params)})` (steps: called as a statement)"
    elif isinstance(x, m.ActionDecl):
        head = f"action `{x.name}`" + (f' "{x.label}"' if x.label else "")
        if x.param:
            head += ", choosing " + ", ".join(f"`{name}` in `{src(domain)}`"
                                              for name, domain in ((x.param, x.domain),) + x.more)
        extra = [w for w, on in (("anytime", x.anytime), ("spoken", x.spoken)) if on]
        if extra:
            head += f" ({', '.join(extra)})"
    elif isinstance(x, m.AttributeDecl):
        head = f"attribute `{x.name}`: " + ", ".join(v.name for v in x.values)
    elif isinstance(x, m.AttrValue):
        head = f"value `{x.name}` of attribute `{d.parent}`" + (f' "{x.symbol}"' if x.symbol else "")
    elif isinstance(x, m.ValueDecl):
        head = f"value table `{x.name}` (an attribute of the cards, read as `c.{x.name}`)"
    elif isinstance(x, m.PatternDecl):
        head = f"pattern `{x.name}`"
    elif isinstance(x, m.ModifierDecl):
        head = f"modifier `{x.name}` while `{src(x.cond)}`"
    else:
        head = f"{d.kind} `{d.name}`"
    text = dict(gm.sources).get(d.span.file, "") if d.span.file and d.span.file != gm.filename else gm.text
    note = comments(text, d.span.line)
    where = f"\n\n*declared in {d.span.file}*" if d.span.file and d.span.file != gm.filename else ""
    return head + where + (f"\n\n---\n{note}" if note else "")


# ---- outline -------------------------------------------------------------------

def outline(gm: m.GameModel) -> list[tuple[str, str, Span, list]]:
    """The document's outline: (name, kind, span, children) per declaration of the document itself
    (not those a variant inherits), in file order; a span is where its name (or keyword) is."""
    out = []
    for d in gm.decls:
        if not isinstance(d, _OUTLINE_KINDS) or d.span.file or not d.span.line:
            continue
        if isinstance(d, m.AttributeDecl):
            kids = [(v.name, "value", _named(v.span, v.name), []) for v in d.values]
            out.append((d.name, "attribute", d.span, kids))
        elif isinstance(d, m.CardsDecl):
            out.append((d.named or "cards", "cards", d.span, []))
        elif isinstance(d, m.VarDecl):
            out.append((d.name, "card variable" if d.per_card else "variable", d.span, []))
        elif isinstance(d, m.TriggerDecl):
            out.append((d.label or f"on {source_of(gm, d.event.span)}", "trigger", d.span, []))
        elif isinstance(d, m.InvariantDecl):
            out.append((d.name, "invariant", d.span, []))
        elif isinstance(d, m.FlowBlock):
            out.append((d.kind, "flow", d.span, []))
        elif isinstance(d, m.EndWhen):
            out.append(("end when", "flow", d.span, []))
        elif isinstance(d, m.Heuristic):
            out.append(("heuristic", "heuristic", d.span, []))
        else:
            kind = {m.ValueDecl: "value table", m.ZoneDecl: "zone", m.ParamDecl: "parameter",
                    m.OptionDecl: "option", m.OptionChoiceDecl: "option", m.DefDecl: "def", m.StepsDecl: "def",
                    m.PatternDecl: "pattern", m.ModifierDecl: "modifier", m.ActionDecl: "action"}[type(d)]
            out.append((d.name, kind, d.span, []))
    return out


# ---- completion ------------------------------------------------------------------

_WORD_BEFORE = re.compile(r"(?:([A-Za-z_][A-Za-z_0-9]*)\s*\.\s*)?([A-Za-z_0-9]*)$")
_PLAYER_WORDS = {"me", "owner", "current", "p", "q", "player"}
_COMPARED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*(?:==|!=)\s*[A-Za-z_0-9]*$")


@functools.cache
def keywords() -> tuple[str, ...]:
    """The language's keywords: the words its grammar writes in quotes, and a zone's properties."""
    from ..language.declarations import ZONE_PROPS
    from ..language.grammar_file import grammar_text
    return tuple(sorted(set(re.findall(r'"([a-z_]+)"i?', grammar_text())) | ZONE_PROPS))


def in_comment_or_string(before: str) -> bool:
    quoted = False
    for ch in before:
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return True
    return quoted


# The common blocks, as LSP snippets (${n:default} a place to fill, $0 where the cursor ends):
# (label, what it writes, the snippet). tests/test_lsp.py checks that each, filled with its
# defaults, is a declaration or statement the parser reads.
SNIPPETS = (
    ("action", "a move", 'action ${1:name} "${2:label}" (${3:c} in ${4:me.hand}) {\n  $0\n}'),
    ("def", "a function", "def ${1:name}(${2:x}) = ${0:x}"),
    ("def steps", "steps (a def of statements)", "def ${1:name}(${2:p}) {\n  $0\n}"),
    ("zone", "a zone of each player", "zone ${1:name} per player: ${2:owner}"),
    ("var", "a variable of each player", "var ${1:name} per player = ${2:0}"),
    ("pattern", "a pattern", "pattern ${1:name}: ${2:3} cards, same ${3:rank}"),
    ("on move", "a trigger", "on move ${1:c} to ${2:discard} {\n  $0\n}"),
    ("modifier", "a modifier", "modifier ${1:name} while ${2:true} {\n  ${0:size = 2}\n}"),
    ("setup", "the setup", "setup {\n  shuffle ${1:deck}\n  deal ${2:5} from ${1:deck} to ${3:hand}\n}"),
    ("round", "the round", "round {\n  for each ${1:p} in ${2:players} {\n    turn ${1:p} { choose ${3:play} }\n  }\n}"),
    ("outcome", "the outcome", "outcome {\n  places ${1:p} in ${2:players} by ${0:p.score}\n}"),
    ("if", "if ... else", "if ${1:true} {\n  $2\n} else {\n  $0\n}"),
    ("for each", "a loop over players", "for each ${1:p} in ${2:players} {\n  $0\n}"),
    ("while", "a loop", "while ${1:true} {\n  $0\n}"),
)
_CARD_ARGS = re.compile(r"\bcard\(([^()]*)$")


def completions(index: "Index | None", before: str, line: int = 0, column: int = 0) -> list[tuple[str, str, object]]:
    """What may be written at the cursor, `before` being its line up to it and (line, column) its
    place: (name, kind, declaration, Local or snippet text; or None). After a dot, what a player or
    a card has; inside `card(`, the values of the attribute at that argument; elsewhere the names
    the rules bind that are in scope, every declared name, the built-in names, the keywords and,
    at the start of a line, the snippets of the common blocks."""
    from ..language.context import BUILTINS
    if in_comment_or_string(before):
        return []
    match = _WORD_BEFORE.search(before)
    receiver = match[1] if match and "." in match[0] else None
    decls = index.decls if index is not None else []
    card = _CARD_ARGS.search(before)
    if card and receiver is None:  # card(K, h|: the values of the attribute of this argument
        attributes = [d.name for d in decls if d.kind == "attribute"]
        k = card[1].count(",")
        if k < len(attributes):
            return [(d.name, d.kind, d) for d in decls if d.kind == "value" and d.parent == attributes[k]]
    compared = _COMPARED.search(before)
    if compared and receiver is None:  # `c.suit == `: the values of suit first
        values = [d for d in decls if d.kind == "value" and d.parent == compared[1]]
        if values:
            return [(d.name, d.kind, d) for d in values]
    if receiver is not None:
        player = [d for d in decls if isinstance(d.decl, (m.ZoneDecl, m.VarDecl, m.ParamDecl))
                  and getattr(d.decl, "per_player", False) and not getattr(d.decl, "per_card", False)]
        card = [d for d in decls if d.kind in ("attribute", "value table", "card variable")]
        typed = next((d.decl.type for d in decls if d.name == receiver and isinstance(d.decl, m.VarDecl)), None)
        if receiver in _PLAYER_WORDS or typed == "player":
            chosen = player
        elif receiver == "c" or typed == "card":
            chosen = card
        else:
            chosen = player + card
        return [(d.name, d.kind, d) for d in chosen]
    scoped = index.locals_in_scope(line, column) if index is not None and line else []
    out = [(b.name, "local", b) for b in scoped]
    seen = {b.name for b in scoped}
    out += [(d.name, d.kind, d) for d in decls if d.name not in seen]
    seen |= {d.name for d in decls}
    out += [(name, "built-in", None) for name in sorted(BUILTINS) if name not in seen]
    out += [(word, "keyword", None) for word in keywords() if word not in seen and word not in BUILTINS]
    if not before.strip():  # a line's start: a block may begin here
        out += [(label, "snippet", body) for label, _, body in SNIPPETS]
    return out


# ---- semantic tokens ------------------------------------------------------------

TOKEN_TYPES = ("keyword", "comment", "string", "number", "struct", "variable", "property", "enum", "enumMember",
               "function", "method", "type", "interface", "parameter")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")
_KIND_TOKEN = {"zone": ("struct", ()), "variable": ("variable", ()), "parameter": ("variable", ()),
               "option": ("variable", ("readonly",)), "card variable": ("property", ()),
               "value table": ("property", ("readonly",)), "attribute": ("enum", ()), "value": ("enumMember", ()),
               "option value": ("enumMember", ()), "def": ("function", ()), "action": ("method", ()),
               "pattern": ("type", ()), "modifier": ("interface", ()), "local": ("parameter", ())}
_LEX = re.compile(r'(?P<comment>#.*)|(?P<string>"[^"\n]*"?)|(?P<number>\b\d+\b)|(?P<word>[A-Za-z_]\w*)')
_BRACED = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def semantic_tokens(text: str, index: "Index | None") -> list[tuple[int, int, int, str, tuple]]:
    """(line, column, length, token type, modifiers) of the text's words, comments, strings and
    numbers, in order; 1-based lines and character columns. A declared name is coloured by its
    kind (at its declaration with the modifier 'declaration'), a local name not at all; the
    values in a message's braces are read as code."""
    from ..language.context import BUILTINS
    kinds: dict = {}
    if index is not None and index.model.text == text:
        for u in index.uses:
            if not u.span.file:
                found = index.definitions(u.name, u.dotted)
                if found:
                    kinds[(u.span.line, u.span.column)] = (found[0].kind, False)
        for d in index.decls:
            if not d.span.file:
                kinds[(d.span.line, d.span.column)] = (d.kind, True)
        for span in index.local_uses:
            if not span.file:
                kinds[(span.line, span.column)] = ("local", False)
        for b in index.local_bindings:
            if not b.span.file:
                kinds[(b.span.line, b.span.column)] = ("local", True)
    words = set(keywords())
    out = []

    def lex(line_no: int, src: str, offset: int):
        for match in _LEX.finditer(src):
            group, column = match.lastgroup, offset + match.start() + 1
            if group == "string":
                last = 0
                body = match[0]
                for brace in _BRACED.finditer(body):
                    if brace[0] in ("{{", "}}"):
                        continue
                    out.append((line_no, column + last, brace.start() + 1 - last, "string", ()))
                    lex(line_no, brace[0][1:-1], column + brace.start())
                    last = brace.end() - 1
                out.append((line_no, column + last, len(body) - last, "string", ()))
            elif group == "word":
                known = kinds.get((line_no, column))
                if known is None and index is not None:  # a text that does not parse: by name alone
                    dotted = src[:match.start()].rstrip().endswith(".")
                    found = index.definitions(match[0], dotted)
                    known = (found[0].kind, False) if found else None
                if known is not None:
                    kind, declared = known
                    token, mods = _KIND_TOKEN.get(kind, ("variable", ()))
                    out.append((line_no, column, len(match[0]), token, mods + (("declaration",) if declared else ())))
                elif match[0] in words:
                    out.append((line_no, column, len(match[0]), "keyword", ()))
                elif match[0] in BUILTINS:
                    out.append((line_no, column, len(match[0]), "function", ("defaultLibrary",)))
            else:
                out.append((line_no, column, len(match[0]), group, ()))

    for k, src in enumerate(text.split("\n"), 1):
        lex(k, src, 0)
    return [x for x in out if x[2] > 0]
