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
var a = false
var b = false
var c = false
var d = false
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
var right = false
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
