"""What the language server says of a name and of a document, without the protocol: a hover's
text (what a name is, its declaration and the comment above it) and the outline."""
from __future__ import annotations

import re

from ..errors import Span
from ..language import model as m
from .analysis import Declared, named_span


OUTLINE_KINDS = (m.AttributeDecl, m.CardsDecl, m.ValueDecl, m.ZoneDecl, m.VarDecl, m.ParamDecl, m.OptionDecl,
                 m.OptionChoiceDecl, m.DefDecl, m.StepsDecl, m.PatternDecl, m.ModifierDecl, m.ActionDecl,
                 m.TriggerDecl, m.InvariantDecl, m.FlowBlock, m.EndWhen, m.Heuristic)


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
        if not isinstance(d, OUTLINE_KINDS) or d.span.file or not d.span.line:
            continue
        if isinstance(d, m.AttributeDecl):
            kids = [(v.name, "value", named_span(v.span, v.name), []) for v in d.values]
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
