"""What `gamedsl serve` defends against (docs/serve.md): unguessable seeds sent to nobody and files only
the server can read; no cross-site request, framing or DNS rebinding (Host and Origin checks, the CSRF
token, the security headers, in a real browser too); request bodies refused before they fill memory;
WebSocket connections limited, and a join costing its own frame only."""
from __future__ import annotations

import asyncio
import builtins
import contextlib
import http.server
import json
import os
import re
import select
import shutil
import socket
import sqlite3
import stat
import threading
from pathlib import Path

import httpx
import pytest
import websockets

import gamedsl
from gamedsl.tools.cli import main
from gamedsl.tools.serve.app import Server, build_app
from gamedsl.tools.serve.security import Limits, Policy, machine_addresses
from gamedsl.tools.serve.store import Store
from gamedsl.tools.serve.table import Conn, Settings, Table
from gamedsl.tools.serve.views import SPECTATOR
from serve_helpers import (GAMES, Player, Served, create_table, lobby_client, log_lines, log_of, play_all,
                           random_policy, ws_url, wait_in_page)

LAUS = GAMES / "laus.game"
CHROMIUM = os.environ.get("GAMEDSL_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def strict(data, *args, game=LAUS) -> Served:
    """A server as a playtest runs it: no --allow-scripts."""
    return Served(game, data, *args, scripts=False)


def logs(data) -> list:
    folder = data / "logs"
    return sorted(folder.iterdir()) if folder.exists() else []


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# ---- seeds

def test_a_seed_outside_0_to_2_128_is_refused_with_400_and_leaves_no_log(tmp_path):
    with strict(tmp_path / "data") as server:
        client = lobby_client(server.url)
        for seed in (2 ** 128, 2 ** 200, -1, 1.5, "12a", "-3", True, [4], "1" * 41, "²", "0x10"):
            r = client.post("/api/tables", json={"players": 3, "seats": ["human"] * 3, "seed": seed})
            assert r.status_code == 400, (seed, r.text)
            assert r.json()["error"] == ("the seed is a whole number from 0 to 2**128 - 1 (leave it empty for a "
                                         "random one)")
        assert logs(tmp_path / "data") == [] and client.get("/api/tables").json() == []
        for seed in (0, 2 ** 63, "2" * 38, 2 ** 128 - 1):  # the largest: 39 digits
            assert client.post("/api/tables", json={"players": 3, "seats": ["human"] * 3, "seed": seed}).is_success
        seeds = sorted(log_lines(log)[0]["seed"] for log in logs(tmp_path / "data"))
        assert seeds == [0, 2 ** 63, int("2" * 38), 2 ** 128 - 1]
        client.close()


def test_a_drawn_seed_has_128_bits_from_secrets_and_is_sent_to_nobody(tmp_path):
    data = tmp_path / "data"
    with strict(data) as server:
        client = lobby_client(server.url)
        made = [client.post("/api/tables", json={"players": 3, "seats": ["human", "random", "random"],
                                                 "options": {"target": "60"}}) for _ in range(4)]
        assert all(r.status_code == 200 for r in made)
        listed = client.get("/api/tables").text
        client.close()
        tables = [r.json() for r in made]
        player = Player(server.url, tables[0]["seats"][0]["link"], random_policy(1), stop_after=6)
        spectator = Player(server.url, tables[0]["spectator"], lambda f: None, stop_after=0)
        asyncio.run(play_all([player, spectator], timeout=60))
        assert player.errors == [] and player.sent == 6
    seeds = {t["table"]: log_lines(log_of(data, t["table"]))[0]["seed"] for t in tables}
    assert len(set(seeds.values())) == 4
    assert max(s.bit_length() for s in seeds.values()) > 100  # 128 random bits (all four under 2**100: 2**-112)
    assert all("seed" not in t for t in tables)
    sent = [r.text for r in made] + [listed] + player.raw + spectator.raw
    for seed in seeds.values():
        for text in (str(seed), hex(seed)[2:]):
            assert not any(text in s for s in sent), "the seed was sent to someone"
    store = Store(data)  # kept exactly, as text, however long
    assert {row["id"]: row["seed"] for row in store.tables()} == seeds
    store.close()


def test_a_table_with_a_128_bit_seed_is_replayed_and_resumed_at_the_terminal(tmp_path, capsys, monkeypatch):
    """A whole game with the largest seed, replayed by `gamedsl replay`; a game left unfinished with a
    drawn seed is finished with `gamedsl play --resume`, its bots where they were."""
    data = tmp_path / "data"
    top = 2 ** 128 - 1
    with strict(data) as server:
        whole = create_table(server.url, 3, ["human", "random", "greedy"], {"target": "60"}, seed=str(top))
        asyncio.run(play_all([Player(server.url, whole["seats"][0]["link"], random_policy(1))]))
        left = create_table(server.url, 3, ["human", "random", "random"], {"target": "60"}, seed=None)
        asyncio.run(play_all([Player(server.url, left["seats"][0]["link"], random_policy(2), stop_after=3)]))
    lines = log_lines(log_of(data, whole["table"]))
    assert lines[0]["seed"] == top and lines[-1]["type"] == "end"
    capsys.readouterr()
    assert main(["replay", str(log_of(data, whole["table"]))]) == 0
    assert "same final state" in capsys.readouterr().out

    log = log_of(data, left["table"])
    seed = log_lines(log)[0]["seed"]
    before = len(log_lines(log))
    assert log_lines(log)[-1]["type"] == "move"
    monkeypatch.setattr(builtins, "input", lambda prompt="": "1")  # the person takes the first move each time
    assert main(["play", "--resume", str(log)]) == 0
    assert f"seed {seed}" in capsys.readouterr().out
    resumed = log_lines(log)
    assert len(resumed) > before and resumed[-1]["type"] == "end" and resumed[0]["seed"] == seed
    assert main(["replay", str(log)]) == 0
    assert "same final state" in capsys.readouterr().out


OLD_SCHEMA = """
CREATE TABLE tables (id TEXT PRIMARY KEY, created REAL NOT NULL, game_sha256 TEXT NOT NULL,
    players INTEGER NOT NULL, seed INTEGER NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL,
    log TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'playing');
CREATE TABLE links (token_sha256 TEXT PRIMARY KEY, table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL);
CREATE TABLE answers (table_id TEXT NOT NULL REFERENCES tables(id), window INTEGER NOT NULL,
    seat INTEGER NOT NULL, action INTEGER NOT NULL, time REAL NOT NULL, PRIMARY KEY (table_id, window, seat));
"""


def test_a_database_from_before_keeps_its_integer_seeds_and_takes_128_bit_ones(tmp_path):
    """A lobby made by the previous version (seed INTEGER): its table still loads and plays, and a new
    table with a 128-bit seed goes in beside it, its seed read back exactly."""
    data = tmp_path / "data"
    with strict(data) as server:
        old = create_table(server.url, 3, ["human", "greedy", "greedy"], {"target": "60"}, seed=77)
    db = sqlite3.connect(data / "lobby.sqlite3")
    rows = db.execute("SELECT * FROM tables").fetchall()
    links = db.execute("SELECT * FROM links").fetchall()
    db.close()
    for name in ("lobby.sqlite3", "lobby.sqlite3-wal", "lobby.sqlite3-shm"):
        (data / name).unlink(missing_ok=True)
    db = sqlite3.connect(data / "lobby.sqlite3")
    db.executescript(OLD_SCHEMA)
    db.executemany("INSERT INTO tables VALUES (?, ?, ?, ?, 77, ?, ?, ?, ?)", [r[:4] + r[5:9] for r in rows])  # no host
    db.executemany("INSERT INTO links VALUES (?, ?, ?)", links)
    db.commit()
    db.close()
    with strict(data) as server:
        assert [t["table"] for t in httpx.get(server.url + "/api/tables").json()] == [old["table"]]
        waiting = Player(server.url, old["seats"][0]["link"], random_policy(3), stop_after=2)
        asyncio.run(play_all([waiting]))
        assert waiting.errors == [] and waiting.sent == 2
        new = create_table(server.url, 3, ["human", "human", "human"], seed=2 ** 128 - 5)
    store = Store(data)
    seeds = {row["id"]: row["seed"] for row in store.tables()}
    store.close()
    assert seeds == {old["table"]: 77, new["table"]: 2 ** 128 - 5}


def test_the_data_folder_is_0700_and_every_file_the_server_writes_0600(tmp_path):
    data = tmp_path / "data"
    with strict(data) as server:
        table = create_table(server.url, 3, ["human", "random", "random"], {"target": "60"}, seed=None)
        asyncio.run(play_all([Player(server.url, table["seats"][0]["link"], random_policy(1), stop_after=2)]))
        files = {p.name: mode(p) for p in [data / "lobby.sqlite3", data / "lobby.sqlite3-wal",
                                           data / "lobby.sqlite3-shm", *logs(data)]}
        assert mode(data) == mode(data / "logs") == 0o700
        assert len(files) == 4 and set(files.values()) == {0o600}, files
        server.kill()
    log = log_of(data, table["table"])
    with open(log, "a", encoding="utf-8") as f:
        f.write('{"type": "move", "n"')  # killed while writing a line: the log is rewritten at the restart
    data.chmod(0o755)  # as an older version left it
    with strict(data) as again:
        again.resumed()  # the log is rewritten as its table is resumed, while the server already answers
        assert not log.read_text(encoding="utf-8").endswith('"n"')
        assert mode(log) == 0o600
    assert f"other users of this machine can open {data} (its logs hold the tables' seeds): chmod 700 {data}" \
        in again.stderr()


# ---- cross-site requests, framing, DNS rebinding

def test_the_new_options_are_checked_before_anything_listens(tmp_path, capsys):
    for option, value, problem in (
            ("--allow-origin", "evil.example", "expected an origin like https://play.example.org"),
            ("--allow-origin", "ftp://evil.example", "expected an origin like"),
            ("--allow-host", "a b", "expected a host name or address, optionally with :PORT, not 'a b'"),
            ("--max-connections", "0", "expected a number from 1, not 0")):
        assert main(["serve", str(LAUS), option, value, "--data", str(tmp_path / "d")]) == 2
        assert problem in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def _csp(response) -> dict[str, str]:
    policy = response.headers["content-security-policy"]
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] if " " in d else "" for d in map(str.strip, policy.split(";"))}


