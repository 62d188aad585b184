"""Moves of several choices (`action place (c in me.hand, k in 1..3)`: one move, its id fixed by the
checker) and repeated choices (`choose up to N of`, `choose any number of`, stopped by "done")."""
import pytest

import gamedsl
from gamedsl.errors import SourceError
from gamedsl.rl.moves import MoveIds

COLUMNS = '''game "Columns"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
attribute suit: red "R", black "B"
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
zone column[3]: public, stack
zone discard: public
var score per player = 0
var gone: number

action place "put {c} on column {k}" (c in me.hand, k in 1..3)
    if count(column[k]) == 0 or top(column[k]).rank < c.rank "only on a lower card" {
  move c to column[k]
  me.score += k
}
action give "give" (p in others, n in 1..count(me.hand)) if n <= 2 { p.score += n }
action toss "toss" (c in me.hand) { move c to discard  gone += 1 }
action pass { }

setup {
  shuffle deck
  deal 4 from deck to hand
}
round {
  for each p in players {
    turn p {
      choose place, give, pass
      choose up to 2 of toss
      choose any number of toss
    }
  }
  end game
}
outcome { places p in players by p.score descending }
'''


def game_of(text=COLUMNS):
    return gamedsl.load_source(text, "c.game")


def texts(state, moves=None):
    return [state.action_to_string(a) for a in (state.legal_actions() if moves is None else moves)]


def play(state, text):
    state.apply_action(state.game.string_to_action(state, text))


def dealt(seed=1):
    """A 2-player game whose P1 holds 1R 2R 5B 6B (the deal fixed by the scenario tools' rig)."""
    game = game_of()
    state = game.new_state(players=2, seed=seed)
    hand = game.zone_instance("hand", 0)
    state.rig({hand: [game.parse_card(n) for n in ("1R", "2R", "5B", "6B")]},
              game.zone_instance("deck"))
    state.refresh()
    return game, state


def test_a_move_of_two_choices_is_one_move_named_by_its_label_with_each_value_in_place():
    game, state = dealt()
    legal = texts(state)
    assert legal[:4] == ["put 1R on column 1", "put 1R on column 2", "put 1R on column 3", "put 2R on column 1"]
    assert "give P2 1" in legal and "give P2 2" in legal and "give P2 3" not in legal  # n <= 2
    assert len([t for t in legal if t.startswith("put")]) == 12
    play(state, "put 5B on column 2")
    col2 = game.zone_instance("column[2]")
    assert [game.card_name(c) for c in state.z[col2]] == ["5B"]
    assert state.var("score", 0) == 2  # P1's score: the column's number


def test_move_ids_are_fixed_by_the_declaration_whatever_the_deal():
    game = game_of()
    place = game.prog.action_by_name["place"]
    assert place.size == game.card_count() * 4  # cards x the numbers 0..3 (0 is never legal)
    ids = {game.action_to_string(a): a for a in range(place.first_id, place.first_id + place.size)}
    assert ids["put 6B on column 3"] == place.first_id + game.parse_card("6B") * 4 + 3
    for seed in (1, 2, 3):
        state = game.new_state(players=2, seed=seed)
        for a in state.legal_actions():
            assert game.action_to_string(a) in ids or not game.action_to_string(a).startswith("put")


def test_a_later_choice_s_domain_and_conditions_read_the_earlier_ones():
    game, state = dealt()
    col1 = game.zone_instance("column[1]")
    state.rig({col1: [game.parse_card("4R")]}, game.zone_instance("deck"))
    state.refresh()
    legal = texts(state)
    assert "put 5B on column 1" in legal and "put 2R on column 1" not in legal
    move = game.string_to_action(state, "put 2R on column 3")
    bad = next(a for a in range(game.num_distinct_actions()) if game.action_to_string(a) == "put 2R on column 1")
    assert state.why_not(bad)[1] == "'put 2R on column 1' is not allowed: only on a lower card"
    assert move in state.legal_actions()
    gone = next(a for a in range(game.num_distinct_actions()) if game.action_to_string(a) == "put 6R on column 1")
    assert state.why_not(gone)[1] == "'put 6R on column 1' is not possible: 6R is not in me.hand"
    four = next(a for a in range(game.num_distinct_actions()) if game.action_to_string(a) == "give P2 4")
    assert state.why_not(four)[1] == "'give P2 4' is not allowed: the rule 'n <= 2' does not hold"
    self_give = next(a for a in range(game.num_distinct_actions()) if game.action_to_string(a) == "give P1 1")
    assert state.why_not(self_give)[1] == "'give P1 1' is not possible: P1 is not in others"


def test_a_typed_move_may_spell_its_card_any_way_and_a_wrong_one_is_explained():
    game, state = dealt()
    assert game.action_to_string(game.string_to_action(state, "put 5 black on column 2")) == "put 5B on column 2"
    assert game.action_to_string(game.string_to_action(state, "PUT 5b ON COLUMN 2")) == "put 5B on column 2"
    with pytest.raises(gamedsl.IllegalAction, match="6R is not in me.hand"):
        game.string_to_action(state, "put 6R on column 2")
    with pytest.raises(gamedsl.IllegalAction, match="must choose: put … on column …, give, pass"):
        game.string_to_action(state, "toss 1R")


