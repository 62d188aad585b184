"""Fuzz tests for the promise gamedsl makes about ANY input file.

A .game file, a scenario (YAML) or a game log (JSON lines) is either accepted, or rejected with
gamedsl's own located error -- never any other exception, never a hang:

* .game files: gamedsl.SourceError, whose diagnostics have spans (line >= 1 unless the problem is
  the whole file); a game that loads may still fail while it runs, with a GamedslError subclass
  (GameRuntimeError ...), but nothing else;
* scenarios: run_scenario returns Failure objects (path, line >= 0, message), it never raises;
* logs: `gamedsl replay` and `gamedsl play --resume` exit with 0 or 1, and with 1 print an error line.

Every example runs in a forked child (see `isolated`), with a memory cap, a CPU-time limit and a
wall-clock backstop, so that a hang -- even one inside C code, such as a huge `**` -- is reported
as a failure and never stops the run. In the child GAMEDSL_TRACEBACK=1 is set, so the CLI re-raises
an internal error instead of printing "internal error". An unexpected exception is re-raised in
the parent as an `EngineBug_<type>_at_<file:line>` error carrying the child's traceback, so that
hypothesis reports distinct bugs separately.

Besides the properties, fixed inputs that once broke the promise (PATHOLOGICAL sources, ODD_SCENARIOS,
ODD_LOGS ...) run as parametrized tests, so each shows up on its own.

Environment:
  GAMEDSL_FUZZ_EXAMPLES=N   run N examples per property (a deep run) and shrink failing examples
  GAMEDSL_FUZZ_SHRINK=1     shrink failing examples even with the default (CI) number of examples
  GAMEDSL_FUZZ_SEED=N       the seed of the run (0 by default, so CI is repeatable; failures name it)
In the default (CI) setting failing examples are not shrunk, so a failing test stops at its first
failure and stays bounded in time; the failure message holds the whole input.
"""
from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import pickle
import re
import select
import shutil
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

import lark
import pytest
import yaml
from hypothesis import HealthCheck, Phase, event, given, note, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.extra.lark import LarkStrategy, from_lark
from lark.grammar import NonTerminal

import gamedsl
from gamedsl import GamedslError, GameRuntimeError, SourceError
from gamedsl.language import syntax
from gamedsl.tools.scenario import Failure, run_scenario

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux
    resource = None

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fuzz tests run each example in a forked child")

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "games").glob("*.game"))
LAUS = ROOT / "games" / "laus.game"
SCENARIOS = sorted((ROOT / "tests" / "scenarios" / "laus").glob("*.yaml"))

# ---- how much to run -------------------------------------------------------------------------

_DEEP = os.environ.get("GAMEDSL_FUZZ_EXAMPLES")
_SHRINK = bool(_DEEP) or os.environ.get("GAMEDSL_FUZZ_SHRINK", "") not in ("", "0")
SEED = int(os.environ.get("GAMEDSL_FUZZ_SEED") or 0)  # fixed, so CI is repeatable; set it to explore further


def fuzz_settings(examples: int, deadline_ms: int | None = 3000):
    """Settings (and the run's seed) for one property: `examples` in CI, GAMEDSL_FUZZ_EXAMPLES in a deep run."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    if _SHRINK:
        phases.append(Phase.shrink)
    configured = settings(
        max_examples=int(_DEEP) if _DEEP else examples,
        deadline=deadline_ms,
        phases=phases,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.large_base_example, HealthCheck.filter_too_much],
        print_blob=True,
    )

    def apply(test):
        return configured(seed(SEED)(test))
    return apply


# A child that runs longer than this is hung (the engine's own loop detection takes ~0.1 s).
HANG_SECONDS = float(os.environ.get("GAMEDSL_FUZZ_HANG_SECONDS", "6"))
# Memory a child may take beyond what it has when forked.
MEMORY_BYTES = 1_500_000_000
# After this many rules expanded in one generated string, the shortest expansions are taken.
RULE_BUDGET = 20
# Moves played in a game that loads.
MOVE_CAP = 200


# ---- running one example in a forked child --------------------------------------------------

_BUG_TYPES: dict[str, type] = {}


def _bug(kind: str, message: str) -> AssertionError:
    """An AssertionError whose class is named after the kind of bug, so hypothesis tells bugs apart."""
    name = "EngineBug_" + re.sub(r"\W", "_", kind)
    cls = _BUG_TYPES.setdefault(name, type(name, (AssertionError,), {}))
    return cls(f"{message}\n(GAMEDSL_FUZZ_SEED={SEED} repeats this run)")


def _vm_size() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _origin(exc: BaseException) -> str:
    """Where an exception was raised, as `file:line`, innermost frame of gamedsl if there is one."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/gamedsl/" in f.filename.replace("\\", "/")]
    f = (ours or frames or [None])[-1]
    return f"{Path(f.filename).name}:{f.lineno}" if f else "?"


def _short_traceback(exc: BaseException) -> str:
    """The head and the tail of a traceback (a RecursionError's is thousands of lines)."""
    lines = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).splitlines()
    if len(lines) > 40:
        lines = lines[:8] + [f"    ... {len(lines) - 38} lines ..."] + lines[-30:]
    return "\n".join(lines)


def _child(fn, args, write_fd: int, memory: int, cpu: float):
    result: tuple
    try:
        if resource is not None:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = _vm_size() + memory
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            used = resource.getrusage(resource.RUSAGE_SELF)
            seconds = int(used.ru_utime + used.ru_stime + cpu) + 1
            soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            if hard == resource.RLIM_INFINITY or seconds < hard:
                resource.setrlimit(resource.RLIMIT_CPU, (seconds, hard))
        os.environ["GAMEDSL_TRACEBACK"] = "1"  # the CLI re-raises internal errors instead of hiding them
        result = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        kind = f"{type(exc).__name__}" if isinstance(exc, AssertionError) else \
            f"{type(exc).__name__}_at_{_origin(exc)}"
        result = ("raised", kind, f"{type(exc).__name__}: {str(exc)[:3000]}", _short_traceback(exc))
    try:
        data = pickle.dumps(result)
    except Exception as exc:  # noqa: BLE001
        data = pickle.dumps(("raised", "Unpicklable", repr(exc), ""))
    view = memoryview(data)
    while view:
        n = os.write(write_fd, view)
        view = view[n:]


def start_isolated(fn, *args, memory: int = MEMORY_BYTES, cpu: float = HANG_SECONDS) -> tuple[int, int]:
    """Fork a child that runs fn(*args) with at most `memory` more bytes and `cpu` seconds of CPU.

    Returns (pid, fd to read its pickled result from).
    """
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            os.close(read_fd)
            _child(fn, args, write_fd, memory, cpu)
        except BaseException:  # noqa: BLE001
            code = 3
        finally:
            os._exit(code)
    os.close(write_fd)
    return pid, read_fd