def test_every_response_carries_the_security_headers(tmp_path):
    with strict(tmp_path / "data") as server:
        table = create_table(server.url, 3, ["human"] * 3)
        host = server.url.removeprefix("http://")
        answers = [httpx.get(server.url + path) for path in ("/", "/api/game", "/api/tables", "/static/lobby.js",
                                                               "/static/style.css", table["seats"][0]["link"],
                                                               "/t/not-a-token", "/api/stats", "/nowhere")]
        answers.append(httpx.post(server.url + "/api/tables", json={}))  # refused: no Origin
        answers.append(httpx.get(server.url + "/", headers={"Host": "evil.example"}))  # refused: not its name
        assert [r.status_code for r in answers] == [200, 200, 200, 200, 200, 200, 404, 404, 404, 403, 421]
        for r in answers:
            assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["referrer-policy"] == "no-referrer"
            csp = _csp(r)
            assert {k: csp[k] for k in ("default-src", "script-src", "style-src", "frame-ancestors", "base-uri",
                                        "form-action")} == {"default-src": "'self'", "script-src": "'self'",
                                                            "style-src": "'self'", "frame-ancestors": "'none'",
                                                            "base-uri": "'none'", "form-action": "'self'"}
            assert csp["connect-src"] == ("'self'" if r.status_code == 421 else f"'self' ws://{host} wss://{host}")


