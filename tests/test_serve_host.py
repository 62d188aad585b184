"""What the host of a `gamedsl serve` table may do with its host token: close it, delete it, give an
absent person's seat to a bot; and idle tables expiring on their own."""
import asyncio
import time

import httpx
import websockets

from serve_helpers import GAMES, Player, Served, create_table, lobby_client, log_lines, log_of, play_all, ws_url

LAUS = GAMES / "laus.game"


def _host(url: str, method: str, path: str, token, body=None):
    client = lobby_client(url)
    try:
        headers = {} if token is None else {"X-Host-Token": token}
        return client.request(method, path, headers=headers, json=body or {})  # JSON, as the lobby sends
    finally:
        client.close()


def test_only_the_host_closes_a_table_and_everyone_is_told(tmp_path):
    data = tmp_path / "data"
    with Served(LAUS, data) as server:
        table = create_table(server.url, 3, ["human", "human", "random"], seed=2)
        tid = table["table"]
        other = create_table(server.url, 3, ["human", "random", "random"], seed=3)
        for token in (None, "not-the-token", other["host"]):
            r = _host(server.url, "POST", f"/api/tables/{tid}/close", token)
            assert r.status_code == 403 and "only the host of this table" in r.json()["error"]
        seat = Player(server.url, table["seats"][0]["link"], lambda f: None)

        async def watch_and_close():
            playing = asyncio.ensure_future(seat.play())
            await asyncio.sleep(0.5)
            r = await asyncio.to_thread(_host, server.url, "POST", f"/api/tables/{tid}/close", table["host"])
            assert r.status_code == 200
            await asyncio.wait_for(playing, 10)
        asyncio.run(watch_and_close())
        assert seat.frames[-1]["stopped"] == "the host closed the table" and not seat.frames[-1]["legal"]
        assert tid not in {t["table"] for t in httpx.get(server.url + "/api/tables").json()}
        assert _host(server.url, "POST", f"/api/tables/{tid}/close", table["host"]).status_code == 409
        assert asyncio.run(_first_message(server.url, table["seats"][1]["link"])) == \
            {"type": "closed", "message": "this table is closed: its host closed it"}  # (was a fatal error)
    with Served(LAUS, data) as server:  # a closed table is not resumed after a restart
        assert {t["table"] for t in httpx.get(server.url + "/api/tables").json()} == {other["table"]}
        assert asyncio.run(_first_message(server.url, table["seats"][0]["link"]))["type"] == "closed"


async def _first_message(url: str, link: str) -> dict:
    import json
    async with websockets.connect(ws_url(url, link), origin=url) as ws:
        return json.loads(await asyncio.wait_for(ws.recv(), 5))


def test_the_host_deletes_a_table_its_links_and_its_log(tmp_path):
    data = tmp_path / "data"
    with Served(LAUS, data) as server:
        table = create_table(server.url, 3, ["human", "greedy", "random"], seed=4)
        path = log_of(data, table["table"])
        assert path.exists()
        assert _host(server.url, "DELETE", f"/api/tables/{table['table']}", "wrong").status_code == 403
        assert _host(server.url, "DELETE", f"/api/tables/{table['table']}", table["host"]).status_code == 200
        assert not path.exists()
        assert httpx.get(server.url + table["seats"][0]["link"]).status_code == 404
        assert httpx.get(server.url + "/api/tables").json() == []


def test_an_absent_persons_seat_goes_to_a_bot_only_after_they_are_away_long_enough(tmp_path):
    data = tmp_path / "data"
    with Served(LAUS, data, "--absent-seconds", "1") as server:
        table = create_table(server.url, 3, ["human", "human", "human"], seed=5)
        tid = table["table"]
        watcher = Player(server.url, table["spectator"], lambda f: None, stop_after=0)
        asyncio.run(play_all([watcher], timeout=10))
        k = int(watcher.frames[0]["view"]["to_move"][1:]) - 1  # the person the table waits for
        other = (k + 1) % 3
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/{k}", table["host"], {"bot": "greedy"})
        assert r.status_code == 409 and r.json()["error"].startswith(f"P{k + 1} has been away for only ")
        time.sleep(1)

        async def other_connected():
            async with websockets.connect(ws_url(server.url, table["seats"][other]["link"]), origin=server.url):
                await asyncio.sleep(0.3)
                return await asyncio.to_thread(_host, server.url, "POST", f"/api/tables/{tid}/seats/{other}",
                                               table["host"], {"bot": "greedy"})
        r = asyncio.run(other_connected())
        assert r.status_code == 409 and r.json()["error"] == (f"P{other + 1} is connected: a seat can be given to a "
                                                              "bot after 1 s away")
        assert _host(server.url, "POST", f"/api/tables/{tid}/seats/{k}", table["host"],
                     {"bot": "ismcts:99s"}).status_code == 400
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/{k}", table["host"], {"bot": "greedy"})
        assert r.status_code == 200, r.text  # never connected: away since the table began
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # the seat plays on as greedy
            moves = [m for m in log_lines(log_of(data, tid)) if m["type"] == "move" and m["player"] == k]
            if moves:
                break
            time.sleep(0.1)
        assert moves
        seats = ["human"] * 3
        seats[k] = "greedy"
        listed = {t["table"]: t for t in httpx.get(server.url + "/api/tables").json()}
        assert listed[tid]["seats"] == seats
    with Served(LAUS, data) as server:  # and stays a bot after a restart
        listed = {t["table"]: t for t in httpx.get(server.url + "/api/tables").json()}
        assert listed[tid]["seats"] == seats


def test_a_table_nobody_plays_or_watches_expires(tmp_path):
    from gamedsl.tools.serve.app import Server
    from gamedsl.tools.serve.table import Settings

    async def run():
        server = Server(LAUS, tmp_path / "data", Settings(bot_delay=0, idle_minutes=0.001))
        made = await server.create(3, ["human", "human", "human"], {}, None)
        kept = await server.create(3, ["human", "human", "human"], {}, None)
        server.tables[kept["table"]].conns.add(object())  # somebody is connected there
        await asyncio.sleep(0.1)
        await server.expire_idle()
        assert set(server.tables) == {kept["table"]}
        status = {row["id"]: row["status"] for row in server.store.tables()}
        assert status == {made["table"]: "expired", kept["table"]: "playing"}
        server.tables[kept["table"]].conns.clear()
        await server.close()
    asyncio.run(run())
