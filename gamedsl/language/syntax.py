"""Builds the Lark parser once and turns raw parse errors into gamedsl diagnostics."""
from __future__ import annotations

import functools
import hashlib
import importlib
import io
import pickle
import re
import sys
import types

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.parsers import lalr_analysis

from ..errors import Diagnostic, SourceError, Span
from .grammar_file import grammar_text
from .progress import checkpoint
from .slips import KEYWORD_HINTS, character_slip, open_paren, token_slip, unclosed

# How a user would name each kind of token, instead of Lark's terminal names.
_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": 'a string in double quotes',
    "$END": "the end of the file",
}
_EXPRESSION_STARTS = {"NAME", "INT", "STRING", "LPAR", "LSQB", "TRUE", "FALSE", "MINUS", "IF", "NOT"}
_MAX_ERRORS = 20


_OPTIONS = {"parser": "lalr", "start": ["start", "expr"], "propagate_positions": True, "maybe_placeholders": True}


@functools.cache
def _keywords() -> tuple[str, ...]:
    """The words of the language (the grammar's terminals that are words)."""
    return tuple(sorted(t.pattern.value for t in parser().terminals if isinstance(t.pattern, lark.lexer.PatternStr)
                        and t.pattern.value.isalpha()))


@functools.cache
def parser() -> lark.Lark:
    """The LALR parser, with positions on every node, of a whole file (`parse(text, start="start")`)
    and of one expression (`start="expr"`: a value inside a message's braces, build.py). One parser
    for both: loading it is a good part of checking a file after an edit.

    Lark keeps the parser it builds from the grammar in a cache of its own, in a form it takes
    30 ms to make the parser from again; gamedsl's cache (cache.parser) keeps the parser made, pickled,
    which loads in a few. Without gamedsl's cache, or when that copy cannot be made, Lark's own serves."""
    from . import cache
    key = hashlib.sha256(f"{lark.__version__} {sys.version_info[:2]} {sorted(_OPTIONS.items())}\0{grammar_text()}"
                         .encode()).hexdigest()
    data = cache.parser(key)
    if data is not None:
        try:
            found = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a copy that does not read back is made again
            found = None
        if isinstance(found, lark.Lark):
            return found
    made = lark.Lark(grammar_text(), **_OPTIONS, cache=True)
    data = _pickled(made)
    if data is not None:
        cache.store_parser(key, data)
    return made


class _Pickler(pickle.Pickler):
    """Pickles a Lark parser: a module it holds (`re`) is named, not copied, and so are the two actions
    of its parse table, which Lark tells apart by identity (`action is Shift`)."""

    def reducer_override(self, obj):
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if isinstance(obj, lalr_analysis.Action) and getattr(lalr_analysis, obj.name, None) is obj:
            return getattr, (lalr_analysis, obj.name)
        return NotImplemented


def _pickled(made: lark.Lark) -> bytes | None:
    """A parser not yet used, pickled; None when it cannot be, or its copy's parse table is not the
    same as its own (the table's actions included: Shift and Reduce compare by identity)."""
    try:
        out = io.BytesIO()
        _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(made)
        back = pickle.loads(out.getvalue())
        same = back.parser.parser.parser.parse_table.states == made.parser.parser.parser.parse_table.states
    except Exception:  # noqa: BLE001 - Lark's own cache serves instead
        return None
    return out.getvalue() if same else None


def describe_token(token) -> str:
    """A token as the user wrote it."""
    if token.type == "$END":
        return "the end of the file"
    return f"'{token.value}'"


def describe_expected(expected) -> str:
    """The set of expected terminals in the user's words."""
    terms = parser().terminals
    by_name = {t.name: t for t in terms}
    names = set(expected)
    words = []
    if {"NAME", "INT", "LPAR"} <= names:
        names -= _EXPRESSION_STARTS
        words.append("an expression")
    for name in sorted(names):
        if name in _WORDS:
            words.append(_WORDS[name])
        elif name in by_name and isinstance(by_name[name].pattern, lark.lexer.PatternStr):
            words.append(f"'{by_name[name].pattern.value}'")
        else:
            words.append(name.lower())
    words = sorted(set(words), key=lambda w: (not w.startswith(("a ", "an ")), w))
    described = [w for w in words if w.startswith(("a ", "an "))]
    quoted = [w for w in words if not w.startswith(("a ", "an "))]
    if len(quoted) > 8:
        quoted = quoted[:8] + ["..."]
    if not quoted:
        return " or ".join(described)
    if len(quoted) == 1 and not described:
        return quoted[0]
    listed = ("one of " if len(quoted) > 1 else "") + ", ".join(quoted)
    return ", or ".join(described + [listed]) if described else listed


