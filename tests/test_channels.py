"""What reaches a seat besides the cards: move counters, whose turn it looks like, the order of keys,
the spectators' view, OpenSpiel's chance, the log file; and verify finds what the check cannot see
(a modifier that hides a zone), at any decision, in any channel."""
import json
import random
from pathlib import Path

import pytest

import gamedsl
from gamedsl.engine.knowledge import Redealer
from gamedsl.errors import InvariantViolation
from gamedsl.tools import verify
from gamedsl.tools.leaks import check_no_leak
from gamedsl.tools.serve.views import public_view

ROOT = Path(__file__).resolve().parent.parent
LOL = gamedsl.load_game(ROOT / "games" / "lol.game")


def lol_window(players: int, answered: bool):
    """A LOL game at a reaction window before a decision, with an earlier seat's answer given
    (a reaction, not a pass) when `answered`."""
    for seed in range(400):
        state = LOL.new_state(players=players, seed=seed)
        rng = random.Random(seed)
        for _ in range(300):
            if state.is_terminal():
                break
            w = state.window
            if w is not None and w[0] == "react" and w[1] is not None and w[1][0] == "ask" and len(w[2]) >= 1:
                given = [a for a in w[3] if a[3] != LOL.prog.no_reaction.first_id]
                if bool(given) == answered:
                    return state
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no such window found")


def test_a_seat_not_asked_sees_the_same_counter_and_turn_as_without_a_window():
    """Before a decision, the seats not asked see the decision's player to move, and a move counter
    that does not rise when someone reacted (the issue: a later-asked seat saw it rise; the others
    saw nobody to move, which told them someone could react)."""
    state = lol_window(3, answered=True)
    window_start = state.window_start
    waiting = state.window[1][1]
    reacted = {a[2] for a in state.window[3]}
    asked = state.current_player()
    for p in range(state.np):
        view = state.observation(p)
        if p == asked:
            continue
        assert view["to_move"] == LOL.player_name(waiting)
        assert "legal" not in view and "window" not in view
        known = window_start - (sum(state.passes) - state.passes[p]) + sum(1 for a in state.window[3] if a[2] == p)
        if p not in reacted:
            assert view["move"] == known
    # the public counter (the lobby's, a spectator's) does not rise inside the window either
    assert LOL.moves_known(state, -1) == window_start - sum(state.passes) + \
        sum(1 for a in state.window[3] if a[3] == LOL.prog.no_reaction.first_id)


def test_in_a_simultaneous_choice_the_counter_does_not_show_who_chose():
    sushi = gamedsl.load_game(ROOT / "games" / "sushi_go.game")
    state = sushi.new_state(players=3, seed=2)
    before = [state.observation(p)["move"] for p in range(3)]
    state.apply_action(state.legal_actions()[0])  # P1 picks in secret
    after = [state.observation(p)["move"] for p in range(3)]
    assert after[1:] == before[1:] and after[0] == before[0] + 1
    assert [state.observation(p)["moves"] for p in (1, 2)] == [[], []]


def test_backs_are_listed_in_one_order_whatever_the_hidden_faces():
    """The JSON order of a zone's `backs` followed the hidden cards' sort order: it told them."""
    game = gamedsl.load_game(ROOT / "games" / "mad_king.game")
    orders = set()
    for seed in range(30):
        state = game.new_state(players=3, seed=seed)
        for zones in (state.observation(0)["zones"],):
            for v in zones.values():
                for z in (v.values() if isinstance(v, dict) and "count" not in v else [v]):
                    if isinstance(z, dict) and "backs" in z:
                        orders.add(tuple(z["backs"]) == tuple(sorted(z["backs"])))
    assert orders == {True}


SPECTATED = '''game "Spectated"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone pile: hidden, stack
zone hand per player: owner
var lucky = 0 "lucky" when me == seat(1)
var sight = false
modifier seeing while sight { pile.visibility = top }
action show "show the pile to P1" { sight = true }
action wait "wait" { }
setup { shuffle deck  deal 2 from deck to hand  move top(deck) to pile }
round { turn seat(1) { choose show }  turn seat(2) { choose wait }  end game }
outcome { for each p in players { win p } }
'''


def test_the_spectators_see_only_what_every_seat_sees():
    """The web spectator saw what only some seats see: a variable shown to seat 1 alone (`when me ==
    seat(1)`), the top of a pile a modifier turned up for some."""
    game = gamedsl.load_source(SPECTATED, "spectated.game")
    state = game.new_state(players=2, seed=1)
    assert "lucky" in state.observation(0)["vars"] and "lucky" not in state.observation(1)["vars"]
    assert "lucky" not in public_view(state)["vars"]
    state.apply_action(state.legal_actions()[0])  # the pile's top is turned up, for everyone here
    views = [state.observation(p)["zones"]["pile"] for p in range(2)]
    spectator = public_view(state)["zones"]["pile"]
    assert spectator == {"count": 1, "top": views[0]["top"]} if views[0] == views[1] else spectator == {"count": 1}


