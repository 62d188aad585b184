"""Bots against bots with the seats rotated, and each entry's figures with their uncertainty: `gamedsl arena`.

docs/arena.md explains the design: the rotation, the statistics and the significance test.
"""
from __future__ import annotations

import json
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..bots import BOTS, make_bot
from ..engine import load_source
from ..errors import GamedslError, GameRuntimeError
from .console import load, say, stderr, stdout
from .simulate import bot_seed, effective_options, players_and_seats
from .stats import mean_ci, paired_test, wilson
from .workers import run_tasks, with_progress

TEST = ("two-sided paired t-test at 5% over the deals (a deal's difference: its mean over its rotations); "
        "no correction for multiple pairs")

# ---- the entries and the rotation

def entry_names(specs: list[str]) -> list[str]:
    """Each seat entry's name: its spec, numbered ("greedy #2") when the same spec is there more than once."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(f"{spec} #{seen[spec]}" if specs.count(spec) > 1 else spec)
    return names


def seat_specs(text: str) -> list[str]:
    """The bot specs of `--seats A,B,...`, each passed to make_bot as written (only spaces trimmed)."""
    return [spec.strip() for spec in text.split(",")]


def check_bots(specs: list[str]):
    """Make each bot once, so that a spec make_bot refuses is one clear GamedslError before any game."""
    for spec in specs:
        if not spec:
            raise GamedslError(f"an empty seat in --seats (the bots: {', '.join(BOTS)})")
        try:
            make_bot(spec, 0)
        except KeyError:
            raise GamedslError(f"'{spec}' is not a bot (the bots: {', '.join(BOTS)})") from None
        except ValueError as exc:
            raise GamedslError(f"bad bot '{spec}': {exc}") from None


def seating(entries: int, rotation: int) -> list[int]:
    """The entry at each position in this rotation: entry e sits at position (e + rotation) mod k."""
    return [(p - rotation) % entries for p in range(entries)]


def schedule(games: int, entries: int, seed: int) -> list[tuple[int, int, int]]:
    """Every game as (deal, rotation, seed): `games` rounded up to whole deals of `entries` rotations,
    every rotation of deal d played with the seed `seed + d`."""
    deals = -(-games // entries)
    return [(d, r, seed + d) for d in range(deals) for r in range(entries)]


def play_timed(game, seed: int, specs: list[str], options: dict) -> tuple:
    """One game, the bot `specs[p]` at position p: the final state, and each position's moves and seconds.

    It is the game `gamedsl play FILE --seed SEED --seats SPECS` plays (the same bot seeds)."""
    n = len(specs)
    state = game.new_state(players=n, seed=seed, options=options)
    bots = [make_bot(spec, bot_seed(seed, p)) for p, spec in enumerate(specs)]
    moves, seconds = [0] * n, [0.0] * n
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.perf_counter()
        move = bots[p].choose(state)
        seconds[p] += time.perf_counter() - t0  # only the bot's own thinking, not the engine's move
        moves[p] += 1
        state.apply_action(move)
    return state, moves, seconds


def play_one(game, specs: list[str], options: dict, task: tuple) -> dict:
    """The game of one (deal, rotation, seed), seen per entry: win, return, place, moves, seconds."""
    deal, rotation, seed = task
    order = seating(len(specs), rotation)
    seats = [specs[e] for e in order]
    which = f"deal {deal + 1}, rotation {rotation + 1} (seed {seed}, seats {','.join(seats)})"
    try:
        state, moves, seconds = play_timed(game, seed, seats, options)
    except GameRuntimeError as exc:  # a rule failed: where in the file, then which game
        raise exc.within(f"in {which}") from None
    except GamedslError as exc:
        raise GamedslError(f"{which}: {exc}") from None
    k, finished = len(specs), not state.limit_hit

    def by_entry(values: list) -> list:  # per position -> per entry: entry e sat at (e + rotation) mod k
        return [values[(e + rotation) % k] for e in range(k)]

    return {"limit_hit": state.limit_hit, "position": by_entry(list(range(k))),
            "win": by_entry([finished and r == "win" for r in state.results]), "return": by_entry(state.returns()),
            "place": by_entry(state.places if finished else [None] * k),
            "moves": by_entry(moves), "seconds": by_entry(seconds)}


# ---- the arena

def arena(game, specs: list[str], games: int, seed: int = 0, options: dict | None = None, progress=None,
          jobs: int = 1) -> dict:
    """Play at least `games` games between the bots `specs` (one per player), rotating the seats; the figures.

    Games come in deals of k rotations (k = players); each entry sits in each position once per deal
    and every rotation of a deal has the same seed. `progress(i)` is called as games finish; `jobs`
    worker processes play them. The same arguments give the same result, whatever `jobs`, apart
    from the seconds. Raises GamedslError.
    """
    if games < 1:
        raise GamedslError("the arena needs at least one game")
    check_bots(specs)
    k = len(specs)
    options = effective_options(game, options or {})
    game.new_state(players=k, seed=seed, options=options)  # checks the player count before the games
    tasks = schedule(games, k, seed)
    played = play_all(game, specs, options, tasks, progress, jobs)
    return summarize(game, specs, games, seed, options, tasks, played)


def play_all(game, specs: list[str], options: dict, tasks: list, progress=None, jobs: int = 1) -> list[dict]:
    """Every game of the schedule, in its order: here, or in `jobs` worker processes."""
    return run_tasks(_setup, (game.text, game.prog.filename, specs, options), _play_task, tasks, jobs, progress)


def _setup(text: str, filename: str, specs: list[str], options: dict) -> tuple:
    return load_source(text, filename), specs, options  # from the cache, like the parent's


def _play_task(context: tuple, task: tuple) -> dict:
    game, specs, options = context
    return play_one(game, specs, options, task)


def summarize(game, specs, asked: int, seed: int, options: dict, tasks: list, played: list) -> dict:
    """The arena's result (see docs/arena.md for its keys) from its games, in schedule order."""
    k, names = len(specs), entry_names(specs)
    deals = len(tasks) // k
    per_entry = [_entry_figures(e, names[e], specs[e], played) for e in range(k)]
    pairs = [_pair_figures(a, b, names, played, deals, k) for a in range(k) for b in range(a + 1, k)]
    for row in per_entry:
        row["better_than"] = _significant(row["entry"], pairs, +1)
        row["worse_than"] = _significant(row["entry"], pairs, -1)
    return {
        "game": game.name, "players": k, "seats": list(specs), "entries": names, "seed": seed,
        "games_asked": asked, "games": len(tasks), "deals": deals, "rotations": k,
        "seeds": [seed, seed + deals - 1],
        "options": {n: v if n not in game.prog.option_choices else game.option_text(n, v) for n, v in options.items()},
        "limit_hit": sum(g["limit_hit"] for g in played), "test": TEST,
        "per_entry": per_entry, "pairs": pairs,
    }


