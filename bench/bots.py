"""What a bot's move costs: the median milliseconds per move of bot specs at moments of each game.

    python bench/bots.py                                    # the table of docs/bots.md
    python bench/bots.py --specs greedy,ismcts:500:cut=20 --games laus,lol

The moments are reached by random play (seeds 0..3, every decision with a choice kept with
probability 1/5, up to `--moments` of them), at the game's fewest players (Laus: 3); each
spec chooses a move at each, with a bot seeded by the moment's number. Prints a markdown table.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gamedsl  # noqa: E402
from gamedsl.bots import make_bot  # noqa: E402

SPECS = "ismcts:100,ismcts:300,ismcts:1000,ismcts:300:cut=30,ismcts:1000:cut=30"
GAMES = "laus,mad_king,crazy_eights,lol,law"


def moments(game, players: int, count: int) -> list:
    """Copies of moments of random games where the player to move has a choice."""
    found = []
    for seed in range(4):
        state, rng = game.new_state(players=players, seed=seed), random.Random(seed)
        while not state.is_terminal() and len(found) < count * (seed + 1) // 4:
            legal = state.legal_actions()
            if len(legal) > 1 and rng.randrange(5) == 0:
                found.append(state.clone())
            state.apply_action(legal[rng.randrange(len(legal))])
    return found


def median_ms(spec: str, states: list) -> float:
    times = []
    for k, state in enumerate(states):
        bot = make_bot(spec, k)
        t0 = time.perf_counter()
        bot.choose(state)
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", default=SPECS, help=f"comma-separated bot specs (default {SPECS})")
    parser.add_argument("--games", default=GAMES, help=f"comma-separated games of games/ (default {GAMES})")
    parser.add_argument("--moments", type=int, default=12, help="moments per game (default 12)")
    args = parser.parse_args(argv)
    specs = args.specs.split(",")
    print("| game (players) | " + " | ".join(f"`{s}`" for s in specs) + " |")
    print("|---" * (len(specs) + 1) + "|")
    for name in args.games.split(","):
        game = gamedsl.load_game(ROOT / "games" / f"{name}.game")
        players = max(game.min_players, 3) if name == "laus" else game.min_players
        states = moments(game, players, args.moments)
        cells = [f"{median_ms(spec, states):,.0f} ms" for spec in specs]
        print(f"| {game.name} ({players}) | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
