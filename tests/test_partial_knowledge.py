"""Hands facing away (`others`), partial knowledge (`reveal c.ATTR`, `knows(p, c.ATTR ...)`), and
worlds that respect what a seat was told."""
import itertools
import random
from collections import Counter
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import GreedyAgent
from gamedsl.engine import knowledge, told
from gamedsl.engine.knowledge import Redealer
from gamedsl.tools import leaks, verify
from gamedsl.tools.serve.views import public_view

ROOT = Path(__file__).resolve().parent.parent

CLUES = '''game "Clues"
players 2 to 3
attribute colour: red "R", blue "B", green "G"
attribute height: 1, 2, 3
cards colour * height
zone deck: hidden, stack
zone hand per player: others
zone pile: public
hidden var said = false              # (what P2 knows of its own first card: probes the tests read)
hidden var red_first = false
setup {
  shuffle deck
  deal 3 from deck to hand
}
action tell_red "tell red" { for each c in next(me).hand { reveal c.colour == red } }
action tell_height "tell heights" { for each c in next(me).hand { reveal c.height to next(me) } }
action play "play card" (n in 1..count(me.hand)) if knows(me, nth(me.hand, n, bottom).colour) "you do not know its colour" {
  move nth(me.hand, n, bottom) to pile
  if count(deck) > 0 { move top(deck) to me.hand }
}
action pass "pass" {
  said = knows(me, nth(me.hand, 1, bottom).colour != red)
  red_first = knows(me, nth(me.hand, 1, bottom).colour == red)
}
round { for each p in players { turn p { choose tell_red, tell_height, play, pass } } }
end game when count(pile) >= 2
outcome { for each p in players { win p } }
'''


def clues(players: int = 2, seed: int = 0):
    game = gamedsl.load_source(CLUES, "clues.game")
    return game, game.new_state(players=players, seed=seed)


def do(state, text: str):
    state.apply_action(state.game.string_to_action(state, text))


def hand(state, p: int) -> list[int]:
    return state.z[state.game.zone_instance("hand", p)]


def colour_of(state, c: int) -> str:
    return state.prog.attributes[0][1][state.game.attr_tables[0][c]]


# ---- others: every player but the owner -------------------------------------
def test_a_hand_facing_away_is_seen_by_everyone_but_its_owner():
    game, state = clues(3)
    names = [game.card_name(c) for c in hand(state, 1)]
    assert state.observation(0)["zones"]["hand"]["P2"] == names  # in its order: places mean something
    assert state.observation(2)["zones"]["hand"]["P2"] == names
    assert state.observation(1)["zones"]["hand"]["P2"] == {"count": 3}
    assert not any(state.sees_card(1, c) for c in hand(state, 1))
    assert all(state.sees_card(0, c) and state.sees_card(2, c) for c in hand(state, 1))
    # a spectator sees what every seat sees: the owner sees least
    assert public_view(state)["zones"]["hand"]["P2"] == {"count": 3}


def test_the_owner_moves_by_place_and_its_legal_moves_name_no_card():
    game, state = clues(2)
    do(state, "tell red")
    do(state, "tell heights")  # P2 tells P1 the heights: P1 still knows no colour
    legal = sorted(state.observation(0)["legal"])
    assert legal == ["pass", "tell heights", "tell red"]  # no colour known: no play
    for seed in range(6):  # whatever the cards, the owner is offered the same moves
        _, other = clues(2, seed)
        do(other, "tell red")
        do(other, "tell heights")
        assert sorted(other.observation(0)["legal"]) == legal


def test_a_move_naming_a_card_of_the_movers_own_facing_away_hand_is_refused():
    text = CLUES.replace('action pass "pass" {', 'action peek "peek" (c in me.hand) { say "{c}" }\naction pass "pass" {')
    text = text.replace("choose tell_red, tell_height, play, pass", "choose tell_red, tell_height, play, pass, peek")
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(text, "peek.game")
    message = info.value.format()
    assert "peek.game:21:26: error: a move naming a card of 'me.hand' would show the card to its owner" in message
    assert "^^^^^^^" in message and "hint: choose the card by its place: (n in 1..count(me.hand)), then nth(me.hand, n, bottom)" in message