def _entry_figures(e: int, name: str, spec: str, played: list) -> dict:
    wins = sum(g["win"][e] for g in played)
    place, place_ci = mean_ci([g["place"][e] for g in played if g["place"][e] is not None])
    ret, ret_ci = mean_ci([g["return"][e] for g in played])
    by_position = [0] * len(played[0]["win"])
    for g in played:
        by_position[g["position"][e]] += g["win"][e]
    moves = sum(g["moves"][e] for g in played)
    seconds = sum(g["seconds"][e] for g in played)
    return {"entry": name, "bot": spec, "games": len(played), "wins": wins, "win_rate": wins / len(played),
            "win_rate_ci": list(wilson(wins, len(played))), "wins_by_position": by_position, "mean_place": place,
            "mean_place_ci": list(place_ci) if place_ci else None, "mean_return": ret,
            "mean_return_ci": list(ret_ci) if ret_ci else None, "moves": moves,
            "seconds_per_move": seconds / moves if moves else None}


def _pair_figures(a: int, b: int, names: list, played: list, deals: int, k: int) -> dict:
    """Entry a against entry b, paired by deal: each deal's difference is the mean over its k rotations."""
    def per_deal(key):
        return [sum(g[key][a] - g[key][b] for g in played[d * k:(d + 1) * k]) / k for d in range(deals)]

    return {"a": names[a], "b": names[b], "win_rate": paired_test(per_deal("win")),
            "mean_return": paired_test(per_deal("return"))}


def _significant(name: str, pairs: list, sign: int) -> list[str]:
    """The entries this one beats (sign +1) or loses to (-1) in win rate, significantly."""
    found = []
    for pair in pairs:
        test = pair["win_rate"]
        if not test["significant"] or name not in (pair["a"], pair["b"]):
            continue
        ahead = test["diff"] > 0 if name == pair["a"] else test["diff"] < 0
        if ahead == (sign > 0):
            found.append(pair["b"] if name == pair["a"] else pair["a"])
    return found


