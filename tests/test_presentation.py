"""What the table shows: messages with values (and the secrecy of the cards they name), labels,
variables shown only `when` they mean something, and how zones show (`shows`, `transient`).

Exact views and exact terminal renderings, for each construct; the errors are in test_check.py.
"""
from __future__ import annotations

import random

import pytest
from rich.console import Console

import gamedsl
from gamedsl.engine.knowledge import Redealer
from gamedsl.engine.view import View
from gamedsl.errors import InvariantViolation
from gamedsl.tools import render, verify
from gamedsl.tools.analysis.elements import Elements
from gamedsl.tools.serve.views import public_view
from gamedsl.tools.simulate import simulate

TABLE = '''game "Table"
players 2 to 3
attribute rank: 1, 2, 3, 4, 5, 6
attribute suit: hearts "♥", leaves
cards rank * suit
zone deck: hidden, stack, transient "draw pile"
zone pile: public, stack, shows top
zone tally: public, shows count "tally"
zone box: hidden, shows nothing
zone hand per player: owner
var n = 7 "a number"
var big = true "big number" when n > 5
var who: player
var kind: suit "suit"
var last_points per player = 0 "points"
hidden var steps = 0
action draw "draw" if count(deck) > 0 { move top(deck) to me.hand  say "draws {top(me.hand)}" }
action play (c in me.hand) { move c to pile  say "plays {c}" }
action tell "tell" {
  say "n {n}, {n > 3} or {n > 9}, {me} and {who}, {top(pile)}: {top(pile).suit} {kind}, {count(me.hand)} {{not a value}}"
}
setup {
  move 1 from deck to box
  move 2 from deck to tally
  shuffle deck
  move top(deck) to pile
  say "{top(pile)} starts the pile"
  deal 1 from deck to hand
}
round {
  for each p in players { turn p { choose draw, play, tell } }
  n -= 3
  steps += 1
  say "the round ends with {players}, {filter(c in pile if c.rank == 4)}"
}
end game when count(deck) == 0
'''


def table(players: int = 2, seed: int = 3):
    game = gamedsl.load_source(TABLE, "table.game")
    return game, game.new_state(players=players, seed=seed)


def move(state, text: str):
    state.apply_action(state.game.string_to_action(state, text))


def log(state, seat: int) -> list[str]:
    return state.observation(seat)["log"]


# ---- messages with values ---------------------------------------------------------------

def names(state, zone: str, player: int | None = None) -> list[str]:
    return [state.game.card_name(c) for c in state.z[state.game.zone_instance(zone, player)]]


def test_the_deal_these_tests_read():
    _, state = table(players=3)
    assert names(state, "pile") == ["2 leaves"] and names(state, "tally") == ["6♥", "5 leaves"]
    assert [names(state, "hand", k) for k in range(3)] == [["2♥"], ["4 leaves"], ["3♥"]]
    assert names(state, "deck")[-2:] == ["1♥", "5♥"]  # the top card last


def test_each_value_is_written_as_the_table_writes_its_type():
    _, state = table()
    move(state, "tell")
    # a number; yes and no; a player, and nobody as '—'; a card by its name; a value by its
    # symbol, or by its name when it has none; a zone's count; '{{' and '}}' are braces
    assert log(state, 1)[-1] == "P1: n 7, yes or no, P1 and —, 2 leaves: leaves ♥, 1 {not a value}"
    said = state.log[-1][2]
    assert said == "n 7, yes or no, P1 and —, 2 leaves: leaves ♥, 1 {not a value}"  # as every seat reads it
    assert said.template == ("n {n}, {n > 3} or {n > 9}, {me} and {who}, {top(pile)}: {top(pile).suit} "
                             "{kind}, {count(me.hand)} {{not a value}}")


