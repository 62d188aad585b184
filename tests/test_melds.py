"""Melds: patterns of a range of sizes, the best arrangement of a hand into melds (its deadwood) against
a brute-force arrangement, and zones and lists as arguments of defs and steps."""
import itertools
import random

import pytest
from hypothesis import given, settings, strategies as st

import gamedsl
from gamedsl.engine.patterns import Matcher, Order, Shape, Spec, arrange, makes

# ---- a deck of 52: rank A..K (0..12, ace low), suit clubs, spades, hearts, diamonds (0..3), id = rank*4 + suit
RANKS, SUITS = "A23456789TJQK", "cshd"
DECK = {"rank": tuple(c // 4 for c in range(52)), "suit": tuple(c % 4 for c in range(52))}
LOW = Order(position=tuple(c // 4 for c in range(52)), positions=tuple(range(13)))
SET = (Shape(same=("rank",)), Spec(3, most=4))
RUN = (Shape(same=("suit",), run="rank", orders=(LOW,)), Spec(3, most=1 << 20))
POINTS = tuple(min(10, c // 4 + 1) for c in range(52))   # A 1, 2..10 face, J Q K 10


def cards(text: str) -> tuple[int, ...]:
    return tuple(RANKS.index(t[0]) * 4 + SUITS.index(t[1]) for t in text.split())


def names(ids) -> str:
    return " ".join(RANKS[c // 4] + SUITS[c % 4] for c in ids)


def gin(text: str, pats=(RUN, SET)) -> tuple:
    return arrange(Matcher(DECK), pats, POINTS, cards(text))


# ---- the reference: every set of cards that melds, every choice of disjoint ones
def plain_set(cs) -> bool:
    return 3 <= len(cs) <= 4 and len({c // 4 for c in cs}) == 1


def plain_run(cs) -> bool:
    ranks = sorted(c // 4 for c in cs)
    return len(cs) >= 3 and len({c % 4 for c in cs}) == 1 and ranks == list(range(ranks[0], ranks[0] + len(cs)))


def brute_deadwood(hand, is_meld, value=POINTS.__getitem__) -> int:
    hand = sorted(hand)
    melds = [(frozenset(cs), sum(map(value, cs))) for k in range(1, len(hand) + 1)
             for cs in itertools.combinations(hand, k) if is_meld(cs)]
    total = sum(map(value, hand))
    best = total

    def go(i: int, used: frozenset, melded: int):
        nonlocal best
        best = min(best, total - melded)
        for j in range(i, len(melds)):
            if not melds[j][0] & used:
                go(j + 1, used | melds[j][0], melded + melds[j][1])
    go(0, frozenset(), 0)
    return best


def test_a_knock_hand_with_a_set_a_run_and_deadwood():
    deadwood, melds = gin("7c 7h 7d 4s 5s 6s Kc 2h 3d Ah")
    assert deadwood == 10 + 2 + 3 + 1
    assert sorted(map(names, melds)) == ["4s 5s 6s", "7c 7h 7d"]


def test_a_card_in_a_set_and_a_run_goes_where_it_leaves_least():
    # 7s fits the 7s and the spades: four 7s would leave 5s 6s out (11); the set of the other three and
    # the run 5s 6s 7s leave nothing
    deadwood, melds = gin("7c 7h 7d 7s 5s 6s")
    assert (deadwood, sorted(map(names, melds))) == (0, ["5s 6s 7s", "7c 7h 7d"])
    deadwood, melds = gin("7c 7h 7s 5s 6s 8s")
    assert deadwood == 7 + 7  # the run 5s..8s; 7c 7h out (a set of 7c 7h 7s would leave 5s 6s 8s: 19)
    assert list(map(names, melds)) == ["5s 6s 7s 8s"]


def test_gin_melds_every_card_and_long_runs_count():
    deadwood, melds = gin("As 2s 3s 4s 5s 6s 7s Kc Kh Kd")
    assert deadwood == 0
    assert sorted(map(names, melds)) == ["As 2s 3s 4s 5s 6s 7s", "Kc Kh Kd"]


def test_no_run_around_the_corner_and_no_mixed_suits():
    assert gin("Qs Ks As")[0] == 10 + 10 + 1
    assert gin("4s 5h 6s")[0] == 15


def test_equal_deadwood_ties_break_on_the_lowest_card():
    # 4c 4s 4h 4d and 4s 5s 6s / 4c..: the lowest card (A..K, then clubs, spades, hearts, diamonds) is 4c;
    # every arrangement below leaves 0 or the same deadwood: the largest meld holding 4c first
    deadwood, melds = gin("4c 4s 4h 4d")
    assert (deadwood, list(map(names, melds))) == (0, ["4c 4s 4h 4d"])
    # two sets of three from four 9s would leave one 9 either way: 9c 9s 9h, the cards first in order
    deadwood, melds = gin("9d 9h 9s 9c 2c")
    assert (deadwood, list(map(names, melds))) == (2, ["9c 9s 9h 9d"])
    deadwood, melds = gin("3c 4c 5c 6c 6s 6h")
    # 3c 4c 5c + 6c 6s 6h (0) beats 3c..6c + 6s 6h (12)
    assert (deadwood, sorted(map(names, melds))) == (0, ["3c 4c 5c", "6c 6s 6h"])


def test_the_arrangement_does_not_depend_on_the_order_of_the_cards():
    rng = random.Random(7)
    for _ in range(50):
        hand = rng.sample(range(52), 10)
        shuffled = hand[:]
        rng.shuffle(shuffled)
        assert gin(names(hand)) == gin(names(shuffled))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=0, max_size=11, unique=True))
def test_deadwood_is_the_brute_force_least_on_random_hands(hand):
    deadwood, melds = arrange(Matcher(DECK), (RUN, SET), POINTS, hand)
    assert deadwood == brute_deadwood(hand, lambda cs: plain_set(cs) or plain_run(cs))
    # the melds are disjoint, each a meld, and they leave exactly that deadwood
    flat = [c for m in melds for c in m]
    assert len(flat) == len(set(flat)) and set(flat) <= set(hand)
    assert all(plain_set(m) or plain_run(m) for m in melds)
    assert deadwood == sum(POINTS[c] for c in hand if c not in flat)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=1, max_size=12, unique=True), st.data())
def test_a_hand_less_each_card_is_arranged_as_if_alone(hand, data):
    # Matcher.arrange answers the subsets of a hand from one Arranger of the hand (its melds listed
    # once, its search's memo shared): each subset's deadwood and melds, ties broken alike, must be
    # those of the subset arranged alone
    matcher = Matcher(DECK)
    assert matcher.arrange((RUN, SET), POINTS, hand) == arrange(Matcher(DECK), (RUN, SET), POINTS, hand)
    for c in data.draw(st.permutations(hand)):
        less = [x for x in hand if x != c]
        assert matcher.arrange((RUN, SET), POINTS, less) == arrange(Matcher(DECK), (RUN, SET), POINTS, less)
    extra = data.draw(st.lists(st.integers(0, 51), max_size=3, unique=True))  # one card more, or a new hand
    other = sorted(set(hand[1:]) | set(extra))
    assert matcher.arrange((RUN, SET), POINTS, other) == arrange(Matcher(DECK), (RUN, SET), POINTS, other)
    # the hand less each card asked first, the hand told as the cards they are a part of (as
    # runtime.arrangement tells it: the zone holding them and one card more): one Arranger of the hand
    hinted = Matcher(DECK)
    for c in hand:
        less = [x for x in hand if x != c]
        assert hinted.arrange((RUN, SET), POINTS, less, lambda: hand) == \
            arrange(Matcher(DECK), (RUN, SET), POINTS, less)
    assert len(hinted._arrangers) <= 1 and all(a.cards == frozenset(hand) for a in hinted._arrangers.values())


# hands from a short deck (A..6 of two suits, twice the chance of a meld) with wild 2s: the pattern
# search for patterns with wild cards, against a brute force over `makes`
SHORT = [r * 4 + s for r in range(6) for s in range(2)]
TWOS = frozenset(4 + s for s in range(4))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SHORT), min_size=0, max_size=10, unique=True), st.booleans(), st.booleans())
def test_deadwood_with_wild_cards_and_merged_suits_is_the_brute_force_least(hand, wild, merged):
    wilds = (("rank", TWOS),) if wild else ()
    classes = (("suit", (0, 0, 2, 3)),) if merged else ()   # clubs and spades count as one suit
    run = (RUN[0], Spec(3, wild=wilds, classes=classes, most=5))
    kind = (SET[0], Spec(3, wild=wilds, classes=classes, most=4))
    deadwood, melds = arrange(Matcher(DECK), (run, kind), POINTS, hand)

    def meld(cs) -> bool:
        return any(3 <= len(cs) <= sp.most and makes(DECK, sh, len(cs), (), sp.wild, sp.classes, cs)
                   for sh, sp in (run, kind))
    assert deadwood == brute_deadwood(hand, meld)
    assert all(meld(m) for m in melds)


# ---- the language: sizes, the built-ins, a game that lays its melds out
GAME = '''game "Melds"
players 2
attribute rank: A, 2, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K
attribute suit: clubs, spades, hearts, diamonds
cards rank * suit
value points: A = 1, 2 = 2, 3 = 3, 4 = 4, 5 = 5, 6 = 6, 7 = 7, 8 = 8, 9 = 9, else 10
pattern run: at least 3 cards, run of rank, same suit
pattern set: 3 to 4 cards, same rank
pattern pair: 2 cards, same rank
zone deck: hidden
zone hand per player: owner
zone first per player: public
zone rest per player: public
hidden var left per player = 0       # (the tests read them from the state: what the rules worked out)
hidden var laid per player = 0
hidden var pairs per player = 0
hidden var checks per player = 0
setup { shuffle deck  deal 10 from deck to hand }
round {
  for each p in players {
    p.left = deadwood(p.hand, run or set, p by points)
    p.pairs = deadwood(p.hand, pair by points)
    p.laid = count(melded(p.hand, run or set by points))
    for each c in first_meld(p.hand, run or set by points) { move c to p.first }
    for each c in melded(p.hand, run or set by points) { move c to p.rest }
    p.checks = (if makes(p.first, run) or makes(p.first, set) or count(p.first) == 0 then 1 else 0)
        + (if has(p.hand + p.first + p.rest, set) then 2 else 0) + (if has(p.hand + p.first + p.rest, run) then 4 else 0)
  }
  end game
}
outcome { win me }
'''


def test_the_built_ins_in_a_game_lay_out_the_best_arrangement():
    game = gamedsl.load_source(GAME, "melds.game")
    for seed in range(20):
        s = game.new_state(players=2, seed=seed)
        for p in range(2):
            zone = {z: s.z[game.zone_instance(z, p)] for z in ("hand", "first", "rest")}
            hand = [*zone["hand"], *zone["first"], *zone["rest"]]
            var = {v.name: s.v[v.base + p] for v in game.prog.vars}
            best, melds = gin(names(hand))
            assert var["left"] == best == sum(POINTS[c] for c in zone["hand"])
            assert sorted(zone["first"]) == (sorted(melds[0]) if melds else [])
            assert var["laid"] == len(zone["first"]) + len(zone["rest"])
            assert var["pairs"] == brute_deadwood(hand, lambda cs: len(cs) == 2 and cs[0] // 4 == cs[1] // 4)
            has_set = any(plain_set(cs) for cs in itertools.combinations(hand, 3))
            has_run = any(plain_run(cs) for cs in itertools.combinations(hand, 3))
            assert var["checks"] == 1 + 2 * has_set + 4 * has_run


def test_sizes_read_as_at_least_and_a_range():
    src = GAME.replace("pattern pair: 2 cards, same rank", "pattern pair: 2 cards, same rank\n"
                       "pattern upto: 2 to 3 cards, same suit\npattern odd: 3 to 2 cards, same suit")
    game = gamedsl.load_source(src, "melds.game")
    s = game.new_state(players=2, seed=0)
    from gamedsl.engine import runtime
    k = {p.name: i for i, p in enumerate(game.prog.patterns)}
    assert runtime.makes(s, k["run"], cards("3h 4h 5h 6h 7h 8h 9h 10h".replace("10", "T")), 0)
    assert not runtime.makes(s, k["run"], cards("3h 4h"), 0)
    assert runtime.makes(s, k["set"], cards("3h 3c 3d 3s"), 0)
    assert not runtime.makes(s, k["set"], cards("3h 3c"), 0)
    assert runtime.makes(s, k["upto"], cards("3h 5h"), 0) and runtime.makes(s, k["upto"], cards("3h 5h 9h"), 0)
    assert not runtime.makes(s, k["upto"], cards("3h 5h 9h Kh"), 0)
    assert runtime.makes(s, k["odd"], cards("3h 5h 9h"), 0)  # `3 to 2`: 3 cards
    assert not runtime.makes(s, k["odd"], cards("3h 5h"), 0)
    assert runtime.can_make(s, k["run"], cards("5h 6h 7h 8h"), cards("4h 9h"), 0)
    assert runtime.can_make(s, k["run"], cards("4h 8h"), cards("5h 6h 7h"), 0)
    assert not runtime.can_make(s, k["run"], cards("4h 8h"), cards("5h 7h"), 0)


@pytest.mark.parametrize("call, message", [
    ("deadwood(p.hand, run or flush by points)", "'deadwood' needs the name of a pattern here, or several joined"),
    ("deadwood(p.hand, run or set)", "'deadwood' needs 'by' and the value table"),
    ("deadwood(p.hand, run or set by pionts)", "'deadwood' needs 'by' and the value table"),
    ("deadwood(p.hand by points)", "'deadwood' takes cards, patterns joined by 'or', and a value table"),
    ("count(melded(3, run by points))", "expected cards (a zone or a list), found a number"),
])
def test_arrangement_built_ins_report_mistakes_like_a_compiler(call, message):
    src = GAME.replace("p.left = deadwood(p.hand, run or set, p by points)", f"p.left = {call}")
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(src, "melds.game")
    text = info.value.format()
    line = next(i for i, t in enumerate(src.splitlines(), 1) if call in t)
    assert f"melds.game:{line}:" in text and message in text, text
    assert "^" in text


def test_a_range_size_reads_its_own_numbers():
    bad = GAME.replace("pattern set: 3 to 4 cards, same rank", "pattern set: 3 to hearts cards, same rank")
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(bad, "melds.game")
    assert "melds.game:8:19: error: expected a number, found a suit" in info.value.format()


# ---- zones and lists as arguments of defs and steps
ARGS = '''game "T"
players 2 to 4
attribute rank: 2, 3, 4, 5, 6, 7
attribute suit: red, blue
cards rank * suit
zone deck: hidden, stack
zone pile: public
zone hand per player: owner
var total = 0
var joined per player = 0
var theirs per player = 0
owner var listed per player = 0      # (how many of a player's own cards are red: theirs to see)
def size(z) = count(z)
def plus(c, z) = count([c] + z)
def give(z) {
  move all from z to pile
}
setup { shuffle deck  deal 2 from deck to hand  total = size(deck) + 10 * size(pile) }
round {
  for each p in players {
    p.joined = plus(top(deck), p.hand)
    p.theirs = size(next(p).hand)
    p.listed = size([top(deck)] + p.hand) + 10 * size(filter(c in p.hand if c.suit == red))
  }
  give(seat(2).hand)
  end game
}
outcome { win me }
'''


def test_zones_and_lists_are_arguments_of_defs_and_steps():
    game = gamedsl.load_source(ARGS, "t.game")
    s = game.new_state(players=3, seed=0)
    var = {v.name: v for v in game.prog.vars}
    assert s.v[var["total"].base] == 12 - 6      # size(deck), size(pile) when dealt: 6 and 0
    assert [s.v[var["joined"].base + p] for p in range(3)] == [3, 3, 3]
    assert [s.v[var["theirs"].base + p] for p in range(3)] == [2, 2, 2]
    dealt = [s.z[game.zone_instance("hand", 0)], s.z[game.zone_instance("pile")], s.z[game.zone_instance("hand", 2)]]
    reds = [sum(1 for c in cs if game.card_name(c).endswith("red")) for cs in dealt]   # P2's hand went to the pile
    assert len(set(reds)) > 1
    assert [s.v[var["listed"].base + p] for p in range(3)] == [3 + 10 * r for r in reds]
    assert len(s.z[game.zone_instance("pile")]) == 2   # give(seat(2).hand): one hand moved
    assert sum(len(s.z[game.zone_instance("hand", p)]) for p in range(3)) == 4


@pytest.mark.parametrize("wrong, where, message, hint", [
    ("total = size(3)", "size(3)", "'size' cannot take a number as its argument 'z'",
     "its body, line 13: expected cards, players or a list here, found a number"),
    ("total = twice(deck)", "twice(deck)", "'twice' cannot take a zone as its argument 'n'",
     "its body, line 14: expected a number, found a zone"),
    ("give(3)", "give(3)", "expected a zone, found a number", "'z' is '3' here, as the call at line 27, column 3 "
     "gives it: give(3)"),
])
def test_an_argument_of_the_wrong_kind_is_an_error_at_the_call(wrong, where, message, hint):
    src = ARGS.replace("def plus(c, z)", "def twice(n) = n * 2\ndef plus(c, z)").replace(
        "end game\n}", wrong + "\n  end game\n}")
    with pytest.raises(gamedsl.SourceError) as info:
        gamedsl.load_source(src, "t.game")
    text = info.value.format()
    assert message in text and hint in text and "^" in text, text
    if "cannot take" in message:   # at the argument of the call, not in the body
        line = next(i for i, t in enumerate(src.splitlines(), 1) if where in t)
        col = src.splitlines()[line - 1].index(where) + where.index("(") + 2
        assert f"t.game:{line}:{col}: error: {message}" in text, text


def test_a_loop_on_deadwood_is_not_endless_when_its_body_changes_what_the_patterns_read():
    """The run's size is a parameter a modifier changes: the body changes the deadwood without
    moving a card, so the checker must not call the loop endless (it would for a plain number)."""
    src = GAME.replace("pattern run: at least 3 cards, run of rank, same suit",
                       "param run_size = 3\nhidden var short per player = 0\n"
                       "modifier shorter while owner.short > 0 { run_size = 1 }\n"
                       "pattern run: at least run_size cards, run of rank, same suit").replace(
        "  end game\n}", "  while deadwood(me.hand, run by points) > 0 { me.short += 1 }\n  end game\n}")
    game = gamedsl.load_source(src, "melds.game")
    s = game.new_state(players=2, seed=0)
    assert s.is_terminal()
    short = next(v for v in game.prog.vars if v.name == "short")
    assert s.v[short.base + 0] == 1      # a run of 1 card: every card melds once short is 1
