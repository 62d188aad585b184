"""`gamedsl serve` over real WebSockets: whole games logged as `gamedsl play` logs them, per-seat
secrecy (every frame one seat is sent, checked against what it may see), bad input, and a table
that survives kill -9. The browser tests are in test_serve_browser.py, the load in test_serve_load.py."""
from __future__ import annotations

import asyncio
import json
import time
import re

import httpx
import pytest
import websockets

import gamedsl
from gamedsl.tools.cli import main
from serve_helpers import GAMES, Player, Served, create_table, log_lines, log_of, play_all, random_policy, ws_url

LOL = GAMES / "lol.game"
LAUS = GAMES / "laus.game"


def test_a_whole_game_is_played_and_logged_as_gamedsl_play_logs_it(tmp_path, capsys):
    with Served(LAUS, tmp_path / "data") as server:
        table = create_table(server.url, 3, ["human", "random", "human"], {"target": "150"}, seed=4)
        assert [s["link"] is not None for s in table["seats"]] == [True, False, True]
        players = [Player(server.url, table["seats"][k]["link"], random_policy(k)) for k in (0, 2)]
        spectator = Player(server.url, table["spectator"], lambda f: None)

        async def run():
            watch = asyncio.ensure_future(spectator.play())
            await play_all(players)
            await asyncio.wait_for(watch, 10)
        asyncio.run(run())
        assert players[0].errors == players[1].errors == spectator.errors == []
        last = players[0].frames[-1]
        assert last["over"] and set(last["view"]["results"]) == {"P1", "P2", "P3"}
        assert spectator.frames[-1]["view"]["results"] == last["view"]["results"]
        assert all(not f["legal"] for f in spectator.frames)
    log = log_of(tmp_path / "data", table["table"])
    lines = log_lines(log)
    assert lines[0]["type"] == "start" and lines[0]["seats"] == ["human", "random", "human"]
    assert lines[0]["seed"] == 4 and lines[0]["options"] == {"target": 150} and lines[-1]["type"] == "end"
    capsys.readouterr()
    assert main(["replay", str(log)]) == 0
    assert "same final state" in capsys.readouterr().out


# ---- secrecy

def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def _card_finder(game):
    names = sorted(set(game.prog.card_names), key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?<![\w+]){re.escape(n)}(?!\w)" for n in names))
    return lambda obj: {m for s in _strings(obj) for m in pattern.findall(s)}


# A move made before a reaction window closed (the decision after it, made early) is refused when a
# reaction changed the game first: the page shows it, and the new question.
MOVED_ON = "the game has moved on since that move was chosen: it was not played"


