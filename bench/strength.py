"""The bots' strength table: one strong bot against a table of greedy bots and a table of random
bots, in every seed game at its fewest and most players, measured with `gamedsl arena`'s engine.

    python bench/strength.py                                  # ismcts:0.5s, 200 games a cell: hours
    python bench/strength.py --bot ismcts:200 --games 30      # a quick look
    python bench/strength.py --cells laus:3,law:2 --json
    python bench/strength.py --record bench/results --minutes 60   # an hour's worth, kept; run again to go on

Each cell is an arena of the strong bot against players-1 copies of the opponent, the seats
rotated on the same deals; the strong bot is *stronger* when the 95% (Wilson) interval of its win
share lies wholly above the fair share (what each seat wins on average in those games: 1/players
when every game has one winner), and *weaker* when it lies wholly below. Seconds per move are the strong bot's own.

A cell of a slow game takes hours. With `--record DIR` every game is appended to a file of DIR as
soon as it is played (one file per cell, named by game, players, bots and seed), and a run
with the same arguments plays only the games the file lacks: a run stopped by `--minutes`, Ctrl-C
or a lost machine goes on where it stopped. A file records what it was measured with (a hash of
the game file and of the bots' code); a run with other code refuses it rather than mix the two.
A cell's figures come from its whole deals (every rotation played) only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamedsl import load_game  # noqa: E402
from gamedsl.tools.arena import play_all, schedule, summarize  # noqa: E402
from gamedsl.tools.simulate import effective_options  # noqa: E402
from gamedsl.tools.workers import default_jobs  # noqa: E402

CELLS = [("laus", 3), ("laus", 4), ("mad_king", 2), ("mad_king", 4), ("lol", 2), ("lol", 6),
         ("law", 2), ("law", 4), ("crazy_eights", 2), ("crazy_eights", 5)]


def measured_with(game_file: Path) -> str:
    """What a record's games depend on: the game's text and the bots' code."""
    h = hashlib.sha256(game_file.read_bytes())
    for source in sorted((ROOT / "gamedsl" / "bots").glob("*.py")):
        h.update(source.read_bytes())
    return h.hexdigest()[:16]


def read_record(path: Path, header: dict) -> dict:
    """The games a record holds, by (deal, rotation, seed); a torn last line (a killed run) is dropped.
    A new (or empty) record gets its header."""
    games: dict = {}
    text = path.read_text() if path.exists() else ""
    if not text.endswith("\n"):  # a torn last line: cut it off, or the next game would be appended to it
        text = text[:text.rfind("\n") + 1]
        path.write_text(text or json.dumps(header) + "\n")
    lines = text.splitlines()
    if not lines:
        return games
    first = json.loads(lines[0])
    if first != header:
        sys.exit(f"{path}: recorded with {first}, not {header}: move it away to measure again")
    for line in lines[1:]:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        games[tuple(row["task"])] = row["game"]
    return games


def cell(name: str, players: int, bot: str, opponent: str, games: int, seed: int, jobs: int,
         record: Path | None = None, deadline: float | None = None) -> dict:
    game_file = ROOT / "games" / f"{name}.game"
    game = load_game(game_file)
    specs = [bot] + [opponent] * (players - 1)
    options = effective_options(game, {})
    tasks = schedule(games, players, seed)
    t0 = time.perf_counter()
    done: dict = {}
    path = None
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^A-Za-z0-9.=]+", "_", f"{name}-{players}p-{bot}-vs-{opponent}-seed{seed}")
        path = record / f"{slug}.jsonl"
        header = {"game": name, "players": players, "seats": specs, "seed": seed,
                  "measured_with": measured_with(game_file)}
        done = read_record(path, header)
    todo = [t for t in tasks if t not in done]
    step = max(1, jobs)  # a game per worker: each is kept as soon as it ends (a Law deal can take an hour)
    for i in range(0, len(todo), step):
        if deadline is not None and time.time() >= deadline:
            break
        part = todo[i:i + step]
        for task, result in zip(part, play_all(game, specs, options, part, jobs=jobs)):
            done[task] = result
            if path is not None:
                with path.open("a") as f:
                    f.write(json.dumps({"task": list(task), "game": result}) + "\n")
        if path is not None:
            print(f"{name} {players}p vs {opponent}: {len(done)} of {len(tasks)} games kept", file=sys.stderr, flush=True)
    whole = [t for t in tasks if all((t[0], r, t[2]) in done for r in range(players))]
    row = {"game": name, "players": players, "opponent": opponent, "games": len(whole), "asked": len(tasks),
           "elapsed": time.perf_counter() - t0}
    if not whole:
        return row
    r = summarize(game, specs, games, seed, options, whole, [done[t] for t in whole])
    strong = r["per_entry"][0]
    total_wins = sum(e["wins"] for e in r["per_entry"])
    fair = total_wins / (r["games"] * players)
    lo, hi = strong["win_rate_ci"]
    row.update({"wins": strong["wins"], "win_rate": strong["win_rate"], "ci": [lo, hi], "fair": fair,
                "stronger": lo > fair, "weaker": hi < fair,
                "seconds_per_move": strong["seconds_per_move"], "limit_hit": r["limit_hit"]})
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="ismcts:0.5s", help="the strong bot (default ismcts:0.5s)")
    ap.add_argument("--against", default="greedy,random", help="the opponents, comma-separated")
    ap.add_argument("--games", type=int, default=200, help="games per cell, at least (whole deals)")
    ap.add_argument("--cells", help="GAME:PLAYERS,... (default: every seed game at its fewest and most)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--record", type=Path, help="keep every game in a file per cell in this folder, and go on from it")
    ap.add_argument("--minutes", type=float, help="start no new game after this many minutes (with --record)")
    args = ap.parse_args(argv)
    if args.minutes is not None and args.record is None:
        ap.error("--minutes needs --record: the games played would be lost")
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    cells = CELLS if not args.cells else [(c.split(":")[0], int(c.split(":")[1])) for c in args.cells.split(",")]
    rows = []
    for name, players in cells:
        for opponent in args.against.split(","):
            rows.append(cell(name, players, args.bot, opponent, args.games, args.seed, args.jobs,
                             args.record, deadline))
            r = rows[-1]
            if args.json:
                continue
            if not r["games"]:
                print(f"{r['game']:<13} {r['players']}p vs {r['opponent']:<7}    0 games of {r['asked']}", flush=True)
            else:
                of = "" if r["games"] >= r["asked"] else f"(of {r['asked']}) "
                print(f"{r['game']:<13} {r['players']}p vs {r['opponent']:<7} {r['games']:>4} games: "
                      f"{of}{100 * r['win_rate']:5.1f}% ({100 * r['ci'][0]:.1f}-{100 * r['ci'][1]:.1f}), fair "
                      f"{100 * r['fair']:.1f}%  {'STRONGER' if r['stronger'] else 'WEAKER' if r['weaker'] else 'not shown'}  "
                      f"{1000 * (r['seconds_per_move'] or 0):.0f} ms/move  ({r['elapsed']:.0f} s)", flush=True)
    if args.json:
        print(json.dumps({"bot": args.bot, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
