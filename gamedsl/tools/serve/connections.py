"""HTTP connections that must send their request in time: uvicorn closes a connection idle after a
response (its keep-alive timeout), but not one that opened and sent nothing, or half a request
(a half-open connection: a slow client, or one that holds sockets on purpose). Each would hold a
socket and a file descriptor for ever; thousands would stop the server accepting anyone."""
from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol


def timed_protocol(seconds: float) -> type:
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request has not come whole within
    `seconds` of its opening, or of its last response."""

    class TimedH11Protocol(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            # a request that comes sets self.headers anew (a WebSocket's upgrade too): then nothing is closed
            self.loop.call_later(seconds, self._too_slow, self.headers)

        def _too_slow(self, headers_then) -> None:
            if self.headers is headers_then and not self.transport.is_closing():
                self.transport.close()

    return TimedH11Protocol