def finish_isolated(handle: tuple[int, int], deadline: float, timeout: float, what: str):
    """The result of a child started by start_isolated; kills it at `deadline` (time.monotonic())."""
    pid, read_fd = handle
    chunks = []
    hung = False
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([read_fd], [], [], max(0.0, left))
            if not ready:
                if left <= 0:
                    hung = True
                    break
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if hung:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(read_fd)
    if hung:
        raise _bug("Hang", f"{what} did not finish within {timeout:g} s: a hang (killed)")
    if not chunks:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        if sig == signal.SIGXCPU:
            raise _bug("Hang", f"{what} used up its CPU time limit: a hang (killed)")
        if sig is None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
            raise _bug("MemoryBlowup", f"{what} could not even report its exception: most likely it ran out of "
                                       f"memory (the cap is {MEMORY_BYTES // 10 ** 6} MB more than at the start)")
        raise _bug(f"Crash_signal_{sig}",
                   f"{what} crashed the process (exit status {status}, signal {sig}): "
                   "a C stack overflow, a memory blow-up or a segfault")
    result = pickle.loads(b"".join(chunks))
    if result[0] == "raised":
        _, kind, message, tb = result
        raise _bug(kind, f"{what} raised {message}\n\n--- traceback in the child ---\n{tb}")
    return result[1]


def isolated(fn, *args, timeout: float = HANG_SECONDS, what: str = "the example"):
    """fn(*args) run in a forked child, with a memory cap and `timeout` seconds of CPU; returns its result.

    Raises EngineBug_* (an AssertionError) if the child raised, crashed or ran out of time.
    """
    handle = start_isolated(fn, *args, cpu=timeout)
    return finish_isolated(handle, time.monotonic() + 3 * timeout, timeout, what)


# ---- .game sources: the acceptance rule ---------------------------------------------------------

def check_source_error(exc: SourceError, text: str):
    """A SourceError must be located and formattable (a diagnostic in a variant's base: in the base's text)."""
    assert exc.diagnostics, "a SourceError without diagnostics"
    for d in exc.diagnostics:
        assert isinstance(d.message, str) and d.message.strip(), f"an empty diagnostic message: {d!r}"
        assert not d.span.file or d.span.file in exc.sources, f"a diagnostic in a file not given: {d!r}"
        nlines = max(1, len((exc.sources[d.span.file] if d.span.file else text).split("\n")))
        if d.span.line == 0:  # a whole-file problem
            assert d.span.column == 0, f"a diagnostic with a column but no line: {d!r}"
            continue
        assert 1 <= d.span.line <= nlines + 1, f"diagnostic line {d.span.line} outside the file ({nlines} lines): {d!r}"
        assert d.span.column >= 1, f"diagnostic column {d.span.column} < 1: {d!r}"
    formatted = exc.format()
    assert isinstance(formatted, str) and formatted
    for d in exc.diagnostics:
        assert d.message.splitlines()[0] in formatted


def play(game, players: int, seed: int, moves: int = MOVE_CAP) -> tuple[str, int]:
    """Play a loaded game with the first legal move: (how it ended, moves played).

    Besides the moves, it calls what the CLI and the bots call each move: evaluate (the greedy
    bot's heuristic), observation, action_to_string; then returns and digest.
    """
    try:
        state = game.new_state(players=players, seed=seed)
        n = 0
        while not state.is_terminal() and n < moves:
            p = state.current_player()
            legal = state.legal_actions()
            assert legal, f"move {n}: the game is not over and P{p + 1} is to move, but has no legal move"
            state.evaluate(p)  # the greedy bot's heuristic
            state.observation(p)
            a = legal[0]
            state.action_to_string(a)
            state.apply_action(a)
            n += 1
        state.returns()
        state.digest()
        return ("over" if state.is_terminal() else "capped"), n
    except SourceError as exc:  # a game may not raise SourceError once loaded, but if it does, locate it
        check_source_error(exc, game.text)
        return "runtime error", 0
    except GamedslError as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        located = re.match(r"\S[^\n]*?:\d+:\d+: error: ", str(exc))
        # a rule that fails is reported at its place in the game file, with the moment it failed
        assert located or not isinstance(exc, GameRuntimeError), f"a runtime error without a location: {exc}"
        return ("runtime error" if located else "runtime error without a location"), 0


def check_game_source(text: str, players: int | None = None, seed: int = 0, moves: int = 20,
                      filename: str = "f.game") -> str:
    """The whole promise for one .game text (run in a child): how far it got. `filename`: where it
    is, for a variant's `extends` to find its base."""
    try:
        syntax.parse(text, filename)
    except SourceError as exc:
        check_source_error(exc, text)
        return "syntax error"
    try:
        game = gamedsl.load_source(text, filename)
    except SourceError as exc:
        check_source_error(exc, text)
        return "parsed, rejected"
    n = game.min_players if players is None else \
        game.min_players + players % (game.max_players - game.min_players + 1)
    outcome, _ = play(game, n, seed, moves)
    return f"loaded, {outcome}"


# ---- 1. sources generated from the grammar ------------------------------------------------------