def test_only_the_servers_own_names_are_answered(tmp_path):
    """DNS rebinding: a page of evil.example whose name now points at this machine reaches the server
    with Host evil.example: refused, HTTP and WebSocket alike, until --allow-host names it."""
    with strict(tmp_path / "data", "--allow-host", "play.example", "--allow-host", "Other.example:81") as server:
        port = int(server.url.rsplit(":", 1)[1])
        table = create_table(server.url, 3, ["human"] * 3)
        status = {}
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "play.example", "play.example:443",
                     "other.example:81", f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}",
                     "other.example:82", f"192.0.2.77:{port}", "bad host", ""):
            status[host] = httpx.get(server.url + "/api/game", headers={"Host": host}).status_code
        assert [h for h, s in status.items() if s == 200] == [f"127.0.0.1:{port}", f"localhost:{port}",
                                                              f"[::1]:{port}", "play.example", "play.example:443",
                                                              "other.example:81"]
        assert set(status.values()) == {200, 421}
        refused = httpx.get(server.url + "/", headers={"Host": f"evil.example:{port}"})
        assert refused.json()["error"] == (f"gamedsl serve does not answer to the host name 'evil.example:{port}': "
                                           "if that is this server's name, start it with --allow-host evil.example")

        async def rebound():
            url = ws_url(f"http://evil.example:{port}", table["spectator"])
            async with websockets.connect(url, host="127.0.0.1", port=port, origin=f"http://evil.example:{port}") \
                    as ws:
                with pytest.raises(websockets.ConnectionClosedError) as closed:
                    await ws.recv()
                return closed.value.rcvd
        close = asyncio.run(rebound())
        assert close.code == 1008 and close.reason == f"refused: this server does not answer to the name " \
                                                      f"'evil.example:{port}' (see --allow-host)"


