"""`gamedsl serve` under load: many tables at once, each with two WebSocket players, a bot and a
spectator, on 127.0.0.1, for a fixed time. Reports errors, lost moves and the time from a move
received to every client of its table told (p50/p99, measured by the server), and the round trip a
player sees (from sending a move to the frame that shows it).

    python bench/serve_load.py                    # 50 tables for 60 s (LOL, reaction windows and races)
    python bench/serve_load.py --seconds 10 --json
    python bench/serve_load.py --game games/laus.game --option target=300

A player sends only moves it was offered, each once; a move is lost if the server neither played it
(it is in the table's log), nor holds it (an answer waiting in an open reaction window), nor refused
it (an error frame). The server runs in a process of its own, as `gamedsl serve --stats`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent


PASS = "no reaction"  # a person's pass may be made by the server for them (the next player moved, a deadline)
MOVED_ON = "the game has moved on since that move was chosen: it was not played"


class Seat:
    """A WebSocket player answering every decision at random, and counting what happens to its moves."""

    def __init__(self, url: str, link: str, seed: int, deadline: float):
        self.url = url.replace("http://", "ws://") + "/ws/" + link.rsplit("/", 1)[-1]
        self.origin = url  # a browser page of the server sends its own origin
        self.rng, self.deadline = random.Random(seed), deadline
        self.sent = self.errors = self.passes = self.late = 0
        self.messages: list[str] = []
        self.waiting: tuple[float, int] | None = None  # (sent at, turn) of the move not yet shown
        self.round_trips: list[float] = []
        self.last: dict | None = None
        self.frames = 0

    async def play(self):
        async with websockets.connect(self.url, max_size=None, origin=self.origin) as ws:
            answered = None
            while True:
                try:
                    text = await asyncio.wait_for(ws.recv(), max(0.01, self.deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    return
                frame = json.loads(text)
                if frame["type"] == "error":
                    if frame["message"] == MOVED_ON:
                        self.late += 1  # made early, after a reaction window, that a reaction beat: refused
                        answered = None  # the decision is asked again: answer it again, as a person clicks again
                    else:
                        self.errors += 1
                        self.messages.append(frame["message"])
                    continue
                if frame.get("notice"):
                    self.late += 1  # the same, told once the window closed
                    answered = None
                self.frames += 1
                self.last = frame
                if self.waiting and (frame["turn"] != self.waiting[1] or frame["answered"]):
                    self.round_trips.append(time.monotonic() - self.waiting[0])
                    self.waiting = None
                if frame["over"] or frame["stopped"]:
                    return
                if frame["legal"] and frame["turn"] != answered and time.monotonic() < self.deadline:
                    answered = frame["turn"]
                    chosen = self.rng.choice(frame["legal"])
                    self.waiting = (time.monotonic(), frame["turn"])
                    await ws.send(json.dumps({"type": "move", "move": chosen["move"], "turn": frame["turn"]}))
                    self.sent += 1
                    self.passes += chosen["text"] == PASS


async def one_table(url: str, seed: int, deadline: float, options: dict, data: Path, out: dict,
                    seats: tuple = ("human", "human", "random")):
    """Tables one after the other until the deadline: by default two players, a random bot and a
    spectator each (a slow table: one player and two searching bots)."""
    async with httpx.AsyncClient(timeout=30, headers={"Origin": url}) as http:  # as the lobby's page does:
        page = await http.get(url + "/")  # its Origin, and the CSRF token of the page (and its cookie)
        http.headers["X-CSRF-Token"] = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text)[1]
        while time.monotonic() < deadline - 1:
            r = await http.post(url + "/api/tables", json={"players": 3, "seats": list(seats),
                                                           "options": options, "seed": seed})
            if r.status_code != 200:
                out["errors"].append(f"create: {r.text}")
                return
            table = r.json()
            people = [Seat(url, table["seats"][k]["link"], seed * 10 + k, deadline)
                      for k in range(len(seats)) if seats[k] == "human"]
            watcher = Seat(url, table["spectator"], 0, deadline)
            await asyncio.gather(*(s.play() for s in people + [watcher]))
            out["tables"].append((table["table"], people, watcher, [k for k, x in enumerate(seats) if x == "human"]))
            seed += 1000


def count_logged(data: Path, table: str, people: list[int]) -> tuple[int, int]:
    """(moves by the people at the table other than passes, all moves) in a table's log."""
    lines = [json.loads(x) for x in (data / "logs" / f"{table}.jsonl").read_text(encoding="utf-8").splitlines()]
    moves = [m for m in lines if m["type"] == "move"]
    return sum(1 for m in moves if m["player"] in people and m["text"] != PASS), len(moves)


