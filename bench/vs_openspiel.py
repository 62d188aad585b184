"""gamedsl's ISMCTS against OpenSpiel's Python ISMCTS (through gamedsl.rl), at equal iterations, in the arena.

    python bench/vs_openspiel.py games/mad_king.game ismcts:100,openspiel-ismcts:100 200 [JOBS]
    python bench/vs_openspiel.py games/laus.game ismcts:50,openspiel-ismcts:50,random 198 2 target=500

Arguments: the game, the seats (one spec per player; `openspiel-ismcts:N` is OpenSpiel's bot with N
simulations, the others are gamedsl's bot specs), the games (rounded up to whole deals), the worker
processes, and NAME=VALUE options of the game. Prints each entry's wins with the 95% interval, mean
return and ms per move, and the paired test of every pair (as `gamedsl arena` does). Needs the rl extra.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gamedsl import load_game  # noqa: E402
from gamedsl.bots import make_bot as ours  # noqa: E402
from gamedsl.rl.ismcts import from_spec  # noqa: E402
from gamedsl.tools import arena as A  # noqa: E402


def make_bot(spec, seed):
    if spec.startswith("openspiel-ismcts"):
        return from_spec(spec, seed)
    return ours(spec, seed)


# The arena seats OpenSpiel's bot too; worker processes import this file again (spawn) and so patch theirs.
A.make_bot = make_bot


def main():
    game, seats, n = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    options = dict(o.split("=", 1) for o in sys.argv[5:])
    t = time.time()
    r = A.arena(load_game(game), seats, n, options=options, jobs=jobs)
    for e in r["per_entry"]:
        print(f"{e['entry']:<24} wins {e['wins']}/{e['games']} ({100 * e['win_rate_ci'][0]:.1f}-"
              f"{100 * e['win_rate_ci'][1]:.1f}%), mean return {e['mean_return']:+.3f}, "
              f"{1000 * e['seconds_per_move']:.0f} ms/move")
    for p in r["pairs"]:
        w = p["win_rate"]
        print(f"{p['a']} - {p['b']}: win rate {w['diff']:+.3f}, p {w['p']}")
    print(f"{r['limit_hit']} games at the move limit; {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
