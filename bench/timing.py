"""Random playouts, timed, and the other measurements bench/run.py makes inside one engine (clone,
calls per move, the greedy bot's decisions)."""
from __future__ import annotations

import random
import time
from typing import Callable, NamedTuple

MOVE_CAP = 1_000_000     # a random game longer than this is reported as stuck
CLONE_EVERY = 10         # the clone section copies the state at every 10th decision ...
CLONE_REPS = 100         # ... this many times


# ---- random playouts, timed

class Row(NamedTuple):
    """One measurement: a game played at random, many times, for a fixed time."""
    impl: str
    game: str
    players: int
    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    error: str = ""

    @property
    def us_per_move(self) -> float:
        return self.seconds / self.moves * 1e6


def measure(impl: str, game: str, players: int, play_one: Callable[[int], int],
            seconds: float, first_seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> Row:
    """Play games with seeds first_seed, first_seed + 1, ... until `seconds` have passed on `clock`
    (wall time; ab.py gives time.process_time, CPU time)."""
    try:
        play_one(10**9)  # warm-up: caches filled, code specialised
        games = moves = 0
        start = clock()
        while True:
            moves += play_one(first_seed + games)
            games += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return Row(impl, game, players, games, moves, elapsed)
    except Exception as e:  # a broken game must not hide the other measurements
        return Row(impl, game, players, error=f"{type(e).__name__}: {e}")


def add(a: Row, b: Row) -> Row:
    return a._replace(games=a.games + b.games, moves=a.moves + b.moves, seconds=a.seconds + b.seconds,
                      error=a.error or b.error)


def random_playout(game, players: int) -> Callable[[int], int]:
    """A function that plays one uniformly random game with gamedsl and returns its moves."""
    def play_one(seed: int) -> int:
        state = game.new_state(players=players, seed=seed)
        choice = random.Random(seed).choice
        moves = 0
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            moves += 1
            if moves > MOVE_CAP:
                raise RuntimeError(f"seed {seed}: no end after {MOVE_CAP} moves")
        return moves
    return play_one


def calls_per_move(play_one: Callable[[int], int], games: int) -> dict:
    """Function calls per move, as cProfile counts them (built-ins included), over random games with
    seeds 0 .. games-1: the work per move, free of the machine's speed."""
    import cProfile
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    moves = sum(play_one(seed) for seed in range(games))
    profile.disable()
    return {"games": games, "moves": moves, "calls_per_move": pstats.Stats(profile).total_calls / moves}


def clone_times(game, players: int, seed: int) -> tuple[float, int]:
    """One random game, copying the state CLONE_REPS times at every CLONE_EVERY-th decision:
    (seconds spent copying, copies made)."""
    state = game.new_state(players=players, seed=seed)
    choice = random.Random(seed).choice
    spent, clones, moves = 0.0, 0, 0
    while not state.is_terminal() and moves <= MOVE_CAP:
        if moves % CLONE_EVERY == 0:
            start = time.perf_counter()
            for _ in range(CLONE_REPS):
                state.clone(past=False)
            spent += time.perf_counter() - start
            clones += CLONE_REPS
        state.apply_action(choice(state.legal_actions()))
        moves += 1
    return spent, clones


def greedy_times(game, players: int, seed: int, make_bot, cap: int) -> list[float]:
    """One game with a greedy bot in every seat: the ms of its first `cap` real choices (two legal
    moves or more; a forced move is played untimed)."""
    bots = [make_bot("greedy", seed * 100 + p) for p in range(players)]
    state = game.new_state(players=players, seed=seed)
    times = []
    while not state.is_terminal() and len(times) < cap:
        start = time.perf_counter()
        action = bots[state.current_player()].choose(state)
        elapsed = time.perf_counter() - start
        if len(state.legal_actions()) > 1:
            times.append(elapsed * 1000)
        state.apply_action(action)
    return times
