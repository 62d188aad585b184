"""Golden playthroughs: every game, at every player count, plays as its transcript in tests/golden/ says.

A transcript is one seeded game with a fixed policy, written from the view of the player to
move (see tests/golden/regenerate.py). A change to the rules or the engine that changes how a
game plays shows up here as a diff; if it is intended, regenerate the transcripts and review
their diff:  python tests/golden/regenerate.py
"""
from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

import gamedsl

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("golden_regenerate", ROOT / "tests" / "golden" / "regenerate.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

DIFF_LINES = 40


def _cases():
    """(game stem, player count) for every game; a game that does not load gives one failing case."""
    out = []
    for path in golden.game_files():
        try:
            game = golden.load(path.stem)
        except gamedsl.GamedslError as exc:
            out.append(pytest.param(path.stem, None, exc, id=f"{path.stem}-unloadable"))
            continue
        out += [pytest.param(path.stem, n, None, id=f"{path.stem}-{n}p")
                for n in range(game.min_players, game.max_players + 1)]
    return out


@pytest.mark.parametrize("stem, players, load_error", _cases())
def test_golden_playthrough(stem, players, load_error):
    if load_error is not None:
        pytest.fail(f"games/{stem}.game does not load, so it has no golden playthrough:\n{load_error}",
                    pytrace=False)
    path = golden.golden_path(stem, players)
    rel = path.relative_to(ROOT).as_posix()
    if not path.exists():
        pytest.fail(f"{rel} is missing: every game needs a golden playthrough for each player count; "
                    f"create it with: {golden.REGENERATE}", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    actual = golden.transcript(stem, players)
    if actual == expected:
        return
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                     fromfile=rel, tofile=f"{rel} (as the game plays now)", lineterm="", n=3))
    shown = diff[:DIFF_LINES]
    if len(diff) > DIFF_LINES:
        shown.append(f"... ({len(diff) - DIFF_LINES} more diff lines)")
    pytest.fail(f"{rel} no longer matches how {stem} plays with {players} players:\n" + "\n".join(shown)
                + f"\n\nIf the change is intended, regenerate and review the diff: {golden.REGENERATE}",
                pytrace=False)


def test_no_stale_golden_playthroughs():
    """A transcript whose game or player count is gone would never be checked: it must go too."""
    wanted = {golden.golden_path(stem, n).name for stem, n in golden.cases()}
    present = {p.name for p in golden.HERE.glob("*.txt") if golden._NAME.match(p.name)}
    stale = sorted(present - wanted)
    if stale:
        pytest.fail(f"golden transcripts without a game or player count: {', '.join(stale)}; "
                    f"remove them with: {golden.REGENERATE}", pytrace=False)
