"""Bots: players that choose moves. Each has `choose(state) -> move`; BOTS names them for the
command line (`--seats greedy,random`)."""
from __future__ import annotations

from .greedy import GreedyAgent
from .uniform import RandomAgent

BOTS = {"random": RandomAgent, "greedy": GreedyAgent}

__all__ = ["BOTS", "GreedyAgent", "RandomAgent", "make_bot"]


def make_bot(kind: str, seed: int):
    """A bot by name; raises KeyError for an unknown kind."""
    return BOTS[kind](seed)
