"""Builds the Lark parser once and turns raw parse errors into gamedsl diagnostics."""
from __future__ import annotations

import functools
import hashlib
import importlib
import io
import pickle
import sys
import types

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.parsers import lalr_analysis

from ..errors import Diagnostic, SourceError, Span
from .grammar_file import grammar_text
from .progress import checkpoint
from .slips import KEYWORD_HINTS, character_slip, is_declaration_start, token_slip, unclosed

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


def declarations(text: str) -> list[tuple[int, str]] | None:
    """The file cut into its top-level declarations: (first line, 1-based; text) each, the comments
    and blank lines before a declaration with it. A declaration begins at a line that starts with a
    letter outside every bracket, string and comment; None when the brackets do not balance (the
    whole file is parsed then, with its errors)."""
    lines = text.split("\n")
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


def _in_pieces(text: str, filename: str) -> lark.Tree | None:
    """The file's tree parsed declaration by declaration, each reused from the cache when its text and
    first line are unchanged; None when a declaration does not parse alone (the caller parses the
    whole file, and reports its errors)."""
    from . import cache
    pieces = declarations(text)
    if pieces is None:
        return None
    known = cache.trees(filename)
    made, children = {}, []
    for first, piece in pieces:
        checkpoint()  # (a language server's check of an older text stops here)
        flat = known.get((first, piece))
        if flat is None:
            try:
                tree = parser().parse("\n" * (first - 1) + piece, start="start")
            except UnexpectedInput:
                return None
            try:
                made[(first, piece)] = _flat(tree)
            except RecursionError:
                pass  # nested too deeply to keep: parsed again next time
        else:
            made[(first, piece)] = flat
            tree = _built(flat)
        children += tree.children
    if made.keys() != known.keys():
        cache.store_trees(filename, made)
    tree = lark.Tree("start", children)
    if children:  # the whole file's positions, as a parse of it gives them
        first_meta, last_meta = children[0].meta, children[-1].meta
        for name in ("line", "column", "start_pos"):
            setattr(tree.meta, name, getattr(first_meta, name))
        for name in ("end_line", "end_column", "end_pos"):
            setattr(tree.meta, name, getattr(last_meta, name))
        tree.meta.empty = False
    return tree


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


def _blank_declaration(lines: list[str], line: int) -> bool:
    """Blank the top-level declaration around a line (keeping line numbers); False if nothing changed."""
    first = min(line, len(lines))
    while first > 1 and not is_declaration_start(lines[first - 1]):
        first -= 1
    last = first + 1
    while last <= len(lines) and not is_declaration_start(lines[last - 1]):
        last += 1
    changed = any(lines[i].strip() for i in range(first - 1, last - 1))
    for i in range(first - 1, last - 1):
        lines[i] = ""
    return changed


def _at_previous_line(d: Diagnostic, err, lines: list[str]) -> Diagnostic:
    """An error found at the first word of a declaration belongs to the line before it."""
    tok = getattr(err, "token", None)
    if tok is None or tok.type == "$END" or d.span.column != 1 or d.span.line < 2:
        if tok is not None and tok.type == "$END":
            return _at_end(d, lines)
        return d
    if not is_declaration_start(lines[d.span.line - 1]):
        return d
    prev = d.span.line - 1
    while prev > 1 and (not lines[prev - 1].strip() or lines[prev - 1].lstrip().startswith("#")):
        prev -= 1  # (blank lines and the comments of the next declaration are not where it went wrong)
    col = len(lines[prev - 1].rstrip()) + 1
    message = d.message.replace(", found ", " before ")
    if "RBRACE" in err.expected:
        return _missing_brace(lines, prev, lines[d.span.line - 1].split()[0], d.span.line)
    return Diagnostic(message, Span(prev, col, prev, col + 1), d.hint)


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


