"""Laus in plain Python, written without gamedsl: the speed baseline and the test oracle.

It follows the interpretations of games/laus.game exactly: every skat pass and
every player without a trick doubles the deal's scores (compounding), taking
every trick scores -120 doubled once per pass, and the last trick takes the skat.

Cards are ints 0..31: ``rank * 4 + suit`` with ranks 7 8 9 10 J Q K A and
suits clubs spades hearts diamonds, the order of ``cards rank * suit`` in the
.game file.
"""

from __future__ import annotations

import random
from typing import Callable, NamedTuple, Sequence

RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("♣", "♠", "♥", "♦")
CLUBS, SPADES, HEARTS, DIAMONDS = range(4)
JACK, QUEEN = RANKS.index("J"), RANKS.index("Q")


def card(rank: str, suit: str) -> int:
    """The id of a card given as a rank name and a suit symbol: card("J", "♣")."""
    return RANKS.index(rank) * 4 + SUITS.index(suit)


def card_name(c: int) -> str:
    """The short name of a card, like "10♥"."""
    return RANKS[c // 4] + SUITS[c % 4]


def parse_card(name: str) -> int:
    """The id of a card from its short name, like "10♥"."""
    return card(name[:-1], name[-1])


_POINTS_BY_RANK = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}
_PLAIN_ORDER = ("7", "8", "9", "Q", "K", "10", "A")   # low to high, jacks excluded
_BONUS_BY_SUIT = {CLUBS: 300, SPADES: 200, HEARTS: 100}