def test_on_every_interface_the_machines_own_addresses_and_names_are_answered(tmp_path):
    with strict(tmp_path / "data", "--host", "0.0.0.0") as server:
        port = int(server.url.rsplit(":", 1)[1])
        own = {a for a in machine_addresses() if a not in ("127.0.0.1", "[::1]")}
        good = [f"{name}:{port}" for name in {socket.gethostname().lower(), "localhost", "127.0.0.1", "0.0.0.0",
                                              *own}]
        for host in good:
            assert httpx.get(server.url + "/api/game", headers={"Host": host}).status_code == 200, host
        for host in (f"evil.example:{port}", f"203.0.113.9:{port}", f"{socket.gethostname()}.evil.example:{port}"):
            assert httpx.get(server.url + "/api/game", headers={"Host": host}).status_code == 421, host


def _cookie(client: httpx.Client) -> str:
    return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def _post(client: httpx.Client, **headers) -> httpx.Response:
    body = json.dumps({"players": 3, "seats": ["human"] * 3})
    return client.post("/api/tables", content=body, headers={"Content-Type": "application/json", **headers})


def test_a_change_needs_the_servers_own_origin_json_and_the_csrf_token(tmp_path):
    """The review's attack (a page of another site posting a table as text/plain) and each way around
    the checks is refused, with no table made; the lobby's own way is not."""
    data = tmp_path / "data"
    with strict(data, "--allow-origin", "https://tools.example/") as server:
        client = lobby_client(server.url)  # has loaded the lobby: the cookie, the token, the Origin
        token = client.headers["X-CSRF-Token"]
        bare = httpx.Client(base_url=server.url)
        refused = {
            "another site": _post(client, Origin="http://evil.example"),
            "another port": _post(client, Origin=server.url.rsplit(":", 1)[0] + ":1"),
            "null origin": _post(client, Origin="null"),
            "text/plain": _post(client, **{"Content-Type": "text/plain"}),
            "a form": client.post("/api/tables", data={"players": "3"}),
            "no origin": _post(bare, **{"X-CSRF-Token": token, "Cookie": _cookie(client)}),
            "no token": _post(client, **{"X-CSRF-Token": ""}),
            "a wrong token": _post(client, **{"X-CSRF-Token": token[:-2] + "xy"}),
            "no cookie": _post(bare, Origin=server.url, **{"X-CSRF-Token": token}),
            "a delete from another site": client.delete("/api/tables", headers={"Origin": "http://evil.example"}),
        }
        statuses = {name: r.status_code for name, r in refused.items()}
        assert statuses == {"another site": 403, "another port": 403, "null origin": 403, "text/plain": 415,
                            "a form": 415, "no origin": 403, "no token": 403, "a wrong token": 403,
                            "no cookie": 403, "a delete from another site": 403}
        assert refused["another site"].json()["error"].startswith("refused: a page of http://evil.example may not")
        assert refused["text/plain"].json()["error"] == "send the request as JSON (Content-Type: application/json)"
        assert "CSRF token" in refused["no token"].json()["error"]
        assert client.get("/api/tables").json() == [] and logs(data) == []
        assert _post(client).status_code == 200
        assert _post(client, Origin="https://tools.example").status_code == 200  # --allow-origin
        client.close()
        bare.close()
    with strict(data) as again:  # a lobby page from before the restart: its token is refused
        stale = httpx.Client(base_url=again.url, headers={"Origin": again.url, "X-CSRF-Token": token},
                             cookies={f"gamedsl_csrf_{again.url.rsplit(':', 1)[1]}": token})
        assert _post(stale).status_code == 403
        stale.close()


