"""`gamedsl lsp`: a Language Server Protocol server over stdio (pygls), serving what the checker
knows about a .game file: diagnostics as you type, an outline, go to definition, find references,
rename, hover, completion, semantic tokens and formatting. See docs/editors.md."""
from __future__ import annotations

import asyncio
import logging
import os
import time

import attrs
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..errors import Diagnostic, Span
from ..language.progress import Cancelled, cancellable
from ..version import __version__
from . import analysis as a
from . import checking, describe, fixes, tokens

log = logging.getLogger(__name__)


@attrs.define
class Document:
    """What the server last computed for one open document."""

    text: str = ""
    version: int | None = None
    diagnostics: list = attrs.Factory(list)
    model: object = None  # the model of `text`, if it parsed
    millis: float = 0.0  # how long the last check took
    parsed: object = None  # the model of the last text that parsed: kept while a later one does not
    secrecy: object = None  # the secrecy analysis still to run for them (Checker)
    leaky: bool = False  # the secrecy analysis found errors last time: the next check waits for it
    _index: a.Index | None = None
    _indexed: object = None  # the model _index is of

    @property
    def index(self) -> a.Index | None:
        """The names of the last text that parsed, indexed when a request first asks (not after each
        change: a burst of typing is checked without indexing every text)."""
        if self.parsed is not None and self._indexed is not self.parsed:
            try:
                self._index = a.Index.of(self.parsed)
            except Exception:  # a bug in gamedsl: the requests answer from the last index
                log.exception("indexing failed")
            self._indexed = self.parsed
        return self._index


