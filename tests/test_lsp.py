"""`gamedsl lsp` driven end to end by a real LSP client (pytest-lsp) over stdio: diagnostics as
the text changes, the outline, go to definition, find references, hover, rename, completion and
formatting, on the games of games/, and a whole editing session on law.game."""
from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as t  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
LAW = GAMES / "law.game"



@pytest_lsp.fixture(scope="module",
                    config=ClientServerConfig(server_command=[sys.executable, "-m", "gamedsl", "lsp"]))
async def client(lsp_client: LanguageClient):
    # Every publish is recorded as it is handled: waiting for the next one (wait_for_notification)
    # misses a publish that arrives while the test handles the one before (a close's, then an
    # open's answered from the server's memory, under load).
    lsp_client.published = published = []
    handle = lsp_client.protocol._handle_notification

    def recording(method: str, params):
        if method == t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            published.append(params)
        return handle(method, params)
    lsp_client.protocol._handle_notification = recording
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=t.ClientCapabilities(), root_uri=ROOT.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def _published(client, uri: str, since: int, until) -> list:
    """The publishes of `uri` recorded after the first `since`, once `until(them)` holds."""
    while True:
        found = [p for p in client.published[since:] if p.uri == uri]
        if until(found):
            return found
        await asyncio.sleep(0.005)


async def _diagnostics(client, send, version: int) -> list:
    """Send (open or change) and wait for the diagnostics published for that version of the
    document (not those a close of it published: they have no version)."""
    since = len(client.published)
    uri = send()
    found = await _published(client, uri, since, lambda ps: any(p.version == version for p in ps))
    client.diagnostics.pop(uri, None)
    return list(next(p for p in found if p.version == version).diagnostics)


async def _open(client, path: Path, text: str | None = None, version: int = 1) -> list:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)

    def send():
        client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
            uri=uri, language_id="gamedsl", version=version,
            text=path.read_text(encoding="utf-8") if text is None else text)))
        return uri
    return await _diagnostics(client, send, version)


async def _change(client, path: Path, text: str, version: int) -> list:
    uri = path.as_uri()

    def send():
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [t.TextDocumentContentChangeWholeDocument(text=text)]))
        return uri
    return await _diagnostics(client, send, version)


def _close(client, path: Path):
    client.text_document_did_close(t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(uri=path.as_uri())))


