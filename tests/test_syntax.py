"""Syntax errors: exact messages in the user's words, located, one per broken declaration."""
import pytest

import gamedsl
from gamedsl.language.syntax import parse


def errors(src: str) -> str:
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(src, "t.game")
    return info.value.format()


def test_missing_number_is_reported_after_the_last_word():
    out = errors('game "X"\nplayers 2 to\nattribute rank: 1\n')
    assert out.splitlines()[:3] == [
        "t.game:2:13: error: expected a number before 'attribute'",
        "    players 2 to",
        "                ^",
    ]


def test_single_quotes_get_a_hint():
    out = errors("game 'X'\n")
    assert "t.game:1:6: error: unexpected character '''" in out
    assert "hint: strings use double quotes" in out


def test_unclosed_block():
    out = errors('game "X"\nplayers 2\nround {\n  say "a"\n')
    assert out.startswith("t.game:4:10: error: the file ends inside a block: a '}' is missing")


def test_every_broken_declaration_is_reported_once():
    src = 'game "X"\nplayers 2 to\nzone deck public\nround {\n  shuffle deck deck\n  let x = 1\n}\n'
    out = errors(src)
    lines = [line for line in out.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[0] for line in lines] == ["t.game:2:13", "t.game:3:11", "t.game:6:3"]
    assert "expected one of ':', 'per', found 'public'" in out
    assert "is a word too many just before?" in out


def test_expected_tokens_are_named_as_a_user_writes_them():
    out = errors('game "X"\nvar x = if 1 then\n')
    assert "error: expected an expression, found the end of the file" in out
    assert "INT" not in out and "NAME" not in out and "$END" not in out


def test_positions_on_nodes():
    tree = parse('game "X"\nplayers 2 to 4\n')
    players = tree.children[1]
    assert (players.meta.line, players.meta.column) == (2, 1)


def test_a_missing_closing_brace_is_named():
    out = errors('game "X"\nplayers 2\nround {\n  say "a"\n\naction a { say "b" }\n')
    assert out.splitlines()[0] == (
        "t.game:4:10: error: a block is not closed: a '}' is missing before 'action' on line 6")
