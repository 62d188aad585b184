"""The canonical layout of a .game file (`gamedsl fmt`, and the language server's formatting).

The formatter works on the file's tokens, comments included, and writes them back with canonical
whitespace; it never adds, drops or reorders a token, so the program is the one written
(`format_source` checks so before it answers). The rules (docs/editors.md, "Formatting"):

- Line breaks are the author's: a line is never joined to another or split. Blank lines are kept,
  but a run of them becomes one, and none begins or ends the file; the file ends with one newline.
- A line is indented two spaces per block (`{ ... }`) it lies in. A line that continues a
  statement or declaration begun on a line before it gets four spaces more than that statement,
  and four more per bracket still open at its start; a line that begins with `}`, or with the
  `elif` or `else` after one, lines up with its statement (so does a line beginning with `{`).
- Inside a line, one space between words and around operators and `=`; none before `,` `:` `;`
  `)` `]`, after `(` `[` or a unary `-`, around `.` and `..`, nor between a function's name and its
  `(` (an action's `(NAME in ...)` keeps its space); one space inside a block's `{ }`, none inside
  a set's (`{A, B}`); two between statements sharing a line. Trailing whitespace goes.
- A comment keeps its text and its line. A comment after code keeps its column (the aligned
  comments of the seed games), or follows the code by two spaces if the code now reaches it. A
  comment alone on its line is indented like the code line after it (inside a block that the next
  line closes, like the block's lines), unless it continues the comment at the end of the line just
  before it, written at that comment's column: then it stays under that comment.
"""
from __future__ import annotations

import lark

from .syntax import parse, parser

INDENT = "  "
CONTINUATION = "    "
# A modifier's changes begin a line as statements do; these nodes are calls, whose '(' follows the name.
_CHANGES = {"param_change", "visibility_change", "same_change", "wild_change"}
_CALLS = {"call", "call_stmt", "def_decl", "steps_decl", "target_call"}
_NO_SPACE_BEFORE = {",", ":", ";", ")", "]", ".", ".."}
_NO_SPACE_AFTER = {"(", "[", ".", ".."}


class _Shape:
    """What the tree says about the tokens, each known by its (line, column): where each declaration,
    statement and modifier change begins, the names a '(' follows without a space (a call, a
    def), the unary '-' signs, and the braces of a set of values (`cards {A, B} * suit`), which
    open no block."""

    def __init__(self, tree: lark.Tree):
        self.starts, self.callees, self.unary, self.set_braces = set(), set(), set(), set()
        self.indexed = set()  # where an indexed name ends (`column[k]`) and where a family's '[' is: no space
        for decl in tree.children:
            if isinstance(decl, lark.Tree) and not decl.meta.empty:
                self.starts.add((decl.meta.line, decl.meta.column))
        for node in tree.iter_subtrees():
            if node.meta.empty:
                continue
            if node.data in ("block", "modifier_decl"):
                for child in node.children:
                    if isinstance(child, lark.Tree) and not child.meta.empty and (
                            node.data == "block" or child.data in _CHANGES):
                        self.starts.add((child.meta.line, child.meta.column))
            if node.data in _CALLS:
                name = next(c for c in node.children if isinstance(c, lark.Token))
                self.callees.add((name.line, name.column))
            elif node.data == "index":
                obj = node.children[0]
                end = (obj.end_line, obj.end_column) if isinstance(obj, lark.Token) else \
                    (obj.meta.end_line, obj.meta.end_column)
                self.indexed.add(end)
            elif node.data == "zone_numbered":
                self.indexed.add(("[", node.meta.line, node.meta.column))
            elif node.data == "neg":
                self.unary.add((node.meta.line, node.meta.column))
            elif node.data == "factor_set":
                self.set_braces.add((node.meta.line, node.meta.column))
                self.set_braces.add((node.meta.end_line, node.meta.end_column - 1))


def _tokens(text: str) -> list:
    """Every token of a text that parses, comments included, whitespace left out."""
    return [t for t in parser().lex(text, dont_ignore=True) if t.type != "WS"]


