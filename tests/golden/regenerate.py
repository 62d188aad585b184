"""Golden playthroughs: one readable transcript per game and player count.

For every games/*.game and every player count it allows, this plays one game with
seed 1 and a fixed policy, and writes tests/golden/<game>-<N>p.txt: at each move the
view of the player to move (drawn only from `state.observation(player)`, so it never
shows what that player could not see) and the move chosen. A rule change then shows
up as a reviewable diff of these files; tests/test_golden.py fails until they are
regenerated.

    python tests/golden/regenerate.py           # write the transcripts
    python tests/golden/regenerate.py --check   # only compare; exit 1 on a difference

The policy: random.Random(1) picks one of the legal moves, in display order
(`game.display_order`), with one `randrange(len(moves))` per move. Display order, not
action ids, so that renumbering the actions inside the engine changes nothing here.
"""
from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
from pathlib import Path

import gamedsl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GAMES = ROOT / "games"

SEED = 1
POLICY_SEED = 1
MAX_SHOWN = 120  # moves written out in full; after them, only the final summary
REGENERATE = "python tests/golden/regenerate.py"
_NAME = re.compile(r"^(?P<game>.+)-(?P<players>\d+)p\.txt$")

# The observation's keys this file knows how to draw; any other key is written out as
# JSON, so that a new field of the observation shows up in the diff too.
_KNOWN = ("game", "player", "round", "move", "to_move", "zones", "vars", "labels", "log", "moves", "legal",
          "results", "places")


def game_files() -> list[Path]:
    return sorted(GAMES.glob("*.game"), key=lambda p: p.name)


def golden_path(stem: str, players: int) -> Path:
    return HERE / f"{stem}-{players}p.txt"


@functools.lru_cache(maxsize=None)
def load(stem: str):
    """games/<stem>.game, loaded once (a Game is not changed by playing it)."""
    return gamedsl.load_game(GAMES / f"{stem}.game")


def cases() -> list[tuple[str, int]]:
    """(game file stem, player count) for every game and every player count it allows."""
    out = []
    for path in game_files():
        game = load(path.stem)
        out += [(path.stem, n) for n in range(game.min_players, game.max_players + 1)]
    return out


# ---- drawing an observation as text ---------------------------------------------------

def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def zone_text(view) -> str:
    """A zone as the observation gives it: its cards, or how many (and the top one)."""
    if isinstance(view, list):
        return " ".join(str(c) for c in view) if view else "(empty)"
    if isinstance(view, dict) and set(view) <= {"count", "top"}:
        n = view.get("count", 0)
        if view.get("top") is not None:
            return f"top {view['top']} ({_plural(n, 'card')})"
        return f"({_plural(n, 'card')})"
    return _json(view)