def test_a_list_is_written_with_commas_and_an_empty_one_as_nothing():
    _, state = table()
    move(state, "draw")
    move(state, "tell")
    assert log(state, 0)[-1] == "the round ends with P1, P2, —"
    move(state, "draw")
    move(state, "play 4 leaves")
    assert log(state, 0)[-1] == "the round ends with P1, P2, 4 leaves"


def test_a_line_said_where_no_player_acts_is_the_tables_own():
    _, state = table()
    assert log(state, 0) == ["2 leaves starts the pile"]  # said in the setup: no player's name before it
    move(state, "draw")
    move(state, "tell")
    assert log(state, 0) == ["2 leaves starts the pile", "P1: draws 3♥",
                             "P2: n 7, yes or no, P2 and —, 2 leaves: leaves ♥, 1 {not a value}",
                             "the round ends with P1, P2, —"]
    assert [said.table for _, _, said, _ in state.log] == [True, False, False, True]


def test_a_card_is_named_only_to_the_seats_that_see_it_when_it_is_said():
    _, state = table(players=3)
    move(state, "draw")
    assert names(state, "hand", 0) == ["2♥", "5♥"]
    assert log(state, 0)[-1] == "P1: draws 5♥"  # the drawer sees the card in their hand
    assert log(state, 1)[-1] == log(state, 2)[-1] == "P1: draws a card"
    assert public_view(state)["log"][-1] == "P1: draws a card"  # a spectator: what every seat saw
    assert state.log[-1][2] == "draws a card"
    move(state, "play 4 leaves")  # a card on the public pile: named to everyone
    assert {log(state, k)[-1] for k in range(3)} == {public_view(state)["log"][-1]} == {"P2: plays 4 leaves"}


def test_a_line_keeps_what_each_seat_saw_at_the_moment_it_was_said():
    _, state = table(players=3)
    move(state, "draw")          # P1 draws 5♥: P1 alone sees it
    move(state, "tell")
    move(state, "tell")
    move(state, "play 5♥")       # round 2: P1 plays it, and everyone sees it on the pile
    assert log(state, 1)[-1] == "P1: plays 5♥"
    assert "P1: draws a card" in log(state, 1)  # P2 did not see it when it was drawn: still a card
    assert "P1: draws 5♥" in log(state, 0)
    assert "P1: draws a card" in public_view(state)["log"]


def test_a_card_shown_to_a_seat_is_named_to_that_seat():
    game = gamedsl.load_source(PEEK, "peek.game")
    state = game.new_state(players=3, seed=2)
    move(state, "peek")
    top = names(state, "deck")[-1]
    assert log(state, 0) == [f"P1: sees {top}"]  # P1 was shown the deck's top card
    assert log(state, 1) == log(state, 2) == ["P1: sees a card"]
    assert public_view(state)["log"] == ["P1: sees a card"]


def test_a_hidden_card_reads_as_its_back_where_backs_differ():
    game = gamedsl.load_source(BACKS, "backs.game")
    state = game.new_state(players=2, seed=1)
    for _ in range(3):
        move(state, "take")
    assert names(state, "hand", 0) == ["Royal Whim", "Encore"] and names(state, "hand", 1) == ["Brooding Mood"]
    assert log(state, 1) == ["P1: takes an action card", "P2: takes Brooding Mood", "P1: takes an action card"]
    assert log(state, 0) == ["P1: takes Royal Whim", "P2: takes a Mood card", "P1: takes Encore"]


PEEK = '''game "Peek"
players 2 to 3
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8, 9
cards rank
zone deck: hidden, stack
zone hand per player: owner
action peek "peek" if count(deck) > 0 { reveal top(deck) to me  say "sees {top(deck)}" }
action take "take" if count(deck) > 0 { move top(deck) to me.hand }
setup { shuffle deck }
round { for each p in players { turn p { choose peek, take } } if count(deck) == 0 { end game } }
'''

