"""What keeping each seat's reaction answer until what it reads changes could save: the ceiling.

    python bench/reaction_cache.py law --reads me.hand,laws,busy,current
    python bench/reaction_cache.py lol --players 4 --reads hand,called,round_over,pile

Before every decision of a game with `anytime` moves, every seat is asked whether it could react
(`some_reaction`). A cache of that answer, per seat, kept under the versions of the zones and
variables its conditions read, would skip a check whose reads are all as they were at that seat's
last check. This plays random games and, at every check, compares the `--reads` (a zone: all its
instances; `me.ZONE`: the asked seat's own; a variable: all its values) with that seat's last
check, timing the check itself: the checks such a cache would skip and the share of the whole
time they took are the most it could save (the cache's own bookkeeping, not counted, comes on top).
Name fewer reads than the conditions really read and the ceiling is only higher.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamedsl.engine.game import load_game  # noqa: E402


def reader(game, reads: list[str]):
    """A function of a state (with `me` the seat asked) giving the values of `reads`."""
    prog, parts = game.prog, []
    for name in reads:
        own = name.startswith("me.")
        name = name[3:] if own else name
        if name in prog.zone_by_name:
            z = prog.zone_by_name[name]
            if own and z.per_player:
                parts.append(lambda s, b=z.base: tuple(s.z[b + s.me]))
            else:
                count = game.prog.max_players if z.per_player else 1
                parts.append(lambda s, b=z.base, n=count: tuple(tuple(s.z[k]) for k in range(b, b + n)))
        elif name in prog.var_by_name:
            var = prog.var_by_name[name]
            if own and var.per_player:
                parts.append(lambda s, b=var.base: s.v[b + s.me])
            else:
                size = game.prog.max_players if var.per_player else prog.card_count() if var.per_card else 1
                parts.append(lambda s, b=var.base, n=size: tuple(s.v[b:b + n]))
        else:
            raise SystemExit(f"{game.name} has no zone or variable '{name}'")
    return lambda s: tuple(part(s) for part in parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game of games/ with anytime moves")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--reads", required=True, help="what the reaction conditions read, comma-separated")
    parser.add_argument("--games", type=int, default=40, help="random games played (seeds 0, 1, ...)")
    args = parser.parse_args()
    game = load_game(str(ROOT / "games" / f"{args.game}.game"))
    check = game.reaction_check
    if check is None:
        raise SystemExit(f"{game.name} has no anytime moves")
    read = reader(game, args.reads.split(","))
    last: dict = {}
    tally = {"kept": [0, 0], "changed": [0, 0]}  # checks, nanoseconds
    probing = [0]  # nanoseconds spent reading the reads: taken out of the games' time

    def timed(s):
        start = time.perf_counter_ns()
        answer = check(s)
        done = time.perf_counter_ns()
        spent = done - start
        now = read(s)
        row = tally["kept" if last.get(s.me) == now else "changed"]
        last[s.me] = now
        probing[0] += time.perf_counter_ns() - done
        row[0] += 1
        row[1] += spent
        return answer

    game.reaction_check = timed
    moves, spent = 0, 0
    for seed in range(args.games):
        last.clear()
        state, choice = game.new_state(players=args.players, seed=seed), random.Random(seed).choice
        start = time.perf_counter_ns()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
        spent += time.perf_counter_ns() - start
    spent -= probing[0]
    total = tally["kept"][0] + tally["changed"][0]
    print(f"{game.name} {args.players}p, {args.games} random games, {moves} moves, {total} seat checks "
          f"({total / moves:.2f} a move)")
    for what, (n, ns) in tally.items():
        print(f"  reads {what:7}: {n:7} checks ({n / total:5.1%}), {ns / max(n, 1) / 1e3:5.2f} us each, "
              f"{ns / spent:5.1%} of the games' time")
    print(f"  the most a per-seat cache could save: {tally['kept'][1] / spent:.1%} of the time "
          f"(its own bookkeeping not counted)")


if __name__ == "__main__":
    main()
