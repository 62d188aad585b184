"""The bots play fair: two states a seat cannot tell apart get the same move from the same bot.

For moments of every seed game (several player counts, early and late, a reaction window and a
race in LOL with others' answers already given, peeks in Mad King), a *twin* of the state is
made that differs only in what the seat to move cannot know: the hidden cards dealt among their
places in another order (cards with the same back only; what others were shown stays with its
place, and so do the values of per-card variables), the others' answers in an open reaction
window or race and who is still to answer, and the random generator's future. A bot with the
same seed must choose the same move in both.
"""
import random
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import make_bot
from gamedsl.engine.knowledge import Redealer, hidden_slots
from gamedsl.engine.runtime import next_version

GAMES = Path(__file__).resolve().parent.parent / "games"
BOTS = {"greedy": "greedy", "ismcts": "ismcts:40:cut=25:fresh"}


def twin(state, seat: int, rng: random.Random):
    """A copy of the state that differs from it only in what `seat` cannot know."""
    other = state.clone()
    keys = other.game.back_keys
    groups: dict = {}
    for inst, i in hidden_slots(other, seat):
        groups.setdefault(keys[other.z[inst][i]] if keys else (), []).append((inst, i))
    known = other.known
    bases = [var.base for var in other.prog.vars if var.per_card]
    for slots in groups.values():
        cards = [other.z[inst][i] for inst, i in slots]
        masks = [known.get(c, 0) for c in cards]  # what others were shown stays with the place
        marks = [[other.v[b + c] for c in cards] for b in bases]  # so do per-card variables
        # what was told stays with the place, what others were told of it as the seat was told it
        told = [[(p, other.told[(c, seat)]) for p in range(other.np) if (c, p) in other.told]
                if (c, seat) in other.told else [] for c in cards]
        original = cards[:]
        for _ in range(20000):  # another order that fits what the seat was told of each place
            rng.shuffle(cards)
            if all(_fits(other, c, entries, seat) for c, entries in zip(cards, told)):
                break
        else:
            cards = original
        for c in cards:
            known.pop(c, None)
            for p in range(other.np):
                other.told.pop((c, p), None)
        for c, entries in zip(cards, told):  # what was told stays with the place
            for p, possible in entries:
                other.told[(c, p)] = possible
        for k, ((inst, i), c, mask) in enumerate(zip(slots, cards, masks)):
            other.z[inst][i] = c
            other.loc[c] = inst
            if mask:
                known[c] = mask
            for b, values in zip(bases, marks):
                other.v[b + c] = values[k]
    other.ver = next_version()  # what parameters and patterns read has changed
    if other.window is not None:
        _other_answers(other, seat, rng)
    other.reseed(rng.getrandbits(64))
    return other


def _fits(state, card: int, entries, seat: int) -> bool:
    """Whether a card fits what the seat was told of a place."""
    tables = state.game.attr_tables
    return all(t[card] < 0 or mask >> t[card] & 1 for p, masks in entries if p == seat
               for mask, t in zip(masks, tables))


def _other_answers(state, seat: int, rng: random.Random):
    """The others' answers already given in the open window changed, and who is still to answer after the seat."""
    kind, _, queue, answers, actions = state.window[:5]
    no_reaction = state.prog.no_reaction
    for k, (_, n, player, _, index) in enumerate(answers):
        if player == seat:
            continue
        choices = state.reactions_of(player) + [no_reaction.first_id] if kind == "react" \
            else _race_moves(state, player, actions)
        answers[k] = (round(rng.uniform(0.3, 1.5), 3), n, player, rng.choice(choices), index)
    if kind == "react" and queue and queue[0] == seat:
        answered = {a[2] for a in answers}
        queue[1:] = [p for p in state.alive if p != seat and p not in answered and rng.random() < 0.5]


def _race_moves(state, player: int, actions) -> list[int]:
    legal: list[int] = []
    prev, state.me = state.me, player
    try:
        for act in actions:
            act.legal(state, legal)
    finally:
        state.me = prev
    return legal


def moments(name: str, players: int, seed: int, count: int, want=lambda s: True, every: int = 7):
    """Up to `count` copies of moments of a random game where the seat to move has a choice (and `want` holds)."""
    game = gamedsl.load_game(GAMES / f"{name}.game")
    state = game.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    found = []
    while not state.is_terminal() and len(found) < count:
        if len(state.legal_actions()) > 1 and want(state) and rng.randrange(every) == 0:
            found.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return found


def in_window(kind: str):
    def want(state):
        w = state.window
        return w is not None and w[0] == kind and any(a[2] != state.current_player() for a in w[3])
    return want


def others_know(state):
    me = state.current_player()
    return any(mask & ~(1 << me) for mask in state.known.values())


def seat_knows_hidden(state):
    """The seat was shown a card it could not see otherwise (a peek)."""
    me = state.current_player()
    return any(state.knows(me, c) for c, mask in state.known.items() if mask == 1 << me)


def seat_was_told(state):
    """The seat was told something of a card of its own hand that it cannot see (a clue)."""
    me = state.current_player()
    return any(p == me and not state.sees_card(me, c) for c, p in state.told)