def test_a_modifier_can_turn_a_hand_away_from_its_owner():
    text = CLUES.replace("zone hand per player: others", "zone hand per player: owner") + \
        "var turned = false\nmodifier away while turned { hand.visibility = others }\n"
    game = gamedsl.load_source(text, "away.game")
    state = game.new_state(players=2, seed=0)
    assert state.observation(0)["zones"]["hand"]["P1"] != {"count": 3}
    assert state.observation(0)["zones"]["hand"]["P2"] == {"count": 3}
    state.v[game.prog.var_by_name["turned"].base] = True
    assert state.observation(0)["zones"]["hand"]["P1"] == {"count": 3}
    assert state.observation(0)["zones"]["hand"]["P2"] == [game.card_name(c) for c in hand(state, 1)]
    assert knowledge.hidden_slots(state, 0) == [(game.zone_instance("deck"), k) for k in range(3)] + \
        [(game.zone_instance("hand", 0), k) for k in range(3)]


def test_others_is_only_for_a_per_player_zone():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(CLUES.replace("zone pile: public", "zone pile: others"), "p.game")
    assert "zone 'pile' is shared: it has no owner to hide its cards from" in info.value.format()


# ---- partial knowledge -------------------------------------------------------
def test_a_clue_is_kept_per_seat_and_card_and_shown_by_place():
    game, state = clues(2, seed=3)
    do(state, "tell red")  # to everyone: P2 hears whether each of its cards is red
    cards = hand(state, 1)
    expected = ["red" if colour_of(state, c) == "red" else "not red" for c in cards]
    assert state.observation(1)["zones"]["hand"]["P2"] == {"count": 3, "told": expected}
    assert [game.told_text(state, 0, c) for c in cards] == expected  # everyone heard it
    assert "told" not in str(state.observation(0)["zones"]["hand"]["P1"])  # nothing told of P1's cards
    do(state, "tell heights")  # P2 tells P1 heights, to P1 alone
    mine = hand(state, 0)
    heights = [str(game.attr_tables[1][c] + 1) for c in mine]
    assert state.observation(0)["zones"]["hand"]["P1"]["told"] == heights
    assert all(game.told_text(state, 1, c) == "" for c in mine)  # P2 was not told


def test_knows_reads_what_was_told_and_sight():
    game, state = clues(2, seed=3)
    do(state, "tell red")
    p2 = hand(state, 1)
    for c in p2:
        red = colour_of(state, c) == "red"
        assert state.knows_attr(1, c, 0) == red  # its colour: known if red (two others remain if not)
        assert state.knows_attr(1, c, 0, 0, True) == red  # knows(p, c.colour == red)
        assert state.knows_attr(1, c, 0, 0, False) == (not red)  # knows(p, c.colour != red)
        assert not state.knows_attr(1, c, 1)  # nothing of its height
        assert state.knows_attr(0, c, 1)  # P1 sees the card
    do(state, "pass")  # P2 passes: `said` reads knows(me, first card's colour != red), `red_first` == red
    assert state.v[state.prog.var_by_name["said"].base] == (colour_of(state, p2[0]) != "red")
    assert state.v[state.prog.var_by_name["red_first"].base] == (colour_of(state, p2[0]) == "red")


def test_two_clues_add_up_and_all_is_forgotten_when_the_card_moves():
    game, state = clues(2, seed=1)
    do(state, "tell red")
    do(state, "tell red")  # P2 tells P1
    do(state, "tell heights")  # P1 tells P2 heights (to P2 alone)
    first = hand(state, 1)[0]
    text = game.told_text(state, 1, first)
    assert text == ("red" if colour_of(state, first) == "red" else "not red") + f", {game.attr_tables[1][first] + 1}"
    state.move(first, game.zone_instance("pile"))
    assert game.told_text(state, 1, first) == "" and game.told_text(state, 0, first) == ""
    assert not any(c == first for c, _ in state.told)
    # the cards after it slid down a place; what was told of them stays with them
    assert all(game.told_text(state, 1, c) for c in hand(state, 1))


