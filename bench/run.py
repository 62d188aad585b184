"""Speed of gamedsl, side by side in one run: random playouts (against plain-Python Laus and the
peer engines), load + check, clone, the greedy bot, and the targets they are held to.

Usage: python bench/run.py [--seconds S] [--quick] [--json] [--before CHECKOUT] [--games a,b,...]

bench/README.md explains each section, each target and the keys of --json.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]   # the checkout this script belongs to

MOVE_CAP = 1_000_000     # a random game longer than this is reported as stuck
ROUNDS = 5               # implementations of the same game are measured in this many alternating slices
CLONE_EVERY = 10         # the clone section copies the state at every 10th decision ...
CLONE_REPS = 100         # ... this many times
GREEDY_GAMES = 2         # the greedy section plays at most this many games ...
GREEDY_DECISIONS = 150   # ... and times this many decisions (30 with --quick)
HEARTS = "hearts"        # bench/hearts.game: a workload of the greedy section only
IMPLS = ("plain", "state", "gamedsl", "before")  # the order of the rows of one game; peers come after


def note(text: str) -> None:
    """Progress, on stderr: the report (or the JSON) alone goes to stdout."""
    print(text, file=sys.stderr, flush=True)


# ---- random playouts, timed

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


def random_playout(game, players: int) -> Callable[[int], int]:
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


def calls_per_move(play_one: Callable[[int], int], games: int) -> dict:
    """Function calls per move, as cProfile counts them (built-ins included), over random games with
    seeds 0 .. games-1: the work per move, free of the machine's speed."""
    import cProfile
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    moves = sum(play_one(seed) for seed in range(games))
    profile.disable()
    return {"games": games, "moves": moves, "calls_per_move": pstats.Stats(profile).total_calls / moves}


def clone_times(game, players: int, seed: int) -> tuple[float, int]:
    """One random game, copying the state CLONE_REPS times at every CLONE_EVERY-th decision:
    (seconds spent copying, copies made)."""
    state = game.new_state(players=players, seed=seed)
    choice = random.Random(seed).choice
    spent, clones, moves = 0.0, 0, 0
    while not state.is_terminal() and moves <= MOVE_CAP:
        if moves % CLONE_EVERY == 0:
            start = time.perf_counter()
            for _ in range(CLONE_REPS):
                state.clone(past=False)
            spent += time.perf_counter() - start
            clones += CLONE_REPS
        state.apply_action(choice(state.legal_actions()))
        moves += 1
    return spent, clones


def greedy_times(game, players: int, seed: int, make_bot, cap: int) -> list[float]:
    """One game with a greedy bot in every seat: the ms of its first `cap` real choices (two legal
    moves or more; a forced move is played untimed)."""
    bots = [make_bot("greedy", seed * 100 + p) for p in range(players)]
    state = game.new_state(players=players, seed=seed)
    times = []
    while not state.is_terminal() and len(times) < cap:
        start = time.perf_counter()
        action = bots[state.current_player()].choose(state)
        elapsed = time.perf_counter() - start
        if len(state.legal_actions()) > 1:
            times.append(elapsed * 1000)
        state.apply_action(action)
    return times


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


# ---- the targets

def find(entries: list[dict], **match) -> list[dict]:
    return [e for e in entries if all(e.get(k) == v for k, v in match.items())]


def verdict(target: str, figure: str, met: bool | None, why: str = "") -> dict:
    status = f"not measured ({why})" if met is None else "met" if met else "NOT met"
    return {"target": target, "figure": figure, "met": met, "status": status}


def label(e: dict) -> str:
    return f"{e['game']} {e['players']}p" if e.get("players") else e["game"]


COMPARE = {"<": operator.lt, "<=": operator.le, ">=": operator.ge, ">": operator.gt}


def every(target: str, entries: list[dict], key: str, test: str, limit: float, unit: str) -> dict:
    """A target every entry must meet: the worst figure, and which game has it."""
    if not entries:
        return verdict(target, "", None, "not in this run")
    failed = [label(e) for e in entries if e.get("error")]
    if failed:
        return verdict(target, "failed: " + ", ".join(failed), False)
    missing = [label(e) for e in entries if e[key] is None]  # no baseline or before in this run
    if missing:
        return verdict(target, "", None, "no figure for " + ", ".join(missing))
    worst = (min if test in (">=", ">") else max)(entries, key=lambda e: e[key])
    figure = f"{worst[key]:.2f}{unit}" if len(entries) == 1 else \
        f"worst {worst[key]:.2f}{unit} ({label(worst)}, of {len(entries)})"
    return verdict(target, figure, COMPARE[test](worst[key], limit))


