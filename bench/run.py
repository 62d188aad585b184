"""Speed of gamedsl, side by side in one run: random playouts (against plain-Python Laus and the
peer engines), load + check, clone, the greedy bot, and the targets they are held to.

Usage: python bench/run.py [--seconds S] [--quick] [--json] [--before CHECKOUT] [--games a,b,...]

bench/README.md explains each section, each target and the keys of --json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]   # the checkout this script belongs to
sys.path.insert(0, str(ROOT))
from bench.report import report, targets  # noqa: E402
from bench.timing import (CLONE_EVERY, Row, add, calls_per_move, clone_times, greedy_times,  # noqa: E402
                          measure, random_playout)

ROUNDS = 5               # implementations of the same game are measured in this many alternating slices
GREEDY_GAMES = 2         # the greedy section plays at most this many games ...
GREEDY_DECISIONS = 150   # ... and times this many decisions (30 with --quick)
HEARTS = "hearts"        # bench/hearts.game: a workload of the greedy section only
IMPLS = ("plain", "state", "gamedsl", "before")  # the order of the rows of one game; peers come after


def note(text: str) -> None:
    """Progress, on stderr: the report (or the JSON) alone goes to stdout."""
    print(text, file=sys.stderr, flush=True)


# ---- one checkout's gamedsl: in this process, or in a worker process for --before

def game_path(root: Path, name: str) -> Path:
    """A game of a checkout: games/NAME.game, or its bench/hearts.game (this checkout's if it has none)."""
    if name == HEARTS:
        own = root / "bench" / "hearts.game"
        return own if own.exists() else HERE.parent / "hearts.game"
    return root / "games" / f"{name}.game"


def import_gamedsl(root: Path):
    """gamedsl from the checkout `root`, put first on sys.path; an ImportError if it comes from elsewhere
    (an installed copy, when `root` has none)."""
    sys.path.insert(0, str(root))
    import gamedsl
    where = Path(gamedsl.__file__).resolve()
    if root.resolve() not in where.parents:
        raise ImportError(f"gamedsl came from {where}, not from {root}")
    return gamedsl


class Engine:
    """gamedsl imported from the checkout `root`, and the measurements made inside it, called by
    name with JSON-able arguments and results (see __call__)."""

    def __init__(self, root: Path):
        gamedsl = import_gamedsl(root)
        # The checkout's own bots: an editable install elsewhere could serve a package it lacks.
        if (root / "gamedsl" / "bots").is_dir():
            from gamedsl.bots import make_bot
        else:  # the engine before the rewrite
            from gamedsl.agents import make_bot
        self.gamedsl, self.make_bot, self.root, self.loaded = gamedsl, make_bot, root, {}

    def __call__(self, op: str, args: dict) -> dict:
        """Run the measurement `op` (playout, clone, greedy); a failure is {"error": ...}, never raised."""
        try:
            return getattr(self, op)(**args)
        except Exception as e:
            return {"error": f"{type(e).__name__}: {e}"}

    def game(self, name: str):
        if name not in self.loaded:
            self.loaded[name] = self.gamedsl.load_game(str(game_path(self.root, name)))
        return self.loaded[name]

    def playout(self, name: str, players: int, seconds: float, first_seed: int) -> dict:
        """Random games for `seconds`: games, moves, seconds, error."""
        return measure("", name, players, random_playout(self.game(name), players), seconds, first_seed)._asdict()

    def clone(self, name: str, players: int, seconds: float) -> dict:
        """Copies of states met in random games, for about `seconds`: clones, us_per_clone."""
        spent, clones, seed, start = 0.0, 0, 0, time.perf_counter()
        while clones == 0 or time.perf_counter() - start < seconds:
            s, c = clone_times(self.game(name), players, seed)
            spent, clones, seed = spent + s, clones + c, seed + 1
        return {"clones": clones, "us_per_clone": spent / clones * 1e6}

    def calls(self, name: str, players: int, games: int) -> dict:
        """Function calls per move (cProfile's count, built-ins included) over `games` random games."""
        return calls_per_move(random_playout(self.game(name), players), games)

    def greedy(self, name: str, players: int, decisions: int) -> dict:
        """The greedy bot's first `decisions` real choices in up to GREEDY_GAMES games: ms each."""
        times: list[float] = []
        for seed in range(GREEDY_GAMES):
            times += greedy_times(self.game(name), players, seed, self.make_bot, decisions - len(times))
            if len(times) >= decisions:
                break
        return {"decisions": len(times), "median_ms": statistics.median(times),
                "mean_ms": statistics.mean(times), "max_ms": max(times)}


def open_engine(root: Path) -> Callable[[str, dict], dict]:
    """The Engine of a checkout, or one that answers every measurement with why it cannot."""
    try:
        return Engine(root)
    except Exception as e:
        message = f"gamedsl of {root} is not importable ({type(e).__name__}: {e})"
        return lambda op, args: {"error": message}


class Worker:
    """The Engine of another checkout, in a subprocess of this script (--engine-only ROOT) that
    answers one JSON line per request; called like an Engine."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen([sys.executable, str(HERE), "--engine-only", str(root)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, op: str, args: dict) -> dict:
        try:
            self.proc.stdin.write(json.dumps({"op": op, "args": args}) + "\n")
            self.proc.stdin.flush()
            return json.loads(self.proc.stdout.readline())
        except (OSError, ValueError) as e:
            return {"error": f"the --before worker failed ({type(e).__name__}: {e})"}

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def serve(root: str) -> None:
    """(--engine-only ROOT) Answer requests from stdin with ROOT's gamedsl, one JSON line each."""
    replies, sys.stdout = sys.stdout, sys.stderr  # what the engine prints must not mix with the replies
    engine = open_engine(Path(root))
    for line in sys.stdin:
        request = json.loads(line)
        replies.write(json.dumps(engine(request["op"], request["args"])) + "\n")
        replies.flush()


def load_one(root: str, path: str) -> None:
    """(--load-one ROOT PATH) Print {"ms": ...}: the time load_game takes in this fresh process."""
    try:
        gamedsl = import_gamedsl(Path(root))
        load_game = gamedsl.load_game  # (a gamedsl that imports its modules when first named does it here, untimed)
        start = time.perf_counter()
        load_game(path)
        print(json.dumps({"ms": (time.perf_counter() - start) * 1000}))
    except Exception as e:
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))


