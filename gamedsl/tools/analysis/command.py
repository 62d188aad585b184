"""`gamedsl analyze`: which versions to play, the games of each, and the report in the terminal,
as JSON or as an HTML page."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import attrs

from ...errors import GamedslError
from ..arena import check_bots
from ..console import load, say, stderr, stdout
from ..simulate import effective_options, players_and_seats
from ..workers import check_ray, run_tasks, with_progress
from ..simulate import seat_kinds
from . import metrics as M
from . import probes as P
from . import reach as R
from .versions import compare
from .observe import Context, setup, watch_task

from .options import PROBES

SKILL_AGAINST = ("random", "greedy")  # the tables the strong bot is measured against (not itself)
PROBE_SHARE = 1.3  # the probes of a second look, for --minutes: about 3 in 10 more than the first look's


class UsageError(GamedslError):
    """A bad combination of arguments: exit 2, before any game is played."""


@attrs.define
class Version:
    label: str
    game: object
    options: dict


def cmd_analyze(args) -> int:
    try:
        game = load(args.file)
        plan = _plan(args, game)
    except UsageError as exc:
        print(f"gamedsl analyze: error: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.minutes:
        plan.update(budget(plan, args, stderr()))
    run = lambda progress: analyze(  # noqa: E731
        plan["versions"], plan["players"], plan["games"], plan["seats"], args.bot, plan["skill_games"], args.seed,
        jobs=args.jobs, ray=args.ray, progress=progress, probes=plan["probes"], counts=plan["counts"])
    result = with_progress("analyze", plan_total(plan), run, stderr())
    result["elapsed"] = time.perf_counter() - t0
    result["jobs"] = "ray" if args.ray else args.jobs
    result["budget"] = plan.get("budget")  # what --minutes chose, in words
    if args.out:
        from .html import write_report
        write_report(result, args.out)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_report(stdout(), result, args.out)
    return 0


def _plan(args, game) -> dict:
    """The versions, players, seats and game counts; every mistake in the arguments as a UsageError."""
    low, high = args.players or (None, None)
    try:
        players, seats = players_and_seats(game, low, args.seats.split(",") if args.seats else None,
                                           lambda n: [args.bot])
        if high is not None and not game.min_players <= high <= game.max_players:
            raise GamedslError(f"{game.name} is for {game.players_text()}, not {high}")
    except GamedslError as exc:
        raise UsageError(str(exc)) from None
    if high is not None and high > players and args.seats and len(args.seats.split(",")) > 1:
        raise UsageError("--players with a range takes one bot for every seat in --seats, not one per seat")
    seats = [s.strip() for s in seats]
    try:
        check_bots(sorted({*seats, args.bot}))
    except GamedslError as exc:
        raise UsageError(str(exc)) from None
    chosen = [x for x in ("sweep", "compare", "compare_option") if getattr(args, x)]
    if len(chosen) > 1:
        raise UsageError("give one of --sweep, --compare and --compare-option")
    base = dict(args.option)
    versions = []
    try:
        if args.sweep:
            name, values = args.sweep
            for value in [v.strip() for v in values.split(",") if v.strip()]:
                versions.append(Version(f"{name}={value}", game, effective_options(game, {**base, name: value})))
            if len(versions) < 2:
                raise UsageError(f"--sweep {name}= needs at least two values, comma-separated")
        else:
            versions.append(Version(Path(args.file).name, game, effective_options(game, base)))
        if args.compare_option:
            name, value = args.compare_option
            versions[0].label = "as given"
            versions.append(Version(f"{name}={value}", game, effective_options(game, {**base, name: value})))
        if args.compare:
            other = load(args.compare)
            _same_shape(game, other, players, args.compare)
            versions.append(Version(Path(args.compare).name, other, effective_options(other, base)))
    except UsageError:
        raise
    except GamedslError as exc:  # an unknown option or a bad value
        raise UsageError(str(exc)) from None
    if args.ray:
        try:
            check_ray(args.ray)
        except GamedslError as exc:
            raise UsageError(str(exc)) from None
    if args.out:
        _check_writable(args.out)
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--out draws its plots with matplotlib, which is not installed: "
                             "pip install 'gamedsl[report]'")
    skill_games = args.skill_games or max(1, args.games // 2)
    return {"versions": versions, "players": players, "seats": seats, "games": args.games,
            "skill_games": skill_games, "probes": args.probes, "bot": args.bot,
            "counts": list(range(players + 1, (high or players) + 1))}


def plan_total(plan: dict) -> int:
    """The tasks of a plan, for the progress bar: games, and the first look's probes (the second
    look's are added to the bar when they are known)."""
    per_version = plan["games"] + len(_skill_sets(plan["bot"])) * _round_up(plan["skill_games"], plan["players"])
    kinds = len({plan["versions"][0].game.card_name(c) for c in range(plan["versions"][0].game.card_count())})
    return (per_version + plan["probes"] * kinds) * len(plan["versions"]) + plan["games"] * len(plan["counts"])