def value_text(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    return _json(value)


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _per_player(value) -> bool:
    return isinstance(value, dict) and bool(value) and all(_is_player(k) for k in value)


def _is_player(key) -> bool:
    return isinstance(key, str) and key[:1] == "P" and key[1:].isdigit()


def _players_sorted(keys):
    return sorted(keys, key=lambda k: int(k[1:]))


def var_line(name: str, value) -> str:
    if _per_player(value):
        return f"{name} = " + " · ".join(f"{p} {value_text(value[p])}" for p in _players_sorted(value))
    return f"{name} = {value_text(value)}"


def view_lines(obs: dict) -> list[str]:
    """The zones, one line per zone (per player's zone: one line per player), then the variables.

    Zones and variables keep the order of the observation, which is the order the game file
    declares them in.
    """
    lines = []
    for name, view in obs.get("zones", {}).items():
        if _per_player(view):
            lines += [f"{name} {p}: {zone_text(view[p])}" for p in _players_sorted(view)]
        else:
            lines.append(f"{name}: {zone_text(view)}")
    lines += [var_line(name, value) for name, value in obs.get("vars", {}).items()]
    for key in sorted(k for k in obs if k not in _KNOWN):
        lines.append(f"[{key}] {_json(obs[key])}")
    return lines


def _new_log(before: list, now: list) -> list:
    """The log lines of `now` that were not yet in `before` (both are the last lines of one log)."""
    for k in range(min(len(before), len(now)), 0, -1):
        if before[len(before) - k:] == now[:k]:
            return now[k:]
    return list(now)


# ---- one game --------------------------------------------------------------------------

def transcript(stem: str, players: int, *, seed: int = SEED, policy_seed: int = POLICY_SEED,
               max_shown: int = MAX_SHOWN) -> str:
    """The golden transcript of games/<stem>.game for `players` players, as text."""
    game = load(stem)
    state = game.new_state(players=players, seed=seed)
    rng = random.Random(policy_seed)
    out = [
        f"# Golden playthrough of {game.name} (games/{stem}.game): {players} players, seed {seed}",
        f"# Policy: random.Random({policy_seed}) picks one move per step, "
        "randrange(len(moves)), from the legal moves in display order",
    ]
    options = getattr(getattr(game, "prog", None), "options", None) or {}
    if options:
        out.append("# Options: defaults (" + ", ".join(f"{k} {v[0]}" for k, v in options.items()) + ")")
    labels = {k: v for k, v in state.observation(0).get("labels", {}).items() if v != k.replace("_", " ")}
    if labels:  # what the game calls its zones and variables on the table (the same in every view)
        out.append("# Labels: " + ", ".join(f"{k} {_json(v)}" for k, v in labels.items()))
    out += [
        "# Each step: the view of the player to move (from their observation), then the move chosen.",
        "# 'seen': the moves since that player's previous step, as they saw them; 'said': what the",
        "# rules said since the previous step; 'name = ...': a variable; '>>': the move chosen.",
        f"# Regenerate after an intended change: {REGENERATE}",
        "",
    ]
    seen_upto = [0] * players  # per player: the moves before this index were in an earlier view of theirs
    last_log: list = []  # the log as the previous step's view showed it (every player sees the same log)
    shown = 0
    while not state.is_terminal():
        player = state.current_player()
        legal = game.display_order(state.legal_actions())
        choice = legal[rng.randrange(len(legal))]
        if shown < max_shown:
            out += _step(game, state, player, legal, choice, seen_upto, last_log)
            shown += 1
        state.apply_action(choice)
    out += _summary(game, state, players, shown, last_log)
    return "\n".join(out) + "\n"


def _step(game, state, player, legal, choice, seen_upto, last_log) -> list[str]:
    obs = state.observation(player)
    name = game.player_name(player)
    # The observation must be the one of the player to move, and list their legal moves.
    assert obs.get("player") == name and obs.get("to_move") == name, (obs.get("player"), obs.get("to_move"))
    strings = [game.action_to_string(a) for a in legal]
    assert obs.get("legal") == strings, f"observation lists {obs.get('legal')}, legal moves are {strings}"
    number = obs["move"]
    lines = [f"--- move {number + 1} · round {obs['round']} · {name} to move"]

    # The moves made since this player's last decision, as they saw them.
    moves = obs.get("moves", [])
    first = number - len(moves)  # the move number of moves[0]
    new = [m for i, m in enumerate(moves, first) if i >= seen_upto[player]]
    missed = max(0, first - seen_upto[player])
    if new or missed:
        lead = [f"… {missed} earlier moves not in the view"] if missed else []
        lines.append("  seen: " + " | ".join(lead + new))
    seen_upto[player] = number + 1
    # What the rules said since the previous step (shown once, in the next view).
    said = _new_log(last_log, obs.get("log", []))
    last_log[:] = obs.get("log", [])
    if said:
        lines.append("  said: " + " | ".join(said))

    lines += ["  " + line for line in view_lines(obs)]
    lines.append(f"  legal: {' | '.join(obs['legal'])}")
    lines.append(f"  >> {name}: {game.action_to_string(choice)}")
    lines.append("")
    return lines


def _summary(game, state, players: int, shown: int, last_log: list) -> list[str]:
    names = [game.player_name(k) for k in range(players)]
    views = [state.observation(k) for k in range(players)]
    lines = []
    if state.moves > shown:
        lines += [f"... moves {shown + 1} to {state.moves} not shown", ""]
    lines.append("=== game over" if state.is_terminal() else "=== game not over")
    if shown == state.moves:  # what the rules said after the last move shown
        said = _new_log(last_log, views[0].get("log", []))
        if said:
            lines.append("  said: " + " | ".join(said))
    lines.append(f"  moves: {state.moves}")
    lines.append(f"  rounds: {state.round_number}")
    lines.append("  results: " + " · ".join(f"{p} {value_text(r) if r else 'draw'}"
                                           for p, r in zip(names, state.results)))
    lines.append("  places: " + " · ".join(f"{p} {value_text(r)}" for p, r in zip(names, state.places)))
    lines.append("  returns: " + " · ".join(f"{p} {r:+g}" if r else f"{p} 0"
                                           for p, r in zip(names, state.returns())))
    # The final values, each player's own from their own view (a value only its owner sees
    # is then shown for every player).
    lines.append("  final values:")
    for var, value in views[0].get("vars", {}).items():
        if _per_player(value):
            merged = {p: view["vars"][var].get(p) for p, view in zip(names, views)}
            lines.append("    " + var_line(var, merged))
        else:
            lines.append("    " + var_line(var, value))
    return lines


# ---- the command ------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if a transcript differs")
    args = parser.parse_args(argv)
    wanted = {}
    for stem, n in cases():
        wanted[golden_path(stem, n).name] = transcript(stem, n)
    stale = sorted(p.name for p in HERE.glob("*.txt") if _NAME.match(p.name) and p.name not in wanted)
    bad = 0
    for name, text in wanted.items():
        path = HERE / name
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            print(f"same     tests/golden/{name}")
            continue
        if args.check:
            bad += 1
            print(f"{'missing' if old is None else 'differs'}  tests/golden/{name}")
        else:
            path.write_text(text, encoding="utf-8", newline="\n")
            print(f"{'created' if old is None else 'updated'}  tests/golden/{name}")
    for name in stale:
        if args.check:
            bad += 1
            print(f"stale    tests/golden/{name} (no such game or player count)")
        else:
            (HERE / name).unlink()
            print(f"removed  tests/golden/{name} (no such game or player count)")
    if bad:
        print(f"{bad} golden transcript(s) out of date: run {REGENERATE} if the change is intended")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