# ---- the sections: each a list of entries (dicts), as --json prints them

def player_counts(path: Path, quick: bool) -> list[int]:
    """The fewest and the most players the game allows (read from its `players` line)."""
    m = re.search(r"^\s*players\s+(\d+)(?:\s+to\s+(\d+))?", path.read_text(encoding="utf-8"), re.M)
    if not m:
        return [2]
    low, high = int(m[1]), int(m[2] or m[1])
    if path.stem == "laus":
        return [3, 4]       # both counts have a plain baseline
    return [low] if quick or low == high else [low, high]


# The peers a target compares a game with: measured in the same alternating slices as that game.
PAIRED = {("lol", 2): ("rlcard", "uno", 2), ("crazy_eights", 2): ("openspiel", "crazy_eights", 2)}


def paired_peer(game: str, players: int):
    """The installed peer a target compares (game, players) with, or None."""
    if (game, players) not in PAIRED:
        return None
    from bench import peers
    found = [p for p in peers.peers() if (p.impl, p.game, p.players) == PAIRED[(game, players)]]
    return found[0] if found and found[0].play_one else None


def runners(engines: dict, game: str, players: int) -> list:
    """What plays `game` at random, as (impl, run(seconds, first_seed) -> Row): plain Laus in its
    two shapes (one loop; a state behind the engine's interface), then each engine, then the peer
    a target compares the game with (PAIRED)."""
    found = []
    if game == "laus":
        from bench import plain_laus

        from bench import plain_laus_state

        def plain(s, first):
            return measure("plain", game, players, lambda seed: plain_laus.play_random_game(players, seed), s, first)

        def state(s, first):
            return measure("state", game, players, lambda seed: plain_laus_state.play_random_game(players, seed),
                           s, first)
        found += [("plain", plain), ("state", state)]
    for impl, (_, engine) in engines.items():
        def run(s, first, impl=impl, engine=engine):
            d = engine("playout", {"name": game, "players": players, "seconds": s, "first_seed": first})
            return Row(impl, game, players, **{k: d[k] for k in ("games", "moves", "seconds", "error") if k in d})
        found.append((impl, run))
    peer = paired_peer(game, players)
    if peer is not None:
        def versus(s, first, p=peer):
            return measure(p.impl, p.game, p.players, p.play_one, s, first)
        found.append((peer.impl, versus))
    return found