def test_reveal_tells_only_an_attribute_with_equal_or_not_equal():
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(CLUES.replace("reveal c.colour == red", "reveal c.colour < red"), "lt.game")
    text = info.value.format()
    assert "'reveal' takes a card, a card's attribute (c.colour), or a comparison of one" in text
    assert "hint: '<' cannot be told or known of a card: only == and !=" in text
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(CLUES.replace("reveal c.colour == red", "reveal red == c.colour"), "rev.game")
    assert "rev.game:15:67: error: 'reveal' takes a card" in info.value.format()
    assert "hint: write the attribute on the left of == or !=" in info.value.format()


# ---- worlds respect what a seat was told ---------------------------------------
def told_state(seed: int):
    """P1 was told which of its cards are red, and their heights."""
    game, state = clues(2, seed)
    do(state, "tell red")  # P1 tells P2
    do(state, "tell red")  # P2 tells P1
    do(state, "tell heights")  # P1 tells P2 heights
    do(state, "tell heights")  # P2 tells P1 heights
    return game, state


def test_a_world_never_puts_a_card_where_the_seat_knows_it_is_not():
    for seed in range(12):
        game, state = told_state(seed)
        worlds = Redealer(state, 0)
        rng = random.Random(seed)
        mine = hand(state, 0)
        for _ in range(40):
            world = worlds.deal(rng)
            assert world is not None
            leaks.check_told(world, 0)  # every card fits what P1 was told of it
            for i, c in enumerate(hand(world, 0)):  # the place keeps what was told of the card there
                assert game.told_text(world, 0, c) == game.told_text(state, 0, mine[i])
                assert world.game.attr_tables[1][c] == game.attr_tables[1][mine[i]]  # the height is told
            assert world.observation(0) == state.observation(0)


def test_a_world_redeals_the_owners_own_facing_away_hand():
    game, state = clues(2, seed=2)
    seen = {tuple(hand(w, 0)) for w in (Redealer(state, 0).deal(random.Random(k)) for k in range(20))}
    assert len(seen) > 5  # P1 does not see its own hand: it is dealt again
    assert all(tuple(hand(w, 1)) == tuple(hand(state, 1))
               for w in (Redealer(state, 0).deal(random.Random(k)) for k in range(5)))  # P2's hand it sees


SEED_UNIFORM = 0


def test_worlds_are_uniform_over_the_deals_that_fit():
    """Every deal that fits what the seat was told is as likely: counted over many worlds."""
    game, state = clues(2, seed=SEED_UNIFORM)
    do(state, "tell red")
    do(state, "tell red")  # P1 knows which of its cards are red, and nothing else
    worlds = Redealer(state, 0)
    slots = knowledge.hidden_slots(state, 0)
    cards = sorted(state.z[i][k] for i, k in slots)
    places = [knowledge.hidden_slots(state, 0).index((game.zone_instance("hand", 0), k)) for k in range(3)]
    allowed = [[c for c in cards if all(m >> t[c] & 1 for m, t in zip(state.possible(0, hand(state, 0)[k]),
                                                                        game.attr_tables))] for k in range(3)]
    fits = [combo for combo in itertools.product(*allowed) if len(set(combo)) == 3]
    assert 4 <= len(fits) <= 60, "a case with a few deals of the hand, to count"
    rng = random.Random(0)
    n = 200 * len(fits)
    counts = Counter(tuple(world.z[slots[p][0]][slots[p][1]] for p in places)
                     for world in (worlds.deal(rng) for _ in range(n)))
    assert set(counts) == set(fits)
    low, high = min(counts.values()), max(counts.values())
    assert 140 <= low and high <= 260, (low, high)  # 200 expected each; far outside if not uniform