def versus_peer(target: str, ours: list[dict], peer: list[dict], key: str, limit: float, unit: str,
                slices: list[dict]) -> dict:
    """A target relative to a peer's figure in the same run: the peer's time per move over ours
    must be at least `limit`. Measured in alternating slices (PAIRED), the median of the slices'
    ratios decides; else the totals, measured one after the other."""
    digits = 0 if key == "moves_per_s" else 2
    if not peer or peer[0].get("error") == "not installed":
        return verdict(target, "", None, "peer not installed")
    if not ours:
        return verdict(target, "", None, "not in this run")
    a, b = ours[0], peer[0]
    if a.get("error") or b.get("error"):
        return verdict(target, f"failed: {a.get('error') or b.get('error')}", False)
    figure = f"{a[key]:.{digits}f} vs {b[key]:.{digits}f} {unit}"
    if slices:
        ratio = slices[0]["median"]
        return verdict(target, f"{figure}; its time per move over ours {ratio:.2f}x, median of "
                               f"{slices[0]['slices']} alternating slices", ratio >= limit)
    ratio = b["us_per_move"] / a["us_per_move"]
    return verdict(target, f"{figure}; its time per move over ours {ratio:.2f}x", ratio >= limit)


def by_ab(target: str, result: dict, a: str, b: str, test: str, limit: float) -> dict | None:
    """A target decided by the A/B of a and b (bench/ab.py: B's CPU time per move over A's, in
    separate processes by turns), or None when this run has none."""
    found = [r for r in result.get("ab", ()) if (r["a"], r["b"]) == (a, b)]
    if not found:
        return None
    r = found[0]
    if "error" in r:
        why = r["error"]
        return verdict(target, "", None, why) if why.endswith("not installed") else verdict(target, why, False)
    return verdict(f"{target} (A/B of CPU time)", f"{r['median']:.2f}x, median of {r['rounds']} rounds in "
                   f"separate processes (range {r['low']:.2f}-{r['high']:.2f})", COMPARE[test](r["median"], limit))


def targets(result: dict, before: bool) -> list[dict]:
    rows, ours = result["rows"], {"impl": "gamedsl"}
    laus = [by_ab(f"Laus {n}p <= 2.0x state", result, f"state:laus:{n}", f"gamedsl:laus:{n}", "<=", 2.0) or
            every(f"Laus {n}p <= 2.0x state (median of alternating slices)",
                  find(result["ratios"], game="laus", players=n, versus="state", **ours), "median", "<=", 2.0, "x")
            for n in (3, 4)]
    faster = every("every game faster per move than before (median of alternating slices)",
                   find(result["ratios"], impl="before", versus="gamedsl"), "median", ">", 1.0, "x") if before else \
        verdict("every game faster per move than before (median of alternating slices)", "", None, "needs --before")
    return laus + [faster] + [
        by_ab("LOL moves/s >= RLCard UNO moves/s (2p): UNO's time per move over ours >= 1", result,
              "gamedsl:lol:2", "rlcard:uno:2", ">=", 1.0) or
        versus_peer("LOL moves/s >= RLCard UNO moves/s (2p)", find(rows, game="lol", players=2, **ours),
                    find(rows, impl="rlcard", game="uno"), "moves_per_s", 1.0, "moves/s",
                    find(result["ratios"], impl="rlcard", game="uno", versus="gamedsl")),
        by_ab("Crazy Eights us/move <= 2x OpenSpiel crazy_eights (2p): its time per move over ours >= 0.5",
              result, "gamedsl:crazy_eights:2", "openspiel:crazy_eights:2", ">=", 0.5) or
        versus_peer("Crazy Eights us/move <= 2x OpenSpiel crazy_eights (2p)",
                    find(rows, game="crazy_eights", players=2, **ours),
                    find(rows, impl="openspiel", game="crazy_eights"), "us_per_move", 0.5, "us/move",
                    find(result["ratios"], impl="openspiel", game="crazy_eights", versus="gamedsl")),
        by_ab("Law 2p <= 8x plain Laus 3p", result, "plain:laus:3", "gamedsl:law:2", "<=", 8.0) or
        every("Law <= 8x plain", find(rows, game="law", **ours), "x_plain", "<=", 8.0, "x"),
        every("warm load < 100 ms, every game", find(result["load"], **ours), "warm_ms", "<", 100, " ms"),
        every("Laus calls per move <= 1.3x state's (3p)", find(result["calls"], **ours), "x_state", "<=", 1.3, "x"),
        every("gamedsl check law.game after an edit to one rule < 300 ms", find(result["edit"], **ours),
              "edit_ms", "<", 300, " ms"),
        every("clone <= 3 random moves, every seed game", find(result["clone"], **ours),
              "clone_per_move", "<=", 3.0, " moves"),
        every("greedy median <= 10 ms, every game incl. Hearts", find(result["greedy"], **ours),
              "median_ms", "<=", 10.0, " ms"),
        every("greedy >= 3x faster than before (mean), every game", find(result["greedy"], **ours),
              "speedup_vs_before", ">=", 3.0, "x") if before else
        verdict("greedy >= 3x faster than before (mean), every game", "", None, "needs --before"),
    ]


