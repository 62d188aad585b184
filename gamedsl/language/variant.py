"""Variant files: a game file that starts from another (`extends "law.game"`) and changes it by name.

A declaration of the variant replaces every declaration of its base with the same kind and name,
in the base's place (so the order of cards, actions and triggers is kept); one the base has not
got is added after the base's. A declaration's name is its own name (option, attribute, value,
zone, var, param, def, action, modifier, pattern), the text in quotes of an invariant or a
labelled trigger; the game's name, players, limit, heuristic, back, `end game when`, setup,
round and outcome are one each and replaced whole, and so are the card lists: a variant's
`cards` declarations replace all of the base's. An unlabelled trigger has no name: it is added.
`remove KIND NAME` (or `remove KIND` for one of a kind) takes a declaration away.

The base's model keeps its own spans, marked with its file name (Span.file), so that every
error is shown in the file that made it. A base can itself be a variant.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import attrs

from ..errors import Diagnostic, SourceError, Span, did_you_mean
from . import model as m

# Declarations known by their name, and the word a `remove` names their kind with.
_NAMED = {m.OptionDecl: "option", m.OptionChoiceDecl: "option", m.AttributeDecl: "attribute", m.ValueDecl: "value",
          m.ZoneDecl: "zone", m.VarDecl: "var", m.ParamDecl: "param", m.DefDecl: "def", m.StepsDecl: "def",
          m.ActionDecl: "action", m.ModifierDecl: "modifier", m.PatternDecl: "pattern",
          m.InvariantDecl: "invariant", m.TriggerDecl: "trigger"}
# Declarations a game has one of (the card lists count as one), replaced whole.
_WHOLE = {m.GameName: "game", m.PlayersDecl: "players", m.LimitDecl: "limit", m.Heuristic: "heuristic",
          m.BackDecl: "back", m.EndWhen: "end game when", m.CardsDecl: "cards"}
NAMED_KINDS = ("option", "attribute", "value", "zone", "var", "param", "def", "action", "modifier", "pattern",
               "invariant", "trigger")
WHOLE_KINDS = ("setup", "round", "outcome", "heuristic", "limit", "back", "cards")
_QUOTED = ("invariant", "trigger")  # named by a text in quotes

_EXTENDS = re.compile(r'(?<![\w.])extends\s+"([^"\n]*)"')
_STRING_OR_COMMENT = re.compile(r'"[^"\n]*"|#[^\n]*')


def base_name(filename: str, written: str) -> str:
    """The file a variant's `extends "PATH"` names: PATH relative to the variant's folder."""
    folder = "" if filename.startswith("<") else os.path.dirname(filename)
    return os.path.normpath(os.path.join(folder, written))


def bases(text: str, filename: str) -> dict:
    """The files a game's text extends, nearest first: name -> text (None: unreadable). A quick scan
    without the parser, for the compile cache's key and a log's fingerprint of the game."""
    found: dict = {}
    seen = {os.path.realpath(filename)}
    while (match := _EXTENDS.search(_STRING_OR_COMMENT.sub(_blank_comment, text))) is not None:
        name = base_name(filename, match.group(1))
        if os.path.realpath(name) in seen:
            break
        seen.add(os.path.realpath(name))
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            found[name] = None
            break
        found[name], filename = text, name
    return found


def _blank_comment(match) -> str:
    """A comment as spaces (a string is kept: it may be the path of an `extends`)."""
    word = match.group(0)
    return word if word.startswith('"') else " " * len(word)


def key(d) -> tuple | None:
    """What a declaration is known by in a variant: (kind, name), or None (added, never replaced)."""
    if isinstance(d, m.FlowBlock):
        return (d.kind, None)
    if type(d) in _WHOLE:
        return (_WHOLE[type(d)], None)
    kind = _NAMED.get(type(d))
    if kind == "trigger":
        return (kind, d.label) if d.label else None
    return (kind, d.name) if kind else None


def extend(gm: m.GameModel, build, files: dict | None, chain: tuple) -> m.GameModel:
    """The model of a file: a variant's merged with its base's (built by `build`), else `gm` as it is.
    `files`: texts to use instead of reading them (name -> text); `chain`: the files extending this one."""
    extends, removes = gm.of(m.ExtendsDecl), gm.of(m.RemoveDecl)
    if not extends:
        if removes:
            _fail(gm, [Diagnostic("'remove' takes away a declaration of the game a variant extends, and this "
                                  "file extends none", removes[0].span,
                                  "start a variant with 'extends \"BASE.game\"'")])
        return gm
    if len(extends) > 1:
        _fail(gm, [Diagnostic("a variant extends one game; this is a second 'extends'", extends[1].span)])
    ext = extends[0]
    name = base_name(gm.filename, ext.path)
    chain = (*chain, gm.filename)
    looped = [f for f in chain if _same_file(f, name)]
    if looped:
        trail = " -> ".join(os.path.basename(f) for f in (*chain[chain.index(looped[0]):], name))
        _fail(gm, [Diagnostic(f"the files extend each other in a circle: {trail}", ext.span,
                              "a base cannot extend its variant")])
    text = _read(gm, ext, name, files)
    base = build(text, name, files, chain)
    base_decls = tuple(_marked(d, name) for d in base.decls)
    decls = _merge(gm, ext, base_decls)
    removed = tuple((r.name, r.span) for r in gm.of(m.RemoveDecl) if r.name) + _marked(base.removed, name)
    return m.GameModel(filename=gm.filename, text=gm.text, decls=decls, sources=((name, text), *base.sources),
                       removed=removed)


def _same_file(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _read(gm: m.GameModel, ext: m.ExtendsDecl, name: str, files: dict | None) -> str:
    if files is not None and files.get(name) is not None:
        return files[name]
    try:
        return Path(name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except OSError as exc:
        reason = exc.strerror.lower() if exc.strerror else str(exc)
    folder = os.path.dirname(name) or "."
    try:
        near = [f for f in os.listdir(folder) if f.endswith(".game")]
    except OSError:
        near = []
    hint = did_you_mean(os.path.basename(name), near)
    _fail(gm, [Diagnostic(f"cannot read the game this file extends, '{name}': {reason}", ext.span,
                          hint or "the path is relative to this file's folder")])


def _marked(x, file: str):
    """A base's model node with every span not yet in a file marked as in `file`."""
    if isinstance(x, Span):
        return x if x.file else attrs.evolve(x, file=file)
    if isinstance(x, tuple):
        return tuple(_marked(y, file) for y in x)
    if isinstance(x, list):
        return [_marked(y, file) for y in x]
    if attrs.has(type(x)):
        return attrs.evolve(x, **{f.name: _marked(getattr(x, f.name), file) for f in attrs.fields(type(x))})
    return x


