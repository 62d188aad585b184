"""The `gamedsl` command: check, play, replay, simulate and test games.

Exit codes: 0 success, 1 a bad game, scenario or log (or a failed expectation), 2 a usage
error, 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..version import __version__
from . import render
from ..language import types as T
from ..bots import BOTS, make_bot
from ..errors import GameRuntimeError, GamedslError, SourceError
from ..engine import load_game
from .human import HumanSeat, Quit
from .logfile import path_exists
from .logfile import (LogError, LogWriter, end_mismatch, file_sha256, game_path, read_log,
                      replay_moves, rewrite)
from .simulate import bot_seed, effective_options, seat_kinds, simulate

SEAT_KINDS = ("human",) + tuple(BOTS)

# The modules of the optional extras in pyproject.toml, each with the extra that installs it
# (a command that needs one is answered with the install line, not with "a bug").
EXTRAS: dict[str, str] = {}


def missing_module_message(exc: ModuleNotFoundError) -> str:
    """One line for a module that is not installed: the extra to install, or how to repair gamedsl."""
    top = (exc.name or "").partition(".")[0]
    if top in EXTRAS:
        return (f"gamedsl: error: this needs '{top}', which is not installed: "
                f"pip install 'gamedsl[{EXTRAS[top]}]'")
    return (f"gamedsl: error: the module '{top or exc}' that gamedsl needs is not installed: "
            "reinstall gamedsl (pip install gamedsl, or pip install . in its folder)")


class CliError(GamedslError):
    """An error whose message is already complete; printed as it is."""


# ---- argument types

def _option(text: str):
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not '{text}'")
    return name.strip(), value.strip()


def _seats(text: str) -> list[str]:
    kinds = [k.strip().lower() for k in text.split(",")]
    for k in kinds:
        if k not in SEAT_KINDS:
            raise argparse.ArgumentTypeError(f"unknown seat '{k}' (choose from {', '.join(SEAT_KINDS)})")
    return kinds


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not '{text}'") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 1, not {n}")
    return n


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not '{text}'") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gamedsl", description="Check, play, replay, simulate and test card games written in gamedsl.",
        epilog="Run 'gamedsl COMMAND --help' for the options of a command.")
    parser.add_argument("--version", action="version", version=f"gamedsl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("check", help="check game files for errors",
                       description="Load each game file and report every error in it, like a compiler.")
    p.add_argument("files", nargs="+", metavar="FILE", help="a .game file")
    p.set_defaults(func=cmd_check)

    seats_help = f"who sits at each seat, comma-separated ({', '.join(SEAT_KINDS)}); one kind for all seats"
    p = sub.add_parser(
        "play", help="play a game, with humans and bots at the seats",
        description="Play a game at the console. Every move is written to a log as it is played, so a "
                    "stopped game can be resumed (--resume) and any game replayed (gamedsl replay).",
        epilog="Without --seats: seat 1 is you and the others are greedy bots when the input is a terminal; "
               "otherwise every seat is a greedy bot. Bots' seeds derive from the game's seed, so a seed "
               "replays a whole bot game.")
    p.add_argument("file", nargs="?", metavar="FILE", help="the .game file (not with --resume)")
    p.add_argument("--players", "-n", type=_count, help="how many players (default: the game's minimum, "
                                                        "or as many as --seats lists)")
    p.add_argument("--seed", "-s", type=_seed, help="the game's random seed (default: a random one, "
                                                    "printed and logged)")
    p.add_argument("--seats", type=_seats, help=seats_help)
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--log", metavar="PATH", help="where to write the log (default: gamedsl-GAME-SEED.jsonl)")
    p.add_argument("--resume", metavar="PATH", help="continue the game in this log")
    p.add_argument("--verbose", "-v", action="store_true", help="show every move, even with no human playing")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="check that a game log replays to the same final state",
                       description="Re-run a log from its start: every move must be legal and match its "
                                   "text, and the final state must be the one logged.")
    p.add_argument("log", metavar="PATH", help="a log written by 'gamedsl play'")
    p.add_argument("--verbose", "-v", action="store_true", help="print every move as it is replayed")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("simulate", help="play many bot games and report statistics per seat",
                       description="Play N games between bots (game i with seed S+i) and report wins, "
                                   "places, returns and game lengths per seat. The same seed gives the "
                                   "same figures.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("--games", "-g", type=_count, required=True, metavar="N", help="how many games")
    p.add_argument("--players", "-n", type=_count, help="how many players (default: the game's minimum, "
                                                        "or as many as --seats lists)")
    p.add_argument("--seed", "-s", type=_seed, default=0, help="the seed of the first game (default 0)")
    p.add_argument("--seats", type=_seats, help=f"bots at the seats, comma-separated ({', '.join(BOTS)}); "
                                                "one kind for all seats (default: greedy)")
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--track", action="append", default=[], metavar="ZONE",
                   help="count how often each card arrives in this zone (repeatable; a per-player zone "
                        "counts every player's)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("test", help="run scenario files against a game",
                       description="Run each scenario (YAML) against the game and report every failed "
                                   "expectation as PATH:LINE: error: MESSAGE.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO", help="a scenario .yaml file")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("verify", help="check every invariant over many random games (hypothesis)",
                       description="Play many random games with hypothesis, checking the invariants every "
                                   "game keeps and the game's own 'invariant' declarations. A failure is "
                                   "shrunk to a smallest game and written as a scenario that replays it.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("--players", type=int, help="one player count (default: every count the game allows)")
    p.add_argument("--examples", type=int, default=100, help="games to try per player count (default 100)")
    p.add_argument("--max-moves", type=int, default=400,
                   help="moves checked per game (default 400; the game's own limit bounds it anyway)")
    p.add_argument("--seed", type=int, default=0, help="the first game seed (default 0)")
    p.add_argument("--out", metavar="PATH", help="where to write a failing game's scenario")
    p.set_defaults(func=cmd_verify)
    return parser


# ---- main

def main(argv=None) -> int:
    """Run the gamedsl command line; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output went away (`gamedsl replay -v LOG | head`)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except SourceError as exc:
        print(exc.format(), file=sys.stderr)
        return 1
    except (CliError, LogError, GameRuntimeError) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except GamedslError as exc:
        print(f"gamedsl: error: {exc}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as exc:  # an optional extra (or a damaged install), never "a bug"
        print(missing_module_message(exc), file=sys.stderr)
        return 2
    except Exception as exc:  # a bug in gamedsl: say so briefly, not with a traceback
        if os.environ.get("GAMEDSL_TRACEBACK"):
            raise
        print(f"gamedsl: internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug in gamedsl. Set GAMEDSL_TRACEBACK=1 to see where it happened.", file=sys.stderr)
        return 1


def _out() -> Console:
    return Console(highlight=False)


def _say(out: Console, text, style: str = ""):
    """A message line: not cut into lines by rich (a terminal wraps it; a pipe keeps it whole)."""
    out.print(text if isinstance(text, Text) else Text(text, style=style), soft_wrap=True)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _load(path):
    """A game from its file; a missing file is one clear line."""
    p = Path(path)
    if not path_exists(p):
        raise CliError(f"{path}: error: no such file")
    if p.is_dir():
        raise CliError(f"{path}: error: this is a folder, not a game file")
    return load_game(p)


# ---- check

def cmd_check(args) -> int:
    bad = False
    for f in args.files:
        try:
            _load(f)
        except SourceError as exc:
            print(exc.format(), file=sys.stderr)
            bad = True
        except GamedslError as exc:
            print(str(exc), file=sys.stderr)
            bad = True
        else:
            print(f"{f}: ok")
    return 1 if bad else 0


# ---- play

def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-") or "game"


def _players_and_seats(game, players, seats, default_seat) -> tuple[int, list[str]]:
    if players is None:
        players = len(seats) if seats and len(seats) > 1 else game.min_players
    if not game.min_players <= players <= game.max_players:
        raise GamedslError(f"{game.name} is for {game.players_text()}, not {players}")
    return players, seat_kinds(seats or default_seat(players), players)


def cmd_play(args) -> int:
    if args.resume:
        given = [flag for flag, v in (("FILE", args.file), ("--players", args.players), ("--seed", args.seed),
                                      ("--seats", args.seats), ("--option", args.option), ("--log", args.log))
                 if v]
        if given:
            print(f"gamedsl play: error: --resume continues a logged game as it was started: "
                  f"do not give {', '.join(given)}", file=sys.stderr)
            return 2
        return _resume(args)
    if not args.file:
        print("gamedsl play: error: give a game FILE, or --resume PATH", file=sys.stderr)
        return 2
    game = _load(args.file)
    sha = file_sha256(args.file)

    def default_seats(n):
        if sys.stdin.isatty():
            return ["human"] + ["greedy"] * (n - 1)
        return ["greedy"] * n

    players, seats = _players_and_seats(game, args.players, args.seats, default_seats)
    options = effective_options(game, dict(args.option))
    seed = args.seed if args.seed is not None else 1 + secrets.randbelow(999_999)
    state = game.new_state(players=players, seed=seed, options=options)
    path = Path(args.log) if args.log else Path(f"gamedsl-{_slug(game.name)}-{seed}.jsonl")
    if path.is_dir():
        raise CliError(f"{path}: error: this is a folder: give --log the path of a file")
    if path.exists() and path.stat().st_size > 0:
        raise CliError(f"{path}: error: this log already exists: resume its game with "
                       f"`gamedsl play --resume {path}`, or choose another file with --log")
    agents = _agents(seats, seed)
    writer = LogWriter(path, new=not path.exists())
    writer.start(args.file, sha, players, seed, options, seats, __version__)
    out = _out()
    opts = ", ".join(f"{k}={game.option_text(k, v)}" for k, v in options.items())
    _say(out, f"{game.name}: {players} players, seed {seed}" + (f", options {opts}" if opts else "")
         + " — " + ", ".join(f"{game.player_name(k)} {kind}" for k, kind in enumerate(seats)))
    _say(out, f"log: {path}", "dim")
    return _run(game, state, seats, agents, writer, out, path, args.verbose)


def _agents(seats: list[str], seed: int) -> list:
    return [HumanSeat(k, _out()) if kind == "human" else make_bot(kind, bot_seed(seed, k))
            for k, kind in enumerate(seats)]


def _log_game(data):
    """The game file a log was played with, and the game."""
    gpath = game_path(data)
    if not path_exists(gpath) or gpath.is_dir():
        raise LogError(data.path, data.start_line, f"the game file '{data.start['game']}' of this log is not "
                                                   "found (looked from here and beside the log)")
    return gpath, _load(gpath)


def _resume_hint(path) -> str:
    return f"resume it with: gamedsl play --resume {path}"


def _resume(args) -> int:
    out = _out()
    data = read_log(args.resume)
    path = Path(args.resume)
    if data.end is not None:
        _say(out, f"{path}: this game is over (after {data.end['moves']} moves); "
                  f"see it again with: gamedsl replay {path} --verbose")
        return 0
    start = data.start
    gpath, game = _log_game(data)
    if file_sha256(gpath) != start["game_sha256"]:
        raise CliError(f"{path}: error: the game file {gpath} has changed since this game was started, "
                       "so the logged moves may not mean the same any more: the game cannot be resumed")
    seats = start["seats"]
    for k, kind in enumerate(seats):
        if kind not in SEAT_KINDS:
            raise LogError(path, data.start_line, f"unknown seat '{kind}' (seats: {', '.join(SEAT_KINDS)})")
    agents = _agents(seats, start["seed"])

    def advance(state, move):
        # Bots choose again as they did, so their random generators are where they were.
        agent = agents[move["player"]]
        if not isinstance(agent, HumanSeat):
            agent.choose(state)

    state = replay_moves(game, data, advance)
    if data.needs_rewrite:
        rewrite(data)
        if data.truncated:
            _say(out, "(the last line of the log was half-written: it has been dropped)", "dim")
    players = start["players"]
    _say(out, f"{game.name}: resuming after {len(data.moves)} moves — {players} players, seed "
              f"{start['seed']} — " + ", ".join(f"{game.player_name(k)} {kind}" for k, kind in enumerate(seats)))
    _say(out, f"log: {path}", "dim")
    writer = LogWriter(path, new=False)
    return _run(game, state, seats, agents, writer, out, path, args.verbose)


def _run(game, state, seats, agents, writer, out: Console, path, verbose: bool) -> int:
    """Play to the end (or until a human stops), logging every move; print the results."""
    humans = [k for k, kind in enumerate(seats) if kind == "human"]
    human = bool(humans)
    show = human or verbose
    seen_log, seen_round = len(state.log), state.round_number
    held: list = []  # moves made but not shown yet (answers in an open window)
    rounds: list = []  # rounds begun but not shown yet: (moves made, round)
    no_reaction = game.prog.no_reaction.first_id if game.prog.no_reaction is not None else -1
    try:
        with writer:
            while not state.is_terminal():
                p = state.current_player()
                try:
                    action = agents[p].choose(state)
                except Quit:
                    _say(out, f"Stopped after {state.moves} moves. The game is saved in {path}; "
                         + _resume_hint(path))
                    return 0
                text = state.action_to_string(action)
                state.apply_action(action, getattr(agents[p], "reaction_time", None))
                writer.move(state.moves, p, action, text, state.times.get(state.moves - 1))
                if not show:
                    continue
                if state.round_number != seen_round and not state.is_terminal():
                    rounds.append((state.moves, state.round_number))
                    seen_round = state.round_number
                # Answers in a reaction window or race are shown when everyone has answered
                # (they are made at once), and what the rules say comes after the move that
                # caused it; letting a moment pass is not shown at all.
                if not (human and action == no_reaction and seats[p] != "human"):
                    held.append((p, state.moves - 1))
                if state.window is None:
                    for line in _commentary(game, state, held, state.log[seen_log:], rounds, humans):
                        if isinstance(line, int):
                            out.rule(Text(f"round {line}", style="bold"))
                        else:
                            _say(out, line)
                    held, rounds, seen_log = [], [], len(state.log)
            writer.end(state)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {state.moves} moves; the game is saved in {path}; " + _resume_hint(path),
              file=sys.stderr)
        return 130
    except GamedslError as exc:
        raise CliError(f"{exc}\n(the game stopped after move {state.moves}; its log is {path})") from None
    _print_results(out, game, state, seats)
    _say(out, f"log: {path}", "dim")
    return 0