def _pos(text: str, line: int, word: str, nth: int = 0) -> t.Position:
    """The LSP position of the nth `word` on 1-based line `line` (ASCII lines only)."""
    src = text.split("\n")[line - 1]
    starts = [m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", src)]
    return t.Position(line - 1, starts[nth] + 1)


def _start(text: str, line: int, word: str, nth: int = 0) -> t.Position:
    """Where the nth `word` on 1-based line `line` starts."""
    inside = _pos(text, line, word, nth)
    return t.Position(inside.line, inside.character - 1)


# ---- diagnostics

@pytest.mark.asyncio(loop_scope="module")
async def test_an_error_typed_is_shown_with_its_hint_and_cleared_when_fixed(client):
    text = LAW.read_text(encoding="utf-8")
    assert await _open(client, LAW) == []
    broken = text.replace("  me.restricted += 1", "  me.restrictd += 1")
    line = broken.split("\n").index("  me.restrictd += 1")
    started = time.perf_counter()
    found = await _change(client, LAW, broken, 2)
    took = time.perf_counter() - started
    assert len(found) == 1, found
    d = found[0]
    assert "restrictd" in d.message and "did you mean 'restricted'?" in d.message
    assert d.severity == t.DiagnosticSeverity.Error and d.source == "gamedsl"
    assert d.range == t.Range(t.Position(line, 5), t.Position(line, 14))
    assert took < 2.0  # generous on a shared machine; the figure itself is in docs/editors.md
    assert await _change(client, LAW, text, 3) == []  # fixed: cleared
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_changes_in_quick_succession_end_with_the_newest_checked(client, tmp_path):
    path = tmp_path / "law.game"
    text = LAW.read_text(encoding="utf-8")
    assert await _open(client, path, text) == []
    uri = path.as_uri()
    since = len(client.published)
    for v in range(2, 8):  # each a different typo; the last one stays
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=v),
            [t.TextDocumentContentChangeWholeDocument(text=text.replace("me.restricted += 1",
                                                                        f"me.restricted{v} += 1"))]))
    published = await _published(client, uri, since, lambda ps: any(
        p.diagnostics and "restricted7" in p.diagnostics[0].message for p in ps))
    found = next(p.diagnostics for p in published if p.diagnostics and "restricted7" in p.diagnostics[0].message)
    assert len(found) == 1
    # a comment edited: nothing to report, and hover reads the new comment
    edited = text.replace("# K♥: Laws restricted so far in the event", "# K♥: how many Laws were restricted")
    assert await _change(client, path, edited, 8) == []
    line = edited.split("\n").index("  me.restricted += 1") + 1
    h = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=_pos(edited, line, "restricted")))
    assert "K♥: how many Laws were restricted" in h.contents.value
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_columns_are_utf16_after_non_ascii_text(client):
    path = GAMES / "lol.game"
    lines = path.read_text(encoding="utf-8").split("\n")
    k = next(i for i, x in enumerate(lines) if x.startswith('  if silence == nobody { say "ЛОЛ!'))
    lines[k] = '  if silence == nobody { say "«ЛОЛ!» 🃏 caught" } else { say "ЛОЛ! caught" } silense = 1'
    found = await _open(client, path, "\n".join(lines))
    assert len(found) == 1, found
    col = lines[k].index("silense") + 1  # the joker 🃏 is two UTF-16 units
    assert found[0].range == t.Range(t.Position(k, col), t.Position(k, col + len("silense")))
    assert "did you mean 'silence'?" in found[0].message
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_syntax_error_is_reported_and_the_outline_stays(client, tmp_path):
    path = tmp_path / "law.game"
    text = LAW.read_text(encoding="utf-8")
    assert await _open(client, path, text) == []
    broken = text.replace("zone hand per player: owner", "zone hand per player: owner {{")
    line = broken.split("\n").index("zone hand per player: owner {{")
    found = await _change(client, path, broken, 2)
    assert found and all(d.severity == t.DiagnosticSeverity.Error for d in found)
    assert any(d.range.start.line == line for d in found), found
    symbols = await client.text_document_document_symbol_async(
        t.DocumentSymbolParams(t.TextDocumentIdentifier(path.as_uri())))
    assert "hand" in {s.name for s in symbols}  # the last text that parsed
    assert await _change(client, path, text, 3) == []
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_an_error_in_the_base_of_a_variant_is_shown_on_its_extends(client, tmp_path):
    base = tmp_path / "law.game"
    base.write_text(LAW.read_text(encoding="utf-8").replace("  me.restricted += 1", "  me.restrictd += 1"),
                    encoding="utf-8")
    variant = tmp_path / "first.game"
    variant.write_text('# a comment\n\nextends "law.game"   # its base\ngame "Law, first game"\n', encoding="utf-8")
    found = await _open(client, variant)
    assert len(found) == 1, found
    d = found[0]
    assert d.range == t.Range(t.Position(2, 8), t.Position(2, 18))  # on its `extends "law.game"`
    assert "law.game:713:6" in d.message and "restrictd" in d.message
    [related] = d.related_information
    assert related.location.uri == base.as_uri()
    assert related.location.range.start == t.Position(712, 5)
    [loc] = await client.text_document_definition_async(t.DefinitionParams(
        text_document=t.TextDocumentIdentifier(uri=variant.as_uri()), position=t.Position(2, 12)))
    assert loc.uri == base.as_uri()  # from `extends "law.game"` to the base
    # a syntax error in the base: shown on the variant's `extends` too
    base.write_text(LAW.read_text(encoding="utf-8").replace("zone hand per player: owner", "zone hand per: owner"),
                    encoding="utf-8")
    client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(
        uri=variant.as_uri())))
    found = await _diagnostics(client, lambda: variant.as_uri(), 1)  # (saved: checked again, its version 1)
    assert found and all(d.range.start.line == 2 and d.message.startswith("law.game:93:") for d in found), found
    assert found[0].related_information[0].location.uri == base.as_uri()
    _close(client, variant)


# ---- outline, definition, references, hover

