"""A cache of compiled games on disk, so that loading a game already seen costs a few milliseconds.

An entry is keyed by everything its compilation depends on: the game file's name and text (and a
variant's, those of the files it extends), the build (normal or coverage), the gamedsl version and a fingerprint of gamedsl's own source and
grammar. It holds the Program before it is linked (pickled) and the code of its generated
module (marshalled), behind a digest of both: an entry that is stale, truncated or corrupt is ignored and written anew,
never trusted. Only games that compiled without an error are stored.

Beside the entries, per game file name, the cache keeps what an edit to one rule leaves as it was:
the parse trees of the file's declarations (trees/, syntax.parse) and the compiled code of its
module's functions (pieces/, codegen.compile_module), each of the file's last compile only; and
the grammar's parser, pickled (parser/, syntax.parser), which loads faster than Lark's own cache.

The cache lives in $GAMEDSL_CACHE if set (set it empty to turn the cache off), else in
$XDG_CACHE_HOME/gamedsl or ~/.cache/gamedsl. It keeps the KEEP games used last (a game loaded
from it counts as used); a cache that cannot be written is skipped silently.
"""
from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import pickle
import sys
import tempfile
from pathlib import Path

from ..version import __version__
from .grammar_file import grammar_text

KEEP = 64  # entries kept: the games used last
_PACKAGE = Path(__file__).resolve().parent.parent  # gamedsl/
_fingerprint: str | None = None


def directory() -> Path | None:
    """Where compiled games are kept, or None when the cache is off."""
    env = os.environ.get("GAMEDSL_CACHE")
    if env is not None:
        return Path(env) if env.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gamedsl"


def fingerprint() -> str:
    """A digest of gamedsl's whole source and grammar: generated code calls the engine, so any change
    to either makes every entry stale."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256(f"{__version__} {sys.version_info[:2]}".encode())
        for path in sorted(_PACKAGE.glob("**/*.py")):
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(path.read_bytes())
        h.update(grammar_text().encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def key(text: str, filename: str, coverage: bool = False, bases: dict | None = None) -> str:
    """The name of a game's entry: its text and file name, normal or coverage build, under this gamedsl;
    a variant's, the names and texts of the files it extends too (`bases`: name -> text or None)."""
    h = hashlib.sha256(fingerprint().encode())
    h.update(b"coverage\0" if coverage else b"normal\0")
    h.update(filename.encode() + b"\0" + text.encode())
    for name, base in (bases or {}).items():
        h.update(b"\0extends\0" + name.encode() + b"\0" + (b"\1" + base.encode() if base is not None else b"\2"))
    return h.hexdigest()


def load(name: str):
    """The (unlinked Program, module code) stored under `name`, or None (missing, stale or corrupt)."""
    where = directory()
    if where is None:
        return None
    try:
        data = (where / name).read_bytes()
    except OSError:
        return None
    head, digest, payload = data[:64], data[64:128], data[128:]
    if head != name.encode() or digest != hashlib.sha256(payload).hexdigest().encode():
        return None
    try:
        prog, code = pickle.loads(payload)
        found = prog, marshal.loads(code)
    except Exception:  # noqa: BLE001 - an entry that does not read back is not used
        return None
    with contextlib.suppress(OSError):
        os.utime(where / name)  # used now: kept longest
    return found


