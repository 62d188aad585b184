"""The VS Code extension (editors/vscode/): its TextMate grammar run by the real engine, its
manifest, the .vsix its script builds, and its client.

The grammar is tokenized by vscode-textmate with the Oniguruma regular expressions compiled to
WebAssembly, the engine VS Code itself runs (tests/textmate/tokenize.js), over every .game file of
games/ and tests/. Every string, number, comment and keyword that gamedsl's own lexer (Lark, with
grammar/gamedsl.lark) finds must be scoped as such at the same columns, the values in a message's
braces as code, and nothing of a well-formed file may be scoped invalid. The keyword and built-in
lists of the grammar are checked against the language's.

Needs Node and npm: the npm packages of tests/textmate/ and editors/vscode/ are installed by the
tests when missing (`npm ci`, from their lock files). Without node or npm the tests are skipped,
and say so. No real VS Code runs here: the client is loaded with a stand-in for the `vscode` module.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import lark
import pytest

from gamedsl.language.builtins import _BARE
from gamedsl.language.context import BUILTINS
from gamedsl.language.declarations import ZONE_PROPS
from gamedsl.language.grammar_file import grammar_text

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"
GRAMMAR = EXTENSION / "syntaxes" / "gamedsl.tmLanguage.json"
HARNESS = ROOT / "tests" / "textmate"
GAME_FILES = sorted({*ROOT.glob("games/**/*.game"), *ROOT.glob("tests/**/*.game")})

KEYWORD_SCOPES = ("keyword.", "storage.", "constant.language.boolean.")
STRING = "string.quoted.double.gamedsl"
NUMBER = "constant.numeric.integer.gamedsl"
COMMENT = "comment.line.number-sign.gamedsl"
EMBEDDED = "meta.embedded.line.gamedsl"
CARD = "meta.literal.card.gamedsl"
BUILTIN = "support.function.builtin.gamedsl"

# A file that parses (it need not check) with what the games may not write: a '#' and braces in
# strings, a comment right after a number, a name with digits, characters beyond UTF-16's first
# plane (two units in JavaScript, one character in Python), card literals of every form.
EDGE_CASES = '''\
game "Edge # not a comment {{ nor this }}"   # a comment with "quotes" and {braces}
players 2 to 4
attribute rank: 10, J, Q
attribute suit: hearts "\u2665", spades "\u2660"
cards rank * suit where not (rank == 10 and suit == spades) times 2
zone deck: hidden, stack, transient
zone hand per player: owner
hidden var law_4C = 10#a comment right after a number
var points per player = -3 "points"
def best_of(p) = max(c.rank for c in p.hand)
action play "play {{literally}} #1" (c in me.hand)
    if c != card(10, hearts) and c == card( c.rank , spades ) "not {count(me.hand)} # cards" {
  say "{me} plays {c} # {if c.rank == 10 then 1 else 2}"
  say "\U0001F0CF {me} \U0001F0CF"; repeat 2 { points *= 1 }   # \U0001F0CF
  move c to deck at bottom
}
setup { shuffle deck }
round { for each p in players { turn p { choose play } } }
outcome { for each p in players { if p.points >= 10 % 3 { win p } else { lose p } } }
'''


# ---- node, npm and the packages ------------------------------------------------------------

def need_node(major: int = 0) -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found: the TextMate grammar and the VS Code extension "
                    "are tested with Node (apt-get install nodejs npm; .ci/run installs them)")
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < major:
        pytest.skip(f"Node {major} or later is needed (vsce packs the .vsix), and this is Node {version}")


def npm_ci(directory: Path) -> None:
    """Installs the packages of directory/package-lock.json when node_modules does not hold them yet."""
    need_node()
    lock = (directory / "package-lock.json").read_bytes()
    stamp = directory / "node_modules" / ".installed-from-lock"
    digest = hashlib.sha256(lock).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=directory,
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, f"npm ci in {directory} failed:\n{done.stdout}\n{done.stderr}"
    stamp.write_text(digest)


def tokenize(grammar: Path, files: list[Path]) -> dict[Path, list]:
    """{file: one list per line of (start, end, scopes)} from the real TextMate engine."""
    npm_ci(HARNESS)
    done = subprocess.run(["node", str(HARNESS / "tokenize.js"), str(grammar), *map(str, files)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return {Path(name): lines for name, lines in json.loads(done.stdout).items()}


@pytest.fixture(scope="module")
def edge_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("textmate") / "edge.game"
    path.write_text(EDGE_CASES, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scoped(edge_file) -> dict[Path, list]:
    return tokenize(GRAMMAR, GAME_FILES + [edge_file])


# ---- gamedsl's own lexer --------------------------------------------------------------------

@functools.cache
def lark_parser(start: str) -> tuple[lark.Lark, list]:
    comments: list = []
    parser = lark.Lark(grammar_text(), parser="lalr", start=start, keep_all_tokens=True,
                       lexer_callbacks={"COMMENT": comments.append})
    return parser, comments


def lark_tokens(text: str, start: str = "start") -> tuple[list[lark.Token], list[lark.Token]]:
    """Every token of the text as gamedsl's parser reads it (its contextual lexer: a word is a
    keyword only where the grammar expects one), and its comments."""
    parser, comments = lark_parser(start)
    comments.clear()
    tree = parser.parse(text)
    tokens = sorted(tree.scan_values(lambda v: isinstance(v, lark.Token)), key=lambda t: (t.line, t.column))
    return tokens, list(comments)


@functools.cache
def keyword_terminals() -> frozenset[str]:
    """The names of the terminals that are words the grammar writes in quotes: 'if', 'move'..."""
    parser, _ = lark_parser("start")
    return frozenset(t.name for t in parser.terminals
                     if isinstance(t.pattern, lark.lexer.PatternStr) and re.fullmatch(r"[a-z_]+", t.pattern.value))


def grammar_words() -> set[str]:
    return set(re.findall(r'"([a-z_]+)"', grammar_text()))


# ---- what the TextMate grammar says ---------------------------------------------------------

def textmate_grammar(path: Path = GRAMMAR) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def alternatives(regex: str) -> set[str]:
    """The words of a regular expression's `(?:a|b|c)` groups."""
    return {w for group in re.findall(r"\(\?:([a-z_|]+)\)", regex) for w in group.split("|")}