def test_a_seat_is_sent_no_card_it_may_not_see(tmp_path):
    """Every frame sent to P1 during a whole LOL game (two people, one bot; jump-ins, «ЛОЛ!» calls and
    races on the way): each card named in it was in P1's own observation by then. And every frame
    sent to a spectator names only cards every seat had been shown by then."""
    with Served(LOL, tmp_path / "data", "--window-seconds", "30", "--answer-seconds", "0.01", "--reaction-seconds", "0.02") \
            as server:
        table = create_table(server.url, 3, ["human", "human", "greedy"], {"mode": "blitz"}, seed=11)
        players = [Player(server.url, table["seats"][k]["link"], random_policy(10 + k)) for k in (0, 1)]
        spectator = Player(server.url, table["spectator"], lambda f: None)

        async def run():
            watch = asyncio.ensure_future(spectator.play())
            await play_all(players, timeout=150)
            await asyncio.wait_for(watch, 10)
        asyncio.run(run())
        assert set(players[0].errors + players[1].errors) <= {MOVED_ON} and spectator.errors == []
    game = gamedsl.load_game(LOL)
    cards_in = _card_finder(game)
    data = log_lines(log_of(tmp_path / "data", table["table"]))
    moves = [m for m in data if m["type"] == "move"]
    assert data[-1]["type"] == "end" and len(moves) > 50
    # Replay the log: what P1 has been shown up to each moment, by P1's own count of moves.
    state = game.new_state(players=3, seed=data[0]["seed"], options=data[0]["options"])
    seen, upto, hidden_from_p1 = set(), {}, set()
    seen_by = [set(), set(), set()]
    public = {}  # a spectator's count of moves -> the cards every seat had been shown by then
    for i in range(len(moves) + 1):
        seen |= cards_in(state.observation(0))
        upto[state.observation(0)["move"]] = set(seen)  # P1's own count of the moves it knows of
        for k in range(3):
            seen_by[k] |= cards_in(state.observation(k))
        public[state.moves - sum(state.passes)] = set.intersection(*seen_by)
        for p in (1, 2):
            hidden_from_p1 |= {game.card_name(c) for c in state.z[game.zone_instance("hand", p)]} - seen
        if i < len(moves):
            state.apply_action(moves[i]["action"], moves[i].get("time"))
    assert hidden_from_p1, "the others held cards P1 never saw: the check below means something"
    frames = [f for f in map(json.loads, players[0].raw) if f["type"] == "state"]
    assert len(frames) > 20
    events = {m["text"].split(" ", 1)[0] for m in moves}
    assert {"jump", "ЛОЛ!", "cover"} & events  # the real-time moves were played
    def by(counts: dict, move: int) -> set:
        """What was shown by a seat's count of moves: a frame of the decision after an open window, as it
        comes if nobody reacts, may carry a count the game then skipped (two answers shown at once)."""
        return counts[max(k for k in counts if k <= move)]
    for frame in frames:
        named = cards_in(frame)
        allowed = by(upto, frame["view"]["move"])
        assert named <= allowed, f"P1 was sent {named - allowed} at its move {frame['view']['move']}"
    watched = [json.loads(r) for r in spectator.raw]
    assert len(watched) > 20 and watched[-1]["over"]
    for frame in watched:  # a spectator: only cards every seat had been shown
        named = cards_in(frame)
        allowed = by(public, frame["view"]["move"])
        assert named <= allowed, f"the spectator was sent {named - allowed} at move {frame['view']['move']}"


# ---- real time

SLAP = '''game "Slap"
players 2 to 3
attribute rank: 1, 2
cards rank
zone deck: hidden
var slow per player = 0
var covered = 0
var current: player

action bang "bang" {
  covered = 0
  race cover among players
}
action cover "cover" {
  covered += 1
  if covered == count(players) {
    me.slow += 1
    say "was the last to cover"
  }
}
setup { current = seat(1) }
round {
  while all(p in players if p.slow < 2) {
    turn current { choose bang }
    current = next(current)
  }
  end game
}
outcome { for each p in players { if p.slow >= 2 { lose p } else { win p } } }
'''


def test_a_race_goes_to_the_answer_the_server_receives_first(tmp_path):
    """Both players are asked at once; P2 (asked second by the engine) answers at once, P1 a moment
    later: P2's answer waits for P1's, then both go to the engine with their times, and P1, the
    slower, is the last to cover every time."""
    (tmp_path / "slap.game").write_text(SLAP, encoding="utf-8")
    with Served(tmp_path / "slap.game", tmp_path / "data", "--window-seconds", "20") as server:
        table = create_table(server.url, 2, ["human", "human"], seed=1)
        both = lambda f: f["legal"][0]["move"] if all(seat["online"] for seat in f["seats"]) else None  # noqa: E731
        slow = Player(server.url, table["seats"][0]["link"], both, wait=lambda f: 0.5 if f["window"] else 0.0)
        fast = Player(server.url, table["seats"][1]["link"], lambda f: f["legal"][0]["move"])
        asyncio.run(play_all([slow, fast], timeout=30))
        assert slow.errors == fast.errors == []
        assert slow.frames[-1]["view"]["results"] == {"P1": "lose", "P2": "win"}
        races = [f for f in fast.frames if f["window"]]
        assert races and all(f["window"]["kind"] == "race" and 0 < f["window"]["left"] <= 20 for f in races)
        # the slow player was sent each question once: the fast one's answer did not show (not even as a frame)
        assert len([f for f in slow.frames if f["window"]]) == 2
    moves = [m for m in log_lines(log_of(tmp_path / "data", table["table"])) if m["type"] == "move"]
    covers = [m for m in moves if m["text"] == "cover"]
    assert len(covers) == 4 and [m["player"] for m in covers] == [0, 1, 0, 1]  # asked in seat order
    for p1, p2 in zip(covers[::2], covers[1::2]):
        assert p2["time"] < p1["time"] and 0.5 <= p1["time"] < 5  # measured by the server, question to answer
    said = [e for f in slow.frames for e in f["log"] if "said" in e]
    assert [e["who"] for e in said] == ["P1", "P1"]


