"""Numbers as moves and ranges; ordered zones as sequences: nth, top N, sorted, list(...), values(...),
lists compared element by element, `elif` in expressions (docs/language.md, sections 7 and 8)."""
import pytest

import gamedsl
from gamedsl import GameRuntimeError

HEADER = '''game "T"
players 2 to 3
attribute rank: 2, 3, 4, 5, J, Q
attribute suit: red "r", blue "b"
cards rank * suit
zone deck: hidden, stack
zone pile: public, stack
zone hand per player: owner
var said per player = 0
var total = 0
'''
LINES = HEADER.count("\n")


def load(body: str) -> gamedsl.Game:
    return gamedsl.load_source(HEADER + body, "t.game")


def said(body: str, setup: str = "") -> list[str]:
    """The lines a game says in its first round, which ends the game."""
    game = load(f"setup {{ {setup} }}\nround {{\n{body}\n  end game\n}}\n")
    state = game.new_state(players=2, seed=1)
    return [str(text) for _, _, text, _ in state.log]


def errors(body: str) -> list[str]:
    with pytest.raises(gamedsl.SourceError) as info:
        load(body)
    return [line for line in info.value.format().splitlines() if ": error: " in line or "hint:" in line]


# A pile of known cards, bottom to top: 2r 3r 4b J b Qr (Q red on top).
PILE = "move card(2, red) to pile  move card(3, red) to pile  move card(4, blue) to pile  " \
       "move card(J, blue) to pile  move card(Q, red) to pile"


# ---- ranges ------------------------------------------------------------------
def test_a_range_is_every_whole_number_from_low_to_high_and_works_wherever_a_list_does():
    assert said('''  for each i in 1..4 { total += i }
  say "{total} {sum(i * i for i in 1..3)} {count(0..5)} {count(2..1)} {any(i in 1..3 if i == 3)} {5 in 1..4}"
  say "{list(i for i in 0..3 if i % 2 == 0)} {count(n in 1..10 if n % 3 == 0)} {all(i in 3..2 if false)}"''') == [
        "10 14 6 0 yes no", "0, 2 3 yes"]


def test_a_ranges_bounds_are_any_number_expressions():
    assert said('''  let n = count(pile)
  say "{list(i for i in n - 1..n + 1)} {list(i for i in 1..count(pile) / 2)}"''', PILE) == ["4, 5, 6 1, 2"]


def test_a_list_is_said_element_by_element_as_each_would_be_said_alone():
    # numbers, yes/no, values by their symbols, players by name, cards; nothing is a dash
    assert said('''  say "{list(i for i in 1..3 if i > 5)} {list(i > 1 for i in 1..2)} {list(c.suit for c in pile)}"
  say "{players} {list(p for p in players if p != seat(1))} {sorted(c in pile by c.rank)}"''', PILE) == [
        "— no, yes r, r, b, b, r", "P1, P2 P2 2r, 3r, 4b, Jb, Qr"]


def test_a_range_needs_numbers():
    assert errors('round { for each i in 1..me { total += 1 } }') == [
        f"t.game:{LINES + 1}:26: error: expected a number, found a player"]


# ---- numbers as moves ----------------------------------------------------------
BID = '''action bid "bid" (n in 0..count(me.hand)) if n != 2 "two is not a bid" { me.said = n  total += n }
setup { shuffle deck  deal 3 from deck to hand }
round { for each p in players { turn p { choose bid } }  end game }
'''


def test_a_numbered_move_is_shown_and_typed_as_its_number():
    game = load(BID)
    state = game.new_state(players=2, seed=3)
    assert [game.action_to_string(a) for a in state.legal_actions()] == ["bid 0", "bid 1", "bid 3"]
    assert game.string_to_action(state, "bid 3") == state.legal_actions()[-1]
    assert game.decode(game.string_to_action(state, "bid 3"))[1] == 3
    with pytest.raises(gamedsl.IllegalAction, match="two is not a bid"):
        game.string_to_action(state, "bid 2")
    state.apply_action(game.string_to_action(state, "bid 3"))
    state.apply_action(game.string_to_action(state, "bid 1"))
    assert state.is_terminal() and state.var("said", 0) == 3 and state.var("said", 1) == 1 and state.var("total") == 4


def test_a_numbered_moves_ids_are_fixed_by_the_largest_number_the_check_finds():
    # count(me.hand) is at most every card of the game (12): the moves are bid 0 ... bid 12, whatever is dealt
    game = load(BID)
    assert game.num_distinct_actions() == 13
    assert [game.action_to_string(a) for a in range(13)] == [f"bid {n}" for n in range(13)]
    bounded = load(BID.replace("0..count(me.hand)", "0..min(count(me.hand), 5)"))
    assert bounded.num_distinct_actions() == 6
    listed = load(BID.replace("0..count(me.hand)", "[1, 4, 2 * 3]"))
    assert listed.num_distinct_actions() == 7
    chosen = load(BID.replace("0..count(me.hand)", "if total > 3 then 1..9 else [0, 2]"))
    assert chosen.num_distinct_actions() == 10


