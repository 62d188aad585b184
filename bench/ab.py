"""An A/B of CPU time, in separate processes by turns: how much longer one engine's random move
takes than another's, measured so that a loaded machine cannot flip the verdict.

Each turn is a fresh process (this file with `--turn`) that loads what it plays, plays one game to
warm up, then plays random games from seed FIRST, FIRST + 1, ... until SECONDS of its own CPU time
have passed (time.process_time: while the machine runs something else, the turn's clock stops),
and prints its moves and CPU seconds. A and B take turns, A B B A A B ... (each pair of rounds
gives both the first and the second place), ROUNDS rounds; the figure is the median over the
rounds of B's CPU time per move over A's. Each turn of a side starts at the seed after the last
that side played, so the rounds together play one sequence of games.

An implementation is IMPL:GAME:PLAYERS: `gamedsl:law:2` (this checkout's gamedsl, games/law.game),
`gamedsl@/tmp/old:law:2` (the gamedsl and games/law.game of the checkout /tmp/old), `plain:laus:3` and `state:laus:3` (bench/plain_laus.py, bench/plain_laus_state.py), and the peers
of bench/peers.py: `rlcard:uno:2`, `openspiel:crazy_eights:2`, `openspiel:skat:3`.

    python bench/ab.py gamedsl:lol:2 rlcard:uno:2           # the peer's time per move over ours
    python bench/ab.py state:laus:3 gamedsl:laus:3 --seconds 2 --rounds 7
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
ROUNDS = 5
sys.path.insert(0, str(ROOT))
from bench.timing import measure, random_playout  # noqa: E402  (before another checkout goes first on sys.path)


def player(spec: str):
    """The function that plays one random game of an implementation (seed -> moves)."""
    impl, game, players = spec.rsplit(":", 2)
    players = int(players)
    if impl == "gamedsl" or impl.startswith("gamedsl@"):
        root = Path(impl[len("gamedsl@"):]).resolve() if "@" in impl else ROOT
        sys.path.insert(0, str(root))
        import gamedsl
        if root not in Path(gamedsl.__file__).resolve().parents:
            raise SystemExit(f"{spec}: gamedsl came from {gamedsl.__file__}, not from {root}")
        return random_playout(gamedsl.load_game(str(root / "games" / f"{game}.game")), players)
    sys.path.insert(0, str(ROOT))
    if impl in ("plain", "state") and game == "laus":
        from bench import plain_laus, plain_laus_state
        module = plain_laus if impl == "plain" else plain_laus_state
        return lambda seed: module.play_random_game(players, seed)
    from bench import peers
    for p in peers.peers():
        if (p.impl, p.game, p.players) == (impl, game, players):
            if p.play_one is None:
                raise SystemExit(f"{spec}: {p.missing}")
            return p.play_one
    raise SystemExit(f"unknown implementation {spec!r}: gamedsl:GAME:PLAYERS, plain:laus:P, state:laus:P, "
                     "rlcard:uno:2, openspiel:crazy_eights:2 or openspiel:skat:3")


def turn(spec: str, seconds: float, first: int) -> dict:
    """One turn, in this process: {"moves", "games", "cpu"} (CPU seconds of the timed games)."""
    row = measure("", spec, 0, player(spec), seconds, first, clock=time.process_time)
    if row.error:
        raise SystemExit(f"{spec}: {row.error}")
    return {"moves": row.moves, "games": row.games, "cpu": row.seconds}


def run_turn(spec: str, seconds: float, first: int) -> dict:
    """One turn in a fresh process."""
    done = subprocess.run([sys.executable, str(HERE), "--turn", spec, str(seconds), str(first)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def ab(a: str, b: str, seconds: float = 1.0, rounds: int = ROUNDS) -> dict:
    """B's CPU time per move over A's: {"a", "b", "median", "low", "high", "rounds", "us_a", "us_b"}
    (the us figures from all the rounds together), or {"a", "b", "error"}."""
    seeds = {a: 0, b: 0}
    per_move: dict = {a: [], b: []}
    totals = {a: [0, 0.0], b: [0, 0.0]}
    for r in range(rounds):
        for spec in ((a, b) if r % 2 == 0 else (b, a)):
            got = run_turn(spec, seconds, seeds[spec])
            if "error" in got:
                return {"a": a, "b": b, "error": f"{spec}: {got['error']}"}
            seeds[spec] += got["games"]
            per_move[spec].append(got["cpu"] / got["moves"])
            totals[spec][0] += got["moves"]
            totals[spec][1] += got["cpu"]
    ratios = [y / x for x, y in zip(per_move[a], per_move[b])]
    return {"a": a, "b": b, "median": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
            "rounds": rounds, "us_a": totals[a][1] / totals[a][0] * 1e6, "us_b": totals[b][1] / totals[b][0] * 1e6}


# the pairs bench/run.py measures, each (A, B), and the target each decides (bench/README.md)
PAIRS = (("state:laus:3", "gamedsl:laus:3"), ("state:laus:4", "gamedsl:laus:4"), ("plain:laus:3", "gamedsl:law:2"),
         ("gamedsl:lol:2", "rlcard:uno:2"), ("gamedsl:crazy_eights:2", "openspiel:crazy_eights:2"))


def section(games: list[str], seconds: float, rounds: int = ROUNDS, before: tuple = ()) -> list[dict]:
    """bench/run.py's A/B section: each of PAIRS whose gamedsl games are among `games`, then, with
    `before` ((checkout, [(game, players), ...])), each game of this checkout against that one's;
    each turn `seconds` of CPU time."""
    pairs = list(PAIRS)
    if before:
        pairs += [(f"gamedsl:{g}:{n}", f"gamedsl@{before[0]}:{g}:{n}") for g, n in before[1]]
    out = []
    for a, b in pairs:
        if all(s.split(":")[1] in games for s in (a, b) if s.startswith("gamedsl:")):
            print(f"A/B {a} {b}", file=sys.stderr, flush=True)
            out.append(ab(a, b, seconds, rounds))
    return out


def line(r: dict) -> str:
    """One A/B as a line of the report."""
    if "error" in r:
        return f"{r['b']} over {r['a']}: FAILED {r['error']}"
    return (f"{r['b']} over {r['a']}: {r['median']:.2f}x the CPU time per move ({r['us_b']:.2f} vs "
            f"{r['us_a']:.2f} us; median of {r['rounds']} rounds in separate processes, range "
            f"{r['low']:.2f}-{r['high']:.2f})")


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--turn":
        print(json.dumps(turn(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a", help="IMPL:GAME:PLAYERS, the baseline")
    p.add_argument("b", help="IMPL:GAME:PLAYERS, measured against it")
    p.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a turn plays (default 1)")
    p.add_argument("--rounds", type=int, default=ROUNDS, help=f"turns of each (default {ROUNDS})")
    args = p.parse_args()
    print(line(ab(args.a, args.b, args.seconds, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