def test_allow_scripts_lets_in_requests_without_origin_and_nothing_else(tmp_path):
    with Served(LAUS, tmp_path / "data") as server:  # --allow-scripts
        assert _post(httpx.Client(base_url=server.url)).status_code == 200
        assert _post(httpx.Client(base_url=server.url), Origin="http://evil.example").status_code == 403
        assert _post(httpx.Client(base_url=server.url), Origin=server.url).status_code == 403  # a page: its token
        assert httpx.post(server.url + "/api/tables", content="{}").status_code == 415


async def _ws_close(url: str, **kwargs):
    """The close a WebSocket is answered with, and the frames sent before it."""
    frames = []
    async with websockets.connect(url, **kwargs) as ws:
        try:
            while True:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
        except websockets.ConnectionClosed as closed:
            return closed.rcvd, frames


def test_a_websocket_from_a_page_of_another_site_or_without_origin_is_closed_before_any_frame(tmp_path):
    with strict(tmp_path / "data", "--allow-origin", "http://tools.example:3000") as server:
        table = create_table(server.url, 3, ["human"] * 3)
        url = ws_url(server.url, table["seats"][0]["link"])
        another = "refused: pages of http://evil.example may not play here (see --allow-origin)"
        missing = "refused: no Origin header (see --allow-scripts)"
        for origin, reason in (("http://evil.example", another), (None, missing)):
            close, frames = asyncio.run(_ws_close(url, origin=origin))
            assert close.code == 1008 and close.reason == reason and frames == []
        for origin in (server.url, "http://tools.example:3000"):
            player = Player(server.url, table["seats"][0]["link"], lambda f: None, stop_after=0)
            player.origin = origin
            asyncio.run(play_all([player], timeout=10))
            assert player.frames and player.frames[0]["seat"] == "P1"


@contextlib.contextmanager
def _site(page: str):
    """Another web site on this machine (another port: another origin) serving one page: its URL."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # the name http.server calls
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{site.server_address[1]}/"
    finally:
        site.shutdown()
        site.server_close()


ATTACK = """<!doctype html><title>a page of another site</title>
<iframe id="lobby" src="{url}/"></iframe>
<script>
fetch("{url}/api/tables", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
  body: JSON.stringify({{players: 3, seats: ["human", "human", "human"]}})}})
  .catch(() => null).then(() => {{ window.done = true; }});