@functools.cache
def _grammar() -> lark.Lark:
    """The parser of gamedsl.language.syntax, with its grammar: from_lark reads `Lark.grammar`.

    syntax.parser() is built with cache=True, and a Lark loaded from lark's cache has no `.grammar`
    attribute, so from_lark(syntax.parser()) fails on every run after the first; the same grammar
    text, uncached, works.
    """
    p = syntax.parser()
    if hasattr(p, "grammar"):
        return p
    return lark.Lark(syntax.grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


# Names a game may well declare or use, so that some generated games also load and run.
NAMES = ["x", "y", "who", "flag", "f", "a", "b", "deck", "pile", "hand", "rank", "suit", "points", "target",
         "c", "p", "n", "me", "players", "count", "top", "bottom", "any", "all", "sum", "max", "min", "best",
         "worst", "random", "next", "previous", "seat", "abs", "number", "J", "red", "black", "hidden",
         "public", "owner", "stack", "player", "card", "bool", "q", "_z9"]
# Space between tokens: from_lark joins tokens with nothing between them (see tool-notes).
# Mostly some space (without it, words run together: the mutations test that more). A newline at
# column 1 is rarer: the front end reads a line that starts at column 1 as a possible new declaration.
_PAD = st.sampled_from([" "] * 30 + ["\n  "] * 8 + ["\t", "\n", ""])
_INTS = st.one_of(st.integers(0, 4), st.integers(0, 60), st.sampled_from([0, 1, 2, 3, 7, 10, 52, 100]))
_BIG_INTS = st.sampled_from([1000, 99999, 10 ** 9, 10 ** 30])


class BoundedLarkStrategy(LarkStrategy):
    """hypothesis.extra.lark's strategy (what from_lark returns), made to work on a deep grammar.

    from_lark opens a hypothesis span for every rule it expands, and hypothesis gives up on an
    example nested more than 100 spans deep ("max depth exceeded"); an expression of this grammar
    is 11 rules deep (expr, or_expr, ... postfix, atom), so nearly every string with a nested
    expression was thrown away: a rule that starts with an expression gave 3 examples out of 760.
    Here only the outer SPAN_DEPTH rules get a span, and after `budget` rules have been expanded
    in one string only the expansions that end soonest are drawn, so strings stay finite.
    """

    SPAN_DEPTH = 50

    def __init__(self, grammar, start, explicit, budget: int):
        super().__init__(grammar, start, explicit, st.characters(codec="utf-8"))
        self.budget, self.expanded = budget, 0
        expansions = {k: list(v.elements) for k, v in self.nonterminal_strategies.items()}
        height = dict.fromkeys(expansions, float("inf"))

        def h(expansion):
            return 1 + max((height.get(sym.name, 0) for sym in expansion if isinstance(sym, NonTerminal)),
                           default=0)
        changed = True
        while changed:
            changed = False
            for k, exps in expansions.items():
                best = min(h(e) for e in exps)
                if best < height[k]:
                    height[k], changed = best, True
        self.shallow = {k: st.sampled_from([e for e in exps if h(e) == height[k]]) for k, exps in expansions.items()}

    def do_draw(self, data):
        self.expanded = self.nesting = 0
        return super().do_draw(data)

    def draw_symbol(self, data, symbol, draw_state):
        if not isinstance(symbol, NonTerminal):
            return super().draw_symbol(data, symbol, draw_state)
        span = self.nesting < self.SPAN_DEPTH
        if span:
            data.start_span(self.rule_label(symbol.name))
        self.nesting += 1
        self.expanded += 1
        try:
            rules = self.nonterminal_strategies if self.expanded <= self.budget else self.shallow
            for e in data.draw(rules[symbol.name]):
                self.draw_symbol(data, e, draw_state)
                self.gen_ignore(data, draw_state)
        finally:
            self.nesting -= 1
            if span:
                data.stop_span()


def _padded(s: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A token and the space after it."""
    return st.tuples(s, _PAD).map("".join)


def _keyword(word: str) -> st.SearchStrategy[str]:
    """A keyword or punctuation and the space after it (one draw: it is most of a string's tokens)."""
    return _PAD.map(lambda pad: word + pad)


@functools.cache
def grammar_strategy(start: str | None = None, big_ints: bool = False) -> st.SearchStrategy[str]:
    """Strings of the grammar (from its rule `start`), with space between tokens; built once per rule."""
    g = _grammar()
    terminals, _, _ = g.grammar.compile([start] if start else g.options.start, ())
    explicit = {}
    for t in terminals:
        if isinstance(t.pattern, lark.lexer.PatternStr):  # keywords and punctuation
            explicit[t.name] = _keyword(t.pattern.value)
    ints = st.one_of(_INTS, _BIG_INTS) if big_ints else _INTS
    explicit.update({
        "NAME": _padded(st.one_of(st.sampled_from(NAMES),
                                  st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True))),
        "INT": _padded(ints.map(str)),
        "STRING": _padded(st.text(st.characters(blacklist_characters='"\n', blacklist_categories=["Cs"]),
                                  max_size=8).map(lambda s: f'"{s}"')),
        "COMPARE": _padded(st.sampled_from(["==", "!=", "<=", ">=", "<", ">"])),
        "WS": st.sampled_from([" ", "\n", "\n    ", "\r\n"]),
        # from_lark puts WS or a COMMENT after a quarter of the rules: most of these "comments" are spaces.
        "COMMENT": st.one_of(st.just(" "), st.just(" "), st.just(" "),
                             st.text(st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), max_size=6)
                             .map(lambda s: f"# {s}\n  ")),
    })
    names = {t.name for t in terminals}
    explicit = {k: v for k, v in explicit.items() if k in names}
    from_lark(g, start=start, explicit=explicit).validate()  # the checks of from_lark's arguments
    return BoundedLarkStrategy(g, start, explicit, RULE_BUDGET)


# Declarations of a small valid game, one per item: whole files mix them with generated ones.
GAME_DECLS = ['game "Fuzz"', "players 2 to 3", "attribute rank: 1, 2, 3, J", 'attribute suit: red "R", black "B"',
              "cards rank * suit", "zone deck: hidden, stack", "zone hand per player: owner", "var x = 0",
              'action a "a" { x += 1 }', "round {\n  deal 1 from deck to hand\n  turn next(who) { choose a }\n}",
              "var who: player", "end game when x > 3"]


def whole_files() -> st.SearchStrategy[str]:
    """Files of 3 to 20 declarations, each generated from the grammar or taken from a small valid game."""
    generated = grammar_strategy("_decl")
    decl = st.one_of(st.sampled_from(GAME_DECLS), generated)
    return st.one_of(st.lists(decl, min_size=3, max_size=20),
                     st.tuples(st.permutations(GAME_DECLS), st.lists(generated, max_size=4)).map(
                         lambda parts: parts[0] + parts[1])
                     ).map("\n".join)


def test_grammar_sources():
    """Whole files generated from the grammar: accepted, or a located SourceError; then a few moves."""
    stats = Counter()

    files = st.one_of(grammar_strategy(), whole_files())

    @fuzz_settings(40)
    @given(text=files, players=st.integers(0, 8), seed=st.integers(0, 2 ** 32))
    def run(text, players, seed):
        note(f"source:\n{text}")
        outcome = isolated(check_game_source, text, players, seed, timeout=HANG_SECONDS, what="load and play")
        stats[outcome] += 1
        event(outcome)

    run()
    _report("whole files from the grammar", stats)


# A game into whose round generated statements are put, with generated declarations after it:
# most generated names mean something in it, so a good share of these load and run.
HEADER = '''game "Fuzz"
players 2 to 3
option target = 10 "a number"
attribute rank: 1, 2, 3, J
attribute suit: red "R", black "B"
cards rank * suit
value points: J = 5, else 1
zone deck: hidden, stack
zone pile: top, stack
zone hand per player: owner
var x = 0
var y per player = 0
var who: player
var flag = false
def f(n) = n + 1
action a "a" { x += 1 }
action b (c in me.hand) { move c to pile }
round {
  deal 2 from deck to hand
'''
ROUND_END = "\n  for each p in players { turn p { choose a, b } }\n}\n"
EXTRA_RULES = ["setup_decl", "trigger_decl", "def_decl", "var_decl", "param_decl", "modifier_decl",
               "end_when_decl", "outcome_decl", "heuristic_decl", "invariant_decl", "limit_decl"]


def game_with_generated_rules() -> st.SearchStrategy[str]:
    rule_names = {r.origin.name for r in _grammar().grammar.compile(["start"], ())[1]}
    stmt = grammar_strategy("_stmt", big_ints=True)
    decl = st.one_of([grammar_strategy(r, big_ints=True) for r in EXTRA_RULES if r in rule_names])
    return st.tuples(st.lists(stmt, max_size=3), st.lists(decl, max_size=2)).map(
        lambda parts: HEADER + "\n".join(parts[0]) + ROUND_END + "\n".join(parts[1]) + "\n")


def test_grammar_rules_in_a_game():
    """Generated statements in the round of a valid game, and generated declarations after it."""
    stats = Counter()

    @fuzz_settings(30)
    @given(text=game_with_generated_rules(), players=st.integers(0, 8), seed=st.integers(0, 2 ** 32))
    def run(text, players, seed):
        note(f"source:\n{text}")
        outcome = isolated(check_game_source, text, players, seed, 30, what="load and play")
        stats[outcome] += 1
        event(outcome)

    run()
    _report("generated statements and declarations in a valid game", stats)


def _event(what: str):
    """hypothesis.event, also callable outside a hypothesis example (for the fixed odd inputs)."""
    with contextlib.suppress(InvalidArgument):
        event(what)


def _report(what: str, stats: Counter):
    total = sum(stats.values()) or 1
    parsed = total - stats["syntax error"]
    loaded = sum(v for k, v in stats.items() if k.startswith("loaded"))
    print(f"\n[fuzz] {what} (seed {SEED}): {total} examples, {parsed / total:.0%} parsed, {loaded / total:.0%} loaded; "
          + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items())))