BACKS = '''game "Backs"
players 2
attribute name: encore "Encore", whim "Royal Whim", joy "Joyous", gloom "Brooding"
attribute kind: action "", mood "Mood"
back shows kind
cards {encore, whim} * action
cards {joy, gloom} * mood
zone actions: hidden, stack
zone moods: hidden, stack
zone hand per player: owner
action take "take" { if me == seat(1) { move top(actions) to me.hand } else { move top(moods) to me.hand }
                     say "takes {top(me.hand)}" }
setup { for each c in actions { if c.kind == mood { move c to moods } } }
round { for each p in players { turn p { choose take } } }
end game when count(actions) == 0
'''


# ---- labels, `when` and `shows`: the view, the terminal ---------------------------------

def test_a_view_holds_what_the_file_says_the_table_shows():
    game, state = table()
    view = state.observation(0)
    assert view["zones"] == {
        "deck": {"count": 6},                          # hidden: a count (transient: only while it holds cards)
        "pile": {"count": 1, "top": "2 leaves"},       # public, but `shows top`: its top card and a count
        "tally": {"count": 2},                         # public, but `shows count`
        "hand": {"P1": ["2♥"], "P2": {"count": 1}},    # `box` shows nothing
    }
    assert view["vars"] == {"n": 7, "big": True, "who": None, "kind": "♥", "last_points": {"P1": 0, "P2": 0}}
    assert view["labels"] == {"deck": "draw pile", "pile": "pile", "tally": "tally", "hand": "hand", "n": "a number",
                              "big": "big number", "who": "who", "kind": "suit", "last_points": "points"}
    assert game.cards_seen(state, game.zone_instance("tally"), 1) == state.z[game.zone_instance("tally")]
    move(state, "draw")
    move(state, "tell")
    assert "big" not in state.observation(0)["vars"]   # `when n > 5`: n is 4 now
    while not state.is_terminal():
        move(state, "draw" if "draw" in state.observation(state.current_player())["legal"] else "tell")
    assert "deck" not in state.observation(0)["zones"]  # transient and empty
    assert state.observation(0)["labels"]["deck"] == "draw pile"


def test_the_terminal_draws_the_labels_and_the_log_as_the_player_reads_it():
    game, state = table()
    console = Console(record=True, width=80)
    render.draw_view(console, state.observation(0),
                     [game.action_to_string(a) for a in game.display_order(state.legal_actions())])
    assert [line.rstrip() for line in console.export_text().splitlines()] == [
        "",
        "P1 ─────────────────────────────────────────────────────────────────────────────",
        "Table  round 1, move 0  ·  your move",
        "draw pile: 6 cards   pile: top 2 leaves (1 card)   tally: 2 cards   a number: 7",
        "big number: yes      who: —                        suit: ♥",
        "            hand    points",
        "▶ P1 (you)  2♥           0",
        "  P2        1 card       0",
        "Last events:",
        "  2 leaves starts the pile",
        "Your moves:",
        " 1. draw",
        " 2. play 2♥",
        " 3. tell",
    ]
    move(state, "draw")
    console = Console(record=True, width=80)
    render.draw_view(console, state.observation(1))
    assert [line.rstrip() for line in console.export_text().splitlines()][-3:] == [
        "Last events:", "  2 leaves starts the pile", "  P1: draws a card"]


def test_the_results_table_names_its_columns_by_the_labels():
    _, state = table()
    view = state.observation(0)
    info = {"places": [1, 2], "results": ["win", "lose"], "returns": [1.0, -1.0], "vars": view["vars"]}
    for labels, heading in ((view["labels"], "points"), (None, "last points")):
        console = Console(record=True, width=80)
        console.print(render.results_table(["P1", "P2"], ["human", "greedy"], dict(info, labels=labels)))
        assert [line.rstrip() for line in console.export_text().splitlines()] == [
            f"player  seat    place  result  return  {heading}",
            f"P1      human       1  win         +1  {' ' * (len(heading) - 1)}0",
            f"P2      greedy      2  lose        -1  {' ' * (len(heading) - 1)}0"]


