"""A move that chooses several cards at once, matched against patterns:
`(cs in combinations(Z, P or Q ... by ATTR))`. Its moves are the shapes the patterns allow, fixed
when the game is checked; one is legal when the zone holds its values and the first cards of each
make one of the patterns; `cs` is then those cards."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gamedsl
from gamedsl.engine.shapes import shape_masks, shapes_held
from gamedsl.errors import SourceError
from gamedsl.tools.scenario import run_scenario

CLIMB = '''game "Small climb"
players 2
attribute rank: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 "J", 12 "Q", 13 "K", 14 "A"
attribute suit: clubs "♣", diamonds "♦", hearts "♥", spades "♠"
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
zone table: public
zone gone: public
var big = 0
pattern pair: 2 cards, same rank
pattern full_house: 5 cards, groups of rank 3 and 2
pattern straight: at least 5 cards, run of rank
pattern stairs: at least 4 cards, run of rank, 2 of each
pattern kind: big cards, same rank, if big > 0

def top_rank(cs) = best(c in cs by 20 * count(x in cs if x.rank == c.rank) + c.rank).rank
action play "play {cs}" (cs in combinations(me.hand, pair or full_house or straight or stairs or kind by rank))
    if count(table) == 0 or count(cs) == count(table) and top_rank(cs) > top_rank(table) "too low" {
  move all from table to gone
  for each c in cs { move c to table }
}
action pass "pass" if count(table) > 0 { move all from table to gone }
setup { shuffle deck  deal 13 from deck to hand }
round {
  for each p in players { turn p { choose play, pass } }
  if any(p in players if count(p.hand) == 0) { end game }
}
outcome { places p in players by count(p.hand) }
'''


def write(tmp_path, text=CLIMB):
    path = tmp_path / "climb.game"
    path.write_text(text)
    return path


def scenario(tmp_path, text):
    path = write(tmp_path)
    s = tmp_path / "s.yaml"
    s.write_text(text)
    failures, _ = run_scenario(gamedsl.load_game(path), s)
    return failures


DEAL = '''players: 2
deal:
  hand P1: 9♣ 9♦ 9♥ 4♣ 4♦ 5♣ 6♣ 7♣ 8♣ 10♣ 7♦ 8♦ 2♣
  hand P2: J♣ J♦ J♥ 3♣ 3♦ Q♣ Q♦ K♣ K♦ 5♦ 6♦ 2♦ A♣
'''


def test_the_moves_are_the_shapes_held_that_make_a_pattern(tmp_path):
    assert scenario(tmp_path, DEAL + '''moves:
  - expect:
      legal: [play 4 4, play 7 7, play 8 8, play 9 9,
              play 4 4 9 9 9, play 7 7 8 8, play 8 8 9 9, play 7 7 9 9 9, play 8 8 9 9 9, play 7 7 8 8 9 9,
              play 4 5 6 7 8, play 5 6 7 8 9, play 6 7 8 9 10,
              play 4 5 6 7 8 9, play 5 6 7 8 9 10, play 4 5 6 7 8 9 10]
''') == []


def test_the_chosen_cards_are_moved_and_the_next_must_beat_them(tmp_path):
    # the full house's cards, the first of each rank in the hand's order; J J J 3 3 beats 9 9 9 4 4
    assert scenario(tmp_path, DEAL + '''moves:
  - play 4 4 9 9 9
  - expect:
      count: {table: 5, hand P1: 8}
      legal: [play 3 3 J J J, play J J J Q Q, play J J J K K, pass]
  - play 3 3 J J J
  - expect:
      count: {table: 5, gone: 5, hand P2: 8}
''') == []



def test_any_and_all_over_a_combinations_cards(tmp_path):
    # read from the set of the cards that pass, met with the combination's cards (not card by card)
    rule = "if count(table) == 0 or"
    text = CLIMB.replace(rule, "if not any(c in cs if c.suit == hearts) and all(c in cs if c.rank <= 9) \"no\"\n"
                               "    " + rule)
    assert ".isdisjoint(e[0])" in gamedsl.load_game(write(tmp_path, text)).prog.module
    path = tmp_path / "s.yaml"
    path.write_text(DEAL + '''moves:
  - expect:
      legal: [play 4 4, play 7 7, play 8 8, play 9 9, play 7 7 8 8, play 8 8 9 9, play 7 7 8 8 9 9,
              play 4 5 6 7 8, play 5 6 7 8 9, play 4 5 6 7 8 9]
''')
    assert run_scenario(gamedsl.load_game(write(tmp_path, text)), path)[0] == []

def test_a_pattern_read_at_run_time_changes_the_moves(tmp_path):
    # `kind` counts only while big > 0, and its size is big: three 9s become a move of their own
    assert scenario(tmp_path, DEAL + '''vars:
  big: 3
moves:
  - expect:
      legal_includes: [play 9 9 9]
''') == []
    assert scenario(tmp_path, DEAL + '''moves:
  - expect:
      legal_excludes: [play 9 9 9]
''') == []


def test_a_combination_is_typed_as_it_reads_and_a_refusal_says_why(tmp_path):
    game = gamedsl.load_game(write(tmp_path))
    state = game.new_state(2, seed=1)
    legal = state.legal_actions()
    texts = [game.action_to_string(a) for a in legal]
    first = texts[0]
    assert game.string_to_action(state, first.replace(" ", "")) == legal[0]
    # the move ids are fixed by the check: the same ids in every deal
    other = game.new_state(2, seed=2)
    ids = {game.action_to_string(a): a for a in other.legal_actions()}
    assert all(ids[t] == a for t, a in zip(texts, legal) if t in ids)
    not_held = next(a for a in range(game.num_distinct_actions()) if a not in legal
                    and game.action_to_string(a).startswith("play"))
    why = state.explain(not_held)
    assert why == f"'{game.action_to_string(not_held)}' is not possible: me.hand does not hold these cards, " \
                  "or they make none of the patterns"


@pytest.mark.parametrize("change, message", [
    ("pattern straight: at least 5 cards, run of rank\n",
     "pattern straight: at least 5 cards, run of rank, same suit\n"),
    ("pattern pair: 2 cards, same rank\n", "pattern pair: 2 cards\n"),
    ("(cs in combinations(me.hand, pair or full_house or straight or stairs or kind by rank))",
     "(cs in combinations(me.hand, pair or fullhouse by rank))"),
    ("(cs in combinations(me.hand, pair or full_house or straight or stairs or kind by rank))",
     "(cs in combinations(me.hand, pair by colour))"),
    ("pattern stairs: at least 4 cards, run of rank, 2 of each\n", "pattern stairs: at least 4 cards, 2 of each\n"),
    ("groups of rank 3 and 2", "groups of rank 3 and 2, same suit"),
])
def test_mistakes_are_reported_with_their_place(tmp_path, change, message):
    before, after = change, message
    assert before in CLIMB
    with pytest.raises(SourceError) as err:
        gamedsl.load_game(write(tmp_path, CLIMB.replace(before, after)))
    text = str(err.value)
    assert "error:" in text
    expected = {
        "same suit\n": "speaks of another attribute than rank",
        "pair: 2 cards\n": "does not say which values of rank its cards have",
        "fullhouse by": "'combinations' needs the name of a pattern here",
        "by colour": "'combinations' needs 'by' and the card attribute",
        "4 cards, 2 of each": "'N of each' says how many cards of each value a run holds",
        "3 and 2, same suit": "'groups' and 'N of each' stand with a size and 'if' only",
    }
    assert next(v for k, v in expected.items() if k in after) in text


def test_combinations_is_not_a_value(tmp_path):
    with pytest.raises(SourceError) as err:
        gamedsl.load_game(write(tmp_path, CLIMB.replace("var big = 0", "var big = 0\ndef n() = count(combinations("
                                                        "me.hand, pair by rank))")))
    assert "'combinations' lists the choices of a move" in str(err.value)


SHAPES = st.lists(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 4)), min_size=1, max_size=5)
                  .map(lambda shape: tuple(dict(shape).items())), max_size=40)


@given(SHAPES, st.dictionaries(st.integers(0, 12), st.integers(1, 6)))
def test_the_shapes_held_are_told_from_unions_of_sets_of_shapes(shapes, held):
    # what shapes.combinations keeps of each hand: the shapes whose every value it holds enough of,
    # told by a union per value of the shapes that need more of it (not a look at every shape)
    held_bits = shapes_held(shape_masks(shapes), {v: [None] * n for v, n in held.items()})
    found = [i for i in range(len(shapes)) if held_bits >> i & 1]
    assert found == [i for i, shape in enumerate(shapes) if all(held.get(v, 0) >= k for v, k in shape)]
