"""`gamedsl simulate`: the same figures whatever runs the games, the lines said, the cards that
arrive in tracked zones (copies counted together) and the means of the variables named."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "games" / "laus.game")
SHORT = ["--option", "target=200"]  # a low target keeps games short: a deal or two


@pytest.fixture(autouse=True)
def _no_tty_stdin(monkeypatch, tmp_path):
    """Every test runs in its own folder, with an input that is not a terminal and is empty."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def test_simulate_json_is_reproducible(capsys):
    argv = ["simulate", GAME, "--games", "6", "--seed", "3", "--seats", "greedy,random,random", "--json", *SHORT]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    second = capsys.readouterr().out
    assert first == second
    r = json.loads(first)
    assert r["games"] == 6 and r["players"] == 3 and len(r["per_seat"]) == 3
    for s in r["per_seat"]:
        assert s["wins"] + s["losses"] + s["draws"] == 6 - r["limit_hit"]
        assert 1 <= s["mean_place"] <= 3 and "mean_score" in s
    assert r["moves"]["min"] <= r["moves"]["mean"] <= r["moves"]["max"]
    assert r["rounds"]["min"] >= 1


def test_simulate_with_worker_processes_gives_the_same_figures(tmp_path, monkeypatch, capsys):
    from rich.console import Console

    from gamedsl.tools import simulate as S

    argv = ["simulate", GAME, "--games", "5", "--seats", "greedy,random,random", "--track", "won", "--json", *SHORT]
    assert main(argv) == 0
    one = capsys.readouterr().out
    screen = io.StringIO()
    monkeypatch.setattr(S, "stderr", lambda: Console(file=screen, force_terminal=True, width=120))
    assert main(argv + ["--jobs", "2"]) == 0
    assert capsys.readouterr().out == one
    assert "simulating" in screen.getvalue() and "5/5" in screen.getvalue() and "games/s" in screen.getvalue()


def test_simulate_table_and_function(capsys):
    assert main(["simulate", GAME, "--games", "3", "--players", "4", "--seats", "random", *SHORT]) == 0
    out = capsys.readouterr().out
    assert "3 games, 4 players" in out and "P4" in out and "moves" in out
    from gamedsl.tools.simulate import simulate
    r = simulate(gamedsl.load_game(GAME), 3, players=4, seed=0, seats=["random"], options={"target": "200"})
    assert json.loads(json.dumps(r))["per_seat"][3]["player"] == "P4"
    # Game i of a simulation is `gamedsl play --seed S+i` with the same seats.
    from gamedsl.tools.simulate import play_bot_game
    state = play_bot_game(gamedsl.load_game(GAME), 4, 1, ["random"] * 4, {"target": 200})
    assert state.is_terminal()


def test_simulate_counts_said_lines_and_the_arrivals_in_tracked_zones(tmp_path, capsys):
    game_file = tmp_path / "lay.game"
    game_file.write_text('''game "Lay"
players 2
attribute rank: 1, 2, 3, 4, 5
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
action lay (c in me.hand) { move c to table }
setup { shuffle deck }
round {
  deal 2 from deck to hand
  for each p in players { turn p { choose lay } }
  say "two cards laid"
  if any(c in table if c.rank == 5) { say "a five was laid" }
  end game
}
outcome { for each p in players { win p } }
''', encoding="utf-8")
    from gamedsl.tools.simulate import play_bot_game, simulate
    game = gamedsl.load_game(game_file)
    r = simulate(game, 10, players=2, seats=["random"], track=["table", "hand"])
    tables = [play_bot_game(game, 2, seed, ["random"]).zone_cards("table") for seed in range(10)]
    for c in range(5):
        laid = sum(c in table for table in tables)  # every card reaches the table at most once a game
        assert r["arrivals"]["table"][game.card_name(c)] == {"total": laid, "games": laid}
    assert sum(n["total"] for n in r["arrivals"]["hand"].values()) == 10 * 4  # 2 cards dealt to each player
    fives = sum(any(game.card_name(c) == "5" for c in table) for table in tables)
    assert r["said"] == {"two cards laid": {"total": 10, "games": 10},
                         **({"a five was laid": {"total": fives, "games": fives}} if fives else {})}
    assert main(["simulate", str(game_file), "--games", "10", "--seats", "random", "--track", "table"]) == 0
    out = capsys.readouterr().out
    assert "arrivals in table" in out and "two cards laid" in out
    assert main(["simulate", str(game_file), "--games", "1", "--track", "tabel"]) == 1
    assert "Lay has no zone 'tabel'" in capsys.readouterr().err


def test_tracked_arrivals_count_identical_copies_together():
    """Issue 42: two Berries laid in a game were reported as 0 (the second copy's count replaced the
    first's under their one name). Copies are one kind: their arrivals add up."""
    from gamedsl.tools.simulate import play_bot_game, simulate
    game = gamedsl.load_source('''game "Pairs"
players 2
attribute rank: 1, 2, 3
cards rank times 2
zone deck: hidden, stack
zone hand per player: owner
zone table: public
action lay (c in me.hand) { move c to table }
setup { shuffle deck  deal 3 from deck to hand }
round { for each p in players { turn p { choose lay } }  end game }
outcome { for each p in players { win p } }
''', "pairs.game")
    r = simulate(game, 20, players=2, seats=["random"], track=["table"])
    tables = [[game.card_name(c) for c in play_bot_game(game, 2, seed, ["random"]).zone_cards("table")]
              for seed in range(20)]
    assert list(r["arrivals"]["table"]) == ["1", "2", "3"]
    for name in ("1", "2", "3"):
        assert r["arrivals"]["table"][name] == {"total": sum(t.count(name) for t in tables),
                                                "games": sum(name in t for t in tables)}
    assert any(t.count("1") == 2 or t.count("2") == 2 or t.count("3") == 2 for t in tables)


def test_simulate_averages_any_number_variable_named(capsys):
    """Issue 42: `mean score` was the only mean. --mean averages any number variable at the end:
    per seat for one of each player, once for a shared one; a name that is not one is an error."""
    from gamedsl.tools.simulate import play_bot_game, simulate
    path = ROOT / "games" / "sushi_go.game"
    game = gamedsl.load_game(path)
    r = simulate(game, 6, players=3, seats=["random"], means=["nigiri_points", "rounds"])
    states = [play_bot_game(game, 3, seed, ["random"]) for seed in range(6)]
    for k, row in enumerate(r["per_seat"]):
        assert row["means"] == {"nigiri_points": sum(s.var("nigiri_points", k) for s in states) / 6}
    assert r["means"]["rounds"]["mean"] == sum(s.var("rounds") for s in states) / 6
    assert main(["simulate", str(path), "--games", "2", "--seats", "random", "--mean", "nigiri_points"]) == 0
    assert "mean" in capsys.readouterr().out
    assert main(["simulate", str(path), "--games", "1", "--mean", "nigiri_point"]) == 1
    assert "Sushi Go has no variable 'nigiri_point' (did you mean 'nigiri_points'?)" in capsys.readouterr().err
