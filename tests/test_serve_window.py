"""A reaction window is no tell: a seat that is not asked sees exactly what it would see if no
window had opened (the same frames, the same header), and the player whose decision comes after
the window may make it at once, which ends the moment to react (nobody waits for the asked)."""
import asyncio
import json
import time

import websockets

from serve_helpers import Player, Served, create_table, log_lines, log_of, play_all, ws_url

# P1 may shout at any moment of P2's turns when `react` is on: before each of P2's decisions a reaction window
# asks P1 alone. With `react` off there is no window at all: what P2 is shown must not differ.
TELL = '''game "Tell"
players 2
option react = true "P1 may shout at any moment"
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone pile: public, stack
var current: player
action play (c in me.hand) { move c to pile }
action shout "shout" anytime if react and me == seat(1) and current != me { say "shout!" }
setup { shuffle deck  deal 3 from deck to hand  current = seat(1) }
round { turn current { choose play }  current = next(current) }
end game when count(pile) == 6
outcome { for each p in players { win p } }
'''


def _play(tmp_path, react: bool, p1_answers_windows: bool):
    """Both seats over WebSockets; P2 plays its first card at once; P1 plays its first card and lets
    windows pass (or never answers them). Returns P2's frames and P1's, and the log."""
    (tmp_path / "tell.game").write_text(TELL, encoding="utf-8")
    with Served(tmp_path / "tell.game", tmp_path / f"data-{react}-{p1_answers_windows}", "--window-seconds", "30") \
            as server:
        table = create_table(server.url, 2, ["human", "human"], {"react": str(react).lower()}, seed=7)

        def p1_policy(frame):
            if frame["window"]:
                return next(m["move"] for m in frame["legal"] if m["text"] == "no reaction") \
                    if p1_answers_windows else None
            return frame["legal"][0]["move"]
        p1 = Player(server.url, table["seats"][0]["link"], p1_policy)
        p2 = Player(server.url, table["seats"][1]["link"], lambda f: f["legal"][0]["move"])
        asyncio.run(play_all([p1, p2], timeout=20, together=True))  # P2 sees the game from its start
        return p1, p2, log_lines(log_of(server.data, table["table"]))


def _shown(frames: list[dict]) -> list[tuple]:
    return [(json.dumps(f["view"], sort_keys=True), [m["text"] for m in f["legal"]], f["turn"], f["window"],
             f["answered"]) for f in frames]


def test_a_seat_not_asked_sees_nothing_of_a_window(tmp_path):
    _, without, plain_log = _play(tmp_path, react=False, p1_answers_windows=True)
    p1, with_windows, log = _play(tmp_path, react=True, p1_answers_windows=True)
    assert any(f["window"] for f in p1.frames)  # P1 was asked: there were windows
    assert _shown(with_windows.frames) == _shown(without.frames)  # P2: the very same frames
    assert all(f["view"]["to_move"] is not None for f in with_windows.frames if not f["over"])
    played = [m["text"] for m in log if m["type"] == "move" and m["text"] != "no reaction"]
    assert played == [m["text"] for m in plain_log if m["type"] == "move"]


def test_the_next_player_need_not_wait_for_the_asked_and_their_move_ends_the_moment(tmp_path):
    """P1 never answers a window (30 s to do so): P2 plays each of its turns at once all the same; P1's
    silence is a pass, timed when P2 moved."""
    started = time.monotonic()
    p1, p2, log = _play(tmp_path, react=True, p1_answers_windows=False)
    assert time.monotonic() - started < 15 and p2.frames[-1]["over"]
    passes = [m for m in log if m["type"] == "move" and m["text"] == "no reaction"]
    assert passes and all(m["player"] == 0 and m["time"] < 5 for m in passes)
    assert p2.errors == [] and p1.errors == []


