"""The ISMCTS bot: its specs, its search (it finds what wins, in plain moves, reaction windows and
races), its budget, its reuse of the tree, and games of every seed game played to their end."""
import json
import random
import time
from collections import Counter
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import BotSpecError, IsmctsAgent, UnknownBot, make_bot, parse_spec
from gamedsl.tools.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"

# Nim with 7 stones, 1 to 3 a move; who takes the last stone wins. From 7, taking 3 wins.
NIM = '''game "Nim"
players 2
attribute face: stone
cards face times 7
zone heap: public, stack
zone taken per player: public
var last: player
action one { move 1 from heap to me.taken  last = me }
action two if count(heap) >= 2 "not that many left" { move 2 from heap to me.taken  last = me }
action three if count(heap) >= 3 "not that many left" { move 3 from heap to me.taken  last = me }
round {
  while count(heap) > 0 { for each p in players { if count(heap) > 0 { turn p { choose one, two, three } } } }
  end game
}
outcome { for each p in players { if p == last { win p } else { lose p } } }
'''

# A guess at a hidden card; with `peeking`, the guesser sees it first. Right wins.
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
outcome { if right { win seat(1)  lose seat(2) } else { lose seat(1)  win seat(2) } }
'''

# After a flip, a reaction window: a slap is worth a point. Then a race: grab wins a point, drop
# loses one. Two points win.
SLAP = '''game "Slap"
players 2
attribute face: ace, king
cards face
zone deck: hidden, stack
zone pile: public, stack
var slapped per player = false
var score per player = 0
action flip { move top(deck) to pile }
action slap anytime if count(pile) > 0 and not me.slapped "nothing to slap" { me.slapped = true  me.score += 1 }
action grab "grab" { me.score += 1 }
action drop "drop" { me.score -= 1 }
setup { shuffle deck }
round { turn seat(1) { choose flip }  race grab, drop among players  end game }
outcome { for each p in players { if p.score >= 2 { win p } else { lose p } } }
'''


def load(text: str, name: str) -> gamedsl.Game:
    return gamedsl.load_source(text, name)


def names(game, moves):
    return [game.action_to_string(a) for a in moves]


# ---- specs ---------------------------------------------------------------------------------
def test_specs_set_the_budget_and_the_options():
    assert parse_spec("ismcts") == ("ismcts", {})
    assert parse_spec("ismcts:2000") == ("ismcts", {"iterations": 2000})
    assert parse_spec("ismcts:0.5s") == ("ismcts", {"seconds": 0.5})
    assert parse_spec("ISMCTS:400:cut=40:heuristic") == ("ismcts", {"iterations": 400, "cut": 40, "heuristic": True})
    assert parse_spec("ismcts:cut=40:c=0.5:fresh:rank") == ("ismcts", {"cut": 40, "c": 0.5, "fresh": True, "rank": True})
    assert parse_spec("greedy:samples=4") == ("greedy", {"samples": 4})
    bot = make_bot("ismcts:0.25s:cut=30", 1)
    assert (bot.iterations, bot.seconds, bot.cut, bot.biased, bot.reuse) == (None, 0.25, 30, False, True)
    assert make_bot("greedy:samples=3:lookahead=1", 0).samples == 3


@pytest.mark.parametrize("spec, message", [
    ("ismcts:0", "the budget must be from 1 to 100,000,000, not 0"),
    ("ismcts:-2s", "the time per move must be from 0.001 to 3,600, not -2s"),
    ("ismcts:nans", "the time per move must be a finite number, not nans"),
    ("ismcts:2000:c=nan", "'c' must be a finite number, not nan"),
    ("ismcts:2000:c=inf", "'c' must be a finite number, not inf"),
    ("greedy:samples=1000000000", "'samples' must be from 1 to 10,000, not 1000000000"),
    ("ismcts:lots", "'lots' is not a budget: give iterations (2000) or seconds per move (0.5s)"),
    ("ismcts:100:cut=x", "'cut' needs a number, not 'x'"),
    ("ismcts:100:cut=0", "'cut' must be from 1 to 100,000, not 0"),
    ("ismcts:100:heuristic=1", "'heuristic' takes no value: write 'heuristic' alone"),
    ("ismcts:100:depth=3", "'depth=3' is not an option of ismcts (its options: cut, heuristic, c, fresh, "
                           "rank and a budget (2000 iterations, or 0.5s))"),
    ("ismcts:100:cut=3:cut=4", "'cut' is given twice"),
    ("random:5", "'5' is not an option of random (its options: none)"),
    ("greedy:100", "'100' is not an option of greedy (its options: samples, lookahead, budget)"),
])
def test_a_bad_spec_says_what_is_wrong(spec, message):
    with pytest.raises(BotSpecError) as info:
        make_bot(spec, 0)
    assert str(info.value) == message and isinstance(info.value, ValueError)


def test_an_unknown_bot_is_a_key_error_and_a_value_error():
    with pytest.raises(UnknownBot) as info:
        make_bot("alien:3", 0)
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    assert str(info.value) == "'alien:3' is not a bot (the bots: random, greedy, ismcts)"


# ---- search --------------------------------------------------------------------------------
def test_it_finds_the_winning_move_where_random_does_not():
    game = load(NIM, "nim.game")
    state = game.new_state(players=2)
    assert names(game, [make_bot("ismcts:200", seed).choose(state) for seed in range(6)]) == ["three"] * 6
    assert len(set(names(game, [make_bot("random", seed).choose(state) for seed in range(6)]))) > 1


def test_from_the_first_seat_of_nim_it_always_beats_random():
    game = load(NIM, "nim.game")
    for seed in range(6):
        state = game.new_state(players=2, seed=seed)
        bots = [make_bot("ismcts:200", seed), make_bot("random", seed)]
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].choose(state))
        assert state.returns() == [1.0, -1.0]


def test_the_same_seed_and_budget_give_the_same_game():
    game = gamedsl.load_game(GAMES / "crazy_eights.game")

    def play(seed):
        state = game.new_state(players=3, seed=4)
        bots = [make_bot("ismcts:30:cut=20", seed + k) for k in range(3)]
        for _ in range(40):
            state.apply_action(bots[state.current_player()].choose(state))
        return state.history

    first = play(1)
    assert play(1) == first
    assert play(2) != first


def test_it_never_reads_the_card_it_cannot_see():
    """Guessing a hidden colour it is right about half the time; after a peek, always."""
    game = load(GUESS, "guess.game")
    right = Counter()
    for seed in range(40):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(make_bot("ismcts:40", seed).choose(state))
        right[state.var("right")] += 1
    assert 8 <= right[True] <= 32  # a bot that read the secret would always be right
    for seed in range(10):
        state = game.new_state(players=2, seed=seed, options={"peeking": 1})
        state.apply_action(state.legal_actions()[0])  # peek: now it knows
        state.apply_action(make_bot("ismcts:40", seed).choose(state))
        assert state.var("right")


def test_it_reacts_in_reaction_windows_and_answers_races_to_win():
    """Each player needs a slap and a grab; letting a window pass is no loss while another comes."""
    game = load(SLAP, "slap.game")
    for seed in range(4):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(state.legal_actions()[0])  # flip: a reaction window opens
        assert state.window is not None and state.window[0] == "react"
        raced = 0
        while not state.is_terminal():
            move = make_bot("ismcts:100", seed).choose(state)
            if state.window[0] == "race":
                assert game.action_to_string(move) == "grab"
                raced += 1
            state.apply_action(move)
        assert raced == 2 and state.returns() == [1.0, 1.0]


def test_random_players_do_not_always_slap_and_grab():
    """The windows and the race of the test above leave a real choice."""
    game = load(SLAP, "slap.game")
    outcomes = Counter()
    for seed in range(20):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(state.legal_actions()[0])
        bot = make_bot("random", seed)
        while not state.is_terminal():
            state.apply_action(bot.choose(state))
        outcomes[tuple(state.returns())] += 1
    assert outcomes[(1.0, 1.0)] < 10


# ---- budget and reuse ---------------------------------------------------------------------
def test_a_time_budget_is_kept():
    game = gamedsl.load_game(GAMES / "laus.game")
    state = game.new_state(players=3, seed=2)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = make_bot("ismcts:0.05s", 1)
    t0 = time.perf_counter()
    bot.choose(state)
    took = time.perf_counter() - t0
    assert 0.05 <= took < 0.25 and bot.iterations_done > 1


def test_the_tree_is_kept_between_its_own_moves_when_it_saw_every_move():
    game = load(NIM, "nim.game")
    state = game.new_state(players=2)
    bot, other = make_bot("ismcts:100", 1), make_bot("random", 1)
    state.apply_action(bot.choose(state))
    assert bot.reused == 0
    state.apply_action(other.choose(state))
    state.apply_action(bot.choose(state))
    assert bot.reused > 0 and bot.iterations_done == 100
    fresh = make_bot("ismcts:100:fresh", 1)
    fresh.choose(game.new_state(players=2))
    assert fresh.kept is None


def test_the_tree_is_not_kept_when_its_move_was_not_played():
    game = load(NIM, "nim.game")
    state = game.new_state(players=2)
    bot = make_bot("ismcts:100", 1)
    chosen = bot.choose(state)
    state.apply_action(next(a for a in state.legal_actions() if a != chosen))
    state.apply_action(state.legal_actions()[0])
    bot.choose(state)
    assert bot.reused == 0


def test_the_tree_is_kept_only_across_moves_it_saw_in_full():
    """Laus: the cards played to a trick are seen by all; the skat's cards are not."""
    game = gamedsl.load_game(GAMES / "laus.game")
    kept = blind = 0
    for seed in range(4):
        state = game.new_state(players=3, seed=seed)
        bot, rng, last = make_bot("ismcts:10:cut=10", seed), random.Random(seed), None
        while not state.is_terminal() and state.moves < 150:
            if state.current_player() != 0:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                continue
            seen = last is not None and all(
                state.card_moves[k][0] == 0 or game.move_text(state, k, 0) == game.action_to_string(state.history[k])
                for k in range(last + 1, state.moves))
            last = state.moves
            state.apply_action(bot.choose(state))
            if bot.reused:
                assert seen
                kept += 1
            blind += not seen
    assert kept > 5 and blind > 5


# ---- every seed game ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["laus", "mad_king", "crazy_eights", "lol", "law"])
def test_it_plays_every_seed_game_to_its_end_at_the_fewest_and_the_most_players(name):
    game = gamedsl.load_game(GAMES / f"{name}.game")
    spec = "ismcts:4:cut=5:heuristic" if name in ("lol", "law") else "ismcts:10:cut=20"
    for players in (game.min_players, game.max_players):
        state = game.new_state(players=players, seed=1)
        bots = [make_bot(spec if k in (0, players - 1) else "random", k) for k in range(players)]
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].choose(state))
        assert not state.limit_hit


def test_in_lol_it_answers_reaction_windows_and_races():
    game = gamedsl.load_game(GAMES / "lol.game")
    asked = Counter()
    state = game.new_state(players=3, seed=2)
    bots = [IsmctsAgent(k, iterations=4, cut=6) for k in range(3)]
    while not state.is_terminal() and state.moves < 800:
        if state.window is not None:
            asked[state.window[0]] += 1
        bot = bots[state.current_player()]
        state.apply_action(bot.choose(state))
        asked["reused"] += bot.reused > 0
    assert asked["react"] > 20 and asked["race"] > 2
    assert asked["reused"] == 0  # who let a window pass is not seen: the tree is never kept


def test_in_the_arena_it_beats_random_significantly(tmp_path, capsys):
    """Nim with 10 stones: the first player wins with perfect play, and random errs."""
    path = tmp_path / "nim.game"
    path.write_text(NIM.replace("times 7", "times 10"))
    assert main(["arena", str(path), "--seats", "ismcts:100,random", "--games", "12", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["per_entry"][0]["better_than"] == ["random"] and report["per_entry"][0]["wins"] >= 10


def test_a_cut_playout_is_scored_by_the_heuristic_within_minus_one_to_one():
    from gamedsl.bots.ismcts import _ranks
    game = gamedsl.load_game(GAMES / "laus.game")
    state = game.new_state(players=3, seed=2)
    rng = random.Random(2)
    while len({state.evaluate(p) for p in range(3)}) < 3:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    values = [state.evaluate(p) for p in range(3)]
    order = sorted(range(3), key=values.__getitem__)
    smooth = IsmctsAgent(0)._smooth(state)
    assert all(-1 < x < 1 for x in smooth) and sorted(range(3), key=smooth.__getitem__) == order
    ranks = _ranks(state)
    assert [ranks[p] for p in order] == [-1.0, 0.0, 1.0]