def _diagnostic(err: UnexpectedInput, lines: list[str] = ()) -> Diagnostic:
    if isinstance(err, UnexpectedCharacters):
        ch = err.char if hasattr(err, "char") else "?"
        span = Span(err.line, err.column, err.line, err.column + 1)
        if ch == '"':  # the only place a lone '"' is met: a string not closed on its line
            return Diagnostic("this string is not closed: a '\"' is missing at its end", span,
                              "a string ends on the line it begins")
        slip = character_slip(ch, list(lines), err.line, err.column)
        if slip is not None:
            return slip
        hint = "strings use double quotes" if ch == "'" else None
        return Diagnostic(f"unexpected character '{ch}'", span, hint)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        line = getattr(tok, "line", None) or err.line or 1
        col = getattr(tok, "column", None) or err.column or 1
        width = len(str(tok.value)) if tok.type != "$END" else 1
        span = Span(line, col, line, col + max(1, width))
        slip = token_slip(err, list(lines), _keywords())
        if slip is not None:
            return slip
        hint = None
        if tok.type == "NAME" and tok.value in KEYWORD_HINTS:
            hint = KEYWORD_HINTS[tok.value]
        elif {"SET", "ADD_SET"} <= set(err.expected):
            hint = "a statement that starts with a name assigns to it, as in 'x = 1': is a word too many just before?"
        elif "COMMA" in err.expected and tok.type in ("NAME", "INT", "STRING"):
            hint = "is a ',' missing between two values?"
        if tok.type == "$END" and "RBRACE" in err.expected:
            return Diagnostic("the file ends inside a block: a '}' is missing", span)
        return Diagnostic(f"expected {describe_expected(err.expected)}, found {describe_token(tok)}", span, hint)
    if isinstance(err, UnexpectedEOF):
        return Diagnostic(f"unexpected end of the file: expected {describe_expected(err.expected)}", Span(err.line or 1, err.column or 1))
    return Diagnostic(str(err).splitlines()[0], Span(getattr(err, "line", 1) or 1, getattr(err, "column", 1) or 1))


def declarations(text: str, lenient: bool = False) -> list[tuple[int, str]] | None:
    """The file cut into its top-level declarations: (first line, 1-based; text) each, the comments
    and blank lines before a declaration with it. A declaration begins at a line that starts with a
    letter outside every bracket, string and comment; None when the brackets do not balance. A
    lenient cut (for a file whose brackets do not balance: a '}' or ')' left out) begins one at
    every line that starts with a letter."""
    lines = text.split("\n")
    if lenient:
        starts = [0] + [i for i, line in enumerate(lines) if i and line[:1].isalpha()] + [len(lines)]
        return [(a + 1, "\n".join(lines[a:b])) for a, b in zip(starts, starts[1:])]
    starts, depth = [0], 0
    for i, line in enumerate(lines):
        if i and depth == 0 and line[:1].isalpha():
            starts.append(i)
        quoted = False
        for ch in line:
            if quoted:
                quoted = ch != '"'
            elif ch == '"':
                quoted = True
            elif ch == "#":
                break
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth < 0:
                    return None
    if depth:
        return None
    starts.append(len(lines))
    return [(a + 1, "\n".join(lines[a:b])) for a, b in zip(starts, starts[1:])]


# The trees of the declarations of each file's last parse, in memory (by first line and text, with
# their flat form) and the keys the cache on disk holds for it: a language server's check of a
# change reads nothing from disk.
_LAST: dict[str, tuple[dict, frozenset]] = {}


@functools.cache
def _declaration_words() -> frozenset[str]:
    """The words a top-level declaration begins with (a variable's may begin with its visibility)."""
    return frozenset(re.findall(r'^\w+_decl: "([a-z_]+)"', grammar_text(), re.MULTILINE)) | \
        {"var", "hidden", "owner", "public"}


