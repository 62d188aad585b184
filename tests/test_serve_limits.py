"""What one client, or time, may cost a server: tables created per minute per address, tables
played at once, and how long the logs of tables no longer played are kept (--keep-days)."""
import asyncio
import os
import time

import pytest

from gamedsl.errors import GamedslError
from gamedsl.tools.serve.app import Server
from gamedsl.tools.serve.table import Settings

from serve_helpers import GAMES

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