def test_a_person_who_does_not_answer_in_time_is_answered_for_at_the_deadline(tmp_path):
    (tmp_path / "slap.game").write_text(SLAP, encoding="utf-8")
    with Served(tmp_path / "slap.game", tmp_path / "data", "--window-seconds", "0.4") as server:
        table = create_table(server.url, 2, ["human", "greedy"], seed=1)
        away = Player(server.url, table["seats"][0]["link"], lambda f: None if f["window"] else f["legal"][0]["move"])
        asyncio.run(play_all([away], timeout=30))
        assert away.errors == [] and away.frames[-1]["over"]
    covers = [m for m in log_lines(log_of(tmp_path / "data", table["table"])) if m.get("text") == "cover"]
    mine = [m["time"] for m in covers if m["player"] == 0]
    assert len(mine) >= 2 and mine == [0.4] * len(mine)  # answered for, timed at the deadline
    bot = [m["time"] for m in covers if m["player"] == 1]  # the bot's seeded reaction times
    assert len(bot) == len(mine) and all(0.3 <= t <= 1.5 for t in bot)


def test_an_answer_waiting_in_an_open_race_survives_kill_9(tmp_path):
    """P2 answers the race while P1, asked first, has not: the answer waits (in the store); the server
    dies; after the restart P1 answers, and P2's answer counts with the time it was given."""
    (tmp_path / "slap.game").write_text(SLAP, encoding="utf-8")
    data = tmp_path / "data"

    async def answer_race(url, link, wait_for_window=True):
        async with websockets.connect(ws_url(url, link)) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["legal"] and (frame["window"] or not wait_for_window):
                    await ws.send(json.dumps({"type": "move", "move": frame["legal"][0]["move"],
                                              "turn": frame["turn"]}))
                    if frame["window"]:
                        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        assert reply["type"] == "state", reply
                        return reply

    server = Served(tmp_path / "slap.game", data, "--window-seconds", "60").start()
    try:
        table = create_table(server.url, 2, ["human", "human"], seed=1)
        p1, p2 = table["seats"][0]["link"], table["seats"][1]["link"]

        async def first():
            async with websockets.connect(ws_url(server.url, p1)) as ws:  # P1 bangs, then waits
                frame = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "move", "move": frame["legal"][0]["move"], "turn": frame["turn"]}))
                await asyncio.sleep(0.3)
                reply = await answer_race(server.url, p2)
                assert reply["answered"] and not reply["legal"]  # held: P1, asked first, has not answered
        asyncio.run(first())
    finally:
        server.kill()
    assert [m["text"] for m in log_lines(log_of(data, table["table"]))[1:]] == ["bang"]
    with Served(tmp_path / "slap.game", data, "--window-seconds", "60") as again:
        reply = asyncio.run(answer_race(again.url, p1))
        assert not reply["window"]  # P1's answer closed the race: both answers were played
    covers = [m for m in log_lines(log_of(data, table["table"])) if m.get("text") == "cover"]
    assert [m["player"] for m in covers] == [0, 1]  # in the order the engine asks
    assert 0.25 < covers[1]["time"] < covers[0]["time"]  # P2 answered first, before the restart


def test_a_race_restarted_by_the_server_waits_for_its_people(tmp_path):
    """The server dies in a race P2 has answered; it restarts; P1 comes back 2 s later and answers at
    once: P1's time counts from when P1 was back (not from the restart), after P2's."""
    (tmp_path / "slap.game").write_text(SLAP, encoding="utf-8")
    data = tmp_path / "data"
    server = Served(tmp_path / "slap.game", data, "--window-seconds", "60").start()
    try:
        table = create_table(server.url, 2, ["human", "human"], seed=1)
        p1, p2 = table["seats"][0]["link"], table["seats"][1]["link"]

        async def first():
            async with websockets.connect(ws_url(server.url, p1), origin=server.url) as ws:
                frame = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "move", "move": frame["legal"][0]["move"], "turn": frame["turn"]}))
                async with websockets.connect(ws_url(server.url, p2), origin=server.url) as other:
                    while not (f := json.loads(await other.recv()))["window"]:
                        pass
                    await asyncio.sleep(0.4)
                    await other.send(json.dumps({"type": "move", "move": f["legal"][0]["move"], "turn": f["turn"]}))
                    await other.recv()
        asyncio.run(first())
    finally:
        server.kill()
    with Served(tmp_path / "slap.game", data, "--window-seconds", "60") as again:
        time.sleep(2)  # the server is up; P1 is not back yet

        async def p1_back():
            async with websockets.connect(ws_url(again.url, p1), origin=again.url) as ws:
                while not (f := json.loads(await ws.recv()))["window"]:
                    pass
                assert f["window"]["left"] > 59  # the clock waited for P1 (less P2's 0.4 s, not the 2 s)
                await ws.send(json.dumps({"type": "move", "move": f["legal"][0]["move"], "turn": f["turn"]}))
                await ws.recv()
        asyncio.run(p1_back())
    covers = {m["player"]: m["time"] for m in log_lines(log_of(data, table["table"])) if m.get("text") == "cover"}
    assert 0.35 < covers[1] < covers[0] < 1.0  # P2 first, P1 just after: the 2 s away did not count