def _commentary(game, state, moves: list, said: list, rounds: list, humans: list) -> list:
    """Moves [(player, index)], said lines [(moves made when said, player, text, round)] and new
    rounds [(moves made, round)] in the order they happened: what a move caused comes after it,
    and a new round after the lines said in the one before. Each item is a Text, or the number
    of a round that begins. With human seats, the moves are shown as the first human saw them;
    without, every move with its reaction time."""
    viewer = humans[0] if humans else None
    events = []
    for q, k in moves:
        if viewer is not None:
            shown = game.move_text(state, k, viewer)
        else:
            shown = game.action_to_string(state.history[k - state.hbase])
            if k in state.times:
                shown += f" ({state.times[k]:.2f} s)"
        you = q in humans
        events.append(((k + 1, 0, 0), render.move_line(game.player_name(q), shown, you=you)))
    for m, who, text, r in said:
        line = Text.assemble("  ", render.card_text(f"{game.player_name(who)}: {text}", "italic"))
        events.append(((m, 1, r), line))
    for m, r in rounds:
        events.append(((m, 1, r - 0.5), r))
    events.sort(key=lambda e: e[0])  # stable: lines said at one moment keep their order
    return [text for _, text in events]


def _print_results(out: Console, game, state, seats):
    out.print()
    _say(out, f"Game over after {state.round_number} round{'s' if state.round_number != 1 else ''}, "
              f"{state.moves} moves.", "bold")
    n = state.np
    results = list(state.results)
    if state.limit_hit:
        _say(out, "The game reached its move limit: it counts as unfinished, every return is 0.", "yellow")
        results = ["unfinished"] * n
    info = {"places": state.places, "results": results, "returns": state.returns(),
            "vars": state.observation(0).get("vars", {})}
    out.print(render.results_table([game.player_name(k) for k in range(n)], seats, info))