def patterns_of(rule: dict) -> list[dict]:
    return rule.get("patterns", [rule])


def textmate_keywords() -> dict[str, set[str]]:
    """{scope: words} of the grammar's keyword rules, and {"declaration": words} of the words that
    start a declaration at the start of a line."""
    repo = textmate_grammar()["repository"]
    out: dict[str, set[str]] = {}
    zone = [r for r in repo["zone"]["patterns"] if "match" in r]  # a zone's properties, in its declaration
    for group, rules in (("keyword", patterns_of(repo["keyword"]) + zone),
                         ("declaration", patterns_of(repo["declaration"]))):
        for rule in rules:
            words = alternatives(rule["match"]) | set(re.findall(r"\\b([a-z_]+)\\b", rule["match"]))
            words |= {w for found in re.findall(r"\^\(?([a-z_|]+)\)", rule["match"]) for w in found.split("|")}
            words |= set(re.findall(r"\(([a-z_]+)\)", rule["match"]))  # a phrase's words: \b(any)\s+(number)
            scope = rule["name"] if "name" in rule else rule["captures"]["1"]["name"]
            out.setdefault(scope if group == "keyword" else group, set()).update(words)
    return out


class Scopes:
    """The scopes of each character of a file, as the TextMate engine gave them."""

    def __init__(self, lines: list):
        self.lines = lines

    def tokens(self, line: int) -> list:
        return self.lines[line - 1]

    def at(self, line: int, column: int) -> list[str]:
        """The scopes at a 1-based line and 1-based column."""
        for start, end, scopes in self.tokens(line):
            if start <= column - 1 < end:
                return scopes
        return []

    def token(self, line: int, column: int, end_column: int):
        """The scopes of the TextMate token that spans exactly these columns (1-based, end
        excluded), or None when the engine cut the text elsewhere."""
        for start, end, scopes in self.tokens(line):
            if (start, end) == (column - 1, end_column - 1):
                return scopes
        return None


