"""Invariants every game keeps, over random play drawn by hypothesis, for every game and player count.

A failure shrinks to a minimal move sequence. HYPOTHESIS_PROFILE=deep runs many more games.
"""
import random
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import gamedsl
from gamedsl.engine import knowledge
from gamedsl.tools import verify
from gamedsl.errors import InvariantViolation

ROOT = Path(__file__).resolve().parent.parent
GAMES = {p.stem: gamedsl.load_game(p) for p in sorted((ROOT / "games").glob("*.game"))}
CASES = [(name, n) for name, g in GAMES.items() for n in range(g.min_players, g.max_players + 1)]
PREFIX_MOVES = 250   # hypothesis-drawn games are checked on their first moves; full games below


@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_invariants_hold_over_random_play(name, players):
    game = GAMES[name]

    @given(seed=st.integers(0, 2**31 - 1), data=st.data())
    def prop(seed, data):
        run = verify.Playout(game, players, seed)
        verify.play(run, lambda n: data.draw(st.integers(0, n - 1)), PREFIX_MOVES)

    prop()


FULL_GAMES = 12        # full random games per game and player count...
FULL_BUDGET = 25_000  # ...or as many as fit in this many moves (at least 2): long games stay affordable


@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_game_ends_within_its_bound_with_results(name, players):
    game = GAMES[name]
    played = 0
    for seed in range(FULL_GAMES):
        if seed >= 2 and played >= FULL_BUDGET:
            break
        rng = random.Random(seed)
        state = game.new_state(players=players, seed=seed, check_invariants=True)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        played += state.moves
        verify.check_cards(state)
        assert not state.limit_hit, f"seed {seed}: the game reached its limit of {state.prog.move_limit} moves"
        assert state.moves <= state.prog.move_limit
        assert all(r in ("win", "lose") for r in state.results), state.results
        assert len(state.returns()) == players


# ---- each generic check catches what it is for --------------------------
LAUS = GAMES["laus"]


def test_check_cards_catches_a_card_in_two_places():
    state = LAUS.new_state(players=3, seed=1)
    verify.check_cards(state)
    card = state.z[state.game.zone_instance("hand", 0)][0]
    state.z[state.game.zone_instance("skat")].append(card)
    with pytest.raises(InvariantViolation, match="lies in skat but the index says hand of P1"):
        verify.check_cards(state)


def test_check_decision_catches_a_move_asked_with_no_legal_move():
    state = LAUS.new_state(players=3, seed=1)
    verify.check_decision(state)
    state.pending = (0, [], ())
    with pytest.raises(InvariantViolation, match="no legal move"):
        verify.check_decision(state)


def test_check_clone_catches_a_shared_clone(monkeypatch):
    state = LAUS.new_state(players=3, seed=1)
    verify.check_clone(state)
    monkeypatch.setattr(type(state), "clone", lambda self: self)
    with pytest.raises(InvariantViolation, match="changed the original"):
        verify.check_clone(state)


def test_check_no_leak_catches_a_rule_that_reads_a_hidden_card():
    game = gamedsl.load_source('''game "Peek"
players 2
attribute suit: red, black
attribute rank: 1, 2, 3, 4, 5, 6
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
action take if top(deck).suit == red { move top(deck) to me.hand }
action skip { end game }
round { shuffle deck  while true { turn seat(1) { choose take, skip } } }
''', "peek.game")
    caught = 0
    for seed in range(20):
        state = game.new_state(players=2, seed=seed)
        try:
            verify.check_no_leak(state, random.Random(seed))
        except InvariantViolation as exc:
            assert "depends on cards they cannot see" in str(exc)
            caught += 1
    assert caught > 0


def test_hidden_slots_are_exactly_what_a_player_cannot_see():
    state = LAUS.new_state(players=3, seed=2)
    slots = knowledge.hidden_slots(state, 0)
    hand0 = state.game.zone_instance("hand", 0)
    assert not any(inst == hand0 for inst, _ in slots)
    assert sum(1 for inst, _ in slots if inst == state.game.zone_instance("hand", 1)) == 10
    assert sum(1 for inst, _ in slots if inst == state.game.zone_instance("skat")) == 2
