"""The best arrangement of a hand into melds (engine/patterns.py `arrange`), timed on random hands of
a 52-card deck with gin rummy's melds: sets of 3 or 4 of a rank, runs of at least 3 in a suit (ace
low), deadwood by face value (court cards 10). Each hand is arranged afresh (no memo), so the
figures are what a hand not seen before costs; the engine's Matcher memoises repeats.

    python bench/melds.py                  # 10-card hands (and 11), 2000 of each, and 10 cards of A..5
    python bench/melds.py --hands 500 --sizes 7,10,11,13
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamedsl.engine.patterns import Matcher, Order, Shape, Spec, arrange  # noqa: E402

DECK = {"rank": tuple(c // 4 for c in range(52)), "suit": tuple(c % 4 for c in range(52))}
LOW = Order(position=tuple(c // 4 for c in range(52)), positions=tuple(range(13)))
PATTERNS = ((Shape(same=("suit",), run="rank", orders=(LOW,)), Spec(3, most=1 << 20)),
            (Shape(same=("rank",)), Spec(3, most=4)))
POINTS = tuple(min(10, c // 4 + 1) for c in range(52))


def timings(size: int, hands: int, seed: int, deck: int = 52) -> list[float]:
    """Microseconds per arrangement of each of `hands` random hands of `size` cards from the first
    `deck` cards (A..K of each suit: 20 is A..5, dense with melds)."""
    rng = random.Random(seed)
    matcher = Matcher(DECK)
    out = []
    for _ in range(hands):
        hand = rng.sample(range(deck), size)
        start = time.perf_counter()
        arrange(matcher, PATTERNS, POINTS, hand)
        out.append((time.perf_counter() - start) * 1e6)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--sizes", default="10,11")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for size, deck in [(int(x), 52) for x in args.sizes.split(",")] + [(10, 20)]:
        us = sorted(timings(size, args.hands, args.seed, deck))
        print(f"{size}-card hand{' of A..5 only' if deck == 20 else ''}: median {statistics.median(us):.0f} us, mean {statistics.fmean(us):.0f} us, "
              f"99th percentile {us[int(len(us) * 0.99)]:.0f} us, max {us[-1]:.0f} us ({args.hands} hands)")


if __name__ == "__main__":
    main()