def run(game: Path, tables: int, seconds: float, options: dict, slow: int = 0, slow_bot: str = "ismcts:2s") -> dict:
    data = Path(tempfile.mkdtemp(prefix="gamedsl-serve-load-"))
    command = [sys.executable, "-m", "gamedsl", "serve", str(game), "--port", "0", "--data", str(data),
               "--bot-delay", "0", "--window-seconds", "60", "--stats"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        found = re.search(r"at (http://\S+?)/ ", line)
        if not found:
            raise SystemExit(f"the server did not start: {line}{proc.stderr.read()}")
        url = found[1]
        for _ in range(200):
            try:
                httpx.get(url + "/api/game", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        out = {"tables": [], "errors": []}
        start = time.monotonic()
        deadline = start + seconds

        async def main():
            await asyncio.gather(*(one_table(url, 1 + k, deadline, options, data, out) for k in range(tables)),
                                 *(one_table(url, 10_001 + k, deadline, options, data, out,
                                             ("human", slow_bot, slow_bot)) for k in range(slow)))
        asyncio.run(main())
        elapsed = time.monotonic() - start
        time.sleep(0.5)  # the last moves reach the logs
        stats = httpx.get(url + "/api/stats", timeout=10).json()
        alive = proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    sent = errors = logged = moves = late = 0
    held = stats["held_answers"]  # answers waiting in a window that was still open at the end
    trips: list[float] = []
    messages = list(out["errors"])
    for table, seats, watcher, humans in out["tables"]:
        people, all_moves = count_logged(data, table, humans)
        logged += people
        moves += all_moves
        for s in seats + [watcher]:
            sent += s.sent - s.passes  # passes aside: the server may pass for a person
            errors += s.errors
            late += s.late
            messages += s.messages
            trips += s.round_trips
    shutil.rmtree(data, ignore_errors=True)
    trips.sort()
    q = (lambda f: round(trips[min(len(trips) - 1, int(f * len(trips)))] * 1000, 2)) if trips else (lambda f: None)
    return {"game": game.name, "tables_at_once": tables, "slow_tables": slow, "slow_bot": slow_bot if slow else None,
            "tables_played": len(out["tables"]),
            "seconds": round(elapsed, 1), "moves": moves, "moves_per_s": round(moves / elapsed, 1),
            "moves_sent": sent, "errors": errors + len(out["errors"]), "error_messages": messages[:10],
            "lost_moves": max(0, sent - errors - late - logged - held), "held_in_open_windows": held,
            "phantom_moves": max(0, logged - (sent - errors)), "refused_as_late": late,
            "server_alive": alive,
            "server_p50_ms": stats["p50_ms"] and round(stats["p50_ms"], 2),
            "server_p99_ms": stats["p99_ms"] and round(stats["p99_ms"], 2),
            "round_trip_p50_ms": q(0.5), "round_trip_p99_ms": q(0.99)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=str(ROOT / "games" / "lol.game"))
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--slow-tables", type=int, default=0,
                        help="also this many tables of one player and two searching bots")
    parser.add_argument("--slow-bot", default="ismcts:2s", help="the bot of the slow tables (default ismcts:2s)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option) or ({"mode": "first_out"} if "lol" in args.game else {})
    r = run(Path(args.game), args.tables, args.seconds, options, args.slow_tables, args.slow_bot)
    if args.json:
        print(json.dumps(r))
    else:
        slow = f" and {r['slow_tables']} of {r['slow_bot']} bots" if r["slow_tables"] else ""
        print(f"{r['game']}: {r['tables_at_once']} tables at once{slow} for {r['seconds']} s "
              f"({r['tables_played']} played)")
        print(f"  {r['moves']} moves ({r['moves_per_s']}/s), {r['moves_sent']} sent by the WebSocket players")
        print(f"  errors {r['errors']}, lost moves {r['lost_moves']} ({r['held_in_open_windows']} answers held "
              f"in windows still open at the end)")
        print(f"  move received -> every client told (server): p50 {r['server_p50_ms']} ms, p99 {r['server_p99_ms']} ms")
        print(f"  move sent -> frame showing it (player): p50 {r['round_trip_p50_ms']} ms, "
              f"p99 {r['round_trip_p99_ms']} ms")
        for m in r["error_messages"]:
            print(f"  error: {m}")
    return 0 if r["errors"] == 0 and r["lost_moves"] == 0 and r["phantom_moves"] == 0 and r["server_alive"] else 1


if __name__ == "__main__":
    sys.exit(main())
