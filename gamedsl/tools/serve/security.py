"""The server's defences: Host and Origin checks, the CSRF token, security headers, bounded bodies, connection limits.

Plain ASGI and the standard library only (no import of the web extra): `command.py` checks its
arguments with it before anything is served. docs/serve.md, "What the server defends against",
explains each choice.
"""
from __future__ import annotations

import collections
import hmac
import ipaddress
import json
import re
import secrets
import socket
from pathlib import Path

MAX_BODY = 16384  # the longest request body read (the lobby's form is a few hundred bytes)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_HEADER = "x-csrf-token"
POLICY_VIOLATION = 1008  # WebSocket close codes (RFC 6455, IANA registry)
TRY_AGAIN_LATER = 1013
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
_HOST_RE = re.compile(r"[a-z0-9.\-]+(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?")


class Refused(Exception):
    """A request refused: its HTTP status and a one-line message for whoever sent it."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


# ---- names and origins

def split_host(host: str) -> tuple[str, int | None] | None:
    """A Host header as (name, port or None), the name lower-case (an IPv6 address in brackets, in
    its short form); None for anything that is not a host name or address."""
    host = host.strip().lower()
    if not _HOST_RE.fullmatch(host):
        return None
    if host.startswith("["):
        end = host.index("]")
        name, port = host[1:end], host[end + 2:]
        try:
            name = f"[{ipaddress.IPv6Address(name).compressed}]"
        except ValueError:
            return None
    else:
        name, _, port = host.partition(":")
        name = name.rstrip(".")  # "localhost." is localhost
    if not name or (port and not 0 < int(port) < 65536):
        return None
    return name, int(port) if port else None


def host_name(address: str) -> str:
    """How an address is written in a Host header (an IPv6 address in brackets)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address.lower().rstrip(".")
    return f"[{ip.compressed}]" if ip.version == 6 else ip.compressed


def is_loopback(address: str | None) -> bool:
    if address is None:
        return True  # a Unix socket: this machine
    if address.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]").split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def machine_addresses() -> set[str]:
    """This machine's own addresses, found cheaply: the source address of its default routes, its
    name's addresses, and on Linux every address of every interface (/proc)."""
    found: set[str] = set()
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:  # connecting a UDP socket sends nothing: it only picks the route and its source address
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                found.add(s.getsockname()[0])
        except OSError:
            pass
    try:
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None))
    except OSError:
        pass
    try:  # IPv4: the "/32 host LOCAL" entries of the routing trie are the interfaces' addresses
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        found.update(lines[k - 1].split()[-1] for k, line in enumerate(lines) if "/32 host LOCAL" in line)
    except (OSError, IndexError):
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.IPv6Address(int(raw, 16))))
    except (OSError, ValueError, IndexError):
        pass
    return {host_name(a) for a in found if a}


def machine_names() -> set[str]:
    """This machine's own names: its host name, and NAME.local (mDNS) for a single-label one."""
    name = socket.gethostname().lower().rstrip(".")
    return {name, f"{name}.local"} if name and "." not in name else {name} - {""}


def allowed_host(text: str) -> str:
    """Check an --allow-host value (a name, or name:port); raises ValueError with the problem."""
    if split_host(text) is None:
        raise ValueError(f"expected a host name or address, optionally with :PORT, not '{text}'")
    return text.strip().lower()


def allowed_origin(text: str) -> str:
    """Check an --allow-origin value (scheme://host[:port]); raises ValueError with the problem."""
    origin = text.strip().lower().rstrip("/")
    scheme, sep, netloc = origin.partition("://")
    if not sep or scheme not in ("http", "https") or split_host(netloc) is None:
        raise ValueError(f"expected an origin like https://play.example.org or http://10.0.0.5:8000, not '{text}'")
    return origin