# ---- the command

def cmd_arena(args) -> int:
    """`gamedsl arena FILE --seats A,B,... --games N`: play, then print the table or the JSON."""
    try:
        check_bots(args.seats)
    except GamedslError as exc:  # a bad spec is a usage error, found before the game is loaded
        print(f"gamedsl arena: error: {exc}", file=sys.stderr)
        return 2
    game = load(args.file)
    _, specs = players_and_seats(game, args.players, args.seats, None)
    t0 = time.perf_counter()
    result = with_progress("arena", -(-args.games // len(specs)) * len(specs), lambda progress: arena(
        game, specs, args.games, args.seed, dict(args.option), progress=progress, jobs=args.jobs), stderr())
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_arena(stdout(), result, time.perf_counter() - t0)
    return 0


def _rate(value: float, ci) -> str:
    """`0.62 (0.41–0.79)`: a rate and its Wilson interval."""
    return f"{value:.2f} ({ci[0]:.2f}–{ci[1]:.2f})"


def _pm(value, ci, sign: str = "") -> str:
    """`+0.25 ±0.31`: a mean and the half-width of its (symmetric) 95% interval."""
    if value is None:
        return "—"
    return f"{value:{sign}.2f}" + ("" if ci is None else f" ±{(ci[1] - ci[0]) / 2:.2f}")


def _p(test: dict) -> str:
    if test["p"] is None:
        return "—"
    text = "<0.001" if test["p"] < 0.001 else f"{test['p']:.3f}"
    return text + (" *" if test["significant"] else "")


def _table(*columns: str) -> Table:
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for i, c in enumerate(columns):
        table.add_column(c, justify="left" if i == 0 else "right", header_style="bold")
    return table


def print_arena(out: Console, r: dict, elapsed: float):
    """The arena's result as text: a header, a row per entry, a row per pair, the verdicts, the move limit."""
    deals = r["deals"]
    rounded = f" ({r['games_asked']} asked, rounded up to whole deals)" if r["games"] != r["games_asked"] else ""
    opts = ", ".join(f"{n}={v}" for n, v in r["options"].items())
    say(out, f"{r['game']}: {r['games']} games{rounded} = {deals} deal{'s' if deals != 1 else ''} × "
             f"{r['rotations']} seatings, {r['players']} players, seeds {r['seeds'][0]}..{r['seeds'][1]}"
             + (f", options {opts}" if opts else "") + f" ({elapsed:.1f} s)", "bold")
    entries = _table("entry", "wins", "win rate (95% CI)", "mean place ±CI", "mean return ±CI", "ms/move")
    for e in r["per_entry"]:
        ms = "—" if e["seconds_per_move"] is None else f"{1000 * e['seconds_per_move']:.3g}"
        entries.add_row(escape(e["entry"]), str(e["wins"]), _rate(e["win_rate"], e["win_rate_ci"]),
                        _pm(e["mean_place"], e["mean_place_ci"]), _pm(e["mean_return"], e["mean_return_ci"], "+"),
                        ms)
    out.print(entries)
    pairs = _table("pair (a − b)", "Δ win rate ±CI", "p", "Δ mean return ±CI", "p")
    for pair in r["pairs"]:
        w, m = pair["win_rate"], pair["mean_return"]
        pairs.add_row(escape(f"{pair['a']} − {pair['b']}"), _pm(w["diff"], w["ci"], "+"), _p(w),
                      _pm(m["diff"], m["ci"], "+"), _p(m))
    out.print(pairs)
    say(out, f"p: {r['test']}; * significant", "dim")
    for line in _verdicts(r):
        say(out, line)
    hit = r["limit_hit"]
    say(out, f"{hit} game{'s' if hit != 1 else ''} reached the move limit (unfinished: no winner, "
             "returns 0, no places)", "yellow" if hit else "dim")


def _verdicts(r: dict) -> list[str]:
    """One line per entry that wins significantly more often than others, or why nothing can be said."""
    if r["deals"] < 2:
        return ["one deal only: the pairs have no interval and no test; play more games"]
    lines = [f"{e['entry']} wins significantly more often than {', '.join(e['better_than'])}"
             for e in r["per_entry"] if e["better_than"]]
    return lines or ["no difference in win rate is significant at 5%"]
