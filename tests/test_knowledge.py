"""Card kinds, backs, knowledge (reveal, knows), steps, `others`, identical copies and fair bots."""
import random
from collections import Counter

import pytest

import gamedsl
from gamedsl.engine import knowledge
from gamedsl.bots import GreedyAgent

KINDS = '''game "K"
players 2 to 3
attribute colour: red "Red", blue "Blue"
attribute kind: token "", role "Role", crown ""
back shows kind
cards colour * token times 2          # Red, Red, Blue, Blue
cards role * colour                   # Red Role, Blue Role
cards crown named "The Crown"
zone deck: hidden, stack
zone secret: hidden
zone roles per player: owner
zone table: public
'''


def load(body: str, head: str = KINDS) -> gamedsl.Game:
    return gamedsl.load_source(head + body, "k.game")


def errors(body: str, head: str = KINDS) -> list[str]:
    with pytest.raises(gamedsl.SourceError) as info:
        load(body, head)
    return [line for line in info.value.format().splitlines() if ": error: " in line]


# ---- names, kinds and backs --------------------------------------------------
def test_card_names_leave_out_empty_symbols_and_use_named():
    game = load("round { end game }")
    assert [game.card_name(c) for c in range(game.card_count())] == [
        "Red", "Red", "Blue", "Blue", "Red Role", "Blue Role", "The Crown"]
    assert game.parse_card("the crown") == 6 and game.parse_card("Blue Role") == 5


def test_two_different_cards_with_one_name_are_an_error():
    head = KINDS.replace('role "Role"', 'role ""')
    errs = errors("round { end game }", head)
    assert any("two different cards are both called 'Red'" in e for e in errs)
    errs = errors("round { end game }", KINDS.replace('cards crown named "The Crown"',
                                                      'cards crown * colour named "Crown"'))
    assert any("'named' gives one name to one card, but this line makes 2 different cards" in e for e in errs)
    errs = errors("round { end game }", KINDS.replace('back shows kind', 'back shows knid'))
    assert any("unknown card attribute 'knid'" in e for e in errs)


def test_face_down_cards_show_their_backs():
    game = load('''setup { for each c in deck { if c.kind == role { move c to secret } } }
round { end game }''')
    state = game.new_state(players=2)
    assert state.observation(0)["zones"]["secret"] == {"count": 2, "backs": {"Role": 2}}
    assert state.observation(0)["zones"]["deck"] == {"count": 5, "backs": {"token": 4, "crown": 1}}


def test_a_redeal_only_trades_cards_with_the_same_back():
    game = load('''setup { move 2 from deck to secret  for each c in deck { if c.kind == role { move c to secret } } }
action go { }
round { choose go  end game }''')
    state = game.new_state(players=2, seed=1)
    rng = random.Random(3)
    for _ in range(20):
        other = knowledge.redeal(state, 0, rng)
        for inst, cards in enumerate(state.z):
            assert [game.prog.card_attrs["kind"][c] for c in cards] == \
                [game.prog.card_attrs["kind"][c] for c in other.z[inst]]


# ---- knowledge ----------------------------------------------------------------
SECRET = '''setup { move top(deck) to secret }
action peek { reveal top(secret) to me }
action show_all { reveal top(secret) }
action stir { move top(secret) to deck  shuffle deck  move top(deck) to secret }
action wait { }
round { turn seat(1) { choose peek, show_all, stir, wait }  turn seat(2) { choose wait } }
end game when false
'''


def test_a_revealed_card_is_known_to_its_viewer_until_it_moves():
    game = load(SECRET)
    state = game.new_state(players=2, seed=2)
    card = game.card_name(state.zone_cards("secret")[0])
    state.apply_action(game.string_to_action(state, "peek"))
    assert state.observation(0)["zones"]["secret"]["known"] == [card]
    assert "known" not in state.observation(1)["zones"]["secret"]
    assert knowledge.hidden_slots(state, 0) == [s for s in knowledge.hidden_slots(state, 1)
                                                 if s[0] != game.zone_instance("secret")]
    state.apply_action(game.string_to_action(state, "wait"))
    assert state.observation(0)["zones"]["secret"]["known"] == [card]   # still there, still known
    state.apply_action(game.string_to_action(state, "stir"))             # it moved: forgotten
    assert "known" not in state.observation(0)["zones"]["secret"]
    state.apply_action(game.string_to_action(state, "wait"))
    state.apply_action(game.string_to_action(state, "show_all"))
    card = game.card_name(state.zone_cards("secret")[0])
    assert [state.observation(p)["zones"]["secret"]["known"] for p in (0, 1)] == [[card], [card]]


