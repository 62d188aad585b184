"""The slips of the pen behind syntax errors: a word misspelt, another language's operator, a `)`
or `}` left out. Each function looks at one parse error (Lark's) and the file's lines and, when it
recognises the slip, says it in the designer's words at the place it was made; None otherwise
(syntax.py then says what was expected and found)."""
from __future__ import annotations

import difflib
import re

import attrs

from ..errors import Diagnostic, Span

KEYWORD_HINTS = {
    "else": "'else' must follow the closing '}' of an 'if' block",
    "elif": "'elif' must follow the closing '}' of an 'if' block",
}
# the words that begin a statement, and how other languages spell some of them
STATEMENT_WORDS = ("if", "elif", "else", "while", "repeat", "for each", "let", "move", "deal", "shuffle", "gather",
                   "choose", "turn", "say", "reveal", "win", "lose", "end", "eliminate", "places", "grade")
_SPELT_ELSEWHERE = {"elsif": "elif", "elseif": "elif", "foreach": "for each", "for_each": "for each",
                    "forEach": "for each", "def": None, "return": None}
# operators of other languages, as the lexer meets their first character
_OTHER_OPERATORS = {"&&": "and", "||": "or", "&": "and", "|": "or", "!": "not"}


def statement_word(name: str) -> str | None:
    """The statement word a name that starts a statement was likely meant to be (`whle`: 'while')."""
    if name in _SPELT_ELSEWHERE:
        return _SPELT_ELSEWHERE[name]
    close = difflib.get_close_matches(name, STATEMENT_WORDS, n=1, cutoff=0.75)
    return close[0] if close and close[0] != name else None


def character_slip(ch: str, lines: list[str], line: int, column: int) -> Diagnostic | None:
    """`&&`, `||` or `!x`: another language's operator, named with this one's word."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    two = text[column - 1:column + 1]
    written = two if two in _OTHER_OPERATORS else ch
    if written not in _OTHER_OPERATORS or (written == "!" and two == "!="):
        return None
    meant = _OTHER_OPERATORS[written]
    return Diagnostic(f"'{written}' is not an operator of the language: did you mean '{meant}'?",
                      Span(line, column, line, column + len(written)))


def _at(tok) -> bool:
    return bool(getattr(tok, "line", None) and getattr(tok, "column", None))


def token_slip(err, lines: list[str], keywords) -> Diagnostic | None:
    """The slip an unexpected token most likely is, or None. `keywords`: the grammar's words."""
    tok, expected = err.token, set(err.expected)
    before = (getattr(err, "token_history", None) or [None])[-1] or _word_before(lines, tok)
    if not _at(tok) or before is None or not _at(before):
        return None
    text = lines[tok.line - 1] if tok.line <= len(lines) else ""
    adjacent = before.line == tok.line and before.end_column == tok.column
    here = Span(tok.line, tok.column, tok.line, tok.column + len(str(tok.value)))
    if {"SET", "ADD_SET"} <= expected and before.type == "NAME" and statement_word(before.value):
        # `whle x > 0 {`: a statement's word misspelt, read as a name being assigned to
        return Diagnostic(f"'{before.value}' is not a statement: did you mean '{statement_word(before.value)}'?",
                          Span(before.line, before.column, before.line, before.end_column))
    if {"SET", "ADD_SET"} <= expected and before.value in KEYWORD_HINTS:  # `elif` with no `if` block just before
        return Diagnostic(f"'{before.value}' without an 'if' block just before it",
                          Span(before.line, before.column, before.line, before.end_column), KEYWORD_HINTS[before.value])
    if before.value == "=" and adjacent and tok.value in ("+", "-", "*"):  # `n =+ 1`
        return Diagnostic(f"'={tok.value}' is not an operator: did you mean '{tok.value}='?",
                          Span(tok.line, before.column, tok.line, tok.column + 1))
    if before.value == "=" and adjacent and tok.value == "=":  # `named == k` as a statement
        return Diagnostic("'==' compares two values: did you mean '=', which sets one?",
                          Span(tok.line, before.column, tok.line, tok.column + 1))
    if tok.value == "=" and text[tok.column:tok.column + 1] in ("<", ">"):  # `=<`, `=>`
        op = text[tok.column]
        return Diagnostic(f"'={op}' is not an operator: did you mean '{op}='?",
                          Span(tok.line, tok.column, tok.line, tok.column + 2))
    if tok.value == "=" and "COMPARE" in expected:  # `if n = 1`
        return Diagnostic("'=' in a condition: did you mean '=='?", here, "'=' sets a value; '==' compares two")
    if tok.value == ")" and "RPAR" not in expected:
        return Diagnostic("this ')' closes no '('", here)
    if "RPAR" in expected and tok.value == "{" and open_paren(text[:tok.column - 1]):  # `(c in me.hand {`
        return Diagnostic(f"a ')' is missing before '{{': the '(' at column {open_paren(text[:tok.column - 1])} "
                          "is not closed", here)
    if "RPAR" in expected and tok.line > before.line:  # a `(` left open at the end of its line
        found = open_paren(lines[before.line - 1])
        if found is not None:
            end = len(lines[before.line - 1].split("#", 1)[0].rstrip()) + 1
            return Diagnostic(f"a ')' is missing at the end of this line: the '(' at column {found} is not closed",
                              Span(before.line, end, before.line, end + 1))
    if before.type == "INT" and adjacent and tok.value == "-" and "MINUS" not in expected:  # `players 3-4`
        return Diagnostic(f"'{before.value}-': did you mean '{before.value} to', as in 'players 2 to 4'?",
                          Span(tok.line, before.column, tok.line, tok.column + 1))
    statement = text.lstrip().split(" ", 1)[0]
    if before.type == "NAME" and before.line == tok.line and statement in ("attribute", "value", "option") \
            and ":" in text[:before.column - 1] and not text[:before.column - 1].rstrip().endswith((",", ":")):
        return Diagnostic(f"a ',' is missing before '{before.value}'",  # `clubs "♣" spades "♠"`
                          Span(before.line, before.column, before.line, before.end_column))
    if tok.value == "{" and "STRING" in expected:  # `say {p} wins`
        return Diagnostic("expected a string in double quotes, found '{'", here,
                          'a message is written in double quotes, its values in braces: say "{p} wins"')
    if before.type == "NAME" and before.line == tok.line:
        operand = re.search(r"(\w+|\))\s*$", text[:before.column - 1])  # what `x` follows: a value, not `let`
        if before.value in ("x", "X") and tok.type in ("INT", "NAME", "LPAR") and operand \
                and operand[1] not in keywords:  # `c.rank x 10`
            return Diagnostic("'x' is not an operator: did you mean '*'?",
                              Span(before.line, before.column, before.line, before.end_column))
        close = difflib.get_close_matches(before.value, [k for k in keywords if len(k) >= 4], n=1, cutoff=0.8)
        dotted = text[:before.column - 1].endswith(".")  # `me.hand`: a name of the game's, not a misspelt word
        if close and before.value not in keywords and not dotted:  # `race cover amongst players`
            return Diagnostic(f"'{before.value}' is not a word of the language here: did you mean '{close[0]}'?",
                              Span(before.line, before.column, before.line, before.end_column))
    return None


