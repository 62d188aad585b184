"""Graded results: `grade P by E of N` (a patience's cards home, a race's points): the return runs from
-1 (none of it) to +1 (all of it), the table says "37 of 52", and bots aim for more of it."""
import pytest

import gamedsl
from gamedsl.bots import make_bot

GRADED = '''game "Graded"
players 1
attribute rank: 1, 2, 3, 4, 5
cards rank
zone deck: hidden, stack
zone home: public, stack
action keep "keep" { move top(deck) to home }
action stop "stop here" { end game }
setup { shuffle deck }
round { turn seat(1) { choose keep, stop }  if count(deck) == 0 { end game } }
outcome { grade seat(1) by count(home) of OUT_OF }
'''


def played(kept: int, out_of: str = "5"):
    game = gamedsl.load_source(GRADED.replace("OUT_OF", out_of), "g.game")
    state = game.new_state(players=1, seed=1)
    for _ in range(kept):
        state.apply_action(state.legal_actions()[0])
    if not state.is_terminal():
        state.apply_action(state.legal_actions()[1])
    return state


@pytest.mark.parametrize("kept, result, ret, shown", [
    (0, "lose", -1.0, "0 of 5"), (2, None, -0.2, "2 of 5"), (4, None, 0.6, "4 of 5"), (5, "win", 1.0, "5 of 5")])
def test_a_graded_result_is_its_share_of_the_whole(kept, result, ret, shown):
    state = played(kept)
    assert state.results == [result] and state.returns() == [pytest.approx(ret)]
    assert state.observation(0)["grades"] == {"P1": shown}


def test_a_grade_out_of_nothing_stops_the_game_with_a_located_error():
    with pytest.raises(gamedsl.GamedslError) as info:
        played(1, "count(deck) * 0")
    assert "a grade is out of a number above 0, not 0" in str(info.value)


def test_the_results_table_says_the_grade():
    from rich.console import Console

    from gamedsl.tools.play import _print_results
    state = played(3)
    console = Console(width=100, record=True)
    _print_results(console, state.game, state, ["human"])
    row = next(line for line in console.export_text().splitlines() if line.startswith("P1"))
    assert row.split()[3:7] == ["3", "of", "5", "+0.2"]


@pytest.mark.parametrize("bot", ["greedy", "ismcts:100"])
def test_bots_aim_for_more_of_a_grade_than_random_play(bot):
    game = gamedsl.load_source(GRADED.replace("OUT_OF", "5"), "g.game")
    totals = {}
    for spec in (bot, "random"):
        total = 0.0
        for seed in range(20):
            state = game.new_state(players=1, seed=seed)
            player = make_bot(spec, seed)
            while not state.is_terminal():
                state.apply_action(player.choose(state))
            total += state.returns()[0]
        totals[spec] = total / 20
    assert totals[bot] > 0.5 and totals["random"] < 0, totals


STUCK = """game "Stuck"
players 1
option can_keep = true "a card may go home"
option can_stop = true "the player may stop"
attribute rank: 1, 2, 3, 4, 5
cards rank
zone deck: hidden, stack
zone home: public, stack
var waited: number
action keep "keep" if can_keep { move top(deck) to home }
action wait "wait" { waited += 1 }
action stop "stop here" if can_stop { end game }
setup { shuffle deck  move top(deck) to home }
round { turn seat(1) { choose keep, wait, stop }  if count(deck) == 0 { end game } }
outcome { grade seat(1) by count(home) of 5 }
"""


def test_a_bot_stops_a_graded_game_when_going_on_gains_nothing():
    """Offered only 'wait' (nothing changes) and 'stop', greedy stops at once: a graded game over ranks
    above one going on at the same grade. Before, it waited to the move limit (an unfinished game was
    worth 0, more than a grade below half)."""
    game = gamedsl.load_source(STUCK, "g.game")
    state = game.new_state(players=1, seed=1, options={"can_keep": False})
    state.apply_action(make_bot("greedy", 1).choose(state))
    assert state.is_terminal() and state.grades == [(1, 5)]
    state = game.new_state(players=1, seed=1)
    assert game.action_to_string(make_bot("greedy", 1).choose(state)) == "keep"  # a card home is worth more


def test_at_the_move_limit_a_graded_result_stands():
    game = gamedsl.load_source(STUCK.replace('players 1', 'players 1\nlimit 4 moves'), "g.game")
    state = game.new_state(players=1, seed=1, options={"can_stop": False})
    for name in ("keep", "wait", "wait", "wait", "wait"):
        if state.is_terminal():
            break
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == name))
    assert state.limit_hit and state.grades == [(2, 5)] and state.returns() == [pytest.approx(-0.2)]
