"""Random-playout speed: plain-Python Laus against every games/*.game run by gamedsl.

Usage: python bench/run.py [--seconds S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import plain_laus  # noqa: E402

MOVE_CAP = 1_000_000     # a random game longer than this is reported as stuck


class Row(NamedTuple):
    """One measurement: a game played at random, many times, for a fixed time."""
    impl: str
    game: str
    players: int
    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    error: str = ""

    @property
    def us_per_move(self) -> float:
        return self.seconds / self.moves * 1e6


ROUNDS = 5              # Laus is measured in alternating slices, plain then gamedsl


def measure(impl: str, game: str, players: int, play_one: Callable[[int], int],
            seconds: float, first_seed: int = 0) -> Row:
    """Play games with seeds first_seed, first_seed + 1, ... until `seconds` have passed."""
    try:
        play_one(10**9)  # warm-up
        games = moves = 0
        start = time.perf_counter()
        while True:
            moves += play_one(first_seed + games)
            games += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return Row(impl, game, players, games, moves, elapsed)
    except Exception as e:  # a broken game must not hide the other measurements
        return Row(impl, game, players, error=f"{type(e).__name__}: {e}")


def add(a: Row, b: Row) -> Row:
    return a._replace(games=a.games + b.games, moves=a.moves + b.moves, seconds=a.seconds + b.seconds,
                      error=a.error or b.error)


def interleaved(players: int, play_gamedsl: Callable[[int], int], seconds: float):
    """Plain and gamedsl Laus in alternating slices: (plain row, gamedsl row, per-slice ratios).

    The machine's speed drifts (other processes, frequency scaling); alternating short
    slices exposes both to the same drift, and the median of the slice ratios ignores outliers.
    """
    plain = Row("plain", "laus", players)
    ours = Row("gamedsl", "laus", players)
    ratios = []
    for k in range(ROUNDS):
        p = measure("plain", "laus", players, lambda s: plain_laus.play_random_game(players, s),
                    seconds / ROUNDS, plain.games)
        g = measure("gamedsl", "laus", players, play_gamedsl, seconds / ROUNDS, ours.games)
        plain, ours = add(plain, p), add(ours, g)
        if not (p.error or g.error):
            ratios.append(g.us_per_move / p.us_per_move)
    return plain, ours, ratios


def gamedsl_playout(game, players: int) -> Callable[[int], int]:
    """A function that plays one uniformly random game with gamedsl and returns its moves."""
    def play_one(seed: int) -> int:
        state = game.new_state(players=players, seed=seed)
        choice = random.Random(seed).choice
        moves = 0
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
            if moves > MOVE_CAP:
                raise RuntimeError(f"seed {seed}: no end after {MOVE_CAP} moves")
        return moves
    return play_one


def player_counts(path: Path, quick: bool) -> list[int]:
    """The fewest and the most players the game allows (read from its `players` line)."""
    m = re.search(r"^\s*players\s+(\d+)(?:\s+to\s+(\d+))?", path.read_text(), re.M)
    if not m:
        return [2]
    low, high = int(m[1]), int(m[2] or m[1])
    if path.stem == "laus":
        return [3, 4]       # both counts have a plain baseline
    return [low] if quick or low == high else [low, high]


def gamedsl_rows(seconds: float, quick: bool) -> list[Row]:
    """Every games/*.game through gamedsl; an empty list if gamedsl cannot be imported."""
    try:
        import gamedsl
    except Exception as e:
        print(f"gamedsl is not importable ({type(e).__name__}: {e})")
        return [], {}
    rows = []
    ratios = {}
    for path in sorted((ROOT / "games").glob("*.game")):
        start = time.perf_counter()
        try:
            game = gamedsl.load_game(str(path))
        except Exception as e:
            rows.append(Row("gamedsl", path.stem, 0, error=f"load: {type(e).__name__}: {e}"))
            continue
        print(f"loaded {path.name} in {(time.perf_counter() - start) * 1000:.0f} ms")
        for n in player_counts(path, quick):
            if path.stem == "laus":
                plain, ours, ratios[n] = interleaved(n, gamedsl_playout(game, n), 2 * seconds)
                rows[:0] = [plain]
                rows.append(ours)
            else:
                rows.append(measure("gamedsl", path.stem, n, gamedsl_playout(game, n), seconds))
    return rows, ratios


def report(rows: list[Row], ratios: dict) -> None:
    """Print the table; "x plain" is time per move over plain Laus's time per move."""
    baseline = {r.players: r.us_per_move for r in rows if r.impl == "plain" and not r.error}
    mean_baseline = sum(baseline.values()) / len(baseline) if baseline else None
    head = f"{'impl':8} {'game':14} {'pl':>2} {'games':>7} {'moves':>9} " \
           f"{'games/s':>9} {'moves/s':>10} {'us/move':>8} {'x plain':>8}"
    print(head)
    print("-" * len(head))
    for r in rows:
        if r.error:
            print(f"{r.impl:8} {r.game:14} {r.players or '':>2} FAILED {r.error}")
            continue
        base = baseline.get(r.players) if r.game == "laus" else mean_baseline
        ratio = f"{r.us_per_move / base:8.1f}" if base else f"{'':8}"
        print(f"{r.impl:8} {r.game:14} {r.players:>2} {r.games:>7} {r.moves:>9} "
              f"{r.games / r.seconds:>9.1f} {r.moves / r.seconds:>10.0f} "
              f"{r.us_per_move:>8.2f} {ratio}")
    print("\nx plain: time per move / plain Laus time per move (Laus: same player count; "
          "other games: the mean of plain Laus 3p and 4p, as a yardstick).")
    for n, rs in sorted(ratios.items()):
        if rs:
            print(f"gamedsl Laus, {n} players: {statistics.median(rs):.1f}x the plain-Python time per move "
                  f"(median of {len(rs)} alternating slices; range {min(rs):.1f}-{max(rs):.1f})")


def main(argv: list[str] | None = None) -> None:
    """Parse the options, measure everything in one run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent on each measurement (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="0.5 s per measurement, one player count per non-Laus game")
    args = parser.parse_args(argv)
    seconds = 0.5 if args.quick else args.seconds
    rows, ratios = gamedsl_rows(seconds, args.quick)
    rows.sort(key=lambda r: (r.impl != "plain", r.game, r.players))
    report(rows, ratios)


if __name__ == "__main__":
    main()
