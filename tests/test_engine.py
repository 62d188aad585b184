"""The engine: the state API, flow, triggers, modifiers, visibility and runtime errors."""
import random
from pathlib import Path

import pytest

import gamedsl
from gamedsl import IllegalAction, GameRuntimeError

ROOT = Path(__file__).resolve().parent.parent
LAUS = gamedsl.load_game(ROOT / "games" / "laus.game")

HEADER = '''game "T"
players 2 to 3
attribute rank: 1, 2, 3, 4, 5
attribute suit: red "r", blue "b"
cards rank * suit
zone deck: hidden, stack
zone pile: top
zone table: public
zone hand per player: owner
hidden var log = 0                   # (what the tests read: the rules' own record of what happened)
var turns per player = 0
'''


def load(body: str) -> gamedsl.Game:
    return gamedsl.load_source(HEADER + body, "t.game")


def play_all(state, pick=min):
    while not state.is_terminal():
        state.apply_action(pick(state.legal_actions()))
    return state


# ---- the state API -------------------------------------------------------
def test_same_seed_and_moves_give_the_same_game():
    a = LAUS.new_state(players=4, seed=11)
    b = LAUS.new_state(players=4, seed=11)
    play_all(a)
    play_all(b)
    assert a.history == b.history
    assert a.digest() == b.digest()
    assert a.returns() == b.returns()
    c = LAUS.new_state(players=4, seed=12)
    assert c.zone_cards("hand", 0) != LAUS.new_state(players=4, seed=11).zone_cards("hand", 0)


def test_a_clone_is_independent_of_its_original():
    state = LAUS.new_state(players=3, seed=5)
    before = state.digest()
    copy = state.clone()
    play_all(copy)
    assert copy.is_terminal()
    assert state.digest() == before and not state.is_terminal()
    assert copy.clone().digest() == copy.digest()
    # and the clone continues exactly as the original would
    twin = state.clone()
    for action in copy.history[len(state.history):]:
        twin.apply_action(action)
    assert twin.digest() == copy.digest()


def test_an_illegal_move_is_refused_with_a_reason_and_changes_nothing():
    state = LAUS.new_state(players=4, seed=3)
    legal = set(state.legal_actions())
    illegal = next(a for a in range(LAUS.num_distinct_actions()) if a not in legal)
    before = state.digest()
    with pytest.raises(IllegalAction) as info:
        state.apply_action(illegal)
    assert str(info.value)
    assert state.digest() == before
    with pytest.raises(IllegalAction, match="no move number"):
        state.apply_action(10_000)
    assert state.digest() == before


def test_each_condition_of_a_move_explains_itself_when_an_earlier_one_shares_its_values():
    # Both conditions read top(pile): the second must work it out even when asked on its own.
    game = load('''
action play (c in me.hand) if c.rank != top(pile).rank "not the same rank"
    if c.suit == top(pile).suit "follow the suit" { move c to pile }
setup { shuffle deck  move top(deck) to pile  deal 5 from deck to hand }
round { for each p in players { turn p { choose play } } }
''')
    state = game.new_state(players=2, seed=1)
    top = state.zone_cards("pile")[-1]
    hand = state.zone_cards("hand", state.current_player())
    rank, suit = game.card_name(top)[:-1], game.card_name(top)[-1]
    refused = [c for c in hand if game.card_name(c)[-1] != suit and game.card_name(c)[:-1] != rank]
    assert refused, "the deal leaves a card of another rank and suit"
    for card in refused:
        with pytest.raises(IllegalAction, match="follow the suit"):
            state.apply_action(next(a for a in range(game.num_distinct_actions())
                                    if game.decode(a)[0].name == "play" and game.decode(a)[1] == card))


FITS = '''
action play (c in me.hand) if c.rank == 5 or c.suit == top(pile).suit or c.rank == top(pile).rank
    "a 5, or the top card's suit or rank" { move c to pile }
round { for each p in players { turn p { choose play } }  log += 1 }
end game when log == 3
'''


def test_a_condition_on_the_card_and_the_top_card_is_looked_up_in_a_table_that_agrees_with_it():
    # The suit and rank tests read only the card and top(pile): the legal moves come from a table
    # of every card per top card (Actions.table), built as tops come and go.
    game = load(FITS + "setup { shuffle deck  move top(deck) to pile  deal 4 from deck to hand }")
    assert "_T_0 = {}" in game.prog.module
    rank, suit = (lambda c: game.card_name(c)[:-1]), (lambda c: game.card_name(c)[-1])
    tops = set()
    for seed in range(30):
        state = game.new_state(players=3, seed=seed)
        while not state.is_terminal():
            top = state.zone_cards("pile")[-1]
            tops.add(top)
            hand = state.zone_cards("hand", state.current_player())
            fits = {c for c in hand if rank(c) == "5" or suit(c) == suit(top) or rank(c) == rank(top)}
            assert {game.decode(a)[1] for a in state.legal_actions()} == fits
            state.apply_action(min(state.legal_actions()))
    assert len(tops) > 5


def test_a_table_condition_fails_only_where_the_written_order_fails():
    # With no top card, a 5 is still legal (the test stops at `c.rank == 5`); only a card that
    # needs the top card makes the rule fail, located at it.
    only_fives = load(FITS + "setup { deal 2 from deck to hand }").new_state(players=2)
    assert [only_fives.action_to_string(a) for a in only_fives.legal_actions()] == ["play 5b", "play 5r"]
    with pytest.raises(GameRuntimeError, match="zone 'pile' is empty: it has no top card") as info:
        load(FITS + "setup { deal 1 from deck to hand  move top(deck) to table  deal 1 from deck to hand }"
             ).new_state(players=2)
    assert "c.suit == top(pile).suit" in str(info.value)