def _begins_declaration(piece: tuple[int, str]) -> bool:
    """Whether a piece of the file (declarations()) begins with a declaration's word: if each does,
    no piece can be a line of the one before it."""
    code = next((line for line in piece[1].split("\n") if line.strip() and not line.lstrip().startswith("#")), None)
    word = re.match(r"[a-z_]+", code or "")
    return code is None or (word is not None and word[0] in _declaration_words())  # (comments only: nothing to join)


def _in_pieces(pieces: list, filename: str) -> tuple[lark.Tree | None, list]:
    """The file's tree parsed declaration by declaration, each reused from the cache when its text and
    first line are unchanged; or None and the declarations that do not parse alone, (index, error)
    each (one that parses with the next is taken with it: a line of it began at the first column)."""
    from . import cache
    recent, stored = _LAST.get(filename, ({}, None))
    known = None  # the cache on disk, read when a declaration is new to memory
    made, children, failed = {}, [], []
    k = 0
    while k < len(pieces):
        checkpoint()  # (a language server's check of an older text stops here)
        key = first, piece = pieces[k]
        k += 1
        if key in recent:
            made[key] = recent[key]
            children += made[key][0].children
            continue
        if known is None:
            known = cache.trees(filename)
            stored = frozenset(known)
        flat = known.get(key)
        if flat is None:
            try:
                tree = parser().parse("\n" * (first - 1) + piece, start="start")
            except UnexpectedInput as err:
                joined = piece + "\n" + pieces[k][1] if k < len(pieces) else None
                try:
                    tree = parser().parse("\n" * (first - 1) + joined, start="start") if joined else None
                except UnexpectedInput:
                    tree = None
                if tree is None:
                    failed.append((k - 1, err))
                    continue
                key, piece, k = (first, joined), joined, k + 1
            try:
                flat = _flat(tree)
            except RecursionError:
                pass  # nested too deeply to keep: parsed again next time
        else:
            tree = _built(flat)
        for n, child in enumerate(tree.children):  # (build.py keeps what it built of each, by this key)
            child.meta.piece = (first, piece, n)
        made[key] = (tree, flat)
        children += tree.children
    kept = {key: flat for key, (_, flat) in made.items() if flat is not None}
    if stored is None or kept.keys() != stored:
        cache.store_trees(filename, kept)
        stored = frozenset(kept)
    if len(_LAST) > 8:
        _LAST.clear()
    _LAST[filename] = ({key: x for key, x in made.items() if x[1] is not None}, stored)
    if failed:
        return None, failed
    tree = lark.Tree("start", children)
    if children:  # the whole file's positions, as a parse of it gives them
        first_meta, last_meta = children[0].meta, children[-1].meta
        for name in ("line", "column", "start_pos"):
            setattr(tree.meta, name, getattr(first_meta, name))
        for name in ("end_line", "end_column", "end_pos"):
            setattr(tree.meta, name, getattr(last_meta, name))
        tree.meta.empty = False
    return tree, []


def _flat(x):
    """A tree as lists and tuples of plain values (marshal keeps them; pickle would lose a token's
    end position)."""
    if isinstance(x, lark.Token):
        return (x.type, str(x), x.start_pos, x.line, x.column, x.end_line, x.end_column, x.end_pos)
    if x is None:
        return None
    m = x.meta
    where = None if m.empty else (m.line, m.column, m.end_line, m.end_column, m.start_pos, m.end_pos)
    return [str(x.data), where, [_flat(c) for c in x.children]]  # (lark names a rule by a Token: a str to marshal)


def _built(flat):
    """The tree a _flat form was made of."""
    if flat is None:
        return None
    if isinstance(flat, tuple):
        return lark.Token(*flat)
    data, where, children = flat
    tree = lark.Tree(data, [_built(c) for c in children])
    if where is not None:
        m = tree.meta
        m.line, m.column, m.end_line, m.end_column, m.start_pos, m.end_pos = where
        m.empty = False
    return tree