def store(name: str, prog, code) -> None:
    """Keep a compiled game (an unlinked Program and its module's code) under `name`."""
    where = directory()
    if where is None:
        return
    try:
        payload = pickle.dumps((prog, marshal.dumps(code)), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return  # a game the cache cannot hold is compiled each time
    tmp = None
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(name.encode() + hashlib.sha256(payload).hexdigest().encode() + payload)
        os.replace(tmp, where / name)  # whole or not at all: a reader never sees half an entry
        _prune(where)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _side_file(filename: str, coverage: bool, kind: str = "pieces") -> Path | None:
    """Where the pieces (or trees) of a file's last compile (or parse) are kept: one file per game
    file name, in the folder `kind` of the cache."""
    where = directory()
    if where is None:
        return None
    h = hashlib.sha256(fingerprint().encode() + (b"coverage\0" if coverage else b"normal\0") + filename.encode())
    return where / kind / h.hexdigest()[:32]


def trees(filename: str) -> dict:
    """The parse trees of the declarations of a file's last parse (syntax.parse, in its flat form), by
    (first line, text); empty when there are none or they do not read back."""
    return _read(_side_file(filename, False, "trees"), marshal.loads)


def store_trees(filename: str, found: dict) -> None:
    """Keep the parse trees of a file's declarations, in place of those of its last parse."""
    try:
        payload = marshal.dumps(found)
    except ValueError:
        return
    _write(_side_file(filename, False, "trees"), payload)


def pieces(filename: str, coverage: bool = False) -> dict:
    """The compiled pieces of the module of a game file's last compile (codegen.compile_module), by
    their text without marks; empty when there are none or they do not read back."""
    return _read(_side_file(filename, coverage), marshal.loads)


def _read(path: Path | None, loads) -> dict:
    """A file of pieces or trees, if it is whole (its digest) and reads back as a dict; else {}."""
    try:
        payload = _payload(path)
        found = loads(payload) if payload is not None else None
        return found if isinstance(found, dict) else {}
    except Exception:  # noqa: BLE001 - what does not read back is made again
        return {}


def _payload(path: Path | None) -> bytes | None:
    """What a file written by _write holds, if it is whole (its digest); else None."""
    try:
        data = path.read_bytes() if path is not None else b""
    except OSError:
        return None
    digest, payload = data[:64], data[64:]
    return payload if digest == hashlib.sha256(payload).hexdigest().encode() else None


def parser(key: str) -> bytes | None:
    """The pickled parser kept under `key` (syntax.parser: a digest of the grammar, Lark's version and
    Python's), whole; else None."""
    where = directory()
    return _payload(where / "parser" / key[:32]) if where is not None else None


def store_parser(key: str, data: bytes) -> None:
    """Keep a pickled parser under `key`."""
    where = directory()
    if where is not None:
        _write(where / "parser" / key[:32], data)


def store_pieces(filename: str, coverage: bool, found: dict) -> None:
    """Keep the compiled pieces of a game file's module, in place of those of its last compile."""
    try:
        payload = marshal.dumps(found)
    except ValueError:
        return
    _write(_side_file(filename, coverage), payload)


def _write(path: Path | None, payload: bytes) -> None:
    """Write a file of pieces, trees or a parser whole (behind its digest), and keep the KEEP used last."""
    if path is None:
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(payload).hexdigest().encode() + payload)
        os.replace(tmp, path)
        _prune(path.parent, pieces=True)
    except (OSError, ValueError):
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _prune(where: Path, pieces: bool = False) -> None:
    """Remove all but the KEEP entries (or, in pieces/, files of pieces) used last."""
    entries = [e for e in os.scandir(where) if pieces or len(e.name) == 64]
    if len(entries) > KEEP:
        entries.sort(key=lambda e: e.stat().st_mtime, reverse=True)
        for e in entries[KEEP:]:
            with contextlib.suppress(OSError):
                os.unlink(e.path)


# What each declaration of a file's last build made (its nodes are frozen, so they are shared), by the
# key syntax.parse gives a declaration it read alone (its first line and text): after an edit to one
# rule, only it is built again. One file's at a time for each name (a language server's document).
_LAST: dict[str, dict] = {}


def built_declarations(builder, tree, filename: str) -> tuple:
    """The model of each declaration of a parsed file (build.Builder), those built last time kept."""
    last, kept, decls = _LAST.get(filename, {}), {}, []
    for child in tree.children:
        key = getattr(getattr(child, "meta", None), "piece", None)
        if key in last:
            made, errors = last[key]
        else:
            builder.errors = []
            made, errors = (builder.transform(child) if hasattr(child, "data") else child), builder.errors
        if key is not None:
            kept[key] = (made, errors)
        builder.errors = []
        decls += [made] if made is not None else []
        builder.all_errors += errors
    if len(_LAST) > 8:
        _LAST.clear()
    _LAST[filename] = kept
    return tuple(decls)
