"""The `gamedsl` command: check, play, replay, simulate, arena, analyze and test games.

Exit codes: 0 success, 1 a bad game, scenario or log (or a failed expectation), 2 a usage
error, 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from importlib import import_module

from ..bots import KINDS, SEAT_KINDS
from ..errors import GameRuntimeError, GamedslError, SourceError
from ..version import __version__
from .analysis import options as analysis
from .console import CliError, check, load
from .logfile import LogError
from .serve import command as serve


def _later(module: str, name: str):
    """The function `name` of `module` (of gamedsl.tools), imported when it is called: a command's
    own imports are paid by that command, not by every other (`gamedsl check` among them)."""
    def call(*args):
        return getattr(import_module(module, __package__), name)(*args)
    call.__name__ = name
    return call


cmd_play, cmd_replay = _later(".play", "cmd_play"), _later(".play", "cmd_replay")
cmd_simulate, cmd_arena = _later(".simulate", "cmd_simulate"), _later(".arena", "cmd_arena")
seat_problem, seat_specs = _later(".simulate", "seat_problem"), _later(".arena", "seat_specs")

# The modules of the optional extras in pyproject.toml, each with the extra that installs it
# (a command that needs one is answered with the install line, not with "a bug").
EXTRAS: dict[str, str] = {"matplotlib": "report", "ray": "ray", "starlette": "web", "uvicorn": "web",
                          "open_spiel": "rl", "pyspiel": "rl", "pettingzoo": "rl", "pygls": "lsp",
                          "lsprotocol": "lsp"}


def missing_module_message(exc: ModuleNotFoundError) -> str:
    """One line for a module that is not installed: the extra to install, or how to repair gamedsl."""
    top = (exc.name or "").partition(".")[0]
    if top in EXTRAS:
        return (f"gamedsl: error: this needs '{top}', which is not installed: "
                f"pip install 'gamedsl[{EXTRAS[top]}]'")
    return (f"gamedsl: error: the module '{top or exc}' that gamedsl needs is not installed: "
            "reinstall gamedsl (pip install gamedsl, or pip install . in its folder)")


# ---- argument types

def _option(text: str):
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not '{text}'")
    return name.strip(), value.strip()


def _seats(text: str) -> list[str]:
    kinds = [k.strip().lower() for k in text.split(",")]
    for k in kinds:
        problem = seat_problem(k)
        if problem:
            if k.partition(":")[0] not in SEAT_KINDS:
                problem = f"unknown seat '{k}' (choose from {', '.join(SEAT_KINDS)})"
            raise argparse.ArgumentTypeError(problem)
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

    p = sub.add_parser("fmt", help="lay game files out in the canonical layout",
                       description="Rewrite each game file in the canonical layout (docs/editors.md, "
                                   "'Formatting'): the same program, comments kept, the author's line "
                                   "breaks kept. A folder stands for the .game files in it. A file with a "
                                   "syntax error is reported and left alone.")
    p.add_argument("files", nargs="+", metavar="FILE", help="a .game file, or a folder of them")
    p.add_argument("--check", action="store_true",
                   help="change nothing; list the files that would change and exit 1 if there are any (for CI)")
    p.add_argument("--diff", action="store_true", help="change nothing; print what would change as a unified diff")
    p.set_defaults(func=cmd_fmt)

    seats_help = (f"who sits at each seat, comma-separated ({', '.join(SEAT_KINDS)}, or a bot spec such as "
                  "ismcts:2000 or ismcts:0.5s: see docs/bots.md); one kind for all seats")
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
                                                    "logged, and printed when the game ends: it tells the deal)")
    p.add_argument("--seats", type=_seats, help=seats_help)
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--log", metavar="PATH", help="where to write the log (default: gamedsl-GAME-DATE-TIME-XXXX.jsonl, "
                                                   "a name that tells nothing of the deal)")
    p.add_argument("--resume", metavar="PATH", help="continue the game in this log")
    p.add_argument("--verbose", "-v", action="store_true", help="show every move, even with no human playing")
    p.add_argument("--every-window", action="store_true",
                   help="ask a person in every reaction window they could react in (by default they are asked "
                        "before their own moves and when a window offers a move they did not let pass last time)")
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
    p.add_argument("--seats", type=_seats, help=f"bots at the seats, comma-separated ({', '.join(KINDS)}, or a bot "
                                                "spec such as ismcts:2000: see docs/bots.md); one kind for all "
                                                "seats (default: greedy)")
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--track", action="append", default=[], metavar="ZONE",
                   help="count how often each card arrives in this zone (repeatable; a per-player zone "
                        "counts every player's)")
    p.add_argument("--mean", action="append", default=[], metavar="VAR",
                   help="the mean at the end of a number variable, per seat for a variable of each player "
                        "(repeatable; a per-player `score` is always shown)")
    p.add_argument("--jobs", "-j", type=_count, default=1, metavar="N",
                   help=f"play the games in N worker processes (this machine has {os.cpu_count()} cores); "
                        "the figures are the same whatever N (default 1)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "arena", help="rotate bots through the seats and compare them, with confidence intervals",
        description="Play N games between the bots of --seats, rotating the seats so that every entry sits "
                    "in every position equally often, each rotation of a deal with the same seed; report "
                    "per entry wins, mean place and mean return with 95% intervals, seconds per move, and "
                    "which differences are significant (a paired t-test over the deals).",
        epilog="N is rounded up to whole deals (a deal: one game per rotation). An entry is one bot spec of "
               "--seats; the same spec twice gives two entries ('greedy #1', 'greedy #2'). See docs/arena.md.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("--seats", type=seat_specs, required=True, metavar="A,B,...",
                   help=f"the bots, one per player, comma-separated ({', '.join(KINDS)}, or any spec the bots "
                        "accept); one bot alone fills every seat")
    p.add_argument("--games", "-g", type=_count, required=True, metavar="N", help="how many games, at least")
    p.add_argument("--players", "-n", type=_count, help="how many players (default: as many as --seats lists, "
                                                        "or the game's minimum for one bot)")
    p.add_argument("--seed", "-s", type=_seed, default=0, help="the seed of the first deal (default 0)")
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--jobs", "-j", type=_count, default=1, metavar="N",
                   help=f"play the games in N worker processes (this machine has {os.cpu_count()} cores); "
                        "the figures are the same whatever N (default 1)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_arena)

    analysis.register(sub, _count, _seed, _option)
    serve.register(sub, _count)

    p = sub.add_parser("lsp", help="a language server for editors (Language Server Protocol, over stdio)",
                       description="Serve an editor over stdin and stdout with the Language Server Protocol: "
                                   "errors as you type with quick fixes, an outline, go to definition, "
                                   "find references, rename, hover, completion with snippets, formatting "
                                   "and colours for .game files (docs/editors.md).")
    p.set_defaults(func=cmd_lsp)

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
    p.add_argument("--option", "-o", type=_option, action="append", default=[], metavar="NAME=VALUE",
                   help="set an option of the game (repeatable)")
    p.add_argument("--out", metavar="PATH", help="where to write a failing game's scenario")
    p.add_argument("--bots", action="store_true",
                   help="also check that a bot at a seat chooses alike in deals the seat cannot tell apart (slower)")
    p.add_argument("--thorough", action="store_true",
                   help="every check at every decision for every seat, each seat's world replaying the game at "
                        "each (by default: two seats a decision, all every 7th, a replay every 28th; much slower)")
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


# ---- check

def cmd_check(args) -> int:
    bad = False
    for f in args.files:
        try:
            warned = check(f)
        except SourceError as exc:
            print(exc.format(), file=sys.stderr)
            bad = True
        except GamedslError as exc:
            print(str(exc), file=sys.stderr)
            bad = True
        else:
            print(f"{f}: ok" + (f" ({warned} warning{'s' if warned > 1 else ''})" if warned else ""))
    return 1 if bad else 0


# ---- fmt

def _game_files(paths: list[str]) -> list[Path]:
    files = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            files.extend(sorted(p.rglob("*.game")))
        else:
            files.append(p)
    return files


def cmd_fmt(args) -> int:
    import difflib

    from ..language.format import format_source

    bad = changed = False
    for p in _game_files(args.files):
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a UTF-8 text file"
            print(f"{p}: error: {reason}", file=sys.stderr)
            bad = True
            continue
        try:
            result = format_source(text, str(p))
        except SourceError as exc:
            print(exc.format(), file=sys.stderr)
            bad = True
            continue
        if result == text:
            continue
        changed = True
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), result.splitlines(True),
                                                       f"{p}", f"{p} (formatted)"))
        if args.check:
            print(f"would reformat {p}")
        elif not args.diff:
            p.write_text(result, encoding="utf-8", newline="\n")
            print(f"reformatted {p}")
    return 1 if bad or (args.check and changed) else 0


# ---- lsp

def cmd_lsp(args) -> int:
    from ..lsp.server import main as serve_lsp  # needs the lsp extra (pygls, lsprotocol)

    return serve_lsp()


# ---- test

def cmd_test(args) -> int:
    from . import scenario

    game = load(args.file)
    bad = False
    for path in args.scenarios:
        notes: list = []
        try:
            failures, checks = scenario.run_scenario(game, path, notes)
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
        for n in notes:
            print(n.format(), file=sys.stderr)
        if failures:
            bad = True
            for f in failures:
                print(f.format(), file=sys.stderr)
        else:
            print(f"{path}: ok ({checks} checks)")
    return 1 if bad else 0


def cmd_verify(args) -> int:
    from . import verify

    game = load(args.file)
    counts = [args.players] if args.players else list(range(game.min_players, game.max_players + 1))
    for n in counts:
        if not game.min_players <= n <= game.max_players:
            raise CliError(f"{game.name} is for {game.players_text()}, not {n}")
    options = dict(args.option)
    game.check_options(options)  # a mistyped option is refused before any game is played
    shown = "".join(f", {k}={v}" for k, v in options.items())
    failed = False
    for n in counts:
        found = verify.minimal_failure(game, n, args.examples, args.max_moves, args.seed, options, bots=args.bots,
                                       thorough=args.thorough)
        if found is None:
            print(f"{args.file}, {n} player{'s' if n != 1 else ''}{shown}: {args.examples} games, every invariant holds")
            continue
        failed = True
        run, error = found
        out = Path(args.out or f"verify-failure-{Path(args.file).stem}-{n}p.yaml")
        out.write_text(verify.failure_scenario(args.file, run, error), encoding="utf-8")
        if isinstance(error, GameRuntimeError) and error.is_located:  # where in the game file comes first
            print(error.within(f"in a {n}-player game"), file=sys.stderr)
        elif getattr(error, "is_located", False):
            print(f"{error}\n  in a {n}-player game", file=sys.stderr)
        else:
            print(f"{args.file}, {n} player{'s' if n != 1 else ''}: {error}", file=sys.stderr)
        moves = f"{len(run.texts)} move{'' if len(run.texts) == 1 else 's'}"
        print(f"  the smallest failing game found: seed {run.seed}, {moves}: "
              + ("; ".join(run.texts) or "(none: the start already fails)"), file=sys.stderr)
        print(f"  replay it with: gamedsl test {args.file} {out}", file=sys.stderr)
    return 1 if failed else 0


def run() -> None:
    """The `gamedsl` program (and `python -m gamedsl`): main() in a process of its own, which then
    exits with its code.

    A check (a fresh process in the designer's edit-check loop) runs without the cycle collector:
    compiling makes many objects that live on and frees almost none in cycles, so its passes found
    nothing, and a check is short. Nor are the objects left gone over once more as the interpreter
    exits (gc.freeze): they are freed all the same, and a check leaves nothing that needs
    finalizing. Together they were some 30 ms of a check of Law after an edit."""
    check = sys.argv[1:2] == ["check"]
    if check:
        gc.disable()
    code = main()
    if check:
        gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