def test_a_move_made_early_is_refused_when_a_reaction_changed_the_game_first(tmp_path):
    """P2 was shown its next decision while P1 was asked in the window; P1 shouts (and takes the top
    card back) before P2's move comes: P2's move is refused, and P2 is asked the new decision."""
    (tmp_path / "tell.game").write_text(TELL.replace('{ say "shout!" }', '{ say "shout!"  move top(pile) to '
                                                                        'me.hand }'), encoding="utf-8")
    with Served(tmp_path / "tell.game", tmp_path / "data", "--window-seconds", "5") as server:
        table = create_table(server.url, 2, ["human", "human"], {"react": "true"}, seed=7)

        async def run():
            async with websockets.connect(ws_url(server.url, table["seats"][0]["link"]), origin=server.url) as a, \
                    websockets.connect(ws_url(server.url, table["seats"][1]["link"]), origin=server.url) as b:
                f = json.loads(await a.recv())  # P1's first turn: play
                await a.send(json.dumps({"type": "move", "move": f["legal"][0]["move"], "turn": f["turn"]}))
                while not (f := json.loads(await a.recv()))["window"]:
                    pass
                while not (g := json.loads(await b.recv()))["legal"]:  # P2 is shown its decision already
                    pass
                shout = next(m["move"] for m in f["legal"] if m["text"] == "shout")
                await a.send(json.dumps({"type": "move", "move": shout, "turn": f["turn"]}))
                while (json.loads(await a.recv()))["window"]:  # the shout is played
                    pass
                await b.send(json.dumps({"type": "move", "move": g["legal"][0]["move"], "turn": g["turn"]}))
                frames = []
                while not any(x["type"] == "error" for x in frames):
                    frames.append(json.loads(await asyncio.wait_for(b.recv(), 10)))
                return g, frames
        before, frames = asyncio.run(run())
        assert frames[-1]["message"] == "the game has moved on since that move was chosen: it was not played"
        asked = [x for x in frames if x["type"] == "state" and x["legal"]]
        assert asked and asked[-1]["turn"] != before["turn"]  # P2 is shown the new decision
        moves = [m for m in log_lines(log_of(server.data, table["table"])) if m["type"] == "move"]
        assert [m["text"] for m in moves[:2]] == ["play 2", "shout"]
        assert not [m for m in moves if m["player"] == 1]  # P2's early move was not played


def test_a_simultaneous_choice_asks_everyone_at_once_without_a_clock_and_shows_nothing_early(tmp_path):
    """Sushi Go at the web table: both people are asked each pick at once, with no countdown (the
    window has no deadline: a slow pick is not replaced after --window-seconds), and the frames
    one seat is sent before it has picked never show the other's pick."""
    from pathlib import Path
    game = Path(__file__).resolve().parent.parent / "games" / "sushi_go.game"
    with Served(game, tmp_path / "data", "--window-seconds", "1") as server:
        table = create_table(server.url, 2, ["human", "human"], seed=3)
        slow = {"first": True}

        def p1_policy(frame):  # not the default choice (the first move), which a clock would give
            return frame["legal"][-1]["move"]

        def p1_wait(frame):  # P1 thinks 2.5 s over its first pick: longer than --window-seconds
            wait, slow["first"] = (2.5 if slow["first"] else 0.0), False
            return wait

        players = [Player(server.url, table["seats"][0]["link"], p1_policy, wait=p1_wait),
                   Player(server.url, table["seats"][1]["link"], lambda f: f["legal"][0]["move"])]
        asyncio.run(play_all(players, timeout=120))
    data = log_lines(log_of(tmp_path / "data", table["table"]))
    assert data[-1]["type"] == "end"
    moves = [m for m in data if m["type"] == "move"]
    assert not any("time" in m for m in moves)  # a secret choice is not timed
    first = sorted(moves[:2], key=lambda m: m["player"])
    assert {m["player"] for m in first} == {0, 1}
    offered = next(f for f in players[0].frames if f["legal"])["legal"]
    assert len(offered) > 1 and first[0]["text"] == offered[-1]["text"]  # P1's own pick, however late
    for k in (0, 1):
        asked = [f for f in players[k].frames if f["legal"]]
        assert asked[0]["window"]["kind"] == "simultaneous" and asked[0]["turn"] is not None
        before_pick = [f for f in players[k].frames[:players[k].frames.index(asked[0]) + 1]]
        for f in before_pick:  # nobody's tray shows a card before the first picks are revealed
            assert all(v == [] for v in f["view"]["zones"]["tray"].values()), f["view"]["zones"]["tray"]


# Either player may shout at any moment (each shout the first time only), and point at the card
# last played (new to each player when it comes): the player of the next decision is asked in the
# window too.
SELF = '''game "Self"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone pile: public, stack
var current: player
var shouted per player = false
action play (c in me.hand) { move c to pile }
action shout "shout" anytime if not me.shouted { me.shouted = true  say "shout!" }
action point "point at" (c in pile) anytime if c == top(pile) { say "{me} points at {c}" }
setup { shuffle deck  deal 3 from deck to hand  current = seat(1) }
round { turn current { choose play }  current = next(current) }
end game when count(pile) == 6
outcome { for each p in players { win p } }
'''


