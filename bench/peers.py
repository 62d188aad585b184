"""Random-playout speed of the engines users could pick instead of gamedsl, for the same run's table.

Each peer is driven from Python the way its users drive it, playing uniformly random legal
moves; a move is one decision of a player (chance steps, when a peer has them, are timed but
not counted, as gamedsl's shuffles and deals are not). Nothing is installed here: a peer that
is missing is reported as "not installed" (`pip install 'gamedsl[bench]'` adds them).

- RLCard's UNO (a pure-Python engine): the game object, 2 players.
- OpenSpiel's crazy_eights and skat (a C++ core, driven from Python), 2 and 3 players.
"""
from __future__ import annotations

import importlib.util
import random
from typing import Callable, NamedTuple


class Peer(NamedTuple):
    """A peer engine's game: how to play one random game (seed -> moves), or why it cannot."""
    impl: str
    game: str
    players: int
    play_one: Callable[[int], int] | None
    missing: str = ""


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def rlcard_uno(players: int = 2) -> Peer:
    """RLCard's UNO game object, driven directly: a random legal action until the game is over."""
    if not _installed("rlcard"):
        return Peer("rlcard", "uno", players, None, "not installed")
    from rlcard.games.uno.game import UnoGame

    def play_one(seed: int) -> int:
        game = UnoGame(num_players=players)
        game.np_random.seed(seed)
        game.init_game()
        choice = random.Random(seed).choice
        moves = 0
        while not game.is_over():
            game.step(choice(game.get_legal_actions()))
            moves += 1
        return moves
    return Peer("rlcard", "uno", players, play_one)


def open_spiel(name: str, players: int) -> Peer:
    """An OpenSpiel game from Python: chance outcomes sampled by their probabilities, player moves at random."""
    if not _installed("pyspiel"):
        return Peer("openspiel", name, players, None, "not installed")
    import pyspiel

    params = {"players": players} if name == "crazy_eights" else {}
    game = pyspiel.load_game(name, params)

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        return moves
    return Peer("openspiel", name, players, play_one)


def peers() -> list[Peer]:
    """Every peer measured next to gamedsl."""
    return [rlcard_uno(2), open_spiel("crazy_eights", 2), open_spiel("skat", 3)]
