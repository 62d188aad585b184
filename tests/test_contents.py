"""Piles known by their contents, secret by their order (`contents`): a deck-builder's deck, whose
owner knows what is in it but not what comes next. Views, bots' worlds, the rules' loops and the
secrecy check all keep the order from everyone."""
import random

import pytest

import gamedsl
from gamedsl.bots import make_bot
from gamedsl.engine.knowledge import Redealer

# P1's deck holds one card of each kind, shuffled; P1 wins by naming its top card.
GUESS = '''game "Guess"
players 2
attribute kind: copper "Copper", estate "Estate", duchy "Duchy", curse "Curse"
cards kind times 3
value vp: estate = 1, duchy = 3, curse = -1, else 0
zone supply: public
zone deck per player: DECK
zone discard per player: public, stack
var right: bool
action guess "guess the top of my deck is" (k in values(kind)) {
  move top(me.deck) to me.discard
  right = top(me.discard).kind == k
}
setup {
  for each p in players {
    for each c in filter(x in supply if x.kind == copper or x.kind == estate or x.kind == duchy or x.kind == curse) {
      if count(filter(y in p.deck if y.kind == c.kind)) == 0 and not (c in players_decks()) { move c to p.deck }
    }
    shuffle p.deck
  }
}
def players_decks() = filter(x in all_cards if x in seat(1).deck or x in seat(2).deck)
round { turn seat(1) { choose guess }  end game }
outcome { if right { win seat(1) } else { win seat(2) } }
'''


def guess_game(tmp_path, deck: str = "owner, stack, contents"):
    path = tmp_path / "guess.game"
    path.write_text(GUESS.replace("DECK", deck), encoding="utf-8")
    return gamedsl.load_game(path)


def test_its_owner_sees_what_it_holds_never_its_order_and_the_others_its_count(tmp_path):
    game = guess_game(tmp_path)
    seen = set()
    tops = set()
    for seed in range(8):
        state = game.new_state(players=2, seed=seed)
        deck = state.observation(0)["zones"]["deck"]
        seen.add(tuple(deck["P1"]))
        assert deck["P2"] == {"count": 4}
        assert state.observation(1)["zones"]["deck"]["P1"] == {"count": 4}
        tops.add(state.z[game.prog.zone_by_name["deck"].base][-1])
    assert seen == {("Copper", "Estate", "Duchy", "Curse")} and len(tops) > 1  # the order changed, the view did not


@pytest.mark.parametrize("bot", ["greedy", "ismcts:100"])
def test_a_bot_knows_what_is_in_its_deck_but_not_what_comes_next(tmp_path, bot):
    """Chance is 1 in 4; with `owner, stack` (the order seen) the same bots name the top every time."""
    for deck, most in (("owner, stack, contents", 20), ("owner, stack", None)):
        game = guess_game(tmp_path, deck)
        right = 0
        for seed in range(40):
            state = game.new_state(players=2, seed=seed)
            state.apply_action(make_bot(bot, seed).choose(state))
            right += state.returns()[0] > 0
        if most is None:
            assert right == 40
        else:
            assert right <= most, right


def test_a_world_keeps_the_cards_of_a_pile_and_deals_its_order_again(tmp_path):
    game = guess_game(tmp_path)
    state = game.new_state(players=2, seed=3)
    base = game.prog.zone_by_name["deck"].base
    redealer = Redealer(state, 0)
    rng = random.Random(1)
    tops = set()
    for _ in range(60):
        world = redealer.deal(rng)
        assert sorted(world.z[base]) == sorted(state.z[base])  # P1's own deck: the same cards
        tops.add(world.z[base][-1])
    assert len(tops) == 4


def test_the_rules_go_through_it_in_the_cards_order(tmp_path):
    """A loop over a pile whose order is secret must not say the order: it goes in the cards' order."""
    path = tmp_path / "list.game"
    path.write_text(GUESS.replace("DECK", "owner, stack, contents").replace(
        "round { turn", 'round { turn seat(1) { choose list }  turn').replace(
        "var right: bool", 'var right: bool\naction list "list my deck" { for each c in me.deck { say "{c}" to me } }'),
        encoding="utf-8")
    game = gamedsl.load_game(path)
    said = set()
    for seed in range(6):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(state.legal_actions()[0])
        said.add(tuple(str(entry[2]) for entry in state.log))
    assert len(said) == 1


@pytest.mark.parametrize("change, message", [
    ('right = top(me.discard).kind == k', None),
    ('right = top(me.deck).kind == k  move top(me.deck) to me.discard',
     "g.game:11:11: error: 'right' is shown to everyone, but 'top(me.deck).kind == k' is known to nobody: "
     "the order of 'deck' is secret ('contents')"),
])
def test_the_check_refuses_a_rule_that_shows_the_order(tmp_path, change, message):
    text = GUESS.replace("DECK", "owner, stack, contents").replace(
        "  move top(me.deck) to me.discard\n  right = top(me.discard).kind == k", "  " + change)
    if message is None:
        gamedsl.load_source(text, "g.game")
        return
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(text, "g.game")
    assert message in info.value.format()


@pytest.mark.parametrize("deck, message", [
    ("hidden, stack, contents", "zone 'deck' is 'hidden' and 'contents': nobody sees its cards to know which they are"),
    ("top, stack, contents", "zone 'deck' is 'top' and 'contents': its top card shows, so its order is no secret"),
    ("owner, stack, contents, shows top", "the order of 'deck' is secret ('contents'): nobody sees its top card"),
])
def test_a_contents_zone_that_cannot_be_is_refused(deck, message):
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(GUESS.replace("DECK", deck), "g.game")
    assert message in info.value.format()


def test_without_a_visibility_everyone_knows_what_it_holds(tmp_path):
    game = guess_game(tmp_path, "stack, contents")
    state = game.new_state(players=2, seed=1)
    assert state.observation(1)["zones"]["deck"]["P1"] == ["Copper", "Estate", "Duchy", "Curse"]
