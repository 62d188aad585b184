"""`gamedsl analyze` on rules: the rules behind the longest games and behind the games won from
behind, and the rules that cannot fire at this player count or with these options."""
from __future__ import annotations

from pathlib import Path

import pytest

from test_analyze import run_json


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


STALL = '''game "Stall"
players 2
attribute rank: 1, 2
cards rank
zone deck: hidden
var left = 4
action go "go" { left -= 1 }
action stall "stall" if left == 4 { left += 10 }
round { turn seat(1) { choose go, stall }  turn seat(2) { choose go } }
end game when left <= 0
outcome { win seat(1) }
'''


# Waving needs a third player; the bonus line needs the option. Neither can fire at 2 players
# with the defaults.
REACH = '''game "Reach"
players 2 to 4
option bonus = false "a bonus line at the start"
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
action lay (c in me.hand) { move c to table }
action wave "wave to the third player" if count(players) >= 3 { say "waves" }
setup { shuffle deck  deal 1 from deck to hand  if bonus { say "a bonus round" } }
round { for each p in players { turn p { choose lay, wave } } }
end game when true
outcome { for each p in players { win p } }
'''


# In the last round the player behind may rally for 10 points: the games won from behind are
# those in which someone rallied.
RALLY = '''game "Rally"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank times 3
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var pts per player = 0
var laps = 0
action lay (c in me.hand) { move c to table  me.pts += number(c.rank) }
action rally "rally: 10 points" if laps == 2 and me.pts < max(q.pts for q in players) { me.pts += 10 }
setup { shuffle deck  deal 3 from deck to hand }
round {
  for each p in players { turn p { choose lay, rally } }
  laps += 1
}
end game when laps == 3
heuristic me.pts
outcome {
  places p in players by p.pts descending
  for each p in players { if p.pts > max(q.pts for q in players if q != p) { win p } else { lose p } }
}
'''


def test_the_rule_behind_the_games_won_from_behind_is_named(capsys):
    Path("rally.game").write_text(RALLY, encoding="utf-8")
    m = run_json(capsys, "rally.game", "--seats", "random", "--skill-games", "2", "--probes", "0",
                 "--jobs", "1")["versions"][0]["metrics"]
    found = m["tension"]["causes"]
    assert found["measured"] and found["group"].endswith("whose winner did not lead after round 2 of 3)")
    (top,) = found["rows"]
    assert top["what"] == "the action at rally.game:11:8" and top["long"] > 0.85 and top["rest"] < 0.5
    assert any(f["topic"] == "tension" and f["text"].startswith("the games won from behind (")
               and "have the action at rally.game:11:8" in f["text"] for f in m["findings"])


def test_rules_that_cannot_fire_at_this_player_count_or_option_are_said_to_be_so(capsys):
    Path("reach.game").write_text(REACH, encoding="utf-8")
    m = run_json(capsys, "reach.game", "--games", "20", "--skill-games", "2", "--probes", "0",
                 "--jobs", "1")["versions"][0]["metrics"]
    where = {(row["kind"], row["name"], row["line"]): row["fires_in"] for row in m["coverage"]["never"]}
    assert where == {("action", "wave", 10): ["3 players", "4 players"], ("say", "say", 10): ["3 players", "4 players"],
                     ("say", "say", 11): ["bonus=true"]}
    (said,) = [f["text"] for f in m["findings"] if f["topic"] == "rules"]
    assert said.startswith(f"{len(where)} rules never fired in 20 games: {len(where)} fire only at other player "
                           "counts or with other options (such as reach.game:")
    assert "which fires at 3, 4 players" in said or "which fires with bonus=true" in said


def test_the_rule_behind_the_longest_games_is_named(capsys):
    """Issue 41: every Law game over 209 moves used A♦'s "discard 2 to draw 1", found by a trace
    written by hand. Here 'stall' (open only at the start) makes a game about three times as long:
    the report names it as what the longest games have in common."""
    Path("stall.game").write_text(STALL, encoding="utf-8")
    m = run_json(capsys, "stall.game", "--games", "100", "--seats", "random", "--bot", "random", "--jobs", "1",
                 "--skill-games", "2", "--probes", "0")["versions"][0]["metrics"]
    causes = m["length"]["causes"]
    top = causes["rows"][0]
    # the stalled games are all as long (16 moves): every one is among the longest, the others 4 moves
    assert causes["moves_over"] == 16 and 30 < causes["games"] < 70
    assert top["what"] == "the action at stall.game:8:8" and (top["long"], top["rest"]) == (1.0, 0.0)
    assert top["q"] < 0.001
    said = [f["text"] for f in m["findings"] if f["topic"] == "length"]
    assert f"the longest games ({causes['games']}, of 16 moves or more) have the action at stall.game:8:8 " \
           '(action stall "stall" if left == 4 { left += 10 }) in common: in 100% of them, against 0% of the ' \
           "others (q < 0.001)" in said, said
