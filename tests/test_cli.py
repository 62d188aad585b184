"""The gamedsl command line: check, play (with logs and resume), replay, test (simulate: test_simulate.py)."""
from __future__ import annotations

import builtins
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gamedsl
from gamedsl.tools.logfile import read_log
from gamedsl import bots as agents
from gamedsl.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "games" / "laus.game")
# A low target keeps games short: a deal or two.
SHORT = ["--option", "target=200"]


@pytest.fixture(autouse=True)
def _no_tty_stdin(monkeypatch, tmp_path):
    """Every test runs in its own folder, with an input that is not a terminal and is empty."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def lines_of(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def play_bots(log, seed=5, seats="random", extra=()):
    rc = main(["play", GAME, "--seed", str(seed), "--seats", seats, "--log", str(log), *SHORT, *extra])
    assert rc == 0
    return lines_of(log)


# ---- check

def test_check_ok(capsys):
    assert main(["check", GAME]) == 0
    assert capsys.readouterr().out == f"{GAME}: ok\n"


def test_check_bad_file_gives_diagnostics(tmp_path, capsys):
    bad = tmp_path / "bad.game"
    bad.write_text(Path(GAME).read_text(encoding="utf-8").replace("move c to me.played", "move c to me.plyed"),
                   encoding="utf-8")
    assert main(["check", GAME, str(bad)]) == 1
    cap = capsys.readouterr()
    assert cap.out == f"{GAME}: ok\n"
    assert f"{bad}:" in cap.err and ": error: " in cap.err
    assert "plyed" in cap.err and "Traceback" not in cap.err


def test_check_missing_file(capsys):
    assert main(["check", "nowhere.game"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "nowhere.game: error: no such file"


def test_check_not_utf8(tmp_path, capsys):
    (tmp_path / "bin.game").write_bytes(b"\xff\xfe\x00")
    assert main(["check", "bin.game"]) == 1
    assert "bin.game: error:" in capsys.readouterr().err


def test_check_imports_only_what_it_needs(tmp_path):
    # `gamedsl check` is the designer's edit-check loop, a fresh process each time: it compiles the
    # game and links its module (engine/link.py), but makes no Game, so neither the engine's states
    # nor the bots nor rich are imported.
    code = ("import sys; from gamedsl.tools.cli import main; rc = main(['check', sys.argv[1]]); "
            "print(rc, *sorted(m for m in sys.modules if m.startswith(('gamedsl', 'rich'))))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code, GAME], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    rc, *loaded = r.stdout.splitlines()[-1].split()
    assert rc == "0" and "gamedsl.engine.link" in loaded, r.stderr
    assert not {"gamedsl.engine.game", "gamedsl.engine.state", "gamedsl.engine.patterns", "gamedsl.bots.greedy",
                "gamedsl.bots.ismcts", "rich"} & set(loaded)


# ---- usage

@pytest.mark.parametrize("argv", [
    [],
    ["frobnicate"],
    ["check"],
    ["play", GAME, "--players", "x"],
    ["play", GAME, "--seats", "alien"],
    ["play", GAME, "--option", "target"],
    ["play"],
    ["play", GAME, "--resume", "x.jsonl"],
    ["simulate", GAME],
    ["simulate", GAME, "--games", "0"],
    ["simulate", GAME, "--games", "2", "--seats", "human"],
    ["replay"],
])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("cmd", [[], ["check"], ["play"], ["replay"], ["simulate"], ["test"]])
def test_help_everywhere(cmd, capsys):
    assert main([*cmd, "--help"]) == 0
    assert "usage: gamedsl" in capsys.readouterr().out


def test_bad_option_value_is_a_clear_error(tmp_path, capsys):
    rc = main(["play", GAME, "--seats", "random", "--option", "target=abc", "--log", "g.jsonl"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "option 'target' is a number, not 'abc'" in err
    assert "Traceback" not in err
    assert not (tmp_path / "g.jsonl").exists()


def test_unknown_option_and_player_count(capsys):
    assert main(["play", GAME, "--seats", "random", "--option", "nope=1"]) == 1
    assert "no option 'nope'" in capsys.readouterr().err
    assert main(["play", GAME, "--seats", "random", "--players", "9"]) == 1
    assert "not 9" in capsys.readouterr().err


# ---- play and replay

def test_bot_game_logs_every_move_and_replays(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    lines = play_bots(log)
    out = capsys.readouterr().out
    assert "seed 5" in out and "Game over" in out
    start, moves, end = lines[0], lines[1:-1], lines[-1]
    assert start["type"] == "start" and start["version"] == 1 and start["seed"] == 5
    assert start["players"] == 3 and start["seats"] == ["random"] * 3 and start["options"] == {"target": 200}
    assert start["game"] == GAME and len(start["game_sha256"]) == 64
    assert [m["n"] for m in moves] == list(range(1, len(moves) + 1))
    assert all(m["type"] == "move" for m in moves)
    assert end["type"] == "end" and end["moves"] == len(moves)
    # The moves alone rebuild the same final state.
    game = gamedsl.load_game(GAME)
    state = game.new_state(players=3, seed=5, options={"target": 200})
    for m in moves:
        assert state.current_player() == m["player"]
        assert state.action_to_string(m["action"]) == m["text"]
        state.apply_action(m["action"])
    assert state.is_terminal() and state.digest() == end["digest"]
    assert end["returns"] == state.returns() and end["results"] == state.results

    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().out == f"{log}: replayed {len(moves)} moves, same final state\n"


def test_same_seed_same_bot_game(tmp_path):
    a = play_bots(tmp_path / "a.jsonl", seed=11, seats="greedy,random,greedy")
    b = play_bots(tmp_path / "b.jsonl", seed=11, seats="greedy,random,greedy")
    assert a[1:] == b[1:]


def test_default_seed_and_log_path(tmp_path, capsys):
    """A seed chosen by gamedsl is said only once the game is over (whoever knows it knows every
    card), nor is it in the log's name; the log is its owner's alone (it holds the seed and every move in full)."""
    # No --seats and no terminal: every seat is a bot and the game runs to its end.
    assert main(["play", GAME, *SHORT]) == 0
    out = capsys.readouterr().out
    logs = list(tmp_path.glob("gamedsl-laus-*.jsonl"))
    assert len(logs) == 1
    start, end = lines_of(logs[0])[0], lines_of(logs[0])[-1]
    assert re.fullmatch(r"gamedsl-laus-\d{8}-\d{6}-[0-9a-f]{4}\.jsonl", logs[0].name), logs[0].name
    assert str(start["seed"]) not in logs[0].name
    said = out.index(f"seed {start['seed']}")
    assert out.count(str(start["seed"])) == 1 and said > out.index("Game over")
    assert start["seats"] == ["greedy"] * 3 and end["type"] == "end"
    assert logs[0].stat().st_mode & 0o777 == 0o600
    # An existing log is never overwritten: a new game needs a new file.
    assert main(["play", GAME, "--seed", "3", "--log", str(logs[0]), *SHORT]) == 1
    assert "already exists" in capsys.readouterr().err


def test_replay_detects_tampering(tmp_path, capsys):
    log = tmp_path / "g.jsonl"
    lines = play_bots(log)
    capsys.readouterr()
    text = log.read_text(encoding="utf-8").splitlines()

    # A move replaced by another move, text and all.
    k = 6
    game = gamedsl.load_game(GAME)
    other = next(a for a in range(game.num_distinct_actions()) if a != lines[k]["action"])
    bad = dict(lines[k], action=other, text=game.action_to_string(other))
    (tmp_path / "t1.jsonl").write_text("\n".join(text[:k] + [json.dumps(bad)] + text[k + 1:]) + "\n",
                                       encoding="utf-8")
    assert main(["replay", "t1.jsonl"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"t1.jsonl:{k + 1}: error: move {k}")

    # Only the text changed.
    bad = dict(lines[k], text="play nothing")
    (tmp_path / "t2.jsonl").write_text("\n".join(text[:k] + [json.dumps(bad)] + text[k + 1:]) + "\n",
                                       encoding="utf-8")
    assert main(["replay", "t2.jsonl"]) == 1
    assert "but the log says 'play nothing'" in capsys.readouterr().err

    # A different final state.
    end = dict(lines[-1], digest="0" * 16)
    (tmp_path / "t3.jsonl").write_text("\n".join(text[:-1] + [json.dumps(end)]) + "\n", encoding="utf-8")
    assert main(["replay", "t3.jsonl"]) == 1
    assert f"t3.jsonl:{len(text)}: error: the final state differs" in capsys.readouterr().err


@pytest.mark.parametrize("line, message", [
    ("{not json", "not valid JSON"),
    ('{"type": "move", "n": 1, "player": "x", "action": 0, "text": "pass"}', "'player' of the move line"),
    ('{"type": "move", "n": 1, "player": 0, "text": "pass"}', "has no 'action'"),
    ('{"type": "jump"}', "unknown line type"),
    ("[1, 2]", "should be a JSON object"),
    ('{"type": "seat", "n": 1, "player": 7, "kind": "greedy", "why": "x"}', "player 7 in a game of"),
    ('{"type": "seat", "n": 1, "player": 0, "kind": 3, "why": "x"}', "'kind' of the seat line"),
])
def test_replay_malformed_log(tmp_path, capsys, line, message):
    log = tmp_path / "g.jsonl"
    play_bots(log)
    capsys.readouterr()
    text = log.read_text(encoding="utf-8").splitlines()
    text[2] = line
    log.write_text("\n".join(text) + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{log}:3: error: ") and message in err and "Traceback" not in err


def test_a_seat_handed_on_is_kept_in_the_log_and_replays(tmp_path, capsys):
    """A web table writes a seat line when a bot takes a seat over (gamedsl serve); replays read
    past it, and a log rewritten after a half-written line keeps it in its place."""
    log = tmp_path / "g.jsonl"
    play_bots(log)
    text = log.read_text(encoding="utf-8").splitlines()
    seat = json.dumps({"type": "seat", "n": 1, "player": 1, "kind": "random", "why": "the host gave P2 to a bot"})
    log.write_text("\n".join(text[:2] + [seat] + text[2:-1]) + "\n" + text[-1][:5], encoding="utf-8")
    data = read_log(log)
    assert [obj for _, obj in data.seats] == [json.loads(seat)] and data.truncated
    assert data.lines()[2] == json.loads(seat)
    assert main(["replay", str(log)]) == 0


def test_replay_missing_or_empty_log(tmp_path, capsys):
    assert main(["replay", "none.jsonl"]) == 1
    assert "none.jsonl: error: cannot read the log" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("")
    assert main(["replay", "empty.jsonl"]) == 1
    assert "no start line" in capsys.readouterr().err


@pytest.mark.parametrize("half_line", [False, True])
def test_resume_after_kill(tmp_path, capsys, half_line):
    full = play_bots(tmp_path / "full.jsonl", seed=9, seats="greedy,random,greedy")
    k = 25
    text = (tmp_path / "full.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = "".join(text[:k + 1])
    if half_line:
        cut += text[k + 1][:20]  # a process killed while writing the next line
    log = tmp_path / "cut.jsonl"
    log.write_text(cut, encoding="utf-8")
    capsys.readouterr()

    assert main(["play", "--resume", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"resuming after {k} moves" in out
    resumed = lines_of(log)  # every line is whole again
    # The bots pick up exactly where they were: the same game as without the kill.
    assert resumed[1:] == full[1:]
    assert main(["replay", str(log)]) == 0

    # Resuming a finished game only says so.
    capsys.readouterr()
    assert main(["play", "--resume", str(log)]) == 0
    assert "this game is over" in capsys.readouterr().out


def test_resume_refuses_a_changed_game(tmp_path, capsys):
    game = tmp_path / "copy.game"
    game.write_text(Path(GAME).read_text(encoding="utf-8"), encoding="utf-8")
    log = tmp_path / "g.jsonl"
    assert main(["play", str(game), "--seed", "3", "--seats", "random", "--log", str(log), *SHORT]) == 0
    text = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(text[:10]), encoding="utf-8")
    game.write_text(game.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["play", "--resume", str(log)]) == 1
    err = capsys.readouterr().err
    assert "has changed" in err and "Traceback" not in err


def test_keyboard_interrupt_exits_130_and_resumes(tmp_path, monkeypatch, capsys):
    calls = {"n": 0}
    real = agents.RandomAgent.choose

    def flaky(self, state):
        calls["n"] += 1
        if calls["n"] == 15:
            raise KeyboardInterrupt
        return real(self, state)

    monkeypatch.setattr(agents.RandomAgent, "choose", flaky)
    log = tmp_path / "g.jsonl"
    assert main(["play", GAME, "--seed", "4", "--seats", "random", "--log", str(log), *SHORT]) == 130
    err = capsys.readouterr().err
    assert f"gamedsl play --resume {log}" in err
    assert len(lines_of(log)) == 15  # the start line and 14 moves
    monkeypatch.setattr(agents.RandomAgent, "choose", real)
    assert main(["play", "--resume", str(log)]) == 0
    assert lines_of(log)[-1]["type"] == "end"


# ---- a human at the table

def fake_input(monkeypatch, answers):
    prompts = []
    it = iter(answers)

    def _input(prompt=""):
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", _input)
    return prompts


def test_human_seat_reprompts_and_takes_numbers(tmp_path, monkeypatch, capsys):
    prompts = fake_input(monkeypatch, ["nonsense", "99", "pass", "1", "quit"])
    log = tmp_path / "h.jsonl"
    rc = main(["play", GAME, "--seed", "2", "--seats", "human,random,random", "--log", str(log)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "'nonsense' is not a move of this game" in out
    assert "there is no move 99" in out
    assert len(prompts) == 5 and all(p.startswith("P1, your move") for p in prompts)
    assert "Your moves:" in out and " 1. " in out
    assert f"gamedsl play --resume {log}" in out
    # Bots' moves are shown one per line when a human plays.
    assert "P2 plays: " in out and "P1 (you) plays: pass" in out
    # The human passed, then took move 1 of the next list.
    lines = lines_of(log)
    assert lines[-1]["type"] == "move"
    mine = [m for m in lines[1:] if m["player"] == 0]
    assert [m["text"] for m in mine][0] == "pass" and len(mine) == 2
    game = gamedsl.load_game(GAME)
    state = game.new_state(players=3, seed=2, options=lines[0]["options"])
    for m in lines[1:]:
        if m is mine[1]:
            assert game.display_order(state.legal_actions())[0] == m["action"]
        state.apply_action(m["action"])


def test_human_view_shows_only_what_the_player_sees(tmp_path, monkeypatch, capsys):
    fake_input(monkeypatch, [])  # the input ends at once
    log = tmp_path / "h.jsonl"
    assert main(["play", GAME, "--seed", "1", "--seats", "human,greedy,greedy", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    game = gamedsl.load_game(GAME)
    state = game.new_state(players=3, seed=1, options=lines_of(log)[0]["options"])
    for m in lines_of(log)[1:]:
        state.apply_action(m["action"])
    own = state.zone_cards("hand", 0)
    other = state.zone_cards("hand", 1)
    assert all(game.card_name(c) in out for c in own)
    assert "10 cards" in out
    assert not set(game.card_name(c) for c in other) <= set(out.split())
    assert "Stopped after" in out
    # Cards put face down by the bots are not named to the human (the log has them).
    put_back = [line for line in out.splitlines() if " plays: put back" in line]
    assert put_back and all(line.endswith("put back a card") for line in put_back)
    assert any(m["text"].startswith("put back ") and "hidden" not in m["text"] for m in lines_of(log)[1:])


def test_resume_with_human_seat_and_no_input(tmp_path, monkeypatch, capsys):
    fake_input(monkeypatch, ["1"])
    log = tmp_path / "h.jsonl"
    assert main(["play", GAME, "--seed", "6", "--seats", "human,random,random", "--log", str(log)]) == 0
    n = len(lines_of(log))
    fake_input(monkeypatch, ["1", "2"])
    assert main(["play", "--resume", str(log)]) == 0
    assert len(lines_of(log)) > n
    assert main(["replay", str(log)]) == 0


# ---- test (scenario files)

def test_test_command_reports_failures_with_their_lines(tmp_path, capsys):
    good = ROOT / "tests" / "scenarios" / "laus" / "follow_suit.yaml"
    text = good.read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("      to_move: P3                  # the jack took",
                                "      to_move: P1                  # the jack took"), encoding="utf-8")
    assert main(["test", GAME, str(good)]) == 0
    assert re.fullmatch(rf"{re.escape(str(good))}: ok \(\d+ checks\)\n", capsys.readouterr().out)
    assert main(["test", GAME, str(good), str(bad)]) == 1
    cap = capsys.readouterr()
    assert f"{good}: ok" in cap.out
    line = text.splitlines().index("      to_move: P3                  # the jack took the trick and P3 leads") + 1
    assert cap.err == f"{bad}:{line}: error: to move: expected P1, got P3\n"


def test_verify_finds_a_broken_invariant_and_writes_a_scenario_that_replays_it(tmp_path, capsys):
    broken = tmp_path / "broken.game"
    text = (ROOT / "games" / "laus.game").read_text(encoding="utf-8")
    broken.write_text(text.replace("if count(p.played) <= 1)", "if count(p.played) == 0)"), encoding="utf-8")
    out = tmp_path / "failure.yaml"
    assert main(["verify", str(broken), "--players", "4", "--examples", "5", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "invariant 'the trick has one card from each player who has played' does not hold" in err
    assert f"replay it with: gamedsl test {broken} {out}" in err
    # shrunk to the smallest failing game: the first card played
    assert "seed 0, 1 move: play " in err
    assert main(["test", str(broken), str(out)]) == 1
    assert "does not hold" in capsys.readouterr().err
    assert main(["verify", GAME, "--players", "4", "--examples", "3"]) == 0
    assert capsys.readouterr().out == f"{GAME}, 4 players: 3 games, every invariant holds\n"


# ---- as a program

def run_module(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "gamedsl", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, encoding="utf-8", timeout=60)


def test_python_m_gamedsl(tmp_path):
    r = run_module("check", GAME, "missing.game", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout == f"{GAME}: ok\n" and "missing.game: error: no such file" in r.stderr
    # No terminal and no --seats: a bot game, played to its end without a prompt.
    r = run_module("play", GAME, "--seed", "8", "--option", "target=200", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    log, = tmp_path.glob("gamedsl-laus-*.jsonl")
    assert log.name == "gamedsl-laus-8.jsonl"  # a seed given is no secret from whoever gave it
    assert "Laus: 3 players, seed 8" in r.stdout
    assert lines_of(log)[-1]["type"] == "end"
    assert main(["replay", str(log)]) == 0


# ---- real time: reaction windows and races in the log and at the prompt

LOL = str(ROOT / "games" / "lol.game")


def test_reaction_times_are_logged_and_a_replay_uses_them(tmp_path, capsys):
    log = tmp_path / "lol.jsonl"
    assert main(["play", LOL, "--players", "2", "--seed", "3", "--seats", "random", "--log", str(log),
                 "--option", "mode=first_out"]) == 0
    lines = lines_of(log)
    timed = [m for m in lines[1:-1] if "time" in m]
    assert timed and all(0 <= m["time"] < 10 for m in timed)
    assert lines[0]["options"] == {"mode": 1}
    assert "options mode=first_out" in capsys.readouterr().out
    assert main(["replay", str(log)]) == 0
    # a different recorded time is a different game: the replay notices
    for m in lines[1:-1]:
        if "time" in m:
            m["time"] = 9.5 if m["time"] < 0.9 else 0.01
    log.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    assert main(["replay", str(log)]) == 1


def test_a_person_answering_a_window_is_timed_and_enter_lets_it_pass():
    from gamedsl.tools.human import HumanSeat
    game = gamedsl.load_game(LOL)
    state = game.new_state(players=3, seed=1, fixed_random=[0])   # P3 may jump in on 7 red
    assert state.window is not None and state.current_player() == 0
    ticks = iter([10.0, 11.25])
    seat = HumanSeat(0, read=lambda prompt: "", clock=lambda: next(ticks))
    action = seat.choose(state)
    assert game.action_to_string(action) == "no reaction" and seat.reaction_time == 1.25


def test_a_race_is_answered_by_letters_the_same_in_every_race_and_enter_keeps_hands_off(capsys):
    """At the terminal, "1" picks the first move of an ordinary turn, so in a race it would be a
    slip of the finger: a race's answers have letters (s: slap!, h: hands off) that mean the same
    in every race, a digit is refused with the keys, and Enter gives the race's default (its last
    listed answer)."""
    from gamedsl.tools.human import HumanSeat
    game = gamedsl.load_game(ROOT / "games" / "slapjack.game")
    state = game.new_state(players=2, seed=4)
    state.apply_action(state.legal_actions()[0])  # P1 turns a card: the race begins
    assert state.window[0] == "race" and state.current_player() == 0
    answers = iter(["1", "s"])
    prompts = []
    seat = HumanSeat(0, read=lambda prompt: prompts.append(prompt) or next(answers), clock=lambda: 0.0)
    slap = seat.choose(state)
    assert game.action_to_string(slap) == "slap!"
    out = capsys.readouterr().out
    assert "in a race, answer with a letter: s (slap!), h (hands off), or Enter (hands off)" in out
    assert prompts[0] == "P1, quick! [s: slap! h: hands off; Enter: hands off]: "
    state.apply_action(slap)
    seat = HumanSeat(1, read=lambda prompt: "", clock=lambda: 0.0)
    assert game.action_to_string(seat.choose(state)) == "hands off"
    state.apply_action(game.string_to_action(state, "hands off"))
    assert state.window is None and state.current_player() == 1  # P2 turns the next card
    state.apply_action(state.legal_actions()[0])
    seat = HumanSeat(0, read=lambda prompt: "s", clock=lambda: 0.0)
    assert game.action_to_string(seat.choose(state)) == "slap!"  # s is a slap in every race


# ---- modules that are not installed

def test_a_missing_optional_module_names_its_extra_and_exits_2(monkeypatch, capsys):
    from gamedsl.tools import cli

    def needs_an_extra(args):
        raise ModuleNotFoundError("No module named 'fancy.part'", name="fancy.part")

    monkeypatch.setitem(cli.EXTRAS, "fancy", "fancy_extra")
    monkeypatch.setattr(cli, "cmd_check", needs_an_extra)
    assert main(["check", GAME]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "gamedsl: error: this needs 'fancy', which is not installed: pip install 'gamedsl[fancy_extra]'"
    monkeypatch.delitem(cli.EXTRAS, "fancy")
    assert main(["check", GAME]) == 2
    err = capsys.readouterr().err
    assert "the module 'fancy' that gamedsl needs is not installed" in err and "bug" not in err


def test_every_extra_named_for_a_module_is_declared():
    from gamedsl.tools import cli

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    declared = set(re.findall(r"^([\w-]+) = \[", extras, re.M))
    assert "test" in declared
    assert set(cli.EXTRAS.values()) <= declared


def test_the_test_extra_pulls_in_every_other_extra():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    declared = set(re.findall(r"^([\w-]+) = \[", extras, re.M))
    test = re.search(r"^test = \[(.*)\]", extras, re.M)[1]
    pulled = {name for group in re.findall(r'"gamedsl\[([\w,-]+)\]"', test) for name in group.split(",")}
    assert pulled == declared - {"test"}


def test_the_verbose_log_shows_each_consequence_after_the_moves_that_caused_it(tmp_path, capsys):
    lol = str(ROOT / "games" / "lol.game")
    assert main(["play", lol, "--seats", "greedy", "--players", "3", "--seed", "3", "-v",
                 "--log", str(tmp_path / "lol.jsonl"), "--option", "mode=first_out"]) == 0
    lines = capsys.readouterr().out.splitlines()
    last_cover = [i for i, line in enumerate(lines) if "was the last to cover" in line]
    assert last_cover
    for i in last_cover:  # the race's three covers, then who was last
        assert all(re.match(r"P\d plays: cover \(", line) for line in lines[i - 3:i]), lines[i - 4:i + 1]
    new_round = [i for i, line in enumerate(lines) if re.search(r"─ round \d+ ─", line)]
    assert new_round
    for i in new_round:  # the round that ended, then the next one
        assert "is out of cards!" in "".join(lines[i - 2:i]), lines[i - 3:i + 1]


LINES = '''game "Lines"
players 2
attribute rank: 1, 2, 3, 4
cards rank
zone deck: hidden, stack
zone hand per player: owner
zone table: public
action lay (c in me.hand) { move c to table  say "lays {c}" }
setup {
  shuffle deck
  deal 2 from deck to hand
  say "the deck is shuffled"
  say "you hold {top(seat(2).hand)}" to seat(2)
}
round {
  for each p in players { turn p { choose lay } }
  say "the round is over"
  if count(seat(1).hand) == 0 { end game }
}
outcome { for each p in players { win p } }
'''


def test_table_lines_are_shown_unattributed_in_order_from_the_first(tmp_path, monkeypatch, capsys):
    """Issue 42: lines said outside any turn were shown as "P1: ...", and with bots only the lines
    said before the first move never appeared. A line said to one player alone is shown to them only."""
    path = tmp_path / "lines.game"
    path.write_text(LINES, encoding="utf-8")
    assert main(["play", str(path), "--seats", "greedy", "--seed", "1", "-v", "--log", str(tmp_path / "a.jsonl")]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert lines[2:8] == ["the deck is shuffled", "P1 plays: lay 2", "P1: lays 2", "P2 plays: lay 4", "P2: lays 4",
                          "the round is over"]
    assert not any("you hold" in line for line in lines)  # said to P2 alone: no seat here is P2
    fake_input(monkeypatch, ["1", "1"])
    assert main(["play", str(path), "--seats", "greedy,human", "--seed", "1", "--log", str(tmp_path / "b.jsonl")]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert lines[2:5] == ["the deck is shuffled", "you hold 4", "P1 plays: lay 2"]
    fake_input(monkeypatch, ["1", "1"])
    assert main(["play", str(path), "--seats", "human,greedy", "--seed", "1", "--log", str(tmp_path / "c.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "the deck is shuffled" in out and "you hold" not in out and "P1: the round is over" not in out


# ---- a rule that fails while the game runs

DRY = '''game "Dry"
players 2
attribute rank: 1, 2, 3
cards rank
zone deck: hidden, stack
zone hand per player: owner
action draw { move top(deck) to me.hand }
setup { shuffle deck }
round {
  turn seat(1) { choose draw }
  turn seat(2) { choose draw }
}
'''
DRY_ERROR = ["dry.game:7:20: error: zone 'deck' is empty: it has no top card",
             "    action draw { move top(deck) to me.hand }",
             "                       ^^^^^^^^^",
             "  during move 4 by P2 (round 2)"]


def test_a_failing_rule_is_located_in_play_simulate_test_and_verify(tmp_path, capsys):
    (tmp_path / "dry.game").write_text(DRY, encoding="utf-8")
    assert main(["play", "dry.game", "--seats", "random", "--seed", "1", "--log", "d.jsonl"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == DRY_ERROR + ["(the game stopped after move 4; its log is d.jsonl)"]
    assert [line["type"] for line in lines_of(tmp_path / "d.jsonl")] == ["start", "move", "move", "move"]

    assert main(["simulate", "dry.game", "--games", "2", "--seats", "random"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == DRY_ERROR[:3] + [DRY_ERROR[3] + ", in game 1 (seed 0)"]

    assert main(["verify", "dry.game", "--examples", "3"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[:4] == DRY_ERROR[:3] + [DRY_ERROR[3] + ", in a 2-player game"]
    assert err[4] == "  the smallest failing game found: seed 0, 4 moves: draw; draw; draw; draw"

    assert main(["test", "dry.game", "verify-failure-dry-2p.yaml"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == DRY_ERROR[:3] + [DRY_ERROR[3] + ", at verify-failure-dry-2p.yaml:13"]


def test_a_rule_that_loops_without_asking_anyone_is_stopped_and_named(tmp_path, capsys):
    eights = (ROOT / "games" / "crazy_eights.game").read_text(encoding="utf-8")
    wrong = eights.replace('if not can_play(me) "you have a card you can play, so you may not draw"',
                           'if can_play(me) "you have a card you can play, so you may not draw"')
    assert wrong != eights
    (tmp_path / "typo.game").write_text(wrong, encoding="utf-8")
    assert main(["simulate", "typo.game", "--games", "1", "--seats", "random"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("typo.game:135:7: error: the rules ran 1,000,000 steps without asking for a move: "
                          "this loop never ends\n"
                          "          while not turn_over { choose play, draw, pass }\n"
                          "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                          "  hint: a decision nobody can make is skipped")


# ---- serve (the server itself: test_serve.py)

def test_serve_reports_a_bad_file_a_bad_port_and_a_busy_one_before_serving(tmp_path, capsys):
    import socket

    assert main(["serve", str(tmp_path / "nope.game"), "--data", str(tmp_path / "d")]) == 1
    assert capsys.readouterr().err.strip() == f"{tmp_path / 'nope.game'}: error: no such file"
    assert main(["serve", GAME, "--port", "70000"]) == 2
    assert "expected a port from 0 to 65535, not 70000" in capsys.readouterr().err
    assert main(["serve", GAME, "--window-seconds", "soon"]) == 2
    assert "expected a number of seconds, not 'soon'" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", GAME, "--port", str(port), "--data", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gamedsl serve: error: cannot listen on 127.0.0.1:{port}: "), err
    assert not (tmp_path / "d").exists()  # nothing was created for a server that never started


def test_serve_without_the_web_extra_names_its_install_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    assert main(["serve", GAME]) == 2
    assert capsys.readouterr().err.strip() == ("gamedsl: error: this needs 'uvicorn', which is not installed: "
                                               "pip install 'gamedsl[web]'")


def test_verify_takes_options_and_a_failure_found_with_them_replays_with_them(tmp_path, capsys):
    """`gamedsl verify --option` plays every game with the options; a mistyped one is refused at once;
    the scenario written for a failure carries the options, so `gamedsl test` replays the same game."""
    assert main(["verify", str(ROOT / "games" / "slapjack.game"), "--players", "3", "--examples", "5",
                 "--option", "rules=ratscrew"]) == 0
    assert "3 players, rules=ratscrew: 5 games, every invariant holds" in capsys.readouterr().out
    assert main(["verify", str(ROOT / "games" / "slapjack.game"), "--option", "rules=ratscre"]) == 1
    assert "option 'rules' is one of slapjack, ratscrew, not 'ratscre'" in capsys.readouterr().err
    game = tmp_path / "broken.game"
    game.write_text('game "Broken"\nplayers 2\noption strict = false\nattribute rank: 1, 2, 3\ncards rank\n'
                    'zone deck: hidden, stack\nzone hand per player: owner\n'
                    'action play (c in me.hand) { move c to deck }\n'
                    'invariant "strict games keep a card in a hand": not strict or count(deck) < 3\n'
                    'setup { deal 1 from deck to hand }\nround { for each p in players { turn p { choose play } } }\n'
                    'end game when count(deck) == 3\n', encoding="utf-8")
    assert main(["verify", str(game), "--examples", "5"]) == 0
    out = tmp_path / "failure.yaml"
    assert main(["verify", str(game), "--examples", "5", "--option", "strict=true", "--out", str(out)]) == 1
    assert 'options: {"strict": "true"}' in out.read_text(encoding="utf-8")
    assert main(["test", str(game), str(out)]) == 1  # the scenario replays the failure, options and all
