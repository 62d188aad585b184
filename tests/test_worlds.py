"""The worlds bots decide on hold nothing their seat may not know: a hidden card's value copied into
a variable is worked out again from the world's own cards (the game replayed: engine/history.py),
no bot ever falls back to the real cards, and a search tree is never kept across a secret answer."""
import random
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import make_bot
from gamedsl.engine.knowledge import Redealer

ROOT = Path(__file__).resolve().parent.parent

# P2 guesses the rank of P1's face-down card: right one time in six, knowing nothing.
COPY = '''game "Copy"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
hidden var right = false
DECLARE
action guess "guess" (n in 1..6) { right = n == SECRET }
setup { shuffle deck  deal 1 from deck to hand  COPY }
round { turn seat(2) { choose guess }  end game }
outcome { if right { win seat(2)  lose seat(1) } else { lose seat(2)  win seat(1) } }
heuristic if right then 1 else 0
'''
# where the rules keep the card's value: (declaration, what the setup copies, what the guess reads)
KEPT = {
    "the card itself": ("", "", "number(top(seat(1).hand).rank)"),
    "an owner variable": ("owner var mine per player = 0",
                          "for each p in players { p.mine = number(top(p.hand).rank) }", "seat(1).mine"),
    "a hidden variable": ("hidden var value = 0", "value = number(top(seat(1).hand).rank)", "value"),
    "a mark on the card": ("hidden var mark per card = 0", "for each c in seat(1).hand { c.mark = number(c.rank) }",
                           "sum(c.mark for c in all_cards)"),
    "a card variable": ("hidden var target: card", "target = top(seat(1).hand)", "number(target.rank)"),
}


def copy_game(kept: str):
    declare, copy, secret = KEPT[kept]
    return gamedsl.load_source(COPY.replace("DECLARE", declare).replace("COPY", copy).replace("SECRET", secret),
                               "copy.game")


@pytest.mark.parametrize("kept", sorted(KEPT))
def test_a_world_works_a_copied_value_out_again_from_its_own_cards(kept):
    """In every world P2 deals itself, what the rules copied agrees with the card the world gave P1,
    and the card varies (P2 does not know it)."""
    game = copy_game(kept)
    assert kept == "the card itself" or game.prog.secret_vars
    state = game.new_state(players=2, seed=1)
    worlds = Redealer(state, 1)
    ranks = set()
    for k in range(40):
        world = worlds.deal(random.Random(k), reseed=True)
        card = world.zone_cards("hand", 0)[0]
        rank = int(game.card_name(card))
        ranks.add(rank)
        world.apply_action(next(a for a in world.legal_actions() if game.action_to_string(a) == f"guess {rank}"))
        assert world.var("right"), kept  # the copy is this world's card, whatever the real one
    assert len(ranks) >= 4


@pytest.mark.parametrize("bot", ["greedy", "ismcts:60"])
@pytest.mark.parametrize("kept", sorted(KEPT))
def test_a_bot_guesses_a_copied_hidden_value_no_better_than_chance(kept, bot):
    """The issue measured 200 of 200 right guesses when the rules copied the card into a variable
    (34 of 200 when they read the card): here the bot at P2 is right about one time in six."""
    game = copy_game(kept)
    games = 60
    right = 0
    for seed in range(games):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(make_bot(bot, 7919 * seed + 1).choose(state))
        right += state.var("right")
    # one in six: 10 of 60 expected; 20 or more happens by chance less than once in 400 runs
    assert right < 20, f"{bot} guessed right {right} times in {games} ({kept})"


@pytest.mark.parametrize("bot", ["greedy", "ismcts:40"])
def test_no_bot_ever_falls_back_to_the_real_cards(bot, monkeypatch):
    """When no deal of what the seat cannot see fits the decision (a rule that showed something of
    the hidden cards, and a sampler that cannot find a deal that keeps it), a bot used to decide on
    the real state (the issue's greedy named P2's hidden card in 40 deals of 40). Now it searches
    near fresh deals, and with no fit at all it knows nothing to decide by: never the real cards."""
    game = copy_game("the card itself")
    monkeypatch.setattr(Redealer, "deal", lambda self, *args, **kwargs: None)  # no deal ever fits
    right = 0
    for seed in range(60):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(make_bot(bot, 7919 * seed + 1).choose(state))
        right += state.var("right")
    assert right < 20, f"{bot} guessed P1's card {right} times in 60 with no world that fits"