def test_any_and_all_over_a_zone_read_the_set_of_the_cards_that_pass():
    # The conditions read only the card's fixed properties and a variable: the generated code
    # answers them from the set of the cards that pass for the variable's value (Builtins.card_set).
    game = load('''
value worth: 1 = 1, 2 = 2, 3 = 3, 4 = 4, 5 = 5
var wanted = 1
hidden var some_red = false
hidden var every_high = false
action play (c in me.hand) {
  move c to pile
  wanted = c.worth
  some_red = any(x in me.hand if x.worth == wanted and x.suit == red)
  every_high = all(x in me.hand if x.worth >= wanted)
}
setup { shuffle deck  deal 5 from deck to hand }
round { for each p in players { turn p { choose play } }  log += 1 }
end game when log == 5
''')
    assert "_S_0[_s_0k] if (_s_0k := (s.v[10], )) in _S_0 else _card_set(_S_0, _s_0k, _S_0_build)" in game.prog.module
    rank = lambda c: int(game.card_name(c)[:-1])  # noqa: E731
    answers = set()
    for seed in range(20):
        state, pick = game.new_state(players=2, seed=seed), random.Random(seed).choice
        while not state.is_terminal():
            player = state.current_player()
            state.apply_action(pick(state.legal_actions()))
            hand, wanted = state.zone_cards("hand", player), state.var("wanted")
            some_red = any(rank(c) == wanted and game.card_name(c)[-1] == "r" for c in hand)
            every_high = all(rank(c) >= wanted for c in hand)
            assert (state.var("some_red"), state.var("every_high")) == (some_red, every_high)
            answers.add((some_red, every_high))
    assert answers == {(False, False), (False, True), (True, False), (True, True)}


def test_a_function_inlined_with_an_argument_worked_out_once():
    # twice(random(deck)) is inlined: its argument is drawn once, into a name, as a call would.
    game = load('''
def twice(c) = number(c.rank) + number(c.rank)
action go { log = twice(random(deck)) }
round { turn next(me) { choose go } }
end game when log > 0 and log % 2 == 1
''')
    assert "(_a_0 := " in game.prog.module
    logs = set()
    for seed in range(40):
        state = game.new_state(players=2, seed=seed)
        for _ in range(3):
            state.apply_action(state.legal_actions()[0])
            logs.add(state.var("log"))
    assert logs == {2, 4, 6, 8, 10}  # drawn twice, a sum would be odd now and then


def test_a_function_inlined_inside_a_count_keeps_its_own_names_apart_from_the_callers():
    # rivals(q) counts its own q, inside a count whose q is the argument: the two must not be one
    # name in the generated code (3 players: each has 2 others, so every q passes).
    game = load('''
def rivals(x) = count(q in players if q != x)
action go { log = count(q in players if rivals(q) == count(players) - 1) }
round { turn next(me) { choose go } }
end game when log > 0
''')
    state = game.new_state(players=3, seed=1)
    state.apply_action(state.legal_actions()[0])
    assert state.var("log") == 3


def test_the_generated_module_is_the_same_text_in_every_process():
    # Its pieces' compiled code is reused across edits and processes (language/codegen.py).
    import subprocess
    import sys
    script = ("import gamedsl, hashlib; g = gamedsl.load_source(open(%r).read(), 'law.game'); "
              "print(hashlib.sha256(g.prog.module.encode()).hexdigest())" % str(ROOT / "games" / "law.game"))
    env = {**__import__("os").environ, "GAMEDSL_CACHE": ""}
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True).stdout
            for _ in range(2)}
    assert len(runs) == 1


def test_typed_moves_are_parsed_or_explained():
    state = LAUS.new_state(players=4, seed=3)
    me = state.current_player()
    card = state.zone_cards("hand", me)[0]
    name = LAUS.card_name(card)
    assert LAUS.string_to_action(state, f"play {name}") in state.legal_actions()
    assert LAUS.action_to_string(LAUS.string_to_action(state, name)) == f"play {name}"
    other = state.zone_cards("hand", (me + 1) % 4)[0]
    with pytest.raises(IllegalAction, match="is not in me.hand"):
        LAUS.string_to_action(state, f"play {LAUS.card_name(other)}")
    with pytest.raises(IllegalAction, match="not a move of this game; the moves now are: play"):
        LAUS.string_to_action(state, "dance")


def test_card_names_can_be_typed_in_words():
    assert LAUS.parse_card("J♣") == LAUS.parse_card("J clubs") == LAUS.parse_card("j of clubs")
    assert LAUS.parse_card("10♥") == LAUS.parse_card("10 hearts") == LAUS.parse_card("10h")
    with pytest.raises(KeyError):
        LAUS.parse_card("5♥")  # removed from the 32-card deck


def test_returns_and_terminal():
    state = LAUS.new_state(players=3, seed=2)
    assert state.returns() == [0.0, 0.0, 0.0]
    play_all(state)
    assert state.current_player() == gamedsl.TERMINAL
    assert state.legal_actions() == []
    assert sorted(state.returns()) == [-1.0, 1.0, 1.0]


def test_player_count_and_options_are_checked():
    with pytest.raises(gamedsl.GamedslError, match="3 to 4 players, not 5"):
        LAUS.new_state(players=5)
    with pytest.raises(gamedsl.GamedslError, match="no option 'goal'"):
        LAUS.new_state(players=3, options={"goal": 5})
    with pytest.raises(gamedsl.GamedslError, match="is a number, not 'abc'"):
        LAUS.new_state(players=3, options={"target": "abc"})
    assert LAUS.new_state(players=3, options={"target": "10"}).opt == [10]


# ---- observation ---------------------------------------------------------
def test_observation_shows_exactly_what_a_player_may_see():
    state = LAUS.new_state(players=3, seed=4)
    obs = state.observation(0)
    hands = obs["zones"]["hand"]
    assert sorted(hands["P1"]) == sorted(LAUS.card_name(c) for c in state.zone_cards("hand", 0))
    # a hand is shown sorted by suit, then rank: its order tells nothing
    suits = "♣♠♥♦"
    assert [suits.index(n[-1]) for n in hands["P1"]] == sorted(suits.index(n[-1]) for n in hands["P1"])
    assert hands["P2"] == {"count": 10} and hands["P3"] == {"count": 10}
    assert obs["zones"]["skat"] == {"count": 2}
    assert obs["vars"]["score"] == {"P1": 0, "P2": 0, "P3": 0}
    mover = state.current_player()
    assert "legal" in state.observation(mover)
    assert "legal" not in state.observation((mover + 1) % 3)


