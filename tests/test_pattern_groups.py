"""Patterns of groups (`groups of rank 3 and 2`: a full house) and runs of several of each value
(`run of rank, 2 of each`: stairs of pairs): hand-written cases, then the solver against a
brute-force oracle, wild cards and merged values included."""
import itertools
import random

from hypothesis import given, settings, strategies as st

from gamedsl.engine.patterns import Matcher, Shape, can_make, makes
from test_patterns import DECK, HIGH, LOW, cards

FULL_HOUSE = Shape(grouped="rank", groups=(3, 2))
TWO_PAIR = Shape(grouped="rank", groups=(2, 2))
STAIRS = Shape(run="rank", orders=(HIGH,), each=2)
STAIRS_ACE_LOW = Shape(run="rank", orders=(HIGH, LOW), each=2)


def test_a_full_house_is_three_of_one_rank_and_two_of_another():
    assert makes(DECK, FULL_HOUSE, 5, (), (), (), cards("9c 9h 9d 4s 4c"))
    assert not makes(DECK, FULL_HOUSE, 5, (), (), (), cards("9c 9h 9d 9s 4c"))   # four and one
    assert not makes(DECK, FULL_HOUSE, 5, (), (), (), cards("9c 9h 4d 4s Kc"))   # two pair and one
    assert not makes(DECK, FULL_HOUSE, 4, (), (), (), cards("9c 9h 9d 4s"))
    assert can_make(DECK, FULL_HOUSE, 5, (), (), (), cards("4s"), cards("2c 9c 9h Kd 9d 4c"))
    assert not can_make(DECK, FULL_HOUSE, 5, (), (), (), cards("4s Kd"), cards("2c 9c 9h 9d 4c"))


def test_two_pairs_are_two_groups_of_two_different_ranks():
    assert makes(DECK, TWO_PAIR, 4, (), (), (), cards("9c 9h 4d 4s"))
    assert not makes(DECK, TWO_PAIR, 4, (), (), (), cards("9c 9h 9d 9s"))


def test_stairs_are_pairs_of_consecutive_ranks():
    assert makes(DECK, STAIRS, 6, (), (), (), cards("5c 5h 6d 6s 7c 7h"))
    assert not makes(DECK, STAIRS, 6, (), (), (), cards("5c 5h 6d 6s 8c 8h"))   # a gap
    assert not makes(DECK, STAIRS, 6, (), (), (), cards("5c 5h 5d 6s 7c 7h"))   # three of one
    assert not makes(DECK, STAIRS, 5, (), (), (), cards("5c 5h 6d 6s 7c"))      # not pairs
    assert makes(DECK, STAIRS_ACE_LOW, 4, (), (), (), cards("Ac Ah 2d 2s"))
    assert not makes(DECK, STAIRS, 4, (), (), (), cards("Ac Ah 2d 2s"))
    assert can_make(DECK, STAIRS, 4, (), (), (), cards("Jc"), cards("Jh Qd 2c Qs"))
    assert not can_make(DECK, STAIRS, 4, (), (), (), cards("Jc"), cards("Jh Kd 2c Ks"))


def test_wild_cards_fill_a_group_or_a_place_of_the_stairs():
    wild = (("rank", frozenset(cards("2c 2d"))),)
    assert makes(DECK, FULL_HOUSE, 5, (), wild, (), cards("9c 9h 2c 4s 4c"))
    assert makes(DECK, FULL_HOUSE, 5, (), wild, (), cards("9c 9h 2c 2d 4c"))
    assert not makes(DECK, FULL_HOUSE, 5, (), wild, (), cards("9c 8h 2c 2d 4c"))
    assert makes(DECK, STAIRS, 6, (), wild, (), cards("5c 5h 6d 2c 7c 7h"))
    assert not makes(DECK, STAIRS, 6, (), wild, (), cards("5c 5h 5d 2c 7c 7h"))


def test_merged_values_count_as_one_group():
    # 9 and 10 count as one rank: 9 9 10 + 4 4 is a full house
    cls = tuple(7 if r == 8 else r for r in range(13))
    assert makes(DECK, FULL_HOUSE, 5, (), (), (("rank", cls),), cards("9c 9h Td 4s 4c"))
    assert not makes(DECK, FULL_HOUSE, 5, (), (), (), cards("9c 9h Td 4s 4c"))


# ---- the oracle: every way to give the wild cards a value, then count by class
def _values(c, wild, cls):
    if c in wild:
        return range(13)
    r = DECK["rank"][c]
    return (cls[r] if cls else r,)


def oracle_makes(shape, size, wild, cls, hand):
    if len(hand) != size:
        return False
    for vals in itertools.product(*(_values(c, wild, cls) for c in hand)):
        if shape.grouped:
            counts = sorted((vals.count(v) for v in set(vals)), reverse=True)
            if counts == list(shape.groups):
                return True
            continue
        for order in shape.orders:
            if any(c not in wild and order.position[c] is None for c in hand):
                continue
            # a wild card stands for a place of the order: its rank's place
            places = [order.position[c] if c not in wild else order.position[v * 4] for c, v in zip(hand, vals)]
            counts = {p: places.count(p) for p in places}
            low = min(places)
            if set(counts.values()) == {shape.each} and sorted(counts) == list(range(low, low + len(counts))):
                return True
    return False


def oracle_can_make(shape, size, wild, cls, chosen, pool):
    rest = [c for c in pool if c not in chosen]
    return any(oracle_makes(shape, size, wild, cls, list(chosen) + list(more))
               for more in itertools.combinations(rest, size - len(chosen)) if len(chosen) <= size)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([(FULL_HOUSE, 5), (TWO_PAIR, 4), (STAIRS, 4),
                                                     (STAIRS, 6), (STAIRS_ACE_LOW, 4)]),
       st.booleans(), st.booleans())
def test_the_solver_answers_as_the_oracle(seed, pattern, with_wild, merged):
    shape, size = pattern
    rng = random.Random(seed)
    # few ranks, so that groups and stairs are often there to be found
    ranks = rng.sample(range(13), 4)
    hand = rng.sample([r * 4 + s for r in ranks for s in range(4)], 7)
    wild = frozenset(rng.sample(hand, 1)) if with_wild else frozenset()
    cls = tuple(ranks[0] if r == ranks[1] else r for r in range(13)) if merged and shape.grouped else None
    chosen = hand[:rng.randint(0, 3)]
    pool = hand[len(chosen):]
    args = (DECK, shape, size, (), (("rank", wild),) if wild else (), (("rank", cls),) if cls else ())
    assert can_make(*args, chosen, pool) == oracle_can_make(shape, size, wild, cls, chosen, pool)
    assert makes(*args, hand[:size]) == oracle_makes(shape, size, wild, cls, hand[:size])
    m = Matcher(DECK)
    assert m.can_make(shape, size, *args[3:], chosen, pool) == can_make(*args, chosen, pool)