def budget(plan: dict, args, err) -> dict:
    """Games, skill games and probes chosen to end in about `--minutes`: a few games of the first
    version are timed first (the fairness games, and each weaker table), and everything is scaled
    from the defaults (200 games, 100 per weaker table, 10 probes per card) to fit."""
    v = plan["versions"][0]
    players, bot, jobs = plan["players"], plan["bot"], max(1, args.jobs)
    pilot = max(2, jobs)
    tasks = tasks_of(players, pilot, plan["seats"], bot, _round_up(pilot, players), args.seed)
    t0 = time.perf_counter()
    records = run_tasks(setup, (v.game.text, v.game.prog.filename, players, v.options), watch_task, tasks, jobs,
                        None, args.ray)
    seconds = (time.perf_counter() - t0) * jobs / len(records)  # one worker's time for one game, on average
    kinds = len({v.game.card_name(c) for c in range(v.game.card_count())})
    sets = len(_skill_sets(bot))
    # a probe plays the game on twice, and a second look adds a share more (probes.py)
    per_unit = seconds * (200 + sets * 100 + kinds * 10 * 2 * PROBE_SHARE + 200 * len(plan["counts"])) \
        * len(plan["versions"]) / jobs
    scale = max(0.05, (args.minutes * 60 - (time.perf_counter() - t0)) / per_unit)
    games = max(10, round(200 * scale))
    skill_games = max(players, round(100 * scale))
    probes = 0 if args.probes == 0 else max(2, round(args.probes * scale))
    half = 100 * 1.96 * 0.5 / games ** 0.5
    note = (f"--minutes {args.minutes:g}: about {seconds:.2f} s a game here, so {games} games per version, "
            f"{skill_games} per weaker table and {probes} probes per card; a win rate's interval is then about "
            f"±{half:.0f} points at most")
    say(err, note, "dim")
    return {"games": games, "skill_games": skill_games, "probes": probes, "budget": note}


def _same_shape(game, other, players: int, path: str):
    if not other.min_players <= players <= other.max_players or \
            (other.min_players, other.max_players) != (game.min_players, game.max_players):
        raise UsageError(f"{path} is for {other.players_text()}, the game for {game.players_text()}: "
                         "compare versions of one game")
    if set(other.prog.options) != set(game.prog.options):
        diff = sorted(set(other.prog.options) ^ set(game.prog.options))
        raise UsageError(f"{path} has other options than the game ({', '.join(diff)}): compare versions of one game")


def _check_writable(out: str):
    path = Path(out)
    if path.is_dir():
        raise UsageError(f"--out {out}: that is a folder; give a file name such as report.html")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"--out {out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"--out {out}: cannot write there")


