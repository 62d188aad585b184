"""`gamedsl arena`: the statistics against known values, the rotation, real runs, determinism, errors."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import RandomAgent
from gamedsl.tools import arena as A
from gamedsl.tools.cli import main
from gamedsl.tools.simulate import play_bot_game
from test_cli import DRY, DRY_ERROR

ROOT = Path(__file__).resolve().parents[1]
EIGHTS = str(ROOT / "games" / "crazy_eights.game")
LAUS = str(ROOT / "games" / "laus.game")
SHORT = ["--option", "target=30"]  # Crazy Eights to 30 points: a round or two


@pytest.fixture(autouse=True)
def _no_tty_stdin(monkeypatch, tmp_path):
    """Every test runs in its own folder, with an input that is not a terminal."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def run_json(capsys, *argv) -> dict:
    assert main(["arena", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def without_timings(result: dict) -> dict:
    for row in result["per_entry"]:
        row.pop("seconds_per_move")
    return result


# ---- entries and the rotation

def test_entry_names_number_a_repeated_spec():
    assert A.entry_names(["greedy", "random", "greedy"]) == ["greedy #1", "random", "greedy #2"]
    assert A.entry_names(["ismcts:200", "greedy"]) == ["ismcts:200", "greedy"]


@pytest.mark.parametrize("k", [2, 3, 4])
def test_every_entry_sits_in_every_position_once_a_deal_with_one_seed(k):
    tasks = A.schedule(2 * k + 1, k, seed=10)
    assert len(tasks) == 3 * k  # rounded up to whole deals
    for deal in range(3):
        block = tasks[deal * k:(deal + 1) * k]
        assert {seed for _, _, seed in block} == {10 + deal}
        seatings = [A.seating(k, r) for _, r, _ in block]
        for e in range(k):
            assert sorted(s.index(e) for s in seatings) == list(range(k))
    assert A.seating(3, 0) == [0, 1, 2] and A.seating(3, 1) == [2, 0, 1]


def test_the_arena_plays_the_rotations_it_schedules(monkeypatch, capsys):
    played = []
    real = A.play_timed

    def spy(game, seed, specs, options):
        played.append((seed, tuple(specs)))
        return real(game, seed, specs, options)

    monkeypatch.setattr(A, "play_timed", spy)
    r = run_json(capsys, EIGHTS, "--seats", "random,greedy,greedy", "--games", "5", "--seed", "7", *SHORT)
    assert r["games_asked"] == 5 and r["games"] == 6 and r["deals"] == 2 and r["seeds"] == [7, 8]
    assert played == [(7, ("random", "greedy", "greedy")), (7, ("greedy", "random", "greedy")),
                      (7, ("greedy", "greedy", "random")), (8, ("random", "greedy", "greedy")),
                      (8, ("greedy", "random", "greedy")), (8, ("greedy", "greedy", "random"))]


# ---- real runs

def test_random_against_greedy_on_crazy_eights(capsys):
    r = run_json(capsys, EIGHTS, "--seats", "random,greedy", "--games", "8", "--seed", "3", *SHORT)
    assert r["game"] == "Crazy Eights" and r["players"] == 2 and r["entries"] == ["random", "greedy"]
    assert r["games"] == 8 and r["deals"] == 4 and r["rotations"] == 2 and r["options"] == {"target": 30}
    # Each game is `gamedsl play --seed S --seats ...`: replaying them gives the same wins per entry.
    game = gamedsl.load_game(EIGHTS)
    wins = {"random": [0, 0], "greedy": [0, 0]}  # per position
    for deal in range(4):
        for seats in (["random", "greedy"], ["greedy", "random"]):
            state = play_bot_game(game, 2, 3 + deal, seats, {"target": 30})
            for p, result in enumerate(state.results):
                wins[seats[p]][p] += result == "win" and not state.limit_hit
    for row in r["per_entry"]:
        assert row["wins_by_position"] == wins[row["entry"]] and row["games"] == 8
        assert row["wins"] == sum(row["wins_by_position"])
        assert row["win_rate"] == row["wins"] / 8
        assert row["win_rate_ci"] == pytest.approx(list(A.wilson(row["wins"], 8)))
        assert 1 <= row["mean_place"] <= 2 and -1 <= row["mean_return"] <= 1
        assert row["moves"] > 0 and row["seconds_per_move"] > 0
    assert sum(row["wins"] for row in r["per_entry"]) == 8 - r["limit_hit"]  # one winner a game
    (pair,) = r["pairs"]
    assert (pair["a"], pair["b"]) == ("random", "greedy")
    assert pair["win_rate"]["diff"] == pytest.approx(r["per_entry"][0]["win_rate"] - r["per_entry"][1]["win_rate"])
    assert set(pair["mean_return"]) == {"diff", "ci", "p", "significant"}


def test_the_same_seed_gives_the_same_figures(capsys):
    argv = [EIGHTS, "--seats", "greedy,random", "--games", "4", "--seed", "11", *SHORT]
    first, second = run_json(capsys, *argv), run_json(capsys, *argv)
    assert without_timings(first) == without_timings(second)
    other = run_json(capsys, EIGHTS, "--seats", "greedy,random", "--games", "4", "--seed", "12", *SHORT)
    assert other["seeds"] == [12, 13]


def test_a_repeated_bot_gives_two_entries_and_one_bot_fills_every_seat(capsys):
    r = run_json(capsys, EIGHTS, "--seats", "random", "--players", "3", "--games", "3", *SHORT)
    assert r["entries"] == ["random #1", "random #2", "random #3"] and r["seats"] == ["random"] * 3
    assert [(p["a"], p["b"]) for p in r["pairs"]] == [("random #1", "random #2"), ("random #1", "random #3"),
                                                     ("random #2", "random #3")]


def test_the_table(capsys):
    assert main(["arena", EIGHTS, "--seats", "random,greedy", "--games", "5", *SHORT]) == 0
    out = capsys.readouterr().out
    assert "Crazy Eights: 6 games (5 asked, rounded up to whole deals) = 3 deals × 2 seatings" in out
    assert "win rate (95% CI)" in out and "random − greedy" in out and "paired t-test" in out
    assert "reached the move limit" in out


def test_progress_goes_to_a_terminal_on_stderr_and_the_results_to_stdout(monkeypatch, capsys):
    from rich.console import Console

    screen = io.StringIO()
    monkeypatch.setattr(A, "stderr", lambda: Console(file=screen, force_terminal=True, width=100))
    assert main(["arena", EIGHTS, "--seats", "random,greedy", "--games", "4", "--json", *SHORT]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 4
    assert "arena" in screen.getvalue() and "4/4" in screen.getvalue()


def test_a_game_at_its_move_limit_has_no_winner_and_no_place(tmp_path, capsys):
    (tmp_path / "slow.game").write_text('''game "Slow"
players 2
limit 3 moves
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
action lay (c in me.hand) { move c to table }
setup { shuffle deck  deal 3 from deck to hand }
round { for each p in players { turn p { choose lay } } }
outcome { for each p in players { win p } }
''', encoding="utf-8")
    r = run_json(capsys, "slow.game", "--seats", "random,random", "--games", "2")
    assert r["limit_hit"] == 2
    for row in r["per_entry"]:
        assert row["wins"] == 0 and row["mean_return"] == 0 and row["mean_place"] is None


def test_worker_processes_give_the_same_figures():
    game = gamedsl.load_game(EIGHTS)
    one = A.arena(game, ["random", "greedy", "random"], 6, seed=4, options={"target": "30"})
    two = A.arena(game, ["random", "greedy", "random"], 6, seed=4, options={"target": "30"}, jobs=2)
    assert without_timings(one) == without_timings(two)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_failing_rule_names_the_game_to_replay(jobs, tmp_path, capsys):
    (tmp_path / "dry.game").write_text(DRY, encoding="utf-8")
    assert main(["arena", "dry.game", "--seats", "random,greedy", "--games", "4", "--jobs", jobs]) == 1
    assert capsys.readouterr().err.splitlines() == DRY_ERROR[:3] + [
        DRY_ERROR[3] + ", in deal 1, rotation 1 (seed 0, seats random,greedy)"]


# ---- significance, on games made up for the purpose

def made_up_games(wins_of_first: list[bool]) -> list[dict]:
    """Two entries, a game each: the first entry wins the games marked True, the second the others."""
    return [{"limit_hit": False, "position": [i % 2, (i + 1) % 2], "win": [w, not w], "return": [1.0 if w else -1.0, -1.0 if w else 1.0],
             "place": [1 if w else 2, 2 if w else 1], "moves": [3, 3], "seconds": [0.3, 0.03]}
            for i, w in enumerate(wins_of_first)]


def summary(wins_of_first):
    game = gamedsl.load_game(EIGHTS)
    tasks = A.schedule(len(wins_of_first), 2, 0)
    return A.summarize(game, ["ismcts", "random"], len(wins_of_first), 0, {}, tasks, made_up_games(wins_of_first))


def test_a_clear_difference_is_significant():
    r = summary([True, True, True, False] * 5)  # 15 of 20, and ahead in every deal pair of rotations
    first, second = r["per_entry"]
    assert first["better_than"] == ["random"] and second["worse_than"] == ["ismcts"]
    assert first["seconds_per_move"] == pytest.approx(0.1)
    assert r["pairs"][0]["win_rate"]["significant"] and r["pairs"][0]["win_rate"]["diff"] == 0.5
    assert A._verdicts(r) == ["ismcts wins significantly more often than random"]


def test_an_even_result_is_not_significant():
    r = summary([True, False, False, True] * 5)
    assert not r["pairs"][0]["win_rate"]["significant"] and r["per_entry"][0]["better_than"] == []
    assert A._verdicts(r) == ["no difference in win rate is significant at 5%"]
    assert A._verdicts(summary([True, False])) == [
        "one deal only: the pairs have no interval and no test; play more games"]


# ---- errors

@pytest.mark.parametrize("argv, message", [
    (["--seats", "random,alien", "--games", "4"], "'alien' is not a bot (the bots: random, greedy"),
    (["--seats", "random,", "--games", "4"], "an empty seat in --seats"),
    (["--seats", "random,human", "--games", "4"], "'human' is not a bot"),
    (["--seats", "random,greedy", "--games", "0"], "expected a number from 1, not 0"),
    (["--games", "4"], "the following arguments are required: --seats"),
    (["--seats", "random,greedy"], "the following arguments are required: --games"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    assert main(["arena", EIGHTS, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_spec_the_bots_refuse_is_a_usage_error(monkeypatch, capsys):
    def make_bot(spec, seed):
        if spec == "ismcts:0":
            raise ValueError("the budget must be at least 1")
        return RandomAgent(seed)

    monkeypatch.setattr(A, "make_bot", make_bot)
    assert main(["arena", EIGHTS, "--seats", "ismcts:0,random", "--games", "2"]) == 2
    assert capsys.readouterr().err.strip() == ("gamedsl arena: error: bad bot 'ismcts:0': "
                                               "the budget must be at least 1")


@pytest.mark.parametrize("argv, message", [
    ([LAUS, "--seats", "random,greedy"], "Laus is for 3 to 4 players, not 2"),
    ([EIGHTS, "--seats", "random,greedy", "--players", "3"], "2 seats given (random, greedy) for 3 players"),
    ([EIGHTS, "--seats", "random,greedy", "--option", "nope=1"], "no option 'nope'"),
    (["nowhere.game", "--seats", "random,greedy"], "nowhere.game: error: no such file"),
])
def test_errors_about_the_game_exit_1(argv, message, capsys):
    assert main(["arena", *argv, "--games", "2"]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_help(capsys):
    assert main(["arena", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: gamedsl arena" in out and "95%" in out and "95%%" not in out


def test_an_entry_is_named_as_written_even_where_rich_would_see_an_emoji(capsys):
    """`:100:` is an emoji code to rich: the spec ismcts:100:cut=1 must not become 'ismcts💯cut=1'."""
    assert main(["arena", EIGHTS, "--seats", "ismcts:100:cut=1,random", "--games", "2", "--option", "target=1"]) == 0
    out = capsys.readouterr().out
    assert "ismcts:100:cut" in out and "💯" not in out