# ---- 2. mutations of the real games ----------------------------------------------------------------

_TOKEN = re.compile(r'"[^"\n]*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\*\*|[=!<>+\-*]=|\s+|.', re.S)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


_JUNK_CHARS = st.sampled_from(["{", "}", "(", ")", '"', "'", "#", "\n", "\t", "\r", "\x00", "é", "♣", "\ufeff",
                               ".", ",", ":", "=", "-", "*", "**", " ", "9" * 25, "players", "if", "else", "end"])


@st.composite
def mutated(draw, text: str):
    """The text with 1-4 token or line mutations."""
    toks = tokens(text)
    ops = []
    for _ in range(draw(st.integers(1, 4))):
        words = [i for i, t in enumerate(toks) if not t.isspace()]
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "junk", "line", "truncate"]))
        if not words:
            break
        i = draw(st.sampled_from(words))
        j = draw(st.sampled_from(words))
        if kind == "delete":
            ops.append(f"delete {toks[i]!r} (token {i})")
            del toks[i]
        elif kind == "duplicate":
            ops.append(f"duplicate {toks[i]!r} (token {i})")
            toks.insert(i, toks[i] + " ")
        elif kind == "swap":
            ops.append(f"swap {toks[i]!r} (token {i}) and {toks[j]!r} (token {j})")
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "replace":
            ops.append(f"replace {toks[i]!r} (token {i}) by {toks[j]!r}")
            toks[i] = toks[j]
        elif kind == "junk":
            junk = draw(_JUNK_CHARS)
            ops.append(f"insert {junk!r} before token {i}")
            toks.insert(i, junk)
        elif kind == "line":
            lines = "".join(toks).split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            how = draw(st.sampled_from(["delete", "duplicate", "dedent"]))
            ops.append(f"{how} line {k + 1}: {lines[k]!r}")
            if how == "delete":
                del lines[k]
            elif how == "duplicate":
                lines.insert(k, lines[k])
            else:
                lines[k] = lines[k].lstrip()
            toks = tokens("\n".join(lines))
        else:
            out = "".join(toks)
            k = draw(st.integers(0, len(out)))
            ops.append(f"truncate at character {k}")
            toks = tokens(out[:k])
    return "".join(toks), ops


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_mutated_games(path):
    """Real games with tokens deleted, duplicated, swapped or replaced: then up to 200 moves."""
    text = path.read_text(encoding="utf-8")
    stats = Counter()

    @fuzz_settings(30)
    @given(case=mutated(text), players=st.integers(0, 8), seed=st.integers(0, 2 ** 32))
    def run(case, players, seed):
        src, ops = case
        note("mutations: " + "; ".join(ops))
        outcome = isolated(check_game_source, src, players, seed, MOVE_CAP, str(path), timeout=HANG_SECONDS,
                           what="load and play the mutated game")
        stats[outcome] += 1
        event(outcome)

    run()
    _report(f"mutations of {path.name}", stats)


def check_game_file(path: str) -> str:
    """load_game on a file of any bytes: a game, a SourceError, or a GamedslError (unreadable)."""
    try:
        game = gamedsl.load_game(path)
    except SourceError as exc:
        check_source_error(exc, exc.text)
        return "rejected"
    except GamedslError as exc:
        assert str(exc).strip()
        return "unreadable"
    play(game, game.min_players, 0, 20)
    return "loaded"


def test_game_files_of_any_bytes(tmp_path):
    """Game files that are not UTF-8, or are binary, or have a BOM: load_game rejects them with its own error."""
    laus = LAUS.read_text(encoding="utf-8")
    fixed = [b"", b"\xff\xfe", b"\x00" * 8, laus.encode("utf-16"), laus.encode("utf-8-sig"),
             laus.encode("utf-8")[:1000] + b"\xff" + laus.encode("utf-8")[1000:],
             laus.replace("\n", "\r\n").encode("utf-8")]

    @fuzz_settings(30)
    @given(data=st.one_of(st.sampled_from(fixed), st.binary(max_size=200)))
    def run(data):
        path = tmp_path / "g.game"
        path.write_bytes(data)
        _event(isolated(check_game_file, str(path), what="load_game"))

    run()


def test_real_games_load_and_play():
    """The unmutated games: the baseline of the mutation test."""
    for path in GAMES:
        outcome = isolated(check_game_source, path.read_text(encoding="utf-8"), 0, 1, MOVE_CAP, str(path),
                           what=path.name)
        assert outcome.startswith("loaded"), f"{path.name}: {outcome}"


# ---- pathological sources: the engine's own limits must stop them ------------------------------

_BASE = '''game "T"
players 2
attribute rank: 1, 2, 3
cards rank
zone deck: hidden, stack
zone hand per player: owner
var x = 0
'''
_ROUND = 'action a { x += 1 }\nround { turn me { choose a } }\n'

