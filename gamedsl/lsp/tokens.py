"""What an editor shows of a document's words, without the protocol: completion at the cursor
(names, keywords, a card's values, snippets) and semantic tokens (each word's colour: a declared
name by its kind). Positions as in analysis.py: 1-based lines and character columns."""
from __future__ import annotations

import re

from ..language import model as m
from .analysis import Index, keywords


# ---- completion ------------------------------------------------------------------

_WORD_BEFORE = re.compile(r"(?:([A-Za-z_][A-Za-z_0-9]*)\s*\.\s*)?([A-Za-z_0-9]*)$")
_PLAYER_WORDS = {"me", "owner", "current", "p", "q", "player"}
_COMPARED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*(?:==|!=)\s*[A-Za-z_0-9]*$")


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
