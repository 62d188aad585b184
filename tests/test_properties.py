"""Invariants every game keeps, over random play drawn by hypothesis, for every game and player count.

A failure shrinks to a minimal move sequence. HYPOTHESIS_PROFILE=deep runs many more games.
"""
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import gamedsl
from gamedsl.engine import knowledge
from gamedsl.tools import verify
from gamedsl.errors import InvariantViolation

ROOT = Path(__file__).resolve().parent.parent
GAMES = {p.stem: gamedsl.load_game(p) for p in sorted((ROOT / "games").glob("*.game"))}
CASES = [(name, n) for name, g in GAMES.items() for n in range(g.min_players, g.max_players + 1)]
PREFIX_MOVES = 250   # hypothesis-drawn games are checked on their first moves; full games below
COSTLY = {"climb"}   # games whose every move costs most to check: a fifth of the examples (deep: all)


@pytest.mark.parametrize("name,players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_invariants_hold_over_random_play(name, players):
    game = GAMES[name]

    # every seat is checked at every decision: a game of 9 costs about as much as 2 of 4, so the
    # examples of a profile are shared out as for 4 players (the deep profile plays them all)
    examples = settings().max_examples
    if players > 4 and examples < 100:
        examples = max(5, examples * 4 // players)
    if name in COSTLY and examples < 100:  # a replayed world lists many moves of several choices at each move
        examples = max(3, examples // 5)

    @given(seed=st.integers(0, 2**31 - 1), data=st.data())
    def prop(seed, data):
        run = verify.Playout(game, players, seed)
        verify.play(run, lambda n: data.draw(st.integers(0, n - 1)), PREFIX_MOVES)

    # (wrapped only where the number changes: the profile's own games are drawn as they always were)
    (settings(max_examples=examples)(prop) if examples != settings().max_examples else prop)()


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
        assert all(r in ("win", "lose") or (state.grades and state.grades[p]) for p, r in enumerate(state.results)), \
            state.results  # (a graded result between none and all of it is neither)
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


def test_check_no_leak_catches_a_rule_that_reads_a_hidden_card_the_compiler_also_refuses():
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
''', "peek.game", leaks_allowed=True)
    # the compiler's check refuses it; loaded anyway, verify's re-deals catch it at play
    assert [d.message.split(",")[0] for d in game.prog.leaks] == ["whether 'take' is allowed is seen by the player moving"]
    caught = 0
    for seed in range(20):
        state = game.new_state(players=2, seed=seed)
        try:
            verify.check_no_leak(state, random.Random(seed))
        except InvariantViolation as exc:
            assert "depends on cards they cannot see" in str(exc)
            caught += 1
    assert caught > 0


SECRETS = """game "Secrets"
players 2
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8, 9
cards rank
zone deck: hidden, stack
zone hand per player: owner
var marked per card = 0
var score per player = 0
action mark "mark" (c in me.hand) { c.marked = 1  say "marked" }
setup { shuffle deck  deal 3 from deck to hand }
round { turn seat(1) { choose mark }  turn seat(2) { choose mark } }
end game when true
"""


def _first_hand_card(state, seat: int) -> str:
    return state.game.card_name(state.z[state.game.zone_instance("hand", seat)][0])


# Each kind of leak a view could have, injected into every observation: what P1 holds or did,
# written where P2 would read it.
LEAKS = {
    "per-card variable": lambda state, obs: obs["vars"]["marked"].update(
        {state.game.card_name(c): 1 for c in range(len(state.loc)) if state.v[state.prog.vars[0].base + c]}),
    "per-player variable": lambda state, obs: obs["vars"]["score"].update(P1=_first_hand_card(state, 0)),
    "say line": lambda state, obs: obs["log"].append(f"P1: I hold {_first_hand_card(state, 0)}"),
}
WHERE = {"per-card variable": "secrets.game:7:5: error: P2's view depends on cards they cannot see: vars.marked.",
         "per-player variable": "secrets.game:8:5: error: P2's view depends on cards they cannot see: vars.score.P1 is",
         "say line": "P2's view depends on cards they cannot see: log.1 is 'P1: I hold "}


@pytest.mark.parametrize("kind", list(LEAKS))
def test_check_no_leak_finds_each_kind_of_leak_and_says_where(kind, monkeypatch):
    """A view that carries what P1 holds (a per-card or per-player variable, a line the rules said,
    the text of P1's move) is caught; a declared name's leak is located at its declaration."""
    game = gamedsl.load_source(SECRETS, "secrets.game")
    state = game.new_state(players=2, seed=3)
    state.apply_action(state.legal_actions()[0])
    for seed in range(10):  # the view as written leaks nothing
        verify.check_no_leak(state, random.Random(seed))
    observe = type(game).observe

    def leaky(self, st, player):
        obs = observe(self, st, player)
        if player == 1:
            LEAKS[kind](st, obs)
        return obs
    monkeypatch.setattr(type(game), "observe", leaky)
    with pytest.raises(InvariantViolation) as info:
        for seed in range(10):
            verify.check_no_leak(state, random.Random(seed))
    assert WHERE[kind] in str(info.value)
    assert info.value.is_located == kind.endswith("variable")


def test_verify_finds_a_move_text_that_names_a_card_never_seen(monkeypatch):
    """P1's mark shown to P2 as 'P1: mark 4' though P2 never saw the 4: verify's play finds it
    (the worlds of check_no_leak keep the past, so it is checked as each move is made)."""
    game = gamedsl.load_source(SECRETS, "secrets.game")
    verify.play(verify.Playout(game, 2, 3), lambda n: 0, 10)
    observe = type(game).observe

    def leaky(self, st, player):
        obs = observe(self, st, player)
        obs["moves"] = [f"{self.player_name(st.card_moves[k][0])}: {st.action_to_string(a)}"
                        for k, a in enumerate(st.history)]
        return obs
    monkeypatch.setattr(type(game), "observe", leaky)
    with pytest.raises(InvariantViolation, match=r"P2 is told the move 'P1: mark \d' although they saw \d "
                                                 "neither before nor after it"):
        verify.play(verify.Playout(game, 2, 3), lambda n: 0, 10)


def test_hidden_slots_are_exactly_what_a_player_cannot_see():
    state = LAUS.new_state(players=3, seed=2)
    slots = knowledge.hidden_slots(state, 0)
    hand0 = state.game.zone_instance("hand", 0)
    assert not any(inst == hand0 for inst, _ in slots)
    assert sum(1 for inst, _ in slots if inst == state.game.zone_instance("hand", 1)) == 10
    assert sum(1 for inst, _ in slots if inst == state.game.zone_instance("skat")) == 2
