"""Differential test: games/laus.game run by gamedsl against the plain-Python Laus in bench/.

Both implementations play the same deal with the same fixed policy: in the skat
round the player left of the dealer looks (putting back the two lowest-id legal
cards, lowest first) and the others pass; in play, the legal card with the
lowest id. Trick winners, tricks, won cards and scores must agree.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import plain_laus as plain  # noqa: E402

FIRST_DEAL_SEEDS = range(200)
WHOLE_GAME_SEEDS = range(30)


@pytest.fixture(scope="module")
def laus():
    """The Laus game loaded by gamedsl."""
    import gamedsl

    return gamedsl.load_game(str(ROOT / "games" / "laus.game"))


@pytest.fixture(scope="module")
def card_ids(laus):
    """Card ids by gamedsl card name."""
    return {laus.card_name(c): c for c in range(32)}


# ---- the fixed policy, on both sides ----------------------------------------

def plain_deal(hands, skat, dealer, log):
    """Play one deal in plain Python with the fixed policy, logging (seat, kind, card)."""
    looker = (dealer + 1) % len(hands)

    def look(seat, hand):
        log.append((seat, "look" if seat == looker else "pass", None))
        return seat == looker

    def lowest(kind):
        def choose(seat, legal):
            log.append((seat, kind, min(legal)))
            return min(legal)
        return choose

    return plain.play_deal([list(h) for h in hands], list(skat), dealer,
                           look, lowest("put back"), lowest("play"))


def parse_action(text, card_ids):
    """(kind, card id or None) of a gamedsl action string."""
    if text.startswith("look"):
        return "look", None
    if text.startswith("pass"):
        return "pass", None
    kind = "put back" if text.startswith("put back") else "play"
    return kind, card_ids[text.split()[-1]]


def engine_choice(state, card_ids, looker):
    """The fixed policy's action in gamedsl: (kind, card, action)."""
    seat = state.current_player()
    options = [parse_action(state.action_to_string(a), card_ids) + (a,)
               for a in state.legal_actions()]
    kinds = {kind for kind, _, _ in options}
    if kinds <= {"look", "pass"}:
        want = "look" if seat == looker else "pass"
        return next(o for o in options if o[0] == want)
    assert len(kinds) == 1, f"mixed options {options}"
    return min(options, key=lambda o: o[1])


def engine_deal(state, card_ids, n):
    """Play the current deal in gamedsl with the fixed policy.

    Returns (log, trick winners). The winners of all tricks but the last are read
    from `leader` once each trick is complete; the last one only if the game
    ended with this deal (otherwise the next deal may already have reset it).
    """
    looker = (state.var("dealer") + 1) % n
    deal_number = state.round_number
    log, winners, plays = [], [], 0
    while not state.is_terminal() and state.round_number == deal_number:
        seat = state.current_player()
        kind, c, action = engine_choice(state, card_ids, looker)
        log.append((seat, kind, c))
        state.apply_action(action)
        if kind != "play":
            continue
        plays += 1
        if plays % n == 0 and state.round_number == deal_number and not state.is_terminal():
            winners.append(state.var("leader"))
            assert state.current_player() == winners[-1], "the trick winner must lead next"
    if state.is_terminal() and state.round_number == deal_number:
        winners.append(state.var("leader"))
    return log, winners


def read_deal(state, n):
    """(hands, skat, dealer) of the deal the state has just dealt."""
    hands = [state.zone_cards("hand", p) for p in range(n)]
    skat = state.zone_cards("skat") if n == 3 else []
    return hands, skat, state.var("dealer")


def check_dealt(hands, skat, n):
    """The deal itself is complete and well formed."""
    assert sorted(sum(hands, []) + skat) == list(range(32))
    assert [len(h) for h in hands] == [10 if n == 3 else 8] * n
    assert len(skat) == (2 if n == 3 else 0)


# ---- tests ------------------------------------------------------------------

def test_card_names_agree(laus):
    assert [laus.card_name(c) for c in range(32)] == [plain.card_name(c) for c in range(32)]


@pytest.mark.parametrize("n", [3, 4])
def test_first_deal(laus, card_ids, n):
    """First deal, many seeds: moves, trick winners, tricks, won cards and scores agree."""
    for seed in FIRST_DEAL_SEEDS:
        # A target of 1 ends the game after this deal unless one player took every
        # trick, so the final trick, `tricks` and `won` can still be read.
        state = laus.new_state(players=n, seed=seed, options={"target": 1})
        hands, skat, dealer = read_deal(state, n)
        check_dealt(hands, skat, n)
        log = []
        expected = plain_deal(hands, skat, dealer, log)
        engine_log, winners = engine_deal(state, card_ids, n)
        where = f"seed {seed}, {n} players"
        assert engine_log == log, where
        assert winners == expected.trick_winners[:len(winners)], where
        assert len(winners) >= len(expected.trick_winners) - 1, where
        scores = [state.var("last_deal", p) for p in range(n)]
        assert scores == expected.scores, where
        assert [state.var("score", p) for p in range(n)] == expected.scores, where
        if state.is_terminal():
            assert [state.var("tricks", p) for p in range(n)] == expected.tricks, where
            assert [sorted(state.zone_cards("won", p)) for p in range(n)] == \
                [sorted(w) for w in expected.won], where
        else:
            assert max(expected.tricks) == sum(expected.tricks), where  # someone took all