def test_a_numbered_move_outside_its_declared_bounds_is_a_runtime_error():
    game = load(BID.replace("0..count(me.hand)", "total..min(count(me.hand), 5)"))
    assert game.num_distinct_actions() == 6  # a low bound the check cannot know is checked as the game goes
    with pytest.raises(gamedsl.SourceError):  # a high one must be known
        load(BID.replace("0..count(me.hand)", "0..total"))
    late = load(BID.replace("0..count(me.hand)", "total..3").replace("total += n", "total -= 2"))
    state = late.new_state(players=2, seed=1)
    with pytest.raises(GameRuntimeError, match="a move's number must be between 0 and 3 .*not -2") as info:
        state.apply_action(state.legal_actions()[0])  # the next player's choices start at -2
    assert str(info.value).splitlines()[0] == f"t.game:{LINES + 1}:24: error: a move's number must be between " \
        "0 and 3 (the most the check found for this action), not -2"


def test_numbered_moves_without_a_known_largest_number_or_below_zero_are_errors_with_hints():
    errs = errors('''option most = 5
action a (n in 0..most) { total = n }
action b (n in -1..3) { total = n }
action c (n in 0..5000) { total = n }
round { turn seat(1) { choose a, b, c } }
''')
    assert errs == [
        f"t.game:{LINES + 2}:16: error: cannot tell the largest number of these moves before the game starts",
        "  hint: each number is a move of its own: bound the range by a number, an option's value does not count "
        "(write min(EXPR, 20)); count(...) of cards is at most the game's cards",
        f"t.game:{LINES + 3}:16: error: a move's number cannot be negative: this range may start at -1",
        "  hint: moves are numbered from 0: shift the range, and the number in the action's rules",
        f"t.game:{LINES + 4}:16: error: these moves may go up to 5000: at most 999 numbers can be moves",
        "  hint: bound the range: min(EXPR, 100)"]


def test_attribute_values_named_by_numbers_are_move_choices():
    game = load('''action call "call" (r in values(rank)) { say "calls {r}" }
action some "name" (r in [2, 3, Q]) { say "names {r}" }
round { turn seat(1) { choose call, some }  end game }
''')
    state = game.new_state(players=2, seed=1)
    assert [game.action_to_string(a) for a in state.legal_actions()] == [
        "call 2", "call 3", "call 4", "call 5", "call J", "call Q", "name 2", "name 3", "name Q"]
    state.apply_action(game.string_to_action(state, "name 3"))
    assert [str(t) for _, _, t, _ in state.log] == ["names 3"]


def test_a_list_holds_one_kind_of_thing():
    assert errors('round { say "{[1, me]}" }') == [
        f"t.game:{LINES + 1}:15: error: a list holds one kind of thing: here a number and a player"]


# ---- zones as sequences ----------------------------------------------------------
def test_nth_counts_from_the_top_of_a_zone_or_its_bottom_or_from_the_first_of_a_list():
    assert said('''  say "{nth(pile, 1)} {nth(pile, 2)} {nth(pile, 1, bottom)} {nth(pile, 2, bottom)} {nth(pile, 5, top)}"
  say "{nth([4, 5, 6], 2)} {nth(players, 2)} {nth(sorted(c in pile by c.rank), 2)}"''', PILE) == [
        "Qr Jb 2r 3r 2r", "5 P2 3r"]


def test_nth_past_the_end_is_a_runtime_error_located_at_it():
    with pytest.raises(GameRuntimeError) as info:
        said('  say "{nth(pile, 6)}"', PILE)
    assert str(info.value).splitlines()[0] == \
        f"t.game:{LINES + 3}:9: error: there is no card 6 from the top of a zone of 5 cards"
    with pytest.raises(GameRuntimeError, match="there is no element 0 of a list of 2"):
        said('  say "{nth([1, 2], 0)}"')


def test_nth_is_given_a_zone_or_a_list_and_a_number():
    assert errors('round { say "{nth(me, 1)} {nth(pile, me)} {nth([1], 1, bottom)}" }') == [
        f"t.game:{LINES + 1}:19: error: expected a zone or a list, found a player",
        f"t.game:{LINES + 1}:38: error: expected a number, found a player",
        f"t.game:{LINES + 1}:56: error: nth's third argument is 'top' or 'bottom', and only for a zone",
        "  hint: 'nth' takes a zone or a list and a number: nth(pile, 2), nth(pile, 2, bottom)"]


