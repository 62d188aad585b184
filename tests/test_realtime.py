"""Out-of-turn and real-time rules: anytime reactions, races, speech, elimination, named option values."""
import pytest

import gamedsl

# A small shedding game: play a card matching the top card's rank or colour, or draw.
# Anyone holding the exact twin of the top card may "snap" it out of turn (the turn passes
# on from them); a player left with one card must say "last!", and anyone may catch them
# first; "hush" forbids speech until its player's next turn; "bang" starts a race whose
# slowest player draws a card.
GAME = '''game "Snap"
players 2 to 4
option mode: calm, wild "calm: no bangs"
attribute rank: 1, 2, 3, 4, bang, hush
attribute colour: red, blue
cards rank * colour times 2
zone deck: hidden, stack
zone pile: top, stack
zone hand per player: owner
var current: player
var called per player = false
var quiet = false
var quieter: player
var covered = 0
var snaps = 0

def fits(c) = c.rank == top(pile).rank or c.colour == top(pile).colour
def draw(p, n) {
  move n from deck to p.hand
  p.called = false
}

action play (c in me.hand) if fits(c) "it does not match" {
  move c to pile
  if c.rank == bang and mode == wild {
    covered = 0
    race cover among players
  }
  if c.rank == hush { quiet = true  quieter = me }
}
action pass { draw(me, 1) }
action snap "snap" (c in me.hand) anytime
    if c.rank == top(pile).rank and c.colour == top(pile).colour "it is not the twin of the top card" {
  if quiet and quieter == me { quiet = false }
  move c to pile
  snaps += 1
  current = me
  end turn
}
action last "last!" anytime spoken if count(me.hand) == 1 and not me.called { me.called = true }
action catch "catch" (p in others) anytime spoken if count(p.hand) == 1 and not p.called { draw(p, 2) }
action cover "cover!" {
  covered += 1
  if covered == count(players) { draw(me, 1) }
}

on speech p if quiet { draw(p, 2) }

setup {
  shuffle deck
  deal 3 from deck to hand
  move top(deck) to pile
  current = seat(1)
}
round {
  while all(p in players if count(p.hand) > 0) and count(deck) > 4 {
    turn current {
      if quiet and quieter == me { quiet = false }
      choose play, pass
    }
    current = next(current)
  }
  end game
}
outcome { for each p in players { if count(p.hand) == 0 { win p } else { lose p } } }
'''


@pytest.fixture(scope="module")
def game():
    return gamedsl.load_source(GAME, "snap.game")


def rigged(game, players, hands, pile, deck=None, options=None):
    state = game.new_state(players=players, seed=1, options=options)
    zones = {game.zone_instance("hand", p): game.parse_cards(h) for p, h in enumerate(hands)}
    zones[game.zone_instance("pile")] = game.parse_cards(pile)
    if deck is not None:
        zones[game.zone_instance("deck")] = game.parse_cards(deck)
    taken: set = set()
    zones = {z: game.distinct_copies(cs, taken) for z, cs in zones.items()}
    state.rig(zones, rest=game.zone_instance("deck"))
    state.refresh()
    return state


def move(state, text, time=None):
    state.apply_action(state.game.string_to_action(state, text), time)


def test_a_reaction_window_asks_only_those_who_can_react(game):
    # P3 holds the twin of the top card (1 red): before P1 decides, P3 may snap.
    state = rigged(game, 3, ["1 blue 3 blue", "2 red 3 red", "1 red 4 blue"], "1 red")
    assert state.current_player() == 2
    assert state.window is not None and state.window[0] == "react"
    assert sorted(state.game.action_to_string(a) for a in state.legal_actions()) == ["no reaction", "snap 1 red"]
    assert state.observation(2)["window"] == "react"
    move(state, "no reaction")
    assert state.window is None and state.current_player() == 0   # nobody reacted: P1's turn as usual
    assert sorted(state.game.action_to_string(a) for a in state.legal_actions()) == ["pass", "play 1 blue"]


