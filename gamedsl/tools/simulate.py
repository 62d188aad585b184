"""Many bot games in a row, and statistics per seat: usable from Python and from `gamedsl simulate`."""
from __future__ import annotations

import json
import statistics
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..language import types as T
from ..bots import BOTS, BotSpecError, make_bot, parse_spec
from ..errors import GamedslError, GameRuntimeError
from ..engine import load_source
from .console import load, say, stderr, stdout
from .workers import run_tasks, with_progress


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot at one seat in the game with this seed: a game's seed reproduces its bots."""
    return game_seed * 100 + seat


def seat_problem(spec: str, human: bool = True) -> str | None:
    """What is wrong with a seat of --seats (`human`, or a bot spec make_bot accepts), or None."""
    if human and spec == "human":
        return None
    try:
        parse_spec(spec)
    except BotSpecError as exc:
        return str(exc) if spec.partition(":")[0] not in BOTS else f"bad bot '{spec}': {exc}"
    return None


def seat_kinds(spec, players: int) -> list[str]:
    """Seat kinds for `players` seats: one kind for every seat, or exactly one per seat."""
    kinds = list(spec)
    if len(kinds) == 1:
        kinds = kinds * players
    if len(kinds) != players:
        raise GamedslError(f"{len(kinds)} seats given ({', '.join(kinds)}) for {players} players")
    return kinds


def players_and_seats(game, players, seats, default_seat) -> tuple[int, list[str]]:
    """How many players, and the kind of each seat: as given, or the defaults."""
    if players is None:
        players = len(seats) if seats and len(seats) > 1 else game.min_players
    if not game.min_players <= players <= game.max_players:
        raise GamedslError(f"{game.name} is for {game.players_text()}, not {players}")
    return players, seat_kinds(seats or default_seat(players), players)


def play_bot_game(game, players: int, seed: int, seats=("greedy",), options: dict | None = None, track=()):
    """One game between bots (one kind for all seats, or one per seat); returns the final state.

    It is the game `gamedsl play FILE --seed SEED --seats ...` plays. `track` names zones whose
    arrivals are counted (see Game.new_state).
    """
    state = game.new_state(players=players, seed=seed, options=options, track=track)
    bots = []
    for k, kind in enumerate(seat_kinds(seats, players)):
        problem = seat_problem(kind, human=False)
        if problem:
            raise GamedslError(problem)
        bots.append(make_bot(kind, bot_seed(seed, k)))
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].choose(state))
    return state


def effective_options(game, options: dict) -> dict:
    """Every option of the game with its value: the given one (checked and converted) or its default."""
    given = game.check_options(options)
    return {name: given.get(name, default) for name, (default, _) in game.prog.options.items()}


def _spread(values: list) -> dict:
    if not values:
        return {"mean": None, "min": None, "max": None, "stdev": None}
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values),
            "stdev": statistics.stdev(values) if len(values) > 1 else 0.0}


def _mean(values: list):
    return statistics.fmean(values) if values else None