def has(scopes, prefix: str | tuple) -> bool:
    return any(s.startswith(prefix) for s in scopes or ())


def disagreements(text: str, lines: list) -> list[str]:
    """Where the TextMate scopes of a file differ from what gamedsl's lexer reads in it."""
    sc = Scopes(lines)
    src = text.split("\n")
    problems: list[str] = []
    tokens, comments = lark_tokens(text)
    keywords = keyword_terminals()
    known_words = grammar_words() | ZONE_PROPS
    covered = {"string": set(), "number": set(), "comment": set()}

    def where(t) -> str:
        return f"{t.line}:{t.column} {t.value!r}"

    def check_code(tokens: list, line_offset: int = 0, column_offset: int = 0) -> None:
        for i, t in enumerate(tokens):
            line, col, end = t.line + line_offset, t.column + column_offset, t.end_column + column_offset
            if t.type == "STRING":
                check_string(t, line, col, end)
            elif t.type == "INT":
                covered["number"].update((line, c) for c in range(col, end))
                if not has(sc.token(line, col, end), NUMBER):
                    problems.append(f"{where(t)}: a number, scoped {sc.at(line, col)}")
            elif t.type in keywords:
                if not has(sc.token(line, col, end), KEYWORD_SCOPES):
                    problems.append(f"{where(t)}: a keyword, scoped {sc.at(line, col)}")
            elif t.type == "NAME":
                scopes = sc.token(line, col, end)
                following = tokens[i + 1].type if i + 1 < len(tokens) else None
                if scopes is None:
                    problems.append(f"{where(t)}: a name cut by TextMate ({sc.at(line, col)})")
                elif t.value not in known_words and has(scopes, KEYWORD_SCOPES):
                    problems.append(f"{where(t)}: a name, scoped as a keyword {scopes}")
                elif following == "LPAR" and t.value in BUILTINS and not has(scopes, BUILTIN):
                    problems.append(f"{where(t)}: a built-in function, scoped {scopes}")
                if t.value == "card" and following == "LPAR":
                    check_card(tokens, i, line_offset, column_offset)

    def check_card(tokens: list, i: int, line_offset: int, column_offset: int) -> None:
        depth, j = 0, i + 1
        while True:
            t = tokens[j]
            depth += {"LPAR": 1, "RPAR": -1}.get(t.type, 0)
            line, col = t.line + line_offset, t.column + column_offset
            if not has(sc.at(line, col), CARD):
                problems.append(f"{where(t)}: in a card literal, scoped {sc.at(line, col)}")
            if depth == 1 and t.type in ("NAME", "INT") and tokens[j - 1].type in ("LPAR", "COMMA") \
                    and tokens[j + 1].type in ("COMMA", "RPAR"):
                wanted = NUMBER if t.type == "INT" else "constant.other.card-value.gamedsl"
                if not has(sc.token(line, col, t.end_column + column_offset), wanted):
                    problems.append(f"{where(t)}: a card's value, scoped {sc.at(line, col)}")
            if depth == 0:
                return
            j += 1

    def check_string(t, line: int, col: int, end: int) -> None:
        covered["string"].update((line, c) for c in range(col, end))
        for c in range(col, end):
            if not has(sc.at(line, c), STRING):
                problems.append(f"{where(t)}: column {c} of a string, scoped {sc.at(line, c)}")
        if not has(sc.at(line, col), "punctuation.definition.string.begin") \
                or not has(sc.at(line, end - 1), "punctuation.definition.string.end"):
            problems.append(f"{where(t)}: the string's quotes are not where gamedsl has them")
        body = t.value[1:-1]
        code = set()
        for brace in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}", body):
            start = col + 1 + brace.start()
            if brace[1] is None:
                if not has(sc.token(line, start, start + 2), "constant.character.escape"):
                    problems.append(f"{where(t)}: the brace {brace[0]!r} at {start}, scoped {sc.at(line, start)}")
                continue
            code.update(range(start + 1, start + 1 + len(brace[1])))
            try:
                inner, _ = lark_tokens(brace[1], "expr")
            except lark.exceptions.LarkError as err:
                problems.append(f"{where(t)}: the braces {brace[0]!r} do not parse: {err}")
                continue
            check_code(inner, line - 1, start)
        for c in range(col, end):
            if (c in code) != has(sc.at(line, c), EMBEDDED):
                problems.append(f"{where(t)}: column {c} is {'' if c in code else 'not '}code in braces, "
                                f"scoped {sc.at(line, c)}")

    check_code(tokens)
    for t in comments:
        end = t.end_column
        covered["comment"].update((t.line, c) for c in range(t.column, end))
        if not has(sc.token(t.line, t.column, t.column + 1), "punctuation.definition.comment"):
            problems.append(f"{where(t)}: the comment's '#', scoped {sc.at(t.line, t.column)}")
        for c in range(t.column, end):
            if not has(sc.at(t.line, c), COMMENT):
                problems.append(f"{where(t)}: column {c} of a comment, scoped {sc.at(t.line, c)}")
    # and the other way: TextMate finds no string, number or comment where gamedsl has none
    kinds = {"string": STRING, "number": NUMBER, "comment": COMMENT}
    for n, line in enumerate(lines, 1):
        for start, end, scopes in line:
            for c in range(start + 1, end + 1):
                for kind, scope in kinds.items():
                    if scope in scopes and (n, c) not in covered[kind]:
                        problems.append(f"{n}:{c}: {src[n - 1][c - 1]!r} scoped as a {kind} {scopes}")
            if has(scopes, "invalid"):
                problems.append(f"{n}:{start + 1}: {src[n - 1][start:end]!r} scoped invalid {scopes}")
    return problems