# ---- replay

def cmd_replay(args) -> int:
    out = _out()
    data = read_log(args.log)
    gpath, game = _log_game(data)
    if file_sha256(gpath) != data.start["game_sha256"]:
        print(f"{args.log}: warning: the game file {gpath} has changed since this game was played",
              file=sys.stderr)

    def show(state, move):
        _say(out, Text.assemble(f"{move['n']:>4}  ", render.move_line(game.player_name(move["player"]), move["text"])))

    state = replay_moves(game, data, show if args.verbose else None)
    m = len(data.moves)
    notes = []
    if data.truncated:
        notes.append("its half-written last line was ignored")
    if data.end is not None:
        problem = end_mismatch(data, state)
        if problem:
            raise LogError(args.log, data.end_line, problem)
        if args.verbose:
            _print_results(out, game, state, data.start["seats"])
        print(f"{args.log}: replayed {m} moves, same final state" + "".join(f"; {n}" for n in notes))
        return 0
    if state.is_terminal():
        notes.append("the game is over but the log has no end line")
    else:
        notes.append(f"the game is not finished: {game.player_name(state.current_player())} is to move")
    print(f"{args.log}: replayed {m} moves" + "".join(f"; {n}" for n in notes))
    return 0


# ---- simulate

def cmd_simulate(args) -> int:
    if args.seats and "human" in args.seats:
        print("gamedsl simulate: error: simulations are played by bots only "
              f"(seats: {', '.join(BOTS)})", file=sys.stderr)
        return 2
    game = _load(args.file)
    players, seats = _players_and_seats(game, args.players, args.seats, lambda n: ["greedy"])
    options = dict(args.option)
    err = _err()
    t0 = time.perf_counter()
    if err.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True) as progress:
            task = progress.add_task("games", total=args.games)
            result = simulate(game, args.games, players, args.seed, seats, options,
                              progress=lambda i: progress.update(task, completed=i), track=args.track)
    else:
        result = simulate(game, args.games, players, args.seed, seats, options, track=args.track)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    _print_simulation(_out(), result, elapsed, game)
    return 0


