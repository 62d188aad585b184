"""How long `gamedsl lsp` takes to publish diagnostics after a change to games/law.game.

A real client (pytest-lsp's) starts the server over stdio, opens law.game and plays a scripted
editing session: at lines spread over the file it types a typo into a name (an error to
report), fixes it (an undo: answered from the server's memory), edits a comment (not checked
again) and adds a statement (a new program, checked in full). Each figure is the time from
sending the change to receiving its diagnostics, as an editor would wait for it. Last, the
document (as the session left it) is formatted a few times (textDocument/formatting: `gamedsl fmt`
in the server), each timed from the request to its answer. Then a new rule is typed at the end,
one key at a time at 8 keys a second (five rules, one after the other), and the time from the
last key to the diagnostics of the text it made is reported (their median; with how many of the
half-typed texts were published: a server that checks each falls behind the typing).

    python bench/lsp_latency.py [--edits N]       # needs pip install '.[lsp]' pytest-lsp
"""
from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as t
from pytest_lsp.client import make_test_lsp_client

LAW = Path(__file__).resolve().parent.parent / "games" / "law.game"


def session(text: str, edits: int) -> list[tuple[str, str]]:
    """(kind, text) of each change, in order."""
    lines = text.split("\n")
    typo_lines = [i for i, x in enumerate(lines) if re.search(r"\bme\.\w", x) and not x.lstrip().startswith("#")]
    comment_lines = [i for i, x in enumerate(lines) if x.startswith("#")]
    out = []
    for k in range(edits):
        i = typo_lines[k * len(typo_lines) // edits]
        typo = list(lines)
        typo[i] = re.sub(r"\bme\.(\w)", r"me.\1x", typo[i], count=1)
        out.append(("typo", "\n".join(typo)))
        out.append(("fix (undo)", text))
        j = comment_lines[k * len(comment_lines) // edits]
        lines[j] += " (edited)"
        text = "\n".join(lines)
        out.append(("comment", text))
        lines.append(f'on turn start if count(me.hand) == {100 + k} {{ say "a new rule {k}" }}')
        text = "\n".join(lines)
        out.append(("new rule", text))
    return out


TYPED = 'on turn start if count(me.hand) == 42 { say "typed at 8 keys a second" }'
KEYS_PER_SECOND = 8


def client_text(text: str, edits: int) -> str:
    """The document as the scripted session left it (the text of its last change)."""
    return session(text, edits)[-1][1]


BURSTS = 5  # rules typed, one after the other: the figure is their median


async def typing_burst(client, uri: str, text: str, version: int, times: dict, n: int = 0) -> tuple[int, str]:
    """Type a new rule at the end of the document, one key at a time at KEYS_PER_SECOND, each key a
    change; the figure is from the last key to the diagnostics of the text it made (the half-typed
    texts before it need no answer: a server that checks each of them falls behind). Returns the
    last version sent, and the text."""
    first = len(client.published)
    typed = text + "\n"
    for key in TYPED.replace("42", str(42 + n)):
        typed += key
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [t.TextDocumentContentChangeWholeDocument(text=typed)]))
        last_sent = time.perf_counter()
        version += 1
        await asyncio.sleep(1 / KEYS_PER_SECOND)
    last = version - 1
    while not any(p.version == last for _, p in client.published[first:]):
        await asyncio.sleep(0.005)
    answers = client.published[first:]
    answered = next(when for when, p in answers if p.version == last)
    times.setdefault("last key typed", []).append((answered - last_sent) * 1000)
    times.setdefault("keys answered", []).append(len(answers))
    return version, typed


def recording(client):
    """Every publish of diagnostics, as (when, params), in client.published: as it is handled (a
    wait for the next one misses one that arrives while the one before is handled)."""
    client.published = []
    handle = client.protocol._handle_notification

    def record(method: str, params):
        if method == t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.published.append((time.perf_counter(), params))
        return handle(method, params)
    client.protocol._handle_notification = record
    return client


async def published(client, version: int) -> float:
    """When the diagnostics of `version` were published (waiting for them)."""
    while True:
        for when, p in client.published:
            if p.version == version:
                return when
        await asyncio.sleep(0.002)


async def measure(edits: int) -> dict[str, list[float]]:
    client = recording(make_test_lsp_client())
    await client.start_io(sys.executable, "-m", "gamedsl", "lsp")
    await client.initialize_session(t.InitializeParams(capabilities=t.ClientCapabilities()))
    text = LAW.read_text(encoding="utf-8")
    uri = LAW.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
        uri=uri, language_id="gamedsl", version=1, text=text)))
    await published(client, 1)
    times: dict[str, list[float]] = {}
    version = 1
    for version, (kind, new) in enumerate(session(text, edits), 2):
        start = time.perf_counter()
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [t.TextDocumentContentChangeWholeDocument(text=new)]))
        times.setdefault(kind, []).append((await published(client, version) - start) * 1000)
        if kind == "typo":
            assert client.diagnostics[uri], "a typo must be reported"
    typed, version = client_text(text, edits), version + 1
    for n in range(BURSTS):
        version, typed = await typing_burst(client, uri, typed, version, times, n)
    for _ in range(max(3, edits // 2)):
        start = time.perf_counter()
        await client.text_document_formatting_async(t.DocumentFormattingParams(
            t.TextDocumentIdentifier(uri=uri), t.FormattingOptions(tab_size=2, insert_spaces=True)))
        times.setdefault("formatting", []).append((time.perf_counter() - start) * 1000)
    await client.shutdown_session()
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edits", type=int, default=20, help="rounds of typo, fix, comment and new rule (default 20)")
    args = ap.parse_args()
    times = asyncio.run(measure(args.edits))
    every = sorted(x for kind, xs in times.items() if kind not in ("formatting", "last key typed", "keys answered")
                   for x in xs)
    print(f"law.game, {len(every)} changes: diagnostics published in median {statistics.median(every):.0f} ms, "
          f"worst {every[-1]:.0f} ms")
    for kind, xs in times.items():
        if kind in ("last key typed", "keys answered"):
            continue
        what = "requests" if kind == "formatting" else "changes"
        print(f"  {kind:12} median {statistics.median(xs):4.0f} ms, worst {max(xs):4.0f} ms ({len(xs)} {what})")
    typed = times["last key typed"]
    print(f"{BURSTS} new rules typed at {KEYS_PER_SECOND} keys a second ({len(TYPED)} keys each): their diagnostics "
          f"median {statistics.median(typed):.0f} ms after the last key ({', '.join(f'{x:.0f}' for x in typed)} ms); "
          f"{statistics.median(times['keys answered']):.0f} of the {len(TYPED)} texts typed were checked and published")
    return 0


if __name__ == "__main__":
    sys.exit(main())