class Policy:
    """Who may talk to this server: the Host names it answers to (against DNS rebinding), the origins
    whose pages may change anything or play, and this run's CSRF token for the lobby's form."""

    def __init__(self, listen: str, port: int, allow_hosts=(), allow_origins=(), allow_scripts: bool = False):
        self.port = port
        self.allow_scripts = allow_scripts  # requests without an Origin header (not a browser's) are let through
        self.csrf = secrets.token_urlsafe(32)  # one per run: a lobby page from before a restart must be reloaded
        self.cookie = f"gamedsl_csrf_{port}"  # cookies do not tell ports apart: one name per server
        self.origins = {allowed_origin(o) for o in allow_origins}
        self.names: set[str] = set()  # names answered with the listening port
        self.any_port: set[str] = set()  # --allow-host NAME: behind a proxy the port is the proxy's
        self.exact: set[tuple[str, int | None]] = set()  # --allow-host NAME:PORT
        listen = listen.strip().lower().strip("[]")
        if listen:  # the address printed at the start (http://0.0.0.0:8000/ too: it works on this machine)
            self.names.add(host_name(listen))
        if listen in WILDCARDS:
            self.names |= LOOPBACK_NAMES | machine_addresses() | machine_names()
        elif is_loopback(listen):
            self.names |= LOOPBACK_NAMES
        for text in allow_hosts:
            name, given = split_host(allowed_host(text))
            if given is None:
                self.any_port.add(name)
            else:
                self.exact.add((name, given))

    def host_ok(self, host: str | None) -> bool:
        parsed = split_host(host) if host else None
        if parsed is None:
            return False
        name, port = parsed
        if name in self.any_port or (name, port) in self.exact:
            return True
        return name in self.names and (port == self.port or (port is None and self.port == 80))

    def host_problem(self, host: str | None, short: bool = False) -> str | None:
        """Why a Host is refused, or None; `short`: for a WebSocket's close (123 bytes at most)."""
        if self.host_ok(host):
            return None
        if not host:
            return "the request has no Host header: this server answers only to its own names"
        shown = host.strip()[:80]
        if short:
            return f"refused: this server does not answer to the name '{shown[:60]}' (see --allow-host)"
        parsed = split_host(host)
        hint = parsed[0] if parsed else "NAME"
        return (f"gamedsl serve does not answer to the host name '{shown}': if that is this server's name, "
                f"start it with --allow-host {hint}")

    def origin_ok(self, origin: str, host: str) -> bool:
        """The server's own origin (the page came from the Host the request names), or one allowed."""
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        scheme, sep, netloc = origin.partition("://")
        return bool(sep) and scheme in ("http", "https") and netloc == host.strip().lower()

    def check_request(self, method: str, headers: dict[str, str]):
        """A state-changing request (POST, DELETE, ...): from a page of this server, as JSON, with this
        run's CSRF token (header and cookie). Raises Refused."""
        origin = headers.get("origin")
        if origin is None:
            if not self.allow_scripts:
                raise Refused(403, "refused: the request has no Origin header (a script may send "
                                   f"Origin: http://{headers.get('host', 'HOST')}, or the server be started "
                                   "with --allow-scripts)")
        elif not self.origin_ok(origin, headers.get("host", "")):
            raise Refused(403, f"refused: a page of {origin.strip()[:80]} may not change anything here "
                               "(start the server with --allow-origin ORIGIN to allow another site's pages)")
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if method in ("POST", "PUT", "PATCH") and media != "application/json":
            raise Refused(415, "send the request as JSON (Content-Type: application/json)")
        if origin is None:
            return  # a script, let through by --allow-scripts: it has no page to carry the token
        token = headers.get(CSRF_HEADER, "")
        cookie = cookies(headers.get("cookie", "")).get(self.cookie, "")
        if not (hmac.compare_digest(token.encode(), self.csrf.encode())
                and hmac.compare_digest(cookie.encode(), self.csrf.encode())):
            raise Refused(403, "refused: the request does not carry this server's CSRF token: reload the "
                               "lobby page (the server may have restarted since it was opened)")

    def websocket_problem(self, headers: dict[str, str]) -> str | None:
        """Why a WebSocket handshake is refused (a page of another site, no Origin), or None."""
        origin = headers.get("origin")
        if origin is None:
            return None if self.allow_scripts else "refused: no Origin header (see --allow-scripts)"
        if not self.origin_ok(origin, headers.get("host", "")):
            return f"refused: pages of {origin.strip()[:60]} may not play here (see --allow-origin)"
        return None

    def csrf_cookie(self) -> str:
        return f"{self.cookie}={self.csrf}; Path=/; SameSite=Strict; HttpOnly"

    def response_headers(self, host: str | None) -> list[tuple[bytes, bytes]]:
        """The security headers of every response; the WebSocket of the page's own host is allowed
        (`host` has passed host_ok, so it holds no character that could break the header)."""
        sockets = f" ws://{host} wss://{host}" if host and self.host_ok(host) else ""
        csp = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
               f"connect-src 'self'{sockets}; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; "
               "form-action 'self'")
        return [(b"content-security-policy", csp.encode()), (b"x-frame-options", b"DENY"),
                (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


def cookies(header: str) -> dict[str, str]:
    out = {}
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            out.setdefault(name, value.strip().strip('"'))
    return out


def _headers(scope) -> dict[str, str]:
    """The request's headers, by lower-case name (the first of repeated ones)."""
    out: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


# ---- the middleware

class Guard:
    """ASGI middleware in front of the whole application: the Host allow-list on every request, the
    Origin check on every WebSocket handshake and state-changing request (with JSON only and the CSRF
    token), and the security headers on every response (errors included)."""

    def __init__(self, app, policy: Policy):
        self.app, self.policy = app, policy

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = _headers(scope)
        host = headers.get("host")
        if scope["type"] == "websocket":
            why = self.policy.host_problem(host, short=True) or self.policy.websocket_problem(headers)
            if why:
                return await refuse_websocket(receive, send, why, POLICY_VIOLATION)
            return await self.app(scope, receive, send)
        extra = self.policy.response_headers(host)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = dict(message, headers=[*message.get("headers", []),
                                                 *(h for h in extra if h[0] not in present)])
            await send(message)

        try:
            why = self.policy.host_problem(host)
            if why:
                raise Refused(421, why)
            if scope["method"] not in SAFE_METHODS:
                self.policy.check_request(scope["method"], headers)
        except Refused as refused:
            await _drain(receive)
            return await _answer(send_with_headers, refused)
        await self.app(scope, receive, send_with_headers)


async def _drain(receive, limit: int = 1 << 16):
    """Read what a refused request still sends of its body (a few KiB at most are read): a
    connection closed with bytes unread is reset, and the client may lose the refusal with it."""
    seen = 0
    while seen <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        seen += len(message.get("body", b""))
        if not message.get("more_body"):
            return


async def _answer(send, refused: Refused):
    """A refusal as a response: JSON {"error": ...} (what the lobby's page shows), one line."""
    body = (json.dumps({"error": refused.message}, ensure_ascii=False) + "\n").encode()
    await send({"type": "http.response.start", "status": refused.status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def refuse_websocket(receive, send, reason: str, code: int):
    """Open the handshake only to close it at once with a code and the reason (a refused handshake
    would tell the client nothing but "403"); no frame is sent before the close."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code, "reason": close_reason(reason)})


def close_reason(text: str) -> str:
    """A close frame's reason holds at most 123 bytes of UTF-8."""
    data = text.encode()
    return text if len(data) <= 123 else data[:120].decode(errors="ignore") + "..."


# ---- request bodies

MAX_NESTING = 32  # the deepest JSON a request or message may nest (the lobby's form nests 2 deep)


def json_of(text):
    """The JSON value of a request body or WebSocket message (bytes or text). Raises ValueError for
    text that is not JSON, or that nests deeper than MAX_NESTING (the json module would recurse
    into it until Python's recursion limit, and answer with a traceback)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise ValueError(f"the JSON nests more than {MAX_NESTING} deep")
        elif ch in "]}":
            depth -= 1
    return json.loads(text)


async def read_body(request, limit: int = MAX_BODY) -> bytes:
    """The request's body, read piece by piece and given up past `limit` bytes (a Content-Length over
    it is refused before anything is read): memory never holds more than `limit` of it. Raises Refused."""
    too_long = Refused(413, f"the request is too long (at most {limit} bytes)")
    length = request.headers.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            raise Refused(400, "the Content-Length header is not a number")
        if int(length) > limit:
            raise too_long
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_long
        chunks.append(chunk)
    return b"".join(chunks)


# ---- connections

class Limits:
    """How many WebSocket connections may be open at once: in all, from one address, on one seat's
    link. Loopback clients count only in all: they are this machine, or a reverse proxy in front of
    the server carrying everyone's connections. A spectator link, meant for everyone, counts per
    address and in all only."""

    def __init__(self, total: int = 512, per_address: int = 32, per_seat: int = 4):
        self.total, self.per_address, self.per_seat = total, per_address, per_seat
        # a quarter of the connections is kept for the seats: spectators (one link, open to anyone,
        # from this machine uncounted per address) cannot lock every player out
        self.most_watching = total - total // 4
        self.open = self.watching = 0
        self.by_address: collections.Counter = collections.Counter()
        self.by_seat: collections.Counter = collections.Counter()

    @staticmethod
    def _address(client) -> str | None:
        address = client[0] if client else None
        return None if is_loopback(address) else address

    def admit(self, client, seat_key) -> str | None:
        """Count in a new connection (client: the ASGI (address, port); seat_key: (table, seat), or None
        for a spectator), or say why it is refused."""
        address = self._address(client)
        if self.open >= self.total:
            return f"the server has {self.total} connections open, its most: try again later"
        if address is not None and self.by_address[address] >= self.per_address:
            return f"too many connections from your address ({self.per_address}): close some tabs, then reload"
        if seat_key is not None and self.by_seat[seat_key] >= self.per_seat:
            return f"this seat is open in {self.per_seat} windows already: close one, then reload this page"
        if seat_key is None and self.watching >= self.most_watching:
            return f"the server has {self.watching} spectators connected, its most: try again later"
        self.open += 1
        self.watching += seat_key is None
        if address is not None:
            self.by_address[address] += 1
        if seat_key is not None:
            self.by_seat[seat_key] += 1
        return None

    def release(self, client, seat_key):
        """A connection admitted has closed."""
        address = self._address(client)
        self.open -= 1
        self.watching -= seat_key is None
        for counter, key in ((self.by_address, address), (self.by_seat, seat_key)):
            if key is not None:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
