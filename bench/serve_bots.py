"""The bot workers of `gamedsl serve` shared fairly: how long a table's greedy move takes alone, and
while three other tables keep the workers busy with the most a table allows (greedy with 32
samples, a lookahead of 4 and a budget of 2,000, every seat a bot, each answering a reaction
window at once); and while they ask as often with the default greedy. Reported as the loaded
figures' ratio to the figures alone, measured in the same run (issue 43: within 2x).

    python bench/serve_bots.py                  # 40 moves of the measured table, each way
    python bench/serve_bots.py --moves 20 --json

The measured table is LOL with 3 greedy seats (the lobby's default bot); the busy ones Law with 4
seats. It drives serve's BotPool (serve/bots.py) directly, with its worker processes, as the
tables of a server do: the time is from asking for a move to having it, with no pause of the
table's pace added.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gamedsl  # noqa: E402
from gamedsl.tools.serve.bots import BotPool  # noqa: E402

HEAVY = "greedy:samples=32:lookahead=4:budget=2000"


def table(name: str, players: int, spec: str, seed: int) -> SimpleNamespace:
    game = gamedsl.load_game(ROOT / "games" / f"{name}.game")
    return SimpleNamespace(id=f"{name}-{seed}", game=game, state=game.new_state(players=players, seed=seed),
                           seats=[spec] * players, seed=seed, options={}, writer=None, store=None,
                           notices={}, rng=random.Random(seed))


def advance(t):
    """A random move, or a new game when it is over."""
    if t.state.is_terminal():
        t.state = t.game.new_state(players=len(t.seats), seed=t.rng.randrange(1 << 30))
    t.state.apply_action(t.rng.choice(t.state.legal_actions()))


async def busy(pool: BotPool, t, stop: asyncio.Event):
    """A table whose every seat asks at once (a reaction window of bots), again and again."""
    while not stop.is_set():
        await asyncio.gather(*(pool.choose(t, seat) for seat in range(len(t.seats))))
        advance(t)


async def measured(pool: BotPool, t, moves: int) -> list[float]:
    times = []
    for _ in range(moves):
        started = time.perf_counter()
        await pool.choose(t, t.state.current_player())
        times.append(time.perf_counter() - started)
        advance(t)
    return times


async def run(moves: int) -> dict:
    pool = BotPool(2, 2.0)
    try:
        light = table("lol", 3, "greedy", 1)
        await measured(pool, light, 3)  # the workers started, the game read once
        alone = await measured(pool, light, moves)
        loaded = {}
        for spec in (HEAVY, "greedy"):
            stop = asyncio.Event()
            others = [asyncio.ensure_future(busy(pool, table("law", 4, spec, k), stop)) for k in range(3)]
            await asyncio.sleep(2)  # the busy tables are under way
            loaded[spec] = await measured(pool, table("lol", 3, "greedy", 1), moves)
            stop.set()
            await asyncio.gather(*others)
    finally:
        pool.close()

    def figures(ts):
        ts = sorted(ts)
        return {"median_ms": round(1000 * statistics.median(ts), 1), "p90_ms": round(1000 * ts[int(0.9 * len(ts))], 1)}
    a = figures(alone)
    found = {"alone": a}
    for spec, ts in loaded.items():
        b = figures(ts)
        found[spec] = {**b, "median_ratio": round(b["median_ms"] / a["median_ms"], 2),
                       "p90_ratio": round(b["p90_ms"] / a["p90_ms"], 2)}
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    found = asyncio.run(run(args.moves))
    if args.json:
        print(json.dumps(found))
        return
    print(f"a greedy move at LOL, alone: median {found['alone']['median_ms']} ms, p90 {found['alone']['p90_ms']} ms")
    for spec in (HEAVY, "greedy"):
        f = found[spec]
        print(f"with three busy Law tables of {spec}: median {f['median_ms']} ms ({f['median_ratio']}x), "
              f"p90 {f['p90_ms']} ms ({f['p90_ratio']}x)")
    print("(target, with the most a table allows: within 2x)")


if __name__ == "__main__":
    main()
