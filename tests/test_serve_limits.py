"""What one client, or time, may cost a server: tables created per minute per address, tables
played at once, and how long the logs of tables no longer played are kept (--keep-days)."""
import asyncio
import json
import os
import time

import pytest
import websockets

from gamedsl.errors import GamedslError
from gamedsl.tools.serve.app import Server
from gamedsl.tools.serve.table import Settings

from serve_helpers import GAMES, Served, create_table, ws_url

LAUS = GAMES / "laus.game"
SEATS = ["human", "human", "random"]


def test_tables_per_minute_per_address_and_at_once_are_limited(tmp_path):
    async def run():
        server = Server(LAUS, tmp_path / "data", Settings(bot_delay=0, tables_per_minute=2, max_tables=3))
        for _ in range(2):
            await server.create(3, SEATS, {}, None, "10.0.0.7")
        with pytest.raises(GamedslError, match="you created 2 tables in the last minute, the most: wait a moment"):
            await server.create(3, SEATS, {}, None, "10.0.0.7")
        server.created["10.0.0.7"][0] -= 61  # a minute later, one more
        await server.create(3, SEATS, {}, None, "10.0.0.7")
        with pytest.raises(GamedslError, match="the server plays 3 tables, its most"):
            await server.create(3, SEATS, {}, None, "10.0.0.8")
        assert len(server.tables) == len(server.store.tables()) == 3  # a refused form left nothing
        # this machine (or a reverse proxy on it) counts in all only
        server.settings.max_tables = 10
        for _ in range(4):
            await server.create(3, SEATS, {}, None, "127.0.0.1")
        assert "127.0.0.1" not in server.created and len(server.tables) == 7
        await server.close()
    asyncio.run(run())


def test_the_log_of_a_table_no_longer_played_is_deleted_after_keep_days(tmp_path):
    async def run():
        server = Server(LAUS, tmp_path / "data", Settings(bot_delay=0, keep_days=2))
        made = [await server.create(3, SEATS, {}, None) for _ in range(3)]
        closed, old_live, fresh = (m["table"] for m in made)
        await server.close_table(closed, made[0]["host"])
        logs = {r["id"]: r["log"] for r in server.store.tables()}
        three_days_ago = time.time() - 3 * 86400
        for tid in (closed, old_live):
            os.utime(logs[tid], (three_days_ago, three_days_ago))
        await server.close_table(fresh, made[2]["host"])  # closed, but its last line is new
        server.forget_old()
        assert {r["id"] for r in server.store.tables()} == {old_live, fresh}  # a table being played stays
        assert not os.path.exists(logs[closed]) and os.path.exists(logs[old_live]) and os.path.exists(logs[fresh])
        assert server.store.link(made[0]["spectator"].rsplit("/", 1)[1]) is None  # its links open nothing now
        await server.close()
    asyncio.run(run())


def test_a_connection_that_sends_no_whole_request_in_time_is_closed(tmp_path):
    """A half-open connection (half a request line, or nothing) is closed after --request-seconds;
    a request sent in time is answered, and the connection it came on is kept while it is used."""
    import socket

    with Served(LAUS, tmp_path / "data", "--request-seconds", "1") as served:
        host, port = served.url.removeprefix("http://").rsplit(":", 1)

        def opened():
            return socket.create_connection((host, int(port)), timeout=5)

        silent, half = opened(), opened()
        half.sendall(b"GET /api/game HTTP/1.1\r\nHost: ")
        prompt = opened()
        prompt.sendall(f"GET /api/game HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert prompt.recv(64).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        for conn in (silent, half):
            assert conn.recv(64) == b""  # closed by the server
            conn.close()
        assert 0.8 < time.monotonic() - started < 4
        served_again = opened()  # the server still answers
        served_again.sendall(f"GET /api/game HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert served_again.recv(64).startswith(b"HTTP/1.1 200")
        for conn in (prompt, served_again):
            conn.close()
        # a WebSocket's request came whole: it stays open past the time, and is answered
        made = create_table(served.url, 3, SEATS)

        async def watch():
            async with websockets.connect(ws_url(served.url, made["spectator"]), origin=served.url) as ws:
                first = json.loads(await ws.recv())
                await asyncio.sleep(2.5)
                await asyncio.wait_for(await ws.ping(), 5)  # still open: the server answers
                return first
        assert asyncio.run(watch())["type"] == "state"