def test_a_value_is_encoded_from_the_text_the_view_writes():
    from gamedsl.rl.encoding import Encoding
    game, state = table()
    encoding = Encoding(game, 2)
    values = encoding.views(encoding.encode(state.observation(0), 0))["vars"]
    # n, big, who (2 seats + none), kind (hearts, leaves, none), last_points (per seat)
    assert list(values) == [7, 1, 0, 0, 1, 1, 0, 0, 0, 0]


# ---- the no-leak check reads the log ------------------------------------------------------

def _leaky_said_text(self, text, viewer):
    """A reading of a line that names every card to everyone (what a secret-keeping bug would do)."""
    parts = getattr(text, "parts", None)
    if parts is None:
        return str.__str__(text)
    return "".join(p if p.__class__ is str else self.card_name(p[0]) for p in parts)


def _verify(game, moves: int = 40):
    """Play a game with verify's checks after every move: P1 peeks, P2 takes, and so on."""
    turns = iter(range(moves + 1))
    run = verify.Playout(game, 2, 5)
    return verify.play(run, lambda n: next(turns) % n, moves, every=1, rng=random.Random(5))


def test_verify_reports_a_line_that_would_name_a_hidden_card(monkeypatch):
    """`say "{top(deck)}"` with a hidden deck: P1 is shown the card (reveal), P2 is not. Kept
    secret, verify finds nothing; if the line named it to P2, verify reports it at the say."""
    game = gamedsl.load_source(PEEK, "peek.game")
    state = _verify(game)  # secret kept: no leak, to the end of the game
    assert state.is_terminal()
    monkeypatch.setattr(View, "said_text", _leaky_said_text)
    with pytest.raises(InvariantViolation) as info:
        _verify(game)
    message = str(info.value)
    assert message.startswith("peek.game:7:65: error: P2's view depends on cards they cannot see: log.0 is "
                              "'P1: sees ")
    assert 'say "sees {top(deck)}"' in message and "in another deal of what P2 cannot see" in message


def test_a_world_with_the_past_names_the_card_of_its_own_deal():
    """Re-dealing what P2 cannot see also re-deals the hidden card a line named (so a line that
    leaked it would differ between the worlds), and leaves the line as P2 reads it unchanged."""
    game = gamedsl.load_source(PEEK, "peek.game")
    state = game.new_state(players=2, seed=2)
    move(state, "peek")
    named = state.log[-1][2].parts[1][0]
    worlds = [Redealer(state, 1).deal(random.Random(k)) for k in range(12)]
    assert {w.log[-1][2].parts[1][0] for w in worlds} - {named}  # another card in some world
    assert all(w.z[game.zone_instance("deck")][-1] == w.log[-1][2].parts[1][0] for w in worlds)
    assert {w.observation(1)["log"][-1] for w in worlds} == {"P1: sees a card"}


def test_a_copy_without_its_past_says_nothing():
    _, state = table()
    quiet = state.clone(past=False)
    move(quiet, "draw")
    assert quiet.log == state.log  # a bot's trial: its rules' lines are not worked out
    told = state.clone()
    move(told, "draw")
    assert told.log[-1][2] == "draws a card"


# ---- what simulate and analyze count --------------------------------------------------------

def test_simulate_counts_a_line_with_values_as_its_template():
    game = gamedsl.load_source(PEEK, "peek.game")
    said = simulate(game, 4, players=2, seats=("random",))["said"]
    assert list(said) == ["sees {top(deck)}"]  # one row, whatever card each line named
    assert said["sees {top(deck)}"]["games"] == 4 and said["sees {top(deck)}"]["total"] > 4


def test_analyze_counts_each_say_once():
    game = gamedsl.load_source(TABLE, "table.game", coverage=True)
    says = sorted((e.line, e.column) for e in Elements(game).elements if e.kind == "say")
    assert says == [(17, 68), (18, 46), (20, 3), (27, 3), (34, 3)]  # one element per `say`


