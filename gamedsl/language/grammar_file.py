"""The text of the grammar (grammar/gamedsl.lark), read without loading the parser: the cache of
compiled games fingerprints it, and syntax.py builds the parser from it."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def grammar_text() -> str:
    """The text of grammar/gamedsl.lark, from the installed package or the source tree."""
    try:
        return resources.files("gamedsl.grammar").joinpath("gamedsl.lark").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        path = Path(__file__).resolve().parents[2] / "grammar" / "gamedsl.lark"
        return path.read_text(encoding="utf-8")