class GameServer(LanguageServer):
    def __init__(self):
        super().__init__("gamedsl", __version__)
        self.docs: dict[str, Document] = {}
        self.check = checking.Checker()
        self.lock = asyncio.Lock()  # one check at a time (refresh_newest)

    # ---- files and positions

    def filename(self, uri: str) -> str:
        path = to_fs_path(uri)
        return path if path else uri

    def uri_of(self, uri: str, span: Span) -> str:
        """The URI of the file a span is in: the document, or a file a variant extends."""
        if span.file:
            own = self.filename(uri)
            if os.path.normpath(span.file) != os.path.normpath(own):
                return from_fs_path(os.path.abspath(span.file)) or uri
        return uri

    def lines_of(self, uri: str, span: Span) -> list[str]:
        """The lines a span is of: a base's (of a variant), or the text the index was built from."""
        doc = self.docs.get(uri)
        if doc is None:
            return []
        if span.file:
            for model in (doc.model, doc.index.model if doc.index else None):
                sources = dict(model.sources) if model is not None else {}
                if span.file in sources:
                    return sources[span.file].split("\n")
            try:
                with open(span.file, encoding="utf-8") as f:
                    return f.read().split("\n")
            except (OSError, UnicodeDecodeError):
                return []
        if doc.index is None:
            return doc.text.split("\n")
        return doc.index.model.text.split("\n")  # the spans of the index are of the text that parsed last

    def range_of(self, lines: list[str], span: Span) -> t.Range:
        if not span.line:
            return t.Range(t.Position(0, 0), t.Position(0, 0))
        sl, sc = a.to_lsp(lines, span.line, span.column)
        end_line = span.end_line or span.line
        end_col = span.end_column if span.end_line else span.column + 1
        el, ec = a.to_lsp(lines, end_line, end_col)
        if (el, ec) <= (sl, sc):
            el, ec = sl, sc + 1
        return t.Range(t.Position(sl, sc), t.Position(el, ec))

    def location(self, uri: str, span: Span) -> t.Location:
        return t.Location(uri=self.uri_of(uri, span), range=self.range_of(self.lines_of(uri, span), span))

    # ---- checking

    async def refresh_newest(self, uri: str, version) -> None:
        """Check the document's text of `version` on a thread, one check at a time: a check whose
        version is no longer the newest is not begun, and one under way stops at its next
        checkpoint (language/progress.py). Only the newest text's diagnostics are published; its
        names are indexed when a request first needs them (Document.index). The secrecy analysis
        runs after the other errors are published (when the last text had none of its errors:
        else they would vanish and come back), and its errors are published when it finds some."""
        state = self.docs.setdefault(uri, Document())
        # (a document closed and opened again starts again at version 1: a Document of its own)
        stale = lambda: (self.workspace.get_text_document(uri).version != version  # noqa: E731
                         or self.docs.get(uri) is not state)
        filename = self.filename(uri)
        async with self.lock:
            if stale():
                return
            text = self.workspace.get_text_document(uri).source

            def run():
                with cancellable(stale):
                    return self.checking(filename, text, state)
            try:
                diagnostics, model, secrecy, millis = await asyncio.to_thread(run)
            except Cancelled:
                return
            if stale():
                return
            if secrecy is not None and state.leaky:
                try:
                    whole = await asyncio.to_thread(lambda: self.secrecy(filename, text, secrecy, diagnostics,
                                                                         model, stale))
                except Cancelled:
                    return
                state.leaky, diagnostics, secrecy = whole != diagnostics, whole, None
        self.show(uri, state, text, version, diagnostics, model, millis, secrecy)
        if secrecy is None:
            return
        async with self.lock:
            if stale():
                return
            try:
                whole = await asyncio.to_thread(lambda: self.secrecy(filename, text, secrecy, diagnostics, model, stale))
            except Cancelled:
                return
            if stale():
                return
        state.leaky = whole != diagnostics
        self.show(uri, state, text, version, whole, model, millis, None, again=state.leaky)

    def secrecy(self, filename: str, text: str, secrecy, diagnostics: list, model, stale) -> list:
        """The whole diagnostics of a text, with the secrecy analysis's errors, remembered."""
        with cancellable(stale):
            try:
                whole = secrecy() + diagnostics
            except Cancelled:
                raise
            except Exception as exc:  # a bug in gamedsl: the server keeps answering
                log.exception("the secrecy analysis of %s failed", filename)
                whole = [Diagnostic(f"internal error in gamedsl: {type(exc).__name__}: {exc}", Span())] + diagnostics
        self.check.remember(text, filename, whole, model)
        return whole

    def show(self, uri: str, state: Document, text: str, version, diagnostics: list, model, millis: float,
             secrecy, again: bool = True) -> None:
        """Keep a check's result as the document's and publish it (unless it is the same again)."""
        state.text, state.version, state.diagnostics, state.model = text, version, diagnostics, model
        state.millis, state.secrecy = millis, secrecy
        if model is not None:
            state.parsed = model  # (indexed when a request needs it)
        if again:
            self.publish(uri, state)

    def checking(self, filename: str, text: str, state: Document) -> tuple:
        """(diagnostics, model, secrecy, milliseconds) of a text of the document (Checker)."""
        start = time.perf_counter()
        previous = (state.text, state.diagnostics, state.model, state.secrecy)
        try:
            diagnostics, model, secrecy = self.check(text, filename, previous)
        except Cancelled:
            raise
        except Exception as exc:  # a bug in gamedsl: the server keeps answering
            log.exception("checking %s failed", filename)
            diagnostics, model, secrecy = [Diagnostic(f"internal error in gamedsl: {type(exc).__name__}: {exc}",
                                                        Span())], None, None
        return diagnostics, model, secrecy, (time.perf_counter() - start) * 1000

    def publish(self, uri: str, state: Document) -> None:
        lines = state.text.split("\n")
        own = os.path.normpath(self.filename(uri))
        out = []
        found = a.extends_of(state.text)
        extends = found[0] if found else None
        for d in state.diagnostics:
            severity = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
            related = None
            message = d.message
            span = d.span
            if span.file and os.path.normpath(span.file) != own:
                # in a file the variant extends: shown on the variant's `extends`, linked to the place
                related = [t.DiagnosticRelatedInformation(self.location(uri, span), d.message)]
                try:
                    shown = os.path.relpath(span.file, os.path.dirname(own) or ".")
                except ValueError:  # another drive
                    shown = span.file
                message = f"{shown}:{span.line}:{span.column}: {d.message}"
                span = extends or Span()
            if d.hint:
                message += f"\nhint: {d.hint}"
            out.append(t.Diagnostic(range=self.range_of(lines, span), message=message, severity=severity,
                                    source="gamedsl", related_information=related))
        self.text_document_publish_diagnostics(
            t.PublishDiagnosticsParams(uri=uri, diagnostics=out, version=state.version))

    # ---- queries

    def name_at(self, uri: str, position: t.Position):
        state = self.docs.get(uri)
        if state is None or state.index is None:
            return None, None
        lines = self.workspace.get_text_document(uri).source.split("\n")
        line, col = a.from_lsp(lines, position.line, position.character)
        found = state.index.at(line, col)
        return state, found

    def local_at(self, uri: str, position: t.Position):
        """The local name (a parameter, `let`, `for each`...) at a position, or None."""
        state = self.docs.get(uri)
        if state is None or state.index is None:
            return None
        lines = self.workspace.get_text_document(uri).source.split("\n")
        return state.index.local_at(*a.from_lsp(lines, position.line, position.character))

    def base_at(self, uri: str, position: t.Position):
        """On a variant's `extends "FILE"`: the base file, to go to."""
        from ..language.variant import base_name
        state = self.docs.get(uri)
        found = a.extends_of(state.text) if state is not None else None
        if found is None:
            return None
        rng = self.range_of(state.text.split("\n"), found[0])
        if not rng.start <= position <= rng.end:
            return None
        path = os.path.abspath(base_name(self.filename(uri), found[1]))
        return [t.Location(uri=from_fs_path(path) or uri, range=t.Range(t.Position(0, 0), t.Position(0, 0)))]