# ---- the seed games -------------------------------------------------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_laus_shows_no_empty_deck_and_calls_its_values_by_their_labels():
    game = gamedsl.load_game(ROOT / "games" / "laus.game")
    for players in (3, 4):
        view = game.new_state(players=players, seed=1).observation(0)
        assert "deck" not in view["zones"]                      # dealt out: off the table
        assert ("skat" in view["zones"]) == (players == 3)       # no skat with 4 players
        assert "led" not in view["vars"] and "tricks_played" not in view["vars"]  # bookkeeping
        assert view["labels"]["score"] == "points" and view["labels"]["won"] == "tricks won"


def test_lol_shows_the_colour_named_only_while_a_joker_is_on_top():
    game = gamedsl.load_game(ROOT / "games" / "lol.game")
    state = game.new_state(players=3, seed=4)
    rng = random.Random(4)
    seen = set()
    while not state.is_terminal() and len(seen) < 2:
        pile = state.z[game.zone_instance("pile")]
        joker = bool(pile) and game.card_name(pile[-1]) in ("ЛОЛ! +4", "ИМХО!")
        view = state.observation(state.current_player())
        assert ("named" in view["vars"]) == joker
        assert ("penalty" in view["vars"]) == (state.var("penalty") > 0)
        seen.add(joker)
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert seen == {True, False}


def test_a_public_draw_is_named_in_lol_and_a_face_down_one_is_not():
    game = gamedsl.load_game(ROOT / "games" / "lol.game")
    state = game.new_state(players=2, seed=1)
    assert state.observation(0)["log"] == ["P1: opens the pile with 7 red"]  # the dealer's sixth card
    hand = set(state.z[game.zone_instance("hand", 1)])
    draw = next(a for a in state.legal_actions() if game.action_to_string(a) == "draw")
    state.apply_action(draw)
    [drawn] = set(state.z[game.zone_instance("hand", 1)]) - hand  # it did not fit: P2 keeps it
    assert game.card_name(drawn) == "4 yellow"
    said = [line for line in state.observation(0)["log"] if "draws" in line]
    assert said == ["P2: draws 4 yellow and keeps it"]  # drawn face up: everyone reads it
    assert said == [line for line in state.observation(1)["log"] if "draws" in line]


def test_the_reinforcement_learning_texts_carry_the_labels_and_the_seat_s_log():
    import json

    from gamedsl.rl.pettingzoo import GamedslEnv
    game, _ = table()
    env = GamedslEnv(game, 2, render_mode="ansi")
    env.reset(seed=3)
    env.step(env.observe(env.agent_selection)["action_mask"].argmax())  # P1: the first legal move, draw
    text = json.loads(env.render())  # the view of the seat to move, P2
    assert text["labels"]["deck"] == "draw pile" and text["labels"]["last_points"] == "points"
    first = names(env.state, "pile")[0]
    assert text["player"] == "P2" and text["log"] == [f"{first} starts the pile", "P1: draws a card"]


def test_the_terminal_draws_cards_in_the_colours_their_attributes_give_them():
    from gamedsl.tools import render
    beacons = gamedsl.load_game(ROOT / "games" / "beacons.game")
    lol = gamedsl.load_game(ROOT / "games" / "lol.game")
    try:
        render.use_colours(beacons)
        text = render.card_text("P2 holds B3, W1 and R5")
        styles = {text.plain[s.start:s.end]: str(s.style) for s in text.spans}
        assert styles == {"B3": "bold blue", "W1": "bold white", "R5": "bold red"}
        render.use_colours(lol)
        text = render.card_text("jump in 7 blue")
        assert {text.plain[s.start:s.end]: str(s.style) for s in text.spans} == {"7 blue": "bold blue"}
        assert render.card_colours(gamedsl.load_game(ROOT / "games" / "laus.game"))["A♥"] == "red"
    finally:
        render.CARD_COLOURS.clear()
