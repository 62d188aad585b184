"""The design report's false-positive rate on the seed games: an A/A test.

For each game, plays the report's fairness games and card probes once (one version), then splits
the games at random into two halves, again and again, and compares the halves as two versions
(gamedsl.tools.analysis.aa): nothing differs but chance, so every flagged row, rule or card is
a false one. The report promises at most 5% of its rows, and at most one rule or card a split
on average.

    python bench/aa.py                          # every seed game, 200 games, 20 splits
    python bench/aa.py --games laus,law --count 120 --probes 6 --jobs 2
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamedsl import load_game  # noqa: E402
from gamedsl.tools.analysis import aa  # noqa: E402
from gamedsl.tools.analysis.command import tasks_of  # noqa: E402
from gamedsl.tools.analysis.observe import Context, setup, watch_task  # noqa: E402
from gamedsl.tools.analysis.probes import plan, probe_task  # noqa: E402
from gamedsl.tools.workers import default_jobs, run_tasks  # noqa: E402

GAMES = ("crazy_eights", "laus", "lol", "mad_king", "law")


def measure(name: str, count: int, probes: int, splits: int, jobs: int) -> dict:
    game = load_game(ROOT / "games" / f"{name}.game")
    players = game.min_players if name != "laus" else 3
    args = (game.text, game.prog.filename, players, {})
    t0 = time.perf_counter()
    records = run_tasks(setup, args, watch_task, tasks_of(players, count, ["greedy"] * players, "greedy", 0, 0)[:count], jobs)
    found = [x for x in run_tasks(setup, args, probe_task, plan(records, probes), jobs) if x] if probes else None
    got = aa.split_runs(Context(*args), records, "greedy", found, repetitions=splits)
    got.update(game=name, players=players, probes=len(found or ()), seconds=time.perf_counter() - t0)
    return got


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", default=",".join(GAMES), help="the seed games to measure (comma-separated)")
    p.add_argument("--count", type=int, default=200, help="games per seed game (default 200)")
    p.add_argument("--probes", type=int, default=10, help="card probes per kind of card (default 10)")
    p.add_argument("--splits", type=int, default=20, help="random halvings (default 20)")
    p.add_argument("--jobs", type=int, default=default_jobs())
    args = p.parse_args()
    print(f"{'game':<13} {'pl':>2} {'games':>5} {'probes':>6} {'rows':>5} {'flagged':>8} {'rules/split':>11} "
          f"{'cards/split':>11} {'s':>6}")
    for name in args.games.split(","):
        r = measure(name.strip(), args.count, args.probes, args.splits, args.jobs)
        print(f"{r['game']:<13} {r['players']:>2} {r['games']:>5} {r['probes']:>6} {r['rows_tested']:>5} "
              f"{100 * r['row_rate']:>7.1f}% {r['rules_per_repetition']:>11.2f} {r['cards_per_repetition']:>11.2f} "
              f"{r['seconds']:>6.0f}", flush=True)
        worst = sorted(((v, k) for k, v in r["per_metric"].items() if v), reverse=True)[:3]
        if worst:
            print("    most flagged: " + "; ".join(f"{k} ({v} of {r['repetitions']})" for v, k in worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
