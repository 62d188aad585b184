"""The bots play the rules as a careful player would, so simulate's figures can be trusted."""
import json
from pathlib import Path

from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_greedy_bot_says_lol_when_it_is_left_with_one_card(capsys):
    """LOL: saying «ЛОЛ!» costs nothing outside a silence, so a bot that looks ahead says it.
    Catches in a silence are said apart ("caught in the silence"): keeping quiet there is a choice."""
    games = 30
    assert main(["simulate", str(ROOT / "games" / "lol.game"), "--games", str(games), "--players", "2",
                 "--seats", "greedy", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)["said"]
    caught = said.get("ЛОЛ! caught", {"total": 0})["total"]
    assert caught / games < 0.05, f"{caught} catches outside a silence in {games} games"
    assert said["is out of cards!"]["total"] >= games  # every game was played through its rounds