# ---- bad input

async def _bad_input(server, table):
    p1, p2 = table["seats"][0]["link"], table["seats"][1]["link"]
    async with websockets.connect(ws_url(server.url, p1)) as a, websockets.connect(ws_url(server.url, p2)) as b:
        fa, fb = await _latest(a), await _latest(b)
        mover, waiter = (a, b) if fa["legal"] else (b, a)
        fm, fw = (fa, fb) if fa["legal"] else (fb, fa)
        assert fm["legal"] and not fw["legal"]
        replies = {}
        for name, sock, text in [
            ("not json", mover, "{move: 3"),
            ("binary", mover, b"\x00\x01move"),
            ("too long", mover, json.dumps({"type": "move", "move": 1, "pad": "x" * 5000})),
            ("not an object", mover, "[1, 2]"),
            ("too deep", mover, "[" * 2000 + "]" * 2000),
            ("unknown type", mover, json.dumps({"type": "shuffle"})),
            ("no move", mover, json.dumps({"type": "move", "move": "play"})),
            ("illegal", mover, json.dumps({"type": "move", "move": 10**6, "turn": fm["turn"]})),
            ("not offered", mover, json.dumps({"type": "move", "move": _not_legal(fm), "turn": fm["turn"]})),
            ("stale", mover, json.dumps({"type": "move", "move": fm["legal"][0]["move"], "turn": fm["turn"] - 1})),
            ("out of turn", waiter, json.dumps({"type": "move", "move": fm["legal"][0]["move"]})),
            ("another seat's token", waiter, json.dumps({"type": "move", "move": fm["legal"][0]["move"],
                                                         "token": (p1 if waiter is b else p2).rsplit("/", 1)[1]})),
        ]:
            await sock.send(text)
            reply = json.loads(await asyncio.wait_for(sock.recv(), 5))
            assert reply["type"] == "error", (name, reply)
            replies[name] = reply["message"]
        # nobody else was told anything: the other socket has no frame waiting
        for sock in (a, b):
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(sock.recv(), 0.3)
        # and the game goes on: the right move by the right seat is played
        await mover.send(json.dumps({"type": "move", "move": fm["legal"][0]["move"], "turn": fm["turn"]}))
        after = json.loads(await asyncio.wait_for(mover.recv(), 5))
        assert after["type"] == "state" and after["turn"] != fm["turn"]
        return replies


async def _latest(ws) -> dict:
    """The last frame a socket was sent, once the frames stop coming (the others joining send some)."""
    frame = json.loads(await ws.recv())
    while True:
        try:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 0.4))
        except asyncio.TimeoutError:
            return frame


def _not_legal(frame) -> int:
    legal = {m["move"] for m in frame["legal"]}
    return next(a for a in range(1000) if a not in legal)


