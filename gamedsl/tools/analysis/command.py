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
from ..workers import check_ray, default_jobs, run_tasks, with_progress
from . import metrics as M
from .observe import Context, setup, watch_task

STRONG = "greedy"  # the strongest bot at a modest budget: the default at every seat
SKILL_AGAINST = ("random", "greedy")  # the tables the strong bot is measured against (not itself)


class UsageError(GamedslError):
    """A bad combination of arguments: exit 2, before any game is played."""


@attrs.define
class Version:
    label: str
    game: object
    options: dict


def register(sub, count, seed, option):
    """The `analyze` subcommand, with the argument types of the command line."""
    p = sub.add_parser(
        "analyze", help="a design report: fairness, skill, length, tension, coverage and cards, with intervals",
        description="Play bot games and report what a designer asks: is it fair to every seat and to the first "
                    "player, does skill matter, how long is it and how often is a move forced, is there "
                    "tension, which rules never fire, which cards win games. Every rate comes with its 95% "
                    "interval and every difference with a test. --sweep and --compare play the same seeds for "
                    "each version and show the metrics side by side.",
        epilog="See docs/analysis.md for what each metric means and how to read the report.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("--players", "-n", type=count, help="how many players (default: the game's minimum)")
    p.add_argument("--games", "-g", type=count, default=200, metavar="N",
                   help="games with the strong bot at every seat, per version (default 200)")
    p.add_argument("--skill-games", type=count, metavar="N",
                   help="games of the strong bot against each weaker table (default: half of --games)")
    p.add_argument("--bot", default=STRONG, metavar="SPEC", help=f"the strong bot (default {STRONG})")
    p.add_argument("--seats", metavar="A,B,...",
                   help="the bots of the fairness games, one per seat or one for all (default: the strong bot)")
    p.add_argument("--seed", "-s", type=seed, default=0, help="the seed of the first game (default 0)")
    p.add_argument("--option", "-o", type=option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--sweep", type=option, metavar="NAME=V1,V2,...", help="one version per value of an option")
    p.add_argument("--compare", metavar="OTHER.game", help="a second version: another file of the same game")
    p.add_argument("--compare-option", type=option, metavar="NAME=VALUE",
                   help="a second version: this file with one option changed")
    p.add_argument("--jobs", "-j", type=count, default=default_jobs(), metavar="N",
                   help=f"worker processes (default: every core, {default_jobs()} here); the figures are the "
                        "same whatever N")
    p.add_argument("--ray", metavar="auto|ADDRESS",
                   help="play the games on a Ray cluster instead (pip install 'gamedsl[ray]')")
    p.add_argument("--out", metavar="PATH", help="write the report as one HTML page (pip install 'gamedsl[report]')")
    p.add_argument("--json", action="store_true", help="print every figure as one JSON object")
    p.set_defaults(func=cmd_analyze)


def cmd_analyze(args) -> int:
    try:
        game = load(args.file)
        plan = _plan(args, game)
    except UsageError as exc:
        print(f"gamedsl analyze: error: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    result = with_progress("analyze", plan["total"], lambda progress: analyze(
        plan["versions"], plan["players"], args.games, plan["seats"], args.bot, plan["skill_games"], args.seed,
        jobs=args.jobs, ray=args.ray, progress=progress), stderr())
    result["elapsed"] = time.perf_counter() - t0
    result["jobs"] = "ray" if args.ray else args.jobs
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
    try:
        players, seats = players_and_seats(game, args.players, args.seats.split(",") if args.seats else None,
                                           lambda n: [args.bot])
    except GamedslError as exc:
        raise UsageError(str(exc)) from None
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
    per_version = args.games + len(_skill_sets(args.bot)) * _round_up(skill_games, players)
    return {"versions": versions, "players": players, "seats": seats, "skill_games": skill_games,
            "total": per_version * len(versions)}


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
            seed: int = 0, jobs: int = 1, ray: str | None = None, progress=None) -> dict:
    """Play every version's games (the same seeds for each) and compute the report; see docs/analysis.md."""
    tasks = tasks_of(players, games, seats, bot, skill_games, seed)
    out_versions, records_by_version, contexts = [], [], []
    for k, v in enumerate(versions):
        offset = k * len(tasks)
        step = None if progress is None else (lambda done, offset=offset: progress(offset + done))
        records = run_tasks(setup, (v.game.text, v.game.prog.filename, players, v.options), watch_task,
                            tasks, jobs, step, ray)
        by_set: dict = {}
        for r in records:
            by_set.setdefault(r["set"], []).append(r)
        context = Context(v.game.text, v.game.prog.filename, players, v.options)
        contexts.append(context)
        records_by_version.append(by_set)
        out_versions.append({"label": v.label, "file": v.game.prog.filename, "game": v.game.name,
                             "options": {n: _option_text(v.game, n, x) for n, x in v.options.items()},
                             "metrics": M.version_metrics(context, by_set, bot)})
    comparisons = []
    for k in range(1, len(versions)):
        same = versions[k].game is versions[0].game
        comparisons.append({"base": versions[0].label, "other": versions[k].label, **M.compare(
            out_versions[0]["metrics"], out_versions[k]["metrics"], records_by_version[0], records_by_version[k],
            same, players)})
    return {"game": versions[0].game.name, "players": players, "games": games, "skill_games": skill_games,
            "seats": seats, "bot": bot, "seed": seed, "seeds": [seed, seed + games - 1],
            "versions": out_versions, "comparisons": comparisons}


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
    for v in r["versions"]:
        if len(r["versions"]) > 1:
            say(out, "")
            opts = ", ".join(f"{n}={x}" for n, x in v["options"].items())
            say(out, f"{v['label']}" + (f"  ({opts})" if opts else ""), "bold underline")
        _print_version(out, v["metrics"], v["file"])
    for c in r["comparisons"]:
        _print_comparison(out, c)
    if html:
        say(out, f"report written to {html}", "dim")


def _print_version(out, m: dict, filename: str):
    for line in m["fairness"]["findings"]:
        say(out, f"fairness  {line}")
    for s in m["skill"]:
        say(out, f"skill     {s['finding']}")
    ln = m["length"]
    mv = ln["moves"]
    say(out, f"length    {mv['mean']:.0f} moves a game (median {mv['median']:.0f}, {mv['min']}–{mv['max']}), "
             f"{ln['turns_per_player']['mean']:.0f} per player, {ln['rounds']['mean']:.1f} rounds; "
             f"{M.pct(ln['forced_share'] or 0)} of decisions have one legal move, "
             f"{ln['mean_choices'] or 0:.1f} choices on average; {ln['limit_hit']} hit the move limit")
    t = m["tension"]
    if t["measured"]:
        wb = t["winner_behind"]
        decided = t["decided_at"]["mean"]
        say(out, f"tension   {t['lead_changes']['mean']:.1f} lead changes a game; the winner was behind at some "
                 f"point in {M.rate_text(wb)} of games"
                 + (f"; the winner led for good after {M.pct(decided)} of the game on average" if decided is not None
                    else ""))
    else:
        say(out, f"tension   not measured: {t['why']}")
    cov = m["coverage"]
    fired = len(cov["elements"]) - len(cov["never"])
    say(out, f"coverage  {fired} of {len(cov['elements'])} actions, triggers, modifiers and statements fired "
             f"in some game; {len(cov['never'])} never did")
    for row in cov["never"][:12]:
        say(out, f"          never: {row['where']}: {row['kind']} {row['name']}: {row['text'][:60]}", "yellow")
    if len(cov["never"]) > 12:
        say(out, f"          ... and {len(cov['never']) - 12} more (--json or --out lists them all)", "dim")
    for key, verb in (("played", "played"), ("held", "held at the end")):
        sig = [row for row in m["cards"][key] if row["significant"]]
        if sig:
            best, worst = sig[0], sig[-1]
            parts = [f"{row['card']} {M.rate_text(row['with'])} vs {M.pct(row['without']['rate'])}"
                     for row in ([best] if best["diff"] > 0 else []) + ([worst] if worst["diff"] < 0 else [])]
            say(out, f"cards     {len(sig)} cards {verb} change the win rate significantly: " + "; ".join(parts))
        else:
            say(out, f"cards     no card {verb} changes the win rate significantly")


def _print_comparison(out, c: dict):
    from rich.table import Table

    say(out, "")
    say(out, f"{c['other']} against {c['base']} (the same seeds)", "bold underline")
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for i, col in enumerate(("metric", c["base"], c["other"], "difference (95% CI)", "p")):
        table.add_column(col, justify="left" if i == 0 else "right", header_style="bold")
    for row in c["rows"]:
        table.add_row(row["metric"], _num(row["base"]), _num(row["other"]),
                      _num(row["diff"], "+") + ("" if not row["ci"] else f" ({_num(row['ci'][0], '+')}, "
                                                                         f"{_num(row['ci'][1], '+')})"),
                      ("—" if row["p"] is None else M.p_text(row["p"])[4:] if row["p"] >= 0.001 else "<0.001")
                      + (" *" if row["significant"] else ""))
    out.print(table)
    say(out, "* significant at 5% (two-proportion z-test for rates, Welch's t-test for means)", "dim")
    for ch in c["coverage_changes"][:10]:
        say(out, f"fires in {M.pct(ch['base'])} → {M.pct(ch['other'])} of games: {ch['where']}: {ch['text'][:60]}")


def _num(x, sign: str = "") -> str:
    if x is None:
        return "—"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:{sign}d}"
    return f"{x:{sign}.3g}" if abs(x) >= 10 else f"{x:{sign}.3f}"
