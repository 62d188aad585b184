"""Functions that read nothing but their arguments are answered once per arguments
(language/calls.py: kept_by_arguments; engine/runtime.py: memo): a showdown asking for the
grouped cards of a hand ten times works them out once. A function that reads the state, or is
given a zone (whose cards change), is worked out each time."""
import pytest

from gamedsl import load_source
from gamedsl.engine.runtime import memo
from gamedsl.errors import SourceError

GAME = '''game "T"
players 2
attribute rank: 1, 2, 3, 4, 5
attribute suit: red "r", blue "b"
cards rank * suit
zone deck: hidden, stack
zone table: public
zone hand per player: owner
var bar = 3
hidden var with_table per player = 0
hidden var in_hand per player = 0
hidden var over_limit per player = 0

def high(h) = count(c in h if c.rank >= bar)
def pairs(h) = count(c in h if count(d in h if d.rank == c.rank) == 2)
def best_pairs(h) = pairs(h) + pairs(h)
action go (c in me.hand) {
  me.with_table = best_pairs(me.hand + table)    # a list: kept by its cards
  me.in_hand = best_pairs(me.hand)               # a zone: worked out each time
  me.over_limit = high(me.hand + table)          # reads `bar`: worked out each time
  move c to table
  bar = count(table) % 5 + 1
}
setup { shuffle deck  deal 4 from deck to hand }
round { for each p in players { turn p { choose go } } }
end game when count(table) >= 8
'''


def pairs(cards, ranks):
    return sum(1 for c in cards if sum(1 for d in cards if ranks[d] == ranks[c]) == 2)


def test_functions_are_kept_by_their_arguments_only_when_they_read_nothing_else():
    game = load_source(GAME, "t.game")
    module = game.prog.module
    assert "_memo(s, D_best_pairs" in module and "_memo(s, D_high" not in module
    ranks = [game.prog.card_attrs["rank"][c] + 1 for c in range(10)]
    for seed in range(30):
        state = game.new_state(players=2, seed=seed)
        while not state.is_terminal():
            me = state.current_player()
            hand, table = state.zone_cards("hand", me), state.zone_cards("table")
            bar = state.var("bar")
            state.apply_action(state.legal_actions()[seed % len(state.legal_actions())])
            assert state.var("with_table", me) == 2 * pairs(hand + table, ranks)
            assert state.var("in_hand", me) == 2 * pairs(hand, ranks)
            assert state.var("over_limit", me) == sum(1 for c in hand + table if ranks[c] >= bar)


def test_a_zone_is_no_key_and_a_list_is_keyed_as_its_elements():
    calls = []

    def fn(s, h):
        calls.append(h)
        return [len(calls)]

    answers: dict = {}
    assert memo(None, fn, answers, (3,), (0,)) == [1]  # an int where the kind is known only now: a zone
    assert memo(None, fn, answers, (3,), (0,)) == [2]
    assert memo(None, fn, answers, ([1, 2],), (0,)) == [3]
    assert memo(None, fn, answers, ((1, 2),), (0,)) == [3]  # the same elements: kept
    first, again = memo(None, fn, answers, ((1, 2),)), memo(None, fn, answers, ((1, 2),))
    assert first == again == [3] and first is not again  # a list answer is a copy each time
    first.append(9)
    assert memo(None, fn, answers, ((1, 2),)) == [3]


def test_functions_of_their_arguments_calling_each_other_are_an_error_not_a_crash():
    text = GAME.replace("def best_pairs(h) = pairs(h) + pairs(h)",
                        "def best_pairs(h) = pairs(h) + again(h)\ndef again(h) = count(c in h if c.rank > 1) + best_pairs(h)")
    with pytest.raises(SourceError) as info:
        load_source(text, "t.game")
    assert "calls itself" in str(info.value)
