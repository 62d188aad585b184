"""Whether search stays fast as a game grows long: the time of each `ismcts` move through one long game.

    python bench/search_long.py                 # Law 4p, the arena game below, to its 20,000-move limit: ~3 min
    python bench/search_long.py --moves 5000    # only its first 5,000 moves
    python bench/search_long.py --json

The game is the longest of the strength record `bench/results/law_4p_ismcts_100_cut=10_vs_random_seed0.jsonl`
(arena deal 16, rotation 3: seed 15, `ismcts:100:cut=10` at seat 3 against three random seats),
which ran into Law's move limit; when it was recorded its search moves cost 1.17 s on average
(5,186 s for 4,426 moves). It is played here as `gamedsl arena` plays it (the same bot seeds), and
every move of the search bot is timed. Printed per slice of 1,000 moves of the game: the bot's
moves in it, their median, 99th percentile and worst milliseconds, and the slice's 99th
percentile over the first slice's (in the same run: growth with the game's length, not the
machine's speed).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gamedsl  # noqa: E402
from gamedsl.bots import make_bot  # noqa: E402
from gamedsl.tools.arena import seating  # noqa: E402
from gamedsl.tools.simulate import bot_seed  # noqa: E402

SPECS = ["ismcts:100:cut=10", "random", "random", "random"]
SEED, ROTATION, SLICE = 15, 2, 1000


def p99(values: list) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]


def play(moves: int) -> tuple[list, int]:
    """(game move, seconds) of each move of the search bot, and the moves the game reached."""
    game = gamedsl.load_game(ROOT / "games" / "law.game")
    seats = [SPECS[e] for e in seating(len(SPECS), ROTATION)]
    state = game.new_state(players=len(seats), seed=SEED)
    bots = [make_bot(spec, bot_seed(SEED, p)) for p, spec in enumerate(seats)]
    timed = []
    while not state.is_terminal() and state.moves < moves:
        p = state.current_player()
        t0 = time.perf_counter()
        move = bots[p].choose(state)
        if seats[p] != "random":
            timed.append((state.moves, time.perf_counter() - t0))
        state.apply_action(move)
    return timed, state.moves


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20_000, help="stop the game after this many moves")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    timed, reached = play(args.moves)
    rows = []
    for start in range(0, reached, SLICE):
        ms = [1000 * dt for m, dt in timed if start <= m < start + SLICE]
        if ms:
            rows.append({"moves": f"{start}-{start + SLICE}", "bot_moves": len(ms), "median_ms": statistics.median(ms),
                         "p99_ms": p99(ms), "worst_ms": max(ms)})
    every = [1000 * dt for _, dt in timed]
    total = {"game_moves": reached, "bot_moves": len(every), "bot_seconds": sum(every) / 1000,
             "median_ms": statistics.median(every), "p99_ms": p99(every), "worst_ms": max(every)}
    if args.json:
        print(json.dumps({"slices": rows, "whole": total}))
        return 0
    first = rows[0]["p99_ms"]
    print("| game moves | bot moves | median ms | p99 ms | worst ms | p99 / first slice's |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['moves']} | {r['bot_moves']} | {r['median_ms']:.0f} | {r['p99_ms']:.0f} | {r['worst_ms']:.0f} "
              f"| {r['p99_ms'] / first:.2f}x |")
    print(f"\nthe whole game: {total['game_moves']} moves, {total['bot_moves']} by the search bot in "
          f"{total['bot_seconds']:.0f} s (median {total['median_ms']:.0f} ms, p99 {total['p99_ms']:.0f} ms, "
          f"worst {total['worst_ms']:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