def _merge(gm: m.GameModel, ext: m.ExtendsDecl, base: tuple) -> tuple:
    """The base's declarations with the variant's in place of those of the same kind and name, the
    removed ones gone and the new ones after them."""
    own = [d for d in gm.decls if not isinstance(d, (m.ExtendsDecl, m.RemoveDecl))]
    in_base: dict = {}
    for d in base:
        if key(d) is not None:
            in_base.setdefault(key(d), d)
    errors = _removals(gm, ext, in_base, {key(d) for d in own})
    errors += _new_options(ext, own, in_base)
    if errors:
        _fail(gm, errors)
    replacing: dict = {}
    added = []
    for d in own:
        k = key(d)
        if k is not None and k in in_base:
            replacing.setdefault(k, []).append(_inherit(d, in_base[k]))
        else:
            added.append(d)
    gone = {(r.kind, r.name) for r in gm.of(m.RemoveDecl)}
    redeclared = {key(d) for d in own} - {None}
    out = []
    for d in base:
        k = key(d)
        if k in gone:
            continue
        if k in replacing:
            out.extend(replacing.pop(k))  # at the place of the first of the base's
        elif k not in redeclared:
            out.append(d)
    return tuple(out + added)


def _inherit(d, old):
    """A redeclared option with no description keeps the base's."""
    if isinstance(d, (m.OptionDecl, m.OptionChoiceDecl)) and d.doc is None and getattr(old, "doc", None):
        return attrs.evolve(d, doc=old.doc)
    return d


def _removals(gm: m.GameModel, ext: m.ExtendsDecl, in_base: dict, declared: set) -> list[Diagnostic]:
    """The mistakes of the variant's `remove` declarations."""
    errors = []
    for r in gm.of(m.RemoveDecl):
        k = (r.kind, r.name)
        if r.kind not in NAMED_KINDS and r.kind not in WHOLE_KINDS:
            errors.append(Diagnostic(f"'{r.kind}' is not something a variant can remove", r.span,
                                     did_you_mean(r.kind, NAMED_KINDS + WHOLE_KINDS) or
                                     "remove one of: " + ", ".join(NAMED_KINDS + WHOLE_KINDS)))
        elif r.kind in NAMED_KINDS and r.name is None:
            what = '"TEXT"' if r.kind in _QUOTED else "NAME"
            errors.append(Diagnostic(f"say which {r.kind} to remove: 'remove {r.kind} {what}'", r.span))
        elif r.kind in WHOLE_KINDS and r.name is not None:
            errors.append(Diagnostic(f"'remove {r.kind}' takes no name: a game has one", r.name_span))
        elif k not in in_base:
            names = [n for kind, n in in_base if kind == r.kind and n]
            where = r.name_span if r.name is not None else r.span
            what = f"{r.kind} '{r.name}'" if r.name is not None else r.kind
            errors.append(Diagnostic(f"{ext.path} has no {what} to remove", where,
                                     did_you_mean(r.name, names) if r.name is not None else None))
        elif k in declared:
            errors.append(Diagnostic(f"this file declares {r.kind} '{r.name}' again: a declaration replaces the "
                                     "base's without a 'remove'" if r.name else
                                     f"this file declares a {r.kind} again: it replaces the base's without a "
                                     "'remove'", r.span))
    return errors


def _new_options(ext: m.ExtendsDecl, own: list, in_base: dict) -> list[Diagnostic]:
    """A variant changes its base's options and adds none, so that the two are played with the same
    options (`analyze --compare`): an option the base has not got is a mistake."""
    names = [n for kind, n in in_base if kind == "option"]
    return [Diagnostic(f"{ext.path} has no option '{d.name}': a variant changes the options of its base",
                       d.span, did_you_mean(d.name, names))
            for d in own if key(d) is not None and key(d)[0] == "option" and key(d) not in in_base]


def _fail(gm: m.GameModel, diagnostics: list[Diagnostic]):
    raise SourceError(gm.filename, gm.text, diagnostics)