def _space(prev, tok, shape: _Shape) -> str:
    """The space between two tokens on one line."""
    a, b = prev.value, tok.value
    if tok.type == "COMMENT":
        return "  "
    if a in _NO_SPACE_AFTER or b in _NO_SPACE_BEFORE:
        return ""
    if a == "-" and _at(prev) in shape.unary:
        return ""
    if b == "(" and _at(prev) in shape.callees:
        return ""
    if b == "[" and ((prev.end_line, prev.end_column) in shape.indexed or ("[", *_at(tok)) in shape.indexed):
        return ""
    if (a == "{" and _at(prev) in shape.set_braces) or (b == "}" and _at(tok) in shape.set_braces):
        return ""
    if _at(tok) in shape.starts and a not in ("{", ";"):
        return "  "  # two statements on one line
    return " "


def _at(tok) -> tuple[int, int]:
    return tok.line, tok.column


def format_source(text: str, filename: str = "<string>") -> str:
    """The canonical layout of a game's text. Raises SourceError (every syntax error) when it does
    not parse; the text's program is unchanged (the same tokens in the same order)."""
    shape = _Shape(parse(text, filename))
    tokens = _tokens(text)
    lines: dict[int, list] = {}
    for t in tokens:
        lines.setdefault(t.line, []).append(t)
    out: list[str] = []
    depth = 0  # blocks open before the line
    brackets = 0  # '(', '[' and set braces open before the line
    stmt_indent = ""  # the indentation of the statement the code so far belongs to
    last_code = None  # the last token that is not a comment
    pending: list = []  # comment-only and blank lines waiting for the next line of code
    comment_col: dict = {}  # line number -> (original column, new column) of the comment ending it
    previous = None
    for n in sorted(lines):
        toks = lines[n]
        if previous is not None and n > previous + 1:
            pending.append((n - 1, None))  # a blank line (one, however many there were)
        previous = n
        if toks[0].type == "COMMENT":
            pending.append((n, toks))
            continue
        first = toks[0]
        closing = 0
        for t in toks:
            if t.value != "}" or _at(t) in shape.set_braces:
                break
            closing += 1
        block = INDENT * max(0, depth - closing)
        if (closing or last_code is None or _at(first) in shape.starts
                or (first.value == "{" and _at(first) not in shape.set_braces)
                or (first.value in ("elif", "else") and last_code.value == "}")):
            indent = stmt_indent = block
        else:
            open_here = brackets - (first.value in (")", "]") or _at(first) in shape.set_braces)
            indent = stmt_indent + CONTINUATION * (1 + max(0, open_here))
        _flush(pending, out, INDENT * depth if closing else indent, comment_col)
        pending = []
        code = indent
        prev = None
        for t in toks:
            if t.type == "COMMENT":
                column = t.column - 1
                gap = column - len(code) if column - len(code) >= 1 else 2
                comment_col[n] = (column, len(code) + gap)
                code += " " * gap + t.value.rstrip()
                continue
            if prev is not None:
                code += _space(prev, t, shape)
            code += t.value
            prev = last_code = t
            if t.value in ("(", "[") or (t.value == "{" and _at(t) in shape.set_braces):
                brackets += 1
            elif t.value in (")", "]") or (t.value == "}" and _at(t) in shape.set_braces):
                brackets -= 1
            elif t.value == "{":
                depth += 1
                stmt_indent = INDENT * depth
            elif t.value == "}":
                depth -= 1
                stmt_indent = INDENT * max(0, depth)
        out.append(code)
    _flush(pending, out, "", comment_col)
    while out and out[-1] == "":
        out.pop()
    while out and out[0] == "":
        out.pop(0)
    result = "\n".join(out) + "\n" if out else ""
    if [(t.type, t.value.rstrip()) for t in _tokens(result)] != [(t.type, t.value.rstrip()) for t in tokens]:
        raise AssertionError("the formatter changed the tokens of the program")  # a bug, never the user's
    return result


def _flush(pending: list, out: list, indent: str, comment_col: dict) -> None:
    """Write the comment-only (and blank) lines held before a line of code indented `indent`."""
    for n, toks in pending:
        if toks is None:
            if out and out[-1] != "":
                out.append("")
            continue
        comment = toks[0]
        above = comment_col.get(n - 1)
        if above is not None and above[0] == comment.column - 1:  # it continues the comment above
            comment_col[n] = above
            out.append(" " * above[1] + comment.value.rstrip())
        else:
            out.append(indent + comment.value.rstrip())
