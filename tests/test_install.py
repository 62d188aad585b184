"""The README's plain install works on its own: `pip install .` (no extras, not editable) in a fresh
virtual environment, then every command of the README's table, run from a folder outside the checkout.

The environment is made once for the module (about ten seconds); each command then runs in it.
A command that fails, or that answers "This is a bug", fails the test.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.game"))
LAUS = ROOT / "games" / "laus.game"


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A fresh virtual environment with `pip install ROOT` and nothing else: (bin folder, work folder)."""
    base = tmp_path_factory.mktemp("plain")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    # A copy of the source, so the build leaves nothing behind in the checkout.
    src = base / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                            "__pycache__", ".pytest_cache", ".hypothesis",
                                                            "node_modules", "*.vsix"))
    out = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(src)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    work = base / "work"
    work.mkdir()
    return bin_dir, work


def gamedsl(plain, *args, ok=(0,)):
    """Run the installed command from the work folder, with no PYTHONPATH pointing at the checkout."""
    bin_dir, work = plain
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = subprocess.run([str(bin_dir / "gamedsl"), *map(str, args)], cwd=work, env=env, capture_output=True,
                         text=True, timeout=300)
    assert "This is a bug" not in out.stderr, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode in ok, f"gamedsl {' '.join(map(str, args))}: exit {out.returncode}\n{out.stderr}"
    return out


def test_the_grammar_ships_inside_the_package(plain):
    bin_dir, work = plain
    out = subprocess.run([str(bin_dir / "python"), "-c", "import importlib.resources as r, gamedsl; "
                          "print(r.files('gamedsl.grammar').joinpath('gamedsl.lark').is_file(), gamedsl.__file__)"],
                         cwd=work, capture_output=True, text=True)
    found, where = out.stdout.split()
    assert found == "True", out.stderr
    assert str(ROOT) not in where  # the installed copy, not the checkout


def test_check_every_game(plain):
    out = gamedsl(plain, "check", *GAMES)
    assert out.stdout.splitlines() == [f"{g}: ok" for g in GAMES]


def test_fmt_lays_out_a_game_and_check_mode_then_finds_nothing(plain):
    copy = plain[1] / "messy.game"
    copy.write_text(LAUS.read_text(encoding="utf-8").replace("\n\n", "\n\n\n\n"), encoding="utf-8")
    out = gamedsl(plain, "fmt", "--check", copy, ok=(1,))
    assert out.stdout.strip() == f"would reformat {copy}"
    gamedsl(plain, "fmt", copy)
    gamedsl(plain, "fmt", "--check", copy)
    assert gamedsl(plain, "check", copy).stdout.strip() == f"{copy}: ok"


def test_play_with_bots_then_replay_its_log(plain):
    log = plain[1] / "game.jsonl"
    gamedsl(plain, "play", LAUS, "--seats", "greedy,random,random", "--seed", "3", "--option", "target=200",
            "--log", log)
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "end"
    out = gamedsl(plain, "replay", log)
    assert "same final state" in out.stdout


def test_simulate_json(plain):
    out = gamedsl(plain, "simulate", LAUS, "--games", "2", "--seats", "random", "--option", "target=200", "--json")
    assert json.loads(out.stdout)["games"] == 2


def test_arena_json(plain):
    out = gamedsl(plain, "arena", ROOT / "games" / "crazy_eights.game", "--seats", "random,greedy", "--games", "2",
                  "--option", "target=30", "--json")
    r = json.loads(out.stdout)
    assert r["games"] == 2 and r["entries"] == ["random", "greedy"]


def test_analyze_json_and_the_report_extra(plain):
    out = gamedsl(plain, "analyze", LAUS, "--games", "3", "--skill-games", "3", "--jobs", "2", "--json")
    r = json.loads(out.stdout)
    assert r["games"] == 3 and r["versions"][0]["metrics"]["length"]["moves"]["mean"] > 0
    # The plain install has no matplotlib: the HTML report says which extra draws it, before any game.
    out = gamedsl(plain, "analyze", LAUS, "--games", "3", "--out", "r.html", ok=(2,))
    assert "pip install 'gamedsl[report]'" in out.stderr


def test_test_a_scenario(plain):
    out = gamedsl(plain, "test", LAUS, ROOT / "tests" / "scenarios" / "laus" / "follow_suit.yaml")
    assert out.stdout.strip().endswith("checks)")


def test_verify(plain):
    out = gamedsl(plain, "verify", LAUS, "--examples", "3", "--players", "3")
    assert "every invariant holds" in out.stdout


def test_serve_asks_for_the_web_extra_then_starts_and_stops(plain):
    """Without the web extra, `serve` answers with its install line; with it, the installed server
    listens on 127.0.0.1, serves the lobby and the table page's files from the wheel, and stops on Ctrl-C."""
    import signal
    import urllib.request

    out = gamedsl(plain, "serve", LAUS, ok=(2,))
    assert out.stderr.strip() == ("gamedsl: error: this needs 'uvicorn', which is not installed: "
                                  "pip install 'gamedsl[web]'")
    bin_dir, work = plain
    src = work.parent / "src"
    done = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", f"{src}[web]"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.Popen([str(bin_dir / "gamedsl"), "serve", str(LAUS), "--port", "0", "--data", "served"],
                            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+)/ ", line)[1]
        for _ in range(100):
            try:
                game = json.loads(urllib.request.urlopen(url + "/api/game", timeout=5).read())
                break
            except OSError:
                import time
                time.sleep(0.1)
        assert game["name"] == "Laus" and game["min_players"] == 3
        assert b"new WebSocket" in urllib.request.urlopen(url + "/static/table.js", timeout=5).read()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    assert proc.returncode == 0, proc.stderr.read()
    assert (work / "served" / "lobby.sqlite3").is_file()


def test_lsp_asks_for_the_lsp_extra(plain):
    """Without the lsp extra, `gamedsl lsp` answers with its install line (tests/test_lsp.py drives
    the server itself)."""
    out = gamedsl(plain, "lsp", ok=(2,))
    assert out.stderr.strip().endswith("pip install 'gamedsl[lsp]'")


def test_every_command_of_the_readme_is_installed_and_tested_here(plain):
    """The README's table lists the commands; each is installed, answers --help, and has a test above."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `gamedsl (\w+)", readme, re.M))
    installed = set(re.findall(r"^    (\w+)  ", gamedsl(plain, "--help").stdout, re.M))
    assert listed == installed
    tests = [name for name in globals() if name.startswith("test_") and "every_command" not in name]
    assert [c for c in sorted(listed) if not any(c in name.split("_") for name in tests)] == []
    for command in listed:
        gamedsl(plain, command, "--help")
