"""A check that may be given up half-way: the language server checks a document on a thread of its
own, and when a newer version arrives meanwhile, the older check stops at its next checkpoint
instead of running to the end (lsp/server.py). Outside such a check a checkpoint does nothing."""
from __future__ import annotations

import contextlib
import threading

_local = threading.local()


class Cancelled(BaseException):
    """The check was given up (not an Exception: no `except Exception` of the checker catches it)."""


def checkpoint() -> None:
    """Stop the check here if it is no longer wanted."""
    stale = getattr(_local, "stale", None)
    if stale is not None and stale():
        raise Cancelled


@contextlib.contextmanager
def cancellable(stale):
    """Within: every checkpoint asks `stale()`, and raises Cancelled when it is true."""
    _local.stale = stale
    try:
        yield
    finally:
        _local.stale = None