# ---- the text report

class Col(NamedTuple):
    header: str
    key: str
    width: int
    fmt: str = ""   # a number's format; "" for text, left-aligned


IMPL, GAME, PLAYERS = Col("impl", "impl", 9), Col("game", "game", 14), Col("pl", "players", 2, "d")


def cell(col: Col, e: dict) -> str:
    v = e.get(col.key)
    if not col.fmt:
        return f"{v or '':<{col.width}}"
    return f"{'-' if v is None else format(v, col.fmt):>{col.width}}"


def table(title: str, cols: list[Col], entries: list[dict]) -> None:
    """A section: its title, a header, and an entry a line (a failed one says why)."""
    print(f"\n{title}")
    head = " ".join(f"{c.header:<{c.width}}" if not c.fmt else f"{c.header:>{c.width}}" for c in cols)
    print(head)
    print("-" * len(head))
    for e in entries:
        if e.get("error"):
            shown = [c for c in cols[:3] if c.key in e]
            why = " ".join(e["error"].split())  # one line, however the error was written
            why = why if why == "not installed" else f"FAILED {why[:160]}"
            print(" ".join(cell(c, e) for c in shown), why)
        else:
            print(" ".join(cell(c, e) for c in cols))


def report(result: dict) -> None:
    table("Random playouts (a move is one decision of a player)",
          [IMPL, GAME, PLAYERS, Col("games", "games", 7, "d"), Col("moves/s", "moves_per_s", 10, ".0f"),
           Col("us/move", "us_per_move", 8, ".2f"), Col("x plain", "x_plain", 8, ".2f")], result["rows"])
    print("x plain: time per move / plain Laus time per move (Laus: same player count; "
          "other games: the mean of plain Laus 3p and 4p, as a yardstick).")
    for q in result["ratios"]:
        versus = q["versus"] if q["versus_game"] == q["game"] else f"{q['versus']} {q['versus_game']}"
        print(f"{q['impl']} {q['game']} {q['players']}p: {q['median']:.2f}x {versus}'s time per move "
              f"(median of {q['slices']} alternating slices; range {q['low']:.2f}-{q['high']:.2f})")
    if result.get("ab"):
        from bench import ab
        print("\nA/B of CPU time (bench/ab.py: separate processes by turns, A B B A ...)")
        for r in result["ab"]:
            print("  " + ab.line(r))
    table("Load + check (ms inside load_game, a fresh process each; cold: empty cache, warm: from the cache)",
          [IMPL, GAME, Col("cold ms", "cold_ms", 8, ".1f"), Col("warm ms", "warm_ms", 8, ".1f")], result["load"])
    table("Edit + check (ms of `gamedsl check law.game` in a fresh process; cold: empty cache, same: unchanged, "
          "edit: after an edit to one rule)",
          [IMPL, GAME, Col("cold ms", "cold_ms", 8, ".0f"), Col("same ms", "same_ms", 8, ".0f"),
           Col("edit ms", "edit_ms", 8, ".0f")], result["edit"])
    table("Calls per move (cProfile's count of function calls, built-ins included; random Laus games, same seeds)",
          [IMPL, GAME, PLAYERS, Col("moves", "moves", 7, "d"), Col("calls/move", "calls_per_move", 10, ".1f"),
           Col("x state", "x_state", 8, ".2f")], result["calls"])
    table(f"Clone (state.clone(past=False) at every {CLONE_EVERY}th decision of random games, fewest players)",
          [IMPL, GAME, PLAYERS, Col("us/clone", "us_per_clone", 9, ".2f"), Col("us/move", "us_per_move", 8, ".2f"),
           Col("clone/move", "clone_per_move", 10, ".2f")], result["clone"])
    table("Greedy (ms per decision with 2+ legal moves; a greedy bot in every seat)",
          [IMPL, GAME, PLAYERS, Col("decisions", "decisions", 9, "d"), Col("median", "median_ms", 7, ".2f"),
           Col("mean", "mean_ms", 7, ".2f"), Col("max", "max_ms", 7, ".1f"),
           Col("x faster", "speedup_vs_before", 8, ".2f")], result["greedy"])
    print("\nTargets")
    for t in result["targets"]:
        mark = {True: "met", False: "NOT met", None: "-"}[t["met"]]
        print(f"  {mark:8} {t['target']}: {t['figure'] if t['met'] is not None else t['status']}")


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
        result = {"rows": rows, "ratios": ratios, "ab": ab.section(seeds, args.seconds or (0.3 if args.quick else 1.0), args.ab_rounds),
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
        report(result)


if __name__ == "__main__":
    main()
