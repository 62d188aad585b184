"""The A/A test of the design report: one version's games split at random into two halves, again
and again, and the halves compared as if they were two versions. Nothing differs but chance, so
every difference the report flags is a false one; docs/analysis.md gives the rates measured on
the seed games, and tests/test_analyze.py holds the report to them."""
from __future__ import annotations

import random

from . import metrics as M
from .versions import compare


def split_runs(context, main: list, bot: str, probes: list | None, repetitions: int = 20, seed: int = 0) -> dict:
    """Compare `repetitions` random halvings of the fairness games (and the card probes of each half's
    games): the share of the comparison's rows flagged significant, and the rules and cards flagged
    per repetition."""
    rng = random.Random(seed)
    n = context.players
    flagged = tested = rules = cards = 0
    per_metric: dict[str, int] = {}
    for _ in range(repetitions):
        order = list(range(len(main)))
        rng.shuffle(order)
        half = len(order) // 2
        arms = [[main[i] for i in sorted(order[:half])], [main[i] for i in sorted(order[half:2 * half])]]
        metrics = []
        for arm in arms:
            seeds = {r["seed"] for r in arm}
            arm_probes = [pr for pr in probes if pr["seed"] in seeds] if probes is not None else None
            metrics.append(M.version_metrics(context, {"main": arm}, bot, arm_probes))
        c = compare(metrics[0], metrics[1], {"main": arms[0]}, {"main": arms[1]}, True, n, bot, paired=False)
        for row in c["rows"]:
            if row["p"] is not None:
                tested += 1
                flagged += row["significant"]
                per_metric[row["metric"]] = per_metric.get(row["metric"], 0) + row["significant"]
        rules += len(c["coverage_changes"])
        cards += len(c["card_changes"])
    return {"repetitions": repetitions, "games": len(main), "rows_tested": tested, "rows_flagged": flagged,
            "row_rate": flagged / tested if tested else 0.0, "rules_per_repetition": rules / repetitions,
            "cards_per_repetition": cards / repetitions, "per_metric": per_metric}