server = GameServer()


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: GameServer, params: t.DidOpenTextDocumentParams):
    ls.docs[params.text_document.uri] = Document()
    await ls.refresh_newest(params.text_document.uri, params.text_document.version)


PAUSE = 0.02  # a change waits this long for the next one before it is checked (typing: the newest only)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: GameServer, params: t.DidChangeTextDocumentParams):
    await asyncio.sleep(PAUSE)
    await ls.refresh_newest(params.text_document.uri, params.text_document.version)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: GameServer, params: t.DidSaveTextDocumentParams):
    uri = params.text_document.uri  # (checked again: a base file may have changed on disk)
    await ls.refresh_newest(uri, ls.workspace.get_text_document(uri).version)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GameServer, params: t.DidCloseTextDocumentParams):
    ls.docs.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


_SYMBOL_KINDS = {"attribute": t.SymbolKind.Enum, "value": t.SymbolKind.EnumMember, "cards": t.SymbolKind.Array,
                 "value table": t.SymbolKind.Property, "zone": t.SymbolKind.Array, "variable": t.SymbolKind.Variable,
                 "card variable": t.SymbolKind.Field, "parameter": t.SymbolKind.Constant,
                 "option": t.SymbolKind.Constant, "def": t.SymbolKind.Function, "pattern": t.SymbolKind.Struct,
                 "modifier": t.SymbolKind.Interface, "action": t.SymbolKind.Method, "trigger": t.SymbolKind.Event,
                 "invariant": t.SymbolKind.Boolean, "flow": t.SymbolKind.Module, "heuristic": t.SymbolKind.Number}


@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: GameServer, params: t.DocumentSymbolParams):
    state = ls.docs.get(params.text_document.uri)
    if state is None or state.index is None:
        return []
    lines = state.index.model.text.split("\n")  # the text that parsed last, which the spans are of
    entries = describe.outline(state.index.model)

    def symbol(name, kind, span, kids, last_line):
        sel = ls.range_of(lines, span)
        end_line = min(max(last_line, sel.end.line), len(lines) - 1)
        end = max((end_line, a.utf16_len(lines[end_line])), (sel.end.line, sel.end.character))
        rng = t.Range(t.Position(sel.start.line, 0), t.Position(*end))
        children = [symbol(*k, span.line - 1) for k in kids] if kids else None
        return t.DocumentSymbol(name=name or "?", detail=kind, kind=_SYMBOL_KINDS.get(kind, t.SymbolKind.Object),
                                range=rng, selection_range=sel, children=children)

    out = []
    for i, (name, kind, span, kids) in enumerate(entries):
        following = min(entries[i + 1][2].line - 2 if i + 1 < len(entries) else len(lines) - 1, len(lines) - 1)
        while following > span.line - 1 and not lines[following].strip():
            following -= 1  # the blank lines before the next declaration are not this one's
        out.append(symbol(name, kind, span, kids, following))
    return out


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: GameServer, params: t.DefinitionParams):
    local = ls.local_at(params.text_document.uri, params.position)
    if local is not None:
        return [ls.location(params.text_document.uri, local.span)]
    state, found = ls.name_at(params.text_document.uri, params.position)
    if not found:
        return ls.base_at(params.text_document.uri, params.position)
    name, dotted = found
    return [ls.location(params.text_document.uri, d.span) for d in state.index.definitions(name, dotted)]


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
def references(ls: GameServer, params: t.ReferenceParams):
    local = ls.local_at(params.text_document.uri, params.position)
    if local is not None:
        index = ls.docs[params.text_document.uri].index
        spans = [s for s in index.local_references(local) if s != local.span]
        if params.context.include_declaration:
            spans.insert(0, local.span)
        return [ls.location(params.text_document.uri, s) for s in spans]
    state, found = ls.name_at(params.text_document.uri, params.position)
    if not found:
        return None
    name, dotted = found
    uri = params.text_document.uri
    out = []
    if params.context.include_declaration:
        out += [ls.location(uri, d.span) for d in state.index.definitions(name, dotted)]
    out += [ls.location(uri, u.span) for u in state.index.references(name, dotted)]
    return out