def simulate(game, games: int, players: int | None = None, seed: int = 0, seats=("greedy",),
             options: dict | None = None, progress=None, track=(), jobs: int = 1, means=()) -> dict:
    """Play `games` bot games (game i with seed `seed + i`) and gather statistics per seat.

    `seats` is one bot kind for every seat or one per seat. `progress(i)` is called as games
    finish; `jobs` worker processes play them (the figures are the same whatever `jobs`). Besides
    the figures per seat and the game lengths, the result counts how often each `say` line was
    said (`said`: text -> {"total", "games"}), and for each zone named in `track` how often each
    kind of card arrived there (`arrivals`: zone -> card name -> {"total", "games"}; identical
    copies are one kind: two Berries a game count 2, in 1 game). `means` names number variables
    whose value at the end is averaged over the games: per seat (`means` of each `per_seat` row)
    for a variable of each player, else in the result's `means` (mean, min, max, stdev). The same arguments
    always give the same result. Raises GamedslError (a runtime error in the rules names the game
    and its seed, to reproduce it with `gamedsl play`).
    """
    if games < 1:
        raise GamedslError("simulate at least one game")
    n = game.min_players if players is None else players
    kinds = seat_kinds(seats, n)
    options = effective_options(game, options or {})
    game.new_state(players=n, seed=seed, options=options)  # checks the player count before the loop
    has_score = _has_score(game)
    means = list(dict.fromkeys(means))
    _check_means(game, means)
    ended: dict[str, list] = {name: [] for name in means}  # per game: the value, or the values per seat
    wins, losses, draws = [0] * n, [0] * n, [0] * n
    places = [[] for _ in range(n)]
    returns = [[] for _ in range(n)]
    scores = [[] for _ in range(n)]
    lengths, rounds = [], []
    limit_hits = 0
    said: dict[str, list[int]] = {}  # text -> [times, games]
    # per zone, per kind of card (identical copies together, in card order): [times, games]
    kinds_in_order = list(dict.fromkeys(game.card_name(c) for c in range(game.prog.card_count())))
    arrived = {name: {kind: [0, 0] for kind in kinds_in_order} for name in track}
    summaries = run_tasks(_setup, (game.text, game.prog.filename, n, kinds, options, tuple(track), tuple(means)),
                          _one_game,
                          [(i, seed + i) for i in range(games)], jobs, progress)
    for g in summaries:
        for text, times in g["said"].items():
            entry = said.setdefault(text, [0, 0])
            entry[0] += times
            entry[1] += 1
        for name, per_kind in g["arrivals"].items():
            for kind, times in per_kind.items():
                arrived[name][kind][0] += times
                arrived[name][kind][1] += times > 0
        for name, value in g["means"].items():
            ended[name].append(value)
        lengths.append(g["moves"])
        rounds.append(g["rounds"])
        limit_hits += g["limit_hit"]
        for k in range(n):
            if not g["limit_hit"]:
                result = g["results"][k]
                if result == "win":
                    wins[k] += 1
                elif result == "lose":
                    losses[k] += 1
                else:
                    draws[k] += 1
            if g["places"][k] is not None:
                places[k].append(g["places"][k])
            returns[k].append(g["returns"][k])
            if has_score:
                scores[k].append(g["scores"][k])
    per_seat = []
    for k in range(n):
        row = {"seat": k + 1, "player": game.player_name(k), "bot": kinds[k], "wins": wins[k],
               "losses": losses[k], "draws": draws[k], "mean_place": _mean(places[k]),
               "mean_return": _mean(returns[k])}
        if has_score:
            row["mean_score"] = _mean(scores[k])
        row["means"] = {name: _mean([values[k] for values in ended[name]]) for name in means
                        if game.prog.var_by_name[name].per_player}
        per_seat.append(row)
    return {
        "game": game.name, "games": games, "players": n, "seed": seed, "seats": kinds,
        "options": {k: v if k not in game.prog.option_choices else game.option_text(k, v) for k, v in options.items()},
        "per_seat": per_seat, "moves": _spread(lengths), "rounds": _spread(rounds), "limit_hit": limit_hits,
        "said": {text: {"total": t, "games": g} for text, (t, g) in sorted(said.items(), key=lambda kv: -kv[1][0])},
        "arrivals": {name: {kind: {"total": t, "games": g} for kind, (t, g) in counts.items()}
                     for name, counts in arrived.items()},
        "means": {name: _spread(values) for name, values in ended.items()
                  if not game.prog.var_by_name[name].per_player},
    }


def _check_means(game, means: list):
    """Every name of `--mean` is a number variable of the game, shared or of each player."""
    from ..errors import did_you_mean
    for name in means:
        var = game.prog.var_by_name.get(name)
        if var is None:
            hint = did_you_mean(name, list(game.prog.var_by_name))
            raise GamedslError(f"{game.name} has no variable '{name}'" + (f" ({hint})" if hint else ""))
        if var.type != T.NUM or var.per_card:
            raise GamedslError(f"'{name}' is not a number of the game or of each player: --mean averages those")


def _has_score(game) -> bool:
    score_var = game.prog.var_by_name.get("score")
    return score_var is not None and score_var.per_player and score_var.type == T.NUM


def _setup(text: str, filename: str, players: int, kinds: list, options: dict, track: tuple, means: tuple) -> tuple:
    game = load_source(text, filename)  # from the cache, like the parent's
    return game, players, kinds, options, track, {name: game.zone_instances([name], players) for name in track}, means