POINTS = [_POINTS_BY_RANK.get(RANKS[c // 4], 0) for c in range(32)]
BONUS = [_BONUS_BY_SUIT.get(c % 4, 0) if c // 4 == QUEEN else 0 for c in range(32)]
QUEEN_OF_DIAMONDS = card("Q", "♦")
# The family a card follows: 0 for the jacks (the trumps), else 1 + its suit.
FAMILY = [0 if c // 4 == JACK else 1 + c % 4 for c in range(32)]
# Never put back into the skat.
PUTBACK_OK = [c // 4 not in (JACK, QUEEN) for c in range(32)]


def _strength(c: int, led: int) -> int:
    """How strongly c bids for a trick whose led family is `led` (0 = cannot win)."""
    if FAMILY[c] == 0:
        return 10 + (4 - c % 4)          # J♣ 14 > J♠ 13 > J♥ 12 > J♦ 11
    if FAMILY[c] == led:
        return 1 + _PLAIN_ORDER.index(RANKS[c // 4])
    return 0


STRENGTH = [[_strength(c, led) for c in range(32)] for led in range(5)]

# The deal, batch by batch: a number of cards to each player, or "skat" for 2 to the skat.
_DEAL_PLAN = {3: (3, "skat", 4, 3), 4: (3, 2, 3)}


def _deal_positions(n: int) -> tuple[list[list[int]], list[int]]:
    """Deck positions that go to the k-th player from the dealer's left, and to the skat."""
    positions: list[list[int]] = [[] for _ in range(n)]
    skat: list[int] = []
    i = 0
    for batch in _DEAL_PLAN[n]:
        if batch == "skat":
            skat += [i, i + 1]
            i += 2
        else:
            for k in range(n):
                positions[k] += range(i, i + batch)
                i += batch
    assert i == 32
    return positions, skat


DEAL_POSITIONS = {n: _deal_positions(n) for n in _DEAL_PLAN}


def deal(deck: Sequence[int], dealer: int, n: int) -> tuple[list[list[int]], list[int]]:
    """Deal a shuffled deck in batches starting at the dealer's left: (hands by seat, skat)."""
    positions, skat_positions = DEAL_POSITIONS[n]
    hands: list[list[int]] = [[] for _ in range(n)]
    for k, where in enumerate(positions):
        hands[(dealer + 1 + k) % n] = sorted([deck[i] for i in where])
    return hands, [deck[i] for i in skat_positions]


def score_deal(won: list[list[int]], tricks: list[int], passes: int) -> list[int]:
    """What a deal adds to each seat's total, from the cards and tricks each seat took."""
    factor = 2 ** passes * 2 ** tricks.count(0)
    n_tricks = sum(tricks)
    scores = []
    for pile, taken in zip(won, tricks):
        if taken == n_tricks:
            scores.append(-120 * 2 ** passes)
        else:
            bonus = 0 if QUEEN_OF_DIAMONDS in pile else sum(BONUS[c] for c in pile)
            scores.append((sum(POINTS[c] for c in pile) + bonus) * factor)
    return scores


class DealResult(NamedTuple):
    """What one deal produced."""
    trick_winners: list[int]    # seat that won each trick, in order
    scores: list[int]           # what the deal adds to each seat's total
    tricks: list[int]           # tricks taken per seat
    points: list[int]           # card points taken per seat (skat included)
    won: list[list[int]]        # cards taken per seat (skat included)
    passes: int                 # skat passes
    moves: int                  # decisions: looks, passes, put-backs, plays


# Policies get the deciding seat and its options; a Look policy gets the seat and its hand.
Look = Callable[[int, list], bool]
Choose = Callable[[int, list], int]


def play_deal(hands: list[list[int]], skat: list[int], dealer: int,
              look: Look, put_back: Choose, play: Choose) -> DealResult:
    """Play one deal from the given hands (mutated) and skat; policies make every decision.

    `look(seat, hand)` says whether the seat looks at the skat (else it passes);
    `put_back(seat, legal)` and `play(seat, legal)` return one card of `legal`,
    which is always sorted by card id.
    """
    n = len(hands)
    order = [(dealer + 1 + k) % n for k in range(n)]
    for hand in hands:
        hand.sort()
    skat = list(skat)
    passes = moves = 0
    if skat:
        for seat in order:
            moves += 1
            if not look(seat, hands[seat]):
                passes += 1
                continue
            hand = hands[seat]
            hand += skat
            hand.sort()
            skat = []
            for _ in range(2):
                c = put_back(seat, [c for c in hand if PUTBACK_OK[c]])
                hand.remove(c)
                skat.append(c)
                moves += 1

    n_tricks = len(hands[0])
    won: list[list[int]] = [[] for _ in range(n)]
    tricks = [0] * n
    winners = []
    leader = order[0]
    for _ in range(n_tricks):
        hand = hands[leader]
        c = play(leader, hand)
        hand.remove(c)
        led = FAMILY[c]
        strength = STRENGTH[led]
        trick = [c]
        winner, best = leader, strength[c]
        seat = leader
        for _ in range(n - 1):
            seat = seat + 1 if seat + 1 < n else 0
            hand = hands[seat]
            c = play(seat, [c for c in hand if FAMILY[c] == led] or hand)
            hand.remove(c)
            trick.append(c)
            if strength[c] > best:
                winner, best = seat, strength[c]
        won[winner] += trick
        tricks[winner] += 1
        winners.append(winner)
        leader = winner
    moves += n_tricks * n
    won[leader] += skat             # the last trick takes the skat

    points = [sum(POINTS[c] for c in pile) for pile in won]
    scores = score_deal(won, tricks, passes)
    return DealResult(winners, scores, tricks, points, won, passes, moves)


class GameResult(NamedTuple):
    """What a whole game produced."""
    scores: list[int]       # final totals
    deals: int
    moves: int


def play_game(n_players: int, rng: random.Random, look: Look, put_back: Choose,
              play: Choose, target: int = 1500) -> GameResult:
    """Play deals from a random first dealer until a total reaches the target."""
    dealer = rng.randrange(n_players)
    scores = [0] * n_players
    deals = moves = 0
    deck = list(range(32))
    while True:
        rng.shuffle(deck)
        hands, skat = deal(deck, dealer, n_players)
        result = play_deal(hands, skat, dealer, look, put_back, play)
        deals += 1
        moves += result.moves
        for seat, s in enumerate(result.scores):
            scores[seat] += s
        if max(scores) >= target:
            return GameResult(scores, deals, moves)
        dealer = (dealer + 1) % n_players


def random_game(n_players: int, seed: int, target: int = 1500) -> GameResult:
    """A whole game where every decision is a uniformly random legal one."""
    rng = random.Random(seed)
    choice = rng.choice

    def look(seat: int, hand: list) -> bool:
        return choice((True, False))

    def pick(seat: int, legal: list) -> int:
        return choice(legal)

    return play_game(n_players, rng, look, pick, pick, target)


def play_random_game(n_players: int, seed: int, target: int = 1500) -> int:
    """Play a random game and return its number of moves (the benchmark unit)."""
    return random_game(n_players, seed, target).moves


def loser_seats(scores: Sequence[int]) -> list[int]:
    """The seats with the highest total: they lose (laus.game's tie interpretation)."""
    top = max(scores)
    return [seat for seat, s in enumerate(scores) if s == top]


if __name__ == "__main__":
    for n in (3, 4):
        r = random_game(n, seed=1)
        print(f"{n} players: {r.deals} deals, {r.moves} moves, scores {r.scores}, "
              f"losers {loser_seats(r.scores)}")
