"""The formatter (`gamedsl fmt`, language/format.py): one canonical layout that keeps the program,
the comments and the author's line breaks, over every game file of the repository."""
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from gamedsl.errors import SourceError
from gamedsl.language import compile_source
from gamedsl.language.format import format_source
from gamedsl.language.syntax import parser
from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p.relative_to(ROOT) for d in ("games", "tests") for p in (ROOT / d).rglob("*.game"))


def read(path: Path) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def test_every_game_file_is_found():
    assert len(GAMES) >= 15 and Path("games/law.game") in GAMES


def checked_program(text: str, filename: str):
    """What the checker makes of a text, without where in the file each part came from: the
    generated Python module (every rule, expression and declaration compiled; its `#@N` marks number
    the places that may fail in order, not by line, and a rule's own names are named by their
    depth), and what the engine reads beside it (constants, messages, the names of the zones,
    variables and actions), and what the secrecy check finds (tests/logs keeps files written before
    it, as their logs were played). Spans are kept apart in the Program (Program.spans), so two texts
    of one program that differ only in layout give equal values here, and two programs do not."""
    prog, _ = compile_source(text, filename, leaks_allowed=True)
    return prog.module, prog.data, prog.messages, [z.name for z in prog.zones], \
        [v.name for v in prog.vars], sorted(prog.action_by_name), [d.message for d in prog.leaks]


def comments(text: str) -> list[str]:
    return [t.value.rstrip() for t in parser().lex(text, dont_ignore=True) if t.type == "COMMENT"]


@pytest.mark.parametrize("path", GAMES, ids=str)
def test_formatting_keeps_the_checked_program(path):
    text = read(path)
    formatted = format_source(text, str(path))
    assert checked_program(formatted, str(path)) == checked_program(text, str(path))


def test_the_comparison_sees_a_changed_program():
    text = read(Path("games/oh_hell.game"))
    changed = text.replace("100 + c.rank_order", "101 + c.rank_order")
    assert changed != text
    assert checked_program(changed, "games/oh_hell.game") != checked_program(text, "games/oh_hell.game")


@pytest.mark.parametrize("path", GAMES, ids=str)
def test_formatting_is_idempotent_and_keeps_every_comment(path):
    text = read(path)
    formatted = format_source(text, str(path))
    assert format_source(formatted, str(path)) == formatted
    assert comments(formatted) == comments(text)
    assert formatted.endswith("\n") and not formatted.endswith("\n\n")
    assert all(line == line.rstrip() for line in formatted.splitlines())
    assert "\n\n\n" not in formatted


# ---- layout noise: whitespace changed where the layout rules do not keep it -----------------------

_SAFE_JOIN = set("()[]{},:;")


def noisy(formatted: str, rnd: random.Random) -> str:
    """The canonical text with its layout disturbed where the formatter decides it: indentation, the
    space between tokens, trailing whitespace, the length of each run of blank lines, the final
    newlines and the kind of newline (Windows' too). Line breaks, and the column of a comment that follows code or continues one (which the
    formatter keeps: they are the author's), stay."""
    tokens = [t for t in parser().lex(formatted, dont_ignore=True) if t.type != "WS"]
    by_line: dict[int, list] = {}
    for t in tokens:
        by_line.setdefault(t.line, []).append(t)
    lines = formatted.split("\n")
    out = ["  \t" * rnd.randint(0, 1) for _ in range(rnd.randint(0, 2))]
    comment_above = False
    for n, line in enumerate(lines, 1):
        toks = by_line.get(n)
        if not toks:
            if line == "" and n < len(lines):
                out.extend(" " * rnd.randint(0, 3) for _ in range(rnd.randint(1, 3)))
            comment_above = False
            continue
        if toks[0].type == "COMMENT":
            out.append(line if comment_above else " " * rnd.randint(0, 9) + toks[0].value)
            continue
        code = " " * rnd.randint(0, 9) + toks[0].value
        prev = toks[0]
        comment = None
        for t in toks[1:]:
            if t.type == "COMMENT":
                comment = t
                break
            canonical = line[prev.column - 1 + len(prev.value):t.column - 1]
            joinable = prev.value[-1] in _SAFE_JOIN or t.value[0] in _SAFE_JOIN
            choices = ["", " ", "   "] if joinable or canonical == "" else [" ", "  ", "\t", "    "]
            code += rnd.choice(choices) + t.value
            prev = t
        if comment is not None:
            if len(code) >= comment.column - 1:
                code = line[:comment.column - 1]  # no room before the comment's column: left as it was
            code = code.ljust(comment.column - 1) + comment.value
        out.append(code + " " * rnd.randint(0, 2))
        comment_above = comment is not None
    newline = rnd.choice(["\n", "\r\n"])
    return newline.join(out) + newline * rnd.randint(0, 3)


@pytest.mark.parametrize("path", GAMES, ids=str)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_layout_noise_gives_back_the_canonical_text(path, seed):
    formatted = format_source(read(path), str(path))
    disturbed = noisy(formatted, random.Random(seed))
    assert format_source(disturbed, str(path)) == formatted


def test_the_noise_disturbs():
    formatted = format_source(read(Path("games/law.game")), "law.game")
    assert noisy(formatted, random.Random(1)) != formatted