# ---- the grammar over every game file ---------------------------------------------------------

@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_textmate_scopes_what_gamedsl_lexes(path, scoped):
    """Every string, number, comment, keyword and built-in call gamedsl's lexer finds in the
    file is scoped so by the TextMate engine at the same columns, the values in braces as code;
    TextMate finds no string, number or comment elsewhere, and nothing is invalid."""
    problems = disagreements(path.read_text(encoding="utf-8"), scoped[path])
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("path", sorted(ROOT.glob("games/*.game")), ids=lambda p: p.name)
def test_a_designers_own_names_are_never_coloured_as_keywords(path, scoped):
    """Every name a game declares, at its declaration and at every use (its own zones, variables,
    functions, patterns, locals), is scoped as a name, even when it is also a word of the language
    somewhere: a zone called `pile`, a variable `out` or `named`, a pattern `run`, a local `top`, a
    parameter `cards`, a function `extends`. They were coloured as keywords in 6 of the games."""
    from gamedsl.lsp import analysis as a
    from gamedsl.lsp.checking import check
    text = path.read_text(encoding="utf-8")
    _, model = check(text, str(path))
    index = a.Index.of(model)
    spans = [d.span for d in index.decls] + [u.span for u in index.uses if index.definitions(u.name, u.dotted)] + \
        list(index.local_uses) + [b.span for b in index.local_bindings]
    sc, lines = Scopes(scoped[path]), text.split("\n")
    wrong = sorted({(s.line, s.column, lines[s.line - 1][s.column - 1:s.end_column - 1], sc.at(s.line, s.column)[-1])
                    for s in spans if not s.file and has(sc.at(s.line, s.column), KEYWORD_SCOPES)})
    assert len(spans) > 50 and not wrong, wrong[:20]