CASES = [
    ("beacons", 3, 1, {"want": seat_was_told, "every": 2}), ("beacons", 2, 2, {"want": seat_was_told, "every": 2}),
    ("laus", 3, 1, {}), ("laus", 4, 2, {}),
    ("mad_king", 2, 1, {}), ("mad_king", 4, 2, {}), ("mad_king", 3, 3, {"want": others_know}),
    ("mad_king", 2, 4, {"want": seat_knows_hidden, "every": 1}),
    ("crazy_eights", 2, 1, {}), ("crazy_eights", 5, 2, {}),
    ("lol", 2, 1, {"every": 40}), ("lol", 5, 2, {"every": 40}),
    ("lol", 3, 3, {"want": in_window("react"), "every": 3}),
    ("lol", 6, 4, {"want": in_window("react"), "every": 2}),
    ("law", 2, 1, {"every": 15}), ("law", 4, 2, {"every": 15}),
]


@pytest.mark.parametrize("bot", sorted(BOTS))
@pytest.mark.parametrize("name, players, seed, kw", CASES,
                         ids=[f"{c[0]}-{c[1]}p-{c[3]['want'].__name__ if 'want' in c[3] else 'any'}" for c in CASES])
def test_a_bot_chooses_the_same_move_in_states_its_seat_cannot_tell_apart(bot, name, players, seed, kw):
    found = moments(name, players, seed, count=3, **kw)
    assert found, "no such moment: the test would prove nothing"
    rng = random.Random(seed)
    for state in found:
        seat = state.current_player()
        move = make_bot(BOTS[bot], 7).choose(state.clone())
        for _ in range(2):
            other = twin(state, seat, rng)
            assert sorted(other.legal_actions()) == sorted(state.legal_actions())
            assert make_bot(BOTS[bot], 7).choose(other) == move, (
                f"{bot} at {state.game.player_name(seat)}, move {state.moves}: "
                f"{state.action_to_string(move)} in one state, another in a twin")


def test_the_twins_differ_in_what_the_seat_cannot_know():
    """The twins are not the same state: the hidden cards, the others' answers, the future all change."""
    [state] = moments("lol", 3, 3, count=1, want=in_window("react"), every=1)
    seat = state.current_player()
    rng = random.Random(0)
    twins = [twin(state, seat, rng) for _ in range(5)]
    assert any(t.z != state.z for t in twins)
    assert any(t.window[3] != state.window[3] for t in twins)
    assert len({t.rng.random() for t in twins}) == 5
    assert all(t.observation(seat)["zones"] == state.observation(seat)["zones"] for t in twins)


@pytest.mark.parametrize("name, players, seed, kw", CASES,
                         ids=[f"{c[0]}-{c[1]}p-{c[3]['want'].__name__ if 'want' in c[3] else 'any'}" for c in CASES])
def test_a_dealt_world_depends_only_on_what_the_seat_knows(name, players, seed, kw):
    """The worlds the bots decide on: dealt with the same generator, a state and its twin give the same world."""
    rng = random.Random(seed)
    for state in moments(name, players, seed, count=3, **kw):
        seat = state.current_player()
        other = twin(state, seat, rng)
        for past in (False, True):
            worlds = [Redealer(s, seat).deal(random.Random(5), reseed=True, past=past) for s in (state, other)]
            if worlds[0] is None:
                assert worlds[1] is None
                continue
            assert worlds[0].digest() == worlds[1].digest()


def test_a_world_forgets_the_moments_others_let_pass():
    """Nobody sees another let a reaction window pass: a world's move limit counts only the moves the seat knows of."""
    def others_passed(state):
        me = state.current_player()
        return state.window is None and sum(state.passes) > state.passes[me]
    [state] = moments("lol", 3, 3, count=1, want=others_passed, every=1)
    seat = state.current_player()
    world = Redealer(state, seat).deal(random.Random(1), reseed=True, past=False)
    others = sum(state.passes) - state.passes[seat]
    assert world.passes == [state.passes[seat] if p == seat else 0 for p in range(3)]
    assert world.move_limit == state.move_limit + others and world.moves == state.moves


def test_a_dealt_world_keeps_marks_on_hidden_cards_with_their_places():
    """A per-card variable of a card the seat cannot see: a state and its twin (the hidden cards
    dealt otherwise, the marks kept with their places) give the same worlds, and bots choose alike."""
    game = gamedsl.load_source(MARKED, "marked.game")
    rng = random.Random(3)
    for seed in range(6):
        state = game.new_state(players=2, seed=seed)
        state.apply_action(state.legal_actions()[seed % 3])  # P1 marks a card of their hand
        other = twin(state, 1, rng)
        assert other.z != state.z or seed == 0
        worlds = [Redealer(s, 1).deal(random.Random(5), reseed=True) for s in (state, other)]
        assert worlds[0].digest() == worlds[1].digest()
        for bot in sorted(BOTS):
            assert make_bot(BOTS[bot], 7).choose(state.clone()) == make_bot(BOTS[bot], 7).choose(other)


MARKED = """game "Marked"
players 2
attribute rank: 1, 2, 3, 4, 5, 6, 7, 8
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var marked per card = 0
action mark "mark" (c in me.hand) { c.marked = 1 }
action play "play" (c in me.hand) { move c to table }
setup { shuffle deck  deal 3 from deck to hand }
round {
  turn seat(1) { choose mark }
  turn seat(2) { choose play }
  turn seat(1) { choose play }
}
end game when true
heuristic sum(c.marked for c in table)
"""