def test_top_visibility_shows_only_the_top_card():
    game = load('''action go { move top(deck) to pile  move top(deck) to pile }
round { choose go  end game }
''')
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])
    pile = state.observation(1)["zones"]["pile"]
    assert pile == {"count": 2, "top": game.card_name(state.zone_cards("pile")[-1])}


# ---- flow ----------------------------------------------------------------
def test_turns_go_round_from_a_starting_seat_and_end_turn_stops_one_early():
    game = load('''var first: player
action pass { log = log * 10 + number(me) }
action stop { log = log * 10 + number(me)  end turn }
setup { first = seat(2) }
round {
  for each p in players starting at first {
    turn p { choose pass, stop  p.turns += 1 }
  }
  end game
}
''')
    state = game.new_state(players=3)
    assert state.current_player() == 1
    moves = ["pass", "stop", "pass"]
    for text in moves:
        state.apply_action(game.string_to_action(state, text))
    assert state.var("log") == 231
    # 'end turn' skipped the rest of P3's turn only
    assert [state.var("turns", p) for p in range(3)] == [1, 1, 0]
    assert state.is_terminal()


def test_rounds_repeat_until_the_end_condition():
    game = load('''var rounds = 0
round { rounds += 1 }
end game when rounds == 4
outcome { for each p in players { win p } }
''')
    state = game.new_state(players=2)
    assert state.is_terminal()
    assert state.var("rounds") == 4 and state.round_number == 4
    assert state.returns() == [1.0, 1.0]


def test_repeat_while_and_if_in_the_flow():
    game = load('''var n = 0
var m = 0
action tick { n += 1 }
round {
  repeat 3 { if n < 2 { choose tick } else { m += 10 } }
  while m < 25 { m += 1 }
  end game
}
''')
    state = game.new_state(players=2)
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal()
    assert (state.var("n"), state.var("m")) == (2, 25)


def test_choose_by_another_player():
    game = load('''action give (c in me.hand) { move c to next(me).hand }
round {
  deal 2 from deck to hand
  turn seat(1) { choose give by seat(2) }
  end game
}
''')
    state = game.new_state(players=2, seed=3)
    assert state.current_player() == 1
    card = state.zone_cards("hand", 1)[0]
    state.apply_action(game.string_to_action(state, f"give {game.card_name(card)}"))
    assert card in state.zone_cards("hand", 0) and len(state.zone_cards("hand", 0)) == 3


def test_places_share_a_place_on_equal_keys():
    game = load('''var pts per player = 0
setup { for each p in players { p.pts = if p == seat(2) then 5 else 2 } }
round { end game }
outcome { places p in players by p.pts descending }
''')
    state = game.new_state(players=3)
    assert state.places == [2, 1, 2]


def test_places_break_ties_by_the_keys_after_then_and_the_score_stays_the_first_key():
    """`by E then F`: players equal on E are placed by F (Sushi Go: the most puddings breaks a tie),
    still sharing a place when equal on both; the report reads E as the score (its margin in points,
    not the 601 an encoded key '100 * score + puddings' gave)."""
    from gamedsl.tools.analysis.standing import standing

    game = load('''var pts per player = 0
var extra per player = 0
setup { for each p in players { p.pts = 5  p.extra = if p == seat(2) then 3 else 1 } }
round { end game }
outcome { places p in players by p.pts then p.extra then 0 descending }
''')
    state = game.new_state(players=3)
    assert state.places == [2, 1, 2]  # without `then`: all three first
    assert standing(state)[1] == [5, 5, 5]


def test_the_move_limit_ends_the_game_without_a_result():
    game = load('''limit 5 moves
action wait { log += 1 }
round { while true { choose wait } }
outcome { win seat(1) }
''')
    state = play_all(game.new_state(players=2))
    assert state.limit_hit and state.moves == 5
    assert state.returns() == [0.0, 0.0]


# ---- triggers and modifiers ----------------------------------------------
def test_move_triggers_run_at_once_and_bind_the_owner():
    game = load('''owner var reds per player = 0
on move c from deck to p.hand if c.suit == red { p.reds += 1  log = log * 10 + number(c.rank) }
round {
  shuffle deck
  move 3 from deck to me.hand
  log = log * 10 + 9
  end game
}
''')
    state = game.new_state(players=2, fixed_shuffles=[[game.parse_card(x) for x in
                                                       "5b 5r 4b 4r 3b 3r 2b 2r 1b 1r".split()]])
    # 1r, 1b, 2r are drawn: the trigger ran right after each red one, before the next statement
    assert state.var("reds", 0) == 2 and state.var("reds", 1) == 0
    assert state.var("log") == 129


def test_turn_and_round_triggers_run_in_order():
    game = load('''var rounds = 0
on round start { log = log * 10 + 1 }
on turn start { log = log * 10 + 2 }
on turn end { log = log * 10 + 3 }
on round end { log = log * 10 + 4  rounds += 1 }
setup { log = 9 }
round { turn seat(1) { log = log * 10 + 5 } }
end game when rounds == 2
''')
    state = game.new_state(players=2)
    assert str(state.var("log")) == "9" + "12534" * 2


def test_modifiers_change_parameters_while_their_condition_holds():
    game = load('''param take = 1
modifier more while count(table) > 0 { take += 1 }
modifier double while count(table) > 1 { take *= 2 }
var seen = 0
action draw { move take from deck to me.hand  seen = seen * 10 + take }
action lay (c in me.hand) { move c to table }
round {
  turn me { choose draw }
  turn me { choose lay }
  turn me { choose draw }
  turn me { choose lay }
  turn me { choose draw }
  end game
}
''')
    state = game.new_state(players=2, seed=1)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    # 1 (base), 2 (one card on the table), (1 + 1) * 2 = 4 (two cards)
    assert state.var("seen") == 124
    assert len(state.zone_cards("hand", 0)) == 1 + 2 + 4 - 2