def _piece_errors(pieces: list, lines: list[str]) -> list[Diagnostic]:
    """The first syntax error of each declaration that does not parse alone, at its place; a
    declaration that ends too soon (a half-typed one) is reported after its last word."""
    found = []
    for k, (first, piece) in enumerate(pieces):
        try:
            parser().parse("\n" * (first - 1) + piece, start="start")
        except UnexpectedInput as err:
            d = _diagnostic(err, lines)
            tok = getattr(err, "token", None)
            if isinstance(err, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
                last = first + piece.count("\n")
                while last > first and (not lines[last - 1].strip() or lines[last - 1].lstrip().startswith("#")):
                    last -= 1
                code = lines[last - 1].split("#", 1)[0].rstrip()
                expected = describe_expected(getattr(err, "expected", ()) or ())
                after = next((line.split()[0] for line in pieces[k + 1][1].split("\n")
                              if line.strip() and not line.lstrip().startswith("#")), None) if k + 1 < len(pieces) \
                    else None
                d = Diagnostic(f"expected {expected} before '{after}'" if after else
                               f"expected {expected}, found the end of the file",
                               Span(last, len(code) + 1, last, len(code) + 2), d.hint)
            found.append(d)
            if len(found) >= _MAX_ERRORS:
                break
    return found


def _in_unfinished(err, lines: list[str]) -> Diagnostic | None:
    """An error met in a declaration that began after the word before it (a half-typed `def` on a
    line of its own, the next rule's first words read as its name): the unfinished declaration is
    the mistake, reported at its last word (else each declaration after it would be, in turn)."""
    tok, history = getattr(err, "token", None), getattr(err, "token_history", None) or []
    if tok is None or tok.type == "$END" or not history or not getattr(tok, "line", None):
        return None
    before = history[-1]
    if not getattr(before, "line", None) or not getattr(before, "column", None) or tok.line > len(lines):
        return None
    start = tok.line
    while start > 1 and not is_declaration_start(lines[start - 1]):
        start -= 1
    if before.line > start or (before.line == start and (before.column != 1 or start < 2)):
        return None
    if before.line == start:  # the declaration's own first word was read as the unfinished one's next word
        prev = start - 1
        while prev > 1 and (not lines[prev - 1].strip() or lines[prev - 1].lstrip().startswith("#")):
            prev -= 1
        text = lines[prev - 1].split("#", 1)[0].rstrip()
        word = text.split()[-1] if text.split() else ""
        return Diagnostic(f"'{text.strip()}' is not finished: the next line begins another declaration",
                          Span(prev, len(text) - len(word) + 1, prev, len(text) + 1))
    expected = describe_expected(err.expected)
    end = before.column + len(str(before.value))
    return Diagnostic(f"'{before.value}' is not finished: expected {expected} after it",
                      Span(before.line, before.column, before.line, end))


def _at_end(d: Diagnostic, lines: list[str]) -> Diagnostic:
    """An unexpected end of file is shown just after the last word."""
    last = len(lines)
    while last > 1 and not lines[last - 1].strip():
        last -= 1
    col = len(lines[last - 1].rstrip()) + 1
    return Diagnostic(d.message, Span(last, col, last, col + 1), d.hint)


# Words that can only start a declaration, never a statement ('end' and 'hidden' can do both).
_TOP_LEVEL = {"game", "players", "option", "limit", "heuristic", "invariant", "attribute", "cards", "value",
              "zone", "var", "param", "def", "action", "on", "modifier", "setup", "round", "outcome",
              "extends", "remove"}


def _unclosed_blocks(lines: list[str]) -> list[Diagnostic]:
    """Find a declaration that starts (at column 1) while a block is still open: a '}' is missing.

    The open declaration is blanked, so the parser reports the rest of the file on its own.
    """
    out = []
    depth, start = 0, 0
    for i, line in enumerate(lines):
        words = line.split()
        starts_declaration = words and (words[0].rstrip("{") in _TOP_LEVEL or (
            words[0] in ("hidden", "owner", "public") and len(words) > 1 and words[1] == "var")) and not (
            len(words) > 1 and words[1] in ("=", "+=", "-=", "*=", "."))  # an assignment: value = 3
        if depth > 0 and starts_declaration and not line[0].isspace():
            prev = i
            while prev > 0 and (not lines[prev - 1].strip() or lines[prev - 1].lstrip().startswith("#")):
                prev -= 1  # (blank lines and the comments of the next declaration are not where it went wrong)
            out.append(_missing_brace(lines, prev, words[0], i + 1))
            for k in range(start, i):
                lines[k] = ""
            depth = 0
        if depth == 0 and line.strip() and not line[0].isspace():
            start = i
        code = line.split("#", 1)[0]
        code = "".join(code.split('"')[::2])  # braces inside strings do not count
        depth += code.count("{") - code.count("}")
    return out


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

    A file is parsed declaration by declaration, and a declaration whose text and line are those of
    the file's last parse is taken from the cache (cache.trees): after an edit to one rule, only it
    is parsed again. After an error, the top-level declaration holding it is blanked out and the
    rest is parsed again, so each broken declaration is reported once and errors do not cascade.
    """
    found = _in_pieces(text, filename)
    if found is not None:
        return found
    try:
        return parser().parse(text, start="start")
    except UnexpectedInput:
        pass  # look for every error, below
    lines = text.split("\n")
    pieces = declarations(text)
    if pieces is not None:  # each declaration's own errors: one half-typed cannot spill into the next
        found = _piece_errors(pieces, lines)
        if found:
            raise SourceError(filename, text, found)
    diagnostics = _unclosed_blocks(lines)  # only for a file that does not parse: layout is a hint, not a rule
    while len(diagnostics) < _MAX_ERRORS:
        try:
            tree = parser().parse("\n".join(lines), start="start")
        except UnexpectedInput as err:
            d = _in_unfinished(err, lines) or _at_previous_line(_diagnostic(err, lines), err, lines)
            diagnostics.append(d)
            if not _blank_declaration(lines, d.span.line):
                break
            continue
        if not diagnostics:
            return tree
        break
    raise SourceError(filename, text, diagnostics)