def interleaved(game: str, players: int, runs: list, seconds: float) -> tuple[list[Row], list[dict]]:
    """Each run in ROUNDS alternating slices: the rows, and the slice ratios of the pairs compared
    (each run's time per move over the first run's; gamedsl's over `state`'s and `before`'s over
    gamedsl's where the first run is another).

    The machine's speed drifts (other processes, frequency scaling); alternating short slices
    exposes all to the same drift, and the median of the slice ratios ignores outliers."""
    rounds = ROUNDS if len(runs) > 1 else 1
    totals: list = [None] * len(runs)  # each run's Row (a peer's names its own game) after its first slice
    times: list[list] = [[] for _ in runs]  # per run, per slice: its time per move (None: it failed)
    for _ in range(rounds):
        done = [t if t is not None and t.error else run(seconds / rounds, t.games if t else 0)
                for t, (_, run) in zip(totals, runs)]
        totals = [d if t is None else t if t.error else add(t, d) for t, d in zip(totals, done)]
        for i, d in enumerate(done):
            times[i].append(None if d.error else d.us_per_move)
    impls = [impl for impl, _ in runs]
    pairs = [(i, 0) for i in range(1, len(runs))]
    for impl, base in (("gamedsl", "state"), ("before", "gamedsl")):
        if impl in impls and base in impls and impls.index(base) != 0:
            pairs.append((impls.index(impl), impls.index(base)))
    ratios = []
    for i, j in pairs:
        s = [a / b for a, b in zip(times[i], times[j]) if a is not None and b is not None]
        if s:
            ratios.append({"impl": totals[i].impl, "game": totals[i].game, "players": totals[i].players,
                           "versus": totals[j].impl, "versus_game": game if j == 0 else totals[j].game,
                           "median": statistics.median(s), "low": min(s), "high": max(s), "slices": len(s)})
    return totals, ratios


def peer_rows(seconds: float, measured: set) -> list[Row]:
    """The peers of bench/peers.py not `measured` already (next to the game a target compares them
    with); one that is missing is a row with error "not installed"."""
    from bench import peers
    rows = []
    for p in peers.peers():
        if (p.impl, p.game, p.players) in measured:
            continue
        note(f"playouts: {p.impl} {p.game} {p.players}p")
        rows.append(measure(p.impl, p.game, p.players, p.play_one, seconds) if p.play_one
                    else Row(p.impl, p.game, p.players, error=p.missing))
    return rows


def row_entries(rows: list[Row]) -> list[dict]:
    """The rows as entries; x_plain is the time per move over plain Laus's (Laus: at the same
    player count; the others: the mean of plain Laus 3p and 4p, as a yardstick)."""
    baseline = {r.players: r.us_per_move for r in rows if r.impl == "plain" and not r.error}
    mean = statistics.mean(baseline.values()) if baseline else None

    def entry(r: Row) -> dict:
        head = {"impl": r.impl, "game": r.game, "players": r.players}
        if r.error:
            return {**head, "games": None, "moves": None, "moves_per_s": None, "us_per_move": None,
                    "x_plain": None, "error": r.error}
        base = baseline.get(r.players) if r.game == "laus" else mean
        return {**head, "games": r.games, "moves": r.moves, "moves_per_s": r.moves / r.seconds,
                "us_per_move": r.us_per_move, "x_plain": r.us_per_move / base if base else None}

    order = {impl: i for i, impl in enumerate(IMPLS)}
    rows = sorted(rows, key=lambda r: (r.impl != "plain", r.impl not in order, r.game, r.players,
                                       order.get(r.impl, 9), r.impl))
    return [entry(r) for r in rows]


def playout_section(engines: dict, tasks: list, seconds: float) -> tuple[list[dict], list[dict]]:
    """Random playouts of every (game, players) by every engine (Laus also in plain Python), then the peers."""
    rows, ratios = [], []
    for game, players in tasks:
        note(f"playouts: {game} {players}p")
        share = 2 * seconds if game == "laus" else seconds  # Laus: the targets' yardstick, measured longer
        r, q = interleaved(game, players, runners(engines, game, players), share)
        rows += r
        ratios += q
    measured = {(r.impl, r.game, r.players) for r in rows}
    return row_entries(rows + peer_rows(seconds, measured)), ratios


def load_ms(root: Path, name: str, cache: str) -> dict:
    """{"ms": ...} to load a game in a fresh process of its own, with GAMEDSL_CACHE=cache."""
    proc = subprocess.run([sys.executable, str(HERE), "--load-one", str(root), str(game_path(root, name))],
                          capture_output=True, text=True, env={**os.environ, "GAMEDSL_CACHE": cache})
    try:
        return json.loads(proc.stdout.splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}