def test_bad_input_is_answered_to_its_sender_only_and_changes_nothing(tmp_path):
    with Served(LAUS, tmp_path / "data") as server:
        table = create_table(server.url, 3, ["human", "human", "random"], {"target": "150"}, seed=2)
        log = log_of(tmp_path / "data", table["table"])
        before = len(log_lines(log))
        replies = asyncio.run(_bad_input(server, table))
        assert replies["not json"].startswith("the message is not JSON")
        assert replies["binary"] == "send text frames of JSON, not binary ones"
        assert replies["too long"].startswith("the message is too long (50")
        assert replies["not an object"] == "the message should be a JSON object"
        assert replies["too deep"].startswith("the message is not JSON (the JSON nests more than 32 deep)")
        assert replies["unknown type"].startswith('unknown message type "shuffle"')
        assert replies["no move"].startswith("a move is sent as")
        assert replies["illegal"] == "there is no move number 1000000"
        assert "is not" in replies["not offered"]
        assert replies["stale"] == "the game has moved on since that move was chosen: it was not played"
        assert replies["out of turn"].startswith("it is not your move: P")
        assert replies["another seat's token"].startswith("this connection plays with the link it was opened with")
        lines = log_lines(log)
        assert len(lines) >= before + 1 and lines[before]["type"] == "move"  # only the good move (and bots after)

        async def strangers():
            async with websockets.connect(server.url.replace("http", "ws") + "/ws/not-a-token") as ws:
                reply = json.loads(await ws.recv())
                assert reply["type"] == "error" and reply["fatal"]
                assert reply["message"].startswith("this link opens no seat of any table")
            async with websockets.connect(ws_url(server.url, table["spectator"])) as ws:
                frame = json.loads(await ws.recv())
                assert frame["seat"] is None and frame["legal"] == []
                await ws.send(json.dumps({"type": "move", "move": 0}))
                reply = json.loads(await ws.recv())
                assert reply["message"].startswith("a spectator cannot play")
        asyncio.run(strangers())
        assert httpx.get(server.url + "/t/not-a-token").status_code == 404
        assert httpx.get(server.url + table["seats"][0]["link"]).status_code == 200
        bad = httpx.post(server.url + "/api/tables", json={"players": 7, "seats": ["human"] * 7})
        assert bad.status_code == 400 and bad.json()["error"] == "Laus is for 3 to 4 players, not 7"
        bad = httpx.post(server.url + "/api/tables", json={"players": 3, "seats": ["human"] * 3,
                                                           "options": {"tagret": 5}})
        assert bad.status_code == 400 and "has no option 'tagret'" in bad.json()["error"]
        bad = httpx.post(server.url + "/api/tables", json={"players": 3, "seats": ["human", "wizard", "ismcts:0"]})
        assert bad.status_code == 400 and bad.json()["error"].startswith("'wizard' is not a bot")
        bad = httpx.post(server.url + "/api/tables", json={"players": 3, "seats": ["human", "greedy", "ismcts:0"]})
        assert bad.status_code == 400 and bad.json()["error"].startswith("bad bot 'ismcts:0': ")
        assert httpx.get(server.url + "/api/game").json()["seat_kinds"] == ["human", "random", "greedy",
                                                                           "ismcts:300:cut=30"]
        good = httpx.post(server.url + "/api/tables", json={"players": 3, "seats": ["human", "ismcts:20:cut=5",
                                                                                      "greedy:samples=2"]})
        assert good.status_code == 200, good.text
        assert httpx.get(server.url + "/api/stats").status_code == 404  # only with --stats
        assert server.url.startswith("http://127.0.0.1:")  # this machine only, unless --host says otherwise


# ---- nothing lost

def _replayed(path):
    """The state a table's log leads to, and the log's lines."""
    lines = log_lines(path)
    game = gamedsl.load_game(LOL)
    state = game.new_state(players=lines[0]["players"], seed=lines[0]["seed"], options=lines[0]["options"])
    for m in lines[1:]:
        if m["type"] == "move":
            state.apply_action(m["action"], m.get("time"))
    return state, lines