def test_a_search_near_fresh_deals_finds_a_rare_fit():
    """The decision re-asked in a world must have a legal move: P1 may discard only its card that
    makes 200 with the discard pile's top, so a world fits only if P1 holds one (1 deal in ~100). A
    fresh deal rarely does; a search near fresh deals (one trade of two hidden cards) finds one."""
    ranks = ", ".join(str(n) for n in range(1, 200) if n != 100)
    game = gamedsl.load_source(f'''game "Rare"
players 2
attribute rank: {ranks}
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone pile: top, stack
action discard "discard" (c in me.hand) if number(c.rank) + number(top(pile).rank) == 200 {{ move c to pile }}
action wait "wait" {{ }}
setup {{
  shuffle deck
  move top(deck) to pile
  for each c in deck {{ if number(c.rank) + number(top(pile).rank) == 200 {{ move c to seat(2).hand }} }}
  deal 1 from deck to hand
}}
round {{ turn seat(2) {{ choose discard }}  turn seat(1) {{ choose wait }}  end game }}
outcome {{ for each p in players {{ win p }} }}
''', "rare.game")
    state = game.new_state(players=2, seed=4)
    worlds = Redealer(state, 0)  # P1 does not see P2's hand: the decision (P2 discards) needs P2 to hold the card
    found = [worlds.deal(random.Random(k), tries=3, search=0) for k in range(20)]
    assert sum(w is not None for w in found) <= 3
    searched = [worlds.deal(random.Random(k), tries=3, search=2000) for k in range(20)]
    assert all(w is not None for w in searched)
    assert len({tuple(w.zone_cards("hand", 1)) for w in searched}) >= 10  # not one world, nor the real one only


MATCHING = '''game "Pennies"
players 2
attribute side: heads, tails
cards side
zone deck: hidden
var score per player = 0
var turn_no = 0
hidden var called: side
hidden var shown: side
action show "show" (s in [heads, tails]) { shown = s }
action call "call" (s in [heads, tails]) { called = s }
action pass "go on" { }
action wait "wait" { }
round {
  turn_no += 1
  turn seat(2) { choose pass, wait }
  simultaneous show, call among players
  if called == shown { seat(2).score += 1 } else { seat(1).score += 1 }
  if turn_no >= 60 { end game }
}
outcome { for each p in players { if p.score == max(q.score for q in players) { win p } else { lose p } } }
'''


def test_ismcts_keeps_no_tree_across_another_seats_secret_answer():
    """Matching pennies after an ordinary turn: P1 shows a side in secret first, then P2 (the bot)
    calls. The tree P2 kept from its ordinary move held a subtree under each side P1 might show:
    walking it down P1's real answer, not revealed yet, told P2 the side (the issue measured 79% of
    calls matched so; 50% is chance). The tree is kept where every move since was seen (P2's
    ordinary turns, after the sides are revealed), never across the secret answer."""
    from gamedsl.bots.ismcts import IsmctsAgent
    game = gamedsl.load_source(MATCHING, "pennies.game")
    bot = IsmctsAgent(seed=3, iterations=100)
    rng = random.Random(5)
    state = game.new_state(players=2, seed=1)
    kept_at_calls = kept_at_turns = calls = 0
    while not state.is_terminal():
        if state.current_player() == 1:
            move = bot.choose(state)
            if state.window is not None:
                calls += 1
                kept_at_calls += bot.reused > 0
            else:
                kept_at_turns += bot.reused > 0
        else:
            move = rng.choice(state.legal_actions())
        state.apply_action(move)
    assert calls == 60 and kept_at_calls == 0 and kept_at_turns > 20


