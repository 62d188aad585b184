"""Patterns answered by counting (engine/counts.py) and the memo of answers per Spec: the same
answers as the general solver and the oracle, in isolation and at every question of Law games."""
import random

from hypothesis import given, strategies as st
from test_patterns import ORACLE, oracle_can_make, problems

from gamedsl import load_game
from gamedsl.engine import runtime
from gamedsl.engine.counts import decider
from gamedsl.engine.patterns import Matcher, Order, Shape, Spec, can_make


@st.composite
def countable(draw):
    """A problem of a shape counts can decide (one shared attribute, or a run and nothing more),
    without required values, its chosen cards and pool sometimes overlapping or repeating cards."""
    card_attrs, nvalues, shape, size, _withs, wild, classes, chosen, pool = draw(st.one_of(problems(),
                                                                                            problems(runs=True)))
    if shape.run is not None:
        shape = Shape(run=shape.run, orders=shape.orders)
    else:
        shape = Shape(same=shape.same[:1] or ("x",))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    if chosen and pool and rnd.random() < 0.3:
        pool += (chosen[0],)                 # a chosen card in the pool too: it counts once
    if pool and rnd.random() < 0.2:
        pool += (rnd.choice(pool),)          # a card given twice
    if chosen and rnd.random() < 0.1:
        chosen += (chosen[-1],)
    return card_attrs, nvalues, shape, size, wild, classes, chosen, pool


@ORACLE
@given(countable())
def test_counts_answer_what_the_solver_answers(problem):
    card_attrs, nvalues, shape, size, wild, classes, chosen, pool = problem
    counted = decider(card_attrs, shape, Spec(size, (), wild, classes))
    assert counted is not None
    for some in (chosen, chosen[:1], ()):
        want = can_make(card_attrs, shape, size, (), wild, classes, some, pool)
        assert counted(some, pool) == want, (some, pool)
        assert counted(list(some), list(pool)) == want  # a zone's list, or a tuple: the same
        if len(set(some)) == len(some) and len(set(pool)) == len(pool):
            assert want == oracle_can_make(card_attrs, nvalues, shape, size, (), wild, classes, some, pool)


def test_counts_leave_the_rest_to_the_solver():
    deck = {"rank": (0, 1, 2), "suit": (0, 0, 1)}
    kind = Shape(same=("rank",))
    assert decider(deck, kind, Spec(2, withs=(("rank", 1, 1),))) is None        # a required value
    assert decider(deck, kind, Spec(2, most=3)) is None                          # a range of sizes
    assert decider(deck, Shape(same=("rank", "suit")), Spec(2)) is None          # two shared attributes
    assert decider(deck, kind, Spec(2)) is not None
    below = Order(position=(-1, 0, 1), positions=(-1, 0, 1))                     # a table's negative numbers
    assert decider(deck, Shape(run="rank", orders=(below,)), Spec(2)) is None
    assert can_make(deck, Shape(run="rank", orders=(below,)), 3, (), (), (), (), (0, 1, 2))


def test_a_memo_serves_equal_specs_and_is_bounded(monkeypatch):
    deck = {"rank": (0, 0, 1, 1, 2), "suit": (0, 1, 0, 1, 0)}
    matcher = Matcher(deck)
    kind = Shape(same=("rank",))
    memo = matcher.answers(kind, Spec(2))
    assert matcher.answers(kind, Spec(2)) is memo           # an equal Spec, made anew: the same memo
    assert matcher.answers(kind, Spec(3)) is not memo
    assert memo.find((), (0, 1, 4), (0, 1, 4)) and memo[(0, 1, 4)]
    assert not memo.find((), (0, 2, 4), (0, 2, 4))
    monkeypatch.setattr("gamedsl.engine.patterns.MAX_ANSWERS", 3)
    for key in ((0,), (1,), (2,), (3,)):
        memo.find((), key, key)
    assert len(memo) <= 3 and matcher.answers(kind, Spec(2)) is not memo   # emptied, and no longer shared


def test_every_question_of_law_games_gets_the_solvers_answer(monkeypatch):
    """Random Law games (every Law in play at some point: wild cards, merged suits, sizes that
    change): each can_make the rules ask is answered as a fresh solver answers it."""
    game = load_game("games/law.game")
    fresh = Matcher(game.prog.card_attrs)
    asked = []

    def checked(s, k, chosen, pool, owner):
        got = runtime.can_make(s, k, chosen, pool, owner)
        spec = runtime.pattern_spec(s, k, owner)
        want = spec is not None and fresh.check(s.prog.patterns[k].shape, spec, tuple(chosen), tuple(pool))
        assert got == want, (k, tuple(chosen), tuple(pool), spec)
        asked.append(bool(chosen))
        return got

    namespace = game.prog.patterns[0].size.__globals__   # the generated module's, where `_can_make` is read
    monkeypatch.setitem(namespace, "_can_make", checked)
    for seed, players in ((1, 2), (2, 3), (3, 4), (4, 4)):
        state = game.new_state(players=players, seed=seed)
        choice = random.Random(seed).choice
        for _ in range(1500):
            if state.is_terminal():
                break
            state.apply_action(choice(state.legal_actions()))
        fresh.clear()
    assert len(asked) > 1000 and any(asked)

