"""Coverage builds and what the design report counts as fired: the normal build's code is
unchanged, a coverage build plays the same games, and what the report says fired is what an
independent count (the normal build's lines traced, with the steps calls they were inlined
through) saw run, steps called without arguments included; bots' thinking does not count."""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.bots import make_bot
from gamedsl.errors import Span
from gamedsl.language import compile_source, context
from gamedsl.language import model as m
from gamedsl.language.build import build
from gamedsl.tools.analysis import observe
from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.game"))
_MARKER = re.compile(r"^\s*_C\[\d+\] = 1$")  # a marker line
_MARKS = re.compile(r"\b_C\[")  # a marker anywhere (a name bound in the code may begin with _C_)
COUNTED = ("statement", "say", "trigger", "steps")  # the elements the markers count


# ---- the two builds

@pytest.fixture
def stable_names(monkeypatch):
    """Names bound in the generated code end with a scope's id(); numbered in order of first use
    instead, two compilations of a text give the same module."""
    numbers: dict = {}
    kept: list = []  # alive, so no id is reused

    def stable_id(obj):
        kept.append(obj)
        return numbers.setdefault(id(obj), len(numbers))
    monkeypatch.setattr(context, "id", stable_id, raising=False)
    monkeypatch.setenv("GAMEDSL_CACHE", "")  # every build compiled here, none from the cache
    return numbers


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_normal_build_is_unchanged_and_the_coverage_build_plays_the_same(path, stable_names):
    text = path.read_text(encoding="utf-8")
    stable_names.clear()
    normal = gamedsl.load_game(path)
    stable_names.clear()
    covered = gamedsl.load_game(path, coverage=True)
    stable_names.clear()
    again, _ = compile_source(text, str(path))  # a normal build after a coverage build: the same code
    assert again.module == normal.prog.module
    assert not normal.prog.coverage and normal.prog.markers == [] and normal.prog.ran is None
    assert not _MARKS.search(normal.prog.module)
    lines = covered.prog.module.splitlines()
    markers = [line for line in lines if _MARKER.match(line)]
    assert markers and covered.prog.coverage and len(covered.prog.ran) == len(covered.prog.markers)
    # every marker line is `_C[k] = 1` alone; what the markers stand for is every statement of the file
    assert not any(_MARKS.search(line) for line in lines if not _MARKER.match(line))
    statements = {st.span for st in m.walk(list(build(text, str(path)).decls))
                  if isinstance(st, m.Stmt) and st.span.line}
    assert statements <= set(covered.prog.markers)
    for seed in range(3):
        digests = []
        for game in (normal, covered):
            rng, state = random.Random(seed), game.new_state(seed=seed)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
            digests.append(state.digest())
        assert digests[0] == digests[1]
    assert sum(covered.prog.ran) > 0


def test_the_two_builds_are_cached_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEDSL_CACHE", str(tmp_path))
    text = (ROOT / "games" / "laus.game").read_text(encoding="utf-8")
    normal, _ = compile_source(text, "laus.game")
    covered, _ = compile_source(text, "laus.game", coverage=True)
    assert len([p for p in tmp_path.iterdir() if p.is_file()]) == 2  # and pieces/
    again, _ = compile_source(text, "laus.game")
    covered_again, _ = compile_source(text, "laus.game", coverage=True)
    assert not again.coverage and again.module == normal.module and not _MARKS.search(again.module)
    assert covered_again.coverage and covered_again.module == covered.module and _MARKS.search(covered.module)
    assert covered.module_name != normal.module_name


# ---- the independent count

class LineTracer:
    """While active, records the lines of one generated module that run (sys.settrace)."""

    def __init__(self, module_name: str, lines: set):
        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local

        def calls(frame, event, arg):
            return local if frame.f_code.co_filename == module_name else None
        self._calls = calls

    def __enter__(self):
        self._before = sys.gettrace()
        sys.settrace(self._calls)

    def __exit__(self, *exc):
        sys.settrace(self._before)


def _within(inner, outer) -> bool:
    return ((outer.line, outer.column) <= (inner.line, inner.column)
            and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column))


