"""The web application (Starlette): the lobby, the table page and the WebSocket each client plays on.

    GET  /                  the lobby page: create a table, get its links
    GET  /api/game          the game: players, options, seat kinds
    POST /api/tables        create a table: {"players", "seats", "options", "seed"} -> its links
    GET  /api/tables        the tables (no links)
    GET  /api/stats         with --stats only: moves played, and the time from a move received to
                            every client told (they count every move, a pass in a reaction window
                            too: not for a playtest with secrets)
    GET  /t/TOKEN           the table page of a seat (or of a spectator)
    WS   /ws/TOKEN          the play: the server sends {"type": "state", ...} after every change;
                            the client sends {"type": "move", "move": N, "turn": T}

Everything passes through security.Guard first (Host and Origin checks, the CSRF token, the
security headers); the WebSocket connections are counted by security.Limits.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import re
import secrets
import statistics
import time
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...errors import GamedslError
from ...version import __version__
from ..console import load
from ..logfile import LogError, file_sha256, read_log, replay_moves, rewrite
from ..simulate import effective_options, seat_problem
from .bots import BotPool, check_spec
from .host import HostRefused, seat_request
from .info import game_info
from .security import (TRY_AGAIN_LATER, Guard, Limits, Policy, Refused, close_reason, is_loopback, json_of,
                       read_body)
from .store import SPECTATOR, GroupLog, Store, log_path, new_table_id
from .table import MAX_FRAME, Conn, Settings, Table

# The lobby's choices for a seat: a person, or a bot at a pace people can follow (ismcts with a cut
# takes about 0.1 s a move in most seed games, 1 s in the dearest; docs/bots.md). The API takes any
# spec make_bot accepts.
SEAT_KINDS = ("human", "random", "greedy", "ismcts:300:cut=30")
STATIC = resources.files("gamedsl.tools.serve") / "static"
SEED_BITS = 128  # a table's seed: a search through every seed must be out of reach


def parse_seed(seed) -> int:
    """The form's seed: a whole number from 0 to 2**128 - 1, as a JSON number or as a text of digits (a
    browser's numbers lose digits past 2**53); none: 128 random bits from `secrets`."""
    if seed is None or seed == "":
        return secrets.randbits(SEED_BITS)
    if isinstance(seed, str) and re.fullmatch(r"\s*[0-9]{1,40}\s*", seed):
        seed = int(seed)
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2 ** SEED_BITS:
        return seed
    raise GamedslError(f"the seed is a whole number from 0 to 2**{SEED_BITS} - 1 (leave it empty for a random one)")