@server.feature(t.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: GameServer, params: t.PrepareRenameParams):
    if ls.local_at(params.text_document.uri, params.position) is not None:
        return None
    state, found = ls.name_at(params.text_document.uri, params.position)
    if not found or state.model is None:
        return None
    name, dotted = found
    if not state.index.definitions(name, dotted):
        return None
    problem = a.rename_problem(state.index, name, name)
    if problem:
        raise JsonRpcException(problem, code=t.LSPErrorCodes.RequestFailed)
    for span in [d.span for d in state.index.definitions(name, dotted)] + \
            [u.span for u in state.index.references(name, dotted)]:
        rng = ls.range_of(state.text.split("\n"), span)
        if not span.file and rng.start <= params.position <= rng.end:
            return t.PrepareRenamePlaceholder(range=rng, placeholder=name)
    return None


@server.feature(t.TEXT_DOCUMENT_RENAME)
def rename(ls: GameServer, params: t.RenameParams):
    """Every place the name is written, in this document; refused while the document does not
    check (its index may be of an older text) and when the new name would clash."""
    uri = params.text_document.uri
    local = ls.local_at(uri, params.position)
    if local is not None:
        raise JsonRpcException(f"'{local.name}' here is a name the rule binds for itself ({local.what}): only "
                               "declared names are renamed", code=t.LSPErrorCodes.RequestFailed)
    state, found = ls.name_at(uri, params.position)
    if not found:
        return None
    if state.model is None:
        raise JsonRpcException("the file does not parse: fix its syntax errors first",
                               code=t.LSPErrorCodes.RequestFailed)
    name, dotted = found
    if not state.index.definitions(name, dotted):
        raise JsonRpcException(f"'{name}' here is a name the rule binds for itself: only declared names are renamed",
                               code=t.LSPErrorCodes.RequestFailed)
    problem = a.rename_problem(state.index, name, params.new_name)
    if problem:
        raise JsonRpcException(problem, code=t.LSPErrorCodes.RequestFailed)
    lines = state.text.split("\n")
    spans = {d.span for d in state.index.definitions(name, dotted)} | \
        {u.span for u in state.index.references(name, dotted)}
    edits = [t.TextEdit(range=ls.range_of(lines, span), new_text=params.new_name)
             for span in sorted(spans, key=lambda x: (x.line, x.column)) if not span.file]
    return t.WorkspaceEdit(changes={uri: edits})


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: GameServer, params: t.HoverParams):
    local = ls.local_at(params.text_document.uri, params.position)
    if local is not None:
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown,
                                                value=f"`{local.name}`: {local.what} (line {local.span.line})"))
    state, found = ls.name_at(params.text_document.uri, params.position)
    if state is not None and not found:
        lines = ls.workspace.get_text_document(params.text_document.uri).source.split("\n")
        card = state.index.card_at(*a.from_lsp(lines, params.position.line, params.position.character))
        if card:
            return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=card))
    if not found:
        return None
    name, dotted = found
    decls = state.index.definitions(name, dotted)
    if not decls:
        return None
    text = "\n\n".join(describe.describe(state.index.model, d) for d in decls)
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))


_COMPLETION_KINDS = {"zone": t.CompletionItemKind.Field, "variable": t.CompletionItemKind.Variable,
                     "card variable": t.CompletionItemKind.Field, "parameter": t.CompletionItemKind.Constant,
                     "option": t.CompletionItemKind.Constant, "option value": t.CompletionItemKind.EnumMember,
                     "attribute": t.CompletionItemKind.Enum, "value": t.CompletionItemKind.EnumMember,
                     "value table": t.CompletionItemKind.Property, "def": t.CompletionItemKind.Function,
                     "pattern": t.CompletionItemKind.Struct, "modifier": t.CompletionItemKind.Interface,
                     "action": t.CompletionItemKind.Method, "built-in": t.CompletionItemKind.Function,
                     "keyword": t.CompletionItemKind.Keyword, "local": t.CompletionItemKind.Variable,
                     "snippet": t.CompletionItemKind.Snippet}
_SNIPPET_DETAIL = {label: what for label, what, _ in tokens.SNIPPETS}