@pytest.mark.asyncio(loop_scope="module")
async def test_document_symbols_outline_law(client):
    await _open(client, LAW)
    symbols = await client.text_document_document_symbol_async(
        t.DocumentSymbolParams(t.TextDocumentIdentifier(LAW.as_uri())))
    by_name = {s.name: s for s in symbols}
    for name, detail in [("hand", "zone"), ("restricted", "variable"), ("applies", "def"), ("take_draw", "action"),
                         ("first_game", "option"), ("setup", "flow"), ("round", "flow"), ("outcome", "flow"),
                         ("kind", "pattern"), ("laws_to_win", "parameter"), ("low", "value table")]:
        assert by_name[name].detail == detail, name
    assert [c.name for c in by_name["suit"].children] == ["spades", "clubs", "diamonds", "hearts"]
    assert any(s.detail == "trigger" for s in symbols) and any(s.detail == "invariant" for s in symbols)
    text = LAW.read_text(encoding="utf-8").split("\n")
    hand = by_name["hand"]
    assert text[hand.selection_range.start.line][hand.selection_range.start.character:].startswith("hand ")
    for s in symbols:  # each range holds its name
        assert s.range.start <= s.selection_range.start and s.selection_range.end <= s.range.end
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_and_references_of_a_variable(client):
    text = LAW.read_text(encoding="utf-8")
    await _open(client, LAW)
    uri = LAW.as_uri()
    use = text.split("\n").index("  me.restricted += 1") + 1
    decl = next(i for i, x in enumerate(text.split("\n")) if x.startswith("hidden var restricted ")) + 1
    [loc] = await client.text_document_definition_async(
        t.DefinitionParams(t.TextDocumentIdentifier(uri), _pos(text, use, "restricted")))
    assert loc.uri == uri and loc.range.start == t.Position(decl - 1, len("hidden var "))
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=_pos(text, decl, "restricted"),
        context=t.ReferenceContext(include_declaration=True)))
    code = [re.sub(r'#.*|"[^"]*"', lambda m: " " * len(m[0]), x) for x in text.split("\n")]  # every `restricted` outside comments
    expected = {(i, m.start()) for i, x in enumerate(code) for m in re.finditer(r"\brestricted\b", x)}
    assert {(r.range.start.line, r.range.start.character) for r in refs} == expected and len(expected) >= 4
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_references_of_a_def_many_laws_read(client):
    text = LAW.read_text(encoding="utf-8")
    await _open(client, LAW)
    uri = LAW.as_uri()
    decl = next(i for i, x in enumerate(text.split("\n")) if x.startswith("def applies(")) + 1
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=t.TextDocumentIdentifier(uri=uri), position=_pos(text, decl, "applies"),
        context=t.ReferenceContext(include_declaration=False)))
    code = [re.sub(r'#.*|"[^"]*"', lambda m: " " * len(m[0]), x) for x in text.split("\n")]
    expected = {(i, m.start()) for i, x in enumerate(code) for m in re.finditer(r"\bapplies\b", x)} - {
        (decl - 1, 4)}
    assert {(r.range.start.line, r.range.start.character) for r in refs} == expected and len(expected) > 20
    # and back: from a use to the def
    line, col = sorted(expected)[-1]
    [loc] = await client.text_document_definition_async(
        t.DefinitionParams(t.TextDocumentIdentifier(uri), t.Position(line, col + 2)))
    assert loc.range.start == t.Position(decl - 1, 4)
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_local_of_the_name_of_a_value_table_is_not_it(client):
    """Laus reads its value table `points` as `c.points`, and names a `let points` too."""
    path = GAMES / "laus.game"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    await _open(client, path)
    doc = t.TextDocumentIdentifier(uri=path.as_uri())
    decl = next(i for i, x in enumerate(lines) if x.startswith("value points:")) + 1
    refs = await client.text_document_references_async(t.ReferenceParams(
        text_document=doc, position=_pos(text, decl, "points"), context=t.ReferenceContext(include_declaration=False)))
    code = [re.sub(r'#.*|"[^"]*"', lambda m: " " * len(m[0]), x) for x in lines]
    dotted = {(i, m.start() + 1) for i, x in enumerate(code) for m in re.finditer(r"\.points\b", x)}
    assert {(r.range.start.line, r.range.start.character) for r in refs} == dotted and dotted
    let = next(i for i, x in enumerate(lines) if "let points = " in x) + 1
    local = let + 2  # two lines on, it is read
    h = await client.text_document_hover_async(t.HoverParams(text_document=doc, position=_pos(text, local, "points")))
    assert h.contents.value.startswith("`points`: let")
    [loc] = await client.text_document_definition_async(t.DefinitionParams(
        text_document=doc, position=_pos(text, local, "points")))
    assert loc.range.start == _start(text, let, "points")
    with pytest.raises(Exception, match="binds for itself"):
        await client.text_document_rename_async(t.RenameParams(
            text_document=doc, position=_pos(text, local, "points"), new_name="pts"))
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_names_a_rule_binds_go_to_their_binding(client):
    text = LAW.read_text(encoding="utf-8")
    lines = text.split("\n")
    await _open(client, LAW)
    doc = t.TextDocumentIdentifier(uri=LAW.as_uri())
    applies = next(i for i, x in enumerate(lines) if x.startswith("def applies(p, c)")) + 1
    for word, uses in [("c", 3), ("p", 1)]:  # def applies(p, c) = c in laws and (... or c.only_for == p)
        refs = await client.text_document_references_async(t.ReferenceParams(
            text_document=doc, position=_pos(text, applies, word), context=t.ReferenceContext(include_declaration=True)))
        assert len(refs) == 1 + uses and all(r.range.start.line == applies - 1 for r in refs)
        h = await client.text_document_hover_async(t.HoverParams(text_document=doc, position=_pos(text, applies, word, 1)))
        assert h.contents.value.startswith(f"`{word}`: parameter of def applies")
    # `on move c to p.laws`: c is the card, p the owner of the zone, for the whole trigger
    on = next(i for i, x in enumerate(lines) if x.startswith("on move c to p.laws if c == card(K, hearts)")) + 1
    [loc] = await client.text_document_definition_async(t.DefinitionParams(
        text_document=doc, position=_pos(text, on + 2, "p")))
    assert loc.range.start == _start(text, on, "p")
    ask = next(i for i, x in enumerate(lines) if x.startswith("action ask_for")) + 1
    [loc] = await client.text_document_definition_async(t.DefinitionParams(
        text_document=doc, position=_pos(text, ask + 2, "c")))
    assert loc.range.start == _start(text, ask, "c")
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_of_zones_actions_values_and_attributes(client):
    text = LAW.read_text(encoding="utf-8")
    lines = text.split("\n")
    await _open(client, LAW)
    uri = LAW.as_uri()

    async def goes_to(line, word, decl_prefix, nth=0):
        [loc] = await client.text_document_definition_async(
            t.DefinitionParams(t.TextDocumentIdentifier(uri), _pos(text, line, word, nth)))
        assert lines[loc.range.start.line].startswith(decl_prefix), (word, loc)
        assert lines[loc.range.start.line][loc.range.start.character:].startswith(word)

    deal = next(i for i, x in enumerate(lines) if x.startswith("  deal 2 from draw_pile to hand")) + 1
    await goes_to(deal, "draw_pile", "zone draw_pile")
    await goes_to(deal, "hand", "zone hand")
    choose = next(i for i, x in enumerate(lines) if "choose ask_for" in x) + 1
    await goes_to(choose, "ask_for", "action ask_for")
    pattern = next(i for i, x in enumerate(lines) if x.startswith("    with at least owner.hearts_in_straights hearts"))
    await goes_to(pattern + 1, "hearts", "attribute suit")
    await goes_to(pattern + 1, "hearts_in_straights", "param hearts_in_straights")
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_says_what_a_name_is_with_its_comment(client):
    text = LAW.read_text(encoding="utf-8")
    lines = text.split("\n")
    await _open(client, LAW)
    uri = LAW.as_uri()

    async def hover(line, word):
        h = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri),
                                                                 _pos(text, line, word)))
        return h.contents.value

    use = lines.index("  me.restricted += 1") + 1
    said = await hover(use, "restricted")
    assert "hidden variable `restricted` per player = `0`" in said and "K♥: Laws restricted so far" in said
    deal = next(i for i, x in enumerate(lines) if x.startswith("  deal 2 from draw_pile to hand")) + 1
    assert "zone `hand` per player: owner" in await hover(deal, "hand")
    assert "zone `draw_pile`: hidden, stack" in await hover(deal, "draw_pile")
    applies = next(i for i, x in enumerate(lines) if "applies(" in x and not x.startswith("def ")) + 1
    said = await hover(applies, "applies")
    assert "def `applies(p, c)`" in said and "A card is a Law in force while it lies in a collection" in said
    take = next(i for i, x in enumerate(lines) if x.startswith("action take_draw")) + 1
    assert 'action `take_draw` "take from the draw pile"' in await hover(take, "take_draw")
    option = next(i for i, x in enumerate(lines) if x.startswith("option first_game")) + 1
    assert "option `first_game`, default `false`" in await hover(option, "first_game")
    h = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(0, 0)))
    assert h is None  # a comment: nothing to say
    literal = next(i for i, x in enumerate(lines) if "card(K, hearts)" in x) + 1
    said = await hover(literal, "card")
    assert said == "the card K♥: rank `K`, suit `hearts`"
    _close(client, LAW)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_after_a_dot_and_of_names_and_keywords(client, tmp_path):
    path = tmp_path / "law.game"
    text = LAW.read_text(encoding="utf-8")
    await _open(client, path, text)
    uri = path.as_uri()
    lines = text.split("\n")
    k = lines.index("  me.restricted += 1")
    typing = list(lines)
    typing[k] = "  me.re"  # half typed: the file does not check, the names of its last good version are offered
    await _change(client, path, "\n".join(typing), 2)

    async def complete(line, character):
        found = await client.text_document_completion_async(t.CompletionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line, character)))
        return {item.label: item for item in found.items}

    after_me = await complete(k, len("  me.re"))
    assert {"hand", "laws", "restricted", "laws_to_win"} <= set(after_me)
    assert "draw_pile" not in after_me and "suit" not in after_me and "take_draw" not in after_me
    assert after_me["restricted"].detail == "variable"
    assert "K♥: Laws restricted so far" in after_me["restricted"].documentation.value
    typing[k] = "  c."
    await _change(client, path, "\n".join(typing), 3)
    assert {"rank", "suit", "low", "high", "only_for"} == set(await complete(k, len("  c.")))
    typing[k] = "  "
    await _change(client, path, "\n".join(typing), 4)
    anywhere = await complete(k, 2)
    assert {"draw_pile", "applies", "take_draw", "hearts", "first_game", "count", "shuffle", "while"} <= set(anywhere)
    assert anywhere["while"].kind == t.CompletionItemKind.Keyword
    assert anywhere["draw_pile"].kind == t.CompletionItemKind.Field
    typing[k] = "  if c.suit == he"
    await _change(client, path, "\n".join(typing), 5)
    assert set(await complete(k, len(typing[k]))) == {"spades", "clubs", "diamonds", "hearts"}
    typing[k] = "  # a comment: me."
    await _change(client, path, "\n".join(typing), 6)
    assert await complete(k, len(typing[k])) == {}
    _close(client, path)