def test_a_seat_knows_the_cards_it_put_face_down_itself():
    """Laus: the two cards a player puts back in the skat were re-dealt in that player's worlds (the
    Redealer forgot them); now the player knows where it put them, and every world keeps them there."""
    game = gamedsl.load_game(ROOT / "games" / "laus.game")
    checked = 0
    for seed in range(20):
        state = game.new_state(players=3, seed=seed)
        while not state.is_terminal() and not game.action_to_string(state.legal_actions()[0]).startswith("play"):
            legal = state.legal_actions()
            look = [a for a in legal if game.action_to_string(a) == "look at the skat"]
            state.apply_action(look[0] if look else legal[0])
        buried = [state.card_moves[k][0] for k in range(state.moves)
                  if game.action_to_string(state.history[k]).startswith("put back")]
        if not buried:
            continue
        player = buried[-1]  # whoever put the skat's cards back last
        skat = state.zone_cards("skat")
        assert sorted(state.observation(player)["zones"]["skat"]["known"]) == sorted(game.card_name(c) for c in skat)
        worlds = Redealer(state, player)
        for k in range(10):
            assert sorted(worlds.deal(random.Random(k)).zone_cards("skat")) == sorted(skat)
        checked += 1
    assert checked >= 5


# A pair is laid card by card: "lay a pair of 6" begins a move whose next steps lay the 6s. A deal
# of P1's hand without two 6s is not one P2 can think possible: the rest of that move would loop.
STEPS = '''game "Steps"
players 2
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
attribute suit: a, b, c
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
zone laid: public
zone pile: public
var current: player
var want: number

def held(r) = count(c in me.hand if c.rank == r)
action pair "lay a pair of" (r in values(rank)) if held(r) >= 2 {
  want = r
  while count(laid) < 2 { choose lay }
  move all from laid to pile
}
action lay "lay" (c in me.hand) if c.rank == want { move c to laid }
action pass "pass" { }

round {
  gather all into deck
  shuffle deck
  deal 5 from deck to hand
  current = nth(players, 1)
  repeat 6 { turn current { choose pair, pass }  current = next(current) }
  end game
}
outcome { places p in players by 0 - count(p.hand) }
'''


def test_a_world_in_which_a_move_begun_cannot_go_on_is_refused():
    """Mid-move, a deal of the hidden cards in which the rules fail (here: loop for ever, asking P1
    for a 6 it does not hold) is no world the seat could be in; `verify` once reported that loop as
    the game's own, with a replay that passed."""
    from gamedsl.tools.verify import Playout, play
    game = gamedsl.load_source(STEPS)
    state = game.new_state(seed=205)
    pair = next(a for a in state.legal_actions() if game.action_to_string(a).startswith("lay a pair"))
    state.apply_action(pair)
    rank = game.action_to_string(pair).rsplit(" ", 1)[1]
    rng = random.Random(1)
    # dealt from the present: P1 holds a 6 to lay now; replayed, the move "lay a pair" needs two
    for worlds, least in ((Redealer(state, 1), 1), (Redealer(state, 1, replay=True), 2)):
        for _ in range(20):
            world = worlds.deal(rng, tries=200, search=50)
            assert world is not None and world.current_player() == 0, least
            assert all(game.action_to_string(a).startswith(f"lay {rank}") for a in world.legal_actions())
            assert sum(game.card_name(c).startswith(rank) for c in world.z[game.zone_instance("hand", 0)]) >= least
        assert worlds.failed > 0 or least == 2  # (deals without a 6 were met, and refused)
    for seed in (205, 1, 2):
        play(Playout(game, 2, seed), random.Random(seed).randrange, 400, bots=True, thorough=True)


def test_an_error_in_a_step_of_a_move_names_the_move_it_is_a_step_of():
    from gamedsl.errors import GameRuntimeError
    game = gamedsl.load_source(STEPS.replace("count(laid) < 2", "count(laid) < 3"))  # a pair has no third card
    state = game.new_state(seed=0)
    for text in ("lay a pair of 5", "lay 5a"):
        state.apply_action(game.string_to_action(state, text))
    with pytest.raises(GameRuntimeError) as info:
        state.apply_action(game.string_to_action(state, "lay 5b"))
    assert "this loop never ends" in str(info.value).splitlines()[0]
    assert str(info.value).splitlines()[-1] == "  during move 3 by P1 ('lay 5b': a step of 'lay a pair of 5', move 1; round 1)"