def test_textmate_scopes_the_edge_cases(edge_file, scoped):
    lines = scoped[edge_file]
    assert not disagreements(EDGE_CASES, lines)
    sc = Scopes(lines)
    src = EDGE_CASES.split("\n")

    def scopes_of(line_text: str, word: str, nth: int = 0) -> list[str]:
        line = src.index(line_text) + 1
        column = [m.start() for m in re.finditer(re.escape(word), line_text)][nth] + 1
        return sc.at(line, column)

    title = src[0]
    assert COMMENT not in scopes_of(title, "# not")            # a '#' in a string
    assert has(scopes_of(title, "{{"), "constant.character.escape")
    assert COMMENT in scopes_of(title, '"quotes"')              # a string in a comment
    law = "hidden var law_4C = 10#a comment right after a number"
    assert "entity.name.variable.gamedsl" in scopes_of(law, "law_4C")
    assert NUMBER in scopes_of(law, "10") and COMMENT in scopes_of(law, "#a")
    assert "keyword.operator.arithmetic.gamedsl" in scopes_of("var points per player = -3 \"points\"", "-")
    cards = src[11]
    assert CARD in scopes_of(cards, "c.rank") and "constant.other.card-value.gamedsl" in scopes_of(cards, "spades")
    assert "variable.other.gamedsl" in scopes_of(cards, "rank", 0)  # `c.rank` in a card literal is code
    say = src[12]
    assert EMBEDDED in scopes_of(say, "if c.rank") and "keyword.control.gamedsl" in scopes_of(say, "then")
    assert COMMENT not in scopes_of(say, "# {")
    wide = src[13]   # after a character of two UTF-16 units, columns still count characters
    assert NUMBER in scopes_of(wide, "2") and COMMENT in scopes_of(wide, "#")


def test_textmate_marks_what_gamedsl_cannot_read(tmp_path):
    """The checks above can fail: a character the language does not have is invalid, a string
    left open ends at the end of its line, and a grammar missing a rule disagrees with gamedsl."""
    bad = tmp_path / "bad.game"
    bad.write_text("game 'Bad' @ x\nsay \"open\nplayers 2\n", encoding="utf-8")
    lines = tokenize(GRAMMAR, [bad])[bad]
    sc = Scopes(lines)
    assert has(sc.at(1, 6), "invalid") and has(sc.at(1, 12), "invalid")
    assert STRING in sc.at(2, 6) and "storage.type.declaration.gamedsl" in sc.at(3, 1)

    law = ROOT / "games" / "law.game"
    for broken in ("comment", "number", "keyword", "interpolation"):
        grammar = textmate_grammar()
        grammar["repository"][broken] = {"patterns": []}
        path = tmp_path / f"without-{broken}.json"
        path.write_text(json.dumps(grammar), encoding="utf-8")
        problems = disagreements(law.read_text(encoding="utf-8"), tokenize(path, [law])[law])
        assert problems, f"a grammar without its {broken} rule agrees with gamedsl on law.game"


