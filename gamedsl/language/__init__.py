"""The language: a .game file's text becomes a Program (parse, build the model, check, generate
Python). `compile_source` is the front door; compiled games are cached (cache.py)."""
from __future__ import annotations

from .build import build
from .compiler import compile_model
from .program import Program

__all__ = ["Program", "compile_source"]


def compile_source(text: str, filename: str = "<string>") -> tuple[Program, object]:
    """The Program of a game's text, and its module's code when a cached compilation had it
    (else None: it is compiled when linked). Raises SourceError with every problem."""
    return compile_model(build(text, filename)), None