def _fmt(x, digits: int = 2) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _print_simulation(out: Console, r: dict, elapsed: float, game):
    opts = ", ".join(f"{k}={game.option_text(k, v)}" for k, v in r["options"].items())
    _say(out, f"{r['game']}: {r['games']} games, {r['players']} players, seeds {r['seed']}.."
              f"{r['seed'] + r['games'] - 1}" + (f", options {opts}" if opts else "") + f" ({elapsed:.1f} s)", "bold")
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    cols = ["seat", "bot", "wins", "losses", "draws", "win %", "mean place", "mean return"]
    has_score = "mean_score" in r["per_seat"][0]
    if has_score:
        cols.append("mean score")
    for c in cols:
        table.add_column(c, justify="left" if c in ("seat", "bot") else "right", header_style="bold")
    for s in r["per_seat"]:
        row = [s["player"], s["bot"], str(s["wins"]), str(s["losses"]), str(s["draws"]),
               f"{100 * s['wins'] / r['games']:.1f}", _fmt(s["mean_place"]), f"{s['mean_return']:+.3f}"]
        if has_score:
            row.append(_fmt(s["mean_score"], 1))
        table.add_row(*row)
    out.print(table)
    length = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for c in ("length", "mean", "min", "max", "stdev"):
        length.add_column(c, justify="left" if c == "length" else "right", header_style="bold")
    for name in ("moves", "rounds"):
        s = r[name]
        length.add_row(name, _fmt(s["mean"], 1), _fmt(s["min"]), _fmt(s["max"]), _fmt(s["stdev"], 1))
    out.print(length)
    hit = r["limit_hit"]
    _say(out, f"{hit} game{'s' if hit != 1 else ''} reached the move limit (unfinished)", "yellow" if hit else "dim")
    if r["said"]:
        said = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
        for c in ("said", "per game", "in % of games"):
            said.add_column(c, justify="left" if c == "said" else "right", header_style="bold")
        for text, n in r["said"].items():
            said.add_row(escape(text), f"{n['total'] / r['games']:.2f}", f"{100 * n['games'] / r['games']:.1f}")
        out.print(said)
    for zone, cards in r["arrivals"].items():
        _print_arrivals(out, zone, cards, r["games"])