def test_known_lines_get_the_expected_scopes(scoped):
    """Exact scopes, token by token, of a few lines of law.game and laus.game."""
    def line_scopes(path: Path, text: str) -> list[tuple[str, str]]:
        src = path.read_text(encoding="utf-8").split("\n")
        assert text in src, f"{path.name} no longer has the line {text!r}"
        tokens = scoped[path][src.index(text)]
        return [(text[s:e], scopes[-1]) for s, e, scopes in tokens if text[s:e].strip()]

    law, laus = ROOT / "games" / "law.game", ROOT / "games" / "laus.game"
    beacons = ROOT / "games" / "beacons.game"  # `others` is a zone's visibility after ':', else the players
    assert ("others", "storage.modifier.gamedsl") in line_scopes(
        beacons, "zone hand per player: others           # everyone sees it but its owner")
    assert line_scopes(law, 'action ask "ask" (q in others) anytime') == [
        ("action", "storage.type.declaration.gamedsl"), ("ask", "entity.name.function.gamedsl"),
        ('"', "punctuation.definition.string.begin.gamedsl"), ("ask", STRING),
        ('"', "punctuation.definition.string.end.gamedsl"), ("(", "punctuation.section.parens.begin.gamedsl"),
        ("q", "variable.other.gamedsl"), ("in", "keyword.operator.logical.gamedsl"),
        ("others", "variable.language.gamedsl"), (")", "punctuation.section.parens.end.gamedsl"),
        ("anytime", "keyword.other.gamedsl")]
    assert line_scopes(law, '    if not busy and applies(me, card(A, hearts)) and me == current and me.asks == 0') == [
        ("if", "keyword.control.gamedsl"), ("not", "keyword.operator.logical.gamedsl"), ("busy", "variable.other.gamedsl"),
        ("and", "keyword.operator.logical.gamedsl"), ("applies", "entity.name.function.call.gamedsl"),
        ("(", "punctuation.section.parens.begin.gamedsl"), ("me", "variable.language.gamedsl"),
        (",", "punctuation.separator.comma.gamedsl"), ("card", BUILTIN),
        ("(", "punctuation.section.parens.begin.gamedsl"), ("A", "constant.other.card-value.gamedsl"),
        (",", "punctuation.separator.comma.gamedsl"), ("hearts", "constant.other.card-value.gamedsl"),
        (")", "punctuation.section.parens.end.gamedsl"), (")", "punctuation.section.parens.end.gamedsl"),
        ("and", "keyword.operator.logical.gamedsl"), ("me", "variable.language.gamedsl"),
        ("==", "keyword.operator.comparison.gamedsl"), ("current", "variable.other.gamedsl"),
        ("and", "keyword.operator.logical.gamedsl"), ("me", "variable.language.gamedsl"),
        (".", "punctuation.accessor.gamedsl"), ("asks", "variable.other.gamedsl"),
        ("==", "keyword.operator.comparison.gamedsl"), ("0", NUMBER)]
    assert line_scopes(law, '  for each p in players { say "{p} ends the game with {count(p.laws)} Laws" }') == [
        ("for", "keyword.control.gamedsl"), ("each", "keyword.control.gamedsl"), ("p", "variable.other.gamedsl"),
        ("in", "keyword.operator.logical.gamedsl"), ("players", "variable.language.gamedsl"),
        ("{", "punctuation.section.block.begin.gamedsl"), ("say", "keyword.other.gamedsl"),
        ('"', "punctuation.definition.string.begin.gamedsl"),
        ("{", "punctuation.section.interpolation.begin.gamedsl"), ("p", "variable.other.gamedsl"),
        ("}", "punctuation.section.interpolation.end.gamedsl"), (" ends the game with ", STRING),
        ("{", "punctuation.section.interpolation.begin.gamedsl"), ("count", BUILTIN),
        ("(", "punctuation.section.parens.begin.gamedsl"), ("p", "variable.other.gamedsl"),
        (".", "punctuation.accessor.gamedsl"), ("laws", "variable.other.gamedsl"),
        (")", "punctuation.section.parens.end.gamedsl"), ("}", "punctuation.section.interpolation.end.gamedsl"),
        (" Laws", STRING), ('"', "punctuation.definition.string.end.gamedsl"),
        ("}", "punctuation.section.block.end.gamedsl")]
    assert line_scopes(laus, "zone hand per player: owner") == [
        ("zone", "storage.type.declaration.gamedsl"), ("hand", "entity.name.variable.gamedsl"),
        ("per", "keyword.other.gamedsl"), ("player", "keyword.other.gamedsl"),
        (":", "punctuation.separator.colon.gamedsl"), ("owner", "storage.modifier.gamedsl")]
    assert line_scopes(laus, "cards rank * suit                    # 32 cards: the 52-card deck without 2-6") == [
        ("cards", "storage.type.declaration.gamedsl"), ("rank", "variable.other.gamedsl"),
        ("*", "keyword.operator.arithmetic.gamedsl"), ("suit", "variable.other.gamedsl"),
        ("#", "punctuation.definition.comment.gamedsl"), (" 32 cards: the 52-card deck without 2-6", COMMENT)]


def test_the_games_exercise_every_kind_of_token(scoped):
    """The files above hold strings with braces, comments at the end of a line, card literals and
    built-in calls: the checks over them are not vacuous."""
    seen = set()
    for lines in scoped.values():
        for line in lines:
            for _, _, scopes in line:
                seen.update(scopes)
    for scope in (STRING, NUMBER, COMMENT, EMBEDDED, CARD, BUILTIN, "constant.other.card-value.gamedsl",
                  "keyword.control.gamedsl", "storage.type.declaration.gamedsl", "keyword.operator.logical.gamedsl",
                  "constant.language.boolean.gamedsl", "entity.name.function.gamedsl", "storage.modifier.gamedsl",
                  "constant.character.escape.gamedsl", "variable.language.gamedsl", "constant.language.gamedsl"):
        assert scope in seen, f"no file has a token scoped {scope}"


# ---- the grammar's lists follow the language ----------------------------------------------------