class Server:
    """The served game, the lobby's store and every table, live or stopped."""

    def __init__(self, game_file, data, settings: Settings | None = None):
        self.game_file = Path(game_file).resolve()
        self.game = load(game_file)
        self.sha = file_sha256(self.game_file)
        self.data = Path(data)
        self.store = Store(self.data)
        self.settings = settings or Settings()
        self.tables: dict[str, Table] = {}
        self.unavailable: dict[str, str] = {}  # table id -> why it cannot be played
        self.metrics: collections.deque = collections.deque(maxlen=200_000)  # the latest move-to-clients times
        self.resuming: dict[str, asyncio.Event] = {}  # table id -> set once it is back after a restart
        self.bots = BotPool(self.settings.bot_workers, self.settings.max_bot_seconds)
        self.created: dict[str, collections.deque] = {}  # per client address: when it created its last tables

    # ---- tables
    def _table(self, table_id, state, seats, writer, seed, options) -> Table:
        return Table(table_id, self.game, state, seats, writer, self.store, self.settings, self.metrics, self.bots,
                     seed, options)

    def _may_create(self, client: str | None):
        """Raises GamedslError when the server plays its most tables, or the client address created its
        most in the last minute (this machine's, as with connections, counts in all only: it may be a
        reverse proxy carrying everyone's requests)."""
        if len(self.tables) >= self.settings.max_tables:
            raise GamedslError(f"the server plays {len(self.tables)} tables, its most: try again when one is over")
        if client is None or is_loopback(client):
            return
        now, recent = time.monotonic(), self.created.setdefault(client, collections.deque())
        while recent and now - recent[0] > 60:
            recent.popleft()
        if len(recent) >= self.settings.tables_per_minute:
            raise GamedslError(f"you created {len(recent)} tables in the last minute, the most: wait a moment")
        recent.append(now)

    async def create(self, players, seats, options, seed, client: str | None = None) -> dict:
        """A new table from the lobby's form (from the address `client`); raises GamedslError with a
        message for a bad one, or when too many tables are played or were just created."""
        game = self.game
        if not isinstance(players, int) or isinstance(players, bool) or not game.min_players <= players <= game.max_players:
            raise GamedslError(f"{game.name} is for {game.players_text()}, not {players}")
        if not isinstance(seats, list) or len(seats) != players:
            raise GamedslError(f"give one seat kind per player ({players})")
        for kind in seats:
            problem = seat_problem(kind) if isinstance(kind, str) else "a seat is a text"
            if problem:
                raise GamedslError(f"{problem} (seats: {', '.join(SEAT_KINDS)}, or any bot spec)")
            if kind != "human":
                problem = check_spec(kind, self.settings.max_bot_seconds)
                if problem:
                    raise GamedslError(problem)
        if not isinstance(options, dict) or not all(isinstance(v, (str, int)) for v in options.values()):
            raise GamedslError("options are given as {NAME: VALUE}")
        options = effective_options(game, {str(k): v for k, v in options.items()})
        seed = parse_seed(seed)  # checked before anything is written: a refused form leaves no log
        self._may_create(client)
        state = game.new_state(players=players, seed=seed, options=options)
        table_id = new_table_id()
        path = log_path(self.data, table_id)
        writer = GroupLog(path, new=True)  # the log first: a table in the store always has one
        try:
            writer.start(str(self.game_file), self.sha, players, seed, options, seats, __version__)
            writer.commit()
            tokens, spectator, host = self.store.create_table(table_id, self.sha, players, seed, options, seats,
                                                              str(path))
        except BaseException:  # no log without its table in the store
            writer.close()
            path.unlink(missing_ok=True)
            raise
        table = self._table(table_id, state, seats, writer, seed, options)
        self.tables[table_id] = table
        await table.start()
        # no seed in the answer: the host who gave one knows it, and a drawn one stays in the log (0600)
        return {"table": table_id,
                "seats": [{"seat": game.player_name(k), "kind": kind, "link": f"/t/{tokens[k]}" if kind == "human"
                           else None} for k, kind in enumerate(seats)],
                "spectator": f"/t/{spectator}", "host": host}

    # ---- what the host of a table may do (with the host token of its create answer)
    def hosted(self, table_id: str, token) -> Table:
        """The live table whose host token this is; a GamedslError (with its HTTP status) otherwise."""
        if not self.store.is_host(table_id, token):
            raise HostRefused(403, "only the host of this table may do that (the lobby that created it keeps "
                                   "its host token)")
        table = self.tables.get(table_id)
        if table is None:
            raise HostRefused(409, "this table is not being played (it is over, closed, or still resuming)")
        return table

    async def close_table(self, table_id: str, token, why: str = "the host closed the table") -> None:
        """Stop a table for good: every client is told, nothing more is played; its log stays."""
        table = self.hosted(table_id, token)
        await self._close(table, why, "closed")

    async def _close(self, table: Table, why: str, status: str):
        await table.close(why)
        self.tables.pop(table.id, None)
        self.store.set_status(table.id, status)

    async def delete_table(self, table_id: str, token) -> None:
        """Close a table and remove it from the lobby, its links and its log with it."""
        if not self.store.is_host(table_id, token):
            raise HostRefused(403, "only the host of this table may delete it")
        table = self.tables.get(table_id)
        if table is not None:
            await self._close(table, "the host deleted the table", "deleted")
        row = next((r for r in self.store.tables() if r["id"] == table_id), None)
        self.store.delete_table(table_id)
        self.unavailable.pop(table_id, None)
        if row is not None:
            Path(row["log"]).unlink(missing_ok=True)

    async def rematch(self, table: Table, seat: int) -> str | None:
        """A new table with the same seats and options (a new seed), asked by a person seated at a
        finished one: each seat of the old table is sent its own link to the new one (kept for those
        who come back later), the names go along; the one who asked gets the new table's host token.
        None, or why it was refused."""
        if seat == SPECTATOR:
            return "only a player can ask for a rematch"
        if not table.state.is_terminal():
            return "a rematch comes after the game is over"
        if not table.rematch:
            made = await self.create(table.state.np, list(table.seats), dict(table.options), None)
            new = self.tables[made["table"]]
            new.names = list(table.names)
            self.store.set_names(new.id, new.names)
            for k, s in enumerate(made["seats"]):
                table.rematch[k] = {"link": s["link"], "table": made["table"]}
            table.rematch[SPECTATOR] = {"link": made["spectator"], "table": made["table"]}
            table.rematch[seat]["host"] = made["host"]  # only the asker's own link and the host token:
            table.rematch[seat]["spectator"] = made["spectator"]  # a seat's link is its person's alone
            async with table.lock:
                await table.broadcast()
        return None

    async def expire_idle(self) -> None:
        """Close every table where nobody moved and nobody was connected for --idle-minutes."""
        limit = self.settings.idle_minutes * 60
        for table in list(self.tables.values()):
            if limit and not table.conns and time.monotonic() - table.active > limit:
                await self._close(table, f"nobody played for {self.settings.idle_minutes:g} minutes", "expired")

    def mark_resuming(self):
        """Every table of the store is "resuming" until resume_all brings it back."""
        for row in self.store.tables():
            if row["status"] not in ("closed", "deleted", "expired"):
                self.resuming.setdefault(row["id"], asyncio.Event())

    async def keep_tidy(self):
        """Expire idle tables and forget old ones, once a minute, for as long as the server runs."""
        while True:
            await asyncio.sleep(60)
            await self.expire_idle()
            self.forget_old()

    def forget_old(self):
        """Delete the log and links of every table no longer played whose last move is --keep-days old."""
        days = self.settings.keep_days
        if not days:
            return
        for row in self.store.tables():
            tid, path = row["id"], Path(row["log"])
            if tid in self.tables and not self.tables[tid].state.is_terminal() or tid in self.resuming:
                continue  # (being played)
            try:
                age = time.time() - path.stat().st_mtime
            except OSError:
                age = time.time() - row["created"]
            if age > days * 86400:
                self.tables.pop(tid, None)
                self.unavailable.pop(tid, None)
                self.store.delete_table(tid)
                path.unlink(missing_ok=True)

    async def resume_all(self):
        """Every table of the store, where its log left it: one after the other, each replayed in a
        thread while the server already answers (a table is "resuming" until it is back)."""
        rows = [row for row in self.store.tables() if row["id"] in self.resuming]
        for row in rows:
            try:
                table = await asyncio.to_thread(self._resume, row)
            except (GamedslError, OSError) as exc:
                self.unavailable[row["id"]] = str(exc)
            else:
                self.tables[row["id"]] = table
                await table.start()
            self.resuming.pop(row["id"]).set()

    def _resume(self, row: dict) -> Table:
        game = self.game
        data = read_log(row["log"])
        if data.start["game_sha256"] != self.sha:
            raise LogError(row["log"], data.start_line, f"this table was played with another version of the game "
                                                        f"file than {self.game_file}: it cannot be resumed here")
        seats, seed = row["seats"], data.start["seed"]  # the lobby's seats: a host may have given one to a bot
        state = replay_moves(game, data)  # bots need no replay: each move's bot is made afresh (bots.py)
        if data.needs_rewrite:
            rewrite(data)
            os.chmod(row["log"], 0o600)  # the rewritten file is a new one: private again (its start line has the seed)
        writer = None
        if data.end is None:
            writer = GroupLog(row["log"], new=False)
            if state.is_terminal():  # stopped between the last move and the end line
                writer.end(state)
                writer.close()
                writer = None
                self.store.set_status(row["id"], "over")
        table = self._table(row["id"], state, seats, writer, seed, data.start["options"])
        table.first_seats = list(data.start["seats"])
        table.resumed = True  # a reaction window open now waits for its people to be back (table.py)
        table.joined = set(range(len(seats)))  # who opened a seat before the restart is not known: all did
        table.names = self.store.names(row["id"]) or table.names
        return table

    async def close(self):
        for table in self.tables.values():
            await table.stop()
        self.bots.close()
        self.store.close()

    def stats(self) -> dict:
        lat = sorted(self.metrics)
        q = (lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1000) if lat else (lambda f: None)
        return {"tables": len(self.tables), "moves": sum(t.moves_applied for t in self.tables.values()),
                "received_moves": len(lat), "p50_ms": q(0.50), "p99_ms": q(0.99),
                "held_answers": sum(len(t.buffer) for t in self.tables.values()),
                "mean_ms": statistics.fmean(lat) * 1000 if lat else None}

    def game_info(self) -> dict:
        return game_info(self.game, SEAT_KINDS)


