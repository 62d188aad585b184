"""The options of `gamedsl analyze`, apart from the command itself (command.py): the command line
is built for every gamedsl command, and `gamedsl check` should not wait for the report's imports."""
from __future__ import annotations

import argparse

from ..workers import default_jobs

STRONG = "greedy"  # the strongest bot at a modest budget: the default at every seat
PROBES = 10  # card probes per kind of card, per version (metrics.card_probes)


def run_analyze(args) -> int:
    from .command import cmd_analyze
    return cmd_analyze(args)


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
    p.add_argument("--players", "-n", type=_player_counts, metavar="N|A-B",
                   help="how many players (default: the game's minimum); a range such as 2-5 adds the seats' "
                        "win rates at every count in it")
    p.add_argument("--games", "-g", type=count, default=200, metavar="N",
                   help="games with the strong bot at every seat, per version (default 200)")
    p.add_argument("--minutes", type=_minutes, metavar="M",
                   help="a time budget: the number of games (and probes) is chosen to end in about M minutes")
    p.add_argument("--probes", type=_probes, default=PROBES, metavar="N",
                   help=f"card probes per kind of card and version (default {PROBES}; 0: none)")
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
    p.set_defaults(func=run_analyze)


def _player_counts(text: str) -> tuple[int, int]:
    lo, dash, hi = text.partition("-")
    try:
        lo_n, hi_n = int(lo), int(hi) if dash else int(lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of players or a range such as 2-5, not '{text}'") from None
    if lo_n < 1 or hi_n < lo_n:
        raise argparse.ArgumentTypeError(f"expected a number of players or a range such as 2-5, not '{text}'")
    return lo_n, hi_n


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of minutes above 0, not '{text}'")
    return value


def _probes(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number from 0, not '{text}'")
    return int(text)