SMALL = """game "Small"
players 2
attribute rank: A, 2, 3
attribute suit: clubs, hearts
cards rank * suit
zone deck: hidden, stack
zone hand per player: owner
zone pile: public
def twice(x) = count(q in me.hand if q.rank == x) * 2
action lay "lay" (c in me.hand) {
  let n = count(me.hand)
  move c to pile
}
setup { shuffle deck  deal 2 from deck to hand }
round { for each p in players { turn p { choose lay } } }
end game when count(deck) == 0
"""


@pytest.mark.asyncio(loop_scope="module")
async def test_the_secrecy_analysis_s_errors_follow_the_others_and_then_are_kept_in_view(client, tmp_path):
    """A change is published as soon as every check but the secrecy analysis is done; the analysis
    runs after, and its errors are published when it finds some. While the file has such errors,
    a change waits for the analysis (published once: they do not vanish and come back)."""
    path = tmp_path / "leak.game"
    uri = path.as_uri()
    assert await _open(client, path, SMALL) == []
    said = 'say "the next card is a {top(deck).rank}"'
    leaky = SMALL.replace("deal 2 from deck to hand }", "deal 2 from deck to hand  " + said + " }")
    since = len(client.published)
    seen = []

    async def publishes(version: int, count: int) -> None:
        seen[:] = await _published(client, uri, since, lambda ps: len([p for p in ps if p.version == version]) >= count)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(uri=uri, version=2), [t.TextDocumentContentChangeWholeDocument(text=leaky)]))
    await publishes(2, 2)
    first, second = [p.diagnostics for p in seen if p.version == 2]
    assert not first and [d.message.split(":")[0] for d in second] == ["this line says it, but 'top(deck).rank' "
                                                                         "is known to nobody"]
    again = leaky.replace("the next card", "the card on top")  # still leaking: published once, with the error
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(uri=uri, version=3), [t.TextDocumentContentChangeWholeDocument(text=again)]))
    await publishes(3, 1)
    assert [len(p.diagnostics) for p in seen if p.version == 3] == [1]
    assert await _change(client, path, SMALL, 4) == []  # mended: published once, empty
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_the_names_in_scope_at_the_cursor_and_a_cards_values(client, tmp_path):
    path = tmp_path / "small.game"
    assert await _open(client, path, SMALL) == []
    uri = path.as_uri()
    lines = SMALL.split("\n")

    async def complete(line, character):
        found = await client.text_document_completion_async(t.CompletionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line, character)))
        return {item.label: item for item in found.items}

    move = lines.index("  move c to pile")
    inside = await complete(move, 2)  # before `move`: the action's card and its let are in scope
    assert inside["c"].detail == "what action lay chooses" and inside["n"].detail == "let"
    assert "x" not in inside and "q" not in inside and "p" not in inside  # another rule's, or not yet bound
    let = lines.index("  let n = count(me.hand)")
    assert "n" not in await complete(let, 2)  # not bound yet at its own let
    loop = lines.index("round { for each p in players { turn p { choose lay } } }")
    assert "p" in await complete(loop, lines[loop].index("turn"))
    assert "c" not in await complete(loop, lines[loop].index("turn"))
    assert set(await complete(move, len("  move c to pile"))) >= {"hand", "deck", "twice"}
    lines[move] = "  move card("
    await _change(client, path, "\n".join(lines), 2)
    assert set(await complete(move, len(lines[move]))) == {"A", "2", "3"}
    lines[move] = "  move card(A, "
    await _change(client, path, "\n".join(lines), 3)
    assert set(await complete(move, len(lines[move]))) == {"clubs", "hearts"}
    _close(client, path)


