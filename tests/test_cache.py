"""The cache of compiled games: a game seen before loads from it; a stale or corrupt entry is
ignored and written anew, never trusted; an empty GAMEDSL_CACHE turns it off."""
import os
from pathlib import Path

import pytest

import gamedsl
from gamedsl.language import cache, compiler
from test_cli import DRY, DRY_ERROR

ROOT = Path(__file__).resolve().parent.parent
LAUS = (ROOT / "games" / "laus.game").read_text(encoding="utf-8")


def entries(store) -> list:
    """The cache's entries (its pieces/ folder holds the compiled pieces of each file's last compile)."""
    return [p for p in store.iterdir() if p.is_file()]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEDSL_CACHE", str(tmp_path))
    return tmp_path


def compiled_now(monkeypatch) -> list:
    """Counts the games compiled from their text (not taken from the cache) from now on."""
    seen = []
    real = compiler.compile_model

    def counting(model):
        seen.append(model.filename)
        return real(model)
    monkeypatch.setattr(compiler, "compile_model", counting)
    return seen


def play(game, seed=3):
    state = game.new_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(min(state.legal_actions()))
    return state.digest()


def test_a_game_seen_before_comes_from_the_cache_and_plays_the_same(store, monkeypatch):
    compiled = compiled_now(monkeypatch)
    first = gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game"] and len(entries(store)) == 1
    again = gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game"]  # not compiled again
    assert again.prog is not first.prog
    assert play(again) == play(first)


def test_another_text_or_file_name_is_another_entry(store, monkeypatch):
    compiled = compiled_now(monkeypatch)
    gamedsl.load_source(LAUS, "laus.game")
    gamedsl.load_source(LAUS.replace('game "Laus"', 'game "Laus 2"'), "laus.game")
    gamedsl.load_source(LAUS, "copy.game")
    assert compiled == ["laus.game", "laus.game", "copy.game"]
    assert len(entries(store)) == 3


