"""The JSON-lines game log: written move by move as a game is played, read back to replay or resume it.

A log is one JSON object per line:

    {"type": "start", "version": 1, "game": PATH, "game_sha256": HEX, "players": N, "seed": S,
     "options": {...}, "seats": ["human", "greedy", ...]}
    {"type": "move", "n": 1, "player": 0, "action": 12, "text": "play J♣"}
    {"type": "move", "n": 2, "player": 2, "action": 40, "text": "cover", "time": 0.734}   (a race answer)
    {"type": "seat", "n": 2, "player": 1, "kind": "greedy", "why": "..."}   (a seat handed on after move 2)
    ...
    {"type": "end", "returns": [...], "results": [...], "moves": M, "digest": HEX}

Every line is flushed and synced to disk as soon as it is written, so a game killed at any
moment loses at most the line being written; a half-written last line is tolerated on reading.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import attrs

from ..errors import GamedslError
from ..language.variant import bases

VERSION = 1


class LogError(GamedslError):
    """A log file that cannot be read, or that does not agree with its game."""

    def __init__(self, path, line: int | None, message: str):
        self.path, self.line, self.message = str(path), line, message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: error: {message}")


@attrs.define
class LogData:
    """A log as read from disk."""

    path: str
    start: dict
    start_line: int
    moves: list  # [(line number, move dict)]
    end: dict | None = None
    end_line: int | None = None
    truncated: bool = False  # the last line was half-written and has been left out
    needs_rewrite: bool = False  # the file is not exactly the lines above (half line, missing newline)
    seats: list = attrs.Factory(list)  # [(line number, seat dict)]: a seat handed to another player

    def lines(self) -> list[dict]:
        out = [self.start] + [m for _, m in sorted(self.moves + self.seats, key=lambda e: e[0])]
        if self.end is not None:
            out.append(self.end)
        return out


def file_sha256(path) -> str:
    """A game file's fingerprint, as a log keeps it: its bytes' digest; a variant's (language/variant.py)
    covers the texts of the files it extends too, so that a changed base is noticed."""
    data = Path(path).read_bytes()
    h = hashlib.sha256(data)
    try:
        found = bases(data.decode("utf-8"), str(path))
    except UnicodeDecodeError:
        found = {}
    for text in found.values():  # the texts, not the names: a log replays from another folder too
        h.update(b"\0extends\0" + (text or "").encode())
    return h.hexdigest()


def _dump(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


class LogWriter:
    """Appends lines to a log, each one flushed and synced to disk before the call returns."""

    def __init__(self, path, new: bool):
        self.path = Path(path)
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:  # readable by its owner alone: it holds the seed and every move in full, secret ones too
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | (os.O_EXCL if new else 0), 0o600)
            if not new:
                os.chmod(self.path, 0o600)  # a log written before it was kept so
            self.file = open(fd, "a", encoding="utf-8", newline="\n")
        except FileExistsError:
            raise GamedslError(f"{self.path} already exists: resume it with `gamedsl play --resume {self.path}`, "
                               "or choose another file with --log") from None
        except OSError as exc:
            raise GamedslError(f"{self.path}: cannot write the log: {exc.strerror}") from None

    def write(self, obj: dict):
        self.file.write(_dump(obj) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def start(self, game_path: str, sha: str, players: int, seed: int, options: dict, seats: list[str],
              version: str | None = None):
        line = {"type": "start", "version": VERSION, "game": game_path, "game_sha256": sha,
                "players": players, "seed": seed, "options": options, "seats": list(seats)}
        line["game_abspath"] = str(Path(game_path).resolve())
        if version:
            line["gamedsl"] = version
        self.write(line)

    def move(self, n: int, player: int, action: int, text: str, time: float | None = None):
        line = {"type": "move", "n": n, "player": player, "action": action, "text": text}
        if time is not None:  # an answer in a reaction window or race: its reaction time, in seconds
            line["time"] = time
        self.write(line)

    def seat(self, n: int, player: int, kind: str, why: str):
        """From move n + 1 on, `kind` plays the seat (a bot for a person gone away, or for a bot
        that failed), and why."""
        self.write({"type": "seat", "n": n, "player": player, "kind": kind, "why": why})

    def end(self, state):
        self.write(end_line(state))

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def end_line(state) -> dict:
    return {"type": "end", "returns": state.returns(), "results": list(state.results),
            "places": list(state.places), "rounds": state.round_number, "limit_hit": state.limit_hit,
            "moves": state.moves, "digest": state.digest()}


def rewrite(data: LogData):
    """Rewrite a log file with exactly its valid lines (dropping a half-written last line)."""
    path = Path(data.path)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # as the log itself: its owner's alone
    with open(fd, "w", encoding="utf-8", newline="\n") as f:
        for obj in data.lines():
            f.write(_dump(obj) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    data.needs_rewrite = False


# ---- reading

def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_START_FIELDS = {
    "version": (_is_int, "a number"),
    "game": (lambda x: isinstance(x, str) and x != "", "the path of the game file"),
    "game_sha256": (lambda x: isinstance(x, str), "a text"),
    "players": (lambda x: _is_int(x) and x > 0, "a positive number"),
    "seed": (_is_int, "a whole number"),
    "options": (lambda x: isinstance(x, dict) and all(isinstance(v, (bool, int)) for v in x.values()),
                "an object of option values (numbers or true/false)"),
    "seats": (lambda x: isinstance(x, list) and all(isinstance(s, str) for s in x), "a list of seat kinds"),
}
_MOVE_FIELDS = {
    "n": (_is_int, "a whole number"),
    "player": (lambda x: _is_int(x) and x >= 0, "a seat number from 0"),
    "action": (lambda x: _is_int(x) and x >= 0, "a move number from 0"),
    "text": (lambda x: isinstance(x, str), "a text"),
}
_SEAT_FIELDS = {
    "n": (lambda x: _is_int(x) and x >= 0, "a whole number from 0"),
    "player": (lambda x: _is_int(x) and x >= 0, "a seat number from 0"),
    "kind": (lambda x: isinstance(x, str), "a text"),
    "why": (lambda x: isinstance(x, str), "a text"),
}
_END_FIELDS = {
    "returns": (lambda x: isinstance(x, list) and all(_is_num(r) for r in x), "a list of numbers"),
    "results": (lambda x: isinstance(x, list) and all(r is None or isinstance(r, str) for r in x),
                "a list of results"),
    "moves": (lambda x: _is_int(x) and x >= 0, "a whole number"),
    "digest": (lambda x: isinstance(x, str), "a text"),
}


def _check_fields(path, lineno: int, obj: dict, fields: dict):
    kind = obj["type"]
    for name, (ok, what) in fields.items():
        if name not in obj:
            raise LogError(path, lineno, f"the {kind} line has no '{name}'")
        if not ok(obj[name]):
            raise LogError(path, lineno, f"'{name}' of the {kind} line should be {what}, not {json.dumps(obj[name])}")


def read_log(path) -> LogData:
    """Read and check the shape of a log (not its moves: see the replay). Raises LogError."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise LogError(path, None, f"cannot read the log: {exc.strerror}") from None
    lines = raw.split(b"\n")
    # After the last newline comes either nothing (a complete file) or an unfinished line.
    unfinished = lines.pop()
    moves: list = []
    seats: list = []
    end = end_line_no = None
    start = start_line = None
    truncated = needs_rewrite = False
    entries = [(i + 1, line, True) for i, line in enumerate(lines)]
    if unfinished.strip():
        entries.append((len(lines) + 1, unfinished, False))
    for lineno, line, complete in entries:
        if not line.strip():
            continue
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            if not complete:
                truncated = needs_rewrite = True  # cut in the middle of a character
                break
            raise LogError(path, lineno, "this line is not UTF-8 text") from None
        try:
            obj = json.loads(line)
        except RecursionError:
            raise LogError(path, lineno, "this line nests JSON too deeply to be a log line") from None
        except ValueError as exc:
            if not complete:
                truncated = needs_rewrite = True  # a half-written last line: a game killed while writing it
                break
            msg = getattr(exc, "msg", str(exc))
            raise LogError(path, lineno, f"this line is not valid JSON ({msg})") from None
        if not complete:
            needs_rewrite = True  # complete JSON but no newline after it
        if not isinstance(obj, dict):
            raise LogError(path, lineno, "each line of a log should be a JSON object")
        kind = obj.get("type")
        if kind is None:
            raise LogError(path, lineno, "the line has no 'type'")
        if end is not None:
            raise LogError(path, lineno, f"a {kind} line after the end line")
        if kind == "start":
            if start is not None:
                raise LogError(path, lineno, "a second start line")
            _check_fields(path, lineno, obj, _START_FIELDS)
            if obj["version"] != VERSION:
                raise LogError(path, lineno, f"log version {obj['version']} is not supported "
                                             f"(this gamedsl reads version {VERSION})")
            start, start_line = obj, lineno
        elif start is None:
            raise LogError(path, lineno, "the first line of a log should be its start line "
                                         '({"type": "start", ...})')
        elif kind == "move":
            _check_fields(path, lineno, obj, _MOVE_FIELDS)
            want = len(moves) + 1
            if obj["n"] != want:
                raise LogError(path, lineno, f"move number {obj['n']}, expected {want}")
            if obj["player"] >= start["players"]:
                raise LogError(path, lineno, f"player {obj['player']} in a game of {start['players']} players")
            if "time" in obj and not (_is_num(obj["time"]) and 0 <= obj["time"] < 1e6):
                raise LogError(path, lineno, f"'time' of the move line should be a number of seconds, "
                                             f"not {json.dumps(obj['time'])}")
            moves.append((lineno, obj))
        elif kind == "seat":
            _check_fields(path, lineno, obj, _SEAT_FIELDS)
            if obj["player"] >= start["players"]:
                raise LogError(path, lineno, f"player {obj['player']} in a game of {start['players']} players")
            seats.append((lineno, obj))
        elif kind == "end":
            _check_fields(path, lineno, obj, _END_FIELDS)
            end, end_line_no = obj, lineno
        else:
            raise LogError(path, lineno, f"unknown line type {json.dumps(kind)} (expected start, move, seat or end)")
    if start is None:
        raise LogError(path, None, "the log is empty: it has no start line")
    if len(start["seats"]) != start["players"]:
        raise LogError(path, start_line, f"{len(start['seats'])} seats for {start['players']} players")
    return LogData(str(path), start, start_line, moves, end, end_line_no, truncated, needs_rewrite, seats)