def _one_game(context: tuple, task: tuple) -> dict:
    """What the statistics need of one game: results, places, returns, scores, length, lines said, arrivals."""
    game, n, kinds, options, track, zones, means = context
    i, game_seed = task
    try:
        state = play_bot_game(game, n, game_seed, kinds, options, track)
    except GameRuntimeError as exc:  # a rule failed: where in the file, then which game
        raise exc.within(f"in game {i + 1} (seed {game_seed})") from None
    except GamedslError as exc:
        raise GamedslError(f"game {i + 1} (seed {game_seed}): {exc}") from None
    said: dict[str, int] = {}
    for _, _, text, _ in state.log:
        text = getattr(text, "template", text)  # a line with values counts as its template, braces and all
        said[text] = said.get(text, 0) + 1
    ended = {name: [state.var(name, k) for k in range(n)] if game.prog.var_by_name[name].per_player
             else state.var(name) for name in means}
    return {"said": said, "means": ended, "moves": state.moves, "rounds": state.round_number, "limit_hit": state.limit_hit,
            "results": list(state.results), "places": list(state.places), "returns": state.returns(),
            "scores": [state.var("score", k) for k in range(n)] if _has_score(game) else None,
            "arrivals": {name: _by_kind(game, [sum(state.arrivals[inst][card] for inst in instances)
                                               for card in range(game.prog.card_count())])
                         for name, instances in zones.items()}}


def _by_kind(game, per_card: list) -> dict:
    """Counts per card summed per kind of card (identical copies, by name)."""
    out: dict[str, int] = {}
    for card, times in enumerate(per_card):
        name = game.card_name(card)
        out[name] = out.get(name, 0) + times
    return out


# ---- the command

def cmd_simulate(args) -> int:
    if args.seats and "human" in args.seats:
        print("gamedsl simulate: error: simulations are played by bots only "
              f"(seats: {', '.join(BOTS)})", file=sys.stderr)
        return 2
    game = load(args.file)
    players, seats = players_and_seats(game, args.players, args.seats, lambda n: ["greedy"])
    options = dict(args.option)
    t0 = time.perf_counter()
    result = with_progress("simulating", args.games, lambda progress: simulate(
        game, args.games, players, args.seed, seats, options, progress=progress, track=args.track, jobs=args.jobs,
        means=args.mean),
        stderr())
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    _print_simulation(stdout(), result, elapsed, game)
    return 0


def _fmt(x, digits: int = 2) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _print_simulation(out: Console, r: dict, elapsed: float, game):
    opts = ", ".join(f"{k}={game.option_text(k, v)}" for k, v in r["options"].items())
    say(out, f"{r['game']}: {r['games']} games, {r['players']} players, seeds {r['seed']}.."
              f"{r['seed'] + r['games'] - 1}" + (f", options {opts}" if opts else "") + f" ({elapsed:.1f} s)", "bold")
    table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    cols = ["seat", "bot", "wins", "losses", "draws", "win %", "mean place", "mean return"]
    has_score = "mean_score" in r["per_seat"][0]
    if has_score:
        cols.append("mean score")
    own = list(r["per_seat"][0]["means"])
    cols += [f"mean {name}" for name in own]
    for c in cols:
        table.add_column(c, justify="left" if c in ("seat", "bot") else "right", header_style="bold")
    for s in r["per_seat"]:
        row = [s["player"], s["bot"], str(s["wins"]), str(s["losses"]), str(s["draws"]),
               f"{100 * s['wins'] / r['games']:.1f}", _fmt(s["mean_place"]), f"{s['mean_return']:+.3f}"]
        if has_score:
            row.append(_fmt(s["mean_score"], 1))
        row += [_fmt(s["means"][name], 2) for name in own]
        table.add_row(*row)
    out.print(table)
    for name, spread in r["means"].items():
        say(out, f"mean {name} at the end: {_fmt(spread['mean'], 2)} (min {_fmt(spread['min'])}, "
                 f"max {_fmt(spread['max'])})")
    length = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), show_edge=False)
    for c in ("length", "mean", "min", "max", "stdev"):
        length.add_column(c, justify="left" if c == "length" else "right", header_style="bold")
    for name in ("moves", "rounds"):
        s = r[name]
        length.add_row(name, _fmt(s["mean"], 1), _fmt(s["min"]), _fmt(s["max"]), _fmt(s["stdev"], 1))
    out.print(length)
    hit = r["limit_hit"]
    say(out, f"{hit} game{'s' if hit != 1 else ''} reached the move limit (unfinished)", "yellow" if hit else "dim")
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