def test_a_modifier_can_depend_on_whose_parameter_is_read():
    game = load('''param limit per player = 3
modifier leader_limit while owner == seat(1) { limit -= 1 }
modifier crowded while count(table) > 0 { limit += count(owner.hand) }
var seen per player = 0
action lay (c in me.hand) { move c to table }
round {
  deal 2 from deck to hand
  for each p in players { p.seen = p.limit }
  turn seat(1) { choose lay }
  for each p in players { p.seen = p.seen * 10 + p.limit }
  end game
}
''')
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])
    # P1: 3 - 1 = 2, then with a card on the table 2 + 1 card in hand = 3; P2: 3, then 3 + 2 = 5
    assert [state.var("seen", p) for p in range(2)] == [23, 35]


# ---- runtime errors --------------------------------------------------------
def test_a_failing_rule_reports_its_line():
    game = load('''round {
  say "start"
  move top(pile) to table
}
''')
    with pytest.raises(GameRuntimeError) as info:
        game.new_state(players=2)
    assert str(info.value) == f"""t.game:{HEADER.count(chr(10)) + 3}:8: error: zone 'pile' is empty: it has no top card
      move top(pile) to table
           ^^^^^^^^^
  while the game is set up, before the first move"""


def test_a_rule_failing_in_the_heuristic_or_the_end_of_the_game_is_located_with_its_moment():
    game = load('''action go { move top(deck) to table }
round { deal 1 from deck to hand  turn seat(2) { choose go } }
end game when log > 0 and top(pile).rank == 1
heuristic count(table) + number(top(pile).rank)
''')
    line = HEADER.count(chr(10)) + 3
    state = game.new_state(players=2, seed=1)
    with pytest.raises(GameRuntimeError) as info:
        state.evaluate(0)
    assert str(info.value) == f"""t.game:{line + 1}:33: error: zone 'pile' is empty: it has no top card
    heuristic count(table) + number(top(pile).rank)
                                    ^^^^^^^^^
  while the game is set up, before the first move"""
    state.set_var("log", 1)
    with pytest.raises(GameRuntimeError) as info:
        state.apply_action(state.legal_actions()[0])
    assert str(info.value).splitlines()[0] == f"t.game:{line}:27: error: zone 'pile' is empty: it has no top card"
    assert str(info.value).splitlines()[-1] == "  during move 1 by P2 (round 1)"


def test_a_player_variable_never_set_is_nobody_and_using_it_as_a_player_is_located():
    game = load('''var winner: player
action go { winner.turns += 1 }
round { turn seat(1) { choose go } }
''')
    state = game.new_state(players=2)
    assert state.var("winner") is None and state.observation(0)["vars"]["winner"] is None
    with pytest.raises(GameRuntimeError) as info:
        state.apply_action(state.legal_actions()[0])
    assert str(info.value).splitlines()[:3] == [
        f"t.game:{HEADER.count(chr(10)) + 2}:13: error: nobody is used here as a player: a player variable "
        "that was never set",
        "    action go { winner.turns += 1 }",
        "                ^^^^^^^^^^^^"]
    assert "hint: set it first, or test it before use: 'if x != nobody'" in str(info.value)


def test_a_loop_that_never_asks_for_a_move_is_stopped():
    game = load('''round { while log >= 0 { log += 1 } }
''')
    with pytest.raises(GameRuntimeError, match="never ends") as info:
        game.new_state(players=2)
    assert str(info.value).splitlines()[:3] == [
        f"t.game:{HEADER.count(chr(10)) + 1}:9: error: the rules ran 1,000,000 steps without asking for a "
        "move: this loop never ends",
        "    round { while log >= 0 { log += 1 } }",
        "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^"]


def test_a_loop_whose_decisions_nobody_can_make_is_stopped_soon_and_named():
    game = load('''var done = false
action go if log > 100 "never" { done = true }
round { while not done { choose go } }
''')
    with pytest.raises(GameRuntimeError) as info:
        game.new_state(players=2)
    text = str(info.value)
    assert text.startswith(f"t.game:{HEADER.count(chr(10)) + 3}:9: error: the rules ran 1,000,000 steps without "
                           "asking for a move: this loop never ends")
    assert "hint: a decision nobody can make is skipped: one was skipped 9,901 times since the last move" in text


def test_random_choices_come_from_the_seed():
    game = load('''var who: player
setup { who = random(players) }
round { end game }
''')
    seen = {game.new_state(players=3, seed=s).var("who") for s in range(30)}
    assert seen == {0, 1, 2}
    assert game.new_state(players=3, seed=7).var("who") == game.new_state(players=3, seed=7).var("who")
    assert game.new_state(players=3, fixed_random=[2]).var("who") == 2


def test_a_player_sees_others_moves_but_not_their_hidden_cards():
    state = LAUS.new_state(players=3, seed=8, fixed_random=[2])   # P3 deals: P1 decides first
    state.apply_action(LAUS.string_to_action(state, "look at the skat"))
    card = LAUS.card_name(min(state.legal_actions()) - LAUS.prog.action_by_name["put_back"].first_id)
    state.apply_action(min(state.legal_actions()))
    # a view lists the moves since the player's own last move
    assert state.observation(0)["moves"] == [f"P1: put back {card}"]
    assert state.observation(1)["moves"] == ["P1: look at the skat", "P1: put back a card"]


def test_variables_can_be_hidden_or_shown_to_their_owner_only():
    game = load('''hidden var step = 0
owner var secret per player = 0
var shown per player = 0
setup { for each p in players { p.secret = number(p) * 10  p.shown = number(p) } }
round { end game }
''')
    state = game.new_state(players=2)
    view = state.observation(1)["vars"]
    assert "step" not in view
    assert view["secret"] == {"P2": 20}
    assert view["shown"] == {"P1": 1, "P2": 2}