def _print_arrivals(out: Console, zone: str, cards: dict, games: int, columns: int = 4):
    """How often each card arrived in a zone: in columns, cards in the game's order."""
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False,
                  title=f"arrivals in {zone}: times per game, and % of games", title_justify="left")
    for _ in range(columns):
        table.add_column("card", header_style="bold")
        table.add_column("per game", justify="right", header_style="bold")
        table.add_column("%", justify="right", header_style="bold")
    items = list(cards.items())
    rows = (len(items) + columns - 1) // columns
    for i in range(rows):
        row = []
        for k in range(columns):
            j = k * rows + i
            if j < len(items):
                name, n = items[j]
                row += [escape(name), f"{n['total'] / games:.2f}", f"{100 * n['games'] / games:.0f}"]
            else:
                row += ["", "", ""]
        table.add_row(*row)
    out.print(table)


# ---- test

def cmd_test(args) -> int:
    from . import scenario

    game = _load(args.file)
    bad = False
    for path in args.scenarios:
        try:
            failures, checks = scenario.run_scenario(game, path)
        except SourceError as exc:
            print(exc.format(), file=sys.stderr)
            bad = True
            continue
        except GameRuntimeError as exc:  # a rule failed: where in the game file, then the scenario's line
            print(exc if exc.is_located else f"{path}: error: {exc}", file=sys.stderr)
            bad = True
            continue
        except (GamedslError, OSError) as exc:
            msg = str(exc) if isinstance(exc, GamedslError) else (exc.strerror or str(exc))
            print(msg if msg.startswith(f"{path}:") else f"{path}: error: {msg}", file=sys.stderr)
            bad = True
            continue
        if failures:
            bad = True
            for f in failures:
                print(f.format(), file=sys.stderr)
        else:
            print(f"{path}: ok ({checks} checks)")
    return 1 if bad else 0