def watched(ctx, seed: int, seats: list[str]):
    """The report's record of one game, and the real game's state at its end (its moves in history)."""
    states = []
    real = ctx.game.new_state

    def keeping(*args, **kwargs):
        states.append(real(*args, **kwargs))
        return states[-1]
    ctx.game.new_state = keeping
    try:
        record = observe.watch(ctx, seed, seats)
    finally:
        del ctx.game.new_state
    return record, states[0]


def independent(normal, ctx, seed: int, end) -> set[int]:
    """The statements, triggers and steps that ran in the normal build of the game replayed with the
    moves `end` (a state) was given: a module line that ran counts for every statement whose span
    holds its span or the span of a call it was inlined through; a trigger ran when a line of its
    body's own span did (not its condition); steps ran when a line inlined through a call of them did."""
    prog, lines = normal.prog, set()
    with LineTracer(prog.module_name, lines):
        state = normal.new_state(players=ctx.players, seed=seed, options=ctx.options)
    for move in end.history:
        with LineTracer(prog.module_name, lines):
            state.apply_action(move)
    assert state.digest() == end.digest()  # the same game
    spans = {prog.spans[n - 1] for n in lines}
    calls = {call for n in lines for call in prog.via[n - 1]}
    spans |= {span for _, span in calls}
    called = {name for name, _ in calls}
    spans.discard(Span())
    model = build(prog.text, prog.filename)
    return {ctx.elements.by_span[node.span] for node in m.walk(list(model.decls)) if _ran(node, spans, called)}


def _ran(node, spans: set, called: set) -> bool:
    if isinstance(node, m.Stmt):
        return bool(node.span.line) and any(_within(s, node.span) for s in spans)
    if isinstance(node, m.TriggerDecl):
        return node.span in spans
    return isinstance(node, m.StepsDecl) and node.name in called


# (game, players, bot, seeds): games where Law's unchoose() and shuffle_back() and Mad King's
# draw_and_place() are called, each without arguments
PLAYS = [("laus", 3, "greedy", (0, 1, 2)), ("lol", 2, "greedy", (0, 1)), ("lol", 3, "random", (0, 1, 2)),
         ("crazy_eights", 2, "greedy", (0, 1, 2)), ("mad_king", 2, "random", (0, 4)), ("mad_king", 3, "greedy", (0,)),
         ("law", 2, "random", (2, 4)), ("law", 2, "greedy", (1, 3))]


@pytest.mark.parametrize("name, players, bot, seeds", PLAYS, ids=lambda x: str(x))
def test_what_the_report_says_fired_is_what_an_independent_count_saw_run(name, players, bot, seeds):
    path = ROOT / "games" / f"{name}.game"
    text = path.read_text(encoding="utf-8")
    ctx = observe.Context(text, str(path), players, {})
    normal = gamedsl.load_source(text, str(path))
    els = ctx.elements.elements
    counted = {e for e, el in enumerate(els) if el.kind in COUNTED}
    fired_anywhere = set()
    for seed in seeds:
        record, end = watched(ctx, seed, [bot] * players)
        assert len(end.history) == record["moves"]
        report = set(record["fired"])
        seen = independent(normal, ctx, seed, end)
        never = counted - report
        ran_but_never = sorted(els[e].where(name) + f" {els[e].text}" for e in never & seen)
        fired_not_ran = sorted(els[e].where(name) + f" {els[e].text}" for e in (report & counted) - seen)
        assert not ran_but_never and not fired_not_ran, (seed, ran_but_never, fired_not_ran)
        fired_anywhere |= report
    steps = {els[e].name for e in fired_anywhere if els[e].kind == "steps"}
    if name == "law":  # calls of steps without arguments, in the games above
        assert {"unchoose", "shuffle_back"} <= steps
        assert _calls(els, "unchoose()") & fired_anywhere and _calls(els, "shuffle_back()") & fired_anywhere
    if name == "mad_king":
        assert "draw_and_place" in steps
        places = _calls(els, "draw_and_place()")
        assert len(places) == 2 and places <= fired_anywhere


def _calls(els, call: str) -> set[int]:
    """The elements of the statements that are this call (each on a line of its own)."""
    return {e for e, el in enumerate(els) if el.name == "call" and el.text.startswith(call)}