@pytest.mark.parametrize("damage", [
    lambda data: data[:len(data) // 2],                        # cut short
    lambda data: data[:200] + bytes([data[200] ^ 1]) + data[201:],  # one bit flipped
    lambda data: b"0" * 64 + data[64:],                        # under another key
    lambda data: b"",                                          # empty
])
def test_a_damaged_entry_is_ignored_and_written_anew(store, monkeypatch, damage):
    gamedsl.load_source(LAUS, "laus.game")
    (entry,) = entries(store)
    entry.write_bytes(damage(entry.read_bytes()))
    compiled = compiled_now(monkeypatch)
    game = gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game"]  # compiled again, and the entry written anew:
    again = gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game"]
    assert play(game) == play(again)


def test_an_entry_of_another_gamedsl_is_not_used(store, monkeypatch):
    gamedsl.load_source(LAUS, "laus.game")
    monkeypatch.setattr(cache, "_fingerprint", "another gamedsl")
    compiled = compiled_now(monkeypatch)
    gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game"]
    assert len(entries(store)) == 2


def test_errors_are_never_cached(store):
    bad = LAUS.replace("zone hand", "zone hand hand")
    for _ in range(2):
        with pytest.raises(gamedsl.SourceError):
            gamedsl.load_source(bad, "laus.game")
    assert entries(store) == []


def test_an_empty_setting_turns_the_cache_off(monkeypatch, tmp_path):
    monkeypatch.setenv("GAMEDSL_CACHE", "")
    compiled = compiled_now(monkeypatch)
    gamedsl.load_source(LAUS, "laus.game")
    gamedsl.load_source(LAUS, "laus.game")
    assert compiled == ["laus.game", "laus.game"]


def test_a_cache_that_cannot_be_written_is_skipped(monkeypatch, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("GAMEDSL_CACHE", str(blocked / "cache"))
    assert play(gamedsl.load_source(LAUS, "laus.game")) == play(gamedsl.load_source(LAUS, "laus.game"))


def test_a_located_error_from_a_cached_game_points_at_its_line(store):
    for _ in range(2):  # compiled, then cached
        state = gamedsl.load_source(DRY, "dry.game").new_state(seed=1)
        with pytest.raises(gamedsl.GameRuntimeError) as info:
            for _ in range(4):
                state.apply_action(state.legal_actions()[0])
        assert str(info.value).splitlines() == DRY_ERROR


def test_it_keeps_the_games_used_last(store, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 2)
    texts = [LAUS.replace('game "Laus"', f'game "Laus {i}"') for i in range(3)]
    gamedsl.load_source(texts[0], "laus.game")
    gamedsl.load_source(texts[1], "laus.game")
    first = cache.key(texts[0], "laus.game")
    then = (store / first).stat().st_mtime - 10
    os.utime(store / cache.key(texts[1], "laus.game"), (then, then))  # used before the first
    gamedsl.load_source(texts[2], "laus.game")
    assert sorted(e.name for e in entries(store)) == sorted([first, cache.key(texts[2], "laus.game")])


def test_after_an_edit_to_one_rule_only_its_functions_are_compiled_again(store, monkeypatch):
    # The module's pieces (one per top-level function) whose text did not change are reused from
    # the file's last compile; a game so loaded plays as one compiled from nothing.
    from gamedsl.language import codegen
    law = (ROOT / "games" / "law.game").read_text(encoding="utf-8")
    rule = 'action onto_discard2 "onto discard pile 2" if me.piles >= 2 '
    assert rule in law
    edited = law.replace(rule, rule.replace(">= 2", ">= 3"))
    first = gamedsl.load_source(law, "law.game")
    pieces = len(first.prog.module.split("\ndef "))
    compiled = []
    real = compile

    def counting(text, *args):
        compiled.append(text)
        return real(text, *args)
    monkeypatch.setattr(codegen, "compile", counting, raising=False)
    again = gamedsl.load_source(edited, "law.game")
    assert pieces > 500 and 1 <= len(compiled) <= 3 and all(">= 3" in text for text in compiled)
    monkeypatch.setenv("GAMEDSL_CACHE", "")
    cold = gamedsl.load_source(edited, "law.game")
    assert len(compiled) > 500
    assert play(again, seed=5) == play(cold, seed=5)


def _shape(tree):
    """A parse tree as plain values, every node's and token's position included."""
    import lark
    if isinstance(tree, lark.Token):
        return (tree.type, str(tree), tree.line, tree.column, tree.end_line, tree.end_column)
    if tree is None:
        return None
    m = tree.meta
    return (tree.data, None if m.empty else (m.line, m.column, m.end_line, m.end_column),
            tuple(_shape(c) for c in tree.children))


@pytest.mark.parametrize("path", sorted((ROOT / "games").glob("*.game")) + sorted((ROOT / "tests").rglob("*.game")),
                         ids=lambda p: p.name)
def test_a_file_parsed_declaration_by_declaration_is_the_whole_files_tree(store, path):
    # syntax.parse cuts the file into its declarations and keeps their trees (cache.trees): the tree,
    # parsed so and then read back from the cache, is the one a parse of the whole file gives.
    from gamedsl.language import syntax
    text = path.read_text(encoding="utf-8")
    whole = _shape(syntax.parser().parse(text, start="start"))
    assert _shape(syntax.parse(text, str(path))) == whole
    assert cache.trees(str(path))  # kept
    assert _shape(syntax.parse(text, str(path))) == whole  # from the cache


def test_after_an_edit_to_one_rule_only_its_declaration_is_parsed_again(store, monkeypatch):
    from gamedsl.language import syntax
    law = (ROOT / "games" / "law.game").read_text(encoding="utf-8")
    rule = 'action onto_discard2 "onto discard pile 2" if me.piles >= 2 '
    syntax.parse(law, "law.game")
    parsed = []
    real = syntax.parser()

    class Counting:
        def parse(self, text, start):
            parsed.append(text.lstrip("\n"))
            return real.parse(text, start=start)
    monkeypatch.setattr(syntax, "parser", lambda: Counting())
    edited = law.replace(rule, rule.replace(">= 2", ">= 3"))
    tree = syntax.parse(edited, "law.game")
    assert len(parsed) == 1 and parsed[0].startswith('action onto_discard2 "onto discard pile 2" if me.piles >= 3')
    assert _shape(tree) == _shape(real.parse(edited, start="start"))


def test_the_parser_read_back_from_the_cache_keeps_the_trees_of_declarations_too(store, monkeypatch):
    # A parser Lark makes from the grammar (not from its own cache: the first run after an upgrade)
    # names its rules by tokens, and so does gamedsl's copy of it read back later; the trees' cache
    # could not store them (marshal): every check parsed the whole file again, in the language server
    # as at the terminal
    import lark
    from gamedsl.language import syntax
    made_by_lark = lark.Lark.__init__

    def from_the_grammar(self, *args, **kwargs):
        made_by_lark(self, *args, **{**kwargs, "cache": False})
    monkeypatch.setattr(lark.Lark, "__init__", from_the_grammar)
    syntax.parser.__wrapped__()  # made, and kept
    back = syntax.parser.__wrapped__()  # read back, as a new process would
    monkeypatch.setattr(syntax, "parser", lambda: back)
    law = (ROOT / "games" / "law.game").read_text(encoding="utf-8")
    syntax.parse(law, "law.game")
    assert len(cache.trees("law.game")) == len(syntax.declarations(law))


def _error(parser, text):
    """What a parser says of a text: its tree's shape, or the error's kind, place and expected tokens."""
    import lark
    try:
        return _shape(parser.parse(text, start="start"))
    except lark.exceptions.UnexpectedInput as err:
        return type(err).__name__, err.line, err.column, sorted(getattr(err, "expected", None) or ())


def test_the_parser_read_back_from_the_cache_parses_as_larks_own(store, monkeypatch):
    # syntax.parser keeps the parser Lark made, pickled (parser/), and later reads it back instead of
    # having Lark make it again from its own cache: the copy gives every file the same tree, positions
    # included, every broken file the same error, and the formatter the same tokens.
    import lark
    from gamedsl.language import syntax
    made = syntax.parser.__wrapped__()
    assert len(list((store / "parser").iterdir())) == 1

    def not_again(*args, **kwargs):
        raise AssertionError("made by Lark again")
    monkeypatch.setattr(lark.Lark, "__init__", not_again)
    back = syntax.parser.__wrapped__()
    assert isinstance(back, lark.Lark) and back is not made
    for path in sorted((ROOT / "games").glob("*.game")) + sorted((ROOT / "tests").rglob("*.game")):
        text = path.read_text(encoding="utf-8")
        assert _error(back, text) == _error(made, text), path
        for cut in range(len(text) // 5, len(text), len(text) // 5):  # broken: cut short, or a word too many
            for broken in (text[:cut], text[:cut] + " zone " + text[cut:]):
                assert _error(back, broken) == _error(made, broken), (path, cut)
        assert [(t.type, t.value, t.line, t.column) for t in back.lex(text, dont_ignore=True)] == \
               [(t.type, t.value, t.line, t.column) for t in made.lex(text, dont_ignore=True)]
    assert _shape(back.parse("1 + p.score", start="expr")) == _shape(made.parse("1 + p.score", start="expr"))


def test_a_damaged_parser_is_made_again_and_without_a_cache_none_is_kept(store, monkeypatch):
    from gamedsl.language import syntax
    syntax.parser.__wrapped__()
    (kept,) = (store / "parser").iterdir()
    data = kept.read_bytes()
    damaged = data[:100] + bytes([data[100] ^ 1]) + data[101:]
    kept.write_bytes(damaged)
    assert syntax.parser.__wrapped__().parse(LAUS, start="start")
    assert kept.read_bytes() != damaged and cache._payload(kept) is not None  # made by Lark, and kept anew
    monkeypatch.setenv("GAMEDSL_CACHE", "")
    assert syntax.parser.__wrapped__().parse(LAUS, start="start")
