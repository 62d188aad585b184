"""`gamedsl play` and `gamedsl replay`: a game at the terminal between people and bots, written to
its log move by move (so it survives Ctrl-C or a killed process and can be resumed), and a log
played again to check it."""
from __future__ import annotations

import re
import secrets
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..bots import SEAT_KINDS, make_bot
from ..errors import GamedslError
from ..version import __version__
from . import render
from .console import CliError, load, say, stdout
from .human import HumanSeat, Quit
from .logfile import (LogError, LogWriter, end_mismatch, file_sha256, game_path, path_exists, read_log,
                      replay_moves, rewrite)
from .simulate import bot_seed, effective_options, players_and_seats, seat_problem



def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-") or "game"


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
    game = load(args.file)
    sha = file_sha256(args.file)

    def default_seats(n):
        if sys.stdin.isatty():
            return ["human"] + ["greedy"] * (n - 1)
        return ["greedy"] * n

    players, seats = players_and_seats(game, args.players, args.seats, default_seats)
    options = effective_options(game, dict(args.option))
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    state = game.new_state(players=players, seed=seed, options=options)
    # A seed chosen here is said nowhere before the game ends (whoever knows it knows every card);
    # one given with --seed is no secret from whoever typed it.
    tag = args.seed if args.seed is not None else f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
    path = Path(args.log) if args.log else Path(f"gamedsl-{_slug(game.name)}-{tag}.jsonl")
    if path.is_dir():
        raise CliError(f"{path}: error: this is a folder: give --log the path of a file")
    if path.exists() and path.stat().st_size > 0:
        raise CliError(f"{path}: error: this log already exists: resume its game with "
                       f"`gamedsl play --resume {path}`, or choose another file with --log")
    agents = _agents(seats, seed, args.every_window)
    writer = LogWriter(path, new=not path.exists())
    writer.start(args.file, sha, players, seed, options, seats, __version__)
    out = stdout()
    opts = ", ".join(f"{k}={game.option_text(k, v)}" for k, v in options.items())
    said = f", seed {seed}" if args.seed is not None else ""
    say(out, f"{game.name}: {players} player{'s' if players != 1 else ''}{said}" + (f", options {opts}" if opts else "")
         + " — " + ", ".join(f"{game.player_name(k)} {kind}" for k, kind in enumerate(seats)))
    say(out, f"log: {path}", "dim")
    return _run(game, state, seats, agents, writer, out, path, args.verbose)


def _agents(seats: list[str], seed: int, every_window: bool = False) -> list:
    return [HumanSeat(k, stdout(), every_window=every_window) if kind == "human" else make_bot(kind, bot_seed(seed, k))
            for k, kind in enumerate(seats)]


def _log_game(data):
    """The game file a log was played with, and the game."""
    gpath = game_path(data)
    if not path_exists(gpath) or gpath.is_dir():
        raise LogError(data.path, data.start_line, f"the game file '{data.start['game']}' of this log is not "
                                                   "found (looked from here and beside the log)")
    return gpath, load(gpath, leaks_allowed=True)


def _resume_hint(path) -> str:
    return f"resume it with: gamedsl play --resume {path}"


def _resume(args) -> int:
    out = stdout()
    data = read_log(args.resume)
    path = Path(args.resume)
    if data.end is not None:
        say(out, f"{path}: this game is over (after {data.end['moves']} moves); "
                  f"see it again with: gamedsl replay {path} --verbose")
        return 0
    start = data.start
    gpath, game = _log_game(data)
    if file_sha256(gpath) != start["game_sha256"]:
        raise CliError(f"{path}: error: the game file {gpath} has changed since this game was started, "
                       "so the logged moves may not mean the same any more: the game cannot be resumed")
    seats = start["seats"]
    for k, kind in enumerate(seats):
        problem = seat_problem(kind) if isinstance(kind, str) else "a seat is a name"
        if problem:
            raise LogError(path, data.start_line, f"seat {k + 1}: {problem} (seats: {', '.join(SEAT_KINDS)})")
    agents = _agents(seats, start["seed"], args.every_window)

    def advance(state, move):
        # Bots choose again as they did, so their random generators are where they were.
        agent = agents[move["player"]]
        if not isinstance(agent, HumanSeat):
            agent.choose(state)

    state = replay_moves(game, data, advance)
    if data.needs_rewrite:
        rewrite(data)
        if data.truncated:
            say(out, "(the last line of the log was half-written: it has been dropped)", "dim")
    players = start["players"]
    say(out, f"{game.name}: resuming after {len(data.moves)} moves — {players} player{'s' if players != 1 else ''} — "
              + ", ".join(f"{game.player_name(k)} {kind}" for k, kind in enumerate(seats)))
    say(out, f"log: {path}", "dim")
    writer = LogWriter(path, new=False)
    return _run(game, state, seats, agents, writer, out, path, args.verbose)