PILES = '''players 2
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
cards rank
zone deck: hidden, stack
zone pile: public, stack
'''  # two players, a deck and a pile: the head of the games below


def test_a_modifier_that_hides_a_zone_is_read_as_declared_by_the_check_and_caught_by_verify():
    """The check reads a zone as declared; a modifier that hides it makes a line tell a hidden card:
    verify, re-saying the log in a replayed world, reports it at the `say`."""
    text = 'game "Dark"\n' + PILES + '''zone hand per player: owner
var dark = false
modifier night while dark { pile.visibility = hidden }
action darken "darken" { dark = true }
action turn_up "turn up" { move top(deck) to pile  say "the pile shows a {top(pile).rank}" }
setup { shuffle deck }
round { turn seat(1) { choose darken }  turn seat(2) { choose turn_up }  turn seat(1) { choose turn_up }  end game }
outcome { for each p in players { win p } }
'''
    game = gamedsl.load_source(text, "dark.game")  # the check passes: 'pile' is public as declared
    with pytest.raises(InvariantViolation) as info:
        verify.play(verify.Playout(game, 2, 3), lambda n: 0, 20)
    assert str(info.value).startswith("dark.game:11:52: error: P1's view depends on cards they cannot see: log.0 is "
                                      "'P2: the pile shows a ")


def test_verify_checks_every_decision_not_one_in_seven():
    """A leak at the third decision only (a shown value telling a card a modifier hid then) was missed
    by the old check, made every 7th move: verify now checks every decision."""
    text = 'game "Third"\n' + PILES + '''var step = 0
var high = false "a high card on the pile" when step == 2 and count(pile) > 0 and top(pile).rank > 4
modifier dusk while step >= 2 { pile.visibility = hidden }
action go "go" { step += 1  move top(deck) to pile }
setup { shuffle deck }
round { repeat 6 { turn seat(1) { choose go } }  end game }
outcome { for each p in players { win p } }
'''
    game = gamedsl.load_source(text, "third.game")  # the check reads 'pile' as declared: public
    failures = 0
    for seed in range(6):
        try:
            verify.play(verify.Playout(game, 2, seed), lambda n: 0, 20, every=7)
        except InvariantViolation as exc:
            assert "view depends on cards they cannot see: vars" in str(exc) or "vars" in str(exc), str(exc)
            failures += 1
    assert failures >= 4  # (a deal whose third card is low and whose fourth is too hides nothing)


def test_verify_compares_a_seats_legal_moves_in_order_and_why_others_are_refused():
    state = LOL.new_state(players=2, seed=4)
    check_no_leak(state, random.Random(0))  # the shipped game keeps them
    world = Redealer(state, 0).deal(random.Random(1))
    assert world.legal_actions() == state.legal_actions() or state.current_player() != 0


def test_the_openspiel_chance_nodes_draw_a_64_bit_seed():
    pyspiel = pytest.importorskip("pyspiel")
    from gamedsl.rl.openspiel import load
    game = load(ROOT / "games" / "laus.game", players=3)
    assert game.max_chance_outcomes() == 256
    state = game.new_initial_state()
    rng = random.Random(7)
    nodes = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 256 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
        state.apply_action(rng.randrange(256))
        nodes += 1
    assert nodes == 8 and state.current_player() >= 0
    assert state.run.inner.seed >= 2 ** 32 or state.run.inner.seed < 2 ** 64
    assert pyspiel is not None


def test_the_play_log_is_its_owners_alone(tmp_path):
    from gamedsl.tools.cli import main
    log = tmp_path / "g.jsonl"
    assert main(["play", str(ROOT / "games" / "laus.game"), "--seed", "3", "--option", "target=100",
                 "--seats", "random,random,random", "--log", str(log)]) == 0
    assert log.stat().st_mode & 0o777 == 0o600
    assert json.loads(log.read_text().splitlines()[0])["seed"] == 3


def test_verify_thorough_checks_every_seat_and_replays_worlds_at_every_decision(monkeypatch):
    """By default a decision checks two seats, and a world replays the game one decision in 28
    (issue 40's closing note); --thorough checks every seat with a replayed world at each."""
    from gamedsl.tools import leaks

    text = 'game "Six"\n' + PILES + '''action go "go" { move top(deck) to pile }
setup { shuffle deck }
round { repeat 6 { turn seat(1) { choose go } }  end game }
outcome { for each p in players { win p } }
'''
    game = gamedsl.load_source(text, "six.game")
    calls = []
    real = leaks.check_no_leak
    monkeypatch.setattr(verify, "check_no_leak", lambda *a, **k: calls.append(k) or real(*a, **k))
    verify.play(verify.Playout(game, 2, 1), lambda n: 0, 20)
    assert len(calls) == 7 and sum(k.get("replay") is True for k in calls) == 1  # at the end only
    calls.clear()
    verify.play(verify.Playout(game, 2, 1), lambda n: 0, 20, thorough=True)
    assert len(calls) == 7 and all(k.get("replay") is True and sorted(k.get("seats")) == [0, 1] for k in calls), calls
