"""The slips corpus (tests/slips.yaml): 57 mistakes a designer makes, each in a copy of a seed game.
Each gets exactly one error, at its place, with the message and hint recorded; the editor's quick
fix is offered where the corpus says, and gives back the same rules; nowhere else is one offered."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
import yaml

import gamedsl
from gamedsl.lsp import fixes
from test_fmt import checked_program

ROOT = Path(__file__).resolve().parent.parent
SLIPS = yaml.safe_load((ROOT / "tests" / "slips.yaml").read_text(encoding="utf-8"))


@functools.cache
def _game(name: str) -> str:
    return (ROOT / "games" / f"{name}.game").read_text(encoding="utf-8")


@functools.cache
def _program(name: str):
    return checked_program(_game(name), f"games/{name}.game")


def test_the_corpus_has_forty_slips_or_more_in_three_games():
    assert len(SLIPS) >= 40 and {s["game"] for s in SLIPS} == {"laus", "lol", "law"}
    assert len({(s["game"], s["write"]) for s in SLIPS}) == len(SLIPS)


@pytest.mark.parametrize("slip", SLIPS, ids=lambda s: f"{s['game']}:{s['write'].strip()[:40]}")
def test_a_slip_gives_one_error_at_its_place_and_a_safe_fix_where_one_is_offered(slip):
    game = _game(slip["game"])
    assert game.count(slip["find"]) == 1, "the corpus names one place"
    slipped = game.replace(slip["find"], slip["write"])
    filename = f"games/{slip['game']}.game"
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(slipped, filename)
    errors = [d for d in info.value.diagnostics if d.severity == "error"]
    assert len(errors) == 1, info.value.format()
    (d,) = errors
    assert (f"{d.span.line}:{d.span.column}", d.message, d.hint) == (slip["at"], slip["error"], slip.get("hint"))
    # the quick fix an editor is offered for it: the message as the language server shows it
    shown = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    fix = fixes.quick_fix(slipped, filename, shown, d.span.line, d.span.column, d.span.end_column)
    assert (fix is not None) == slip["fixed"], fix
    if fix is not None:
        assert checked_program(fix.applied(slipped), filename) == _program(slip["game"])