def _run(game, state, seats, agents, writer, out: Console, path, verbose: bool) -> int:
    """Play to the end (or until a human stops), logging every move; print the results."""
    humans = [k for k, kind in enumerate(seats) if kind == "human"]
    human = bool(humans)
    show = human or verbose
    render.use_colours(game)
    # a new game's lines said before the first move (its setup) come first; a resumed game's were shown
    seen_log, seen_round = (0 if state.moves == 0 else len(state.log)), state.round_number
    held: list = []  # moves made but not shown yet (answers in an open window)
    rounds: list = []  # rounds begun but not shown yet: (moves made, round)
    no_reaction = game.prog.no_reaction.first_id if game.prog.no_reaction is not None else -1
    if show and seen_log < len(state.log):
        for line in _commentary(game, state, [], state.log, [], humans):
            say(out, line)
        seen_log = len(state.log)
    try:
        with writer:
            while not state.is_terminal():
                p = state.current_player()
                try:
                    action = agents[p].choose(state)
                except Quit:
                    say(out, f"Stopped after {state.moves} moves. The game is saved in {path}; "
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
                if not (human and action == no_reaction and (seats[p] != "human" or agents[p].let_pass)):
                    held.append((p, state.moves - 1))
                if state.window is None:
                    for line in _commentary(game, state, held, state.log[seen_log:], rounds, humans):
                        if isinstance(line, int):
                            out.rule(Text(f"round {line}", style="bold"))
                        else:
                            say(out, line)
                    held, rounds, seen_log = [], [], len(state.log)
            writer.end(state)
    except KeyboardInterrupt:
        print(f"\ninterrupted after {state.moves} moves; the game is saved in {path}; " + _resume_hint(path),
              file=sys.stderr)
        return 130
    except GamedslError as exc:
        raise CliError(f"{exc}\n(the game stopped after move {state.moves}; its log is {path})") from None
    _print_results(out, game, state, seats)
    say(out, f"seed {state.seed} (the same seed and moves play this game again)", "dim")  # not before: it tells the deal
    say(out, f"log: {path}", "dim")
    return 0


def _commentary(game, state, moves: list, said: list, rounds: list, humans: list) -> list:
    """Moves [(player, index)], lines said (state.log's entries: moves made when said, player, text, round) and new
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
    for entry in said:  # as the first human reads it (without one, as a spectator): a line said to
        m, _, text, r = entry  # another player alone is not shown, the table's own lines stand alone
        if game.reads(text, -1 if viewer is None else viewer):
            line = Text.assemble("  ", render.card_text(game.log_line(entry, -1 if viewer is None else viewer),
                                                        "italic"))
            events.append(((m, 1, r), line))
    for m, r in rounds:
        events.append(((m, 1, r - 0.5), r))
    events.sort(key=lambda e: e[0])  # stable: lines said at one moment keep their order
    return [text for _, text in events]


def _print_results(out: Console, game, state, seats):
    out.print()
    say(out, f"Game over after {state.round_number} round{'s' if state.round_number != 1 else ''}, "
              f"{state.moves} moves.", "bold")
    n = state.np
    results = list(state.results)
    for k, g in enumerate(state.grades or ()):
        if g is not None:  # a graded result: "37 of 52"
            results[k] = f"{g[0]} of {g[1]}"
    if state.limit_hit:
        say(out, "The game reached its move limit: it counts as unfinished, every return is 0.", "yellow")
        results = ["unfinished"] * n
    info = {"places": state.places, "results": results, "returns": state.returns(),
            "vars": state.observation(0).get("vars", {})}
    out.print(render.results_table([game.player_name(k) for k in range(n)], seats, info))


# ---- replay

def cmd_replay(args) -> int:
    out = stdout()
    data = read_log(args.log)
    gpath, game = _log_game(data)
    if file_sha256(gpath) != data.start["game_sha256"]:
        print(f"{args.log}: warning: the game file {gpath} has changed since this game was played",
              file=sys.stderr)

    def show(state, move):
        say(out, Text.assemble(f"{move['n']:>4}  ", render.move_line(game.player_name(move["player"]), move["text"])))

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
