"""Every rule scenario under tests/scenarios/<game>/ runs against games/<game>.game."""
from pathlib import Path

import pytest

import gamedsl
from gamedsl.tools.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*/*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario(path):
    game = gamedsl.load_game(ROOT / "games" / f"{path.parent.name}.game")
    failures, checks = run_scenario(game, path)
    assert not failures, "\n".join(f.format() for f in failures)
    assert checks > 0, "a scenario must check something"


def test_every_game_has_scenarios():
    games = {p.stem for p in (ROOT / "games").glob("*.game")}
    covered = {p.parent.name for p in SCENARIOS}
    assert games <= covered, f"games without rule scenarios: {sorted(games - covered)}"