def test_the_fallback_fills_tight_places_with_a_matching():
    """Places that allow so few fillings that random draws keep colliding still get a deal that fits."""
    rng = random.Random(1)
    cards = list(range(14))
    allowed = {j: [(j + k) % 12 for k in range(2)] for j in range(12)}  # a cycle: only 2 fillings
    for _ in range(30):
        dealt = told.constrained(cards, allowed, rng)
        assert sorted(dealt) == cards
        assert all(cards.index(dealt[j]) in allowed[j] for j in allowed)
    fillings = {tuple(told.constrained(cards, allowed, random.Random(k))[:12]) for k in range(30)}
    assert len(fillings) == 2


def test_greedy_plays_a_card_a_clue_made_sure_and_not_one_it_is_unsure_of():
    game = gamedsl.load_game(ROOT / "games" / "beacons.game")
    played = 0
    for seed in range(8):
        state = game.new_state(players=2, seed=seed)
        ones = [n for n, c in enumerate(hand(state, 1), 1) if game.attr_tables[1][c] == 0]
        if not ones:
            continue
        do(state, "tell heights to P2")
        do(state, "height 1")  # P2 now knows where its 1s are, and every colour is ready for a 1
        move = state.action_to_string(GreedyAgent(seed=seed).choose(state))
        assert move in [f"play card {n}" for n in ones], move
        played += 1
    assert played >= 4