PATHOLOGICAL = {
    # must be stopped by loop detection (GameRuntimeError)
    "while_true": _BASE + "setup { while true { x += 1 } }\n" + _ROUND,
    "repeat_huge": _BASE + "setup { repeat 999999999999 { x += 1 } }\n" + _ROUND,
    "repeat_option": _BASE.replace("var x = 0", "option n = 99999999999\nvar x = 0")
                     + "setup { repeat n { x += 1 } }\n" + _ROUND,
    "nested_while": _BASE + "var y = 0\nsetup { while x < 100000 { x += 1\n y = 0\n"
                            " while y < 100000 { y += 1 } } }\n" + _ROUND,
    "round_never_asks": _BASE + "round { x += 1 }\n",
    "round_nobody_can_move": _BASE.replace("cards rank", "attribute suit: a, b, c, d\ncards rank * suit")
                             + 'action play (c in me.hand) if c.rank > 3 "never" { x += 1 }\n'
                               "round {\n  gather all into deck\n  shuffle deck\n  deal 5 from deck to hand\n"
                               "  for each p in players { turn p { choose play } }\n}\n",
    "move_trigger_moves_to_its_own_zone": _BASE + "zone pile: public\non move q to pile { move q to pile }\n"
                                                  "setup { move top(deck) to pile }\n" + _ROUND,
    "move_triggers_ping_pong": _BASE + "zone pile: public\non move q to pile { move q to deck }\n"
                                       "on move q to deck { move q to pile }\n"
                                       "setup { move top(deck) to pile }\n" + _ROUND,
    # big numbers
    "power_huge": _BASE + "setup { x = 2 ** 99999999999 }\n" + _ROUND,
    "power_tower": _BASE + "setup { x = 9 ** 9 ** 9 }\n" + _ROUND,
    "cards_times_huge": _BASE.replace("cards rank", "cards rank times 99999999999") + _ROUND,
    "deal_huge": _BASE + "setup { deal 99999999999 from deck to hand }\n" + _ROUND,
    "limit_huge": _BASE + "limit 99999999999999999999 moves\n" + _ROUND,
    "players_huge": _BASE.replace("players 2", "players 99999999999999999999") + _ROUND,
    "heuristic_huge": _BASE + _ROUND + "heuristic 10 ** 400\n",
    # arithmetic errors outside the rules' run loop
    "var_init_zero_power": _BASE.replace("var x = 0", "var x = 0 ** -1") + _ROUND,
    "heuristic_zero_power": _BASE + _ROUND + "heuristic 0 ** -1\n",
    "end_when_zero_power": _BASE + _ROUND + "end game when x == 0 ** -1\n",
    "var_init_modulo_zero": _BASE + "var y = 1 % 0\n" + _ROUND,
    # deep or long expressions and blocks (Python's own compiler limits)
    "nested_ifs_100": _BASE + "setup { " + "if true { " * 100 + "}" * 100 + " }\n" + _ROUND,
    "nested_ifs_500": _BASE + "setup { " + "if true { " * 500 + "}" * 500 + " }\n" + _ROUND,
    "sum_of_200_terms": _BASE + "setup { x = " + "1 + " * 200 + "1 }\n" + _ROUND,
    "and_of_300_terms": _BASE + "setup { if " + "true and " * 300 + "true { x = 1 } }\n" + _ROUND,
    "negation_200_deep": _BASE + "setup { x = " + "- " * 200 + "1 }\n" + _ROUND,
    "power_chain_200": _BASE + "setup { x = " + "1 ** " * 200 + "1 }\n" + _ROUND,
    "call_200_deep": _BASE + "setup { x = " + "abs(" * 200 + "1" + ")" * 200 + " }\n" + _ROUND,
    "attribute_chain_500": _BASE + "setup { x = me" + ".x" * 500 + " }\n" + _ROUND,
    "parentheses_3000_deep": _BASE + "setup { x = " + "(" * 3000 + "1" + ")" * 3000 + " }\n" + _ROUND,
    "def_chain_1000": _BASE + "".join(f"def f{i}() = f{i - 1}() + 1\n" for i in range(1, 1000))
                      + "def f0() = 1\nsetup { x = f999() }\n" + _ROUND,
    "elif_3000": _BASE + "setup { if false { x = 1 } " + "elif false { x = 1 } " * 3000 + "}\n" + _ROUND,
    "long_line": _BASE + "setup { " + "x += 1 " * 1000 + "}\n" + _ROUND,
    "empty_list_membership": _BASE + "setup { if 1 in [] { x = 1 } }\n" + _ROUND,
    "parameter_named_twice": _BASE + "def f(n, n) = n\n" + _ROUND,
    # odd text
    "empty": "",
    "nul_bytes": "\x00" * 10,
    "bom_and_crlf": "\ufeff" + _BASE.replace("\n", "\r\n") + _ROUND,
    "only_cr": _BASE.replace("\n", "\r") + _ROUND,
    "unclosed_string": 'game "T\nplayers 2\n',
    "lone_surrogate_free_unicode": 'game "♣♠♥♦ 🂡"\n' + _BASE[9:] + _ROUND,
}


@pytest.fixture(scope="module")
def pathological_results():
    """Every pathological source, each in its own child, all started at once.

    A child may use 4 s of CPU: the engine's own limits must stop a pathological game well before that.
    """
    return _run_all(PATHOLOGICAL, timeout=4)


def _run_all(cases: dict, timeout: float) -> dict:
    handles = {name: start_isolated(check_game_source, text, 0, 0, 50, memory=400_000_000, cpu=timeout)
               for name, text in cases.items()}
    deadline = time.monotonic() + 6 * timeout  # each child stops at `timeout` s of CPU; this is the backstop
    results = {}
    for name, handle in handles.items():
        try:
            results[name] = ("ok", finish_isolated(handle, deadline, timeout, name))
        except AssertionError as exc:
            results[name] = ("bug", type(exc).__name__, str(exc))
    return results


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_source(name, pathological_results):
    result = pathological_results[name]
    if result[0] == "bug":
        raise _bug(result[1].removeprefix("EngineBug_"), f"{name}: {result[2]}")


def test_front_end_accepts_what_the_grammar_accepts():
    """What the grammar accepts, gamedsl.language.syntax.parse accepts too (its error recovery must not reject it)."""

    @fuzz_settings(30)
    @given(text=st.one_of(whole_files(), game_with_generated_rules()))
    def run(text):
        try:
            syntax.parser().parse(text, start="start")
        except lark.exceptions.LarkError:
            return
        try:
            syntax.parse(text, "f.game")
        except SourceError as exc:
            raise AssertionError(f"the grammar accepts this file, but gamedsl rejects it:\n{exc.format()}\n"
                                 f"--- the file ---\n{text}") from None

    run()


# Lines inside a block that start at column 1 with a word that can also start a declaration.
COLUMN_1 = {
    "end_turn": "action a {\nx += 1\nend turn\n}\n",
    "players_in_an_expression": "action a {\n  for each p in\nplayers { x += 1 }\n}\n",
    "round_in_a_call": "action a {\n  x = count(\nplayers) + abs(\nround)\n}\n",
}


@pytest.mark.parametrize("name", list(COLUMN_1))
def test_valid_line_at_column_1_is_accepted(name):
    """Valid grammar with a declaration word at column 1 inside a block: the front end must accept it."""
    src = _BASE + COLUMN_1[name] + "round { turn me { choose a } }\n"
    syntax.parser().parse(src, start="start")  # the grammar accepts it
    syntax.parse(src, "f.game")  # so must gamedsl


# ---- 3. malformed scenarios -----------------------------------------------------------------------

PLAYERS_TEXT = ["P1", "P2", "P3", "P4", "P0", "P5", "P99", "p1", "P", "P-1", "Px", "", "nobody", "P1 P2"]
CARDS_TEXT = ["7♣", "J♣", "Q♦", "A♥", "10♠", "10h", "10 of hearts", "Js", "K", "1♣", "X", "", "J♣ J♣",
              "7♣ 8♣ 9♣", "♣", " ".join(f"{r}{s}" for s in "♣♠♥♦" for r in "7 8 9 10 J Q K A".split())]
ZONES_TEXT = ["deck", "skat", "hand P1", "hand P2", "hand P3", "hand P4", "hand", "hand P9", "won P1",
              "played P2", "skat P1", "nowhere", "", "rest", "hand P1 P2"]
MOVES_TEXT = ["look", "look at the skat", "pass", "play 7♣", "play J♣", "play", "put back 7♣", "put_back Q♠",
              "play Zz", "", "quit", "1"]
VAR_NAMES = ["dealer", "leader", "led", "passes", "tricks_played", "score", "last_deal", "tricks", "nope",
             "target"]