def test_every_snippet_filled_with_its_defaults_is_read_by_the_parser():
    from gamedsl.language.syntax import parse
    from gamedsl.lsp.tokens import SNIPPETS

    def filled(body: str) -> str:
        body = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", body)
        return re.sub(r"\$\d+", "", body)
    for label, _, body in SNIPPETS:
        text = filled(body)
        if label in ("if", "for each", "while"):  # statements: in a move's body
            text = "action a {\n" + text + "\n}"
        parse(SMALL + text + "\n", f"{label}.game")  # raises SourceError if it does not read


@pytest.mark.asyncio(loop_scope="module")
async def test_snippets_are_offered_at_a_lines_start(client, tmp_path):
    path = tmp_path / "small.game"
    await _open(client, path, SMALL + "\n")
    found = await client.text_document_completion_async(t.CompletionParams(
        text_document=t.TextDocumentIdentifier(uri=path.as_uri()), position=t.Position(len(SMALL.split("\n")) - 1, 0)))
    snippets = {i.filter_text: i for i in found.items if i.kind == t.CompletionItemKind.Snippet}
    assert {"action", "def", "zone", "var", "pattern", "on move", "round", "setup", "if"} <= set(snippets)
    assert snippets["action"].insert_text_format == t.InsertTextFormat.Snippet and snippets["action"].label == "action …"
    assert snippets["action"].insert_text.startswith("action ${1:name}")
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_did_you_mean_error_has_a_quick_fix_that_fixes_it(client, tmp_path):
    path = tmp_path / "small.game"
    typo = SMALL.replace("let n = count(me.hand)", "let n = count(me.hnad)")
    (diagnostic,) = await _open(client, path, typo)
    assert "did you mean 'hand'" in diagnostic.message
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=path.as_uri()), range=diagnostic.range,
        context=t.CodeActionContext(diagnostics=[diagnostic])))
    (fix,) = actions
    assert fix.title == "Change 'hnad' to 'hand'" and fix.kind == t.CodeActionKind.QuickFix
    fixed = _apply(typo, fix.edit.changes[path.as_uri()])
    assert fixed == SMALL
    assert await _change(client, path, fixed, 2) == []
    none = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=path.as_uri()), range=diagnostic.range,
        context=t.CodeActionContext(diagnostics=[])))
    assert not none
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_quick_fix_changes_the_misspelt_name_only_and_never_a_number(client, tmp_path):
    """The error of a misspelt function covers its call: the fix wrote the name over the whole call
    (`fitz(c)` became `fits`). And a number is never "fixed" into another (`1` into `10`, the ace
    into a ten: a file that checks and plays other rules)."""
    path = tmp_path / "call.game"
    call = SMALL.replace("let n = count(me.hand)", "let n = twise(c.rank)")
    (diagnostic,) = await _open(client, path, call)
    assert "did you mean 'twice'" in diagnostic.message
    (fix,) = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=path.as_uri()), range=diagnostic.range,
        context=t.CodeActionContext(diagnostics=[diagnostic])))
    assert _apply(call, fix.edit.changes[path.as_uri()]) == SMALL.replace("let n = count(me.hand)",
                                                                          "let n = twice(c.rank)")
    _close(client, path)
    path = tmp_path / "ten.game"
    ten = SMALL.replace("attribute rank: A, 2, 3", "attribute rank: A, 2, 3, 10").replace(
        "let n = count(me.hand)", "let n = count(q in me.hand if q.rank != 1)")
    (diagnostic,) = await _open(client, path, ten)
    assert "unknown rank '1'" in diagnostic.message
    assert not await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=path.as_uri()), range=diagnostic.range,
        context=t.CodeActionContext(diagnostics=[diagnostic])))
    _close(client, path)


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        assert e.range.start.line == e.range.end.line
        line = lines[e.range.start.line]  # ASCII lines: UTF-16 columns are characters
        lines[e.range.start.line] = line[:e.range.start.character] + e.new_text + line[e.range.end.character:]
    return "\n".join(lines)