def test_a_value_move_can_be_typed_by_name_symbol_or_initial():
    game = load('''var named: suit
action name (x in [red, blue]) { named = x }
round { choose name  end game }
''')
    state = game.new_state(players=2)
    assert game.action_to_string(game.string_to_action(state, "name blue")) == "name blue"
    assert game.action_to_string(game.string_to_action(state, "name b")) == "name blue"
    assert game.action_to_string(game.string_to_action(state, "r")) == "name red"


def test_rounds_that_never_ask_for_a_move_are_stopped():
    game = load('''round { log += 1 }
''')
    with pytest.raises(GameRuntimeError) as info:
        game.new_state(players=2)
    assert str(info.value).splitlines()[:3] == [
        f"t.game:{HEADER.count(chr(10)) + 1}:1: error: the rules ran 1,000,000 steps without asking for a move: "
        "the round ends and begins again without asking anyone",
        "    round { log += 1 }",
        "    ^^^^^^^^^^^^^^^^^^"]


def test_a_card_played_face_up_is_seen_even_when_the_trick_is_then_taken():
    state = LAUS.new_state(players=4, seed=8)
    for _ in range(4):            # a whole trick: the cards end in a face-down pile
        state.apply_action(min(state.legal_actions()))
    seen = [LAUS.move_text(state, k, observer) for k in range(4) for observer in range(4)]
    assert not any(text.endswith("a card") for text in seen)


def test_a_card_slipped_under_the_top_of_a_pile_stays_hidden():
    game = load('''action lay (c in me.hand) { move c to pile }
action bury (c in me.hand) { move c to pile at bottom }
round {
  deal 2 from deck to hand
  turn seat(1) { choose lay }
  turn seat(1) { choose bury }
  end game
}
''')
    state = game.new_state(players=2, seed=4)
    first, second = sorted(state.zone_cards("hand", 0))
    state.apply_action(game.string_to_action(state, f"lay {game.card_name(first)}"))
    state.apply_action(game.string_to_action(state, f"bury {game.card_name(second)}"))
    assert state.observation(1)["moves"] == [f"P1: lay {game.card_name(first)}", "P1: bury a card"]
    assert state.observation(0)["moves"][-1] == f"P1: bury {game.card_name(second)}"


@pytest.mark.parametrize("body, message", [
    ("repeat 1000000000 { log += 1 }", "more than 100000 times"),
    ("log = 2 ** 1000000000", "too large a number"),
    ("log = 2 ** (0 - 1)", "negative power"),
])
def test_runaway_arithmetic_and_repeats_are_stopped(body, message):
    game = load(f"round {{ {body} }}\n")
    with pytest.raises(GameRuntimeError, match=message):
        game.new_state(players=2)


def test_triggers_that_fire_each_other_for_ever_are_stopped():
    game = load('''on move c to pile { move c to table }
on move c to table { move c to pile }
round { move top(deck) to pile }
''')
    with pytest.raises(GameRuntimeError, match="this trigger keeps firing: triggers set each other off") as info:
        game.new_state(players=2)
    assert str(info.value).startswith(f"t.game:{HEADER.count(chr(10)) + 1}:1: error: ")


def test_cards_in_a_zone_marked_out_stay_out_of_the_game():
    game = load('''zone removed: public, out
action go { }
setup { for each c in all_cards { if c.rank == 1 { move c to removed } } }
round {
  gather all into deck
  log += 1
  choose go
  if log == 2 { end game }
}''')
    state = game.new_state(players=2, seed=1)
    removed = sorted(state.zone_cards("removed"))
    assert len(removed) == 2 and len(state.zone_cards("deck")) == 8
    state.apply_action(state.legal_actions()[0])      # a new round gathers every card but those
    assert sorted(state.zone_cards("removed")) == removed and len(state.zone_cards("deck")) == 8


# ---- cards by value, per-card variables, rules that follow cards ------------
def test_card_names_one_card_by_its_values_and_per_card_variables_mark_cards():
    game = load('''zone kept per player: public
var marked per card = 0
var found: card
action keep (c in me.hand) { move c to me.kept  c.marked = number(me) }
round {
  move card(3, blue) to seat(1).hand
  move card(5, red) to seat(1).hand
  found = card(3, blue)
  turn seat(1) { choose keep }
  if card(3, blue) in kept { log = 1 }
  end game
}''')
    state = game.new_state(players=2, seed=1)
    three = game.parse_card("3b")
    assert state.var("found") == three
    assert sorted(state.zone_cards("hand", 0)) == sorted([three, game.parse_card("5r")])
    state.apply_action(game.string_to_action(state, "keep 3b"))
    assert state.var("marked", three) == 1 and state.var("marked", game.parse_card("5r")) == 0
    assert state.var("log") == 1                      # `c in kept`: in anyone's zone of that kind
    assert state.observation(1)["vars"]["marked"] == {"3b": 1}   # only the cards marked


def test_card_values_that_name_no_card_and_per_card_variables_read_bare_are_errors():
    with pytest.raises(gamedsl.SourceError) as info:
        load('''var marked per card = 0
round { move card(3, 4) to table  marked = 1  move card(3) to table  end game }''')
    text = info.value.format()
    assert "'card' takes one value per attribute" in text
    assert "'marked' belongs to each card: write c.marked" in text


def test_zones_and_lists_join_with_plus_and_in_play_leaves_out_the_box():
    game = load('''zone box: hidden, out
var n = 0
var m = 0
round {
  move card(1, red) to box
  deal 2 from deck to hand
  n = count(seat(1).hand + seat(2).hand + [card(1, red)])
  m = count(in_play)
  end game
}''')
    state = game.new_state(players=2, seed=3)
    assert state.var("n") == 5 and state.var("m") == 9


