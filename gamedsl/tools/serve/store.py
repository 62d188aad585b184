"""The lobby's records: tables and their seat links, in SQLite (one file in the --data folder).

A link's token is never stored, only its SHA-256: the database alone opens no seat. Every write
is one committed transaction (the journal makes it survive a killed process); the moves
themselves are in each table's JSON-lines log, written as they are played. The folder is the
server's alone (0700), and so is the database (0600: SQLite gives its -wal and -shm files the
database's own mode).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from pathlib import Path

from ...errors import GamedslError
from ..logfile import LogWriter, _dump

SPECTATOR = -1  # the seat number of a spectator link

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    game_sha256 TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed TEXT NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    log TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing'
);
CREATE TABLE IF NOT EXISTS links (
    token_sha256 TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    table_id TEXT NOT NULL REFERENCES tables(id),
    window INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (table_id, window, seat)
);
"""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def new_table_id() -> str:
    return secrets.token_hex(6)


def seed_text(seed: int) -> str:
    """A seed as stored: in hexadecimal, "0x..." (a seed may pass 64 bits; a database made before seeds
    were TEXT has an INTEGER column, which keeps this text as it is, where it would turn a long
    decimal one into an inexact REAL)."""
    return hex(seed)


def seed_of(value) -> int:
    """A stored seed: "0x..." text, or an integer written by an older version."""
    return int(value, 16) if isinstance(value, str) else int(value)


def new_token() -> str:
    """An unguessable link token (192 random bits)."""
    return secrets.token_urlsafe(24)


class Store:
    """The lobby's database: create tables with their links, find a link's seat, list tables."""

    def __init__(self, folder: Path):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = folder / "lobby.sqlite3"
        _private_file(self.path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(tables)")}
        if "host_sha256" not in columns:  # a database of an older version: its tables have no host
            self.db.execute("ALTER TABLE tables ADD COLUMN host_sha256 TEXT")
        if "names" not in columns:  # nor the names people gave themselves
            self.db.execute("ALTER TABLE tables ADD COLUMN names TEXT")

    def close(self):
        self.db.close()

    def create_table(self, table_id: str, game_sha: str, players: int, seed: int, options: dict, seats: list[str],
                     log: str) -> tuple[list[str], str, str]:
        """A new table: (one token per seat, the spectator token, the host token)."""
        tokens = [new_token() for _ in seats]
        spectator, host = new_token(), new_token()
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO tables (id, created, game_sha256, players, seed, options, seats, log, "
                            "host_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (table_id, time.time(), game_sha, players, seed_text(seed), json.dumps(options),
                             json.dumps(seats), log, token_hash(host)))
            rows = [(token_hash(t), table_id, k) for k, t in enumerate(tokens)]
            rows.append((token_hash(spectator), table_id, SPECTATOR))
            self.db.executemany("INSERT INTO links (token_sha256, table_id, seat) VALUES (?, ?, ?)", rows)
        return tokens, spectator, host

    def reissue_link(self, table_id: str, seat: int) -> str:
        """A new link for a person's seat; its old one opens nothing from now on."""
        token = new_token()
        with self.db:
            self.db.execute("DELETE FROM links WHERE table_id = ? AND seat = ?", (table_id, seat))
            self.db.execute("INSERT INTO links (token_sha256, table_id, seat) VALUES (?, ?, ?)",
                            (token_hash(token), table_id, seat))
        return token

    def is_host(self, table_id: str, token) -> bool:
        """Whether a token is the host token of a table (compared by its hash, in constant time)."""
        row = self.db.execute("SELECT host_sha256 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return bool(row and row[0] and isinstance(token, str) and hmac.compare_digest(row[0], token_hash(token)))

    def set_names(self, table_id: str, names: list):
        with self.db:
            self.db.execute("UPDATE tables SET names = ? WHERE id = ?", (json.dumps(names), table_id))

    def names(self, table_id: str) -> list | None:
        row = self.db.execute("SELECT names FROM tables WHERE id = ?", (table_id,)).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    def set_seats(self, table_id: str, seats: list[str]):
        with self.db:
            self.db.execute("UPDATE tables SET seats = ? WHERE id = ?", (json.dumps(seats), table_id))

    def delete_table(self, table_id: str):
        """A table, its links and its held answers gone from the lobby (its log is the caller's)."""
        with self.db:
            self.db.execute("BEGIN")
            for table in ("links", "answers"):
                self.db.execute(f"DELETE FROM {table} WHERE table_id = ?", (table_id,))
            self.db.execute("DELETE FROM tables WHERE id = ?", (table_id,))

    def link(self, token: str) -> tuple[str, int] | None:
        """The table and seat a token opens (seat -1: a spectator), or None."""
        row = self.db.execute("SELECT table_id, seat FROM links WHERE token_sha256 = ?",
                              (token_hash(token),)).fetchone()
        return None if row is None else (row[0], row[1])

    def tables(self) -> list[dict]:
        rows = self.db.execute("SELECT id, created, game_sha256, players, seed, options, seats, log, status "
                               "FROM tables ORDER BY created").fetchall()
        return [{"id": r[0], "created": r[1], "game_sha256": r[2], "players": r[3], "seed": seed_of(r[4]),
                 "options": json.loads(r[5]), "seats": json.loads(r[6]), "log": r[7], "status": r[8]}
                for r in rows]

    def status(self, table_id: str) -> str | None:
        row = self.db.execute("SELECT status FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row[0] if row else None

    def set_status(self, table_id: str, status: str):
        with self.db:
            self.db.execute("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))

    # ---- answers given in an open reaction window, waiting for the players asked before them
    def save_answer(self, table_id: str, window: int, seat: int, action: int, seconds: float):
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                            (table_id, window, seat, action, seconds))

    def answers(self, table_id: str, window: int) -> dict[int, tuple[int, float]]:
        rows = self.db.execute("SELECT seat, action, time FROM answers WHERE table_id = ? AND window = ?",
                               (table_id, window)).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def drop_answers(self, table_id: str):
        with self.db:
            self.db.execute("DELETE FROM answers WHERE table_id = ?", (table_id,))


def _private_file(path: Path):
    """Create the database file readable by its owner only, or make an older one so (its -wal and -shm
    files too: SQLite creates them with the database's mode, but ones left by a crash keep theirs)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if p.exists():
            os.chmod(p, 0o600)


class GroupLog(LogWriter):
    """A table's log (the lines `gamedsl play` writes), its lines held until `commit` writes them with
    one sync to disk: a move and the bot moves it sets off cost one sync, made before anyone is told."""

    def __init__(self, path, new: bool):
        if new:  # readable by the server alone from the start: its start line holds the table's seed
            path = Path(path)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                raise GamedslError(f"{path} already exists: a table's log is never written over") from None
        super().__init__(path, new=False)
        self.pending: list[dict] = []

    def write(self, obj: dict):
        self.pending.append(obj)

    def commit(self):
        if self.pending:
            lines, self.pending = self.pending, []
            self.file.write("".join(_dump(obj) + "\n" for obj in lines))
            self.file.flush()
            os.fsync(self.file.fileno())

    def close(self):
        self.commit()
        super().close()


def log_path(data: Path, table_id: str) -> Path:
    return data / "logs" / f"{table_id}.jsonl"