@pytest.mark.asyncio(loop_scope="module")
async def test_rename_a_variable_across_the_file_and_refuse_a_clash(client, tmp_path):
    from pygls.exceptions import JsonRpcException
    path = tmp_path / "law.game"
    text = LAW.read_text(encoding="utf-8")
    await _open(client, path, text)
    doc = t.TextDocumentIdentifier(uri=path.as_uri())
    line = text.split("\n").index("  me.restricted += 1") + 1
    pos = _pos(text, line, "restricted")
    ready = await client.text_document_prepare_rename_async(t.PrepareRenameParams(text_document=doc, position=pos))
    assert ready.placeholder == "restricted" and ready.range.start == t.Position(line - 1, 5)
    edit = await client.text_document_rename_async(t.RenameParams(text_document=doc, position=pos,
                                                                  new_name="restricted_so_far"))
    renamed = _apply(text, edit.changes[doc.uri])
    assert len(edit.changes[doc.uri]) == len(re.findall(r"\brestricted\b", "\n".join(
        re.sub(r'#.*|"[^"]*"', "", x) for x in text.split("\n"))))
    assert "restricted_so_far += 1" in renamed and "hidden var restricted_so_far per player = 0" in renamed
    assert await _change(client, path, renamed, 2) == []  # the renamed game still checks
    pos = _pos(renamed, line, "restricted_so_far")
    for clash, why in [("hand", "already the name of a zone"), ("p", "already a name in a rule"),
                       ("while", "a word of the language"), ("two words", "not a name")]:
        with pytest.raises(JsonRpcException, match=why):
            await client.text_document_rename_async(t.RenameParams(text_document=doc, position=pos, new_name=clash))
    _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_random_edits_of_every_game_never_stop_the_server_answering(client, tmp_path):
    """Cut, garble and half-type the seed games: every change gets its diagnostics, and every
    request an answer (an error of the server would fail the request, and so the test)."""
    import random
    rng = random.Random(31)
    pieces = ["{", "}", "(", ".", '"', "#", " x", "me.", "🃏", "\n", "zone", "==", "c.", "«ЛОЛ!»"]
    for n, game in enumerate(sorted(GAMES.glob("*.game"))):
        path = tmp_path / game.name
        text = game.read_text(encoding="utf-8")
        await _open(client, path, text)
        uri = path.as_uri()
        for v in range(2, 6):
            i = rng.randrange(len(text))
            j = min(len(text), i + rng.randrange(40))
            text = rng.choice([text[:i] + text[j:], text[:i] + rng.choice(pieces) + text[i:],
                               text[:i] + text[i:j][::-1] + text[j:]])
            await _change(client, path, text, v)
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            pos = t.Position(k, rng.randrange(len(lines[k]) + 2))
            doc = t.TextDocumentIdentifier(uri=uri)
            await client.text_document_document_symbol_async(t.DocumentSymbolParams(text_document=doc))
            await client.text_document_hover_async(t.HoverParams(text_document=doc, position=pos))
            await client.text_document_definition_async(t.DefinitionParams(text_document=doc, position=pos))
            await client.text_document_references_async(t.ReferenceParams(
                text_document=doc, position=pos, context=t.ReferenceContext(include_declaration=True)))
            await client.text_document_completion_async(t.CompletionParams(text_document=doc, position=pos))
            await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(text_document=doc))
        _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_semantic_tokens_colour_names_by_kind(client):
    text = (GAMES / "lol.game").read_text(encoding="utf-8")
    doc = t.TextDocumentIdentifier(uri=(GAMES / "lol.game").as_uri())
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
        uri=doc.uri, language_id="gamedsl", version=1, text=text)))
    # asked as the file opens, as an editor asks: the answer waits for the first check (names by kind)
    result = await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(text_document=doc))
    from gamedsl.lsp.tokens import TOKEN_MODIFIERS, TOKEN_TYPES
    lines, found, line, col = text.split("\n"), {}, 0, 0
    data = result.data
    for i in range(0, len(data), 5):
        line, col = line + data[i], (col if data[i] == 0 else 0) + data[i + 1]
        units = lines[line].encode("utf-16-le")[2 * col:2 * (col + data[i + 2])].decode("utf-16-le")
        mods = tuple(m for k, m in enumerate(TOKEN_MODIFIERS) if data[i + 4] >> k & 1)
        found.setdefault(units, set()).add((TOKEN_TYPES[data[i + 3]], mods))
    assert ("struct", ("declaration",)) in found["hand"] and ("struct", ()) in found["hand"]
    assert ("method", ("declaration",)) in found["call_lol"]
    assert ("keyword", ()) in found["action"] and ("keyword", ()) in found["anytime"]
    assert ("function", ("defaultLibrary",)) in found["count"]
    assert ("parameter", ("declaration",)) in found["p"] and ("parameter", ()) in found["p"]  # a rule's own names
    assert ('"ЛОЛ! +4"', {("string", ())}) in found.items()
    assert "#    colour; four «ЛОЛ!» (+4) and four «ИМХО!» jokers: 108 cards." in found  # a comment, whole
    _close(client, GAMES / "lol.game")


