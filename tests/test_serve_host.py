"""What the host of a `gamedsl serve` table may do with its host token: close it, delete it, give an
absent person's seat to a bot; and idle tables expiring on their own."""
import asyncio
import json
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

        async def other_connected():
            async with websockets.connect(ws_url(server.url, table["seats"][other]["link"]), origin=server.url):
                await asyncio.sleep(0.3)
                return await asyncio.to_thread(_host, server.url, "POST", f"/api/tables/{tid}/seats/{other}",
                                               table["host"], {"bot": "greedy"})
        r = asyncio.run(other_connected())
        assert r.status_code == 409 and r.json()["error"] == (f"P{other + 1} is connected: a seat can be given to a "
                                                              "bot after 1 s away")
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/{other}", table["host"], {"bot": "greedy"})
        assert r.status_code == 409 and r.json()["error"].startswith(f"P{other + 1} has been away for only ")
        assert _host(server.url, "POST", f"/api/tables/{tid}/seats/{k}", table["host"],
                     {"bot": "ismcts:99s"}).status_code == 400
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/{k}", table["host"], {"bot": "greedy"})
        assert r.status_code == 200, r.text  # nobody ever opened it: an empty seat goes to a bot at once
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


def test_the_host_hands_a_seat_back_to_its_person_and_gives_a_seat_a_new_link(tmp_path):
    """A seat given to a bot goes back to its person, whose link plays it again; a kick gives the
    seat a new link: the old one's connection is told it opens nothing now, and it opens nothing
    after; the new one plays the seat. A seat made for a bot gets a link for a person to take it."""
    with Served(LAUS, tmp_path / "data") as server:
        table = create_table(server.url, 3, ["human", "human", "random"], seed=5)
        tid, host = table["table"], table["host"]
        seats = lambda: {t["table"]: t for t in httpx.get(server.url + "/api/tables").json()}[tid]["seats"]  # noqa: E731
        assert _host(server.url, "POST", f"/api/tables/{tid}/seats/1", host, {"bot": "greedy"}).status_code == 200
        assert seats() == ["human", "greedy", "random"]
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/1", host, {"person": True})
        assert r.status_code == 200 and seats() == ["human", "human", "random"]
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/1", host, {"person": True})
        assert r.status_code == 409 and r.json()["error"] == "P2 is a person's seat already"
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/2", host, {"person": True})
        assert r.status_code == 200 and seats() == ["human", "human", "human"]
        assert httpx.get(server.url + r.json()["link"]).status_code == 200  # a bot's seat gets a person's link
        r = _host(server.url, "POST", f"/api/tables/{tid}/seats/1", host, {"dance": True})
        assert r.status_code == 400
        old = table["seats"][1]["link"]

        async def kicked():
            async with websockets.connect(ws_url(server.url, old), origin=server.url) as ws:
                first = json.loads(await ws.recv())
                r = await asyncio.to_thread(_host, server.url, "POST", f"/api/tables/{tid}/seats/1", host,
                                            {"kick": True})
                told = json.loads(await ws.recv())
                return first, r, told
        first, r, told = asyncio.run(kicked())
        assert first["type"] == "state" and r.status_code == 200
        assert told == {"type": "closed", "message": "the host gave this seat a new link: this one opens nothing now"}
        new = r.json()["link"]
        assert new != old and httpx.get(server.url + old).status_code == 404
        assert httpx.get(server.url + new).status_code == 200

        async def opened(link):
            async with websockets.connect(ws_url(server.url, link), origin=server.url) as ws:
                return json.loads(await ws.recv())
        assert asyncio.run(opened(new))["seat"] == "P2"