def test_top_and_bottom_with_a_number_are_lists_of_cards_from_that_end():
    assert said('''  say "{top(pile, 2)} / {bottom(pile, 3)} / {top(pile, 9)} / {count(top(pile, 0))}"
  say "{count(c in top(pile, 3) if c.suit == blue)} {top(pile, 1) == [top(pile)]}"''', PILE) == [
        "Qr, Jb / 2r, 3r, 4b / Qr, Jb, 4b, 3r, 2r / 0", "2 yes"]
    with pytest.raises(GameRuntimeError, match="cannot take -1 cards"):
        said('  say "{top(pile, -1)}"', PILE)


def test_sorted_orders_by_a_key_ties_keeping_their_order():
    assert said('''  say "{sorted(c in pile by c.rank)} / {sorted(c in pile by c.rank descending)}"
  say "{sorted(c in pile by c.suit)} / {sorted(c in pile by c.suit descending)}"
  say "{sorted(c in pile by [c.suit, c.rank] descending if c.rank != J)} / {sorted(i in 1..5 by -i)}"''',
                PILE) == ["2r, 3r, 4b, Jb, Qr / Qr, Jb, 4b, 3r, 2r",
                          "2r, 3r, Qr, 4b, Jb / 4b, Jb, 2r, 3r, Qr",
                          "4b, Qr, 3r, 2r / 5, 4, 3, 2, 1"]


def test_sorted_needs_a_key_that_can_be_ordered():
    assert errors('round { say "{sorted(c in pile by c)} {sorted(c in pile)}" }') == [
        f"t.game:{LINES + 1}:35: error: 'sorted' needs a key that can be ordered: a number, a value or a list "
        "of them, not a card",
        f"t.game:{LINES + 1}:40: error: 'sorted' needs 'by', as in 'sorted(c in me.hand by c.rank descending)'"]


def test_lists_compare_element_by_element_the_first_difference_deciding():
    assert said('''  say "{[3, 1] > [2, 9]} {[2, 9] > [2, 8, 7]} {[2] < [2, 0]} {[1, 2] == [1, 2]} {[1, 2] <= [1, 2]}"
  say "{list(c.rank for c in top(pile, 2)) > [Q, 2]} {1..3 == [1, 2, 3]} {[J] > [5]}"''', PILE) == [
        "yes yes yes yes yes", "yes yes yes"]


def test_lists_of_cards_or_players_have_no_order():
    assert errors('round { say "{top(pile, 2) < top(pile, 3)} {[1] < [me]}" }') == [
        f"t.game:{LINES + 1}:15: error: '<' compares numbers, ordered values or lists of them, not a list of cards",
        "  hint: lists are compared element by element, the first difference deciding",
        f"t.game:{LINES + 1}:45: error: cannot compare a list of numbers with a list of players"]


def test_list_makes_a_list_of_values_and_values_lists_an_attribute():
    assert said('''  say "{list(c.rank for c in pile if c.suit == red)} {list(number(c.rank) * 2 for c in bottom(pile, 2))}"
  say "{values(suit)} {count(values(rank))} {nth(values(rank), 5)}"''', PILE) == [
        "2, 3, Q 4, 6", "r, b 6 J"]
    assert errors('round { say "{values(colour)} {list(c in pile)}" }') == [
        f"t.game:{LINES + 1}:15: error: 'values' takes the name of a card attribute: values(rank)",
        f"t.game:{LINES + 1}:32: error: 'list' needs the form 'list(c.rank for c in me.hand)'"]


# ---- elif in expressions ------------------------------------------------------------
def test_elif_in_an_if_expression_takes_the_first_condition_that_holds():
    game = load('''def size(n) = if n > 10 then 3 elif n > 5 then 2 elif n > 0 then 1 else 0
round { say "{size(11)} {size(6)} {size(1)} {size(0)}"  end game }
''')
    assert [str(t) for _, _, t, _ in game.new_state(players=2).log] == ["3 2 1 0"]
    assert errors('round { total = if true then 1 elif false then me else 2 }') == [
        f"t.game:{LINES + 1}:32: error: both branches must give the same kind of thing: a player and a number"]


def test_functions_take_zones_or_lists_as_sequences():
    game = load('''def second(z) = nth(z, 2)
def highest(z) = nth(sorted(c in z by c.rank descending), 1)
def many(z) = count(z) + count(c in z if c.suit == red)
def lowest_two(z) = list(c.rank for c in sorted(c in z by c.rank) if c.rank <= nth(sorted(d in z by d.rank), 2).rank)
round { say "{second(pile)} {second(top(pile, 3))} {highest(pile)} {many(pile)} {many(bottom(pile, 2))} {lowest_two(pile)}"
        end game }
setup { ''' + PILE + ''' }
''')
    assert [str(t) for _, _, t, _ in game.new_state(players=2).log] == ["Jb Jb Qr 8 4 2, 3"]


def test_best_and_worst_take_a_list_as_their_key():
    assert said('''  say "{best(c in pile by [c.suit, c.rank])} {worst(c in pile by [c.suit, c.rank])} {best(c in pile by c.rank)}"''',
                PILE) == ["Jb 2r Qr"]