# ---- replaying

def game_path(data: LogData) -> Path:
    """The game file a log names: as written in it, else relative to the log's folder, else where it was."""
    given = Path(data.start["game"])
    if path_exists(given) or given.is_absolute():
        return given
    beside = Path(data.path).parent / given
    if path_exists(beside):
        return beside
    absolute = data.start.get("game_abspath")
    if isinstance(absolute, str) and path_exists(Path(absolute)):
        return Path(absolute)
    return given


def path_exists(path) -> bool:
    """Whether a file exists; a name the system cannot even look up (too long, odd bytes) does not."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def new_state(game, data: LogData):
    """The game's state at the start of a log."""
    s = data.start
    try:
        return game.new_state(players=s["players"], seed=s["seed"], options=s["options"])
    except GamedslError as exc:
        raise LogError(data.path, data.start_line, str(exc)) from None


def replay_moves(game, data: LogData, before_move=None):
    """Re-play every move of a log, checking each one; returns the state after the last one.

    before_move(state, move) is called before each move is applied. Raises LogError at the first
    move that is not the game's (wrong player, unknown or illegal move, text that does not match).
    """
    state = new_state(game, data)
    for lineno, m in data.moves:
        n, a, logged = m["n"], m["action"], m["text"]
        if state.is_terminal():
            raise LogError(data.path, lineno, f"move {n} ('{logged}') comes after the end of the game")
        p = state.current_player()
        if m["player"] != p:
            raise LogError(data.path, lineno, f"move {n} ('{logged}') is by {game.player_name(m['player'])}, "
                                              f"but {game.player_name(p)} is to move")
        if a >= game.num_distinct_actions():
            raise LogError(data.path, lineno, f"move {n}: this game has no move number {a} ('{logged}')")
        text = game.action_to_string(a)
        if text != logged:
            raise LogError(data.path, lineno, f"move {n}: move number {a} is '{text}' in this game, "
                                              f"but the log says '{logged}'")
        if a not in state.legal_actions():
            raise LogError(data.path, lineno, f"move {n} by {game.player_name(p)} is illegal: {state.explain(a)}")
        if before_move is not None:
            before_move(state, m)
        try:
            state.apply_action(a, m.get("time"))
        except GamedslError as exc:
            raise LogError(data.path, lineno, f"move {n} ('{text}'): {exc}") from None
    return state


def end_mismatch(data: LogData, state) -> str | None:
    """How the end line of a log disagrees with the replayed state, or None if it agrees."""
    end = data.end
    game = state.game
    if end["moves"] != len(data.moves):
        return f"the end line counts {end['moves']} moves, but the log has {len(data.moves)}"
    if not state.is_terminal():
        return (f"the log says the game ended after {len(data.moves)} moves, but it goes on: "
                f"{game.player_name(state.current_player())} is to move")
    if end["digest"] != state.digest():
        return (f"the final state differs from the one logged (digest {state.digest()}, "
                f"the log says {end['digest']})")
    if list(end["results"]) != list(state.results):
        return f"the results are {state.results}, but the log says {end['results']}"
    if [float(r) for r in end["returns"]] != state.returns():
        return f"the returns are {state.returns()}, but the log says {end['returns']}"
    return None
