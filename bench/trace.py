"""A differential trace: whether two versions of gamedsl play every game alike, move by move.

    python bench/trace.py --before ../old-checkout          # every games/*.game, all player counts
    python bench/trace.py --before /tmp/old --games laus,law --seeds 50

For each game of this checkout's games/ and each of its player counts, random games from seeds
0, 1, 2, ... are played by each version (the other in its own process, with its gamedsl first
on sys.path, as bench/run.py's --before). At every decision the seat deciding and its legal moves,
and at the end the log, the results, every variable, every zone and the history, go into one
digest per game and player count. Equal digests: the two versions played the same games. The
moves are drawn from a generator of their own (seed * 7 + 1), not the game's.

A speed change that must not change what happens (issue 32) is checked with this; so is an
engine change that should change nothing for games that do not use what it adds.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MOVE_CAP = 20_000


def digests(root: Path, games: list[str], seeds: int) -> dict:
    """{"game/players": [digest, moves]} of every game's random games, with the gamedsl of `root`."""
    sys.path.insert(0, str(root))
    from gamedsl.engine.game import load_game
    out = {}
    for name in games:
        game = load_game(HERE.parent / "games" / f"{name}.game")
        for players in range(game.prog.min_players, game.prog.max_players + 1):
            h, moves = hashlib.sha256(), 0
            for seed in range(seeds):
                state = game.new_state(players=players, seed=seed)
                rng = random.Random(seed * 7 + 1)
                for _ in range(MOVE_CAP):
                    if state.is_terminal():
                        break
                    legal = state.legal_actions()
                    h.update(repr((state.current_player(), legal)).encode())
                    state.apply_action(rng.choice(legal))
                    moves += 1
                h.update(repr((state.log, state.returns(), state.v, state.z, state.history)).encode())
            out[f"{name}/{players}"] = [h.hexdigest()[:16], moves]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the other checkout")
    ap.add_argument("--games", help="names of games/*.game, comma-separated (default: all)")
    ap.add_argument("--seeds", type=int, default=20, help="random games per game and player count")
    ap.add_argument("--only", type=Path, help=argparse.SUPPRESS)  # worker: digests of this root, as JSON
    args = ap.parse_args(argv)
    games = args.games.split(",") if args.games else sorted(p.stem for p in (HERE.parent / "games").glob("*.game"))
    if args.only:
        print(json.dumps(digests(args.only, games, args.seeds)))
        return 0

    def run(root: Path) -> dict:
        cmd = [sys.executable, __file__, "--before", str(root), "--only", str(root), "--seeds", str(args.seeds),
               "--games", ",".join(games)]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    ours, theirs = run(HERE.parent), run(args.before.resolve())
    differ = 0
    print(f"{'game':<18} {'pl':>3} {'moves':>8}  same")
    for key, (digest, moves) in ours.items():
        game, players = key.split("/")
        same = theirs.get(key, [None])[0] == digest
        differ += not same
        print(f"{game:<18} {players:>3} {moves:>8}  {'yes' if same else 'NO'}")
    print(f"{len(ours) - differ} of {len(ours)} alike ({args.seeds} games each)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