def test_a_patterns_answers_follow_what_it_reads_and_outlive_other_rule_changes():
    # The pattern reads `size`, which `loose` changes; `noise` changes another parameter only.
    game = load('''param size = 3
param level = 0
var loose = false
var noise = 0
modifier loosened while loose { size = 2 }
modifier noisy while noise > 0 { level = noise }
pattern set: size cards, same rank
def mark() { if has(me.hand, set) { log = log * 10 + 1 } else { log = log * 10 } }
action shake { noise += 1  mark() }
action loosen { loose = true  mark() }
action tighten { loose = false  mark() }
setup {
  move card(1, red) to seat(1).hand
  move card(1, blue) to seat(1).hand
  move card(3, red) to seat(1).hand
}
round {
  turn seat(1) { choose shake }
  turn seat(1) { choose loosen }
  turn seat(1) { choose shake }
  turn seat(1) { choose tighten }
  turn seat(1) { choose shake }
  end game
}
''')
    assert game.prog.pattern_reads == ((game.prog.watch_items.index("loose"),),)
    state = game.new_state(players=2, seed=1)
    kept = []
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
        kept.append(len(state.specs))
    # a pair is a set only while `loose` holds: each change of it is seen at once
    assert state.var("log") == 1100
    # ...while a change of `noise` (a new version of the rules) keeps the Spec worked out before
    assert kept == [1, 2, 2, 3, 3]


def test_laws_patterns_are_not_worked_out_again_when_the_turn_passes():
    law = gamedsl.load_game(ROOT / "games" / "law.game")
    items = law.prog.watch_items
    assert "current" in items  # a Law's visibility reads whose turn it is...
    for reads in law.prog.pattern_reads:  # ...but no pattern does: they read the Laws in force
        assert {items[i] for i in reads} == {"laws", "only_for"}


def test_true_or_false_parameters_are_set_by_modifiers():
    game = load('''param open = false
modifier opened while count(table) > 0 { open = true }
action lay (c in me.hand) { move c to table }
round { deal 1 from deck to hand  if open { log += 1 }  turn seat(1) { choose lay }  if open { log += 10 }  end game }''')
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])
    assert state.var("log") == 10
    with pytest.raises(gamedsl.SourceError, match="a modifier sets it with '='"):
        load('''param open = false
modifier opened while true { open += 1 }
round { end game }''')


def test_modifiers_change_a_zones_visibility_for_its_owner_or_its_viewer():
    game = load('''zone kept per player: public
param peeks per player = 0
modifier peeking while owner == seat(2) { peeks = 1 }
modifier face_up while owner.peeks == 1 { deck.visibility = top }
modifier exposed while count(owner.kept) > 0 { hand.visibility = public }
action keep (c in me.hand) { move c to me.kept }
round { deal 2 from deck to hand  turn seat(1) { choose keep }  turn seat(2) { choose keep } end game }''')
    state = game.new_state(players=2, seed=1)
    # the deck shows its top card to P2 only (the viewer, for a shared zone)
    assert "top" not in state.observation(0)["zones"]["deck"]
    assert state.observation(1)["zones"]["deck"]["top"] == game.card_name(state.zone_cards("deck")[-1])
    assert state.observation(1)["zones"]["hand"]["P1"] == {"count": 2}
    state.apply_action(state.legal_actions()[0])
    # P1 has kept a card: their hand is shown to everyone (the owner, for a per-player zone)
    assert state.observation(1)["zones"]["hand"]["P1"] == [game.card_name(state.zone_cards("hand", 0)[0])]
    assert state.observation(0)["zones"]["hand"]["P2"] == {"count": 2}
    from gamedsl.engine import knowledge
    assert not any(inst == game.zone_instance("hand", 0) for inst, _ in knowledge.hidden_slots(state, 1))


def test_same_counts_values_as_one_transitively_while_modifiers_hold():
    game = load('''attribute shade: light, dark, pale
var seen = 0
modifier one while count(table) > 0 { same suit: red, blue }
action lay (c in me.hand) { move c to table }
round {
  deal 1 from deck to hand
  if same(red, red) { seen += 1 }
  if same(red, blue) { seen += 10 }
  turn seat(1) { choose lay }
  if same(blue, red) { seen += 100 }
  if same(card(1, red).suit, blue) { seen += 1000 }
  end game
}''')
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])
    assert state.var("seen") == 1101


def test_labelled_turn_triggers_are_steps_the_player_orders_each_once():
    game = load('''var order = 0
var open = false
on turn end { order = order * 10 + 9 }
on turn end "one" { order = order * 10 + 1 }
on turn end "two" { order = order * 10 + 2 }
on turn end "three" if open { order = order * 10 + 3 }
on turn end "four" { order = order * 10 + 4  open = true }
on turn end { order = order * 10 + 8 }
round { turn seat(1) { } end game }''')
    state = game.new_state(players=2, seed=1)
    assert state.var("order") == 98                    # unlabelled triggers first, in file order
    legal = [game.action_to_string(a) for a in state.legal_actions()]
    assert legal == ["one", "two", "four"]            # "three" waits for its condition
    state.apply_action(game.string_to_action(state, "four"))
    assert sorted(game.action_to_string(a) for a in state.legal_actions()) == ["one", "three", "two"]
    state.apply_action(game.string_to_action(state, "two"))
    with pytest.raises(IllegalAction):
        state.apply_action(game.string_to_action(state, "two"))   # each step once
    state.apply_action(game.string_to_action(state, "three"))
    # the last step left runs without asking
    assert state.is_terminal() and state.var("order") == 984231


def test_only_turn_and_round_triggers_take_a_label():
    with pytest.raises(gamedsl.SourceError, match="only turn and round triggers can be steps"):
        load('''on move c to table "tidy" { }
round { end game }''')


def test_tops_lists_the_top_card_of_each_pile_that_has_one():
    game = load('''zone pile2: public, stack
var n = 0
action take (c in tops(pile, pile2, table)) { move c to me.hand }
round { move 2 from deck to pile  move 1 from deck to pile2  n = count(tops(pile, pile2, table))  choose take  end game }''')
    state = game.new_state(players=2, seed=1)
    assert state.var("n") == 2
    offered = sorted(game.action_to_string(a) for a in state.legal_actions())
    assert offered == sorted(f"take {game.card_name(state.zone_cards(z)[-1])}" for z in ("pile", "pile2"))


