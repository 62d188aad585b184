"""`gamedsl analyze`: the design report's metrics on games with known answers, versions side by
side, the same figures whatever runs the games (processes, Ray), the HTML page, and bad input."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.tools.analysis import command as C
from gamedsl.tools.analysis.observe import _lead
from gamedsl.tools.cli import main

# Seat 1 always wins. The modifier, the action 'shout' and its 'say' can never fire (no hand holds
# more than 2 cards); the trigger fires when a 1 is dealt. Every player has 2 cards and lays both:
# of the 4 decisions of a 2-player game, the 2 last ones have one legal move.
RIGGED = '''game "Rigged"
players 2 to 3
option laps = 2 "turns each player takes"
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var pts per player = 0
var laps_done = 0
param bonus per player = 0
modifier lucky while count(owner.hand) > 5 { bonus += 1 }
action lay (c in me.hand) { move c to table  me.pts += number(c.rank) }
action shout "shout" if count(me.hand) > 5 { say "never said" }
on move c from deck to p.hand if c.rank == 1 { say "dealt a 1" }
setup { shuffle deck  deal 2 from deck to hand }
round {
  for each p in players { turn p { choose lay, shout } }
  laps_done += 1
}
end game when laps_done == laps
heuristic me.pts
outcome { for each p in players { if p == seat(1) { win p } else { lose p } } }
'''

# Whoever still holds the 6 after laying two of three cards wins: a bot that looks ahead keeps it,
# a random one lays it two times in three.
KEEPER = '''game "Keeper"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var laps_done = 0
action lay (c in me.hand) { move c to table }
setup { shuffle deck  deal 3 from deck to hand }
round {
  for each p in players { turn p { choose lay } }
  laps_done += 1
}
end game when laps_done == 2
heuristic if any(c in me.hand if c.rank == 6) then 1 else 0
outcome { for each p in players { if any(c in p.hand if c.rank == 6) { win p } else { lose p } } }
'''


@pytest.fixture(autouse=True)
def _in_tmp(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    Path("rigged.game").write_text(RIGGED, encoding="utf-8")
    Path("keeper.game").write_text(KEEPER, encoding="utf-8")


def run_json(capsys, *argv) -> dict:
    assert main(["analyze", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    out.pop("elapsed"), out.pop("jobs")
    return out


def rigged(capsys, *extra) -> dict:
    return run_json(capsys, "rigged.game", "--games", "40", "--seats", "random", "--bot", "random", "--jobs", "1",
                    *extra)


# ---- one version

def test_a_game_rigged_for_seat_1_is_reported_unfair_with_its_p_value(capsys):
    m = rigged(capsys)["versions"][0]["metrics"]
    f = m["fairness"]
    assert f["expected"] == 0.5
    seat1, seat2 = f["per_seat"]
    assert (seat1["count"], seat1["n"], seat1["rate"]) == (40, 40, 1.0)
    assert seat1["ci"][0] == pytest.approx(0.9124, abs=1e-4)  # Wilson, 40 of 40
    assert seat1["p"] == pytest.approx(2.0 ** -39) and seat2["p"] == pytest.approx(2.0 ** -39)
    assert seat1["mean_place"] is None and f["seats_p"] < 1e-9  # the game gives no places, only results
    assert f["findings"][0] == "seat 1 wins 100% (91%–100%), expected 50%: an advantage for seat 1, p < 0.001"
    assert f["first_player"]["rate"] == 1.0  # seat 1 always decides first here


def test_length_and_pace_count_moves_rounds_and_forced_decisions(capsys):
    ln = rigged(capsys)["versions"][0]["metrics"]["length"]
    assert ln["moves"] == {"mean": 4, "ci": [4, 4], "median": 4, "min": 4, "max": 4}
    assert ln["turns_per_player"]["mean"] == 2 and ln["rounds"]["mean"] == 2
    assert ln["forced_share"] == 0.5 and ln["mean_choices"] == 1.5 and ln["limit_hit"] == 0
    assert ln["moves_list"] == [4] * 40


def test_coverage_lists_what_never_fired_with_its_line(capsys):
    cov = rigged(capsys)["versions"][0]["metrics"]["coverage"]
    never = {(e["kind"], e["name"], e["where"]) for e in cov["never"]}
    assert never == {("modifier", "lucky", "rigged.game:12:10"), ("action", "shout", "rigged.game:14:8"),
                     ("say", "say", "rigged.game:14:46")}
    shares = {(e["kind"], e["line"]): e["share"] for e in cov["elements"]}
    assert shares[("action", 13)] == 1.0 and shares[("statement", 16)] == 1.0  # lay; the setup's shuffle
    # a 1 is among the 4 cards dealt from 6 in 2/3 of the deals: the trigger and its 'say' fire in those games
    assert 0.4 < shares[("trigger", 15)] < 0.95 and shares[("say", 15)] == shares[("trigger", 15)]


def test_the_lead_counts_changes_when_the_winner_trailed_and_when_it_was_decided():
    # after each move: the strict leader (-1: a tie) and who is strictly behind (a bit per player)
    got = _lead([0, 0, 1, -1, 1, 0, 0], [2, 2, 1, 0, 1, 2, 2], [0])
    assert got == {"changes": 2, "behind": True, "behind_share": 2 / 7, "decided_at": 5 / 7}
    assert _lead([1, 1], [1, 1], [1])["decided_at"] == 0.0  # led from the first move on
    assert _lead([1, 0], [1, 2], [1])["decided_at"] == 1.0  # only the end decided it
    assert _lead([0, 1], [2, 1], [0, 1])["behind"] is None  # two winners: no single winner to follow


def test_the_tension_of_a_rigged_game_follows_its_heuristic(capsys):
    t = rigged(capsys)["versions"][0]["metrics"]["tension"]
    assert t["measured"] and t["games_with_one_winner"] == 40
    # seat 1 wins whatever the points: it is behind on points whenever seat 2 laid more
    assert 0 < t["winner_behind"]["rate"] < 1 and 0 <= t["decided_at"]["mean"] <= 1


def test_skill_and_card_impact_show_in_a_game_a_bot_can_win_by_keeping_a_card(capsys):
    m = run_json(capsys, "keeper.game", "--games", "100", "--skill-games", "160", "--seats", "random",
                 "--jobs", "1")["versions"][0]["metrics"]
    (s,) = m["skill"]  # greedy against random
    assert (s["bot"], s["against"], s["n"]) == ("greedy", "random", 160)
    assert s["rate"] > s["fair"] and s["p"] < 0.01 and "skill matters" in s["finding"]
    best, *others = m["cards"]["held"]  # the best first
    assert best["card"] == "6" and best["significant"]
    assert best["with"]["rate"] == 1.0 and best["without"]["rate"] == 0.0
    assert all(row["diff"] < 0 for row in others)  # who keeps another card does not keep the 6


# ---- versions

def test_two_identical_versions_show_no_significant_difference(capsys):
    Path("copy.game").write_text(RIGGED, encoding="utf-8")
    r = rigged(capsys, "--compare", "copy.game")
    assert [v["label"] for v in r["versions"]] == ["rigged.game", "copy.game"]
    (c,) = r["comparisons"]
    assert c["rows"] and not any(row["significant"] for row in c["rows"])
    assert all(row["diff"] in (0, None) for row in c["rows"])


def test_a_sweep_plays_the_same_seeds_for_each_value_and_finds_the_change(capsys):
    r = rigged(capsys, "--sweep", "laps=1,2")
    assert [v["label"] for v in r["versions"]] == ["laps=1", "laps=2"]
    assert [v["options"]["laps"] for v in r["versions"]] == [1, 2]
    (c,) = r["comparisons"]
    moves = next(row for row in c["rows"] if row["metric"] == "moves per game")
    assert (moves["base"], moves["other"], moves["diff"], moves["significant"]) == (2, 4, 2, True)
    forced = next(row for row in c["rows"] if row["metric"] == "decisions with one legal move")
    assert (forced["base"], forced["other"]) == (0.0, 0.5) and forced["significant"]


def test_the_terminal_prints_the_headlines_and_the_comparison(capsys):
    assert main(["analyze", "rigged.game", "--games", "20", "--seats", "random", "--bot", "random", "--jobs", "1",
                 "--compare-option", "laps=1"]) == 0
    out = capsys.readouterr().out
    assert "fairness  seat 1 wins 100% (84%–100%), expected 50%: an advantage for seat 1, p < 0.001" in out
    assert "never: rigged.game:14:8: action shout" in out
    assert "laps=1 against as given (the same seeds)" in out and "moves per game" in out


# ---- how the games are run

def test_progress_shows_games_rate_and_time_left_on_a_terminal_only(monkeypatch, capsys):
    from rich.console import Console

    screen = io.StringIO()
    monkeypatch.setattr(C, "stderr", lambda: Console(file=screen, force_terminal=True, width=120))
    rigged(capsys, "--games", "6", "--skill-games", "2")
    shown = screen.getvalue()
    assert "analyze" in shown and "8/8" in shown and "games/s" in shown and "ETA" in shown
    screen.truncate(0)
    monkeypatch.setattr(C, "stderr", lambda: Console(file=screen, force_terminal=False, width=120))
    rigged(capsys, "--games", "6", "--skill-games", "2")
    assert screen.getvalue() == ""



def test_worker_processes_give_the_same_report(capsys):
    one = rigged(capsys, "--compare-option", "laps=1")
    two = rigged(capsys, "--compare-option", "laps=1", "--jobs", "2")
    assert one == two


def test_a_ray_cluster_gives_the_same_report(capsys):
    import ray

    one = rigged(capsys)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = rigged(capsys, "--ray", "auto")
    finally:
        ray.shutdown()
    assert on_ray == one


def test_the_html_report_is_one_page_with_its_plots(capsys):
    assert main(["analyze", "rigged.game", "--games", "20", "--seats", "random", "--bot", "random", "--jobs", "1",
                 "--sweep", "laps=1,2", "--out", "report.html"]) == 0
    assert "report written to report.html" in capsys.readouterr().out
    page = Path("report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 4  # seats and lengths, per version
    assert "Versions side by side" in page and "seat 1 wins 100%" in page and "rigged.game:14:8" in page
    assert "<script" not in page and "<link" not in page and "src=" not in page  # nothing to fetch: opens offline


def test_the_python_api_matches_the_command(capsys):
    game = gamedsl.load_game("rigged.game")
    r = C.analyze([C.Version("rigged.game", game, {"laps": 2})], 2, 40, ["random", "random"], "random", 20)
    assert r == rigged(capsys)


# ---- bad input

@pytest.mark.parametrize("argv, message", [
    (["--sweep", "lapz=1,2"], "Rigged has no option 'lapz' (its options: laps)"),
    (["--sweep", "laps=1"], "--sweep laps= needs at least two values"),
    (["--compare", "keeper.game"], "keeper.game is for 2 players, the game for 2 to 3 players"),
    (["--out", "no/such/folder/r.html"], "the folder no/such/folder does not exist"),
    (["--out", "."], "that is a folder"),
    (["--bot", "genius"], "'genius' is not a bot"),
    (["--sweep", "laps=1,2", "--compare-option", "laps=1"], "give one of --sweep, --compare and --compare-option"),
    (["--ray", "nonsense"], "'nonsense' is not a Ray address: give HOST:PORT, ray://HOST:PORT or auto"),
    (["--ray", "127.0.0.1:1"], "cannot reach the Ray cluster at '127.0.0.1:1'"),
])
def test_bad_arguments_exit_2_with_one_line_before_any_game(capsys, argv, message):
    assert main(["analyze", "rigged.game", "--games", "5", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamedsl analyze: error: ") and message in err and "Traceback" not in err


def test_zero_games_is_a_usage_error(capsys):
    assert main(["analyze", "rigged.game", "--games", "0"]) == 2
    assert "expected a number from 1, not 0" in capsys.readouterr().err