def test_a_reaction_ends_the_turn_it_interrupts_and_play_goes_on_after_the_reactor(game):
    state = rigged(game, 3, ["2 blue 3 blue", "2 red 3 red", "1 red 4 blue"], "1 red")
    move(state, "snap 1 red")
    assert state.var("snaps") == 1 and state.zone_cards("hand", 2) == [state.game.parse_card("4 blue")]
    assert state.current_player() == 0   # P3 snapped during P1's turn: play goes on after P3, with P1
    # P3 now holds one card: the window asks P3 (to say last!) and the others (to catch)
    assert state.window is not None


def test_the_fastest_answer_counts_and_a_late_one_is_void(game):
    # P1 holds one card and has not said "last!": P1 may say it, the others may catch P1.
    state = rigged(game, 3, ["2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    asked = []
    for _ in range(3):  # one window: the three players answer
        p = state.current_player()
        asked.append(p)
        if p == 0:
            move(state, "last!", time=0.9)       # P1 says it, but slowly
        elif p == 2:
            move(state, "catch P1", time=0.4)    # P3 catches first
        else:
            move(state, "no reaction", time=0.1)
    assert asked == [0, 1, 2]
    assert len(state.zone_cards("hand", 0)) == 3 and not state.var("called", 0)  # caught: +2, and P1's late call is void
    assert state.observation(0)["moves"] == ["P1: last! (0.90 s, too late)", "P3: catch P1 (0.40 s)"]


def test_a_slower_answer_still_runs_after_a_faster_one_ends_the_turn(game):
    # P1 holds one card, unsaid; P2 holds the twin of the top card. P2 snaps first (ending P1's
    # turn); P3's slower catch of P1 is still legal afterwards, so it runs (P1 draws 2).
    state = rigged(game, 3, ["2 blue", "1 red 3 red", "4 red 4 blue"], "1 red")
    answers = {0: ("no reaction", 0.1), 1: ("snap 1 red", 0.4), 2: ("catch P1", 0.9)}
    for _ in range(3):  # one window: the three players answer
        text, time = answers[state.current_player()]
        move(state, text, time=time)
    assert state.var("snaps") == 1 and len(state.zone_cards("hand", 0)) == 3
    assert state.observation(0)["moves"][-2:] == ["P2: snap 1 red (0.40 s)", "P3: catch P1 (0.90 s)"]


def test_answers_after_one_that_ends_the_game_are_too_late_and_name_no_hidden_card():
    game = gamedsl.load_source(GAME.replace("{ draw(p, 2) }", "{ draw(p, 2)  end game }"), "snap.game")
    # P2's catch of P1 ends the game before P3's slower snap can run.
    state = rigged(game, 3, ["2 blue", "2 red 3 red", "1 red 4 blue"], "1 red")
    answers = {0: ("no reaction", 0.1), 1: ("catch P1", 0.4), 2: ("snap 1 red", 0.9)}
    while not state.is_terminal():
        text, time = answers[state.current_player()]
        move(state, text, time=time)
    assert state.var("snaps") == 0 and len(state.zone_cards("hand", 0)) == 3
    assert state.observation(2)["moves"][-1] == "P3: snap 1 red (0.90 s, too late)"
    assert "P3: snap a card (0.90 s, too late)" in state.observation(0)["moves"]  # never played: still hidden


def test_answers_in_an_open_window_are_hidden_from_the_others(game):
    state = rigged(game, 3, ["2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    assert state.current_player() == 0
    move(state, "last!", time=0.5)
    assert state.current_player() in (1, 2) and state.window is not None
    assert not any("last!" in m for m in state.observation(state.current_player())["moves"])


def test_a_race_runs_every_answer_fastest_first(game):
    state = rigged(game, 3, ["bang red 2 blue", "2 red 3 red", "4 red 4 blue"], "1 red",
                   options={"mode": "wild"})
    while state.window is not None:  # nobody can react yet
        move(state, "no reaction")
    move(state, "play bang red")
    # P1 is left with one card: before the race, a reaction window (P1 may say "last!")
    assert state.window is not None and state.window[0] == "react"
    while state.window[0] == "react":
        move(state, "no reaction")
    assert state.window[0] == "race"
    times = {0: 0.8, 1: 1.7, 2: 0.5}
    while state.window is not None and state.window[0] == "race":
        p = state.current_player()
        assert [state.game.action_to_string(a) for a in state.legal_actions()] == ["cover!"]
        move(state, "cover!", time=times[p])
    assert state.var("covered") == 3
    assert len(state.zone_cards("hand", 1)) == 3   # P2 was slowest: drew one


def test_a_race_is_off_in_calm_mode_and_options_take_names(game):
    state = rigged(game, 3, ["bang red 2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    move(state, "play bang red")
    assert state.window is None or state.window[0] != "race"
    with pytest.raises(gamedsl.GamedslError, match="one of calm, wild"):
        game.new_state(players=2, options={"mode": "loud"})
    assert game.option_text("mode", 1) == "wild"


def test_speech_is_punished_during_silence(game):
    state = rigged(game, 3, ["hush red 2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    move(state, "play hush red")
    assert state.var("quiet")
    # P1 now holds one card: saying "last!" is speech, and costs 2 cards while it is quiet
    while state.window is not None:
        p = state.current_player()
        move(state, "last!" if p == 0 else "no reaction")
    assert len(state.zone_cards("hand", 0)) == 3 and not state.var("called", 0)


def test_eliminated_players_are_skipped():
    game = gamedsl.load_source('''game "Out"
players 2 to 4
attribute n: 1, 2
cards n
zone deck: hidden
var turns per player = 0
action go { me.turns += 1 }
setup { eliminate seat(2) }
round {
  for each p in players { turn p { choose go } }
  if count(players) == 3 and next(seat(1)) == seat(3) and count(all_players) == 4 { end game }
}
''', "out.game")
    state = game.new_state(players=4)
    assert state.observation(0)["eliminated"] == ["P2"]
    order = []
    while not state.is_terminal():
        order.append(state.current_player())
        state.apply_action(state.legal_actions()[0])
    assert order == [0, 2, 3]


def test_given_reaction_times_replay_the_same_game(game):
    state = rigged(game, 3, ["2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    first = state.clone()
    moves = []
    while state.window is not None:
        p, a = state.current_player(), state.legal_actions()[0]
        state.apply_action(a, 0.25 * (p + 1))
        moves.append((a, state.times[state.moves - 1]))
    assert [t for _, t in moves] == [0.25, 0.5, 0.75]
    again = first.clone()
    for a, t in moves:
        again.apply_action(a, t)
    assert again.digest() == state.digest()
    # without times, bots' times are drawn from the game's seeded generator: the same every run
    a1, a2 = first.clone(), first.clone()
    for a, _ in moves:
        a1.apply_action(a)
        a2.apply_action(a)
    assert a1.times == a2.times and a1.digest() == a2.digest()


def test_the_player_whose_move_opened_the_window_answers_first(game):
    # P1 plays down to one card; in the window that follows, P1's "last!" beats a faster catch.
    state = rigged(game, 3, ["1 blue 3 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    move(state, "play 1 blue")
    while state.window is not None:
        p = state.current_player()
        move(state, "last!" if p == 0 else "catch P1" if p == 2 else "no reaction", time=2.0 if p == 0 else 0.1)
    assert state.var("called", 0) and len(state.zone_cards("hand", 0)) == 1
    assert state.observation(1)["moves"] == ["P3: catch P1 (0.10 s, too late)", "P1: last! (2.00 s)"]


def test_others_letting_a_moment_pass_is_not_seen_even_in_the_move_count(game):
    state = rigged(game, 3, ["2 blue", "2 red 3 red", "4 red 4 blue"], "1 red")
    before = {p: state.observation(p)["move"] for p in range(3)}
    for _ in range(3):  # P1 says "last!", P2 and P3 let the moment pass
        p = state.current_player()
        move(state, "last!" if p == 0 else "no reaction")
    after = {p: state.observation(p)["move"] for p in range(3)}
    assert after[0] - before[0] == 1          # P1 saw only their own call
    assert after[1] - before[1] == 2 and after[2] - before[2] == 2   # the call, and their own pass


def test_a_change_by_hand_in_an_open_window_is_seen_by_those_still_to_answer(game):
    # Everyone may react (catch a player down to one card, or call "last!"); each is asked the
    # moves worked out as the window opened, unless the state changed since.
    state = rigged(game, 3, ["1 blue 3 blue", "2 red", "4 blue"], "1 red")
    names = lambda: sorted(game.action_to_string(a) for a in state.legal_actions())  # noqa: E731
    assert state.current_player() == 0 and names() == ["catch P2", "catch P3", "no reaction"]
    move(state, "no reaction")
    assert state.current_player() == 1 and names() == ["catch P3", "last!", "no reaction"]
    state.rig({game.zone_instance("hand", 2): game.parse_cards("4 blue 2 blue")}, rest=game.zone_instance("deck"))
    state.refresh()  # P3 holds two cards now: nobody may catch them, and they may not call "last!"
    assert state.current_player() == 1 and names() == ["last!", "no reaction"]
    move(state, "no reaction")
    assert state.current_player() == 2 and names() == ["catch P2", "no reaction"]


# A person holding a card they may cash at any time is not asked to let the moment pass before
# every decision: only before their own, and when a window offers a move they did not let pass.
HOLD = '''game "Hold"
players 3
attribute rank: 1, 2, 3, 4, 5, 6, 7, star
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone pile: public
var cashed per player = 0

action draw "draw" { move 1 from deck to me.hand }
action drop "drop a card" { move 1 from deck to pile }
action cash "cash the star" (c in me.hand) anytime if c.rank == star { move c to pile  me.cashed = 1 }
action wave "wave" anytime if count(pile) > 0 and me.cashed == 0 { me.cashed = 2 }

round {
  move card(star) to nth(players, 1).hand
  repeat 2 { for each p in players { turn p { choose draw, drop } } }
  end game
}
outcome { places p in players by p.cashed }
'''


@pytest.mark.parametrize("every_window", [False, True])
def test_a_person_is_asked_to_react_before_their_own_moves_and_when_something_is_new(every_window):
    import io

    from rich.console import Console

    from gamedsl.tools.human import HumanSeat
    game = gamedsl.load_source(HOLD)
    state = game.new_state(seed=0)
    seat = HumanSeat(0, console=Console(file=io.StringIO()), clock=lambda: 0.0, every_window=every_window,
                     read=lambda prompt: "" if "quick" in prompt else "1")   # lets every window pass
    asked = []
    while not state.is_terminal():
        p = state.current_player()
        if p == 0:
            offered = ", ".join(sorted(game.action_to_string(a) for a in state.legal_actions()))
            move = seat.choose(state)
            if not seat.let_pass:
                asked.append(offered)
        else:
            move = state.default_answer() if state.window else \
                game.string_to_action(state, "drop a card" if p == 1 else "draw")
        assert move in state.legal_actions()
        state.apply_action(move)
    cash, wave, turn = "cash the star star, no reaction", "cash the star star, no reaction, wave", "draw, drop a card"
    if every_window:   # before each of the six turns
        assert asked == [cash, turn, cash, wave, wave, turn, wave, wave]
    else:   # before P1's turns, and before P3's first, when P2's drop let P1 wave
        assert asked == [cash, turn, wave, wave, turn]