def test_filter_keeps_the_elements_for_which_its_condition_holds_in_order():
    game = load('''hidden var n = 0
var others_seen = 0
round {
  deal 3 from deck to hand
  n = count(filter(c in all_cards if c.suit == blue and not (c in hand)))
  for each q in filter(p in players if p != seat(1)) { others_seen += number(q) }
  end game
}''')
    state = game.new_state(players=2, seed=5)
    in_hands = {c for p in range(2) for c in state.zone_cards("hand", p)}
    blue = [c for c in range(10) if game.card_name(c).endswith("b")]
    assert state.var("n") == len([c for c in blue if c not in in_hands])
    assert state.var("others_seen") == 2


def test_filter_needs_a_condition():
    with pytest.raises(gamedsl.SourceError) as info:
        load('round { log = count(filter(c in deck))  end game }')
    assert [line for line in info.value.format().splitlines() if "error:" in line] == \
        ["t.game:12:21: error: 'filter' needs a condition, as in 'filter(c in in_play if not (c in laws))'"]


def test_a_parameter_whose_starting_value_is_a_condition_is_true_or_false():
    game = load('''option open_start = true
param open = count(table) > 0
param opened_by_option = open_start
modifier closed while count(deck) == 0 { open = false }
round {
  if open { log += 1 }
  move top(deck) to table
  if open { log += 10 }
  if opened_by_option { log += 100 }
  end game
}''')
    state = game.new_state(players=2, seed=1)
    assert state.var("log") == 110


def test_a_bare_value_assigned_to_a_value_variable_takes_its_attribute():
    game = load('''var r: rank = 1
round { r = 3  log = number(r)  end game }''')
    assert game.new_state(players=2, seed=1).var("log") == 3


def test_best_of_no_player_is_nobody_and_of_no_card_is_no_card():
    game = load('''var who: player
var which: card
action go { }
setup {
  who = best(p in players if p.turns > 5 by 0)
  which = best(c in table by 0)
}
round { choose go  end game }
''')
    state = game.new_state(players=2)
    assert state.var("who") is None and state.var("which") == -1


def test_a_legal_loop_tests_cheap_conditions_first_without_hiding_or_inventing_errors():
    # `count(...) == 2` is written first and never fails; `c.rank == top(pile).rank` fails while
    # the pile is empty. The engine tests the cheap one first, but an error is still the rule's
    # only where the written order reaches it: with no pair in hand the first test is false for
    # every card and nothing fails; with a pair it reaches the empty pile and fails there.
    source = '''action play (c in me.hand)
    if count(x in me.hand if x.rank == c.rank) == 2 "you need a pair"
    if c.rank == top(pile).rank "match the pile" { move c to pile }
action wait { log += 1 }
round { turn seat(1) { choose play, wait }  end game }'''
    game = load(source)
    state = game.new_state(players=2, seed=1)
    assert [game.action_to_string(a) for a in state.legal_actions()] == ["wait"]
    state.rig({game.zone_instance("hand", 0): [game.parse_card("1r"), game.parse_card("2r")]}, rest=0)
    state.refresh()
    assert [game.action_to_string(a) for a in state.legal_actions()] == ["wait"]
    state = game.new_state(players=2, seed=1)
    state.rig({game.zone_instance("hand", 0): [game.parse_card("1r"), game.parse_card("1b")]}, rest=0)
    with pytest.raises(GameRuntimeError, match="is empty: it has no top card") as info:
        state.refresh()
    assert "t.game:14:18:" in str(info.value)


def test_a_value_read_inside_an_aggregate_is_read_once_and_only_when_reached():
    # top(pile) does not depend on x: it is read once per legal-move list, and not at all for
    # an empty hand (so an empty pile is no error then).
    source = '''action play (c in me.hand) if any(x in me.hand if x.suit == top(pile).suit) "follow" { move c to pile }
action wait { log += 1 }
round { turn seat(1) { choose play, wait }  move top(deck) to pile  deal 2 from deck to hand
        turn seat(1) { choose play, wait }  end game }'''
    game = load(source)
    state = game.new_state(players=2, seed=1)
    assert [game.action_to_string(a) for a in state.legal_actions()] == ["wait"]
    state.apply_action(state.legal_actions()[0])
    pile_suit = game.card_name(state.zone_cards("pile")[-1])[-1]
    hand = state.zone_cards("hand", 0)
    follows = any(game.card_name(c)[-1] == pile_suit for c in hand)
    assert len(state.legal_actions()) == (3 if follows else 1)


def test_a_rule_failing_inside_steps_names_the_calls_it_was_inlined_through():
    game = load('''def draw_one() {
  move top(pile) to table
}
def deal_round() { say "dealing"  draw_one() }
round { deal_round() }
''')
    line = HEADER.count(chr(10)) + 1
    with pytest.raises(GameRuntimeError) as info:
        game.new_state(players=2)
    assert str(info.value) == f"""t.game:{line + 1}:8: error: zone 'pile' is empty: it has no top card
      move top(pile) to table
           ^^^^^^^^^
  hint: in steps 'draw_one' called at t.game:{line + 3}:35, in steps 'deal_round' called at t.game:{line + 4}:9
  while the game is set up, before the first move"""


def test_a_rule_failing_inside_steps_that_wait_names_the_call_it_ran_for():
    source = '''action go { log += 1 }
def ask_then_draw() {
  choose go
  move top(pile) to table
}
round { turn seat(1) { move top(deck) to pile  ask_then_draw() }  turn seat(2) { ask_then_draw() } }
'''
    game = load(source)
    line = HEADER.count(chr(10)) + 1
    second_call = source.splitlines()[5].rindex("ask_then_draw") + 1
    state = game.new_state(players=2, seed=1)
    state.apply_action(state.legal_actions()[0])  # the pile's one card goes to the table
    with pytest.raises(GameRuntimeError) as info:
        state.apply_action(state.legal_actions()[0])  # the second call: the pile is empty
    text = str(info.value)
    assert text.startswith(f"t.game:{line + 3}:8: error: zone 'pile' is empty: it has no top card")
    assert f"hint: in steps 'ask_then_draw' called at t.game:{line + 5}:{second_call}\n" in text


