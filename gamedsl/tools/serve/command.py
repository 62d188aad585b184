"""The `gamedsl serve` subcommand: its arguments, and the run of the web server (uvicorn).

Nothing of the web extra is imported until the command runs: without it, the command answers
with the line that installs it (cli.py's EXTRAS)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..console import CliError, load
from ..workers import default_jobs


def _seconds(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not '{text}'") from None
    if not 0 <= x <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 3600, not {text}")
    return x


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not '{text}'") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, not {n}")
    return n


def _checked(name: str):
    """An argparse type from the security.py check `name` (its ValueError becomes the usage error);
    security.py is imported when an option needs it, not by every gamedsl command."""
    def parse(text: str) -> str:
        from . import security
        try:
            return getattr(security, name)(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def register(sub, count):
    """Add `serve` to the gamedsl command's subparsers."""
    p = sub.add_parser(
        "serve", help="host a game for people playing in their browsers, on this machine or a LAN",
        description="Serve a game on the web: a lobby to create tables (people and bots at the seats), one "
                    "secret link per person and one for spectators. The engine referees every move; each "
                    "table is written to a log as it is played, so a table survives a restart of the server "
                    "on the same --data folder, and its links keep working.",
        epilog="Listens on 127.0.0.1 (this machine only) unless --host says otherwise: --host 0.0.0.0 "
               "serves the LAN. See docs/serve.md. Needs the web extra: pip install 'gamedsl[web]'.")
    p.add_argument("file", metavar="FILE", help="the .game file")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=8000, help="the port (default 8000; 0 picks a free one)")
    p.add_argument("--data", default="gamedsl-serve", metavar="DIR",
                   help="the folder of the lobby's database and the tables' logs (default ./gamedsl-serve)")
    p.add_argument("--bot-delay", type=_seconds, default=0.6, metavar="SECONDS",
                   help="the pause before a bot's move, so people can follow (default 0.6)")
    p.add_argument("--window-seconds", type=_seconds, default=10.0, metavar="SECONDS",
                   help="how long a reaction window or race waits for a person; then they let it pass "
                        "(in a race: its default, the last answer it lists, counts, at the deadline; a "
                        "simultaneous choice has no clock) (default 10)")
    p.add_argument("--reaction-seconds", type=_seconds, default=2.0, metavar="SECONDS",
                   help="a bot whose decision comes after a reaction window makes it no sooner than this after "
                        "the window opened (its move ends the window): the time people asked have to react "
                        "then, at every window alike (default 2)")
    p.add_argument("--answer-seconds", type=_seconds, default=0.25, metavar="SECONDS",
                   help="how long a bot asked in a reaction window or race may think; it lets the moment pass "
                        "if it has not answered by then. At a table with a bot, in a game with reactions or "
                        "races, every move is shown this long after it comes, so nobody can tell by the time "
                        "whether a bot was asked (default 0.25)")
    p.add_argument("--max-bot-seconds", type=_seconds, default=2.0, metavar="SECONDS",
                   help="the most a bot may think for a move (default 2): a seat asking for more is refused, and "
                        "a search that runs longer is stopped and the move made by greedy instead")
    p.add_argument("--bot-workers", type=count, default=default_jobs(), metavar="N",
                   help=f"bots thinking at once, in worker processes shared by every table (default: every "
                        f"core, {default_jobs()} here)")
    p.add_argument("--idle-minutes", type=_seconds, default=120.0, metavar="MINUTES",
                   help="close a table where nobody moved and nobody was connected for this long (default 120; "
                        "0: never)")
    p.add_argument("--absent-seconds", type=_seconds, default=60.0, metavar="SECONDS",
                   help="how long a person must be away before the table's host may give their seat to a bot "
                        "(default 60)")
    p.add_argument("--max-tables", type=count, default=200, metavar="N",
                   help="the most tables being played at once (default 200)")
    p.add_argument("--tables-per-minute", type=count, default=20, metavar="N",
                   help="the most tables one client address may create in a minute (default 20)")
    p.add_argument("--keep-days", type=_seconds, default=30.0, metavar="DAYS",
                   help="delete the log and links of a table no longer played (over, closed or expired) this "
                        "many days after its last move (default 30; 0: keep them)")
    p.add_argument("--stats", action="store_true",
                   help="serve /api/stats, the load figures (moves, time from a move received to every client "
                        "told); they count every move, passes in reaction windows too: for a load test, not a "
                        "playtest")
    p.add_argument("--allow-host", action="append", default=[], type=_checked("allowed_host"), metavar="NAME",
                   help="also answer to this host name (NAME, any port: a reverse proxy's name; or NAME:PORT); "
                        "by default only the address listened on (on 127.0.0.1: localhost too; on 0.0.0.0: this "
                        "machine's addresses and name). Repeatable")
    p.add_argument("--allow-origin", action="append", default=[], type=_checked("allowed_origin"),
                   metavar="ORIGIN", help="also let pages of this origin (https://host[:port]) create tables "
                                          "and play; by default only the server's own pages. Repeatable")
    p.add_argument("--allow-scripts", action="store_true",
                   help="let in requests and WebSockets that carry no Origin header (scripts, not browsers, "
                        "which always send one) without the lobby's CSRF token")
    p.add_argument("--max-connections", type=count, default=512, metavar="N",
                   help="the most WebSocket connections open at once (default 512)")
    p.add_argument("--max-connections-per-address", type=count, default=32, metavar="N",
                   help="the most from one client address (default 32; connections from this machine, or "
                        "through a reverse proxy on it, count only in all)")
    p.add_argument("--request-seconds", type=_seconds, default=10.0, metavar="SECONDS",
                   help="close a connection that has not sent its whole request (line and headers) this long "
                        "after it opened, or after its last answer (default 10): a half-open connection holds "
                        "nothing for long")
    p.add_argument("--max-connections-per-seat", type=count, default=4, metavar="N",
                   help="the most on one seat's link: its tabs and windows (default 4)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    import socket

    import uvicorn  # noqa: F401  (the web extra: a missing one is answered with its install line)
    import starlette  # noqa: F401

    from .app import Server
    from .security import Limits, Policy
    from .table import Settings

    load(args.file)  # a bad game file is reported before anything listens
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise CliError(f"gamedsl serve: error: cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    warn_if_shared(Path(args.data))
    server = Server(args.file, args.data, Settings(args.bot_delay, args.window_seconds, args.stats,
                                                   args.max_bot_seconds, args.bot_workers, args.idle_minutes,
                                                   args.absent_seconds, args.answer_seconds, args.max_tables,
                                                   args.tables_per_minute, args.keep_days,
                                                   args.reaction_seconds))
    port = sock.getsockname()[1]
    policy = Policy(args.host, port, args.allow_host, args.allow_origin, args.allow_scripts)
    limits = Limits(args.max_connections, args.max_connections_per_address, args.max_connections_per_seat)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"gamedsl serve: {server.game.name} at http://{host}:{port}/  (data: {args.data}; Ctrl-C stops)",
          flush=True)
    if args.host in ("0.0.0.0", "::"):
        print("  listening on every network interface: people on the LAN open http://THIS-MACHINE'S-ADDRESS:"
              f"{port}/ (another name for it needs --allow-host NAME)", flush=True)
    serve(server, sock, policy, limits, args.request_seconds)
    return 0


def warn_if_shared(data: Path):
    """An existing --data folder that other users of this machine can open: its logs hold the seeds."""
    try:
        shared = data.is_dir() and data.stat().st_mode & 0o077
    except OSError:
        return
    if shared:
        print(f"gamedsl serve: warning: other users of this machine can open {data} (its logs hold the tables' "
              f"seeds): chmod 700 {data}", file=sys.stderr, flush=True)


def serve(server, sock, policy, limits, request_seconds: float = 10.0):
    """Run the server on a bound socket until it is stopped (Ctrl-C or SIGTERM)."""
    import uvicorn

    from .app import build_app
    from .connections import timed_protocol

    config = uvicorn.Config(build_app(server, policy, limits), log_level="warning", ws_max_size=1 << 20,
                            lifespan="on", http=timed_protocol(request_seconds),
                            ws_per_message_deflate=False,  # small frames: compressing costs more than it saves
                            ws_ping_interval=20, ws_ping_timeout=20)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C is how a server is stopped: uvicorn has shut it down cleanly first
        pass
    finally:
        sock.close()
    print("gamedsl serve: stopped", flush=True)