def test_every_keyword_of_the_language_has_a_keyword_scope():
    """A word the Lark grammar writes in quotes (or a zone's property) missing from the TextMate
    grammar fails here; so does a word of the TextMate grammar the language no longer has."""
    scopes = textmate_keywords()
    listed = set().union(*scopes.values())
    language = grammar_words() | ZONE_PROPS
    assert language - listed == set(), "words of grammar/gamedsl.lark missing from the TextMate grammar"
    assert listed - language - {"true", "false"} == set(), "words of the TextMate grammar the language does not have"
    # the first word of every declaration is coloured as one at the start of a line
    first_words = set(re.findall(r'^\w+_decl: "([a-z_]+)"', grammar_text(), re.MULTILINE))
    assert first_words and first_words - scopes["declaration"] == set()


def test_every_builtin_has_a_builtin_scope():
    """The built-in names (gamedsl/language/context.py) and the TextMate grammar's agree."""
    builtin = patterns_of(textmate_grammar()["repository"]["builtin"])
    functions = alternatives(builtin[0]["match"])
    bare = alternatives(builtin[1]["match"]) | set(re.findall(r"\\b([a-z_]+)\\b", builtin[2]["match"]))
    assert bare == set(_BARE), "names read without parentheses"
    assert functions | {"card"} == BUILTINS - set(_BARE), "functions (card is the card literal's own rule)"


# ---- the extension ----------------------------------------------------------------------------