@pytest.mark.parametrize("n", [3, 4])
def test_whole_game(laus, card_ids, n):
    """Whole games to 1500: every deal's scores, the totals, the dealer's rotation, the loser."""
    for seed in WHOLE_GAME_SEEDS:
        state = laus.new_state(players=n, seed=seed, options={"target": 1500})
        totals = [0] * n
        dealer = None
        for deal_number in range(1, 200):
            where = f"seed {seed}, {n} players, deal {deal_number}"
            assert state.round_number == deal_number, where
            hands, skat, this_dealer = read_deal(state, n)
            check_dealt(hands, skat, n)
            if dealer is not None:
                assert this_dealer == (dealer + 1) % n, where
            dealer = this_dealer
            expected = plain_deal(hands, skat, dealer, [])
            _, winners = engine_deal(state, card_ids, n)
            assert winners == expected.trick_winners[:len(winners)], where
            assert [state.var("last_deal", p) for p in range(n)] == expected.scores, where
            totals = [t + s for t, s in zip(totals, expected.scores)]
            assert [state.var("score", p) for p in range(n)] == totals, where
            assert state.is_terminal() == (max(totals) >= 1500), where
            if state.is_terminal():
                break
        else:
            pytest.fail(f"seed {seed}, {n} players: no end after 200 deals")
        returns = state.returns()
        losers = plain.loser_seats(totals)
        winners_ = [p for p in range(n) if p not in losers]
        assert state.current_player() == -1
        assert all(returns[w] > returns[lo] for w in winners_ for lo in losers), returns
        assert len({returns[lo] for lo in losers}) == 1, returns


# ---- the plain implementation on its own ------------------------------------

def c(name):
    return plain.parse_card(name)


def test_plain_card_tables():
    assert sum(plain.POINTS) == 120
    assert plain.card_name(0) == "7♣" and plain.card_name(31) == "A♦"
    assert plain.card_name(c("10♥")) == "10♥"
    led_hearts = plain.STRENGTH[plain.FAMILY[c("7♥")]]
    order = ["7♥", "8♥", "9♥", "Q♥", "K♥", "10♥", "A♥", "J♦", "J♥", "J♠", "J♣"]
    assert sorted(order, key=lambda n: led_hearts[c(n)]) == order
    assert led_hearts[c("A♠")] == 0 and led_hearts[c("A♦")] == 0


def test_plain_scoring():
    q = [c("Q♣"), c("Q♠"), c("Q♥"), c("Q♦")]
    # The queen of diamonds cancels the bonuses of its taker only; ordinary points stay.
    won = [[q[1], q[2], q[3], c("A♣")], [q[0], c("10♥")], [c("7♦")]]
    assert plain.score_deal(won, [3, 4, 3], passes=0) == [9 + 11, 313, 0]
    assert plain.score_deal(won, [3, 4, 3], passes=2) == [80, 313 * 4, 0]
    # Each player without a trick doubles again, compounding with the passes.
    assert plain.score_deal(won, [4, 6, 0], passes=1) == [80, 313 * 4, 0]
    won4 = [[q[1], q[2]], [q[0]], [], []]
    assert plain.score_deal(won4, [5, 3, 0, 0], passes=0) == [306 * 4, 303 * 4, 0, 0]
    # Taking every trick: -120, doubled per pass only.
    assert plain.score_deal([list(range(32)), [], []], [10, 0, 0], passes=2) == [-480, 0, 0]


def test_plain_deal_order_and_moves():
    deck = list(range(32))
    hands, skat = plain.deal(deck, dealer=2, n=3)
    assert hands[0] == [0, 1, 2, 11, 12, 13, 14, 23, 24, 25]   # dealer's left gets the first batch
    assert skat == [9, 10]
    hands4, skat4 = plain.deal(deck, dealer=3, n=4)
    assert hands4[0][:3] == [0, 1, 2] and skat4 == []
    result = plain.play_deal(hands, skat, 2, lambda s, h: s == 0, lambda s, l: l[0],
                             lambda s, l: l[0])
    assert result.passes == 2 and result.moves == 3 + 2 + 30
    assert sum(result.tricks) == 10 and sum(result.points) == 120
    assert sorted(sum(result.won, [])) == list(range(32))


def test_plain_random_games_end():
    for n in (3, 4):
        for seed in range(50):
            r = plain.random_game(n, seed)
            assert max(r.scores) >= 1500 and r.moves > 0


@pytest.mark.parametrize("n", [3, 4])
def test_plain_state_plays_the_same_games_as_plain(n):
    """bench/plain_laus_state.py, Laus behind a legal_actions / apply_action interface, plays the
    same games as plain_laus.play_game given the same shuffles and the same choices: the same
    number of moves and the same final scores; a copy taken mid-game continues the same way."""
    from bench.plain_laus_state import LOOK, PASS, LausState

    for seed in range(40):
        pick = random.Random(1000 + seed).choice
        expected = plain.play_game(n, random.Random(seed), lambda s, h: pick((True, False)),
                                   lambda s, legal: pick(legal), lambda s, legal: pick(legal))
        pick = random.Random(1000 + seed).choice
        state, copy = LausState(n, seed), None
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal, "a decision with no legal move"
            if LOOK in legal:
                assert legal == [LOOK, PASS]
            state.apply_action(pick(legal))
            if state.moves == 20:
                copy, copy_pick = state.clone(), random.Random()
                copy_pick.setstate(pick.__self__.getstate())
        assert (state.moves, state.scores) == (expected.moves, expected.scores)
        while not copy.is_terminal():
            copy.apply_action(copy_pick.choice(copy.legal_actions()))
        assert (copy.moves, copy.scores) == (state.moves, state.scores)
    with pytest.raises(ValueError):
        LausState(n, 0).apply_action(31 if 31 not in LausState(n, 0).legal_actions() else 99)
