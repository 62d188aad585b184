"""Teams: `players 4 in 2 teams` (seat k plays in team k mod N), a variable kept per team, results
given to a whole team, `team(p)` and `partners(p)`, and views that name the partners."""
import random

import pytest

import gamedsl
from gamedsl.errors import SourceError
from gamedsl.tools.render import view_renderable

PAIRS = '''game "Pairs"
players 4 in 2 teams
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
cards rank times 3
zone deck: hidden, stack
zone hand per player: owner
zone won per player: public
var points per team = 0 "team points"
var plays per player = 0

action play "play" (c in me.hand) {
  move c to me.won
  me.points += c.rank
  me.plays += 1
}
action gift "gift" (c in me.hand) if count(partners(me)) > 0 {
  move c to nth(partners(me), 1).hand
}
setup { shuffle deck  deal 2 from deck to hand }
round {
  for each p in players { turn p { choose play, gift } }
  if count(deck) < count(players) { end game }
  for each p in players { move top(deck) to p.hand }
}
outcome {
  places p in players by p.points descending
  for each p in players {
    if p.points > max(q.points for q in players if team(q) != team(p)) { win p }
  }
}
'''


def game_of(text=PAIRS):
    return gamedsl.load_source(text, "pairs.game")


def play_out(state, seed=1):
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_partners_sit_apart_and_team_and_partners_name_them():
    six = gamedsl.load_source(PAIRS.replace("players 4 in 2 teams", "players 6 in 2 teams"), "p.game")
    assert six.new_state(players=6, seed=1).observation(0)["teams"] == [["P1", "P3", "P5"], ["P2", "P4", "P6"]]
    three = gamedsl.load_source(PAIRS.replace("players 4 in 2 teams", "players 6 in 3 teams"), "p.game")
    assert three.new_state(players=6, seed=1).observation(5)["teams"] == [["P1", "P4"], ["P2", "P5"], ["P3", "P6"]]
    four = game_of().new_state(players=4, seed=1)
    assert four.observation(2)["teams"] == [["P1", "P3"], ["P2", "P4"]]
    rules = PAIRS.replace("var plays per player = 0", "var plays per player = 0\nvar seen: number\nvar mates: number")
    rules = rules.replace("outcome {", '''on turn start { seen = team(me)  mates = number(nth(partners(me), 1)) }
outcome {''')
    game = gamedsl.load_source(rules, "t.game")
    state = game.new_state(players=4, seed=1)  # P1's turn started
    assert (state.var("seen"), state.var("mates")) == (1, 3)
    state.apply_action(state.legal_actions()[0])  # P2's turn
    assert (state.var("seen"), state.var("mates")) == (2, 4)


def test_a_team_s_variable_is_one_value_written_and_read_through_any_partner():
    game = game_of()
    state = game.new_state(players=4, seed=3)
    hand = game.zone_instance("hand", 0)
    first = state.z[hand][0]
    state.apply_action(game.string_to_action(state, f"play {game.card_name(first)}"))
    rank = game.prog.card_attrs["rank"][first] + 1
    assert [state.var("points", p) for p in range(4)] == [rank, 0, rank, 0]
    assert [state.var("plays", p) for p in range(4)] == [1, 0, 0, 0]  # per player: P1's own


def test_a_win_is_the_whole_team_s_and_partners_share_their_place():
    game = game_of()
    for seed in range(6):
        state = play_out(game.new_state(players=4, seed=seed), seed)
        points = [state.var("points", p) for p in range(4)]
        assert points[0] == points[2] and points[1] == points[3]
        assert state.results[0] == state.results[2] and state.results[1] == state.results[3]
        assert state.places[0] == state.places[2] and state.places[1] == state.places[3]
        winner = 0 if points[0] > points[1] else 1 if points[1] > points[0] else None
        assert state.results == ([None] * 4 if winner is None else
                                 ["win" if p % 2 == winner else None for p in range(4)])


def test_a_move_to_a_partner_and_a_scenario_setting_a_team_value(tmp_path):
    game = game_of()
    state = game.new_state(players=4, seed=3)
    gift = next(a for a in state.legal_actions() if game.action_to_string(a).startswith("gift"))
    card = game.decoded[gift][1]
    state.apply_action(gift)
    assert state.loc[card] == game.zone_instance("hand", 2)  # P1's partner is P3
    path = tmp_path / "pairs.game"
    path.write_text(PAIRS, encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text('''name: "a team's points are set for the whole team"
players: 4
vars: {points: {P2: 7}}
moves:
  - expect:
      vars: {points: {P1: 0, P2: 7, P3: 0, P4: 7}}
''', encoding="utf-8")
    from gamedsl.tools.scenario import run_scenario
    failures, checks = run_scenario(gamedsl.load_game(path), scenario)
    assert failures == [] and checks == 4


def test_the_table_marks_each_player_s_team_and_the_viewer_s_partner():
    game = game_of()
    state = game.new_state(players=4, seed=3)
    from rich.console import Console
    console = Console(width=100, record=True)
    console.print(view_renderable(state.observation(1)))
    text = console.export_text()
    assert "P2 (you) team 2" in text and "P4 (partner) team 2" in text and "P3 team 1" in text
    assert "(partner)" not in text.split("P3")[1].split("\n")[0]


@pytest.mark.parametrize("change, message", [
    (("players 4 in 2 teams", "players 3 to 4 in 2 teams"),
     "players split evenly into 2 teams, but 'players 3 to 4' allows 3"),
    (("players 4 in 2 teams", "players 4 in 1 teams"), "a game in teams has two or more"),
    (("players 4 in 2 teams", "players 4"), "'points' is kept per team, but the game has no teams"),
    (("var points per team = 0", "owner var points per team = 0"),
     "only a per-player variable has an owner to show it to"),
])
def test_mistakes_with_teams_are_reported_by_the_check(change, message):
    with pytest.raises(SourceError) as err:
        game_of(PAIRS.replace(*change))
    assert message in str(err.value)


def test_team_and_partners_need_teams():
    text = PAIRS.replace("players 4 in 2 teams", "players 4").replace("var points per team", "var points per player")
    with pytest.raises(SourceError) as err:
        game_of(text)
    assert "'partners' asks about teams, but the game has none" in str(err.value)
    assert "'team' asks about teams, but the game has none" in str(err.value)
