"""Simultaneous choices: `simultaneous a among PLAYERS`. Everyone chooses in secret; once all
have chosen, the choices are shown together and run in the order the players are listed."""
import json
import random

import pytest

import gamedsl
from gamedsl.bots.greedy import GreedyAgent
from gamedsl.engine.knowledge import Redealer
from gamedsl.tools.cli import main

# Each player picks a card of their hand, or one card of a shared market; what is picked goes
# in front of its player. Two picks of the same market card: the first listed gets it.
GAME = '''game "Pick"
players 2 to 3
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone market: public
zone shown per player: public
var points per player = 0
action pick "pick" (c in me.hand) { move c to me.shown  say "shows {c}" }
action grab "grab" (c in market) { move c to me.shown  say "grabs {c}" }
setup { shuffle deck  deal 2 from deck to hand  move 1 from deck to market }
round {
  simultaneous pick, grab among players
  for each p in players { p.points = count(p.shown) }
  end game
}
outcome { places p in players by p.points descending }
heuristic me.points
'''


@pytest.fixture(scope="module")
def game():
    return gamedsl.load_source(GAME, "pick.game")


def names(game, cards):
    return sorted(game.card_name(c) for c in cards)


def test_nobody_sees_a_choice_until_everyone_has_chosen(game):
    state = game.new_state(players=3, seed=1)
    assert state.window[0] == "simultaneous" and state.current_player() == 0
    shown = game.zone_instance("shown", 0)
    before = [state.observation(p) for p in range(3)]
    state.apply_action(game.string_to_action(state, "pick " + game.card_name(state.z[game.zone_instance("hand", 0)][0])))
    assert state.current_player() == 1 and state.z[shown] == []  # P1's pick waits, face down
    asking = ("to_move", "legal", "window", "move")  # whose choice it is, and how many were made
    for p in (1, 2):  # what the others see has not changed: nothing of P1's choice
        now, then = state.observation(p), before[p]
        assert {k: v for k, v in now.items() if k not in asking} == {k: v for k, v in then.items() if k not in asking}
    assert state.observation(1)["window"] == "simultaneous"


def test_the_choices_are_shown_together_and_run_in_the_order_listed(game):
    state = game.new_state(players=3, seed=2)
    market = state.z[game.zone_instance("market")][0]
    grab = game.string_to_action(state, f"grab {game.card_name(market)}")
    for p in range(3):  # P1 picks from their hand, P2 and P3 both grab the market card
        hand = state.z[game.zone_instance("hand", p)]
        state.apply_action(grab if p else game.string_to_action(state, f"pick {game.card_name(hand[0])}"))
    assert state.is_terminal()
    said = [line for line in state.observation(0)["log"]]
    assert said[0].startswith("P1: shows") and said[1] == f"P2: grabs {game.card_name(market)}" and len(said) == 2
    assert state.z[game.zone_instance("shown", 1)] == [market]  # listed before P3: P2 gets the card
    assert state.z[game.zone_instance("shown", 2)] == []  # P3's grab came too late: nothing left to grab
    assert state.times == {}  # a secret choice is not fast or slow: no reaction times
    assert len(state.late) == 1
    assert f"grab {game.card_name(market)} (too late)" in state.game.move_text(state, min(state.late), 0)


def test_a_bot_at_any_seat_judges_with_the_same_knowledge(game):
    """The others' choices are taken back in every world a bot imagines, and asked again after
    its own: the third seat to choose knows no more than the first."""
    state = game.new_state(players=3, seed=3)
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[1])
    assert state.current_player() == 2 and len(state.window[3]) == 2
    for seed in range(10):
        world = Redealer(state, 2).deal(random.Random(seed), reseed=True, past=False)
        assert world.window[3] == [] and world.window[2] == [2, 0, 1] and world.current_player() == 2
        assert world.z[game.zone_instance("hand", 2)] == state.z[game.zone_instance("hand", 2)]
    GreedyAgent(seed=1).choose(state)  # and greedy plays it


def test_a_person_chooses_by_number_untimed_and_a_scenario_may_not_time_a_choice(game, tmp_path):
    from gamedsl.tools.human import HumanSeat
    state = game.new_state(players=2, seed=4)
    prompts = []
    seat = HumanSeat(0, read=lambda prompt: prompts.append(prompt) or "1", clock=lambda: 0.0)
    action = seat.choose(state)
    assert action == game.display_order(state.legal_actions())[0]
    assert prompts == ["P1, your move [1-3]: "] and seat.reaction_time is None
    path = tmp_path / "pick.game"
    path.write_text(GAME, encoding="utf-8")
    scenario = tmp_path / "timed.yaml"
    hand = [game.card_name(c) for c in state.z[game.zone_instance("hand", 0)]]
    scenario.write_text(f"moves:\n  - {{P1: pick {hand[0]}, time: 0.5}}\n", encoding="utf-8")
    assert main(["test", str(path), str(scenario)]) == 1


def test_a_logged_game_of_simultaneous_choices_has_no_times_and_replays(tmp_path, capsys):
    log = tmp_path / "sushi.jsonl"
    assert main(["play", "games/sushi_go.game", "--players", "3", "--seats", "greedy,random,random",
                 "--seed", "5", "--log", str(log)]) == 0
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["type"] == "end" and not any("time" in m for m in lines)
    assert main(["replay", str(log)]) == 0