CLOSED = {"closed": "this table is closed: its host closed it", "expired": "this table is closed: nobody played "
          "at it for a long while"}  # what a link of a table no longer played says, by its status


def _page(name: str) -> HTMLResponse:
    return HTMLResponse(STATIC.joinpath(name).read_text(encoding="utf-8"))


class Web:
    """The request handlers of one Server: the lobby, the API, the table page and the WebSocket."""

    def __init__(self, server: Server, policy: Policy, limits: Limits):
        self.server, self.policy, self.limits = server, policy, limits

    async def lobby(self, request: Request):
        """The lobby page, with this run's CSRF token: in a <meta> tag for lobby.js to send back as a
        header, and in a cookie only pages of this site send (SameSite=Strict) and no script reads."""
        page = STATIC.joinpath("lobby.html").read_text(encoding="utf-8")
        page = page.replace('<meta name="csrf-token" content="">',
                            f'<meta name="csrf-token" content="{self.policy.csrf}">')
        response = HTMLResponse(page, headers={"cache-control": "no-store"})
        response.set_cookie(self.policy.cookie, self.policy.csrf, path="/", httponly=True, samesite="strict")
        return response

    async def game_info(self, request: Request):
        return JSONResponse(self.server.game_info())

    async def tables(self, request: Request):
        """The tables, with no link; moves as a spectator counts them (a pass in a window, or an answer
        in a window still open, is not seen: Game.moves_known)."""
        out = [{"table": tid, "moves": t.state.game.moves_known(t.state, -1), "over": t.state.is_terminal(),
                "seats": t.seats, "stopped": t.stopped} for tid, t in self.server.tables.items()]
        out += [{"table": tid, "unavailable": why} for tid, why in self.server.unavailable.items()]
        out += [{"table": tid, "resuming": True} for tid in self.server.resuming]
        return JSONResponse(out)

    async def create(self, request: Request):
        """A new table from the lobby's form (JSON); a bad form is answered with its problem. The Origin,
        the JSON type and the CSRF token have been checked by security.Guard."""
        try:
            body = await read_body(request)
        except Refused as refused:  # the rest of the body is not read: this connection ends here
            return JSONResponse({"error": refused.message}, status_code=refused.status,
                                headers={"connection": "close"})
        try:
            form = json_of(body)
        except ValueError as exc:
            deep = f" ({exc})" if "nests" in str(exc) else ""
            return JSONResponse({"error": "send the table as a JSON object" + deep}, status_code=400)
        if not isinstance(form, dict):
            return JSONResponse({"error": "send the table as a JSON object"}, status_code=400)
        try:
            made = await self.server.create(form.get("players"), form.get("seats"), form.get("options") or {},
                                            form.get("seed"), request.client[0] if request.client else None)
        except GamedslError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(made)

    async def host_action(self, request: Request):
        """POST /api/tables/ID/close, DELETE /api/tables/ID, POST /api/tables/ID/seats/K (host.py: a
        seat to a bot, back to its person, or a new link): the host token in the X-Host-Token header."""
        table_id = request.path_params["table"]
        token = request.headers.get("x-host-token")
        try:
            if request.method == "DELETE":
                await self.server.delete_table(table_id, token)
            elif request.url.path.endswith("/close"):
                await self.server.close_table(table_id, token)
            else:
                form = await read_body(request)
                body = json_of(form) if form else None
                return JSONResponse(await seat_request(self.server, table_id, token, request.path_params["seat"], body))
        except HostRefused as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        except Refused as refused:
            return JSONResponse({"error": refused.message}, status_code=refused.status, headers={"connection": "close"})
        except ValueError:
            return JSONResponse({"error": 'send one of {"bot": SPEC}, {"person": true}, {"kick": true} as a JSON '
                                          "object"}, status_code=400)
        return JSONResponse({"ok": True})

    async def stats(self, request: Request):
        if not self.server.settings.stats:
            return JSONResponse({"error": "start the server with --stats to measure it"}, status_code=404)
        return JSONResponse(self.server.stats())

    async def table_page(self, request: Request):
        if self.server.store.link(request.path_params["token"]) is None:
            return HTMLResponse(STATIC.joinpath("unknown.html").read_text(encoding="utf-8"), status_code=404)
        return _page("table.html")

    async def play(self, ws: WebSocket):
        """One client's WebSocket (its Host and Origin checked by security.Guard), if the limits let it
        in: its seat's frames out, its moves in, until it goes away."""
        found = self.server.store.link(ws.path_params["token"])
        if found is not None and found[0] in self.server.resuming:  # back in a moment: say so, then wait
            await ws.accept()
            await ws.send_text(json.dumps({"type": "resuming", "message": "the server restarted: this table is "
                                                                           "being resumed where it stopped…"}))
            await self.server.resuming[found[0]].wait()
            accepted = True
        else:
            accepted = False
        if found is None or found[0] not in self.server.tables:
            if not accepted:
                await ws.accept()
            closed = CLOSED.get(self.server.store.status(found[0])) if found is not None else None
            if closed:  # no error: the table's end, said as the page says a game's end
                await ws.send_text(json.dumps({"type": "closed", "message": closed}))
                await ws.close(code=1000)
                return
            why = "this link opens no seat of any table: check that it was copied whole" if found is None \
                else f"this table cannot be played: {self.server.unavailable.get(found[0], 'it is not loaded')}"
            await ws.send_text(json.dumps({"type": "error", "message": why, "fatal": True}))
            await ws.close(code=4404)
            return
        seat_key = None if found[1] == SPECTATOR else found
        refused = self.limits.admit(ws.client, seat_key)
        if refused:  # said in a fatal error (the page shows it and stops reconnecting) and in the close
            if not accepted:
                await ws.accept()
            await ws.send_text(json.dumps({"type": "error", "message": refused, "fatal": True}))
            await ws.close(code=TRY_AGAIN_LATER, reason=close_reason(refused))
            return
        try:
            if not accepted:
                await ws.accept()
            await self._play(ws, self.server.tables[found[0]], found[1])
        finally:
            self.limits.release(ws.client, seat_key)

    async def _play(self, ws: WebSocket, table: Table, seat: int):
        """The connection at its table: frames out, moves in, until it goes away."""
        conn = Conn(ws, seat)
        await table.join(conn)
        try:
            while True:
                message = await ws.receive()
                received = time.monotonic()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    error = "send text frames of JSON, not binary ones"
                else:
                    error = await self._handle(table, conn, text, received)
                if error:
                    await table.send(conn, {"type": "error", "message": error})
        except WebSocketDisconnect:
            pass
        except RuntimeError:  # the socket closed under us
            pass
        finally:
            await table.leave(conn)

    async def _handle(self, table: Table, conn: Conn, text: str, received: float) -> str | None:
        """One message from a client: None, or the error to send back to it alone."""
        if len(text) > MAX_FRAME:
            return f"the message is too long ({len(text)} characters; at most {MAX_FRAME})"
        try:
            message = json_of(text)
        except ValueError as exc:
            deep = f" ({exc})" if "nests" in str(exc) else ""
            return "the message is not JSON" + deep + ": send {\"type\": \"move\", \"move\": NUMBER, \"turn\": NUMBER}"
        if not isinstance(message, dict):
            return "the message should be a JSON object"
        kind = message.get("type")
        token = message.get("token")
        if token is not None and token != conn.ws.path_params["token"]:
            return "this connection plays with the link it was opened with; that token is not its own"
        if kind == "move":
            return await table.receive(conn.seat, message, received)
        if kind == "name":
            return await table.set_name(conn.seat, message.get("name"))
        if kind == "rematch":
            return await self.server.rematch(table, conn.seat)
        if kind == "refresh":
            conn.log_sent, conn.last = 0, None
            async with table.lock:
                await table.send(conn, table.frame(conn))
            return None
        return (f"unknown message type {json.dumps(kind)[:40]} (expected \"move\", \"name\", \"rematch\" or "
                f"\"refresh\")")

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        self.server.mark_resuming()  # at once: a link opened before its table is back waits for it
        self.server.forget_old()  # (tables closed for --keep-days: those still to resume are kept)
        resume = asyncio.ensure_future(self.server.resume_all())  # while the server already answers
        tidy = asyncio.ensure_future(self.server.keep_tidy())
        yield
        resume.cancel()
        tidy.cancel()
        await self.server.close()


def build_app(server: Server, policy: Policy, limits: Limits | None = None):
    """The application serving one Server, behind its guard (security.Guard)."""
    web = Web(server, policy, limits or Limits())
    routes = [
        Route("/", web.lobby),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/api/game", web.game_info),
        Route("/api/tables", web.tables, methods=["GET"]),
        Route("/api/tables", web.create, methods=["POST"]),
        Route("/api/tables/{table}", web.host_action, methods=["DELETE"]),
        Route("/api/tables/{table}/close", web.host_action, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat:int}", web.host_action, methods=["POST"]),
        Route("/api/stats", web.stats),
        Route("/t/{token}", web.table_page),
        WebSocketRoute("/ws/{token}", web.play),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    return Guard(Starlette(routes=routes, lifespan=web.lifespan), policy)