def _round_up(games: int, k: int) -> int:
    return -(-games // k) * k


def _skill_sets(bot: str) -> list[str]:
    return [other for other in SKILL_AGAINST if other != bot]


def tasks_of(players: int, games: int, seats: list[str], bot: str, skill_games: int, seed: int) -> list[tuple]:
    """Every game of one version as (set, index, seed, seats): the fairness games with `seats`, then
    for each weaker bot the strong `bot` at each position in turn among them (deals of one seed)."""
    tasks = [("main", i, seed + i, tuple(seats)) for i in range(games)]
    for other in _skill_sets(bot):
        for i in range(_round_up(skill_games, players)):
            deal, position = divmod(i, players)
            table = [other] * players
            table[position] = bot
            tasks.append((f"skill:{other}", i, seed + deal, tuple(table)))
    return tasks


def analyze(versions: list, players: int, games: int, seats: list[str], bot: str, skill_games: int,
            seed: int = 0, jobs: int = 1, ray: str | None = None, progress=None, probes: int = PROBES,
            counts: list[int] | None = None) -> dict:
    """Play every version's games (the same seeds for each), its card probes, and the fairness games
    of the other player `counts` (of the first version); compute the report (docs/analysis.md)."""
    tasks = tasks_of(players, games, seats, bot, skill_games, seed)
    done = [0]

    def run(version, count, work, todo, options=None):
        start = done[0]
        step = None if progress is None else (lambda k: progress(start + k))
        options = version.options if options is None else options
        out = run_tasks(setup, (version.game.text, version.game.prog.filename, count, options), work,
                        todo, jobs, step, ray)
        done[0] += len(todo)
        return out

    out_versions, records_by_version = [], []
    for v in versions:
        by_set: dict = {}
        for r in run(v, players, watch_task, tasks):
            by_set.setdefault(r["set"], []).append(r)
        context = Context(v.game.text, v.game.prog.filename, players, v.options)
        found = []
        if probes:  # a first look at every kind, then a second at those that lean (probes.py)
            kinds = len(context.kind_names)
            found = [x for x in run(v, players, P.probe_task, P.plan(by_set["main"], probes, kinds)) if x]
            second = P.confirm(by_set["main"], probes, found)
            if progress is not None and second:
                progress(done[0], more=len(second))  # the bar counted the first look only
            found += [x for x in run(v, players, P.probe_task, second) if x]
        never = R.never_fired(by_set["main"], context.elements)
        reach = {}
        if never:  # where the rules that never fired do fire (reach.py)
            if progress is not None:
                progress(done[0], more=R.REACH_GAMES * len(R.settings(v.game, players, v.options)))
            reach = R.look(v.game, players, v.options, never, seed,
                           lambda count, options, todo: run(v, count, watch_task, todo, options))
        records_by_version.append(by_set)
        out_versions.append({"label": v.label, "file": v.game.prog.filename, "game": v.game.name,
                             "options": {n: _option_text(v.game, n, x) for n, x in v.options.items()},
                             "metrics": M.version_metrics(context, by_set, bot, found if probes else None, reach)})
    comparisons = []
    for k in range(1, len(versions)):
        same = versions[k].game is versions[0].game
        c = compare(out_versions[0]["metrics"], out_versions[k]["metrics"], records_by_version[0],
                      records_by_version[k], same, players, bot)
        comparisons.append({"base": versions[0].label, "other": versions[k].label, **c})
    by_players = {}
    for count in counts or ():
        table = seat_kinds([seats[0]], count)  # a range of counts takes one bot for every seat (_plan)
        records = run(versions[0], count, watch_task, tasks_of(count, games, table, bot, 0, seed)[:games])
        by_players[str(count)] = M.fairness(records, count)
    if by_players:
        by_players = {str(players): out_versions[0]["metrics"]["fairness"], **by_players}
    return {"game": versions[0].game.name, "players": players, "games": games, "skill_games": skill_games,
            "seats": seats, "bot": bot, "seed": seed, "seeds": [seed, seed + games - 1], "probes": probes,
            "versions": out_versions, "comparisons": comparisons, "by_players": by_players, "budget": None}


def _option_text(game, name: str, value):
    """An option's value as the file writes it: a choice by its name, true/false in lower case."""
    if name in game.prog.option_choices:
        return game.option_text(name, value)
    return str(value).lower() if isinstance(value, bool) else value


# ---- the terminal

def print_report(out, r: dict, html: str | None):
    seats = r["seats"][0] + " in every seat" if len(set(r["seats"])) == 1 else ",".join(r["seats"])
    say(out, f"{r['game']}: {r['players']} players, {r['games']} games per version ({seats}), seeds "
             f"{r['seeds'][0]}..{r['seeds'][1]}; {r['elapsed']:.1f} s, jobs {r['jobs']}", "bold")
    if r.get("budget"):
        say(out, r["budget"], "dim")
    for v in r["versions"]:
        if len(r["versions"]) > 1:
            say(out, "")
            opts = ", ".join(f"{n}={x}" for n, x in v["options"].items())
            say(out, f"{v['label']}" + (f"  ({opts})" if opts else ""), "bold underline")
        _print_version(out, v["metrics"])
    if r["by_players"]:
        _print_counts(out, r["by_players"])
    for c in r["comparisons"]:
        _print_comparison(out, c)
    if html:
        say(out, f"report written to {html}", "dim")


def _print_version(out, m: dict):
    for f in m["findings"]:
        say(out, f"{f['topic']:<9} {f['text']}", None if f["significant"] else "dim")
    ln = m["length"]
    mv = ln["moves"]
    say(out, f"length    median {mv['median']:.0f} moves a game ({mv['median_ci'][0]:.0f}–{mv['median_ci'][1]:.0f}), "
             f"mean {M.mean_text(mv, digits=0)}, longest {mv['max']}; {M.pct(ln['forced']['mean'])} of a game's "
             f"decisions have one legal move, {ln['choices']['mean']:.1f} choices on average; "
             f"{ln['limit_hit']['count']} hit the move limit")
    t = m["tension"]
    if t["measured"]:
        mid = t["stages"]["50%"]
        say(out, f"tension   read by the {'game' if t['read'] == 'outcome' else 'heuristic'} at the end of each "
                 f"{t['by']}: {M.mean_text(t['lead_changes'], digits=2)} lead changes per {t['by']}; the leader "
                 f"{t['when']['50%']} wins {M.rate_text(mid['leader_wins'])}, the last {M.rate_text(mid['last_wins'])}; "
                 + (f"decided (the leader wins {M.pct(M.DECIDED)}) by {M.pct(t['decided_at'])} of the game"
                    if t["decided_at"] is not None else "never decided before the end"))
    else:
        say(out, f"tension   not measured: {t['why']}")
    cov = m["coverage"]
    fired = len(cov["elements"]) - len(cov["never"])
    say(out, f"coverage  {fired} of {len(cov['elements'])} actions, triggers, modifiers, steps and statements "
             f"fired in some game; {len(cov['never'])} never did")
    for row in cov["never"][:12]:
        where = R.where_text(row["fires_in"] or [])
        say(out, f"          never: {row['where']}: {row['kind']} {row['name']}: {row['text'][:60]}"
                 + (f" ({where})" if where else ""), "dim" if where else "yellow")
    if len(cov["never"]) > 12:
        say(out, f"          ... and {len(cov['never']) - 12} more (--json or --out lists them all)", "dim")


def _print_counts(out, by_players: dict):
    say(out, "")
    say(out, "seats by player count (win rate per seat; first to decide)", "bold underline")
    for count, f in by_players.items():
        cells = [f"seat {s['seat']} {M.pct(s['rate'])}{'*' if s['significant'] else ''}" for s in f["per_seat"]]
        first = f["first_player"]
        say(out, f"{count} players: " + ", ".join(cells) + f"; first {M.pct(first['rate'])}"
                 f"{'*' if first['significant'] else ''} (expected {M.pct(f['expected'])})")
    say(out, "* significant after Benjamini-Hochberg over the seats and the first player of that count", "dim")


def _print_comparison(out, c: dict):
    from rich.table import Table

    say(out, "")
    say(out, f"{c['other']} against {c['base']} (the same seeds, game by game)", "bold underline")
    for finding in c["findings"]:
        say(out, finding)
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for i, col in enumerate(("metric", c["base"], c["other"], "difference (95% CI, this row)", "q")):
        table.add_column(col, justify="left" if i == 0 else "right", header_style="bold")
    for row in c["rows"]:
        pct = row["unit"] == "%"
        table.add_row(row["metric"], _num(row.get("base"), pct=pct), _num(row.get("other"), pct=pct),
                      _num(row["diff"], "+", pct) + ("" if not row["ci"] else f" ({_num(row['ci'][0], '+', pct)}, "
                                                                         f"{_num(row['ci'][1], '+', pct)})"),
                      ("—" if row["q"] is None else M.p_text(row["q"])[4:] if row["q"] >= 0.001 else "<0.001")
                      + (" *" if row["significant"] else ""))
    out.print(table)
    say(out, "* significant after Benjamini-Hochberg over these rows (q < 5%): McNemar's exact test for "
             "outcomes, the signed-rank test for per-game quantities, both on the games of the same seed. "
             "An interval is of its row alone, not adjusted: one that leaves out 0 beside a q of 5% or more "
             "is a difference these rows together do not show", "dim")
    for ch in c["coverage_changes"][:10]:
        say(out, f"fires in {M.pct(ch['base'])} → {M.pct(ch['other'])} of games: {ch['where']}: {ch['text'][:60]}")


def _num(x, sign: str = "", pct: bool = False) -> str:
    if x is None:
        return "—"
    if pct:
        return f"{100 * x:{sign}.0f}%"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:{sign}d}"
    return f"{x:{sign}.3g}" if abs(x) >= 10 else f"{x:{sign}.2f}"
