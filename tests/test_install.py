"""The installed package works on its own: the grammar is inside it, the command runs anywhere."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_outside(tmp_path, *args):
    """Run Python in an empty directory, so only the installed gamedsl can be imported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_grammar_ships_inside_the_package(tmp_path):
    out = run_outside(tmp_path, "-c", "import importlib.resources as r; "
                      "print(r.files('gamedsl.grammar').joinpath('gamedsl.lark').is_file())")
    assert out.stdout.strip() == "True", out.stderr


def test_check_runs_from_another_directory(tmp_path):
    game = ROOT / "games" / "laus.game"
    out = run_outside(tmp_path, "-m", "gamedsl", "check", str(game))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{game}: ok"