def test_knows_reads_sight_and_reveals():
    game = load('''setup { move top(deck) to secret  move top(deck) to table  deal 1 from deck to roles }
hidden var a = false
hidden var b = false
hidden var c = false
hidden var d = false
action peek { reveal top(secret) to me }
action look {
  a = knows(me, top(secret))
  b = knows(me, top(table))
  c = knows(me, top(me.roles))
  d = knows(me, top(next(me).roles))
}
round { turn seat(1) { choose look  choose peek  choose look }  end game }''')
    state = game.new_state(players=2, seed=4)
    state.apply_action(game.string_to_action(state, "look"))
    assert [state.var(x) for x in "abcd"] == [False, True, True, False]
    state.apply_action(game.string_to_action(state, "peek"))
    state.apply_action(game.string_to_action(state, "look"))
    assert [state.var(x) for x in "abcd"] == [True, True, True, False]


# ---- steps, others, identical copies ----------------------------------------------
def test_steps_run_in_place_with_their_arguments_and_may_wait():
    game = load('''var got per player = 0
def take(p, n) {
  move n from deck to p.roles
  p.got += n
  choose done by p
}
action done { }
round { take(seat(1), 2)  take(seat(2), 1)  end game }''')
    state = game.new_state(players=2, seed=1)
    assert state.current_player() == 0 and len(state.zone_cards("roles", 0)) == 2
    state.apply_action(game.string_to_action(state, "done"))
    assert state.current_player() == 1 and len(state.zone_cards("roles", 1)) == 1
    state.apply_action(game.string_to_action(state, "done"))
    assert state.is_terminal() and [state.var("got", p) for p in (0, 1)] == [2, 1]


def test_steps_are_checked():
    errs = errors('''def f(p) { g() }
def g() { f(me) }
def unused() { }
def value() = 1
round { f(me)  value()  f()  h() }''')
    text = "\n".join(errs)
    assert "'f' calls itself" in text
    assert "'unused' is never used" in text
    assert "'value' is a function with a value" in text
    assert "'f' takes 1 argument(s), given 0" in text
    assert "unknown steps (a 'def' with a block) 'h'" in text


def test_others_is_every_player_but_me_from_the_left():
    game = load('''var total = 0
action go (p in others) { total = count(others) }
round { turn seat(2) { choose go }  end game }''')
    state = game.new_state(players=3)
    assert [game.action_to_string(a) for a in state.legal_actions()] == ["go P3", "go P1"]


def test_identical_copies_in_one_zone_are_one_move():
    game = load('''setup { for each c in deck { if c.kind == token { move c to table } } }
action take (c in table) { move c to deck }
round { choose take  choose take  end game }''')
    state = game.new_state(players=2)
    assert sorted(game.action_to_string(a) for a in state.legal_actions()) == ["take Blue", "take Red"]
    state.apply_action(game.string_to_action(state, "take Red"))
    assert sorted(game.action_to_string(a) for a in state.legal_actions()) == ["take Blue", "take Red"]


# ---- bots play fair -----------------------------------------------------------------
GUESS = '''game "Guess"
players 2
attribute colour: red, blue
cards colour
zone deck: hidden, stack
zone secret: hidden
hidden var right = false
action peek { reveal top(secret) to me }
action guess (c in [red, blue]) { right = c == top(secret).colour }
action wait { }
setup { shuffle deck  move top(deck) to secret }
round { turn seat(1) { if peeking { choose peek }  choose guess }  turn seat(2) { choose wait }  end game }
option peeking = 0
heuristic if right then 1 else 0
'''


def test_the_greedy_bot_never_reads_cards_it_cannot_see():
    game = gamedsl.load_source(GUESS, "guess.game")
    outcomes = Counter()
    for seed in range(60):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(GreedyAgent(seed).choose(state))
        outcomes[state.var("right")] += 1
    assert 15 <= outcomes[True] <= 45  # a bot that read the secret would always be right
    for seed in range(20):
        state = game.new_state(players=2, seed=seed, options={"peeking": 1})
        state.apply_action(state.legal_actions()[0])  # peek: now it knows
        state.apply_action(GreedyAgent(seed).choose(state))
        assert state.var("right")