def test_a_player_who_reacts_is_not_shown_the_next_decision_until_the_moment_is_over(tmp_path):
    """P2, asked in the window before its own first decision, shouts: its own reaction changes what
    comes next (the moment goes on for P1's answer, and reactions to the shout), so it is not shown
    that decision early; a move made on it would meet a later question under the same number of
    moves P2 knows of. P2 plays every frame's first move at once; P1 answers windows late."""
    (tmp_path / "self.game").write_text(SELF, encoding="utf-8")
    with Served(tmp_path / "self.game", tmp_path / "data", "--window-seconds", "30") as server:
        table = create_table(server.url, 2, ["human", "human"], seed=3)
        windows = {"seen": 0}

        def p2_policy(frame):  # let the first window pass; shout in the second, before its own turn
            if frame["window"]:
                windows["seen"] += 1
                wanted = "shout" if windows["seen"] == 2 else "no reaction"
                return next((m["move"] for m in frame["legal"] if m["text"] == wanted), frame["legal"][-1]["move"])
            return frame["legal"][0]["move"]

        p1 = Player(server.url, table["seats"][0]["link"], lambda f: f["legal"][-1]["move"],
                    wait=lambda f: 0.5 if f["window"] else 0.0)
        p2 = Player(server.url, table["seats"][1]["link"], p2_policy)
        asyncio.run(play_all([p1, p2], timeout=60))
        log = log_lines(log_of(server.data, table["table"]))
    shout = next(k for k, m in enumerate(log) if m.get("text") == "shout")
    assert log[-1]["type"] == "end" and log[shout]["player"] == 1
    moved_on = "the game has moved on since that move was chosen: it was not played"
    assert p2.errors == [] and set(p1.errors) <= {moved_on}, (p1.errors, p2.errors)  # P1 may be too late
    first_move = next(k for k, m in enumerate(log) if m.get("player") == 1 and m.get("text", "").startswith("play"))
    assert first_move > shout  # P2's own turn came after its shout
    # Shown its decision early, P2 would have played it, and been told that the game changed
    # before it could be played (its own shout changed it): it is never told so.
    assert not [f["notice"] for f in p2.frames if f.get("notice")]
    shouting = [k for k, f in enumerate(p2.frames) if f["window"]][1]  # the window P2 shouted in
    after = p2.frames[shouting + 1]
    assert not after["legal"]  # then nothing to answer until the moment is over
    # and the table says so: its answer is in, the others are waited for (it read "P2 to move", no buttons)
    assert after["answered"] and after["view"]["to_move"] == "P2"


def test_a_person_is_asked_to_react_before_their_own_moves_and_when_something_is_new(tmp_path):
    """As at the terminal (test_realtime): P1 holds a card it may cash at any time and lets every
    window pass; it is asked before its own two turns, and before P3's first turn, when P2's drop
    lets it wave; never again with nothing new (the table does not wait for it there)."""
    from test_realtime import HOLD
    (tmp_path / "hold.game").write_text(HOLD, encoding="utf-8")
    with Served(tmp_path / "hold.game", tmp_path / "data", "--window-seconds", "30") as server:
        table = create_table(server.url, 3, ["human", "human", "human"], seed=2)

        def mover(text):
            return lambda f: next(m["move"] for m in f["legal"] if m["text"] == ("no reaction" if f["window"] else text))
        players = [Player(server.url, table["seats"][k]["link"], mover(text))
                   for k, text in enumerate(["draw", "drop a card", "draw"])]
        asyncio.run(play_all(players, timeout=60))
        log = log_lines(log_of(server.data, table["table"]))
    questions = {f["turn"]: sorted(m["text"] for m in f["legal"]) for f in players[0].frames if f["legal"]}
    asked = list(questions.values())  # (a question is sent again with every change at the table)
    cash, wave, turn = ["cash the star star", "no reaction"], ["cash the star star", "no reaction", "wave"], \
        ["draw", "drop a card"]
    assert asked == [cash, turn, wave, wave, turn]
    assert log[-1]["type"] == "end" and [m["text"] for m in log[1:-1] if m["player"] != 0 or
                                         m["text"] != "no reaction"].count("drop a card") == 2


def test_a_bot_next_to_move_leaves_the_people_asked_their_reaction_time_and_the_bar_shows_it(tmp_path):
    """P2 is a bot: its decision after a window that asks P1 comes --reaction-seconds after the
    window opened, not at once (--bot-delay is 0 here), and P1's question shows that time as its
    whole bar (it stays while the bar runs). P1 never answers: its silence is a pass, timed when P2
    moved."""
    (tmp_path / "tell.game").write_text(TELL, encoding="utf-8")
    with Served(tmp_path / "tell.game", tmp_path / "data", "--reaction-seconds", "1.5", "--window-seconds", "30") \
            as server:
        table = create_table(server.url, 2, ["human", "random"], {"react": "true"}, seed=7)
        p1 = Player(server.url, table["seats"][0]["link"], lambda f: None if f["window"] else f["legal"][0]["move"])
        asyncio.run(play_all([p1], timeout=30))
        log = log_lines(log_of(server.data, table["table"]))
    questions = [f["window"] for f in p1.frames if f["window"]]
    assert questions and all(w["total"] == 1.5 and 0 < w["left"] <= 1.5 for w in questions)
    passes = [m for m in log if m["type"] == "move" and m["text"] == "no reaction"]
    # asked once (later windows offer nothing new: "no reaction" at once, not asked), and that
    # question's pass came when P2 moved, 1.5 s after the window opened
    assert len(questions) == 1 and len(passes) >= 2 and all(m["player"] == 0 for m in passes)
    assert 1.45 <= passes[0]["time"] < 3 and all(m["time"] == 0 for m in passes[1:])
