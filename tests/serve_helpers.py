"""What the serve tests share: a `gamedsl serve` process of their own, tables made through the lobby's
API, and WebSocket players that keep every frame they are sent."""
from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import websockets

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


class Served:
    """`gamedsl serve GAME --port 0 --data DATA ...` in a process of its own; .url once it listens.

    With --allow-scripts unless scripts=False: test_serve.py's own requests and WebSockets are a
    script's, with no Origin header (a browser always sends one). The helpers below send Origin and the
    CSRF token as the lobby's page does, so they work either way; test_serve_security.py uses
    scripts=False."""

    def __init__(self, game, data, *args, scripts: bool = True):
        self.game, self.data, self.args = Path(game), Path(data), [str(a) for a in args]
        if scripts:
            self.args.append("--allow-scripts")
        self.proc = None
        self.url = None

    def start(self):
        # a bot asked in a window answers within 0.05 s, and moves are shown that long after they come
        # (at a table with a bot, in a game with reactions: --answer-seconds), so a whole game stays quick
        pace = [] if "--answer-seconds" in self.args else ["--answer-seconds", "0.05"]
        # and a bot next to move after a window makes its move 0.1 s after the window opened
        pace += [] if "--reaction-seconds" in self.args else ["--reaction-seconds", "0.1"]
        command = [sys.executable, "-m", "gamedsl", "serve", str(self.game), "--port", "0", "--data", str(self.data),
                   "--bot-delay", "0", *pace, *self.args]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        line = self.proc.stdout.readline()
        found = re.search(r"at (http://\S+?)/ ", line)
        assert found, f"no address in {line!r}: {self.proc.stderr.read() if self.proc.poll() is not None else ''}"
        self.url = found[1]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # it answers at once; its tables are resumed meanwhile (resumed())
            try:
                if httpx.get(self.url + "/api/game", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError("the server did not answer")

    def resumed(self, timeout: float = 20) -> list:
        """Wait until every table a restarted server found is back (until then it is listed as
        resuming); returns the tables listed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = httpx.get(self.url + "/api/tables", timeout=2).json()
            if not any("resuming" in t for t in listed):
                return listed
            time.sleep(0.05)
        raise AssertionError(f"tables still resuming after {timeout} s")

    def kill(self):
        """kill -9: no chance to close anything."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.poll() is not None else ""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def lobby_client(url: str) -> httpx.Client:
    """An HTTP client as the lobby's page is one: it has loaded the lobby (the CSRF cookie), and sends the
    server's own Origin and the page's CSRF token."""
    client = httpx.Client(base_url=url, timeout=20, headers={"Origin": url})
    page = client.get("/")
    assert page.status_code == 200, page.text
    client.headers["X-CSRF-Token"] = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.text)[1]
    return client


def create_table(url: str, players: int, seats: list[str], options: dict | None = None, seed: int = 1) -> dict:
    client = lobby_client(url)
    try:
        r = client.post("/api/tables", json={"players": players, "seats": seats, "options": options or {},
                                             "seed": seed})
    finally:
        client.close()
    assert r.status_code == 200, r.text
    return r.json()


def ws_url(url: str, link: str) -> str:
    return url.replace("http://", "ws://") + "/ws/" + link.rsplit("/", 1)[-1]


class Player:
    """A seat played over a WebSocket: every frame it is sent is kept (raw); `policy(frame)` picks a
    move id from frame["legal"] (or None: wait). Answers each decision (each "turn") once, and
    again if the move it made early was not played (as a person clicks again)."""

    def __init__(self, url: str, link: str, policy, stop_after=None, wait=None):
        self.url, self.link, self.policy, self.stop_after = ws_url(url, link), link, policy, stop_after
        self.origin = url  # the server's own origin, as a page of it sends
        self.wait = wait  # seconds to think before answering a frame (None: answer at once)
        self.raw: list[str] = []
        self.frames: list[dict] = []
        self.errors: list[str] = []
        self.sent = 0

    async def play(self, together: "asyncio.Barrier | None" = None):
        """Play the seat to the end; with `together`, its first frame is answered only once every
        player of the barrier has had theirs (each sees the game from its start)."""
        async with websockets.connect(self.url, max_size=None, origin=self.origin) as ws:
            answered = None
            while True:
                text = await ws.recv()
                self.raw.append(text)
                frame = json.loads(text)
                if together is not None:
                    await together.wait()
                    together = None
                if frame["type"] == "error":
                    self.errors.append(frame["message"])
                    if frame.get("fatal"):
                        return
                    if frame["message"].startswith("the game has moved on"):
                        answered = None  # a move made early was not played: the decision is asked again
                    continue
                self.frames.append(frame)
                if frame.get("notice", "").startswith("the game changed before your move"):
                    answered = None  # the move made early was not played: choose again
                if frame["over"] or frame["stopped"]:
                    return
                if self.stop_after is not None and self.sent >= self.stop_after:
                    return
                if frame["legal"] and frame["turn"] != answered:
                    move = self.policy(frame)
                    if move is not None:
                        answered = frame["turn"]
                        if self.wait is not None:
                            await asyncio.sleep(self.wait(frame))
                        await ws.send(json.dumps({"type": "move", "move": move, "turn": frame["turn"]}))
                        self.sent += 1


def random_policy(seed: int):
    import random
    rng = random.Random(seed)
    return lambda frame: rng.choice(frame["legal"])["move"]


async def play_all(players: list[Player], timeout: float = 120, together: bool = False):
    """Every player to the end; `together`: none moves before each has its first frame (else one
    that connects late may first see the game after another's moves, as a loaded machine shows)."""
    barrier = asyncio.Barrier(len(players)) if together else None
    await asyncio.wait_for(asyncio.gather(*(p.play(barrier) if together else p.play() for p in players)), timeout)


def log_of(data: Path, table: str) -> Path:
    return Path(data) / "logs" / f"{table}.jsonl"


def log_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


os.environ.setdefault("PYTHONUNBUFFERED", "1")


def wait_in_page(page, expression: str, timeout: float = 30.0):
    """Wait until a JavaScript expression is true in a page. Not page.wait_for_function: it polls
    with the page's own eval, which the server's Content-Security-Policy (no 'unsafe-eval') forbids
    whenever the expression is not true at once; page.evaluate is not subject to it."""
    import time
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true after {timeout} s: {expression}"
        page.wait_for_timeout(50)


CHROMIUM = os.environ.get("GAMEDSL_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) if p),
    None)
# The browser tests' mark (their `browser` fixture is conftest.py's): skipped, saying how to install it,
# only when no Chromium is found.
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found for the browser tests: install it (apt-get install chromium, "
                             "or set GAMEDSL_CHROMIUM to a Chromium or Chrome executable)")