def load_entry(impl: str, root: Path, name: str, repeats: int) -> dict:
    """Cold (an empty cache) and warm (the same cache again) load times of a game, the best of `repeats`."""
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="gamedsl-bench-") as cache:
            first, second = load_ms(root, name, cache), load_ms(root, name, cache)
        if "error" in first or "error" in second:
            return {"impl": impl, "game": name, "cold_ms": None, "warm_ms": None,
                    "error": first.get("error") or second.get("error")}
        cold.append(first["ms"])
        warm.append(second["ms"])
    return {"impl": impl, "game": name, "cold_ms": min(cold), "warm_ms": min(warm)}


def load_section(engines: dict, names: list[str], repeats: int) -> list[dict]:
    note("load + check")
    return [load_entry(impl, root, name, repeats) for name in names for impl, (root, _) in engines.items()]


def engine_section(engines: dict, op: str, keys: tuple, tasks: list, args: dict) -> list[dict]:
    """One measurement `op` of every (game, players) by every engine, one game at a time; every
    entry has the `keys` (None when it failed)."""
    entries = []
    for name, players in tasks:
        note(f"{op}: {name} {players}p")
        for impl, (_, engine) in engines.items():
            entries.append({"impl": impl, "game": name, "players": players, **dict.fromkeys(keys),
                            **engine(op, {"name": name, "players": players, **args})})
    return entries


def clone_section(engines: dict, tasks: list, seconds: float, rows: list[dict]) -> list[dict]:
    """µs per clone, and over the µs per random move of the same engine, game and players."""
    per_move = {(r["impl"], r["game"], r["players"]): r["us_per_move"] for r in rows}
    entries = engine_section(engines, "clone", ("clones", "us_per_clone"), tasks, {"seconds": seconds})
    for e in entries:
        move = per_move.get((e["impl"], e["game"], e["players"]))
        ok = "error" not in e and move
        e.update(us_per_move=move, clone_per_move=e["us_per_clone"] / move if ok else None)
    return entries


def calls_section(engines: dict, players: int, games: int) -> list[dict]:
    """Function calls per move of Laus at random: plain, state and each engine, on the same seeds."""
    from bench import plain_laus, plain_laus_state
    note(f"calls per move: laus {players}p")
    entries = [{"impl": impl, "game": "laus", "players": players,
                **calls_per_move(lambda seed, m=module: m.play_random_game(players, seed), games)}
               for impl, module in (("plain", plain_laus), ("state", plain_laus_state))]
    entries += [{"impl": impl, "game": "laus", "players": players, "games": None, "moves": None, "calls_per_move": None,
                 **engine("calls", {"name": "laus", "players": players, "games": games})}
                for impl, (_, engine) in engines.items()]
    state = entries[1]["calls_per_move"]
    for e in entries:
        e["x_state"] = e["calls_per_move"] / state if e.get("calls_per_move") else None
    return entries


EDITS = [(">= 2 { land(me, discard2) }", f">= {n} {{ land(me, discard2) }}") for n in (3, 4, 5)]  # one Law rule


def check_ms(root: Path, path: Path, cache: str) -> float | None:
    """Milliseconds of `gamedsl check PATH` in a fresh process (the designer's edit-check loop), with
    GAMEDSL_CACHE=cache; None when it does not say ok."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gamedsl.tools.cli", "check", str(path)], capture_output=True,
                          text=True, cwd=root, env={**os.environ, "GAMEDSL_CACHE": cache, "PYTHONPATH": str(root)})
    ms = (time.perf_counter() - start) * 1000
    return ms if proc.returncode == 0 and proc.stdout.strip().endswith(": ok") else None


def edit_entry(impl: str, root: Path) -> dict:
    """`gamedsl check` of Law: cold (an empty cache), unchanged (cached), and after an edit to one
    rule with the cache holding the file before the edit (the best of the EDITS, each a new text)."""
    law = game_path(root, "law").read_text(encoding="utf-8")
    if EDITS[0][0] not in law:
        return {"impl": impl, "game": "law", "cold_ms": None, "same_ms": None, "edit_ms": None,
                "error": "the edited rule is not in this law.game"}
    with tempfile.TemporaryDirectory(prefix="gamedsl-bench-") as cache:
        path = Path(cache) / "law.game"
        path.write_text(law, encoding="utf-8")
        cold = check_ms(root, path, cache)
        same = check_ms(root, path, cache)
        edits = []
        for old, new in EDITS:
            path.write_text(law.replace(old, new, 1), encoding="utf-8")
            edits.append(check_ms(root, path, cache))
            path.write_text(law, encoding="utf-8")
            check_ms(root, path, cache)  # the cache holds the file before the next edit again
    ok = None not in edits
    return {"impl": impl, "game": "law", "cold_ms": cold, "same_ms": same, "edit_ms": min(edits) if ok else None,
            **({} if ok and cold and same else {"error": "gamedsl check did not say ok"})}


def edit_section(engines: dict) -> list[dict]:
    note("edit + check: law")
    return [edit_entry(impl, root) for impl, (root, _) in engines.items()]


def greedy_section(engines: dict, tasks: list, decisions: int) -> list[dict]:
    """ms per greedy decision; with --before, gamedsl's entries also say how many times faster they are."""
    entries = engine_section(engines, "greedy", ("decisions", "median_ms", "mean_ms", "max_ms"), tasks,
                             {"decisions": decisions})
    mean = {(e["impl"], e["game"]): e["mean_ms"] for e in entries}
    for e in entries:
        before = mean.get(("before", e["game"]))
        ours = e["mean_ms"] if e["impl"] == "gamedsl" else None
        e["speedup_vs_before"] = before / ours if before and ours else None
    return entries


