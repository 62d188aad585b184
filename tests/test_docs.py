"""The docs quote the games as they are: a quoted block that no longer matches fails here."""
import re
from pathlib import Path

import pytest

import gamedsl

ROOT = Path(__file__).resolve().parent.parent


def blocks(path: Path) -> list[str]:
    return re.findall(r"```text\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.parametrize("guide", sorted((ROOT / "docs" / "games").glob("*.md")), ids=lambda p: p.name)
def test_every_block_of_a_game_guide_is_in_the_game(guide):
    game = normalise((ROOT / "games" / f"{guide.stem}.game").read_text(encoding="utf-8"))
    quoted = [b for b in blocks(guide) if "design sketch" not in b and not b.startswith("$ ")]
    assert quoted
    for block in quoted:
        lines = [line for line in normalise(block).splitlines() if line and line != "..."]
        missing = [line for line in lines if line not in game]
        assert not missing, f"docs/games/{guide.name} quotes lines that games/{guide.stem}.game no longer has: {missing}"


def test_the_tutorial_ends_with_the_whole_game():
    tutorial = blocks(ROOT / "docs" / "tutorial.md")
    game = (ROOT / "games" / "crazy_eights.game").read_text(encoding="utf-8")
    assert any(normalise(b) == normalise(game) for b in tutorial), \
        "docs/tutorial.md must end with the complete games/crazy_eights.game"


@pytest.mark.parametrize("path", sorted((ROOT / "games").glob("*.game")), ids=lambda p: p.name)
def test_every_game_loads(path):
    game = gamedsl.load_game(path)
    assert game.num_distinct_actions() > 0


def _whole_games(path: Path) -> list[str]:
    return [b for b in blocks(path) if b.startswith('game "') and '...' not in b  # not a sketch
            and "\nplayers " in b and "\ncards " in b and "\nround {" in b]


@pytest.mark.parametrize("index", range(len(_whole_games(ROOT / "docs" / "language.md"))))
def test_every_whole_game_in_the_reference_checks_and_plays_to_its_end(index):
    """A complete game quoted in docs/language.md is a working game: it loads, and random play ends it."""
    import random
    text = _whole_games(ROOT / "docs" / "language.md")[index]
    game = gamedsl.load_source(text, f"language.md game {index + 1}")
    for players in (game.min_players, game.max_players):
        state, rng = game.new_state(players=players, seed=index), random.Random(index)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert any(r > 0 for r in state.returns())
