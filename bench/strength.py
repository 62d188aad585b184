"""The bots' strength table: one strong bot against a table of greedy bots and a table of random
bots, in every seed game at its fewest and most players, measured with `gamedsl arena`'s engine.

    python bench/strength.py                                  # ismcts:0.5s, 200 games a cell: hours
    python bench/strength.py --bot ismcts:200 --games 30      # a quick look
    python bench/strength.py --cells laus:3,law:2 --json

Each cell is an arena of the strong bot against players-1 copies of the opponent, the seats
rotated on the same deals; the strong bot is *stronger* when the 95% (Wilson) interval of its win
share lies wholly above the fair share (what each seat wins on average in those games: 1/players
when every game has one winner). Seconds per move are the strong bot's own.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamedsl import load_game  # noqa: E402
from gamedsl.tools.arena import arena  # noqa: E402
from gamedsl.tools.workers import default_jobs  # noqa: E402

CELLS = [("laus", 3), ("laus", 4), ("mad_king", 2), ("mad_king", 4), ("lol", 2), ("lol", 6),
         ("law", 2), ("law", 4), ("crazy_eights", 2), ("crazy_eights", 5)]


def cell(name: str, players: int, bot: str, opponent: str, games: int, seed: int, jobs: int) -> dict:
    game = load_game(ROOT / "games" / f"{name}.game")
    specs = [bot] + [opponent] * (players - 1)
    t0 = time.perf_counter()
    r = arena(game, specs, games, seed=seed, jobs=jobs)
    strong = r["per_entry"][0]
    total_wins = sum(e["wins"] for e in r["per_entry"])
    fair = total_wins / (r["games"] * players)
    lo, hi = strong["win_rate_ci"]
    return {"game": name, "players": players, "opponent": opponent, "games": r["games"], "wins": strong["wins"],
            "win_rate": strong["win_rate"], "ci": [lo, hi], "fair": fair, "stronger": lo > fair,
            "seconds_per_move": strong["seconds_per_move"], "limit_hit": r["limit_hit"],
            "elapsed": time.perf_counter() - t0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="ismcts:0.5s", help="the strong bot (default ismcts:0.5s)")
    ap.add_argument("--against", default="greedy,random", help="the opponents, comma-separated")
    ap.add_argument("--games", type=int, default=200, help="games per cell, at least (whole deals)")
    ap.add_argument("--cells", help="GAME:PLAYERS,... (default: every seed game at its fewest and most)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cells = CELLS if not args.cells else [(c.split(":")[0], int(c.split(":")[1])) for c in args.cells.split(",")]
    rows = []
    for name, players in cells:
        for opponent in args.against.split(","):
            rows.append(cell(name, players, args.bot, opponent, args.games, args.seed, args.jobs))
            if not args.json:
                r = rows[-1]
                print(f"{r['game']:<13} {r['players']}p vs {r['opponent']:<7} {r['games']:>4} games: "
                      f"{100 * r['win_rate']:5.1f}% ({100 * r['ci'][0]:.1f}-{100 * r['ci'][1]:.1f}), fair "
                      f"{100 * r['fair']:.1f}%  {'STRONGER' if r['stronger'] else 'not shown'}  "
                      f"{1000 * (r['seconds_per_move'] or 0):.0f} ms/move  ({r['elapsed']:.0f} s)", flush=True)
    if args.json:
        print(json.dumps({"bot": args.bot, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