# ---- the run

def rounded(value):
    """The results with every figure to 3 decimals, for --json."""
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return round(value, 3) if isinstance(value, float) else value


def game_names(only: str | None) -> list[str]:
    """The games to measure: every games/*.game (and Hearts, for the greedy section), or those named."""
    every_name = sorted(p.stem for p in (ROOT / "games").glob("*.game")) + [HEARTS]
    if not only:
        return every_name
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(every_name))
    if unknown:
        sys.exit(f"unknown game(s): {', '.join(unknown)}; known: {', '.join(every_name)}")
    return [n for n in every_name if n in names]


def run(args) -> dict:
    """Every section, in one run; --before's engine is measured next to this one in each."""
    seconds = args.seconds if args.seconds is not None else 0.5 if args.quick else 3.0
    names = game_names(args.games)
    seeds = [n for n in names if n != HEARTS]
    counts = {n: player_counts(game_path(ROOT, n), args.quick) for n in seeds}
    fewest = [(n, counts[n][0]) for n in seeds]
    engines = {"gamedsl": (ROOT, open_engine(ROOT))}
    if args.before:
        engines["before"] = (Path(args.before).resolve(), Worker(Path(args.before).resolve()))
    try:
        rows, ratios = playout_section(engines, [(n, k) for n in seeds for k in counts[n]], seconds)
        from bench import ab
        result = {"rows": rows, "ratios": ratios, "ab": ab.section(seeds, args.seconds or (0.3 if args.quick else 1.0), args.ab_rounds,
                                    (args.before, [(n, k) for n in seeds for k in counts[n]]) if args.before else ()),
                  "load": load_section(engines, seeds, 1 if args.quick else 3),
                  "edit": edit_section(engines) if "law" in seeds else [],
                  "calls": calls_section(engines, 3, 30 if args.quick else 200) if "laus" in seeds else [],
                  "clone": clone_section(engines, fewest, seconds, rows),
                  "greedy": greedy_section(engines, fewest + [(HEARTS, 4)] * (HEARTS in names),
                                           30 if args.quick else GREEDY_DECISIONS)}
    finally:
        if args.before:
            engines["before"][1].close()
    result["targets"] = targets(result, bool(args.before))
    return result


def main(argv: list[str] | None = None) -> None:
    """Parse the options, measure everything in one run, print the report (or its JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=None,
                        help="time spent on each measurement (default 3; 0.5 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="short measurements: 0.5 s each, one player count per non-Laus game, "
                             "30 greedy decisions, one load of each kind")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    parser.add_argument("--ab-rounds", type=int, default=5, metavar="N",
                        help="rounds of each A/B of CPU time (bench/ab.py; default 5)")
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="also measure the gamedsl of an older checkout, in the same run")
    parser.add_argument("--games", metavar="A,B", help="only these games (names of games/*.game, or hearts)")
    parser.add_argument("--engine-only", metavar="ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--load-one", nargs=2, metavar=("ROOT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.engine_only:
        return serve(args.engine_only)
    if args.load_one:
        return load_one(*args.load_one)
    sys.path.insert(0, str(ROOT))
    result = run(args)
    if args.json:
        print(json.dumps(rounded(result), indent=1))
    else:
        report(result, CLONE_EVERY)


if __name__ == "__main__":
    main()