# ---- Moods of the Mad King: secrets exactly as at a table ------------------------------
def test_mad_king_shows_each_player_exactly_their_own_secrets():
    from pathlib import Path
    game = gamedsl.load_game(Path(__file__).resolve().parent.parent / "games" / "mad_king.game")
    state = game.new_state(players=3, seed=5)
    for p in range(3):
        zones = state.observation(p)["zones"]
        assert zones["king"] == {"count": 1, "backs": {"Mood": 1}}          # nobody sees the King's Mood
        me, others = f"P{p + 1}", [f"P{q + 1}" for q in range(3) if q != p]
        assert zones["muse"][me] == [game.card_name(c) for c in state.zone_cards("muse", p)]
        assert zones["moods"][me] == [game.card_name(c) for c in state.zone_cards("moods", p)]
        for q in others:
            assert zones["muse"][q] == {"count": 1, "backs": {"Muse": 1}}
            assert zones["moods"][q] == {"count": 1, "backs": {"Mood": 1}}
            assert set(zones["hand"][q]) == {"count", "backs"}
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    king = game.card_name(state.zone_cards("king")[0])
    for p in range(3):  # the show began: the King's Mood and every Muse are face up
        zones = state.observation(p)["zones"]
        assert zones["king"]["known"] == [king]
        assert all("known" in zones["muse"][f"P{q + 1}"] for q in range(3) if q != p)


def test_a_card_replenishing_laws_face_down_pile_leaks_to_nobody():
    """Law's 9♣: the card that replenishes the face-down discard pile is revealed to nobody; only
    the player on turn (who may take it) looks at it. Re-dealing what each player cannot see
    changes neither their view nor their moves (the no-leak property)."""
    import yaml
    from pathlib import Path

    from gamedsl.tools import verify
    from gamedsl.tools.scenario import Runner

    root = Path(__file__).resolve().parent.parent
    law = gamedsl.load_game(root / "games" / "law.game")
    path = root / "tests" / "scenarios" / "law" / "9c_a_replenished_top_is_not_revealed.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["moves"] = doc["moves"][:1]           # P1 takes the only discard: 7♠ replenishes the pile
    doc.pop("expect", None)
    short = Path(str(path.parent / "_replenished.yaml"))
    runner = Runner(law, str(short))
    runner.run(yaml.compose(yaml.safe_dump(doc, allow_unicode=True)))
    state = runner.state
    top = law.card_name(state.zone_cards("discard")[-1])
    assert top == "7♠"
    views = {p: state.observation(p)["zones"]["discard"] for p in range(3)}
    assert views[0] == {"count": 1, "top": "7♠"}
    assert views[1] == views[2] == {"count": 1}
    for seed in range(20):
        verify.check_no_leak(state, random.Random(seed))


# ---- per-card variables of hidden cards ---------------------------------------
MARKS = '''game "Leak"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
var marked per card = 0
action mark "mark" (c in me.hand) { c.marked = 1 }
setup { shuffle deck  deal 3 from deck to hand }
round {
  turn seat(1) { choose mark }
  turn seat(2) { choose mark }
}
end game when true
'''


def _after_marking(game, seed: int, which: int):
    """A game of MARKS after P1 marked the `which`-th card of their hand (in display order)."""
    state = game.new_state(players=2, seed=seed)
    state.apply_action(game.display_order(state.legal_actions())[which])
    return state


def test_a_mark_on_a_card_a_player_cannot_see_is_not_in_their_view(tmp_path):
    """The issue's file: P1 marks a card of their hand; P2 sees nothing of which (observation,
    terminal screen, OpenSpiel information state), while P1 sees their mark."""
    from rich.console import Console

    from gamedsl.rl import openspiel
    from gamedsl.tools.render import draw_view

    game = gamedsl.load_source(MARKS, "leak.game")
    states = [_after_marking(game, 4, k) for k in range(3)]
    marked = [game.card_name(c) for s in states for c in range(6) if s.v[s.prog.vars[0].base + c]]
    assert len(set(marked)) == 3
    for s, name in zip(states, marked):
        assert s.observation(0)["vars"]["marked"] == {name: 1}
        assert s.observation(1)["vars"]["marked"] == {}
    assert states[0].observation(1) == states[1].observation(1) == states[2].observation(1)

    def screen(obs):
        console = Console(record=True, width=100, color_system=None)
        draw_view(console, obs)
        return console.export_text()
    mine = marked[0]
    assert f"marked: {mine} 1" in screen(states[0].observation(0))
    assert "marked: —" in screen(states[0].observation(1))

    path = tmp_path / "leak.game"
    path.write_text(MARKS, encoding="utf-8")
    spiel = openspiel.load(path)
    infos = []
    for k in range(3):
        st = spiel.new_initial_state()
        for byte in (0, 0, 0, 0, 0, 0, 0, 4):  # the chance nodes: the seed, a byte each
            assert st.is_chance_node()
            st.apply_action(byte)
        assert not st.is_chance_node()
        st.apply_action(sorted(st.legal_actions())[k])
        infos.append(st.information_state_string(1))
    assert infos[0] == infos[1] == infos[2]