_SCALARS = st.one_of(
    st.sampled_from(PLAYERS_TEXT + CARDS_TEXT + ZONES_TEXT + MOVES_TEXT + VAR_NAMES),
    st.integers(-3, 12), st.sampled_from([10 ** 30, -(10 ** 30), 0]), st.booleans(), st.none(),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
)
_ANY = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(_SCALARS.map(str), inner, max_size=4)),
                    max_leaves=12)


def _maybe(good: st.SearchStrategy) -> st.SearchStrategy:
    """Usually a value of the right shape, sometimes anything."""
    return st.one_of(good, good, good, _ANY)


def _map_of(keys, values, max_size=4):
    return st.dictionaries(st.one_of(st.sampled_from(keys), _SCALARS.map(str)), values, max_size=max_size)


_PLAYER = st.sampled_from(PLAYERS_TEXT)
_CARD = st.sampled_from(CARDS_TEXT)
_CARDS = st.one_of(_CARD, st.lists(_CARD, max_size=5))
_VAR_VALUE = st.one_of(st.integers(-5, 200), _PLAYER, st.booleans(), _map_of(PLAYERS_TEXT, st.integers(-5, 200)))
_EXPECTED_VALUE = st.one_of(_CARDS, st.integers(-1, 40), st.sampled_from(["win", "lose", "none"]))
_EXPECT = _map_of(
    ["vars", "zones", "count", "top", "to_move", "legal", "legal_includes", "legal_excludes", "results",
     "places", "returns", "over", "round", "said", "colour"],
    _maybe(st.one_of(_map_of(VAR_NAMES + ZONES_TEXT + PLAYERS_TEXT, _maybe(_EXPECTED_VALUE)),
                     st.lists(st.sampled_from(MOVES_TEXT), max_size=4), _PLAYER, st.integers(-1, 5),
                     st.lists(st.floats(-1, 1), max_size=4), st.booleans(), st.text(max_size=8))))
_SETUP = st.fixed_dictionaries({}, optional={
    "deal": _maybe(_map_of(ZONES_TEXT, _maybe(_CARDS))),
    "vars": _maybe(_map_of(VAR_NAMES, _maybe(_VAR_VALUE))),
})
_MOVE = st.one_of(
    st.sampled_from(MOVES_TEXT),
    st.dictionaries(_PLAYER, st.sampled_from(MOVES_TEXT), min_size=1, max_size=2),
    st.fixed_dictionaries({}, optional={
        "illegal": _maybe(st.sampled_from(MOVES_TEXT)), "reason": _maybe(st.text(max_size=10)),
        "expect": _maybe(_EXPECT), "auto": _maybe(st.one_of(st.sampled_from(["round", "end", "x", "-1"]),
                                                               st.integers(-2, 40))),
        "set": _maybe(_SETUP), "say": _ANY, "ilegal": _ANY}),
    _ANY,
)
SCENARIO_DOC = st.fixed_dictionaries({}, optional={
    "name": _maybe(st.text(max_size=10)),
    "players": _maybe(st.integers(-1, 6)),
    "seed": _maybe(st.one_of(st.integers(-(2 ** 70), 2 ** 70), st.integers(0, 5))),
    "options": _maybe(_map_of(["target", "nope"], _maybe(st.one_of(st.integers(-5, 3000), st.booleans(),
                                                                   st.text(max_size=4))))),
    "random": _maybe(st.lists(st.one_of(_PLAYER, _CARD, st.integers(-3, 40), st.text(max_size=3)), max_size=4)),
    "shuffles": _maybe(st.lists(_CARDS, max_size=3)),
    "deal": _maybe(_map_of(ZONES_TEXT, _maybe(_CARDS))),
    "vars": _maybe(_map_of(VAR_NAMES, _maybe(_VAR_VALUE))),
    "moves": _maybe(st.lists(_MOVE, max_size=6)),
    "expect": _maybe(_EXPECT),
    "unknown_key": _ANY,
    "Players": _ANY,
})


def _yaml_text(doc) -> str:
    return yaml.safe_dump(doc, allow_unicode=True, default_flow_style=None, sort_keys=False)


@st.composite
def mutated_scenario(draw) -> bytes:
    """A real scenario with lines deleted, duplicated, re-indented, or characters inserted."""
    path = draw(st.sampled_from(SCENARIOS))
    lines = path.read_text(encoding="utf-8").split("\n")
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, max(0, len(lines) - 1)))
        how = draw(st.sampled_from(["delete", "duplicate", "indent", "dedent", "insert", "truncate"]))
        if not lines:
            break
        if how == "delete":
            del lines[k]
        elif how == "duplicate":
            lines.insert(k, lines[k])
        elif how == "indent":
            lines[k] = "  " + lines[k]
        elif how == "dedent":
            lines[k] = lines[k].lstrip()
        elif how == "insert":
            at = draw(st.integers(0, len(lines[k])))
            junk = draw(st.sampled_from([":", "- ", "{", "[", "]", "}", "&a ", "*a", "!!int ", "'", '"', "\t", "#",
                                         "|", ">", "%", "@", "`", "P9", "10**9", "? ", "---\n", "...\n"]))
            lines[k] = lines[k][:at] + junk + lines[k][at:]
        else:
            lines = lines[:k]
    return "\n".join(lines).encode("utf-8")


ODD_SCENARIOS = {
    "empty": b"", "newline": b"\n", "blank_lines": b"   \n\n", "document_start": b"---\n", "document_end": b"...\n",
    "a_list": b"- 1\n- 2\n", "text": b"just text\n", "a_number": b"42\n", "null": b"~\n",
    "not_utf8": b"\xff\xfe\x00junk", "control_bytes": b"\x00\x01\x02", "unclosed_list": b"players: [\n",
    "unclosed_mapping": b"{players: 3", "recursive_list": b"a: &a [*a]\n", "recursive_moves": b"moves: &m [*m]\n",
    "recursive_expect": b"expect: &e {vars: *e}\n", "python_tag": b"players: !!python/object:os.system 3\n",
    "unknown_tag": b"players: !foo 3\n", "list_as_key": b"? [1, 2]\n: 3\n", "key_twice": b"players: 3\nplayers: 4\n",
    "two_documents": b"name: x\n---\nname: y\n", "auto_end_twice": b"moves:\n  - auto: end\n  - auto: end\n",
    "auto_100000": b"players: 4\nmoves:\n  - auto: 100000\n", "auto_negative": b"moves:\n  - auto: -3\n",
    "random_P0": b"random: [P0]\n", "random_P-5": b"random: [P-5]\n", "random_999": b"random: [999]\n",
    "random_P3_thrice": b"players: 3\nrandom: [P3, P3, P3]\n", "shuffle_empty": b"shuffles: [[]]\n",
    "shuffle_card_twice": "shuffles: [J♣ J♣]\n".encode(),
    "deal_card_twice": "deal:\n  hand P1: J♣\n  hand P2: J♣\n".encode(),
    "deal_rest": b"deal:\n  rest: hand P1\n", "var_player_P9": b"vars:\n  dealer: P9\n",
    "var_per_player_scalar": b"vars:\n  score: 5\n", "var_huge": b"vars:\n  led: 99999999999999999999999\n",
    "returns_not_numbers": b"expect:\n  returns: [a, b]\n", "returns_nan": b"expect:\n  returns: [.nan, .inf]\n",
    "place_not_number": b"expect:\n  places: {P1: x}\n", "empty_move": b"moves:\n  - {}\n",
    "move_two_players": "moves:\n  - P1: play J♣\n    P2: pass\n".encode(),
    "deeply_nested_flow": b"[" * 5000 + b"]" * 5000 + b"\n",
    "deeply_nested_moves": b"moves: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "deeply_nested_block": b"".join(b"  " * i + b"- \n" for i in range(3000)),
    "alias_bomb": b"a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                  b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                  b"moves: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nexpect: {legal: [*d, *d, *d, *d, *d, *d, *d]}\n",
    "long_scalar": b"name: " + b"x" * 1_000_000 + b"\n",
}


