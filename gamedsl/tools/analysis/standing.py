"""Who is ahead during one game, read the way the game itself would rank its players, and what a
game asks of its players between decisions: the design report's tension and pace (observe.py
feeds it the real game's moves).

The standing at a moment is what the game's own `outcome` would say if the game ended there: it
runs on a copy of the state. Its `places ... by KEY` gives each player a score in the game's own
units (points, Laws collected); a game whose outcome only names winners gives a leader when it
names one. Where the outcome cannot be read before the end (it fails on a copy), the game's
`heuristic` is used, and the report says so. Standings are read at the end of every round in a
game of several rounds, else at the end of every turn: never after a sub-decision (which card of
a pair, which colour to name), where a hand's size flips the lead back and forth.
"""
from __future__ import annotations

import random

from ...engine.knowledge import Redealer
from ...errors import GamedslError

FRACTIONS = tuple(k / 20 for k in range(1, 20))  # the points of a game (5% to 95%) the standings are kept at
SAMPLED = 3  # decisions per game whose moves are all weighed (meaningful decisions)
WORLDS = 4  # worlds each of those moves is weighed in


def standing(state) -> tuple[list, list | None, str] | None:
    """(results, score per player with higher better or None, how it was read) if the game ended
    now; None when neither the outcome nor a heuristic can say."""
    if state.terminal:
        return list(state.results), _scores(state.ranked_by), "outcome"
    other = state.clone(past=False)
    other.checking = False
    try:
        other.end_game()
        other._run_frames()
        if other.terminal:
            return list(other.results), _scores(other.ranked_by), "outcome"
    except (GamedslError, ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        pass
    if state.prog.heuristic is None:
        return None
    try:
        return None, [state.evaluate(p) for p in range(state.np)], "heuristic"
    except (GamedslError, ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        return None


def _scores(ranked_by) -> list | None:
    """The score of each player in the game's units: the key of `places` (its first: the later
    ones of `by E then F` only break ties)."""
    if ranked_by is None:
        return None
    keys, descending = ranked_by
    keys = [k[0] if isinstance(k, tuple) else k for k in keys]
    if any(not isinstance(k, (int, float)) for k in keys):
        return None
    return [k if descending else -k for k in keys]


def scores_at_end(state) -> dict:
    """Each player's score at the end of a game that ended, in the game's own units (the first key
    of its `places`), and the winning margin (the best score's lead over the next, whichever way
    the game ranks): None where there is none (no places, keys that are not numbers, the move limit)."""
    if not state.terminal or state.limit_hit or state.ranked_by is None:
        return {"scores": None, "margin": None}
    keys, descending = state.ranked_by
    keys = [k[0] if isinstance(k, tuple) else k for k in keys]
    if not all(isinstance(k, (int, float)) for k in keys):
        return {"scores": None, "margin": None}
    ordered = sorted(keys, reverse=descending)
    return {"scores": keys, "margin": abs(ordered[1] - ordered[0]) if len(ordered) > 1 else None}


def leader_and_last(results, scores) -> tuple[int, int]:
    """The one player strictly ahead and the one strictly behind (-1 where several share it)."""
    if scores is not None:
        best, worst = max(scores), min(scores)
        leader = scores.index(best) if scores.count(best) == 1 else -1
        last = scores.index(worst) if scores.count(worst) == 1 and worst != best else -1
        return leader, last
    winners = [p for p, r in enumerate(results) if r == "win"]
    losers = [p for p, r in enumerate(results) if r != "win"]
    return (winners[0] if len(winners) == 1 else -1), (losers[0] if len(losers) == 1 and winners else -1)


class Watch:
    """What the report keeps of one game beyond its result: the standings at the ends of turns
    and of rounds, who decided when, who was knocked out when, and a few decisions weighed."""

    def __init__(self, state, seed: int):
        # per end of a turn: (leader, last, scores, ends a round, round starter, several decided in the round)
        self.points: list[tuple] = []
        self.read = None  # how the standings were read: outcome or heuristic
        self.deciders: list[int] = []
        self.out_at: dict[int, int] = {}  # player -> the move after which they were out
        self.turn, self.round = state.turn, state.round
        self.starter = -1  # who made the first decision of the round
        self.in_round: set[int] = set()  # who decided in it
        self.rng = random.Random(seed)
        self.weighed: list[list[float]] = []  # per sampled decision: the value of each move for its decider

    def decision(self, state):
        """Before a real decision is made."""
        p = state.current_player()
        if self.starter < 0:
            self.starter = p
        self.in_round.add(p)
        self.deciders.append(p)
        if len(self.weighed) < SAMPLED and len(state.legal_actions()) > 1 and self.rng.random() < 0.1:
            values = weigh(state, self.rng)
            if values:
                self.weighed.append(values)

    def moved(self, state):
        """After a real move: a knock-out noted; at the end of a turn (or round), the standings."""
        if state.out:
            for p in range(state.np):
                if state.out >> p & 1 and p not in self.out_at:
                    self.out_at[p] = state.moves
        if (state.turn, state.round) != (self.turn, self.round) and not state.terminal:
            self._point(state, state.round != self.round)
            if state.round != self.round:
                self.starter, self.in_round = -1, set()
        self.turn, self.round = state.turn, state.round

    def _point(self, state, round_end: bool):
        found = standing(state)
        if found is None:
            return
        results, scores, how = found
        if self.read is None:
            self.read = how
        elif how != self.read:  # read one way at one moment and another at the next: keep one way
            return
        leader, last = leader_and_last(results, scores)
        self.points.append((leader, last, scores, round_end, self.starter, len(self.in_round) > 1))

    def record(self, state, winner: int) -> dict:
        """The game's record of tension (by turn and by round) and pace (see metrics)."""
        final = standing(state) if state.terminal and not state.limit_hit else None
        final_scores = final[1] if final else None
        by_round = [x for x in self.points if x[3]]
        return {"tension": {"turn": self._tension(self.points, winner, final_scores, False),
                            "round": self._tension(by_round, winner, final_scores, True)},
                "pace": self._pace(state), "weighed": self.weighed, **scores_at_end(state)}

    def _tension(self, points: list, winner: int, final_scores, rounds: bool) -> dict:
        n = len(points)
        changes, last_leader = 0, -1
        for leader, *_ in points:
            if leader >= 0:
                if last_leader >= 0 and leader != last_leader:
                    changes += 1
                last_leader = leader
        at = [points[min(n - 1, int(f * n))] if n else None for f in FRACTIONS]
        scored = self.read == "outcome" and n and points[0][2] is not None and winner >= 0
        behind = [s[leader] - s[winner] for leader, _, s, *_ in points
                  if scored and s is not None and leader >= 0 and leader != winner]
        starts = []  # per round several played in: (who started it, who gained most in it)
        if rounds and scored and final_scores is not None:
            before = None
            last_round = (None, None, final_scores, True, self.starter, len(self.in_round) > 1)
            for _, _, s, _, starter, several in points + [last_round]:
                if before is not None and starter >= 0 and several:  # (a round of one player's turn: theirs)
                    gains = [a - b for a, b in zip(s, before)]
                    top = max(gains)
                    starts.append((starter, gains.index(top) if gains.count(top) == 1 else -1))
                before = s
        margin = None
        if final_scores is not None and len(final_scores) > 1:
            ordered = sorted(final_scores, reverse=True)
            margin = ordered[0] - ordered[1]
        return {"read": self.read, "points": n, "changes": changes,
                "leader_at": [x[0] if x else -1 for x in at], "last_at": [x[1] if x else -1 for x in at],
                "winner": winner, "trailed": bool(behind) if winner >= 0 and n else None,
                "drama": (sum(behind) / len(behind) if behind else 0.0) if scored else None,
                "rounds": starts, "margin": margin}

    def _pace(self, state) -> dict:
        """Downtime: per player, the decisions of others between two of their own (mean), and the
        share of the game each knocked-out player sat out."""
        gaps: dict[int, list[int]] = {}
        last: dict[int, int] = {}
        for k, p in enumerate(self.deciders):
            if p in last:
                gaps.setdefault(p, []).append(k - last[p] - 1)
            last[p] = k
        per_player = [sum(g) / len(g) for g in gaps.values() if g]
        total = max(1, state.moves)
        return {"downtime": sum(per_player) / len(per_player) if per_player else None,
                "out_share": [(total - m) / total for m in self.out_at.values()]}


def weigh(state, rng: random.Random) -> list[float]:
    """The value of each legal move for the player deciding, by the game's heuristic one move
    ahead (in its own units, a move that ends the game too), averaged over a few worlds they could
    be in (they never see the hidden cards)."""
    if state.prog.heuristic is None:
        return []
    me = state.current_player()
    legal = sorted(state.legal_actions())
    worlds = Redealer(state, me)
    totals = [0.0] * len(legal)
    dealt = 0
    for _ in range(WORLDS):
        world = worlds.deal(rng, reseed=True, past=False) if worlds else state.clone(past=False)
        if world is None:
            continue
        dealt += 1
        for i, action in enumerate(legal):
            after = world.clone(past=False)
            try:
                after.apply_action(action)
                totals[i] += after.evaluate(me, ended=False)  # (a win's 1000 would dwarf every other range)
            except GamedslError:
                return []
    return [t / dealt for t in totals] if dealt else []