# ---- say with values -------------------------------------------------------------------------
def test_say_keeps_its_values_and_each_seat_reads_the_cards_it_saw():
    game = load('''action take "take" { move top(deck) to me.hand  say "takes {top(me.hand)}: {count(me.hand)} in hand" }
setup { shuffle deck }
round { turn seat(1) { choose take }  say "{seat(1)} holds {count(seat(1).hand)}"  end game }
''')
    state = play_all(game.new_state(players=2, seed=4))
    card = game.card_name(state.z[game.zone_instance("hand", 0)][0])
    (_, who, taken, _), (_, _, held, _) = state.log
    assert who == 0 and taken == "takes a card: 1 in hand" and held == "P1 holds 1"
    assert (taken.template, taken.table, held.table) == ("takes {top(me.hand)}: {count(me.hand)} in hand", False, True)
    assert game.said_text(taken, 0) == f"takes {card}: 1 in hand" and game.said_text(taken, 1) == "takes a card: 1 in hand"
    assert state.observation(0)["log"] == [f"P1: takes {card}: 1 in hand", "P1 holds 1"]
    assert state.observation(1)["log"] == ["P1: takes a card: 1 in hand", "P1 holds 1"]


def test_a_value_in_a_message_that_fails_is_located_in_the_string():
    game = load('''round { say "the top card is {top(pile)}"  end game }
''')
    with pytest.raises(GameRuntimeError) as info:
        game.new_state(players=2)
    assert str(info.value).startswith(f"t.game:{HEADER.count(chr(10)) + 1}:31: error: zone 'pile' is empty: it has no top card")


# ---- statements written in place (issue 32: fewer calls per move) --------
def test_a_let_of_best_or_worst_keeps_the_first_of_equal_keys_and_nobody_when_none_qualify():
    # `let x = best(...)` is a loop in the generated code, not max(): the same answers, ties and all
    game = load('''
var high per player = 1
var first_best: player
var first_worst: player
var none_best: player
action go { log += 1 }
setup {
  seat(2).high = 5
  if count(players) == 3 { seat(3).high = 5 }
}
round {
  let b = best(p in players by p.high)
  let w = worst(p in players by p.high)
  let n = best(p in players if p.high > 9 by p.high)
  first_best = b
  first_worst = w
  none_best = n
  turn w { choose go }
  end game
}
''')
    assert "_bf, _bb = False, None" in game.prog.module  # the lets are loops
    names = {v.name: v.base for v in game.prog.vars}
    for players in (2, 3):
        state = play_all(game.new_state(players=players, seed=0))
        assert [state.v[names[n]] for n in ("first_best", "first_worst", "none_best")] == [1, 0, None]


def test_moving_a_zone_onto_itself_keeps_its_cards():
    game = load('''
action go { move all from table to table }
setup { move 4 from deck to table }
round { turn seat(1) { choose go } end game }
''')
    state = game.new_state(players=2, seed=3)
    table = next(z for z in game.prog.zones if z.name == "table").base
    before = list(state.z[table])
    play_all(state)
    assert len(before) == 4 and state.z[table] == before
    assert all(state.loc[c] == table for c in before)


def _legal_trace(game, seed: int) -> list:
    """The legal moves at each decision of a game played by the first legal move, and how it ended
    (its results, or the error a rule raised, with its place)."""
    trace = []
    try:
        state = game.new_state(players=2, seed=seed)
        while not state.is_terminal():
            trace.append(state.legal_actions())
            state.apply_action(min(state.legal_actions()))
        trace.append(state.returns())
    except GameRuntimeError as exc:
        trace.append(str(exc).replace("u.game", "t.game"))
    return trace


def test_a_card_set_keyed_by_a_top_card_answers_as_the_condition_written_even_with_the_pile_empty():
    # `any(x in me.hand if fits(x))` reads top(pile): the set of the cards that fit is kept per top
    # card. With the pile empty the written condition decides: no error if the first card is a 1
    # (the `or` stops), the rule's error at its place otherwise. The same game with the set made
    # impossible (a count of the deck in the condition) must agree move by move.
    rules = '''
def fits(c) = c.rank == 1 or c.suit == top(pile).suit
action play (c in me.hand) if {playable} {{ move c to pile }}
action draw if not any(x in me.hand if fits(x){extra}) {{ move top(deck) to me.hand }}
action wait {{ log += 0 }}
setup {{ shuffle deck  deal 3 from deck to hand {start} }}
round {{ for each p in players {{ turn p {{ choose draw, wait, play }} }}  log += 1 }}
end game when log == 4 or count(deck) < 3
'''
    for start, playable in (("move top(deck) to pile", "fits(c)"), ("", "c.rank == 1")):
        keyed, written = (gamedsl.load_source(HEADER + rules.format(extra=extra, start=start, playable=playable),
                                              name)
                          for extra, name in (("", "t.game"), (" and count(deck) >= 0", "u.game")))
        assert "if s.z[1] else None)" in keyed.prog.module and "if s.z[1] else None)" not in written.prog.module
        traces = [_legal_trace(keyed, seed) for seed in range(60)]
        assert traces == [_legal_trace(written, seed) for seed in range(60)]
        if start:  # a pile to read: games played to their end, drawing sometimes
            assert all(isinstance(t[-1], list) for t in traces)
            draw = next(a for a in range(len(keyed.decoded)) if keyed.action_to_string(a) == "draw")
            assert any(draw in moves for t in traces for moves in t[:-1])
        else:  # no pile at first: the game goes on if the first card in hand is a 1 (and one is played)
            errors = [t[-1] for t in traces if isinstance(t[-1], str)]
            assert 0 < len(errors) < 60 and all("'pile' is empty" in e for e in errors)