def check_scenario(game, path: str) -> tuple[int, int]:
    result = run_scenario(game, path)
    assert isinstance(result, tuple) and len(result) == 2, f"run_scenario returned {result!r}"
    failures, checks = result
    assert isinstance(checks, int) and checks >= 0
    for f in failures:
        assert isinstance(f, Failure), f"not a Failure: {f!r}"
        assert isinstance(f.line, int) and f.line >= 0, f"a failure without a line: {f!r}"
        assert isinstance(f.message, str) and f.message.strip(), f"a failure without a message: {f!r}"
        assert f.path == path
        if f.located:  # a rule of the game failed: it names its own place in the game file
            assert re.match(r"\S[^\n]*?:\d+:\d+: error: ", f.format()), f.format()
        else:
            assert f.format().startswith(f"{path}:{f.line}: error: " if f.line else f"{path}: error: ")
    return len(failures), checks


@pytest.fixture(scope="module")
def laus():
    return gamedsl.load_game(LAUS)


@pytest.fixture(scope="module")
def scenario_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("scenarios")


def _scenario_run(game, folder: Path, data: bytes, what: str, stats: Counter):
    path = folder / f"s{sum(stats.values())}.yaml"
    path.write_bytes(data)
    try:
        failures, _ = isolated(check_scenario, game, str(path), what=what)
    finally:
        path.unlink()
    stats["failed" if failures else "passed"] += 1
    _event("failed" if failures else "passed")


@pytest.mark.parametrize("name", list(ODD_SCENARIOS))
def test_odd_scenario(laus, scenario_dir, name):
    """Every odd scenario file, not only those hypothesis happens to draw."""
    _scenario_run(laus, scenario_dir, ODD_SCENARIOS[name], f"run_scenario on {name}", Counter())


def test_generated_scenarios(laus, scenario_dir):
    """YAML documents with the scenario keys, wrong types, unknown keys, bad cards and players."""
    stats = Counter()

    @fuzz_settings(80)
    @given(doc=SCENARIO_DOC)
    def run(doc):
        text = _yaml_text(doc)
        note(f"scenario:\n{text}")
        _scenario_run(laus, scenario_dir, text.encode("utf-8"), "run_scenario", stats)

    run()
    print(f"\n[fuzz] generated scenarios (seed {SEED}): {dict(stats)}")