def _missing_brace(lines: list[str], last: int, word: str, line: int) -> Diagnostic:
    """A '}' missing in the declaration that reaches line `last`, found when `word` on `line` began
    the next one: said at the end of the block left open, naming it."""
    found = unclosed(lines, last)
    if found is None:
        col = len(lines[last - 1].rstrip()) + 1
        return Diagnostic(f"a block is not closed: a '}}' is missing before '{word}' on line {line}",
                          Span(last, col, last, col + 1))
    opener, name, inside, closing = found
    col = len(lines[inside - 1].split("#", 1)[0].rstrip()) + 1
    where = f"the '}}' on line {closing}" if closing else f"'{word}' on line {line}"
    return Diagnostic(f"the block of '{name}' (line {opener}) is not closed: a '}}' is missing before {where}",
                      Span(inside, col, inside, col + 1))


def _piece_errors(pieces: list, failed: list, lines: list[str]) -> list[Diagnostic]:
    """The first syntax error of each declaration that does not parse alone, at its place; a
    declaration that ends too soon (a half-typed one, a '}' or ')' left out at its end) is reported
    after its last word."""
    found = []
    for k, err in failed[:_MAX_ERRORS]:
        first, piece = pieces[k]
        d = _diagnostic(err, lines)
        tok = getattr(err, "token", None)
        if isinstance(err, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
            last = first + piece.count("\n")
            while last > first and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
                last -= 1
            code = lines[last - 1].split("#", 1)[0].rstrip()
            expected = set(getattr(err, "expected", ()) or ())
            after = next(((first + n, line.split()[0]) for n, line in enumerate(pieces[k + 1][1].split("\n"))
                          if line.strip() and not line.lstrip().startswith("#")), None) if k + 1 < len(pieces) \
                else None
            if "RBRACE" in expected and after:
                d = _missing_brace(lines, last, after[1], after[0] + pieces[k + 1][0] - first)
            elif "RBRACE" in expected:
                d = Diagnostic("the file ends inside a block: a '}' is missing", Span(last, len(code) + 1, last,
                                                                                     len(code) + 2))
            elif "RPAR" in expected and open_paren(code):
                d = Diagnostic(f"a ')' is missing at the end of this line: the '(' at column {open_paren(code)} "
                               "is not closed", Span(last, len(code) + 1, last, len(code) + 2))
            else:
                what = describe_expected(expected)
                d = Diagnostic(f"expected {what} before '{after[1]}'" if after else
                               f"expected {what}, found the end of the file",
                               Span(last, len(code) + 1, last, len(code) + 2), d.hint)
        found.append(d)
    return found


def parse_expression(source: str, line: int, column: int, end: int):
    """One expression written inside a message at `line`, from `column` to `end` (the column of the
    '}' closing it): its tree, or a Diagnostic placed in the file. The text is parsed at its own
    place (after as many line breaks and spaces), so every position in the tree is the file's."""
    text = "\n" * (line - 1) + " " * (column - 1) + source
    try:
        return parser().parse(text, start="expr"), None
    except UnexpectedInput as err:
        tok = getattr(err, "token", None)
        if isinstance(err, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
            expected = describe_expected(getattr(err, "expected", ()) or ())
            return None, Diagnostic(f"the value in braces is not complete: expected {expected} before '}}'",
                                    Span(line, end, line, end + 1))
        d = _diagnostic(err, text.split("\n"))
        return None, Diagnostic(d.message, d.span, d.hint or "a message writes a value as {EXPRESSION}, "
                                "and a brace itself as '{{' or '}}'")


def parse(text: str, filename: str = "<string>") -> lark.Tree:
    """Parse a .game source into a Lark tree, or raise SourceError with every syntax error found.

    A file is parsed declaration by declaration (declarations()), and a declaration whose text and
    line are those of the file's last parse is taken from memory or the cache (cache.trees): after
    an edit to one rule, only it is parsed again. A file whose brackets do not balance is cut at
    every line that begins with a letter. Each declaration that does not parse alone is reported
    once, at its place (so a half-typed one never spills into the next); the whole file is parsed
    at once only when a piece might be a line of the declaration before it.
    """
    lines = text.split("\n")
    pieces = declarations(text) or declarations(text, lenient=True)
    tree, failed = _in_pieces(pieces, filename)
    if tree is not None:
        return tree
    if not all(map(_begins_declaration, pieces)):  # a line of a declaration may begin at the first column
        try:
            return parser().parse(text, start="start")
        except UnexpectedInput:
            pass
    # each declaration's own errors, at their places: one half-typed cannot spill into the next
    raise SourceError(filename, text, _piece_errors(pieces, failed, lines))