def test_beacons_passes_verify_with_its_leak_check():
    game = gamedsl.load_game(ROOT / "games" / "beacons.game")
    for seed in range(3):
        state = game.new_state(players=3, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            verify.check_no_leak(state, rng)
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


def test_the_rl_vector_holds_what_the_seat_was_told_and_nothing_in_other_games():
    from gamedsl.rl.encoding import Encoding
    game = gamedsl.load_game(ROOT / "games" / "beacons.game")
    state = game.new_state(players=2, seed=1)
    do(state, "tell colours to P2")
    do(state, "colour green")  # P2's cards: G4 G2 G3 W3 Y3
    encoding = Encoding(game, 2)
    told = encoding.views(encoding.encode(state.observation(1), 1))["told"][encoding.slots[("hand", 0)]]
    green = [1, 1, 0, 1, 1]  # red, yellow, blue, white ruled out
    assert [list(row[:5]) for row in told[:5]] == [green, green, green, [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]]
    assert not told[:, 5:].any() and not told[5:].any()  # nothing of the heights, nor past the hand
    # the seat that gave the clue sees the cards: nothing told of what it sees
    assert not encoding.views(encoding.encode(state.observation(0), 0))["told"].any()
    laus = gamedsl.load_game(ROOT / "games" / "laus.game")
    assert Encoding(laus, 3).views(Encoding(laus, 3).encode(laus.new_state(players=3).observation(0), 0))["told"].size == 0


def test_a_reveal_with_not_equal_tells_the_same_as_with_equal():
    game, state = clues(2, seed=5)
    other_game = gamedsl.load_source(CLUES.replace("reveal c.colour == red", "reveal c.colour != red"), "ne.game")
    other = other_game.new_state(players=2, seed=5)
    for s in (state, other):
        do(s, "tell red")
    assert state.told == other.told and state.told


def test_what_another_seat_was_told_in_private_does_not_reach_a_worlds_cards():
    """P1 tells P2 the colour of the deck's top card, to P2 alone: in P1's worlds P2 was told the
    colour of the world's own top card, which is not always the real one (keeping P2's 'red' with the
    place would tell P1 the colour); in P2's, the top card fits it."""
    text = CLUES.replace('action pass "pass" {', 'action peek "peek" { reveal top(deck).colour to next(me) }\n'
                         'action pass "pass" {').replace("play, pass }", "play, pass, peek }")
    game = gamedsl.load_source(text, "peek.game")
    deck = game.zone_instance("deck")
    same = 0
    for seed in range(6):
        state = game.new_state(players=2, seed=seed)
        do(state, "peek")
        top = state.z[deck][-1]
        assert state.knows_attr(1, top, 0) and not state.knows_attr(0, top, 0)
        for k in range(10):
            world = Redealer(state, 0).deal(random.Random(k))
            told_top = world.z[deck][-1]
            assert set(world.told) <= {(told_top, 1)}  # only of the world's top card, only to P2
            if world.told:
                assert world.knows_attr(1, told_top, 0) and not world.knows_attr(0, told_top, 0)
            same += colour_of(world, told_top) == colour_of(state, top)
            mine = Redealer(state, 1).deal(random.Random(k))
            new_top = mine.z[game.zone_instance("deck")][-1]
            assert colour_of(mine, new_top) == colour_of(state, top) and mine.knows_attr(1, new_top, 0)
    assert same < 50  # 60 worlds: about a third have the real colour on top (3 colours)


def test_the_leak_check_catches_a_card_move_on_ones_own_facing_away_hand_the_check_cannot_see():
    """Written so the move check cannot tell the zone (a filter of it), a move naming a card of the
    mover's own facing-away hand shows the card: the secrecy check refuses it (the cards it offers
    are known to everyone but the player moving), and verify's no-leak check reports it too."""
    text = CLUES.replace('action pass "pass" {', 'action peek "peek at" (c in filter(x in me.hand if true)) { }\n'
                         'action pass "pass" {').replace("play, pass }", "play, pass, peek }")
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(text, "sly.game")
    assert "sly.game:21:29: error: the cards 'peek' offers are seen by the player moving, but " \
           "'filter(x in me.hand if true)' is known to everyone but me" in info.value.format()
    game = gamedsl.load_source(text, "sly.game", leaks_allowed=True)
    state = game.new_state(players=2, seed=0)
    with pytest.raises(gamedsl.InvariantViolation, match="P1's (view depends|legal moves depend) on cards they cannot see"):
        verify.check_no_leak(state, random.Random(0))
    # the same game with moves by place keeps the check
    verify.check_no_leak(clues(2)[1], random.Random(0))


def test_a_move_pointing_at_a_card_of_anothers_facing_away_hand_hides_it_from_that_owner():
    text = CLUES.replace('action pass "pass" {', 'action point "point at" (c in next(me).hand) { }\n'
                         'action pass "pass" {').replace("play, pass }", "play, pass, point }")
    game = gamedsl.load_source(text, "point.game")
    for players in (2, 3):
        state = game.new_state(players=players, seed=1)
        card = hand(state, 1)[0]
        do(state, f"point at {game.card_name(card)}")
        assert game.move_text(state, 0, 1) == "point at a card"  # P2 does not see its own card
        assert game.move_text(state, 0, 0) == f"point at {game.card_name(card)}"
        if players == 3:
            assert game.move_text(state, 0, 2) == f"point at {game.card_name(card)}"  # P3 sees it
        verify.check_no_leak(state, random.Random(0))


def test_what_was_told_of_a_hidden_hand_is_shown_in_its_real_order_not_sorted():
    """A hand its owner holds (`owner`) is shown sorted to its owner; what another seat was told of
    it goes by place in the zone's own order (sorted by the hidden cards, its order would tell them)."""
    game = gamedsl.load_source(CLUES.replace("zone hand per player: others", "zone hand per player: owner"), "own.game")
    for seed in range(8):
        state = game.new_state(players=2, seed=seed)
        do(state, "tell red")  # everyone hears which of P2's cards are red
        cards = hand(state, 1)
        assert state.observation(0)["zones"]["hand"]["P2"]["told"] == [
            "red" if colour_of(state, c) == "red" else "not red" for c in cards]
        verify.check_no_leak(state, random.Random(seed))
