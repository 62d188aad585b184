"""Hold'em's hand ranking (games/holdem.game, its `score`) against an independent evaluator written
here in plain Python (the best five of seven cards, by brute force): every category and kicker
situation of a 7-card hand, and many random hands, must be ordered the same by both."""
import itertools
import random
import re
from functools import lru_cache
from pathlib import Path

import pytest

import gamedsl

ROOT = Path(__file__).resolve().parent.parent
RANKS = "23456789TJQKA"
SUITS = "cshd"
SYMBOL = {"c": "♣", "s": "♠", "h": "♥", "d": "♦"}


# ---- the independent evaluator --------------------------------------------------
def five(cards) -> tuple:
    """(category, tie-breaks) of five cards ('As', 'Td', ...): higher is better."""
    values = sorted((RANKS.index(c[0]) + 2 for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    distinct = sorted(set(values), reverse=True)
    straight = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight = distinct[0]
    elif distinct == [14, 5, 4, 3, 2]:
        straight = 5
    by_count = sorted(((values.count(v), v) for v in distinct), reverse=True)
    shape = [n for n, _ in by_count]
    order = [v for _, v in by_count]
    if straight and flush:
        return 8, (straight,)
    if shape == [4, 1]:
        return 7, tuple(order)
    if shape == [3, 2]:
        return 6, tuple(order)
    if flush:
        return 5, tuple(values)
    if straight:
        return 4, (straight,)
    if shape == [3, 1, 1]:
        return 3, tuple(order)
    if shape == [2, 2, 1]:
        return 2, tuple(order)
    if shape == [2, 1, 1, 1]:
        return 1, tuple(order)
    return 0, tuple(values)


def seven(cards) -> tuple:
    return max(five(c) for c in itertools.combinations(cards, 5))


# ---- the game's ranking ----------------------------------------------------------
@lru_cache(maxsize=None)
def ranker():
    """A game made of Hold'em's ranking, as written in games/holdem.game, and a move that says
    P1's score for the cards put in P1's hand and on the board."""
    text = (ROOT / "games" / "holdem.game").read_text(encoding="utf-8")
    head = text[text.index("attribute rank"):text.index("zone deck")]
    ranking = text[text.index("# ---- hands"):text.index("# ---- betting")]
    return gamedsl.load_source(f'''game "Ranking"
players 2
{head}
zone deck: hidden, stack
zone hand per player: owner
zone board: public
{ranking}
action go "go" {{ say "{{hand_score(me)}}" to me }}
round {{ turn seat(1) {{ choose go }} }}
''', "ranking.game")


def name(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SYMBOL[card[1]]


def game_score(cards) -> tuple:
    """The game's score of P1 holding cards[:2] with cards[2:] on the board."""
    game = ranker()
    state = game.new_state(players=2, seed=0)
    hand, board = game.zone_instance("hand", 0), game.zone_instance("board")
    state.rig({hand: game.parse_cards([name(c) for c in cards[:2]]),
               board: game.parse_cards([name(c) for c in cards[2:]])}, rest=game.zone_instance("deck"))
    state.apply_action(state.legal_actions()[0])
    return tuple(int(x) for x in str(state.log[-1][2]).split(", "))


# ---- hands of every category and kicker situation -----------------------------------
CLASSES = {
    "royal flush": "As Ks Qs Js Ts 2d 3c",
    "straight flush, a flush card above it": "9h 8h 7h 6h 5h Ah 2c",
    "straight flush over a higher straight": "9h 8h 7h 6h 5h Tc Jd",
    "steel wheel": "Ad 2d 3d 4d 5d Kd 9c",
    "steel wheel and a 6 of another suit": "Ad 2d 3d 4d 5d 6c 9c",
    "quads, kicker from a pair": "7c 7d 7h 7s 2c 2d Kh",
    "quads, kicker from trips": "7c 7d 7h 7s 3c 3d 3h",
    "quads on the board, kicker in hand": "Ac 2d 9c 9d 9h 9s Kd",
    "full house, two sets": "Kc Kd Kh 4c 4d 4h 2s",
    "full house, set and two pairs": "5c 5d 5h Qc Qd 3c 3s",
    "full house, low set, high pair": "2c 2d 2h Ac Ad 7c 9s",
    "flush of seven": "2h 4h 6h 8h Th Qh Ah",
    "flush of six, the lowest left out": "3c 5c 7c 9c Jc Kc Ad",
    "flush with a straight not of its suit": "2s 6s 8s Ts Qs 9d 7c",
    "flush and a set": "Kh Kd Ks 2h 7h 9h Jh",
    "straight of seven cards": "4c 5d 6h 7s 8c 9d Th",
    "straight with a pair": "Tc Jd Qh Kc Ad Ac 3s",
    "wheel": "Ac 2d 3h 4s 5c Kd Qh",
    "six-high straight over a wheel": "Ac 2d 3h 4s 5c 6d Qh",
    "broadway": "Tc Jd Qh Ks Ac 3d 2h",
    "almost a straight (a gap)": "Ac Kd Qh Js 9c 3d 2h",
    "set with kickers": "8c 8d 8h Ac Jd 4s 2h",
    "two pair of three, highest two and best kicker": "Ac Ad Kc Kd 2c 2d 7h",
    "two pair, the third pair a kicker": "Ac Ad 3c 3d Qc Qd 2h",
    "two pair, a single kicker above the third pair": "9c 9d 4c 4d 2c 2d Kh",
    "one pair with three kickers": "Jc Jd 9h 7s 5c 3d 2h",
    "high card": "Ac Qd 9h 7s 5c 3d 2h",
    "high card, the two lowest left out": "Kc Qd 9h 7s 6c 4d 2h",
}


def cards_of(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("label", sorted(CLASSES))
def test_each_category_and_kicker_situation_scores_as_the_independent_evaluator(label):
    cards = cards_of(CLASSES[label])
    ours, theirs = game_score(cards), seven(cards)
    assert ours == (theirs[0], *theirs[1]), label


def nearby(rng: random.Random, base: list[str]) -> list[str]:
    """A hand like `base` with one card changed: a kicker, a suit, a rank one step away."""
    deck = [r + s for r in RANKS for s in SUITS]
    cards = list(base)
    i = rng.randrange(7)
    choices = [c for c in deck if c not in cards]
    cards[i] = rng.choice(choices)
    return cards


def check_same_order(hands: list[list[str]]):
    """The game's scores order the hands as the evaluator does, ties included."""
    scored = sorted(((seven(h), game_score(h), h) for h in hands), key=lambda x: x[0])
    for (a, ga, ha), (b, gb, hb) in zip(scored, scored[1:]):
        if a == b:
            assert ga == gb, (ha, hb, ga, gb)
        else:
            assert ga < gb, (ha, ga, hb, gb)


def test_every_class_and_its_neighbours_are_ordered_as_the_independent_evaluator_orders_them():
    rng = random.Random(7)
    hands = [cards_of(t) for t in CLASSES.values()]
    hands += [nearby(rng, h) for h in hands for _ in range(12)]
    check_same_order(hands)


def test_random_hands_are_ordered_as_the_independent_evaluator_orders_them():
    rng = random.Random(30)
    deck = [r + s for r in RANKS for s in SUITS]
    hands = [rng.sample(deck, 7) for _ in range(1500)]
    hands += [[h[0], h[1]] + board for h in hands[:300] for board in [rng.sample(
        [c for c in deck if c not in h[:2]], 5)]]
    check_same_order(hands)
    assert {seven(h)[0] for h in hands} >= {0, 1, 2, 3, 4, 5, 6}  # random hands reach most categories


def test_the_ranking_is_a_few_lines_of_the_game():
    text = (ROOT / "games" / "holdem.game").read_text(encoding="utf-8")
    ranking = text[text.index("# ---- hands"):text.index("# ---- betting")].strip().splitlines()
    assert len(ranking) <= 30
    assert re.search(r"sorted\(c in h by \[many\(h, c\), c\.high\] descending\)", text)


def test_the_reference_quotes_the_ranking_as_the_game_has_it():
    text = (ROOT / "games" / "holdem.game").read_text(encoding="utf-8")
    ranking = text[text.index("# ---- hands"):text.index("# ---- betting")].strip()
    assert ranking in (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
