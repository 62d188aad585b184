"""Patterns (melds): hand-written cases on a 52-card deck, and the fast matcher against a brute-force oracle."""
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gamedsl.engine.patterns import Matcher, Order, Shape, can_make, makes

# ---- a standard deck: rank 2..A (0..12), suit clubs, spades, hearts, diamonds (0..3), id = rank*4 + suit
RANKS, SUITS = "23456789TJQKA", "cshd"
CLUBS, SPADES, HEARTS, DIAMONDS = range(4)
ACE, FIVE = 12, 3
DECK = {"rank": tuple(c // 4 for c in range(52)), "suit": tuple(c % 4 for c in range(52))}
HIGH = Order(position=tuple(c // 4 for c in range(52)), positions=tuple(range(13)))
LOW = Order(position=tuple(1 if c // 4 == ACE else c // 4 + 2 for c in range(52)), positions=tuple(range(1, 14)))
KIND = Shape(same=("rank",))
FLUSH = Shape(same=("suit",))
STRAIGHT = Shape(run="rank", orders=(HIGH, LOW))
STRAIGHT_FLUSH = Shape(same=("suit",), run="rank", orders=(HIGH, LOW))
FIVES = frozenset(FIVE * 4 + s for s in range(4))


def cards(text: str) -> tuple[int, ...]:
    return tuple(RANKS.index(t[0]) * 4 + SUITS.index(t[1]) for t in text.split())


def deck_makes(shape, text, size=None, withs=(), wild=(), classes=()):
    hand = cards(text)
    return makes(DECK, shape, len(hand) if size is None else size, withs, wild, classes, hand)


def deck_can_make(shape, size, chosen, pool, withs=(), wild=(), classes=()):
    return can_make(DECK, shape, size, withs, wild, classes, cards(chosen), cards(pool))


def test_three_of_a_kind():
    assert deck_makes(KIND, "7c 7h 7d")
    assert not deck_makes(KIND, "7c 7h 8d")
    assert deck_can_make(KIND, 3, "", "2c 7c 9s 7h Kd 7d")
    assert not deck_can_make(KIND, 3, "", "2c 7c 9s 7h Kd 9d")


def test_four_of_a_kind_is_not_three_of_a_kind():
    assert not deck_makes(KIND, "7c 7h 7d 7s", size=3)
    assert deck_makes(KIND, "7c 7h 7d 7s", size=4)
    assert deck_can_make(KIND, 3, "", "7c 7h 7d 7s")   # three of the four do


def test_straights_ace_high_or_low_never_around_the_corner():
    assert deck_makes(STRAIGHT, "Jc Qh Kd As")
    assert deck_makes(STRAIGHT, "Ah 2c 3d 4s")
    assert not deck_makes(STRAIGHT, "Kc Ah 2d 3s")
    assert not deck_makes(STRAIGHT, "Qc Kh Ad 2s")
    assert not deck_makes(STRAIGHT, "Jc Qh Qd As")
    assert deck_can_make(STRAIGHT, 4, "", "2c 9h Kd Jd Ts 4s Qc")
    assert not deck_can_make(STRAIGHT, 4, "", "2c 9h Kd Jd 4s Qc")


def test_flush_and_straight_flush():
    assert deck_makes(FLUSH, "2h 7h 9h Jh Ah")
    assert not deck_makes(FLUSH, "2h 7h 9h Jh As")
    assert deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh Kh")
    assert deck_makes(STRAIGHT_FLUSH, "Ah 2h 3h 4h 5h")
    assert not deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh Ks")
    assert not deck_makes(STRAIGHT_FLUSH, "2h 7h 9h Jh Ah")
    assert deck_can_make(STRAIGHT_FLUSH, 5, "", "9s Th Jh Qh Ah Kh 9h")
    assert not deck_can_make(STRAIGHT_FLUSH, 5, "", "9s Th Jh Qh Ah Ks 8d")


def test_wild_rank_completes_a_kind_and_fills_a_gap():
    wild = (("rank", FIVES),)
    assert deck_makes(KIND, "7c 7h 5d", wild=wild)
    assert not deck_makes(KIND, "7c 7h 5d")
    assert deck_makes(STRAIGHT, "6c 5h 8d 9s", wild=wild)
    assert not deck_makes(STRAIGHT, "6c 5h 8d 9s")
    assert deck_makes(STRAIGHT, "5c 5h 8d 9s", wild=wild)
    assert deck_can_make(STRAIGHT, 4, "", "6c 8d 9s 5h Kd", wild=wild)
    assert not deck_can_make(STRAIGHT, 4, "", "6c 9d Ts 5h Kd", wild=wild)


def test_wild_suit_in_a_flush():
    wild = (("suit", FIVES),)
    assert deck_makes(FLUSH, "2h 7h 9h Jh 5c", wild=wild)
    assert not deck_makes(FLUSH, "2h 7h 9h Jh 5c")
    assert not deck_makes(FLUSH, "2h 7h 9h Js 5c", wild=wild)


def test_wildness_is_per_attribute_in_a_straight_flush():
    rank_only = (("rank", FIVES),)
    assert not deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh 5c", wild=rank_only)   # the 5 is still a club
    assert deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh 5h", wild=rank_only)
    assert deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh 5c", wild=rank_only + (("suit", FIVES),))
    suit_only = (("suit", FIVES),)
    assert deck_makes(STRAIGHT_FLUSH, "3h 4h 5c 6h 7h", wild=suit_only)      # the 5 keeps its place
    assert not deck_makes(STRAIGHT_FLUSH, "9h Th Jh Qh 5c", wild=suit_only)
    assert not deck_makes(STRAIGHT_FLUSH, "3h 4h 5c 6h 7h")


def test_merged_suits_make_one_flush():
    spades_clubs = (("suit", (0, 0, 2, 3)),)
    assert deck_makes(FLUSH, "2c 5s 7c 9s Jc", classes=spades_clubs)
    assert not deck_makes(FLUSH, "2c 5s 7c 9s Jc")
    assert not deck_makes(FLUSH, "2c 5s 7h 9s Jc", classes=spades_clubs)
    all_one = (("suit", (0, 0, 0, 0)),)   # clubs~spades, spades~hearts, hearts~diamonds, closed by the caller
    assert deck_makes(FLUSH, "2c 5s 7h 9d Jc", classes=all_one)


def test_with_hearts_on_a_straight():
    hearts = (("suit", HEARTS),)
    assert deck_makes(STRAIGHT, "9c Th Jd Qs", withs=hearts)
    assert not deck_makes(STRAIGHT, "9c Ts Jd Qs", withs=hearts)
    assert deck_makes(STRAIGHT, "5c 6s 7d 8s", withs=hearts, wild=(("suit", FIVES),))
    assert not deck_makes(STRAIGHT, "5c 6s 7d 8s", withs=hearts, wild=(("rank", FIVES),))
    assert deck_makes(STRAIGHT, "9c Ts Jd Qs", withs=hearts, classes=(("suit", (0, 1, 1, 3)),))
    assert deck_can_make(STRAIGHT, 4, "Jc Ts", "9d Qs Ks Kh", withs=hearts)
    assert not deck_can_make(STRAIGHT, 4, "Jc Ts", "9d Qs Ks Ah", withs=hearts)   # J Q K A leaves out the T
    assert not deck_can_make(STRAIGHT, 4, "9c Ts Jd Qs", "5h", withs=hearts, wild=(("rank", FIVES),))   # no room


def test_with_two_hearts_on_a_straight_needs_two_cards():
    two_hearts = (("suit", HEARTS, 2),)
    assert deck_makes(STRAIGHT, "9h Th Jd Qs", withs=two_hearts)
    assert not deck_makes(STRAIGHT, "9c Th Jd Qs", withs=two_hearts)
    assert deck_makes(STRAIGHT, "5c 6h 7d 8s", withs=two_hearts, wild=(("suit", FIVES),))   # the wild 5 is one
    assert not deck_makes(STRAIGHT, "5c 6s 7d 8s", withs=two_hearts, wild=(("suit", FIVES),))
    assert deck_can_make(STRAIGHT, 4, "Th", "9h Jd Qs Kh", withs=two_hearts)
    assert not deck_can_make(STRAIGHT, 4, "Th", "9c Jd Qs Ks Ah", withs=two_hearts)      # T J Q K: one heart
    diamonds_are_hearts = (("suit", (0, 1, 2, 2)),)
    assert deck_makes(STRAIGHT, "9d Th Jc Qs", withs=two_hearts, classes=diamonds_are_hearts)
    assert deck_makes(FLUSH, "2h 7h 9h", withs=(("suit", HEARTS, 3),))
    assert not deck_makes(FLUSH, "2h 7h", withs=(("suit", HEARTS, 3),))                   # more than its size


def test_with_hearts_on_a_flush_needs_the_hearts_class():
    hearts = (("suit", HEARTS),)
    assert deck_makes(FLUSH, "2h 7h 9h Jh Ah", withs=hearts)
    assert not deck_makes(FLUSH, "2s 7s 9s Js As", withs=hearts)
    assert not deck_makes(FLUSH, "2s 7s 9s Js 5h", withs=hearts, wild=(("suit", FIVES),))
    assert deck_makes(FLUSH, "2s 7s 9s Js As", withs=hearts, classes=(("suit", (0, 2, 2, 3)),))
    assert deck_makes(FLUSH, "5s 5c 5d", withs=hearts, wild=(("suit", FIVES),))   # all wild: any suit
    assert deck_can_make(FLUSH, 5, "", "2s 7s 9s Js As 2h 3h 4h 6h 8h", withs=hearts)
    assert not deck_can_make(FLUSH, 5, "", "2s 7s 9s Js As 2h 3h 4h 6h 8d", withs=hearts)


def test_with_a_rank_on_a_straight():
    ace = (("rank", ACE),)
    wild = (("rank", FIVES),)
    assert deck_makes(STRAIGHT, "Jc Qh Kd As", withs=ace)
    assert not deck_makes(STRAIGHT, "Tc Jh Qd Ks", withs=ace)
    assert deck_makes(STRAIGHT, "Jc Qh Kd 5s", withs=ace, wild=wild)        # the wild 5 is the ace
    assert not deck_makes(STRAIGHT, "9c Th Jd 5s", withs=ace, wild=wild)    # no window reaches the ace
    assert deck_makes(STRAIGHT, "2c 3h 4d 5s", withs=ace, wild=wild)        # the wild 5 is the low ace


def test_merged_ranks_keep_their_own_places_in_a_run():
    nine_is_ten = (("rank", tuple(7 if r == 8 else r for r in range(13))),)
    hearts = (("suit", HEARTS),)
    assert deck_can_make(STRAIGHT, 4, "Jc Qd Ks", "9h Th", withs=hearts, classes=nine_is_ten)
    assert not deck_can_make(STRAIGHT, 4, "Jc Qd Ks", "9h 8h", withs=hearts, classes=nine_is_ten)
    assert not deck_makes(STRAIGHT, "9c Jd Qs Kh", classes=nine_is_ten)   # the 9 is no ten here
    # a required rank is met by any rank of its class
    assert deck_makes(STRAIGHT, "Tc Jd Qs Kh", withs=(("rank", 7),), classes=nine_is_ten)


def test_a_required_run_value_needs_its_own_place_when_places_are_shared():
    # values 1 and 2 share position 1; the wild card must take it for value 1, and then the 2 cannot fit
    attrs_ = {"v": (0, 2, 3, 3, 1)}
    order = Order(position=(0, 1, 2, 2, 1), positions=(0, 1, 2))
    shape = Shape(run="v", orders=(order,))
    wild = (("v", frozenset({2})),)
    need_one = (("v", 1),)
    assert not can_make(attrs_, shape, 3, need_one, wild, (), (), (0, 1, 2))
    assert can_make(attrs_, shape, 3, need_one, wild, (), (), (0, 1, 2, 3))   # 0, the wild card as 1, 3
    assert can_make(attrs_, shape, 3, (), wild, (), (), (0, 1, 2))


def test_duplicates_and_impossible_choices():
    assert deck_can_make(KIND, 2, "7c", "7c 7h 8d")
    assert not deck_can_make(KIND, 3, "7c", "7c 7h 8d")          # 7c counts once
    assert not deck_can_make(KIND, 2, "7c 7h 7d", "7s")            # more chosen than the size
    assert not deck_can_make(KIND, 3, "8d", "7c 7h 7s 8c")         # the chosen 8 cannot belong
    assert deck_can_make(KIND, 3, "7d", "7c 7h 7s 8c")
    assert not deck_makes(KIND, "7c 7h", size=3)


def test_matcher_memoises_and_stays_bounded():
    m = Matcher(DECK, max_entries=3)
    hand = cards("2c 7c 9s 7h Kd 7d")
    assert m.can_make(KIND, 3, (), (), (), (), hand)
    assert m.can_make(KIND, 3, (), (), (), (), tuple(reversed(hand)))   # same key: pool taken as a set
    assert len(m._cache) == 1
    assert not m.can_make(KIND, 4, (), (), (), (), hand)
    assert m.makes(STRAIGHT, 4, (), (), (), cards("Jc Qh Kd As"))
    assert not m.makes(STRAIGHT, 4, (), (), (), cards("Kc Ah 2d 3s"))
    assert len(m._cache) <= 3
    m.clear()
    assert not m._cache


# ---- the oracle: every subset of the pool, every class, order, window and placement of wild cards
def oracle_makes(card_attrs, nvalues, shape, size, withs, wild, classes, hand):
    """Straight from the rules, by enumeration."""
    if len(hand) != size or len(set(hand)) != size:
        return False
    wild, classes = dict(wild), dict(classes)

    def wild_for(a, c):
        return c in wild.get(a, frozenset())

    def cls(a, v):
        return classes[a][v] if a in classes else v

    def has_class(a, c, k):
        v = card_attrs[a][c]
        return v >= 0 and cls(a, v) == k

    shared_options = []
    for a in shape.same:
        every = {cls(a, v) for v in range(nvalues[a])}
        shared_options.append([k for k in every if all(wild_for(a, c) or has_class(a, c, k) for c in hand)])
    placements = [None] if shape.run is None else list(run_placements(card_attrs, shape, size, wild_for, hand))
    for shared in itertools.product(*shared_options):
        shared = dict(zip(shape.same, shared))
        for placed in placements:
            if all(oracle_with(card_attrs, shape, wild_for, cls, has_class, hand, shared, placed, *w)
                   for w in withs):
                return True
    return False


def run_placements(card_attrs, shape, size, wild_for, hand):
    """Every (order, {card: position}) putting the hand one card per position of a window of the order."""
    fixed = [c for c in hand if not wild_for(shape.run, c)]
    wilds = [c for c in hand if wild_for(shape.run, c)]
    for order in shape.orders:
        have = set(order.positions)
        for p in range(min(have, default=0), max(have, default=-1) + 1):
            window = set(range(p, p + size))
            if not window <= have:
                continue
            at = [order.position[c] for c in fixed]
            if any(q not in window for q in at) or len(set(at)) != len(at):
                continue
            free = sorted(window - set(at))
            for spots in itertools.permutations(free, len(wilds)):
                yield order, {**dict(zip(fixed, at)), **dict(zip(wilds, spots))}


def oracle_with(card_attrs, shape, wild_for, cls, has_class, hand, shared, placed, a, v, n=1):  # noqa: PLR0913
    """n cards of the hand have value v of `a` (on the run attribute: one card, whatever n)."""
    k = cls(a, v)
    if a in shape.same and shared[a] != k and not all(wild_for(a, c) for c in hand):
        return False
    if a != shape.run:
        return sum(1 for c in hand if wild_for(a, c) or has_class(a, c, k)) >= n
    order, where = placed
    for c in hand:
        if not wild_for(a, c) and has_class(a, c, k):
            return True
        if wild_for(a, c) and any(order.position[d] == where[c] and has_class(a, d, k)
                                  for d in range(len(order.position))):
            return True
    return False


def oracle_can_make(card_attrs, nvalues, shape, size, withs, wild, classes, chosen, pool):
    rest = [c for c in pool if c not in chosen]
    if len(chosen) > size:
        return False
    return any(oracle_makes(card_attrs, nvalues, shape, size, withs, wild, classes, tuple(chosen) + extra)
               for extra in itertools.combinations(rest, size - len(chosen)))


ATTRS = ("x", "y", "z")


def random_order(rnd, values, length, hole, how):
    """An order over positions lo..lo+length-1, maybe with a hole: value v at lo + v (as in a deck),
    at lo + v shifted round (like ace low), a random position per value, or one per card."""
    lo = rnd.randrange(3)
    positions = list(range(lo, lo + length))
    if hole and length > 2:
        positions.remove(rnd.choice(positions[1:-1]))

    def anywhere():
        return rnd.choice(positions + [None])

    if how == 3:
        return Order(position=tuple(anywhere() for _ in values), positions=tuple(positions))
    by_value = [lo + v if lo + v in positions else None for v in range(5)]
    if how == 1:
        shift = rnd.randrange(5)
        by_value = by_value[shift:] + by_value[:shift]
    elif how == 2:
        by_value = [anywhere() for _ in range(5)]
    return Order(position=tuple(by_value[v] if v >= 0 else None for v in values), positions=tuple(positions))


@st.composite
def problems(draw, runs=False):
    """A random small deck and question: hypothesis draws the sizes and kinds, a seeded Random the tables.

    With `runs`, every question has a run, and wild cards and required values for its attribute.
    """
    # hypothesis favours (and shrinks to) the first option of each choice: the first is a typical value
    n = draw(st.sampled_from([8, 3, 4, 5, 6, 7, 9, 10]))
    nvalues = dict(zip(ATTRS, draw(st.tuples(*[st.sampled_from([4, 1, 2, 3, 5])] * len(ATTRS)))))
    run = draw(st.sampled_from(ATTRS) if runs else st.one_of(st.none(), st.sampled_from(ATTRS)))
    # a `same` on the run attribute rarely holds (it needs merged values or wild cards): drawn less often
    same_as_run = draw(st.integers(0, 7)) == 0
    same = tuple(draw(st.lists(st.sampled_from([a for a in ATTRS if a != run or same_as_run]),
                               unique=True, max_size=2)))
    order_kinds = draw(st.lists(st.tuples(st.sampled_from([5, 1, 2, 3, 4, 6]), st.booleans(), st.integers(0, 3)),
                                min_size=1, max_size=2)) if run else []
    n_withs = draw(st.integers(0, 2))
    repeats = draw(st.sampled_from([0, 1, 2]))  # the first required value asked for 1 + repeats times
    n_wild = {a: draw(st.integers(0, 3)) for a in ATTRS if (runs and a == run) or draw(st.booleans())}
    merged = [a for a in ATTRS if draw(st.booleans())]
    n_chosen = draw(st.integers(0, 3))
    n_pool = draw(st.sampled_from([6, 0, 1, 2, 3, 4, 5, 7, 8]))
    size = draw(st.sampled_from([3, 1, 2, 4, 5]))
    knobs = (n, nvalues, run, same, order_kinds, n_withs, repeats, n_wild, merged, n_chosen, n_pool, size)
    # hypothesis often draws the seed 0: the other draws go into the seed, so the tables still vary
    rnd = random.Random(repr((draw(st.integers(0, 2**32 - 1)), knobs)))

    card_attrs = {a: tuple(-1 if rnd.random() < 0.1 else rnd.randrange(nvalues[a]) for _ in range(n))
                  for a in ATTRS}
    orders = tuple(random_order(rnd, card_attrs[run], *kind) for kind in order_kinds)
    withs = tuple((a, rnd.randrange(nvalues[a])) for a in rnd.choices(ATTRS, k=n_withs))
    if withs and repeats:
        withs = ((*withs[0], 1 + repeats),) + withs[1:]   # n cards of the first required value
    if runs:
        withs += ((run, rnd.randrange(nvalues[run])),)
    wild = tuple((a, frozenset(rnd.sample(range(n), min(k, n)))) for a, k in n_wild.items())
    classes = tuple((a, tuple(rnd.randrange(3) for _ in range(nvalues[a]))) for a in merged)
    chosen = tuple(rnd.sample(range(n), min(n_chosen, n)))
    pool = tuple(rnd.sample(range(n), min(n_pool, n)))
    size = min(size, len(set(chosen) | set(pool)) + 1)   # mostly sizes the cards could reach
    return card_attrs, nvalues, Shape(same=same, run=run, orders=orders), size, withs, wild, classes, chosen, pool


ORACLE = settings(max_examples=1200, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@ORACLE
@given(st.one_of(problems(), problems(runs=True)))
def test_makes_and_can_make_agree_with_the_oracle(problem):
    card_attrs, nvalues, shape, size, withs, wild, classes, chosen, pool = problem
    question = (shape, size, withs, wild, classes)
    matcher = Matcher(card_attrs)
    for some in (chosen, chosen[:1], ()):
        want = oracle_can_make(card_attrs, nvalues, *question, some, pool)
        assert can_make(card_attrs, *question, some, pool) == want, some
        assert matcher.can_make(*question, some, pool) == want, some
    cards_seen = tuple(dict.fromkeys(chosen + pool))[:7]
    for hand in itertools.chain(itertools.combinations(cards_seen, size), [cards_seen[:size - 1]]):
        want = oracle_makes(card_attrs, nvalues, *question, hand)
        assert makes(card_attrs, *question, hand) == want, hand
        assert matcher.makes(*question, hand) == want, hand


@pytest.mark.parametrize("runs", [False, True])
def test_the_oracle_test_finds_patterns_often_enough_to_mean_something(runs):
    found = []

    @settings(ORACLE, max_examples=200)
    @given(problems(runs=runs))
    def collect(problem):
        found.append(oracle_can_make(*problem))

    collect()
    assert sum(found) >= len(found) // (20 if runs else 8)