def test_missing_lsp_extra_names_it():
    from gamedsl.tools.cli import missing_module_message
    assert "gamedsl[lsp]" in missing_module_message(ModuleNotFoundError(name="pygls"))


# ---- a whole editing session, as an editor drives it

def _offset(lines: list[str], position: t.Position) -> int:
    """The string index of an LSP position (UTF-16 columns) in the text of `lines`."""
    line = lines[position.line] if position.line < len(lines) else ""
    units, col = 0, 0
    while col < len(line) and units < position.character:
        units += 2 if ord(line[col]) > 0xFFFF else 1
        col += 1
    return sum(len(x) + 1 for x in lines[:position.line]) + col


def _apply_edits(text: str, edits) -> str:
    """Any text edits (several lines, UTF-16 columns), applied as an editor does: each at its range
    in the text before them, the last first."""
    lines = text.split("\n")
    spans = sorted(((_offset(lines, e.range.start), _offset(lines, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.asyncio(loop_scope="module")
async def test_an_editing_session_on_law(client, tmp_path):
    """Open, break, fix, hover, go to definition, rename, format and complete, in one document, the
    way an editor does; print the diagnostics' latency (from didChange to publishDiagnostics)."""
    import statistics
    import subprocess
    path = tmp_path / "law.game"
    text = LAW.read_text(encoding="utf-8")
    doc = t.TextDocumentIdentifier(uri=path.as_uri())
    version, latencies = 1, []

    async def change(new_text):
        nonlocal version
        version += 1
        started = time.perf_counter()
        found = await _change(client, path, new_text, version)
        latencies.append(time.perf_counter() - started)
        return found

    assert await _open(client, path, text) == []
    lines = text.split("\n")
    use = lines.index("  me.restricted += 1") + 1
    decl = next(i for i, x in enumerate(lines) if x.startswith("hidden var restricted ")) + 1

    # a typo at a use: one error, with its hint; fixed: cleared
    [d] = await change(text.replace("  me.restricted += 1", "  me.restrictd += 1"))
    assert "restrictd" in d.message and "hint: did you mean 'restricted'?" in d.message
    assert d.range.start == t.Position(use - 1, 5)
    assert await change(text) == []

    # hover, then go to the declaration
    h = await client.text_document_hover_async(t.HoverParams(doc, _pos(text, use, "restricted")))
    assert "hidden variable `restricted` per player" in h.contents.value
    [loc] = await client.text_document_definition_async(t.DefinitionParams(doc, _pos(text, use, "restricted")))
    assert loc.uri == doc.uri and loc.range.start == t.Position(decl - 1, len("hidden var "))

    # rename across the file: the result checks clean
    edit = await client.text_document_rename_async(t.RenameParams(doc, _pos(text, use, "restricted"),
                                                                  "restricted_so_far"))
    renamed = _apply_edits(text, edit.changes[doc.uri])
    assert "  me.restricted_so_far += 1" in renamed and not re.search(r"\brestricted\b(?! so far)", "\n".join(
        re.sub(r'#.*|"[^"]*"', "", x) for x in renamed.split("\n")))
    assert await change(renamed) == []

    # format: the edits give what `gamedsl fmt` writes, which still checks; then nothing to do
    edits = await client.text_document_formatting_async(t.DocumentFormattingParams(
        doc, t.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits
    formatted = _apply_edits(renamed, edits)
    path.write_text(renamed, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "gamedsl", "fmt", str(path)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == f"reformatted {path}\n", run.stderr
    assert formatted == path.read_text(encoding="utf-8") != renamed
    assert await change(formatted) == []
    assert len(await client.text_document_formatting_async(t.DocumentFormattingParams(
        doc, t.FormattingOptions(tab_size=2, insert_spaces=True)))) == 0

    # completion after `me.` while typing: the per-player zones and variables
    typing = formatted.split("\n")
    k = typing.index("  me.restricted_so_far += 1")
    typing[k] = "  me."
    found = await change("\n".join(typing))
    assert found  # half typed: an error
    assert len(await client.text_document_formatting_async(t.DocumentFormattingParams(
        doc, t.FormattingOptions(tab_size=2, insert_spaces=True)))) == 0  # it does not parse: no edits
    done = await client.text_document_completion_async(t.CompletionParams(doc, t.Position(k, len("  me."))))
    labels = {item.label for item in done.items}
    assert {"hand", "laws", "bill", "restricted_so_far", "asked", "laws_to_win"} <= labels
    assert "draw_pile" not in labels and "take_draw" not in labels
    _close(client, path)
    print(f"\ndiagnostics after didChange on law.game ({len(latencies)} changes): median "
          f"{statistics.median(latencies) * 1000:.0f} ms, worst {max(latencies) * 1000:.0f} ms")


@pytest.mark.asyncio(loop_scope="module")
async def test_formatting_replaces_the_whole_text_up_to_a_utf16_end(client, tmp_path):
    path = tmp_path / "cards.game"
    text = 'game "T"\nplayers 2\nattribute face:  joker "🃏🃏"   # «ЛОЛ!» 🃏'  # no final newline
    await _open(client, path, text)
    doc = t.TextDocumentIdentifier(uri=path.as_uri())
    [edit] = await client.text_document_formatting_async(t.DocumentFormattingParams(
        doc, t.FormattingOptions(tab_size=2, insert_spaces=True)))
    last = text.split("\n")[-1]
    assert edit.range == t.Range(t.Position(0, 0), t.Position(2, len(last.encode("utf-16-le")) // 2))
    assert edit.range.end.character == len(last) + 3  # three cards outside the basic plane: two units each
    assert edit.new_text == 'game "T"\nplayers 2\nattribute face: joker "🃏🃏"    # «ЛОЛ!» 🃏\n'  # the comment keeps its column
    assert _apply_edits(text, [edit]) == edit.new_text
    _close(client, path)


def test_a_check_of_an_older_text_stops_at_its_next_checkpoint():
    """The server checks on a thread, and a check whose text is no longer the newest stops half-way
    (language/progress.py) instead of holding the next one up: it gives up between declarations,
    passes and actions, and a check nobody gave up runs to the end."""
    from gamedsl.language.progress import Cancelled, cancellable
    from gamedsl.lsp.checking import check

    text = LAW.read_text(encoding="utf-8") + "\non turn start if count(me.hand) == 99 { say \"new\" }\n"
    asked = []

    def stale_after(n):
        def stale():
            asked.append(1)
            return len(asked) > n
        return stale
    for n in (0, 5, 150):
        asked.clear()
        with pytest.raises(Cancelled), cancellable(stale_after(n)):
            check(text, str(LAW))
        assert len(asked) == n + 1  # it stopped at the first checkpoint that found it stale
    asked.clear()
    with cancellable(stale_after(10 ** 9)):
        assert check(text, str(LAW))[0] == []  # never stale: the whole check, past every checkpoint
    assert len(asked) > 150