def test_others_read_the_move_with_the_card_they_did_not_see_hidden():
    game, state = dealt()
    play(state, "put 1R on column 3")  # column 3 is public: everyone saw it
    assert game.move_text(state, state.moves - 1, 1) == "put 1R on column 3"
    rule = '    if count(column[k]) == 0 or top(column[k]).rank < c.rank "only on a lower card" {'
    hidden = gamedsl.load_source(COLUMNS.replace("zone column[3]: public, stack", "zone column[3]: hidden, stack")
                                 .replace(rule, "{"), "h.game")
    state = hidden.new_state(players=2, seed=1)
    move = next(a for a in state.legal_actions() if hidden.action_to_string(a).endswith("on column 2"))
    state.apply_action(move)
    assert hidden.move_text(state, state.moves - 1, 1) == "put a card on column 2"
    assert hidden.move_text(state, state.moves - 1, 0) == hidden.action_to_string(move)


def test_identical_copies_give_one_move_per_kind_zone_and_other_choices_and_adapters_tell_them_apart():
    twins = COLUMNS.replace("cards rank * suit", "cards rank * suit times 2")
    game = game_of(twins)
    state = game.new_state(players=2, seed=4)
    legal = texts(state)
    assert len(legal) == len(set(legal))  # one "put 3R on column 1" however many 3R the hand holds
    ids = MoveIds(game).legal(state)
    assert sorted(ids.values()) == sorted(state.legal_actions())
    place = game.prog.action_by_name["place"]
    for adapter, real in ids.items():
        if place.first_id <= real < place.first_id + place.size:
            assert game.action_to_string(adapter) == game.action_to_string(real)


def test_up_to_n_offers_done_and_stops_after_n_moves():
    game, state = dealt()
    play(state, "pass")
    assert texts(state) == ["toss 1R", "toss 2R", "toss 5B", "toss 6B", "done"]
    play(state, "toss 1R")
    play(state, "toss 6B")  # the second of "up to 2": the next choice, "any number of", begins
    assert texts(state) == ["toss 2R", "toss 5B", "done"]
    play(state, "toss 2R")
    play(state, "toss 5B")  # nothing left to toss: the choice ends without a "done"
    assert state.current_player() == 1
    assert state.var("gone") == 4


def test_done_ends_the_choice_at_once_and_the_next_one_starts():
    game, state = dealt()
    play(state, "pass")
    play(state, "done")  # no toss of "up to 2"
    assert texts(state) == ["toss 1R", "toss 2R", "toss 5B", "toss 6B", "done"]  # "any number of"
    play(state, "toss 2R")
    play(state, "done")
    assert state.current_player() == 1
    assert state.var("gone") == 1


def test_up_to_zero_and_a_choice_with_no_legal_move_ask_nothing():
    text = COLUMNS.replace("choose up to 2 of toss", "choose up to count(discard) of toss")
    game = game_of(text)
    state = game.new_state(players=2, seed=1)
    play(state, "pass")  # the discard is empty: up to 0, no decision; then "any number of"
    assert texts(state)[-1] == "done" and len(texts(state)) == 5


def test_a_repeated_choice_inside_a_move_s_rules_and_a_done_of_its_own_do_not_stop_the_outer_one():
    text = COLUMNS.replace('action toss "toss" (c in me.hand) { move c to discard  gone += 1 }',
                           'action toss "toss" (c in me.hand) { move c to discard  gone += 1  choose up to 1 of pass }')
    game = game_of(text)
    state = game.new_state(players=2, seed=1)
    play(state, "pass")
    first = texts(state)[0]
    play(state, first)
    assert texts(state) == ["pass", "done"]  # the toss's own choice
    play(state, "done")  # ends the toss's choice only: the outer "up to 2" goes on
    assert texts(state)[-1] == "done" and len(texts(state)) == 4
    assert state.current_player() == 0


def test_the_stop_move_is_renamed_when_the_game_has_a_move_called_done():
    game = game_of(COLUMNS.replace("action pass { }", 'action pass "done" { }'))
    state = game.new_state(players=2, seed=1)
    play(state, "done")  # the game's own move
    assert texts(state)[-1] == "stop choosing"


def test_a_replayed_game_with_several_choices_and_repeats_is_the_same_game():
    game = game_of()
    state = game.new_state(players=2, seed=7)
    import random
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    again = game.new_state(players=2, seed=7)
    for a in state.history:
        again.apply_action(a)
    assert again.returns() == state.returns() and again.z == state.z


@pytest.mark.parametrize("change, message", [
    (('"put {c} on column {k}"', '"put {card} on column {k}"'),
     "the label names '{card}', which is not one of the move's choices (c, k)"),
    (("(c in me.hand, k in 1..3)", "(c in me.hand, d in me.hand)"), "a move names at most one card"),
    (("(c in me.hand, k in 1..3)", "(c in me.hand, c in 1..3)"), "the move already has a choice named 'c'"),
    (("(p in others, n in 1..count(me.hand))", "(p in others, n in 1..900, m in 1..900)"),
     "moves: at most 20000 combinations can be moves"),
    (("choose up to 2 of toss", "choose up to 2 of tos"), "unknown action 'tos'"),
])
def test_mistakes_in_several_choices_are_reported_by_the_check(change, message):
    with pytest.raises(SourceError) as err:
        game_of(COLUMNS.replace(*change))
    assert message in str(err.value)