# ---- the rules, one small file ------------------------------------------------------------------

UGLY = '''

# a game   
game   "T"
players 2 to 4
attribute rank : 2,3,4     # ranks
attribute suit: red, blue
cards {2,3} *suit where rank!= 4
value low: 2 = 1,
         3 = 2, 4 = 3
zone deck :hidden
zone hand per player: owner   # aligned
zone pile: public             # comments
                              # and this one continues it
var score per player=0



def twice( x )=x*2
def neg(x) = - x + ( -1 )
  # about the action
  action take "take" ( c in deck ) if count(me.hand)<3
          "full" {
move c to me.hand;score+=1
    if me.score>2 {
  say "{me} has {twice(me.score)}"   }
    elif me.score==1 { score = 0  end turn }
   else {
        # nothing
    }
}
round { for each p in players starting at 1 { turn p { choose take } } }
'''

CANONICAL = '''# a game
game "T"
players 2 to 4
attribute rank: 2, 3, 4    # ranks
attribute suit: red, blue
cards {2, 3} * suit where rank != 4
value low: 2 = 1,
    3 = 2, 4 = 3
zone deck: hidden
zone hand per player: owner   # aligned
zone pile: public             # comments
                              # and this one continues it
var score per player = 0

def twice(x) = x * 2
def neg(x) = -x + (-1)
# about the action
action take "take" (c in deck) if count(me.hand) < 3
    "full" {
  move c to me.hand; score += 1
  if me.score > 2 {
    say "{me} has {twice(me.score)}" }
  elif me.score == 1 { score = 0  end turn }
  else {
    # nothing
  }
}
round { for each p in players starting at 1 { turn p { choose take } } }
'''


def test_the_canonical_layout():
    assert format_source(UGLY, "t.game") == CANONICAL
    assert format_source(CANONICAL, "t.game") == CANONICAL


def test_a_comment_the_code_reaches_follows_it_by_two_spaces():
    text = 'game "T"\nplayers 2 to 4 # kept\nsetup {x=1} # reached\nround   {    }    # kept\n'
    assert format_source(text, "t.game") == ('game "T"\nplayers 2 to 4 # kept\nsetup { x = 1 }  # reached\n'
                                             'round { }         # kept\n')


def test_a_file_that_does_not_parse_is_a_source_error():
    with pytest.raises(SourceError) as info:
        format_source('game "T"\nsetup { x = = 1 }\n', "t.game")
    assert "t.game:2:13: error: expected an expression" in info.value.format()


# ---- gamedsl fmt ----------------------------------------------------------------------------------

def test_fmt_check_lists_what_it_would_change_and_changes_nothing(tmp_path, capsys):
    ugly, fine = tmp_path / "ugly.game", tmp_path / "fine.game"
    ugly.write_text(UGLY, encoding="utf-8")
    fine.write_text(CANONICAL, encoding="utf-8")
    assert main(["fmt", "--check", str(ugly), str(fine)]) == 1
    assert capsys.readouterr().out == f"would reformat {ugly}\n"
    assert ugly.read_text(encoding="utf-8") == UGLY
    assert main(["fmt", "--check", str(fine)]) == 0
    assert main(["fmt", "--check", str(tmp_path)]) == 1  # a folder: its .game files


def test_fmt_rewrites_in_place_and_says_which(tmp_path, capsys):
    ugly, fine = tmp_path / "ugly.game", tmp_path / "fine.game"
    ugly.write_text(UGLY, encoding="utf-8")
    fine.write_text(CANONICAL, encoding="utf-8")
    assert main(["fmt", str(ugly), str(fine)]) == 0
    assert capsys.readouterr().out == f"reformatted {ugly}\n"
    assert ugly.read_text(encoding="utf-8") == CANONICAL
    assert main(["fmt", "--check", str(ugly)]) == 0


def test_fmt_diff_prints_a_unified_diff_and_changes_nothing(tmp_path, capsys):
    ugly = tmp_path / "ugly.game"
    ugly.write_text(UGLY, encoding="utf-8")
    assert main(["fmt", "--diff", str(ugly)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {ugly}\n+++ {ugly} (formatted)\n")
    assert "-cards {2,3} *suit where rank!= 4\n+cards {2, 3} * suit where rank != 4\n" in out
    assert ugly.read_text(encoding="utf-8") == UGLY


def test_fmt_leaves_a_file_with_a_syntax_error_alone(tmp_path, capsys):
    bad, ugly = tmp_path / "bad.game", tmp_path / "ugly.game"
    bad.write_text('game "T"\nsetup {  x = = 1 }\n', encoding="utf-8")
    ugly.write_text(UGLY, encoding="utf-8")
    assert main(["fmt", str(bad), str(ugly), str(tmp_path / "missing.game")]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[:3] == [f"{bad}:2:14: error: expected an expression, found '='",
                                             "    setup {  x = = 1 }", "                 ^"]
    assert f"{tmp_path / 'missing.game'}: error: No such file or directory" in captured.err
    assert "Traceback" not in captured.err
    assert bad.read_text(encoding="utf-8") == 'game "T"\nsetup {  x = = 1 }\n'
    assert ugly.read_text(encoding="utf-8") == CANONICAL  # the others are formatted all the same