@server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["."]))
def completion(ls: GameServer, params: t.CompletionParams):
    uri = params.text_document.uri
    state = ls.docs.get(uri)
    lines = ls.workspace.get_text_document(uri).source.split("\n")
    line, col = a.from_lsp(lines, params.position.line, params.position.character)
    before = lines[line - 1][:col - 1] if line <= len(lines) else ""
    index = state.index if state is not None else None
    items = []
    for name, kind, d in tokens.completions(index, before, line, col):
        if kind == "snippet":
            items.append(t.CompletionItem(label=f"{name} …", kind=t.CompletionItemKind.Snippet, filter_text=name,
                                          detail=_SNIPPET_DETAIL[name], insert_text=d,
                                          insert_text_format=t.InsertTextFormat.Snippet, sort_text="3" + name))
            continue
        if kind == "local":
            items.append(t.CompletionItem(label=name, kind=t.CompletionItemKind.Variable, detail=d.what,
                                          sort_text="0" + name))
            continue
        doc = describe.describe(index.model, d) if d is not None else None
        items.append(t.CompletionItem(
            label=name, kind=_COMPLETION_KINDS.get(kind, t.CompletionItemKind.Text), detail=kind,
            documentation=t.MarkupContent(kind=t.MarkupKind.Markdown, value=doc) if doc else None,
            sort_text=("0" if d is not None else "1" if kind == "built-in" else "2") + name))
    return t.CompletionList(is_incomplete=False, items=items)


@server.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
async def code_action(ls: GameServer, params: t.CodeActionParams):
    """A quick fix for each error of the range that says "did you mean 'X'?", when it is safe
    (fixes.py: the misspelt word only, never a number, only where the text then checks better).
    Each fix is tried by a check, one at a time with the document checks, off the event loop."""
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    lines = text.split("\n")
    wanted = []
    for diagnostic in params.context.diagnostics:
        rng = diagnostic.range
        if diagnostic.source == "gamedsl" and rng.start.line == rng.end.line and "did you mean" in diagnostic.message:
            line, start = a.from_lsp(lines, rng.start.line, rng.start.character)
            _, end = a.from_lsp(lines, rng.end.line, rng.end.character)
            wanted.append((diagnostic, (text, ls.filename(uri), diagnostic.message, line, start, end)))
    if not wanted:
        return []
    async with ls.lock:
        found = await asyncio.to_thread(lambda: [(d, fixes.quick_fix(*args)) for d, args in wanted])
    actions = []
    for diagnostic, fix in found:
        if fix is not None:
            where = t.Range(t.Position(*a.to_lsp(lines, fix.line, fix.column)),
                            t.Position(*a.to_lsp(lines, fix.line, fix.end_column)))
            edit = t.WorkspaceEdit(changes={uri: [t.TextEdit(range=where, new_text=fix.new_text)]})
            actions.append(t.CodeAction(title=fix.title, kind=t.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                                        edit=edit, is_preferred=True))
    return actions


@server.feature(t.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                t.SemanticTokensLegend(token_types=list(tokens.TOKEN_TYPES), token_modifiers=list(tokens.TOKEN_MODIFIERS)))
async def semantic_tokens(ls: GameServer, params: t.SemanticTokensParams):
    """The colours of the document's words; a name's by its kind (from the last text that parsed). An
    editor asks as it opens a file, while its first check runs: the answer waits for that check."""
    uri = params.text_document.uri
    state = ls.docs.get(uri)
    if state is None or state.parsed is None:
        async with ls.lock:
            state = ls.docs.get(uri)
    text = ls.workspace.get_text_document(uri).source
    lines = text.split("\n")
    data: list[int] = []
    last_line = last_col = 0
    for line, column, length, kind, mods in tokens.semantic_tokens(text, state.index if state else None):
        src = lines[line - 1]
        col = a.utf16_len(src[:column - 1])
        size = a.utf16_len(src[column - 1:column - 1 + length])
        delta_line = line - 1 - last_line
        data += [delta_line, col - last_col if delta_line == 0 else col, size, tokens.TOKEN_TYPES.index(kind),
                 sum(1 << tokens.TOKEN_MODIFIERS.index(m) for m in mods)]
        last_line, last_col = line - 1, col
    return t.SemanticTokens(data=data)


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: GameServer, params: t.DocumentFormattingParams):
    """The document in the canonical layout (`gamedsl fmt`), as one edit of the whole text; no edit
    when it is already so, or when it does not parse (its errors are the diagnostics already shown)."""
    from ..errors import SourceError
    from ..language.format import format_source

    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    try:
        formatted = format_source(text, ls.filename(uri))
    except SourceError:
        return []
    if formatted == text:
        return []
    lines = text.split("\n")
    end = t.Position(len(lines) - 1, a.utf16_len(lines[-1]))
    return [t.TextEdit(range=t.Range(t.Position(0, 0), end), new_text=formatted)]


def main() -> int:
    logging.basicConfig(level=logging.WARNING, format="gamedsl lsp: %(message)s")
    server.start_io()
    return 0