def test_a_mark_revealed_with_its_card_is_seen_again():
    """Once the marked card is shown to P2, its mark is in P2's view too."""
    game = gamedsl.load_source(MARKS.replace("{ c.marked = 1 }", "{ c.marked = 1  reveal c }"), "leak.game")
    state = _after_marking(game, 4, 0)
    name = game.card_name(next(c for c in range(6) if state.v[state.prog.vars[0].base + c]))
    assert state.observation(1)["vars"]["marked"] == {name: 1}


def test_a_world_dealt_for_a_player_keeps_a_mark_with_its_place():
    """The redealer moves a hidden card's marks with the place, not with the card: in every world
    P2 imagines, the card at the place P1 marked carries the mark, and only that card."""
    game = gamedsl.load_source(MARKS, "leak.game")
    state = _after_marking(game, 4, 1)
    base = state.prog.vars[0].base
    hand = game.zone_instance("hand", 0)
    place = next(i for i, c in enumerate(state.z[hand]) if state.v[base + c])
    dealer = knowledge.Redealer(state, 1)
    seen = set()
    for seed in range(40):
        world = dealer.deal(random.Random(seed))
        marked = [c for c in range(6) if world.v[base + c]]
        assert marked == [world.z[hand][place]]
        seen.add(marked[0])
    assert len(seen) > 1  # the worlds do put other cards there


def test_a_move_shows_what_the_zones_showed_when_it_was_made():
    """Law's 9♣: P1, on turn, takes 5♣ and then 7♠ from the face-down discard pile (only the
    player on turn looks at its top). P2 is on turn afterwards and may look at the top now, but
    was not then: the takes stay hidden from P2 and P3. The 9♦ P1 discards is revealed to
    everyone as it lands, so everyone reads it."""
    import yaml
    from pathlib import Path

    from gamedsl.tools.scenario import Runner

    root = Path(__file__).resolve().parent.parent
    law = gamedsl.load_game(root / "games" / "law.game")
    path = root / "tests" / "scenarios" / "law" / "9c_a_replenished_top_is_not_revealed.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["moves"] = [{"P1": "take 5♣"}, {"P1": "take 7♠"}, {"P1": "take from the draw pile"}, {"P1": "discard 9♦"}]
    doc.pop("expect", None)
    runner = Runner(law, str(path.parent / "_takes.yaml"))
    runner.run(yaml.compose(yaml.safe_dump(doc, allow_unicode=True)))
    state = runner.state
    assert state.observation(1)["to_move"] == "P2"
    for p in (1, 2):
        assert state.observation(p)["moves"] == [
            "P1: take a card", "P1: take a card", "P1: take from the draw pile", "P1: discard 9♦"]


def test_a_spectator_sees_the_marks_of_the_cards_every_seat_sees():
    """The web table's spectator view: a mark on a card in P1's hand is P1's to see, not the
    spectator's; a mark on a card face up on the table is everyone's."""
    from gamedsl.tools.serve.views import public_view

    game = gamedsl.load_source(MARKS.replace("zone hand per player: owner", "zone hand per player: owner\nzone table: public")
                               .replace("{ c.marked = 1 }", "{ c.marked = 1  if count(table) == 0 { move c to table } }"),
                               "leak.game")
    state = _after_marking(game, 4, 0)  # P1's mark: the card goes to the table
    table_card = game.card_name(state.zone_cards("table")[0])
    assert public_view(state)["vars"]["marked"] == {table_card: 1}
    state.apply_action(state.legal_actions()[0])  # P2's mark stays in P2's hand
    assert state.observation(1)["vars"]["marked"].keys() == {table_card, game.card_name(
        next(c for c in state.zone_cards("hand", 1) if state.v[state.prog.vars[0].base + c]))}
    assert public_view(state)["vars"]["marked"] == {table_card: 1}
