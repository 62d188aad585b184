"""Every game in games/ holds greedy's recorded figures: the mean length of an all-greedy game, and
greedy's share of wins against random seats. A change to the bots or the engine that makes
greedy play worse (greedy's LOL games once grew from 586 moves to 7,333 because it stopped
saying «ЛОЛ!» as it played its last card but one, and nothing noticed) fails here.

The figures are recorded in tests/bot_figures.yaml. After a deliberate change of a bot, a game
or the engine, record them again and say why in the commit:

    python tests/test_bot_figures.py --record
"""
import sys
from pathlib import Path

import pytest
import yaml

import gamedsl
from gamedsl.tools.simulate import play_bot_game

ROOT = Path(__file__).resolve().parent.parent
FIGURES = Path(__file__).with_name("bot_figures.yaml")

# Per game: players, all-greedy games (their mean length), games against random (greedy's seat
# rotates), and options. Fewer games where greedy is slow (Hold'em, Gin Rummy, Klondike, Climb:
# one round of it, to 100), so the file runs in about two and a half minutes. Beacons is cooperative (the table wins or
# loses together): its greedy games seat greedy everywhere, and its goal is lowered so that a good
# table wins and a random one never.
PLAN = {
    "beacons": (2, 3, 6, {"goal": 6}), "climb": (4, 1, 12, {"goal": 100}), "crazy_eights": (2, 6, 16, {}),
    "dominion": (2, 4, 12, {}), "gin_rummy": (2, 2, 6, {}),
    "holdem": (2, 2, 6, {}), "klondike": (1, 1, 6, {}), "laus": (3, 6, 24, {}), "law": (2, 3, 8, {}), "law_first_game": (2, 3, 8, {}),
    "lol": (2, 4, 8, {}), "mad_king": (2, 8, 16, {}), "oh_hell": (3, 6, 24, {}), "slapjack": (2, 3, 8, {}),
    "sushi_go": (2, 6, 12, {}),
}
TOGETHER = {"beacons"}

# How near a figure must stay: a mean length within this factor of the recorded one, a share
# of wins at most this much below it (and always above what random wins at the same seats).
LENGTH_FACTOR = 1.5
SHARE_DROP = 0.25


def measure(name: str) -> dict:
    """The figures of one game, played from fixed seeds (the same code gives the same figures).

    greedy_share: how often greedy's seat wins against random seats (a shared win counts as
    a share); random_share: how often a random seat wins in its place, on the same deals."""
    players, alike, mixed, options = PLAN[name]
    game = gamedsl.load_game(ROOT / "games" / f"{name}.game")

    def play(seed, seats):
        return play_bot_game(game, players, seed, seats, options)

    lengths = [len(play(seed, ["greedy"] * players).history) for seed in range(alike)]
    shares = {"greedy": 0.0, "random": 0.0}
    teams = game.prog.teams  # a game in teams: the bot takes every seat of one team (its partners too)
    for seed in range(mixed):
        seat = seed % players
        for bot in shares:
            seats = [bot] * players if name in TOGETHER else ["random"] * players
            for q in range(seat % teams, players, teams) if teams else (seat,):
                seats[q] = bot
            shares[bot] += _won(play(1000 + seed, seats).returns(), seat, teams) / mixed
    return {"players": players, "greedy_length": round(sum(lengths) / alike, 1),
            "greedy_share": round(shares["greedy"], 3), "random_share": round(shares["random"], 3)}


def _won(returns: list, seat: int, teams: int = 0) -> float:
    """A seat's part of a game's win: 1, 1/k when k players (k teams, in a game in teams) share
    the win, 0 otherwise."""
    best = max(returns)
    if returns[seat] != best or best <= 0:
        return 0.0
    return 1 / len({k % teams if teams else k for k, r in enumerate(returns) if r == best})


def recorded() -> dict:
    return yaml.safe_load(FIGURES.read_text(encoding="utf-8"))


def test_every_game_has_recorded_figures():
    names = {p.stem for p in (ROOT / "games").glob("*.game")}
    assert set(PLAN) == names, "add the new game to PLAN and record its figures"
    assert set(recorded()) == names


@pytest.mark.parametrize("name", sorted(PLAN))
def test_greedy_keeps_its_recorded_length_and_strength(name):
    was, now = recorded()[name], measure(name)
    low, high = was["greedy_length"] / LENGTH_FACTOR, was["greedy_length"] * LENGTH_FACTOR
    assert low <= now["greedy_length"] <= high, \
        f"{name}: an all-greedy game takes {now['greedy_length']} moves, recorded {was['greedy_length']}"
    assert now["greedy_share"] >= was["greedy_share"] - SHARE_DROP, \
        f"{name}: greedy wins {now['greedy_share']:.0%} against random, recorded {was['greedy_share']:.0%}"
    assert now["greedy_share"] > now["random_share"], \
        f"{name}: greedy wins {now['greedy_share']:.0%}, a random seat in its place {now['random_share']:.0%}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_bot_figures.py --record")
    figures = {}
    for game_name in sorted(PLAN):
        figures[game_name] = measure(game_name)
        print(game_name, figures[game_name], flush=True)
    FIGURES.write_text("# greedy's figures per game, recorded by `python tests/test_bot_figures.py --record`\n"
                       + yaml.safe_dump(figures, sort_keys=True), encoding="utf-8")