def test_the_manifest_points_at_files_that_exist():
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)[1]
    assert manifest["version"] == version, "editors/vscode/package.json's version follows pyproject.toml's"
    lock = json.loads((EXTENSION / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == version and lock["packages"][""]["version"] == version, "run npm install in editors/vscode"
    assert (EXTENSION / manifest["main"]).is_file()
    (language,) = manifest["contributes"]["languages"]
    assert language["id"] == "gamedsl" and language["extensions"] == [".game"]
    assert (EXTENSION / language["configuration"]).is_file()
    (grammar,) = manifest["contributes"]["grammars"]
    assert grammar["language"] == "gamedsl" and (EXTENSION / grammar["path"]).is_file()
    assert grammar["scopeName"] == textmate_grammar(EXTENSION / grammar["path"])["scopeName"] == "source.gamedsl"
    settings = manifest["contributes"]["configuration"]["properties"]
    assert settings["gamedsl.server.path"]["default"] == "gamedsl"
    assert settings["gamedsl.server.args"]["default"] == ["lsp"]
    restricted = manifest["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    assert set(restricted) == set(settings), "a workspace not trusted must not choose the command that runs"
    assert "vscode-languageclient" in manifest["dependencies"] and "@vscode/vsce" in manifest["devDependencies"]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in [*manifest["dependencies"].values(),
                                                           *manifest["devDependencies"].values()]), "pinned"


def test_the_language_configuration():
    config = json.loads((EXTENSION / "language-configuration.json").read_text(encoding="utf-8"))
    assert config["comments"] == {"lineComment": "#"}
    assert config["brackets"] == [["{", "}"], ["[", "]"], ["(", ")"]]
    assert {p["open"] + p["close"] for p in config["autoClosingPairs"]} == {"{}", "[]", "()", '""'}
    increase = re.compile(config["indentationRules"]["increaseIndentPattern"])
    decrease = re.compile(config["indentationRules"]["decreaseIndentPattern"])
    for opens in ("setup {", "action play (c in me.hand) {", '  if a { move c to b } else {  # x',
                  'action ask "ask {q}" {', "round {   "):
        assert increase.search(opens), opens
    for stays in ('  say "{p} wins"', "  if a { win p }", "# a comment {", '  say "a {"', "game \"x\""):
        assert not increase.search(stays), stays
    assert decrease.search("  }") and decrease.search("} else {") and not decrease.search("  move c to deck")


def test_the_client_starts_the_configured_server(tmp_path):
    """extension.js with a stand-in for the `vscode` module and for vscode-languageclient (no real
    VS Code runs here): it starts the configured command with `lsp`, looked up on the PATH; says
    how to install gamedsl when the command is not found; restarts on a change of the setting."""
    need_node()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "gamedsl"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    done = subprocess.run(["node", str(HARNESS / "client.js"), str(EXTENSION / "extension.js"), str(bin_dir)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)
    default, configured, missing, failing, changed = (events[k] for k in
                                                      ("default", "configured", "missing", "failing", "changed"))
    (started,) = default["clients"]
    assert started["serverOptions"] == {"command": str(fake), "args": ["lsp"]}
    assert started["documentSelector"] == [{"scheme": "file", "language": "gamedsl"},
                                           {"scheme": "untitled", "language": "gamedsl"}]
    assert started["started"] and not default["errors"]
    assert default["commands"] == ["gamedsl.restartServer"]
    (started,) = configured["clients"]
    assert started["serverOptions"] == {"command": str(fake), "args": ["lsp", "--verbose"]}
    assert not missing["clients"]
    (error,) = missing["errors"]
    assert "'/nowhere/gamedsl' was not found" in error["message"] and "pip install 'gamedsl[lsp]'" in error["message"]
    assert error["items"] == ["Open Settings"] and missing["opened"] == ["gamedsl.server.path"]
    (error,) = failing["errors"]
    assert "did not start" in error["message"] and "spawn failed" in error["message"]
    first, second = changed["clients"]
    assert first["stopped"] and second["serverOptions"]["command"] == str(fake) and second["started"]
    assert changed["deactivated"] and second["stopped"]


def test_the_client_starts_a_server_that_answers():
    """The server options extension.js builds (with the default setting, `gamedsl` found on the
    PATH) start the real `gamedsl lsp`, which answers what VS Code asks when law.game is opened:
    no errors, its outline, a hover on a card literal; and an error typed into it comes back.
    (The client is a stand-in speaking LSP with vscode-jsonrpc from the extension's node_modules;
    no real VS Code runs here.)"""
    npm_ci(EXTENSION)
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "gamedsl").exists():
        found = shutil.which("gamedsl")
        assert found, "the gamedsl command is not installed (pip install -e '.[test]')"
        bin_dir = Path(found).parent
    law = ROOT / "games" / "law.game"
    done = subprocess.run(["node", str(HARNESS / "server.js"), str(EXTENSION / "extension.js"), str(bin_dir), str(law)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert answers["serverOptions"] == {"command": str(bin_dir / "gamedsl"), "args": ["lsp"]} and not answers["errors"]
    assert answers["diagnostics"] == []
    assert {"hand", "laws", "ask", "discard_card", "setup", "outcome"} <= set(answers["symbols"])
    assert answers["hover"].startswith("the card A\u2665")
    src = law.read_text(encoding="utf-8").split("\n")
    (typo,) = answers["typed"]
    assert "move c to pot" in src[typo["line"]] and typo["message"].startswith("unknown zone 'pott'")


def test_the_script_builds_a_vsix(tmp_path):
    """editors/vscode/build-vsix.sh, run on a copy of the folder: the .vsix (a zip) holds the
    manifest, the grammar, the language configuration, the client and its npm dependencies, and
    none of the build's."""
    need_node(20)
    folder = tmp_path / "vscode"
    shutil.copytree(EXTENSION, folder, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    done = subprocess.run(["bash", str(folder / "build-vsix.sh")], capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    vsix = folder / f"gamedsl-{manifest['version']}.vsix"
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        packed = json.loads(z.read("extension/package.json"))
        assert json.loads(z.read("extension/syntaxes/gamedsl.tmLanguage.json")) == textmate_grammar()
    for name in ("extension/package.json", "extension/extension.js", "extension/language-configuration.json",
                 "extension/syntaxes/gamedsl.tmLanguage.json", "extension/readme.md",
                 "extension/node_modules/vscode-languageclient/node.js", "extension.vsixmanifest"):
        assert name in names, name
    contributes = packed["contributes"]
    for path in [packed["main"], contributes["languages"][0]["configuration"], contributes["grammars"][0]["path"]]:
        assert "extension/" + path.removeprefix("./") in names, path
    assert not any(n.startswith("extension/node_modules/@vscode/vsce/") for n in names), "a devDependency is packed"
    assert not any(n.endswith((".vsix", "build-vsix.sh")) for n in names)
    assert vsix.stat().st_size < 2_000_000