def cmd_verify(args) -> int:
    from . import verify

    game = _load(args.file)
    counts = [args.players] if args.players else list(range(game.min_players, game.max_players + 1))
    for n in counts:
        if not game.min_players <= n <= game.max_players:
            raise CliError(f"{game.name} is for {game.players_text()}, not {n}")
    failed = False
    for n in counts:
        found = verify.minimal_failure(game, n, args.examples, args.max_moves, args.seed)
        if found is None:
            print(f"{args.file}, {n} players: {args.examples} games, every invariant holds")
            continue
        failed = True
        run, error = found
        out = Path(args.out or f"verify-failure-{Path(args.file).stem}-{n}p.yaml")
        out.write_text(verify.failure_scenario(args.file, run, error), encoding="utf-8")
        if isinstance(error, GameRuntimeError) and error.is_located:  # where in the game file comes first
            print(error.within(f"in a {n}-player game"), file=sys.stderr)
        else:
            print(f"{args.file}, {n} players: {error}", file=sys.stderr)
        moves = f"{len(run.texts)} move{'' if len(run.texts) == 1 else 's'}"
        print(f"  the smallest failing game found: seed {run.seed}, {moves}: "
              + ("; ".join(run.texts) or "(none: the start already fails)"), file=sys.stderr)
        print(f"  replay it with: gamedsl test {args.file} {out}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