def test_after_kill_9_every_table_resumes_and_its_links_still_work(tmp_path):
    """Two tables: three people playing (nothing moves while they are away), and one person with two
    bots, waiting for that person (the bots are replayed to where they were)."""
    data = tmp_path / "data"
    server = Served(LOL, data, "--window-seconds", "30").start()
    try:
        table = create_table(server.url, 3, ["human", "human", "human"], {"mode": "blitz"}, seed=5)
        other = create_table(server.url, 3, ["human", "random", "random"], {"mode": "blitz"}, seed=6)
        players = [Player(server.url, table["seats"][k]["link"], random_policy(k)) for k in range(3)]
        with pytest.raises(asyncio.TimeoutError):  # play for a while, then the server dies mid-game
            asyncio.run(play_all(players, timeout=2))
    finally:
        server.kill()
    state, lines = _replayed(log_of(data, table["table"]))
    assert len(lines) >= 30 and lines[-1]["type"] == "move"
    other_state, _ = _replayed(log_of(data, other["table"]))
    with Served(LOL, data, "--window-seconds", "30") as server:
        listed = {t["table"]: t for t in httpx.get(server.url + "/api/tables").json()}
        assert set(listed) == {table["table"], other["table"]}
        again = [Player(server.url, table["seats"][k]["link"], random_policy(k)) for k in range(3)]
        watcher = Player(server.url, table["spectator"], lambda f: None)

        async def run():
            watch = asyncio.ensure_future(watcher.play())
            try:
                await play_all(again, timeout=3)
            except asyncio.TimeoutError:
                pass
            watch.cancel()
        asyncio.run(run())
        for k in range(3):  # each reconnected page gets the state where it was, and the whole log
            first, expected = again[k].frames[0], state.observation(k)
            assert first["log_from"] == 0 and len(first["log"]) >= 20
            assert (first["view"]["zones"], first["view"]["vars"]) == (expected["zones"], expected["vars"])
            assert set(again[k].errors) <= {MOVED_ON} and len(again[k].frames) > 5
        seen = watcher.frames[0]["view"]
        assert seen["player"] is None and all(isinstance(h, dict) for h in seen["zones"]["hand"].values())
        # the other table is where it was too, its bots included: waiting for its person
        waiting = Player(server.url, other["seats"][0]["link"], lambda f: None)
        with pytest.raises(asyncio.TimeoutError):
            asyncio.run(play_all([waiting], timeout=1))
        expected = other_state.observation(0)
        assert waiting.frames[0]["legal"] and waiting.errors == []
        assert (waiting.frames[0]["view"]["zones"], waiting.frames[0]["view"]["vars"]) == \
            (expected["zones"], expected["vars"])
    lines = log_lines(log_of(data, table["table"]))
    assert len(lines) > len(state.history) + 1 and [m["n"] for m in lines[1:] if m["type"] == "move"] \
        == list(range(1, len([m for m in lines if m["type"] == "move"]) + 1))
    assert main(["replay", str(log_of(data, table["table"]))]) == 0


def test_a_races_answers_are_listed_in_the_order_they_counted(tmp_path):
    """The engine asks P1, P2, P3 in turn; P3 answered fastest, then P2, then P1: every seat's log
    lists them fastest first, the order they counted in."""
    from gamedsl.tools.serve.views import SeatLog

    game = gamedsl.load_source(SLAP, "slap.game")
    state = game.new_state(players=3, seed=1)
    state.apply_action(state.legal_actions()[0])  # P1 bangs: the race asks everyone
    for p, seconds in ((0, 0.9), (1, 0.5), (2, 0.2)):
        assert state.current_player() == p
        state.apply_action(state.legal_actions()[0], seconds)
    for viewer in range(3):
        log = SeatLog(viewer)
        log.update(state)
        covers = [(e["who"], e["text"]) for e in log.entries if e.get("text", "").startswith("cover")]
        assert covers == [("P3", "cover (0.20 s)"), ("P2", "cover (0.50 s)"), ("P1", "cover (0.90 s)")]


@pytest.mark.parametrize("name", ["slapjack", "sushi_go", "oh_hell", "holdem"])
def test_the_new_families_play_whole_games_at_the_web_table_and_replay(name, tmp_path):
    """Races, simultaneous choices, numbered bids and bets: a person (over a WebSocket, random
    moves) and a bot play a whole game at the table, and its log replays at the terminal."""
    game = gamedsl.load_game(GAMES / f"{name}.game")
    players = max(game.min_players, 3 if name != "holdem" else 2)
    seats = ["human"] + ["random"] * (players - 1)
    options = {"hands": "4"} if name == "holdem" else {}
    with Served(GAMES / f"{name}.game", tmp_path / "data", "--bot-delay", "0", "--window-seconds", "30") as server:
        table = create_table(server.url, players, seats, options, seed=2)
        person = Player(server.url, table["seats"][0]["link"], random_policy(1))
        asyncio.run(play_all([person], timeout=150))
        assert person.errors == [] and person.frames[-1]["over"]
    log = log_of(tmp_path / "data", table["table"])
    assert log_lines(log)[-1]["type"] == "end"
    assert main(["replay", str(log)]) == 0