def test_mutated_and_odd_scenarios(laus, scenario_dir):
    """Real scenarios with broken lines, and files that are empty, not YAML or not text at all."""
    stats = Counter()
    small_odd = [v for v in ODD_SCENARIOS.values() if len(v) < 2000]  # hypothesis prints what it draws

    @fuzz_settings(60)
    @given(data=st.one_of(mutated_scenario(), st.sampled_from(small_odd), st.binary(max_size=64),
                          st.text(max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass"))))
    def run(data):
        note(f"scenario bytes: {data!r}")
        _scenario_run(laus, scenario_dir, data, "run_scenario", stats)

    run()
    print(f"\n[fuzz] mutated scenarios (seed {SEED}): {dict(stats)}")


# ---- 4. malformed logs ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def log_dir(tmp_path_factory):
    """A folder with copies of the games (so edits to games/ do not change their checksums) and a real log."""
    folder = tmp_path_factory.mktemp("logs")
    for g in GAMES:
        shutil.copy(g, folder / g.name)
    log = folder / "base.jsonl"
    from gamedsl.tools.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["play", str(folder / "laus.game"), "--seed", "3", "--seats", "random,random,random",
                   "--log", str(log)])
    assert rc == 0, err.getvalue()
    return folder


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """Run the gamedsl command in this process (a child): stdin empty and not a terminal."""
    from gamedsl.tools.cli import main
    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO("")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # main() returns its exit code; a SystemExit escaping it is a bug
            raise AssertionError(f"SystemExit({exc.code!r}) escaped main({argv})") from None
    return rc, out.getvalue(), err.getvalue()


def check_cli(argv: list[str]) -> int:
    rc, out, err = run_cli(argv)
    assert rc in (0, 1), f"exit code {rc!r} (expected 0 or 1)\nstdout:\n{out[-2000:]}\nstderr:\n{err[-2000:]}"
    assert "internal error" not in err, err
    if rc == 1:
        assert re.search(r"\berror: \S", err), f"exit 1 without an error line; stderr:\n{err[-2000:]}"
    return rc


_JSON_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 40), st.sampled_from([2 ** 63, -(2 ** 63), 10 ** 30, 0]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
    st.sampled_from(["start", "move", "end", "laus.game", "crazy_eights.game", "/nonexistent/x.game", ".", "/",
                     "human", "random", "greedy", "robot", "pass", "look at the skat", "play 7♣", "0", "x" * 300,
                     "a\x00b", "\ud800"]),
    st.recursive(st.integers(0, 3), lambda inner: st.lists(inner, max_size=2), max_leaves=6),
    st.lists(st.one_of(st.integers(-1, 3), st.sampled_from(["random", "greedy", "human", "x"]), st.none()),
             max_size=5),
    st.dictionaries(st.sampled_from(["target", "nope", ""]), st.one_of(st.integers(-5, 3000), st.booleans(),
                                                                      st.text(max_size=3)), max_size=2),
)
_LINE_KEYS = ["type", "version", "game", "game_sha256", "players", "seed", "options", "seats", "game_abspath",
              "gamedsl", "n", "player", "action", "text", "returns", "results", "places", "rounds", "limit_hit",
              "moves", "digest", "extra"]


@st.composite
def corrupted_log(draw, base: bytes) -> tuple[bytes, list[str]]:
    """The real log with 1-4 corruptions: JSON values, lines, bytes."""
    lines = [json.loads(line) for line in base.decode("utf-8").splitlines()]
    ops = []
    raw_ops = []
    if draw(st.booleans()):
        ops.append("drop the end line")  # a log without an end line can be resumed
        lines = [x for x in lines if x.get("type") != "end"]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["value", "value", "value", "delete key", "line", "raw"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        obj = lines[i]
        if kind == "value" and isinstance(obj, dict):
            key = draw(st.sampled_from(sorted(obj) + _LINE_KEYS))
            if key == "action":
                value = draw(st.one_of(st.integers(-2, 50), _JSON_JUNK))
            elif key in ("n", "player", "players"):
                value = draw(st.one_of(st.integers(-1, 40), _JSON_JUNK))
            elif key == "seed":
                value = draw(st.one_of(st.integers(-(2 ** 70), 2 ** 70), _JSON_JUNK))
            else:
                value = draw(_JSON_JUNK)
            ops.append(f"line {i + 1}: {key} = {value!r}")
            obj[key] = value
        elif kind == "delete key" and isinstance(obj, dict) and obj:
            key = draw(st.sampled_from(sorted(obj)))
            ops.append(f"line {i + 1}: delete {key}")
            del obj[key]
        elif kind == "line":
            how = draw(st.sampled_from(["delete", "duplicate", "swap", "not an object"]))
            j = draw(st.integers(0, len(lines) - 1))
            ops.append(f"{how} line {i + 1}" + (f" and {j + 1}" if how == "swap" else ""))
            if how == "delete":
                del lines[i]
            elif how == "duplicate":
                lines.insert(i, json.loads(json.dumps(obj)))
            elif how == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines[i] = draw(st.one_of(st.lists(st.integers(), max_size=2), st.integers(), st.text(max_size=3),
                                          st.none()))
        else:
            raw_ops.append(draw(st.sampled_from(["truncate", "cut", "insert", "flip", "crlf", "no newline"])))
    # A lone surrogate (drawn as a text value) becomes bytes that are not UTF-8: junk a log may hold.
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode("utf-8", "surrogatepass")
    for how in raw_ops:
        k = draw(st.integers(0, len(data)))
        if how == "truncate":
            data = data[:k]
        elif how == "cut":
            data = data[:k] + data[k + draw(st.integers(1, 40)):]
        elif how == "insert":
            data = data[:k] + draw(st.sampled_from([b"{", b"}", b"\n", b",", b'"', b"\xff", b"\xe2\x99", b"\x00",
                                                    b"NaN", b"1e999", b" ", b"\r"])) + data[k:]
        elif how == "flip" and data:
            k = min(k, len(data) - 1)
            data = data[:k] + bytes([data[k] ^ (1 << draw(st.integers(0, 7)))]) + data[k + 1:]
        elif how == "crlf":
            data = data.replace(b"\n", b"\r\n")
        else:
            data = data.rstrip(b"\n")
        ops.append(f"bytes: {how} at {k}")
    return data, ops


ODD_LOGS = {"empty": b"", "newline": b"\n", "newlines": b"\n\n\n", "empty_object": b"{}", "list": b"[]\n",
            "null": b"null\n", "not_utf8": b"\xff\xfe\xfd\n", "nul_bytes": b"\x00" * 32,
            "bare_start": b'{"type": "start"}\n', "bare_move": b'{"type": "move"}\n', "bare_end": b'{"type": "end"}\n',
            "text": b"not json at all\n", "deeply_nested_json": b"[" * 100_000 + b"]" * 100_000 + b"\n"}
# Bytes added after the real log (without its end line), each giving a log of its own.
ODD_TAILS = {"deeply_nested_move": b"[" * 100_000 + b"]" * 100_000 + b"\n",
             "deeply_nested_half_written_line": b"[" * 100_000,
             "half_written_line": b'{"type": "move", "n": 3',
             "complete_line_without_newline":
                 b'{"type": "move", "n": 33, "player": 1, "action": 39, "text": "play 8\xe2\x99\xa0"}',
             "half_a_character": b'{"type": "move", "text": "\xe2\x99'}
# Start-line fields that replace the real one's, each giving a log of its own.
ODD_START_FIELDS = {"game_path_too_long": {"game": "x" * 5000, "game_abspath": "y" * 5000},
                    "game_path_nul": {"game": "a\x00b", "game_abspath": "c\x00d"},
                    "game_is_a_folder": {"game": "/", "game_abspath": "/"},
                    "game_is_dev_null": {"game": "/dev/null", "game_abspath": "/dev/null"},
                    "game_is_not_a_game": {"game": "/etc/hostname", "game_abspath": "/etc/hostname"},
                    "abspath_not_text": {"game": "nowhere.game", "game_abspath": 5},
                    "seats_unknown": {"seats": ["robot", "robot", "robot"]},
                    "seats_human": {"seats": ["human", "human", "human"]},
                    "four_players": {"players": 4, "seats": ["random"] * 4},
                    "hundred_players": {"players": 100, "seats": ["random"] * 100},
                    "huge_seed": {"seed": 10 ** 40},
                    "huge_target": {"options": {"target": 10 ** 30}},
                    "negative_target": {"options": {"target": -1}},
                    "unknown_option": {"options": {"nope": 1}}}


def _log_example(folder: Path, data: bytes, stats: Counter, what: str):
    k = sum(stats.values())
    for cmd in ("replay", "resume"):
        path = folder / f"{cmd}-{k}.jsonl"
        path.write_bytes(data)
        argv = ["replay", str(path)] if cmd == "replay" else ["play", "--resume", str(path)]
        try:
            rc = isolated(check_cli, argv, timeout=20, what=f"gamedsl {' '.join(argv)} on {what}")
        finally:
            for p in (path, path.with_name(path.name + ".tmp")):
                with contextlib.suppress(OSError):
                    p.unlink()
        stats[f"{cmd} exit {rc}"] += 1
        _event(f"{cmd} exit {rc}")


@pytest.mark.parametrize("name", list(ODD_LOGS) + list(ODD_START_FIELDS) + list(ODD_TAILS))
def test_odd_log(log_dir, name):
    """Every odd log, and the real log with odd start fields or odd last lines (and no end line: it resumes)."""
    if name in ODD_LOGS:
        data = ODD_LOGS[name]
    else:
        lines = [json.loads(line) for line in (log_dir / "base.jsonl").read_text(encoding="utf-8").splitlines()]
        lines[0].update(ODD_START_FIELDS.get(name, {}))
        data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines[:-1]).encode("utf-8")
        if name in ODD_TAILS:
            data = b"".join(line + b"\n" for line in data.split(b"\n")[:-2]) + ODD_TAILS[name]
    _log_example(log_dir, data, Counter(), name)


def test_corrupted_logs(log_dir):
    """A real log, corrupted: `gamedsl replay` and `gamedsl play --resume` exit 0 or 1 with an error line."""
    base = (log_dir / "base.jsonl").read_bytes()
    stats = Counter()
    assert isolated(check_cli, ["replay", str(log_dir / "base.jsonl")]) == 0

    @fuzz_settings(50, deadline_ms=None)  # a resumed game is played to its end by bots: up to 2000 moves
    @given(case=st.one_of(corrupted_log(base), st.binary(max_size=200).map(lambda b: (b, ["binary junk"]))))
    def run(case):
        data, ops = case
        note("corruptions: " + "; ".join(ops))
        note(f"log bytes: {data[:3000]!r}")
        _log_example(log_dir, data, stats, "a corrupted log")

    run()
    print(f"\n[fuzz] corrupted logs (seed {SEED}): {dict(stats)}")
