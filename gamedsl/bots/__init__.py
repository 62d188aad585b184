"""Bots: players that choose moves. Each has `choose(state) -> move`; BOTS names them for the
command line (`--seats greedy,random`), and make_bot makes one from a spec (`ismcts:2000:cut=40`)."""
from __future__ import annotations

import math
from importlib import import_module
from typing import TYPE_CHECKING

KINDS = ("random", "greedy", "ismcts")  # the bots, by the name a seat or a spec gives them
SEAT_KINDS = ("human",) + KINDS  # who may sit at a seat of `gamedsl play`: a person, or a bot
_CLASSES = {"RandomAgent": ".uniform", "GreedyAgent": ".greedy", "IsmctsAgent": ".ismcts"}  # in KINDS' order

__all__ = ["BOTS", "KINDS", "SEAT_KINDS", "BotSpecError", "GreedyAgent", "IsmctsAgent", "RandomAgent", "UnknownBot",
           "make_bot", "parse_spec"]

if TYPE_CHECKING:
    from .greedy import GreedyAgent
    from .ismcts import IsmctsAgent
    from .uniform import RandomAgent

    BOTS: dict


def __getattr__(name: str):
    """The bots' classes, and BOTS (kind -> class), imported when first asked for: the command line
    names the bots in its help and checks, and `gamedsl check` makes none."""
    if name in _CLASSES:
        value = globals()[name] = getattr(import_module(_CLASSES[name], __name__), name)
        return value
    if name == "BOTS":
        value = globals()[name] = dict(zip(KINDS, (__getattr__(c) for c in _CLASSES)))
        return value
    raise AttributeError(f"module 'gamedsl.bots' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))


class BotSpecError(ValueError):
    """A bot spec that cannot be made: the message says why."""


class UnknownBot(BotSpecError, KeyError):
    """A spec whose kind is no bot."""

    def __str__(self) -> str:
        return self.args[0]


# Per kind: its options, each with how its value is read (None: a flag, written alone), and
# whether a budget comes first (`ismcts:2000`, `ismcts:0.5s`).
_OPTIONS = {
    "random": {},
    "greedy": {"samples": int, "lookahead": int, "budget": int},
    "ismcts": {"cut": int, "heuristic": None, "c": float, "fresh": None, "rank": None},
}
_BUDGET = {"ismcts"}
# The least and the most each number may be: a finite number within these, or the spec is refused
# (a billion samples is no bot; a NaN exploration constant made every search raise). A server
# narrows them further for its tables (serve/bots.py).
LIMITS = {"samples": (1, 10_000), "lookahead": (1, 100), "budget": (1, 10_000_000), "cut": (1, 100_000),
          "c": (0.0, 1_000.0), "iterations": (1, 100_000_000), "seconds": (0.001, 3_600.0)}


def parse_spec(spec: str) -> tuple[str, dict]:
    """(kind, keyword arguments of its class) of a spec `KIND[:BUDGET][:NAME=VALUE|:FLAG]...`;
    raises UnknownBot for an unknown kind, BotSpecError for anything else wrong."""
    kind, *parts = spec.strip().lower().split(":")
    if kind not in KINDS:
        raise UnknownBot(f"'{spec}' is not a bot (the bots: {', '.join(KINDS)})")
    allowed = _OPTIONS[kind]
    kwargs: dict = {}
    for k, part in enumerate(parts):
        part = part.strip()
        if k == 0 and kind in _BUDGET and "=" not in part and part not in allowed:
            kwargs.update(_budget(part))
            continue
        name, eq, value = part.partition("=")
        if name not in allowed:
            known = ", ".join(allowed) or "none"
            budget = " and a budget (2000 iterations, or 0.5s)" if kind in _BUDGET else ""
            raise BotSpecError(f"'{part}' is not an option of {kind} (its options: {known}{budget})")
        if name in kwargs:
            raise BotSpecError(f"'{name}' is given twice")
        read = allowed[name]
        if read is None:
            if eq:
                raise BotSpecError(f"'{name}' takes no value: write '{name}' alone")
            kwargs[name] = True
            continue
        try:
            number = read(value)
        except ValueError:
            raise BotSpecError(f"'{name}' needs a number, not '{value}'") from None
        kwargs[name] = within(name, number, value)
    return kind, kwargs


def within(name: str, number, text: str, limits: dict = LIMITS):
    """The number, if finite and within its limits (`limits[name]`: the least, the most); else BotSpecError."""
    low, high = limits[name]
    what = {"iterations": "the budget", "seconds": "the time per move"}.get(name, f"'{name}'")
    if not math.isfinite(number):
        raise BotSpecError(f"{what} must be a finite number, not {text}")
    if not low <= number <= high:
        raise BotSpecError(f"{what} must be from {_shown(low)} to {_shown(high)}, not {text}")
    return number


def _shown(x) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,g}"


def _budget(text: str) -> dict:
    """`2000` (iterations) or `0.5s` (seconds per move)."""
    try:
        number = float(text[:-1]) if text.endswith("s") else int(text)
    except ValueError:
        raise BotSpecError(f"'{text}' is not a budget: give iterations (2000) or seconds per move (0.5s)") from None
    name = "seconds" if text.endswith("s") else "iterations"
    return {name: within(name, number, text)}


def make_bot(spec: str, seed: int):
    """A bot from its spec (`greedy`, `ismcts:2000`, `ismcts:0.5s:cut=40:heuristic`) and its seed;
    raises UnknownBot (a KeyError too) for an unknown kind, BotSpecError (a ValueError) for a bad option."""
    kind, kwargs = parse_spec(spec)
    return (globals().get("BOTS") or __getattr__("BOTS"))[kind](seed, **kwargs)