</script>"""


def test_in_a_browser_the_pages_work_under_the_csp_and_another_site_can_neither_frame_nor_post(tmp_path):
    """Chromium: the lobby makes a table with a 128-bit seed typed in (sent whole, with the CSRF token),
    the seat's page plays, no CSP violation anywhere; a page of another site neither frames the lobby
    nor creates a table (the review's attack: a text/plain POST)."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "the browser tests need a Chromium (apt-get install chromium, or set GAMEDSL_CHROMIUM)"
    data = tmp_path / "data"
    top = 2 ** 128 - 1
    with strict(data) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            console = []
            page.on("console", lambda m: console.append(m.text))
            page.goto(server.url + "/")
            page.wait_for_selector("#seats select")
            for k in range(3):
                page.locator("#seats select").nth(k).select_option("human" if k == 0 else "random")
            page.fill("#seed", str(top))
            page.click("#create")
            page.wait_for_selector("#links a.spectator-link")
            link = page.locator("#links a.seat-link").first.get_attribute("href")
            assert log_lines(logs(data)[0])[0]["seed"] == top
            page.goto(server.url + link)
            page.wait_for_selector("#moves button")
            page.locator("#moves button").first.click()
            wait_in_page(page, "document.querySelectorAll('#log div').length > 1")
            assert page.evaluate("window.gamedslErrors") == []
            assert not [m for m in console if "Content Security Policy" in m or "Refused" in m], console

            with _site(ATTACK.format(url=server.url)) as other:  # another site, on this machine
                evil = browser.new_page()
                evil.goto(other)
                wait_in_page(evil, "window.done === true", timeout=10)
                evil.wait_for_timeout(500)
                framed = [f for f in evil.frames if f.url.startswith(server.url)]
                assert framed == [] and [f.url for f in evil.frames][1] == "chrome-error://chromewebdata/"
        finally:
            browser.close()
        assert len(httpx.get(server.url + "/api/tables").json()) == 1 and len(logs(data)) == 1


# ---- request bodies

def _vm_rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    return int(re.search(r"VmRSS:\s+(\d+) kB", status)[1])


def _raw_post(url: str, headers: dict, body_bytes: int, chunked: bool) -> tuple[bytes, int]:
    """POST a body of `body_bytes` (zeros) on a raw socket, as a client that keeps sending until the
    server answers or hangs up: (the answer's first bytes, how much of the body was sent)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    head = ["POST /api/tables HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in headers.items()),
            "Transfer-Encoding: chunked" if chunked else f"Content-Length: {body_bytes}"]
    piece = b"0" * (1 << 16)
    sent = 0
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        select.select([s], [], [], 0.2 if chunked else 2)  # a Content-Length over the limit is answered at once
        try:
            while sent < body_bytes:
                if select.select([s], [], [], 0)[0]:
                    break  # the server has answered
                s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:  # the whole answer: its head and body may come in separate pieces
            while len(answer) < 1 << 16 and (piece := s.recv(4096)):
                answer += piece
        except (ConnectionResetError, TimeoutError):
            pass
        return answer, sent


def test_a_body_is_refused_past_16_kib_while_it_is_read_and_memory_does_not_grow(tmp_path):
    with strict(tmp_path / "data") as server:
        client = lobby_client(server.url)
        headers = {"Origin": server.url, "X-CSRF-Token": client.headers["X-CSRF-Token"],
                   "Cookie": _cookie(client),
                   "Content-Type": "application/json"}
        assert _post(client, **{"Content-Type": "text/plain"}).status_code == 415  # the path warmed up
        before = _vm_rss_kib(server.proc.pid)
        answer, sent = _raw_post(server.url, headers, 200 << 20, chunked=False)
        assert answer.startswith(b"HTTP/1.1 413 ") and sent == 0  # refused on its Content-Length, unread
        answer, sent = _raw_post(server.url, headers, 200 << 20, chunked=True)
        assert answer.startswith(b"HTTP/1.1 413 ") and b"at most 16384 bytes" in answer
        assert sent < 20 << 20  # given up long before the end
        grown = _vm_rss_kib(server.proc.pid) - before
        assert grown < 5 * 1024, f"the server grew by {grown} KiB"
        assert client.get("/api/tables").json() == []
        assert _post(client).status_code == 200  # and goes on serving
        client.close()


# ---- connections

def test_connections_are_limited_per_seat_and_in_all_with_a_reason(tmp_path):
    with strict(tmp_path / "data", "--max-connections", "5", "--max-connections-per-seat", "2") as server:
        table = create_table(server.url, 3, ["human"] * 3)
        seat = ws_url(server.url, table["seats"][0]["link"])
        watch = ws_url(server.url, table["spectator"])

        async def run():
            opened = []

            async def connect(url):
                ws = await websockets.connect(url, origin=server.url)
                opened.append(ws)
                return json.loads(await asyncio.wait_for(ws.recv(), 5))

            async def refused(url):
                close, frames = await _ws_close(url, origin=server.url)
                assert [f["type"] for f in frames] == ["error"] and frames[0]["fatal"]
                assert close.code == 1013 and close.reason == frames[0]["message"]
                return close.reason

            assert [(await connect(seat))["seat"] for _ in range(2)] == ["P1", "P1"]
            per_seat = await refused(seat)
            assert [(await connect(watch))["seat"] for _ in range(3)] == [None] * 3
            in_all = await refused(watch)
            await opened.pop().close()
            await asyncio.sleep(0.3)
            assert (await connect(watch))["seat"] is None  # a closed one made room
            for ws in opened:
                await ws.close()
            return per_seat, in_all
        per_seat, in_all = asyncio.run(run())
        assert per_seat == "this seat is open in 2 windows already: close one, then reload this page"
        assert in_all == "the server has 5 connections open, its most: try again later"


async def _asgi_websocket(app, path: str, client: tuple[str, int], host: str) -> tuple[asyncio.Queue, list, object]:
    """A WebSocket handshake straight to the ASGI application, from any client address."""
    inbox: asyncio.Queue = asyncio.Queue()
    sent: list = []
    await inbox.put({"type": "websocket.connect"})
    scope = {"type": "websocket", "asgi": {"version": "3.0"}, "scheme": "ws", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "client": client, "server": ("127.0.0.1", 8000),
             "subprotocols": [], "headers": [(b"host", host.encode()), (b"origin", f"http://{host}".encode())]}

    async def send(message):
        sent.append(message)
    task = asyncio.ensure_future(app(scope, inbox.get, send))
    for _ in range(200):
        if any(m["type"] in ("websocket.close", "websocket.send") for m in sent):
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)  # a refusal's close follows its error frame
    return inbox, sent, task


def test_connections_from_one_address_are_limited_but_not_from_this_machine(tmp_path):
    async def run():
        server = Server(LAUS, tmp_path / "data", Settings(bot_delay=0))
        limits = Limits(total=100, per_address=3, per_seat=4)
        app = build_app(server, Policy("127.0.0.1", 8000), limits)
        table = await server.create(3, ["human"] * 3, {}, None)
        path = "/ws/" + table["spectator"].rsplit("/", 1)[1]
        host = "127.0.0.1:8000"
        opened = [await _asgi_websocket(app, path, ("10.0.0.7", 40000 + k), host) for k in range(4)]
        kinds = [[m["type"] for m in sent] for _, sent, _ in opened]
        assert kinds[:3] == [["websocket.accept", "websocket.send"]] * 3
        assert kinds[3] == ["websocket.accept", "websocket.send", "websocket.close"]
        assert opened[3][1][2]["code"] == 1013 and "too many connections from your address (3)" in \
            opened[3][1][2]["reason"]
        others = [await _asgi_websocket(app, path, address, host)
                  for address in [("10.0.0.8", 1)] + [("127.0.0.1", k) for k in range(5)]]
        assert all([m["type"] for m in sent] == ["websocket.accept", "websocket.send"] for _, sent, _ in others)
        assert limits.open == 9 and dict(limits.by_address) == {"10.0.0.7": 3, "10.0.0.8": 1}
        for inbox, _, task in opened + others:
            await inbox.put({"type": "websocket.disconnect", "code": 1000})
            await asyncio.wait_for(task, 5)
        assert limits.open == 0 and not limits.by_address and not limits.by_seat
        await server.close()
    asyncio.run(run())


class _Socket:
    """A client's end of a WebSocket, in memory: the frames it is sent."""

    def __init__(self):
        self.sent: list[dict] = []

    async def send_text(self, text: str):
        self.sent.append(json.loads(text))


def test_a_join_costs_the_joining_connections_frame_and_online_stays_right():
    """300 spectators join: one frame computed each (before: one per open connection, 45150 in all). A
    seat coming online or going offline is the one change the others are told of."""
    game = gamedsl.load_game(LAUS)
    table = Table("t", game, game.new_state(players=3, seed=1), ["human"] * 3, None, None, Settings(bot_delay=0), [],
                  None, 1, {})
    computed = []
    frame = table.frame
    table.frame = lambda conn: computed.append(conn) or frame(conn)

    async def run():
        p1 = Conn(_Socket(), 0)
        await table.join(p1)
        watchers = [Conn(_Socket(), SPECTATOR) for _ in range(300)]
        for conn in watchers:
            await table.join(conn)
        assert len(computed) == 301 and all(len(c.ws.sent) == 1 for c in [p1, *watchers])
        assert [s["online"] for s in watchers[0].ws.sent[0]["seats"]] == [True, False, False]
        p2 = Conn(_Socket(), 1)
        await table.join(p2)  # P2 comes online: everyone is told
        assert all(len(c.ws.sent) == 2 for c in [p1, *watchers])
        assert [s["online"] for s in p1.ws.sent[-1]["seats"]] == [True, True, False]
        again = Conn(_Socket(), 1)
        await table.join(again)  # a second window of P2: nothing changed for the others
        await table.leave(again)
        assert all(len(c.ws.sent) == 2 for c in [p1, *watchers]) and len(p2.ws.sent) == len(again.ws.sent) == 1
        await table.leave(watchers.pop())  # a spectator leaves: nothing to tell
        assert all(len(c.ws.sent) == 2 for c in [p1, *watchers]) and len(p2.ws.sent) == 1
        await table.leave(p2)  # P2 goes offline: everyone is told
        assert all(len(c.ws.sent) == 3 for c in [p1, *watchers])
        assert [s["online"] for s in watchers[0].ws.sent[-1]["seats"]] == [True, False, False]
    asyncio.run(run())


def test_json_nested_too_deep_is_refused_with_a_reason_not_a_traceback(tmp_path):
    """json.loads recurses into [[[[...]]]] until Python's limit: the form of a new table, and a host's
    body, nested 2,000 deep were answered HTTP 500 with a traceback."""
    with Served(GAMES / "laus.game", tmp_path / "data") as server:
        client = lobby_client(server.url)
        deep = "[" * 2000 + "]" * 2000
        r = client.post("/api/tables", content=deep, headers={"Content-Type": "application/json"})
        assert (r.status_code, r.json()) == (400, {"error": "send the table as a JSON object "
                                                            "(the JSON nests more than 32 deep)"})
        table = client.post("/api/tables", json={"players": 3, "seats": ["human", "human", "random"]}).json()
        r = client.post(f"/api/tables/{table['table']}/seats/0", content=deep,
                        headers={"Content-Type": "application/json", "X-Host-Token": table["host"]})
        assert r.status_code == 400 and "Traceback" not in r.text
        client.close()


def test_spectators_cannot_take_the_connections_kept_for_the_seats():
    """512 idle spectator connections from this machine (uncounted per address) locked every player
    of every table out: a quarter of the connections is kept for seat links."""
    limits = Limits(total=8, per_address=32, per_seat=4)
    here = ("127.0.0.1", 1)
    assert [limits.admit(here, None) for _ in range(6)] == [None] * 6
    assert limits.admit(here, None) == "the server has 6 spectators connected, its most: try again later"
    assert limits.admit(here, ("t", 0)) is None and limits.admit(here, ("t", 1)) is None
    assert limits.admit(here, ("t", 2)) == "the server has 8 connections open, its most: try again later"
    limits.release(here, None)
    assert limits.admit(here, ("t", 2)) is None and limits.watching == 5