# ---- on a tiny game

TINY = '''game "Tiny"
players 2
attribute rank: 1, 2, 3, 4, 5, 6
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
var pts per player = 0
var tidied = 0
var laps = 0
def tidy() { tidied += 1 }
def bump() { me.pts += 1 }
action good { me.pts += 10  bump() }
action bad { say "only thought of"  bump() }
on move c from deck to p.hand { tidy() }
setup { shuffle deck  deal 1 from deck to hand }
round {
  for each p in players { turn p { choose good, bad } }
  laps += 1
  if count(table) > 5 { say "never"  tidy() }
}
end game when laps == 2
heuristic me.pts
'''


def _element(ctx, kind: str, line: int, text: str | None = None) -> int:
    found = [e for e, el in enumerate(ctx.elements.elements)
             if el.kind == kind and el.line == line and (text is None or el.name == text)]
    assert len(found) == 1, (kind, line, found)
    return found[0]


def test_on_a_tiny_game_calls_without_arguments_and_triggers_fire_and_thinking_does_not_count():
    ctx = observe.Context(TINY, "tiny.game", 2, {})
    record, _ = watched(ctx, 1, ["greedy", "greedy"])
    fired = set(record["fired"])
    line = {text: n for n, text in enumerate(TINY.splitlines(), 1)}

    def call(n: int) -> int:
        return _element(ctx, "statement", n, "call")
    # the trigger's only statement is tidy(): the trigger, the call, the steps and its body fire
    trigger_line = line["on move c from deck to p.hand { tidy() }"]
    assert {_element(ctx, "trigger", trigger_line), call(trigger_line),
            _element(ctx, "steps", line["def tidy() { tidied += 1 }"]),
            _element(ctx, "statement", line["def tidy() { tidied += 1 }"], "assign")} <= fired
    # tidy() is called in two places: the one in the 'if' that never holds never fires
    never_line = line['  if count(table) > 5 { say "never"  tidy() }']
    assert call(never_line) not in fired and _element(ctx, "say", never_line) not in fired
    assert _element(ctx, "statement", never_line, "if") in fired  # its condition was tested
    # greedy plays 'good' (10 points) and only tries 'bad' in its lookahead: that never counts
    bad_line = line['action bad { say "only thought of"  bump() }']
    assert _element(ctx, "action", bad_line) not in fired and _element(ctx, "say", bad_line) not in fired
    assert call(bad_line) not in fired and call(line["action good { me.pts += 10  bump() }"]) in fired
    assert _element(ctx, "steps", line["def bump() { me.pts += 1 }"]) in fired
    # ...although the bot's thinking did run it: its marker is set while greedy chooses
    state = ctx.game.new_state(players=2, seed=1)
    prog = ctx.game.prog
    prog.ran[:] = bytes(len(prog.ran))
    make_bot("greedy", 5).choose(state)
    column = TINY.splitlines()[bad_line - 1].index("say") + 1
    say_bad = next(k for k, span in enumerate(prog.markers) if (span.line, span.column) == (bad_line, column))
    assert prog.ran[say_bad] == 1


def test_the_report_lists_the_rules_that_never_fire(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tiny.game").write_text(TINY, encoding="utf-8")
    assert main(["analyze", "tiny.game", "--games", "4", "--skill-games", "1", "--jobs", "1", "--json"]) == 0
    cov = json.loads(capsys.readouterr().out)["versions"][0]["metrics"]["coverage"]
    never = {(e["kind"], e["name"], e["where"]) for e in cov["never"]}

    def where(line: str, part: str) -> str:
        n = TINY.splitlines().index(line)
        return f"tiny.game:{n + 1}:{TINY.splitlines()[n].index(part) + 1}"
    no_table = '  if count(table) > 5 { say "never"  tidy() }'
    bad = 'action bad { say "only thought of"  bump() }'
    # the 'if' whose condition never holds, and the action greedy never plays (only tries, thinking)
    assert never == {("say", "say", where(no_table, "say")), ("statement", "call", where(no_table, "tidy")),
                     ("action", "bad", where(bad, "bad")), ("say", "say", where(bad, "say")),
                     ("statement", "call", where(bad, "bump"))}