@attrs.frozen
class _Written:
    """A token as the text shows it (Lark keeps no history of the tokens before some errors)."""

    type: str
    value: str
    line: int
    column: int

    @property
    def end_column(self) -> int:
        return self.column + len(self.value)


_TOKEN = re.compile(r'[A-Za-z_]\w*|\d+|"[^"\n]*"|==|!=|<=|>=|\+=|-=|\*=|\S')


def _word_before(lines: list[str], tok) -> _Written | None:
    """The token written just before `tok`, on its line or the lines above (not in a comment)."""
    if not _at(tok):
        return None
    for line in range(tok.line, max(tok.line - 50, 0), -1):
        text = lines[line - 1] if line <= len(lines) else ""
        code = text[:tok.column - 1] if line == tok.line else text
        code = re.sub(r'"[^"\n]*"|#.*', lambda m: m[0] if m[0].startswith('"') else "", code)
        found = list(_TOKEN.finditer(code))
        if found:
            last = found[-1]
            kind = "NAME" if last[0][0].isalpha() or last[0][0] == "_" else "INT" if last[0].isdigit() else "OP"
            return _Written(kind, last[0], line, last.start() + 1)
    return None


def open_paren(line: str) -> int | None:
    """The column of the first '(' of a line of code not closed on it, or None."""
    code = re.sub(r'"[^"\n]*"', lambda m: " " * len(m[0]), line).split("#", 1)[0]
    opened = []
    for k, ch in enumerate(code, 1):
        if ch == "(":
            opened.append(k)
        elif ch == ")" and opened:
            opened.pop()
    return opened[0] if opened else None


def is_declaration_start(line: str) -> bool:
    return bool(line) and not line[0].isspace() and line[0] not in "#}"


def unclosed(lines: list[str], last: int) -> tuple[int, str, int, int | None] | None:
    """The block not closed in the declaration that reaches line `last`: the line it opens on, its
    name (the words before its '{', or the declaration's first words for the declaration's own
    block), the last line of code inside it, where its '}' is missing, and the line of the '}' that
    closed an outer block instead (None if none did); None if every block is closed. Blocks are matched by layout too: a '}' that begins a line less indented than the line
    that opened the innermost block closes an outer one, so the innermost is the one left open (an
    `if x {` whose '}' was forgotten, inside an action)."""
    first = last
    while first > 1 and not is_declaration_start(lines[first - 1]):
        first -= 1
    stack: list[tuple[int, int]] = []  # (line, indentation of its statement) of each block open
    left_open: list[tuple[int, int]] = []  # (line it opened, line of the '}' that closed an outer block)
    last_code: dict[int, int] = {}
    for k in range(first, last + 1):
        code = re.sub(r'"[^"\n]*"', '""', lines[k - 1]).split("#", 1)[0]
        indent = len(code) - len(code.lstrip())
        for ch in code:
            if ch == "{":
                stack.append((k, indent if stack else 0))
            elif ch == "}" and stack:
                while len(stack) > 1 and code.lstrip().startswith("}") and stack[-1][1] > indent:
                    left_open.append((stack.pop()[0], k))
                stack.pop()
        if code.strip():
            for opened, at in stack:  # a line of a block: more indented than its statement (by layout)
                if k == opened or indent > at or not code.lstrip().startswith("}") and at == 0:
                    last_code[opened] = k
    if not left_open and not stack:
        return None
    opener, closing = left_open[0] if left_open else (stack[-1][0], None)
    if not left_open and len(stack) == 1:  # the declaration's own block
        words = lines[first - 1].split("#", 1)[0].split("{", 1)[0].split()
        name = " ".join(words[:2])
    else:
        name = lines[opener - 1].split("#", 1)[0].rsplit("{", 1)[0].strip()
        name = name if len(name) <= 30 else " ".join(name.split()[:2])
    return opener, name or "{", last_code.get(opener, opener), closing
